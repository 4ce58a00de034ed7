//! Slide's analysis: exact on 3x3 and 4x4, the generic search elsewhere.

use std::time::{Duration, Instant};

use crate::analysis::{search_moves, sorted, Analysis, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;
use crate::search::{NoOrdering, Options, Search};

use super::players::SlideEvaluation;
use super::solver::{is_solvable, SlideSolver, SlideValue};
use super::Slide;

impl Analyze for Slide {
    /// Exact on 3x3 and 4x4 (the solver, within 70% of the budget), else the generic search
    /// with the engine's evaluation.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::slide::Slide;
    /// use tabletop::{Analyze, Record};
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// let analysis = Slide::analyze(&Record::new(board), Duration::from_secs(1));
    /// assert_eq!(analysis.depth, None);
    /// assert_eq!(analysis.moves[0].text, "wins in 1 move");
    /// ```
    fn analyze(record: &Record<Slide>, budget: Duration) -> Analysis {
        let start = Instant::now();
        let root = record.current();
        if root.status().to_move().is_none() {
            return Analysis::default();
        }
        let variant = root.slide_variant();
        if is_solvable(variant) {
            if let Some(mut solver) = SlideSolver::new(variant) {
                solver.set_deadline(Some(start + budget.mul_f64(0.7)));
                if let Some(values) = solver.try_move_values(root) {
                    let moves = values
                        .into_iter()
                        .map(|(mv, value)| MoveValue {
                            notation: mv.to_string(),
                            score: value.rank() as i32,
                            exact: true,
                            text: slide_text(value),
                        })
                        .collect();
                    return sorted(moves, None);
                }
            }
        }
        let mut search = Search::new(SlideEvaluation, NoOrdering, Options::default());
        search_moves(&mut search, record, start + budget, |s| format!("{s:+} (open lines)"))
    }
}

/// A Slide value in words, with the right plural.
fn slide_text(value: SlideValue) -> String {
    match value {
        SlideValue::Win(d) => crate::value::wins_in(crate::value::own_moves(d)),
        SlideValue::Draw => "draw".to_string(),
        SlideValue::Loss(d) => crate::value::loses_in(crate::value::own_moves(d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::playout;
    use crate::games::slide::SlideVariant;

    #[test]
    fn slide_exact_values_match_the_solver() {
        let variant = SlideVariant::new(3, 1).unwrap();
        let mut solver = SlideSolver::new(variant).unwrap();
        let mut seed = 11;
        for plies in [0, 2, 5, 8, 12, 20] {
            let p = playout(Slide::start(&variant), plies, &mut seed);
            let analysis = Slide::analyze(&Record::new(p), Duration::from_secs(2));
            if p.status().to_move().is_none() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None);
            let mut expected: Vec<(String, i32)> =
                solver.move_values(&p).into_iter().map(|(m, v)| (m.to_string(), v.rank() as i32)).collect();
            expected.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
            let got: Vec<(String, i32)> = analysis.moves.iter().map(|m| (m.notation.clone(), m.score)).collect();
            assert_eq!(got, expected, "{}", p.notation());
        }
    }

    #[test]
    fn slide_4x4_answers_within_the_budget() {
        for empty in [1, 2] {
            let variant = SlideVariant::new(4, empty).unwrap();
            let record = Record::new(playout(Slide::start(&variant), 3, &mut 5));
            let start = Instant::now();
            let analysis = Slide::analyze(&record, Duration::from_millis(500));
            // The slide-phase table is built once per process (not interruptible) on top.
            assert!(start.elapsed() < Duration::from_millis(3000), "k={empty}: {:?}", start.elapsed());
            assert_eq!(analysis.moves.len(), 16 - 3);
        }
    }

    #[test]
    fn slide_large_boards_use_the_search_within_the_budget() {
        let variant = SlideVariant::new(6, 2).unwrap();
        let record = Record::new(playout(Slide::start(&variant), 6, &mut 3));
        let start = Instant::now();
        let analysis = Slide::analyze(&record, Duration::from_millis(300));
        assert!(start.elapsed() < Duration::from_millis(1500), "{:?}", start.elapsed());
        assert_eq!(analysis.moves.len(), 36 - 6);
        assert!(analysis.depth.is_some_and(|d| d >= 2));
    }
}
