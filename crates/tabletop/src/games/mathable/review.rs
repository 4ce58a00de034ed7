//! Mathable's review rules: each placement's points (with what the rest of the turn adds
//! greedily, as the analysis values it) against the best placement's.
//!
//! - inaccuracy `?!`: 10 points or more below the best;
//! - mistake `?`: 25 points or more;
//! - blunder `??`: 50 points or more.
//!
//! Moves the analysis does not value (draws, exchanges, terminating) get no loss. The graph
//! shows the first player's score minus the best other score after each move. Racks are part of
//! the positions reviewed: the server reviews only finished games.

use super::Mathable;
use crate::analysis::MoveValue;
use crate::game::Seat;
use crate::review::{Judgement, Mark, Review};

/// The thresholds in points: inaccuracy, mistake, blunder.
pub const THRESHOLDS: [f64; 3] = [10.0, 25.0, 50.0];

impl Review for Mathable {
    const UNIT: &'static str = "points";
    const THRESHOLDS: &'static str =
        "points against the best placement (with the rest of the turn played greedily): ?! 10 or more, ? 25 or more, ?? 50 or more";

    fn judge(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
        let loss = f64::from((best.score - played.score).max(0));
        let text = if loss == 0.0 { "best".to_string() } else { format!("-{loss} points") };
        Some(Judgement { loss, text, mark: Mark::by_amount(loss, THRESHOLDS) })
    }

    fn graph_value(value: &MoveValue) -> Option<f64> {
        Some(f64::from(value.score))
    }

    fn graph_point(after: &Mathable, _played: Option<&MoveValue>, _mover: Seat) -> Option<f64> {
        let scores = after.scores();
        let first = *scores.first()?;
        let others = scores.iter().skip(1).copied().max()?;
        Some(f64::from(first - others))
    }
}
