//! Mathable on the server: racks and the bag are hidden information.


use serde_json::{json, Value};

use crate::session::{SessionError, option_str, Adapter, Caps, EngineSlot, Served};
use crate::{Game, PlayerKind, PlayerSpec, Record, Seat};
use super::players::from_spec as mathable_player;
use super::{Mathable, MathableMove, Settings, Square};

/// Mathable on the web: racks and the bag are hidden information.
pub struct MathableAdapter;

impl Adapter<Mathable> for MathableAdapter {
    const NAME: &'static str = "mathable";
    const REVIEW: Option<crate::session::ReviewRange<Mathable>> = Some(crate::review::review_range);
    const OPTION_KEYS: &'static [&'static str] = &["preset", "players"];
    const HIDDEN_INFORMATION: bool = true;

    fn player_kinds() -> &'static [PlayerKind] {
        crate::games::mathable::PLAYER_KINDS
    }

    fn complete_secret(secret: &mut Value) {
        if secret.get("seed").and_then(Value::as_u64).is_none() {
            use rand::RngCore;
            secret["seed"] = json!(rand::rngs::OsRng.next_u64() >> 11);
        }
    }

    fn start(options: &Value, secret: &Value) -> Result<Mathable, SessionError> {
        let preset = option_str(options, "preset")?.unwrap_or("classic");
        let mut settings: Settings =
            preset.parse().map_err(|e: crate::games::mathable::SettingsError| SessionError::options(e))?;
        if let Some(players) = options.get("players").filter(|v| !v.is_null()) {
            settings.players =
                players.as_u64().filter(|p| (2..=4).contains(p)).ok_or_else(|| SessionError::options("option \"players\" must be 2 to 4"))? as u8;
        }
        settings.seed = secret.get("seed").and_then(Value::as_u64).unwrap_or(1);
        Mathable::new(&settings).map_err(SessionError::options)
    }

    fn seat_name(seat: usize) -> String {
        format!("Player {}", seat + 1)
    }

    fn public_move(mv: &MathableMove, mover: bool) -> String {
        match mv {
            MathableMove::Exchange(tokens) if !mover => {
                let n = tokens.as_slice().len();
                format!("exchanged {n} token{}", if n == 1 { "" } else { "s" })
            }
            other => other.to_string(),
        }
    }

    fn reveals(mv: &MathableMove) -> bool {
        matches!(mv, MathableMove::Draw | MathableMove::Exchange(_) | MathableMove::EndTurn)
    }

    const SHOWS_RESIGNATIONS: bool = true;

    fn agreement_move() -> Option<MathableMove> {
        Some(MathableMove::Terminate)
    }

    fn agrees_to_end(position: &Mathable, seat: usize) -> Result<(), String> {
        if seat >= position.num_seats() {
            return Err(format!("there is no seat {}", seat + 1));
        }
        position.agrees_to_end(Seat(seat as u8)).map_err(|refusal| refusal.to_string())
    }

    fn scores(position: &Mathable) -> Option<Vec<i64>> {
        Some(position.scores().iter().map(|&s| i64::from(s)).collect())
    }

    fn pass_move(position: &Mathable) -> Option<MathableMove> {
        position.is_legal(MathableMove::EndTurn).then_some(MathableMove::EndTurn)
    }

    fn board(record: &Record<Mathable>, viewer: Option<usize>) -> Value {
        let game = record.current();
        let board = game.board();
        let n = board.size();
        let cells: Vec<Value> = board
            .cells()
            .map(|cell| {
                let mark = match board.square(cell) {
                    Square::Normal | Square::Start => None,
                    square => square.mark(),
                };
                json!({"cell": cell.to_string(), "token": board.get(cell), "mark": mark})
            })
            .collect();
        let seats = game.num_seats();
        let racks: Vec<Value> = (0..seats)
            .map(|s| {
                let rack = game.rack(Seat(s as u8));
                if viewer == Some(s) {
                    json!(rack.as_slice())
                } else {
                    json!(rack.len())
                }
            })
            .collect();
        let recent = recent_placements(record.moves(), game.placed_this_turn());
        // The mover's valid placements with their points (the rack is theirs to see).
        let mover_views = viewer.is_some() && viewer == record.status().to_move().map(|s| s.index());
        let placements: Vec<Value> = if mover_views {
            game.placements()
                .iter()
                .map(|p| json!({"cell": p.cell.to_string(), "token": p.token, "points": p.points}))
                .collect()
        } else {
            Vec::new()
        };
        json!({
            "size": n,
            "cells": cells,
            "racks": racks,
            "placements": placements,
            "scores": game.scores(),
            "bag": game.bag().len(),
            "placed_this_turn": game.placed_this_turn(),
            "can_exchange": mover_views && game.can_exchange(),
            "extra_draw": mover_views && game.extra_draw_pending(),
            "recent": recent,
        })
    }

    fn choose(
        record: &Record<Mathable>,
        spec: &PlayerSpec,
        _slot: &mut EngineSlot,
        _caps: &Caps,
    ) -> Result<MathableMove, SessionError> {
        let seed = record.current().settings().seed ^ record.moves().len() as u64;
        let mut player = mathable_player(spec, seed).map_err(SessionError::player)?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Mathable>, spec: &PlayerSpec, _caps: &Caps) -> Result<(), SessionError> {
        mathable_player(spec, 0).map(|_| ()).map_err(SessionError::player)
    }
}

/// The cells to highlight: the placements of the turn in progress, or, before its first
/// placement, those of the turn that just ended (the computer's, or the opponent's: nothing when
/// it placed nothing), so that everyone sees what just changed.
fn recent_placements(moves: &[MathableMove], placed_this_turn: usize) -> Vec<String> {
    let cells = |moves: &mut dyn Iterator<Item = &MathableMove>| -> Vec<String> {
        moves
            .filter_map(|m| match m {
                MathableMove::Place { cell, .. } => Some(cell.to_string()),
                _ => None,
            })
            .collect()
    };
    if placed_this_turn > 0 {
        return cells(&mut moves.iter().rev().take(placed_this_turn));
    }
    // Back from the end: the last turn's end, then its placements and extra draws.
    let mut back = moves.iter().rev().peekable();
    if back.next_if(|m| matches!(m, MathableMove::EndTurn)).is_none() {
        return Vec::new();
    }
    let mut turn = Vec::new();
    while let Some(m) = back.next_if(|m| matches!(m, MathableMove::Place { .. } | MathableMove::Draw)) {
        turn.push(m);
    }
    cells(&mut turn.into_iter())
}

/// Mathable for the server's registry entry.
pub static SESSIONS: Served<Mathable, MathableAdapter> = Served::new();

#[cfg(test)]
mod tests {
    #[test]
    fn terminating_needs_the_others_agreement_and_resignations_show() {
        use crate::session::SessionFactory;
        let mut secret = serde_json::json!({});
        super::SESSIONS.complete_secret(&mut secret);
        let session = super::SESSIONS.new_session(&serde_json::json!({}), &secret).unwrap();
        assert_eq!(session.agreement_move().as_deref(), Some("terminate"));
        assert!(session.shows_resignations());
        assert_eq!(session.score_unit(), "points");
        // The computer answers a terminate at once: at 0-0 it can still win, so it refuses.
        let refusal = session.agrees_to_end(1).unwrap_err().to_string();
        assert_eq!(refusal, "The computer does not agree to end the game: it shares the lead and can still win.");
    }

    #[test]
    fn the_last_turns_placements_stay_marked_until_the_next_placement() {
        use crate::games::mathable::MathableMove;
        use crate::session::SessionFactory;
        let secret = serde_json::json!({"seed": 7});
        let mut session = super::SESSIONS.new_session(&serde_json::json!({}), &secret).unwrap();
        let placement = |session: &dyn crate::session::Session| {
            let view = session.view(session.to_move());
            view["legal"].as_array().unwrap().iter().filter_map(|m| m.as_str()).find(|m| m.contains('=') && !m.starts_with("swap")).map(str::to_string)
        };
        let first = placement(session.as_ref()).expect("seed 7 deals a placement");
        session.play(&first).unwrap();
        let cell = first.split('=').next().unwrap().to_string();
        assert_eq!(session.view(Some(0))["board"]["recent"], serde_json::json!([cell]));
        session.play(&MathableMove::EndTurn.to_string()).unwrap();
        // The next player, and a watcher, still see what was just placed.
        for viewer in [Some(1), None] {
            assert_eq!(session.view(viewer)["board"]["recent"], serde_json::json!([cell]), "{viewer:?}");
        }
        // Once the next player places, only that placement is marked.
        if let Some(second) = placement(session.as_ref()) {
            session.play(&second).unwrap();
            let cell = second.split('=').next().unwrap().to_string();
            assert_eq!(session.view(None)["board"]["recent"], serde_json::json!([cell]));
        }
    }
}
