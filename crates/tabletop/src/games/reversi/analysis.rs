//! Reversi's analysis: exact near the end, the engine's evaluation before, reproducibly.
//!
//! The plan is decided before searching, from the position and the [`AnalysisSettings`]:
//! - exact (the endgame solver, every move, no clock) when the empties are at most
//!   [`exact_empties`] of the settings' time;
//! - otherwise every move searched by the engine to one depth (full window, no clock), the
//!   fixed `depth` or the deepest the calibration [`midgame_cost`] predicts within the time.
//!
//! Moves the opening book ([`Book::standard`]) holds as near-best are marked `, book` after
//! their value in words (the page and `tabletop analyze` show the mark); their values are the
//! analysis' own.
//!
//! The estimates are searched on one thread (the parallel search's values would vary from run to run);
//! the exact solves on the front end's threads ([`default_threads`](super::players::default_threads)),
//! whose scores are the same on any number.
//!
//! The position is analysed through its canonical image under the board's 8 symmetries
//! ([`symmetry::canonical`](super::symmetry::canonical)) and the moves are mapped back, so a
//! position and its images get identical values; a fresh engine per analysis makes the values
//! independent of earlier searches.

use crate::analysis::{sorted, Analysis, AnalysisSettings, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;

use super::book::{Book, BookMove};
use super::engine::{Engine as ReversiEngine, WON};
use super::solver::ParallelSolver;
#[cfg(test)]
use super::solver::Solver as ReversiSolver;
use super::symmetry::transform;
use super::{Reversi, ReversiMove, Square};

/// The calibration of the exact solver (every move of a position, one thread, a fresh solver;
/// `cargo test --release -p tabletop --lib reversi_calibration -- --ignored --nocapture` on the
/// 2-core development machine under the load of three other builds, 2026-11-27): the median
/// time to solve every move of 12 seeded random positions, in seconds, by empties (the index;
/// below 14 extrapolated). The 90th percentiles were 2-3x the median (20 empties: 2.6 s, 8.8 s).
const EXACT_COST: [f64; 23] = [
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0005, 0.001, 0.003, 0.007, 0.017, 0.061, 0.099, 0.24,
    0.47, 1.77, 2.63, 5.89, 14.9,
];

/// The most empties at which the analysis with `settings` solves exactly: the most whose
/// calibrated cost (`EXACT_COST`) fits the settings' time (at least 12).
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::reversi::analysis::exact_empties;
/// use tabletop::AnalysisSettings;
/// let short = exact_empties(AnalysisSettings::time(Duration::from_millis(100)));
/// let long = exact_empties(AnalysisSettings::time(Duration::from_secs(2)));
/// assert!(12 <= short && short < long);
/// ```
pub fn exact_empties(settings: AnalysisSettings) -> u32 {
    let time = settings.planning_seconds();
    (12..EXACT_COST.len()).take_while(|&e| e == 12 || EXACT_COST[e] <= time).last().unwrap_or(12) as u32
}

/// The calibration of the midgame search: the predicted time in seconds to search `moves`
/// distinct moves (moves to images of one position count once) to `depth` plies. Fit to
/// `reversi_calibration` (as `EXACT_COST`): the median per move at plies 8 to 40 was about
/// 0.9 ms at depth 6, 2.3 ms at 7, 5 ms at 8, 11 ms at 9, 22 ms at 10, 50 ms at 11, nearly the
/// same at every stage, so the cost is `MIDGAME_BASE * MIDGAME_GROWTH^depth` per move.
///
/// ```
/// use tabletop::games::reversi::analysis::midgame_cost;
/// assert!(midgame_cost(11, 10) > 0.3 && midgame_cost(11, 10) < 1.0);
/// ```
pub fn midgame_cost(depth: u32, moves: u32) -> f64 {
    MIDGAME_BASE * MIDGAME_GROWTH.powi(depth as i32) * moves.max(1) as f64
}

/// Seconds per move at depth 0 (see [`midgame_cost`]).
const MIDGAME_BASE: f64 = 6.1e-6;
/// The growth of the cost per ply (see [`midgame_cost`]).
const MIDGAME_GROWTH: f64 = 2.3;

impl Analyze for Reversi {
    /// Exact (the endgame solver, every move) with at most [`exact_empties`] empties; otherwise
    /// the engine's evaluation of each move (hundredths of a disc) at one depth.
    ///
    /// ```
    /// use tabletop::games::reversi::{solver::Solver, Reversi};
    /// use tabletop::{AnalysisSettings, Analyze, Record};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let analysis = Reversi::analyze(&Record::new(pos), AnalysisSettings::default());
    /// assert_eq!(analysis.depth, None);
    /// let best = Solver::new(16).solve(&pos).score;
    /// assert_eq!(analysis.moves[0].score, best);
    /// assert_eq!(analysis.moves[0].text, format!("{best:+} discs (exact)"));
    /// ```
    fn analyze(record: &Record<Reversi>, settings: AnalysisSettings) -> Analysis {
        let root = record.current();
        if root.is_over() {
            return Analysis::default();
        }
        // The canonical image, and the symmetry that maps the root onto it.
        let (p, o) = root.player_opponent();
        let s = (0..8).min_by_key(|&s| ((transform(p, s) as u128) << 64) | transform(o, s) as u128).unwrap_or(0);
        let (ip, io) = (transform(p, s), transform(o, s));
        let side = root.side_to_move();
        let image = match side {
            super::Color::Black => Reversi::from_bitboards(ip, io, side),
            super::Color::White => Reversi::from_bitboards(io, ip, side),
        };
        let back = |notation: &str| -> String {
            let Ok(ReversiMove::Place(sq)) = image.parse_move(notation) else { return notation.to_string() };
            (0..64)
                .find(|&i| transform(1u64 << i, s) == sq.bit())
                .and_then(Square::from_index)
                .map_or_else(|| notation.to_string(), |q| ReversiMove::Place(q).to_string())
        };
        mark_book(analyze_canonical(&image, settings), Book::standard().lookup(&image)).map_moves(back)
    }
}

/// The analysis with the opening book's near-best moves (`hit`, when the position is in the
/// book) marked: `, book` after their value in words. The values stay the analysis' own.
fn mark_book(mut analysis: Analysis, hit: Option<BookMove>) -> Analysis {
    let Some(hit) = hit else { return analysis };
    for m in &mut analysis.moves {
        if hit.near.iter().any(|mv| mv.to_string() == m.notation) {
            m.text.push_str(", book");
        }
    }
    analysis
}

/// The analysis of `root` itself (see the module documentation).
fn analyze_canonical(root: &Reversi, settings: AnalysisSettings) -> Analysis {
    if root.open_squares() <= exact_empties(settings) {
        // On the front end's threads (`analyze`: every core): exact scores are the same on
        // any number of threads. The plan (exact or estimates) does not depend on them.
        if let Ok(mut solver) = ParallelSolver::try_new(super::players::default_threads(), 20) {
            let moves = solver
                .solve_all(root)
                .into_iter()
                .map(|(mv, score)| MoveValue {
                    notation: mv.to_string(),
                    score,
                    exact: true,
                    depth: None,
                    text: format!("{} (exact)", discs(score)),
                })
                .collect();
            return sorted(moves);
        }
    }
    reversi_engine_moves(root, settings)
}

/// `+4 discs`, `-1 disc`.
fn discs(score: i32) -> String {
    format!("{score:+} disc{}", if score.abs() == 1 { "" } else { "s" })
}

/// The depth of the estimates for `root` with `settings` (see [`midgame_cost`]).
pub fn midgame_depth(root: &Reversi, settings: AnalysisSettings) -> u32 {
    let empties = root.open_squares();
    let (p, o) = root.player_opponent();
    let mut children: Vec<(u64, u64)> = root
        .legal_placements()
        .into_iter()
        .map(|sq| {
            let f = root.flip_bits(sq);
            super::symmetry::canonical(o & !f, p | f | sq.bit())
        })
        .collect();
    children.sort_unstable();
    children.dedup();
    let moves = (children.len() as u32).max(1);
    settings.pick_depth(empties.clamp(1, 60), |d| midgame_cost(d, moves))
}

/// Every move of `root` valued by a fresh engine, all searched to the same depth without a
/// clock ([`ReversiEngine::move_values_to`]): symmetric moves get the same value.
fn reversi_engine_moves(root: &Reversi, settings: AnalysisSettings) -> Analysis {
    let Ok(mut engine) = ReversiEngine::try_new(None, None) else {
        return Analysis::default();
    };
    if root.legal_placements().is_empty() {
        // A forced pass: its value is the opponent's position's, negated.
        let mut child = *root;
        child.play_unchecked(ReversiMove::Pass);
        let depth = midgame_depth(&child, settings);
        let (values, depth) = engine.move_values_to(&child, depth);
        let best = values.iter().map(|v| v.1).max().unwrap_or(0);
        return sorted(vec![move_value(ReversiMove::Pass, -best, depth + 1)]);
    }
    let depth = midgame_depth(root, settings);
    let (values, depth) = engine.move_values_to(root, depth);
    sorted(values.into_iter().map(|(mv, value)| move_value(mv, value, depth)).collect())
}

/// A search value for the side to move as the analysis shows it: a proved result as discs
/// beyond any evaluation (6500 + the margin, an estimate: the margin is not proved optimal),
/// otherwise hundredths of a disc with the depth.
fn move_value(mv: ReversiMove, value: i32, depth: u32) -> MoveValue {
    let (score, text) = if value.abs() >= WON {
        let d = value.abs() - WON;
        let text = format!(
            "{} by {} (proved, depth {depth})",
            if value > 0 { "wins" } else { "loses" },
            crate::value::count(d as u64, "disc", "discs")
        );
        (value.signum() * (6500 + d), text)
    } else {
        (value, format!("{:+.2} discs (depth {depth})", value as f64 / 100.0))
    };
    MoveValue { notation: mv.to_string(), score, exact: false, depth: Some(depth), text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::playout;
    use std::time::{Duration, Instant};

    #[test]
    fn reversi_near_the_end_is_exact_and_agrees_with_the_solver() {
        let mut solver = ReversiSolver::new(16);
        let mut seed = 5;
        for _ in 0..4 {
            let p = playout(Reversi::new(), 48, &mut seed);
            let analysis = Reversi::analyze(&Record::new(p), AnalysisSettings::default());
            if p.is_over() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None);
            assert!(analysis.open.is_empty());
            let exact = solver.solve_all(&p);
            assert_eq!(analysis.moves.len(), exact.len());
            for m in &analysis.moves {
                let (_, s) = exact.iter().find(|(mv, _)| mv.to_string() == m.notation).unwrap();
                assert_eq!(m.score, *s, "{}", m.notation);
            }
        }
    }

    #[test]
    fn reversi_midgame_values_every_move_at_one_depth() {
        let p = playout(Reversi::new(), 12, &mut 9);
        let analysis = Reversi::analyze(&Record::new(p), AnalysisSettings::depth(3));
        assert_eq!(analysis.moves.len(), p.legal_placements().len());
        assert_eq!(analysis.depth, Some(3));
        assert_eq!(analysis.open.len(), analysis.moves.len());
        assert!(analysis.moves.iter().all(|m| m.depth == Some(3) && m.text.contains("discs (depth 3)")));
        // The values are the engine's own 3-ply values of each move.
        let mut engine = ReversiEngine::new(None, None);
        let (values, _) = engine.move_values_to(&p, 3);
        for (mv, v) in values {
            assert_eq!(analysis.moves.iter().find(|m| m.notation == mv.to_string()).unwrap().score, v);
        }
    }

    #[test]
    fn the_depth_follows_from_the_time_and_the_position_only() {
        let p = playout(Reversi::new(), 20, &mut 3);
        let short = midgame_depth(&p, AnalysisSettings::time(Duration::from_millis(50)));
        let long = midgame_depth(&p, AnalysisSettings::time(Duration::from_secs(5)));
        assert!(1 <= short && short < long, "{short} {long}");
        assert_eq!(midgame_depth(&p, AnalysisSettings::depth(7)), 7);
    }

    #[test]
    fn the_books_near_best_moves_are_marked() {
        // After f5 d6 (in the book, every image of it too): the book's near-best moves, and
        // only they, carry the mark.
        let book = Book::standard();
        for line in [["f5", "d6"], ["e6", "f4"], ["d3", "c5"]] {
            let mut record = Record::new(Reversi::new());
            for mv in line {
                record.play(record.current().parse_move(mv).unwrap()).unwrap();
            }
            let hit = book.lookup(record.current()).expect("in the book");
            let analysis = Reversi::analyze(&record, AnalysisSettings::depth(2));
            assert!(analysis.moves.iter().any(|m| m.text.ends_with(", book")));
            for m in &analysis.moves {
                let near = hit.near.iter().any(|mv| mv.to_string() == m.notation);
                assert_eq!(m.text.ends_with(", book"), near, "{line:?} {}: {}", m.notation, m.text);
            }
        }
        // Out of the book: no mark.
        let p = playout(Reversi::new(), 30, &mut 4);
        let analysis = Reversi::analyze(&Record::new(p), AnalysisSettings::depth(2));
        assert!(analysis.moves.iter().all(|m| !m.text.contains("book")));
    }

    #[test]
    fn finished_games_have_no_moves() {
        let full: Reversi = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O".parse().unwrap();
        assert_eq!(Reversi::analyze(&Record::new(full), AnalysisSettings::default()), Analysis::default());
    }

    /// Measures the calibration tables: the time of the exact solve of every move by empties,
    /// and of the midgame search by depth (release build; see [`EXACT_COST`]).
    #[test]
    #[ignore]
    fn reversi_calibration() {
        let mut seed = 77;
        for empties in 14..=22u32 {
            let mut times = Vec::new();
            for _ in 0..12 {
                let p = playout(Reversi::new(), 60 - empties as usize, &mut seed);
                if p.is_over() || p.open_squares() != empties {
                    continue;
                }
                let mut solver = ReversiSolver::new(20);
                let t = Instant::now();
                solver.solve_all(&p);
                times.push(t.elapsed().as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            let p90 = times.get(times.len() * 9 / 10).or(times.last()).copied().unwrap_or(0.0);
            println!("exact empties {empties}: n={} p50 {:.4} p90 {p90:.4}", times.len(), times[times.len() / 2]);
        }
        for plies in [8usize, 16, 24, 32, 40] {
            for depth in 4..=11u32 {
                let mut per_move = Vec::new();
                for _ in 0..6 {
                    let p = playout(Reversi::new(), plies, &mut seed);
                    let n = p.legal_placements().len();
                    if p.is_over() || n == 0 {
                        continue;
                    }
                    let mut engine = ReversiEngine::new(None, None);
                    let t = Instant::now();
                    engine.move_values_to(&p, depth);
                    per_move.push(t.elapsed().as_secs_f64() / n as f64);
                }
                per_move.sort_by(f64::total_cmp);
                let p90 = per_move.get(per_move.len() * 9 / 10).or(per_move.last()).copied().unwrap_or(0.0);
                println!("midgame ply {plies} depth {depth}: per move p50 {:.5} p90 {p90:.5}", per_move[per_move.len() / 2]);
                if p90 > 0.5 {
                    break;
                }
            }
        }
    }
}
