//! Slide's review rules: judged on the solver's exact values (3x3 and 4x4 boards).
//!
//! - blunder `??`: the move turns a win or a draw into a loss;
//! - mistake `?`: the move turns a win into a draw;
//! - inaccuracy `?!`: the same result, 4 or more plies later (a win) or sooner (a loss).
//!
//! Moves valued by the generic search (no exact value) get no loss and no mark. The graph
//! shows the result from the first player's point of view: +1 a win, 0 a draw, -1 a loss.

use super::Slide;
use crate::analysis::MoveValue;
use crate::review::{judge_solved, Judgement, Review};

/// The smallest loss in plies that is an inaccuracy with the same result.
pub const SLOWER: i32 = 4;

impl Review for Slide {
    const UNIT: &'static str = "plies";
    const THRESHOLDS: &'static str = "exact values: ?? a win or draw thrown into a loss, ? a win into a draw, \
?! the same result 4 or more plies later (a win) or sooner (a loss)";

    fn judge(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
        judge_solved(best, played, SLOWER)
    }

    fn graph_value(value: &MoveValue) -> Option<f64> {
        value.exact.then_some(f64::from(value.score.signum()))
    }
}
