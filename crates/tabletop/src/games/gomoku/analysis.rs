//! Gomoku's analysis: every legal move valued by the engine's search, all to one depth chosen
//! before searching from the settings (so the same position always gets the same values).

use std::time::Duration;

use super::engine::Engine;
use super::rules::Gomoku;
use crate::analysis::{sorted, Analysis, AnalysisSettings, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;
use crate::value::{verdict, Verdict};

impl Analyze for Gomoku {
    /// Each move's child searched to the same depth: the fixed one (at most 3), else 1 ply
    /// under 300 ms, 2 plies under 2 s, 3 plies from 2 s. Won and lost lines are exact ("wins in N moves"); other values are the evaluation.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::gomoku::{Gomoku, GomokuVariant};
    /// use tabletop::{AnalysisSettings, Analyze, Game, Record};
    /// let v = GomokuVariant::new(9).unwrap();
    /// let p = Gomoku::from_notation(&v, "........./........./........./........./........./........./oooo...../........./xxxx..... x").unwrap();
    /// let analysis = Gomoku::analyze(&Record::new(p), AnalysisSettings::time(Duration::from_millis(100)));
    /// assert_eq!(analysis.moves[0].notation, "e1");
    /// assert!(analysis.moves[0].exact);
    /// ```
    fn analyze(record: &Record<Gomoku>, settings: AnalysisSettings) -> Analysis {
        let root = record.current();
        let mut moves = Vec::new();
        root.legal_moves(&mut moves);
        if moves.is_empty() {
            return Analysis::default();
        }
        let budget = settings.time;
        let depth = if let Some(d) = settings.depth {
            d.clamp(1, 3)
        } else if budget < Duration::from_millis(300) {
            1
        } else if budget < Duration::from_secs(2) {
            2
        } else {
            3
        };
        let mut engine = Engine::new(None, Some(depth));
        let mut out = Vec::with_capacity(moves.len());
        for mv in moves {
            let mut child = *root;
            child.play_unchecked(mv);
            let value = -engine.value(&child, depth - 1);
            let (exact, text) = match verdict(value) {
                Verdict::Score(s) => (false, format!("{s:+} (depth {depth})")),
                forced => (true, crate::value::forced_result(forced).unwrap_or_default()),
            };
            out.push(MoveValue { notation: mv.to_string(), score: value, exact, depth: (!exact).then_some(depth), text });
        }
        sorted(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::gomoku::GomokuVariant;

    #[test]
    fn every_move_is_valued_and_symmetric_openings_agree() {
        let start = Gomoku::new(GomokuVariant::new(7).unwrap());
        let mut p = start;
        p.play(p.parse_move("d4").unwrap()).unwrap();
        let analysis = Gomoku::analyze(&Record::new(p), AnalysisSettings::time(Duration::from_millis(100)));
        assert_eq!(analysis.moves.len(), 48);
        let value = |name: &str| analysis.moves.iter().find(|m| m.notation == name).unwrap().score;
        // The centre stone's four diagonal neighbours are images of each other.
        assert_eq!(value("c3"), value("e5"));
        assert_eq!(value("c5"), value("e3"));
        assert_eq!(value("c3"), value("c5"));
    }
}
