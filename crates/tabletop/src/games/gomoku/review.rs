//! Gomoku's review rules: judged on proved results (a forced win or loss the search found).
//!
//! - blunder `??`: the move walks into a proved loss where the best move did not lose;
//! - mistake `?`: the best move won by force, the move played does not;
//! - inaccuracy `?!`: the same proved result, 4 or more plies later (a win) or sooner (a loss).
//!
//! Between two estimates (the evaluation) there is no loss and no mark. The graph shows +1 for a
//! proved win, -1 for a proved loss and 0 otherwise, from Black's point of view.

use super::Gomoku;
use crate::analysis::MoveValue;
use crate::review::{judge_exact, word_of, Judgement, Mark, Review};

/// The smallest loss in plies that is an inaccuracy with the same proved result.
pub const SLOWER: i32 = 4;

/// The proved result of a value: 1, -1, or 0 for an estimate.
fn proved(value: &MoveValue) -> i32 {
    if value.exact { value.score.signum() } else { 0 }
}

impl Review for Gomoku {
    const UNIT: &'static str = "plies";
    const THRESHOLDS: &'static str = "proved results: ?? walking into a forced loss, ? missing a forced win, \
?! the same forced result 4 or more plies later (a win) or sooner (a loss)";

    fn judge(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
        let (b, p) = (proved(best), proved(played));
        if best.exact && played.exact && b == p {
            return Some(judge_exact(best.score, played.score, SLOWER));
        }
        if p >= b {
            return None;
        }
        let mark = if p < 0 { Mark::Blunder } else { Mark::Mistake };
        let after = if p == 0 { "no forced result" } else { word_of(p) };
        Some(Judgement { loss: 0.0, text: format!("forced {} -> {after}", word_of(b)), mark: Some(mark) })
    }

    fn graph_value(value: &MoveValue) -> Option<f64> {
        Some(f64::from(proved(value)))
    }
}
