//! Gomoku's review rules: the shared judgement on proved results ([`crate::review::judge_proved`],
//! the defaults of [`Review`]): a forced win or loss the search found.
//!
//! - blunder `??`: the move walks into a proved loss where the best move did not lose;
//! - mistake `?`: the best move won by force, the move played does not;
//! - inaccuracy `?!`: the same proved result, 4 or more plies later (a win) or sooner (a loss).
//!
//! Between two estimates (the evaluation) there is no loss and no mark. The graph shows +1 for a
//! proved win, -1 for a proved loss and 0 otherwise, from Black's point of view.

use super::Gomoku;
use crate::review::Review;

impl Review for Gomoku {}
