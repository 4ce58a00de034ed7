//! Reversi's analysis: exact near the end, the engine's evaluation before.

use std::time::{Duration, Instant};

use crate::analysis::{sorted, Analysis, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;

use super::engine::{Engine as ReversiEngine, WON};
use super::solver::Solver as ReversiSolver;
use super::{Reversi, ReversiMove};

/// Reversi positions with at most this many empties are solved exactly for every move when the
/// budget allows; above it the engine's evaluation is used at once.
const REVERSI_EXACT_EMPTIES: u32 = 20;

impl Analyze for Reversi {
    /// Exact (the endgame solver, every move, within half the budget) with at most 20 empties;
    /// otherwise the engine's evaluation of each move (hundredths of a disc) with its depth.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::{solver::Solver, Reversi};
    /// use tabletop::{Analyze, Record};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let analysis = Reversi::analyze(&Record::new(pos), Duration::from_secs(1));
    /// assert_eq!(analysis.depth, None);
    /// let best = Solver::new(16).solve(&pos).score;
    /// assert_eq!(analysis.moves[0].score, best);
    /// assert_eq!(analysis.moves[0].text, format!("{best:+} discs (exact)"));
    /// ```
    fn analyze(record: &Record<Reversi>, budget: Duration) -> Analysis {
        let start = Instant::now();
        let root = record.current();
        if root.is_over() {
            return Analysis::default();
        }
        if root.open_squares() <= REVERSI_EXACT_EMPTIES {
            if let Ok(mut solver) = ReversiSolver::try_new(20) {
                solver.set_deadline(Some(start + budget / 2));
                let values = solver.solve_all(root);
                if !solver.stopped() {
                    let moves = values
                        .into_iter()
                        .map(|(mv, score)| MoveValue {
                            notation: mv.to_string(),
                            score,
                            exact: true,
                            text: format!("{} (exact)", discs(score)),
                        })
                        .collect();
                    return sorted(moves, None);
                }
            }
        }
        reversi_engine_moves(root, start + budget)
    }
}

/// `+4 discs`, `-1 disc`.
fn discs(score: i32) -> String {
    format!("{score:+} disc{}", if score.abs() == 1 { "" } else { "s" })
}

/// Every move of `root` valued by the engine, each child with an equal share of the time left.
fn reversi_engine_moves(root: &Reversi, deadline: Instant) -> Analysis {
    let Ok(mut engine) = ReversiEngine::try_new(Some(Duration::from_millis(1)), None) else {
        return Analysis::default();
    };
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    let me = root.side_to_move();
    let mut out = Vec::with_capacity(moves.len());
    let mut depth = u32::MAX;
    for (i, &mv) in moves.iter().enumerate() {
        let share = deadline.saturating_duration_since(Instant::now()) / (moves.len() - i) as u32;
        engine.time = Some(share.max(Duration::from_millis(1)));
        let mut child = *root;
        child.play_unchecked(mv);
        // The engine values positions where a side can move: play a forced pass first.
        let mut sign = -1;
        if !child.is_over() && child.legal_placements().is_empty() {
            child.play_unchecked(ReversiMove::Pass);
            sign = 1;
        }
        let (score, exact, text) = if child.is_over() {
            let s = child.final_score(me);
            (100 * s, true, format!("{} (exact)", discs(s)))
        } else {
            let a = engine.analyse(&child);
            let value = sign * a.value;
            if a.exact {
                (100 * value, true, format!("{} (exact)", discs(value)))
            } else if value.abs() >= WON {
                let d = value.abs() - WON;
                let text = format!(
                    "{} by {d} disc{} (proved)",
                    if value > 0 { "wins" } else { "loses" },
                    if d == 1 { "" } else { "s" }
                );
                (value.signum() * (6500 + d), false, text)
            } else {
                depth = depth.min(a.depth + 1);
                (value, false, format!("{:+.2} discs (depth {})", value as f64 / 100.0, a.depth + 1))
            }
        };
        out.push(MoveValue { notation: mv.to_string(), score, exact, text });
    }
    let all_exact = out.iter().all(|m| m.exact);
    sorted(out, if all_exact || depth == u32::MAX { None } else { Some(depth) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::playout;

    #[test]
    fn reversi_near_the_end_is_exact_and_agrees_with_the_solver() {
        let mut solver = ReversiSolver::new(16);
        let mut seed = 5;
        for _ in 0..4 {
            let p = playout(Reversi::new(), 48, &mut seed);
            let analysis = Reversi::analyze(&Record::new(p), Duration::from_secs(2));
            if p.is_over() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None);
            let exact = solver.solve_all(&p);
            assert_eq!(analysis.moves.len(), exact.len());
            for m in &analysis.moves {
                let (_, s) = exact.iter().find(|(mv, _)| mv.to_string() == m.notation).unwrap();
                assert_eq!(m.score, *s, "{}", m.notation);
            }
        }
    }

    #[test]
    fn reversi_midgame_uses_the_engine_within_the_budget() {
        let p = playout(Reversi::new(), 12, &mut 9);
        let start = Instant::now();
        let analysis = Reversi::analyze(&Record::new(p), Duration::from_millis(400));
        assert!(start.elapsed() < Duration::from_millis(1200), "{:?}", start.elapsed());
        assert_eq!(analysis.moves.len(), p.legal_placements().len());
        assert!(analysis.depth.is_some_and(|d| d >= 2));
        assert!(analysis.moves.iter().all(|m| m.text.contains("discs")));
    }

    #[test]
    fn finished_games_have_no_moves() {
        let full: Reversi = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O".parse().unwrap();
        assert_eq!(Reversi::analyze(&Record::new(full), Duration::from_millis(10)), Analysis::default());
    }
}
