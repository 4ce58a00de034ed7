//! Mathable's analysis: every placement's points and what the rest of the turn adds.

use crate::analysis::{sorted, Analysis, AnalysisSettings, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;

use super::engine::greedy_turn_points;
use super::{Mathable, MathableMove};

impl Analyze for Mathable {
    /// Every placement with its points plus what the rest of the turn adds greedily, the
    /// extra draw and ending the turn (with the bonus it earns). Exchanges and terminating are
    /// not valued. No search and no clock: the settings do not change the values (none is
    /// exact, so every move is listed in [`Analysis::open`]).
    ///
    /// ```
    /// use tabletop::games::mathable::{Mathable, Settings};
    /// use tabletop::{AnalysisSettings, Analyze, Game, Record};
    /// let game = Mathable::start(&Settings::default());
    /// let analysis = Mathable::analyze(&Record::new(game.clone()), AnalysisSettings::default());
    /// let placements = game.placements();
    /// assert_eq!(analysis.moves.len(), placements.len() + 1); // and "end"
    /// assert!(analysis.moves.windows(2).all(|w| w[0].score >= w[1].score));
    /// ```
    fn analyze(record: &Record<Mathable>, _settings: AnalysisSettings) -> Analysis {
        let game = record.current();
        if game.status().to_move().is_none() {
            return Analysis::default();
        }
        let mover = game.turn();
        let mut out = Vec::new();
        let mut buf = Vec::new();
        for placement in game.placements() {
            let mut board = game.board().clone();
            board.put(placement.cell, placement.token);
            let mut rack = *game.rack(mover);
            rack.remove(placement.token);
            let more = greedy_turn_points(&board, &rack, &mut buf);
            let points = placement.points + more;
            let mut text = format!("{} point{}", placement.points, if placement.points == 1 { "" } else { "s" });
            if more > 0 {
                text.push_str(&format!(", {points} with the rest of the turn"));
            }
            let mv = MathableMove::Place { cell: placement.cell, token: placement.token };
            out.push(MoveValue { notation: mv.to_string(), score: points as i32, exact: false, depth: None, text });
        }
        if game.is_legal(MathableMove::Draw) {
            out.push(MoveValue {
                notation: MathableMove::Draw.to_string(),
                score: 0,
                exact: false,
                depth: None,
                text: "take the extra token".to_string(),
            });
        }
        let bonus = game.pending_bonus();
        let text = match (bonus, game.placed_this_turn()) {
            (b, _) if b > 0 => format!("end the turn: {b} bonus points"),
            (_, 0) => "pass".to_string(),
            _ => "end the turn".to_string(),
        };
        out.push(MoveValue { notation: MathableMove::EndTurn.to_string(), score: bonus as i32, exact: false, depth: None, text });
        sorted(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mathable_values_are_the_placements_points() {
        let game = Mathable::start(&crate::games::mathable::Settings::default());
        let analysis = Mathable::analyze(&Record::new(game.clone()), AnalysisSettings::default());
        for p in game.placements() {
            let mv = MathableMove::Place { cell: p.cell, token: p.token }.to_string();
            let m = analysis.moves.iter().find(|m| m.notation == mv).unwrap();
            assert!(m.score >= p.points as i32);
            assert!(m.text.starts_with(&format!("{} point", p.points)), "{}", m.text);
        }
        assert_eq!(analysis.moves.last().unwrap().notation, "end");
    }

    #[test]
    fn finished_games_have_no_moves() {
        let mut game = Mathable::start(&crate::games::mathable::Settings::default());
        game.play(MathableMove::Terminate).unwrap();
        assert_eq!(Mathable::analyze(&Record::new(game), AnalysisSettings::default()), Analysis::default());
    }
}
