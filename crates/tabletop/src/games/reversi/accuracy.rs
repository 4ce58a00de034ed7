//! The midgame-accuracy benchmark (issue 14): how many discs a player's move loses against
//! perfect play, on seeded positions that the exact solver can still answer.
//!
//! - [`positions`]: seeded positions reached by uniformly random legal moves from the start,
//!   each with a number of empties drawn from a range (20..=24 by default, [`DEFAULT_EMPTIES`]).
//! - [`players_from_specs`]: the players to measure, built from spec strings as
//!   `tabletop match` builds them.
//! - [`measure`]: the move each player chooses and its loss in discs (the position's exact
//!   value minus the chosen move's exact value), with the exact solver.
//!
//! ```
//! use tabletop::games::reversi::accuracy::{measure, players_from_specs, positions};
//! use tabletop::games::reversi::solver::Solver;
//! let set = positions(2, 7, 8..=9).unwrap();
//! let mut players = players_from_specs(&["engine:depth=2".to_string()]).unwrap();
//! let report = measure(&set, &mut players, &mut Solver::new(16), &|_| {}).unwrap();
//! let engine = &report.players[0];
//! assert_eq!((report.positions, engine.positions), (2, 2));
//! assert!(engine.mean_loss() >= 0.0 && engine.worst_loss >= 0);
//! ```

use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};

use super::players::make_local_player;
use super::rules::{Reversi, ReversiMove};
use super::solver::Solver;
use crate::game::Game;
use crate::players::Player;
use crate::player_spec::{PlayerSpec, SpecError};
use crate::record::Record;

/// The empties of the benchmark's positions (issue 14: 20 to 24).
pub const DEFAULT_EMPTIES: RangeInclusive<u32> = 20..=24;

/// The players measured when none is given: the pattern evaluation and the former one, at 100 ms.
pub const DEFAULT_PLAYERS: [&str; 2] = ["engine:time=100ms", "engine-v1:time=100ms"];

/// Random games tried per position asked for before giving up (a game is skipped when it ends
/// or must pass at its target; with sensible ranges nearly every game is kept).
const ATTEMPTS_PER_POSITION: usize = 100;

/// Why the benchmark could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccuracyError {
    /// The empties range is empty or outside what a game can reach with a move to play.
    #[error("empties {start}-{end}: give a range within 1-59 (e.g. 20-24)")]
    BadEmpties {
        /// The first number of empties.
        start: u32,
        /// The last number of empties.
        end: u32,
    },
    /// Too many random games ended or had to pass before reaching their target.
    #[error("only {found} of {wanted} positions with {start}-{end} empties found in {attempts} random games")]
    TooFewPositions {
        /// Positions asked for.
        wanted: usize,
        /// Positions found.
        found: usize,
        /// The first number of empties.
        start: u32,
        /// The last number of empties.
        end: u32,
        /// Random games played.
        attempts: usize,
    },
    /// A player spec is not valid.
    #[error("player {spec:?}: {error}")]
    Spec {
        /// The spec as given.
        spec: String,
        /// Why it was refused.
        error: SpecError,
    },
    /// A player answered a move that is not legal in the position.
    #[error("{player} chose {mv}, which is not legal in {position}")]
    IllegalMove {
        /// The player's description.
        player: String,
        /// The move it chose.
        mv: ReversiMove,
        /// The position (OBF).
        position: String,
    },
}

/// `count` seeded positions with a number of empties in `empties` and a placement for the side
/// to move. Each is the end of a game of uniformly random legal moves from the start, played
/// until its target number of empties (drawn uniformly from `empties`); a game that ends first,
/// or whose side to move must pass at the target, is skipped. The same seed gives the same
/// positions (one ChaCha8 stream for the whole set).
///
/// ```
/// use tabletop::games::reversi::accuracy::positions;
/// let set = positions(3, 1, 20..=24).unwrap();
/// assert_eq!(set, positions(3, 1, 20..=24).unwrap());
/// assert!(set.iter().all(|p| (20..=24).contains(&p.open_squares()) && p.placements() != 0));
/// assert!(positions(1, 1, 0..=4).is_err());
/// ```
pub fn positions(count: usize, seed: u64, empties: RangeInclusive<u32>) -> Result<Vec<Reversi>, AccuracyError> {
    let (start, end) = (*empties.start(), *empties.end());
    // 60 empties is the start (no move played); a game with a move to play has at least 1.
    if start == 0 || end > 59 || start > end {
        return Err(AccuracyError::BadEmpties { start, end });
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let attempts = count.saturating_mul(ATTEMPTS_PER_POSITION).max(ATTEMPTS_PER_POSITION);
    let mut out = Vec::with_capacity(count);
    let mut moves = Vec::new();
    let mut tried = 0;
    while out.len() < count && tried < attempts {
        tried += 1;
        let target = rng.gen_range(empties.clone());
        let mut position = Reversi::new();
        while position.open_squares() > target && !position.is_over() {
            position.legal_moves(&mut moves);
            // A pass is the only move when there is no placement, so it is drawn then too.
            let mv = moves[rng.gen_range(0..moves.len())];
            position.play_unchecked(mv);
        }
        if position.open_squares() == target && position.placements() != 0 {
            out.push(position);
        }
    }
    if out.len() < count {
        return Err(AccuracyError::TooFewPositions { wanted: count, found: out.len(), start, end, attempts: tried });
    }
    Ok(out)
}

/// Builds the players of `specs` (any of [`LOCAL_PLAYERS`](super::players::LOCAL_PLAYERS)),
/// the `i`-th with seed `i + 1` as in `tabletop match`.
///
/// ```
/// use tabletop::games::reversi::accuracy::players_from_specs;
/// let players = players_from_specs(&["engine:time=100ms".to_string()]).unwrap();
/// assert_eq!(players[0].describe(), "engine:time=100ms");
/// let err = players_from_specs(&["engine:speed=3".to_string()]).err().unwrap();
/// assert!(err.to_string().starts_with("player \"engine:speed=3\": player \"engine\" has no setting \"speed\""));
/// ```
pub fn players_from_specs(specs: &[String]) -> Result<Vec<Box<dyn Player<Reversi>>>, AccuracyError> {
    specs
        .iter()
        .zip(1u64..)
        .map(|(text, seed)| {
            let bad = |error| AccuracyError::Spec { spec: text.clone(), error };
            let spec: PlayerSpec = text.parse().map_err(bad)?;
            make_local_player(&spec, seed).map_err(bad)
        })
        .collect()
}

/// One player's figures over the positions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerAccuracy {
    /// The player's description.
    pub player: String,
    /// Positions answered.
    pub positions: u64,
    /// The sum of the losses, in discs.
    pub total_loss: u64,
    /// The sum of the squared losses (for the standard error).
    pub total_squared_loss: u64,
    /// Positions where the chosen move was a best one (loss 0).
    pub best_moves: u64,
    /// The largest loss, in discs.
    pub worst_loss: i32,
    /// The time the player took over all positions.
    pub think_time: Duration,
    /// The longest time it took for one move.
    pub max_think: Duration,
}

impl PlayerAccuracy {
    fn new(player: String) -> Self {
        PlayerAccuracy {
            player,
            positions: 0,
            total_loss: 0,
            total_squared_loss: 0,
            best_moves: 0,
            worst_loss: 0,
            think_time: Duration::ZERO,
            max_think: Duration::ZERO,
        }
    }

    /// The mean loss in discs (0 with no positions).
    pub fn mean_loss(&self) -> f64 {
        self.total_loss as f64 / self.positions.max(1) as f64
    }

    /// The standard error of [`mean_loss`](Self::mean_loss), in discs (0 with fewer than two
    /// positions).
    pub fn loss_std_error(&self) -> f64 {
        if self.positions < 2 {
            return 0.0;
        }
        let n = self.positions as f64;
        let mean = self.mean_loss();
        let variance = (self.total_squared_loss as f64 - n * mean * mean).max(0.0) / (n - 1.0);
        (variance / n).sqrt()
    }

    /// The share of positions where a best move was chosen, from 0 to 1.
    pub fn best_share(&self) -> f64 {
        self.best_moves as f64 / self.positions.max(1) as f64
    }

    /// The mean time per move.
    pub fn mean_think(&self) -> Duration {
        self.think_time / u32::try_from(self.positions.max(1)).unwrap_or(u32::MAX)
    }
}

/// The benchmark's result: every player's figures and what the exact solves cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccuracyReport {
    /// Positions measured.
    pub positions: u64,
    /// One entry per player, in the order given.
    pub players: Vec<PlayerAccuracy>,
    /// The time of the exact solves (every legal move of every position).
    pub solve_time: Duration,
    /// The solver's nodes over all positions.
    pub solve_nodes: u64,
}

/// For each position: each player's move (its state reset before each position), then the
/// exact values that its loss needs, best value minus the chosen move's value. `solver` (reused
/// across positions, its table kept: its bounds stay exact) solves the position once, which
/// gives the best value and one best move, and then the position after each chosen move that
/// is not that one. The losses are those of valuing every legal move with
/// [`Solver::solve_all`] (the tests compare them), for a fraction of the nodes: the full-window
/// value of every poor move of a lopsided position is what costs most.
///
/// `on_position` is called after each position with the number done. A finished game is
/// skipped; a player that answers an illegal move stops the benchmark with an error.
pub fn measure(
    positions: &[Reversi],
    players: &mut [Box<dyn Player<Reversi>>],
    solver: &mut Solver,
    on_position: &dyn Fn(usize),
) -> Result<AccuracyReport, AccuracyError> {
    let mut report = AccuracyReport {
        positions: 0,
        players: players.iter().map(|p| PlayerAccuracy::new(p.describe())).collect(),
        solve_time: Duration::ZERO,
        solve_nodes: 0,
    };
    let mut legal = Vec::new();
    for (done, position) in positions.iter().enumerate() {
        if position.is_over() {
            // A finished game has no move to judge.
            on_position(done + 1);
            continue;
        }
        position.legal_moves(&mut legal);
        let record = Record::new(*position);
        let mut chosen = Vec::with_capacity(players.len());
        for (player, figures) in players.iter_mut().zip(&report.players) {
            player.reset();
            let started = Instant::now();
            let mv = player.choose_move(&record);
            let took = started.elapsed();
            if !legal.contains(&mv) {
                return Err(AccuracyError::IllegalMove {
                    player: figures.player.clone(),
                    mv,
                    position: position.to_string(),
                });
            }
            chosen.push((mv, took));
        }
        let started = Instant::now();
        let root = solver.solve(position);
        report.solve_nodes = report.solve_nodes.saturating_add(root.nodes);
        let best = root.score;
        // The exact value of each move needed, for the side to move.
        let mut values: Vec<(ReversiMove, i32)> = root.best.map(|m| (m, best)).into_iter().collect();
        for &(mv, _) in &chosen {
            if values.iter().all(|(m, _)| *m != mv) {
                let mut child = *position;
                child.play_unchecked(mv);
                let solved = solver.solve(&child);
                report.solve_nodes = report.solve_nodes.saturating_add(solved.nodes);
                values.push((mv, -solved.score));
            }
        }
        report.solve_time += started.elapsed();
        for ((mv, took), figures) in chosen.into_iter().zip(&mut report.players) {
            let value = values.iter().find(|(m, _)| *m == mv).map_or(best, |v| v.1);
            // Both values are exact disc differences within -64..=64, so the loss is 0..=128.
            let loss = u64::from((best - value).unsigned_abs());
            figures.positions += 1;
            figures.total_loss += loss;
            figures.total_squared_loss += loss * loss;
            figures.best_moves += u64::from(loss == 0);
            figures.worst_loss = figures.worst_loss.max(best - value);
            figures.think_time += took;
            figures.max_think = figures.max_think.max(took);
        }
        report.positions += 1;
        on_position(done + 1);
    }
    Ok(report)
}
