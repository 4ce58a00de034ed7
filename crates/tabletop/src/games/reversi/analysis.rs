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

/// Every move of `root` valued by the engine, all searched to the same depth within the time
/// left ([`ReversiEngine::move_values_until`]): symmetric moves get the same value, and the
/// values of different moves are comparable.
fn reversi_engine_moves(root: &Reversi, deadline: Instant) -> Analysis {
    let Ok(mut engine) = ReversiEngine::try_new(None, None) else {
        return Analysis::default();
    };
    if root.legal_placements().is_empty() {
        // A forced pass: its value is the opponent's position's, negated.
        let mut child = *root;
        child.play_unchecked(ReversiMove::Pass);
        let (values, depth) = engine.move_values_until(&child, deadline, 60);
        let best = values.iter().map(|v| v.1).max().unwrap_or(0);
        let (score, exact, text) = value_text(-best, depth + 1);
        return sorted(vec![MoveValue { notation: ReversiMove::Pass.to_string(), score, exact, text }], None);
    }
    let (values, depth) = engine.move_values_until(root, deadline, 60);
    let out: Vec<MoveValue> = values
        .into_iter()
        .map(|(mv, value)| {
            let (score, exact, text) = value_text(value, depth);
            MoveValue { notation: mv.to_string(), score, exact, text }
        })
        .collect();
    let all_proved = out.iter().all(|m| m.exact || m.score.abs() > 6400);
    sorted(out, if all_proved { None } else { Some(depth) })
}

/// A search value for the side to move as the analysis shows it: a proved result as discs
/// beyond any evaluation (6500 + the margin), otherwise hundredths of a disc with the depth.
fn value_text(value: i32, depth: u32) -> (i32, bool, String) {
    if value.abs() >= WON {
        let d = value.abs() - WON;
        let text = format!(
            "{} by {} (proved)",
            if value > 0 { "wins" } else { "loses" },
            crate::value::count(d as u64, "disc", "discs")
        );
        (value.signum() * (6500 + d), false, text)
    } else {
        (value, false, format!("{:+.2} discs (depth {depth})", value as f64 / 100.0))
    }
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
