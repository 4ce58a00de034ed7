//! Mathable benchmarks: placement generation on mid-game positions and computer turns.
//!
//! ```
//! use tabletop::games::mathable::bench::{midgame_positions, time_placements};
//! let positions = midgame_positions(2, 3);
//! assert_eq!(positions.len(), 2);
//! let timing = time_placements(&positions, 10);
//! assert!(timing.placements > 0.0 && timing.tokens >= 3.0);
//! ```

use std::time::{Duration, Instant};

use super::players::greedy_move;
use super::rules::{Mathable, MathableMove};
use super::settings::{Preset, Settings};
use crate::game::Game;
use crate::players::Player;
use crate::record::Record;

/// Classic 14x14 positions after `turns` greedy turns each, one per seed from 0 to `count - 1`
/// (games that end earlier are left out).
pub fn midgame_positions(count: u64, turns: usize) -> Vec<Mathable> {
    let mut out = Vec::new();
    for seed in 0..count {
        let mut game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(seed)).expect("classic is valid");
        let mut done = 0;
        while done < turns && game.status().to_move().is_some() {
            let mv = greedy_move(&game);
            game.play(mv).expect("greedy plays legal moves");
            if !matches!(mv, MathableMove::Place { .. } | MathableMove::Draw) {
                done += 1;
            }
        }
        if game.status().to_move().is_some() {
            out.push(game);
        }
    }
    out
}

/// The placement generator's speed on a set of positions.
#[derive(Clone, Copy, Debug)]
pub struct PlacementTiming {
    /// Time per generation with the full rack of the player to move.
    pub per_call: Duration,
    /// Placements found per position.
    pub placements: f64,
    /// Tokens on the board per position.
    pub tokens: f64,
}

/// Times `reps` placement generations with the mover's full rack on each position.
pub fn time_placements(positions: &[Mathable], reps: u32) -> PlacementTiming {
    let mut buf = Vec::with_capacity(256);
    let (mut total, mut found) = (Duration::ZERO, 0usize);
    for game in positions {
        let rack = *game.rack(game.turn());
        let t = Instant::now();
        for _ in 0..reps {
            buf.clear();
            game.board().placements_into(std::hint::black_box(rack.mask()), &mut buf);
            std::hint::black_box(&buf);
        }
        total += t.elapsed();
        found += buf.len();
    }
    let n = positions.len().max(1);
    let tokens =
        positions.iter().map(|g| g.board().cells().filter(|&c| g.board().get(c).is_some()).count()).sum::<usize>();
    PlacementTiming {
        per_call: total / (n as u32 * reps.max(1)),
        placements: found as f64 / n as f64,
        tokens: tokens as f64 / n as f64,
    }
}

/// The average and the longest time `player` takes to choose a move in each position.
pub fn time_turns(player: &mut dyn Player<Mathable>, positions: &[Mathable]) -> (Duration, Duration) {
    let (mut sum, mut worst) = (Duration::ZERO, Duration::ZERO);
    for game in positions {
        let record = Record::new(game.clone());
        player.reset();
        let t = Instant::now();
        let _ = player.choose_move(&record);
        sum += t.elapsed();
        worst = worst.max(t.elapsed());
    }
    (sum / positions.len().max(1) as u32, worst)
}
