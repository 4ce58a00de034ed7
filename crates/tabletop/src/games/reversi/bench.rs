//! Reversi benchmarks: the FFO endgame test positions (their format and a checked solve) and
//! the seeded positions of the endgame and midgame timings.
//!
//! An FFO line is a position in OBF form followed by `; MOVE:SCORE` pairs, best first:
//!
//! ```
//! use tabletop::games::reversi::bench::{solve_ffo, FfoLine};
//! use tabletop::games::reversi::solver::ParallelSolver;
//! let line: FfoLine = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X; A2:+0"
//!     .parse()
//!     .unwrap();
//! assert_eq!((line.scores[0].0.as_str(), line.scores[0].1), ("a2", 0));
//! let solved = solve_ffo(&mut ParallelSolver::try_new(1, 16).unwrap(), &line);
//! assert_eq!(solved.solution.score.abs() % 2, 0);
//! ```

use std::time::{Duration, Instant};

use rand::SeedableRng;

use super::rules::{Reversi, ReversiPositionError};
use super::solver::{ParallelSolver, Solution};
use crate::game::Game;

/// The FFO endgame test files, #40-#49 and #50-#59, by their first position's number (copied
/// into the repository's `crates/tabletop/data/reversi/ffo/`; 3 kB, so built in).
pub const FFO_FILES: [(usize, &str); 2] = [
    (40, include_str!("../../../data/reversi/ffo/ffo-40-49.obf")),
    (50, include_str!("../../../data/reversi/ffo/ffo-50-59.obf")),
];

/// One line of an FFO test file: the position and the listed moves' scores.
#[derive(Clone, Debug)]
pub struct FfoLine {
    /// The position.
    pub position: Reversi,
    /// The moves in lower case with their exact scores, as listed.
    pub scores: Vec<(String, i32)>,
}

impl std::str::FromStr for FfoLine {
    type Err = ReversiPositionError;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let position = line.parse()?;
        let scores = line
            .split(';')
            .skip(1)
            .filter_map(|p| p.trim().split_once(':'))
            .filter_map(|(m, s)| Some((m.to_ascii_lowercase(), s.trim_start_matches('+').parse().ok()?)))
            .collect();
        Ok(FfoLine { position, scores })
    }
}

/// A solved FFO line.
#[derive(Clone, Debug)]
pub struct FfoResult {
    /// What the solver found.
    pub solution: Solution,
    /// The time it took.
    pub elapsed: Duration,
    /// Whether the score is the best listed one and the move is one of the listed moves with it.
    pub ok: bool,
}

/// Solves an FFO line from a cleared table and checks the answer against the file.
pub fn solve_ffo(solver: &mut ParallelSolver, line: &FfoLine) -> FfoResult {
    let expected = line.scores.iter().map(|s| s.1).max().unwrap_or(0);
    solver.clear();
    let started = Instant::now();
    let solution = solver.solve(&line.position);
    let elapsed = started.elapsed();
    let best = solution.best.map(|m| m.to_string()).unwrap_or_default();
    let ok = solution.score == expected && line.scores.iter().any(|(m, v)| *v == expected && *m == best);
    FfoResult { solution, elapsed, ok }
}

/// Positions of 20 empties: seeded random openings of 6 plies (seeds 101 to 100 + `count`),
/// then the classic depth-4 player for both sides (games that end earlier are left out).
pub fn endgame_positions(count: u64) -> Vec<Reversi> {
    let mut out = Vec::new();
    for seed in 1..=count {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(100 + seed);
        let mut position = Reversi::new();
        for mv in crate::arena::random_opening(&position, 6, &mut rng) {
            position.play_unchecked(mv);
        }
        while position.open_squares() > 20 && !position.is_over() {
            position.play_unchecked(super::classic::classic_move(&position, 4).0);
        }
        if !position.is_over() {
            out.push(position);
        }
    }
    out
}

/// Midgame positions: seeded random openings of 22, 24, ... plies (seeds 1 to `count`).
pub fn midgame_positions(count: u64) -> Vec<Reversi> {
    (1..=count)
        .map(|seed| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut position = Reversi::new();
            for mv in crate::arena::random_opening(&position, 20 + 2 * seed as usize, &mut rng) {
                position.play_unchecked(mv);
            }
            position
        })
        .collect()
}

/// Midgame positions for the time-use benchmark: seeded random games (seeds `seed` to
/// `seed + count - 1`) stopped after 14 to 36 plies (24 to 46 empties), none finished.
pub fn time_use_positions(count: u64, seed: u64) -> Vec<Reversi> {
    use rand::Rng;
    let mut out = Vec::new();
    for s in seed..seed + count {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
        let plies = rng.gen_range(14..=36);
        let mut position = Reversi::new();
        for mv in crate::arena::random_opening(&position, plies, &mut rng) {
            position.play_unchecked(mv);
        }
        if !position.is_over() {
            out.push(position);
        }
    }
    out
}

/// The CPU time the process has used so far, all its threads together, from
/// `/proc/self/stat` (Linux; in clock ticks, taken as 10 ms); `None` elsewhere. Against the wall
/// time it says how busy a parallel search kept its threads.
pub fn process_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command (which is in parentheses and may hold spaces): utime is the
    // 14th field of the line, the 12th after the command.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let (user, system): (u64, u64) = (fields.next()?.parse().ok()?, fields.next()?.parse().ok()?);
    Some(Duration::from_millis(10 * (user + system)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_cpu_time_grows_as_it_works() {
        let Some(before) = process_cpu() else { return };
        let started = Instant::now();
        let mut x = 1u64;
        while started.elapsed() < Duration::from_millis(300) {
            x = std::hint::black_box(x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(7));
        }
        let after = process_cpu().expect("read again");
        assert!(after > before, "{before:?} then {after:?}");
    }

    #[test]
    fn benchmark_positions_are_seeded() {
        let endgames = endgame_positions(2);
        assert!(endgames.iter().all(|p| p.open_squares() == 20 || p.open_squares() == 19));
        assert_eq!(endgames, endgame_positions(2));
        let midgames = midgame_positions(2);
        assert_eq!(midgames.len(), 2);
        assert!(midgames[0].open_squares() <= 60 - 22 + 2 && midgames[0] != midgames[1]);
    }
}
