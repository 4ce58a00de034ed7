//! Reversi's review rules: the loss in discs of the final disc difference, exact where the
//! endgame solver answers, the engine's evaluation (hundredths of a disc) before.
//!
//! - inaccuracy `?!`: 3 discs or more;
//! - mistake `?`: 6 discs or more;
//! - blunder `??`: 12 discs or more, or an exact win or draw turned into an exact loss.
//!
//! The graph shows the predicted final disc difference from Black's point of view.

use super::Reversi;
use crate::analysis::MoveValue;
use crate::review::{result_of, word_of, Judgement, Mark, Review};

/// The thresholds in discs: inaccuracy, mistake, blunder.
pub const THRESHOLDS: [f64; 3] = [3.0, 6.0, 12.0];

/// Evaluations beyond this are proved wins or losses of the search, not hundredths of discs.
const PROVED: i32 = 6400;

/// A value in discs: exact scores are discs, estimates hundredths of a disc; a proved win or
/// loss of the search counts as 64 discs.
fn discs(value: &MoveValue) -> f64 {
    if value.exact {
        f64::from(value.score)
    } else if value.score.abs() > PROVED {
        64.0 * f64::from(value.score.signum())
    } else {
        f64::from(value.score) / 100.0
    }
}

impl Review for Reversi {
    const UNIT: &'static str = "discs";
    const THRESHOLDS: &'static str = "final disc difference: ?! 3 discs or more, ? 6 or more, ?? 12 or more \
or an exact win or draw thrown into a loss";

    fn judge(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
        let loss = ((discs(best) - discs(played)).max(0.0) * 100.0).round() / 100.0;
        let mut mark = Mark::by_amount(loss, THRESHOLDS);
        let thrown = matches!((result_of(best), result_of(played)), (Some(b), Some(p)) if p < b && p < 0);
        if thrown {
            mark = Some(Mark::Blunder);
        }
        let text = match (result_of(best), result_of(played)) {
            (Some(b), Some(p)) if p < b => format!("-{loss} discs ({} -> {})", word_of(b), word_of(p)),
            _ if loss == 0.0 => "best".to_string(),
            _ => format!("-{loss} discs"),
        };
        Some(Judgement { loss, text, mark })
    }

    fn graph_value(value: &MoveValue) -> Option<f64> {
        Some(discs(value))
    }
}
