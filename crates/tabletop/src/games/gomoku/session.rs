//! Gomoku on the server: the board size option, the board as JSON, hints and computer moves.
//!
//! The board JSON (what `assets/js/games/gomoku.js` draws):
//! `{"size": 15, "cells": ["x", "o", "", ...], "last_move": "h8", "winning_line": ["d4", ...]}`,
//! the cells row by row from the top, `""` empty.


use serde_json::{json, Value};

use super::engine::make_player;
use super::rules::{Gomoku, GomokuMove, GomokuVariant};
use crate::session::{option_usize, Adapter, Caps, EngineSlot, Served, SessionError};
use crate::{PlayerKind, PlayerSpec, Record};

/// Gomoku's adapter.
pub struct GomokuAdapter;

impl Adapter<Gomoku> for GomokuAdapter {
    const NAME: &'static str = "gomoku";
    const REVIEW: Option<crate::session::ReviewRange<Gomoku>> = Some(crate::review::review_range);
    const OPTION_KEYS: &'static [&'static str] = &["size"];

    fn player_kinds() -> &'static [PlayerKind] {
        super::engine::PLAYER_KINDS
    }

    fn start(options: &Value, _secret: &Value) -> Result<Gomoku, SessionError> {
        let size = option_usize(options, "size", 15)?;
        Ok(Gomoku::new(GomokuVariant::new(size).map_err(SessionError::options)?))
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "Black" } else { "White" }.to_string()
    }

    fn board(record: &Record<Gomoku>, _viewer: Option<usize>) -> Value {
        let p = record.current();
        let n = p.size();
        let cells: Vec<String> = (0..n)
            .rev()
            .flat_map(|r| (0..n).map(move |c| (r, c)))
            .map(|(r, c)| p.stone(r, c).map_or(String::new(), |s| s.letter().to_string()))
            .collect();
        let line: Vec<String> = p.winning_line().into_iter().map(|q| p.point_name(q)).collect();
        json!({
            "size": n,
            "cells": cells,
            "last_move": record.moves().last().map(|m| m.to_string()),
            "winning_line": line,
        })
    }

    fn choose(
        record: &Record<Gomoku>,
        spec: &PlayerSpec,
        _slot: &mut EngineSlot,
        _caps: &Caps,
    ) -> Result<GomokuMove, SessionError> {
        // Gomoku's players hold no tables: one is made for each move, seeded by the ply.
        let mut player = make_player(spec, record.moves().len() as u64).map_err(SessionError::player)?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Gomoku>, spec: &PlayerSpec, _caps: &Caps) -> Result<(), SessionError> {
        make_player(spec, 0).map(|_| ()).map_err(SessionError::player)
    }
}

/// Gomoku for the server's registry entry.
pub static SESSIONS: Served<Gomoku, GomokuAdapter> = Served::new();

#[cfg(test)]
mod tests {
    use crate::session::SessionFactory;
    use serde_json::json;

    #[test]
    fn the_board_shows_the_last_move_and_the_winning_line() {
        let mut session = super::SESSIONS.new_session(&json!({"size": 9}), &json!({})).unwrap();
        for mv in ["a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2", "e1"] {
            session.play(mv).unwrap();
        }
        let view = session.view(None);
        assert_eq!(view["board"]["last_move"], "e1");
        assert_eq!(view["board"]["winning_line"], json!(["a1", "b1", "c1", "d1", "e1"]));
        assert_eq!(view["board"]["cells"].as_array().unwrap().len(), 81);
        assert_eq!(view["status"]["over"], true);
        assert!(super::SESSIONS.new_session(&json!({"size": 30}), &json!({})).is_err());
    }
}
