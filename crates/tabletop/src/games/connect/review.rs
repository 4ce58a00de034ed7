//! Connect-N's review rules: judged on the solver's exact scores (Pons' convention: positive a
//! win, larger the sooner; 0 a draw; negative a loss).
//!
//! - blunder `??`: the move turns a win or a draw into a loss;
//! - mistake `?`: the move turns a win into a draw;
//! - inaccuracy `?!`: the same result, 3 or more of the mover's moves later (a win) or sooner (a loss).
//!
//! Moves valued by the heuristic search (no exact score) get no loss and no mark. The graph
//! shows the exact score from X's point of view.

use super::Connect;
use crate::analysis::MoveValue;
use crate::review::{judge_solved, Judgement, Review};

/// The smallest score loss (the mover's moves) that is an inaccuracy with the same result.
pub const SLOWER: i32 = 3;

impl Review for Connect {
    const UNIT: &'static str = "moves";
    const THRESHOLDS: &'static str = "exact values: ?? a win or draw thrown into a loss, ? a win into a draw, \
?! the same result 3 or more moves later (a win) or sooner (a loss)";

    fn judge(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
        judge_solved(best, played, SLOWER)
    }

    fn graph_value(value: &MoveValue) -> Option<f64> {
        value.exact.then_some(f64::from(value.score))
    }
}
