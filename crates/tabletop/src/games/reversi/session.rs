//! Reversi on the server: its board as JSON (with the discs the last move flipped), hints, levels.

use std::time::Duration;

use serde_json::{json, Value};

use crate::arena::Finished;
use crate::session::{SessionError, slot_player, Adapter, Caps, EngineSlot, SavedGame, Served};
use crate::{Game, Player, PlayerKind, PlayerSpec, Record};
use super::engine::EnginePlayer as ReversiEnginePlayer;
use super::players::make_player as reversi_player;
use super::ggf::GgfGame;
use super::{levels as reversi_levels, Color, Reversi, ReversiMove};

/// Reversi on the web.
pub struct ReversiAdapter;

/// The threads of a game's engine on the server: one, so that its games do not take each
/// other's cores ([`Caps`] has no thread count; `threads=` beyond it is refused).
const SERVER_THREADS: usize = 1;

/// A worker's Reversi engine; its tables are allocated fallibly (an error, not an abort).
fn reversi_engine() -> Result<ReversiEnginePlayer, SessionError> {
    ReversiEnginePlayer::try_new(None, None, "engine".into()).map_err(SessionError::engine)
}

impl Adapter<Reversi> for ReversiAdapter {
    const NAME: &'static str = "reversi";
    const REVIEW: Option<crate::session::ReviewRange<Reversi>> = Some(crate::review::review_range);
    const OPTION_KEYS: &'static [&'static str] = &[];

    fn local_player(spec: &PlayerSpec, _start: &Reversi, seed: u64) -> Result<Box<dyn Player<Reversi>>, String> {
        super::players::make_local_player(spec, seed).map_err(|e| e.to_string())
    }

    fn player_kinds() -> &'static [PlayerKind] {
        crate::games::reversi::players::PLAYERS
    }

    fn start(_options: &Value, _secret: &Value) -> Result<Reversi, SessionError> {
        Ok(Reversi::new())
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "Black" } else { "White" }.to_string()
    }

    const SAVED_GAME_FORMAT: &'static str = "ggf";

    /// GGF, as `tabletop tournament reversi --games-out FILE.ggf` writes it: one line with
    /// the players, the date, the result (`:t`, `:r` marks), the clock and each move's time,
    /// and the reason and notes in a comment `C[...]`.
    fn saved_game(finished: &Finished<Reversi>, export: &SavedGame) -> String {
        let name = |seat: usize| export.players.get(seat).map_or("?", String::as_str);
        let mut game = GgfGame::from_finished(finished, name(0), name(1));
        game.date = Some(export.date.to_string());
        let mut comment = vec![export.reason.to_string()];
        comment.extend(export.notes.iter().cloned());
        // A comment cannot hold the tag's end; a line break would split the game's line.
        let comment = comment.join("; ").replace('\\', "/").replace(']', ")").replace(['\n', '\r'], " ");
        let text = game.to_string();
        format!("{}C[{comment}];)\n", text.strip_suffix(";)").unwrap_or(&text))
    }

    const SCORE_UNIT: &'static str = "discs";

    fn scores(position: &Reversi) -> Option<Vec<i64>> {
        Some(vec![i64::from(position.discs(Color::Black)), i64::from(position.discs(Color::White))])
    }

    fn board(record: &Record<Reversi>, _viewer: Option<usize>) -> Value {
        let position = record.current();
        let letter = |c: Option<Color>| match c {
            Some(Color::Black) => "b",
            Some(Color::White) => "w",
            None => "-",
        };
        let cells: Vec<&str> = (0..64).map(|i| letter(position.occupant(i / 8, i % 8))).collect();
        // Discs that changed colour with the last move, for a brief flip animation.
        let flipped: Vec<usize> = match record.positions() {
            [.., before, _] => (0..64)
                .filter(|&i| {
                    let (was, now) = (before.occupant(i / 8, i % 8), position.occupant(i / 8, i % 8));
                    was.is_some() && was != now
                })
                .collect(),
            _ => Vec::new(),
        };
        let last = record.moves().last().map(|m| m.to_string());
        let passed = matches!(record.moves().last(), Some(ReversiMove::Pass));
        json!({
            "cells": cells,
            "discs": [position.discs(Color::Black), position.discs(Color::White)],
            "last_move": last,
            "last_was_pass": passed,
            "flipped": flipped,
            // The well-known line the game follows, by name (or null).
            "opening": super::openings::opening_name(record.moves()),
        })
    }

    fn choose(
        record: &Record<Reversi>,
        spec: &PlayerSpec,
        slot: &mut EngineSlot,
        caps: &Caps,
    ) -> Result<ReversiMove, SessionError> {
        if spec.name == "engine" && (spec.settings.contains_key("level") || spec.settings.contains_key("seed")) {
            // A level on the worker's engine; its draws among near-equal moves are seeded by the
            // position and the ply (or the spec's seed), so a replayed game gets the same moves.
            let mut level = *reversi_levels::level_from_spec(spec).map_err(SessionError::player)?;
            // Never past this server's longest thinking time (the search keeps its last depth).
            level.time_cap = Some(level.time_cap.map_or(caps.max_think, |t| t.min(caps.max_think)));
            let seed = spec.get_u64("seed").map_err(SessionError::player)?.unwrap_or(0)
                ^ record.current().hash()
                ^ record.moves().len() as u64;
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
            let player = slot_player(slot, "engine".into(), reversi_engine)?;
            return Ok(reversi_levels::choose(player.engine(), &level, record.current(), &mut rng));
        }
        if spec.name == "engine" {
            // One engine per worker, its tables reused; the spec sets its limits for this move.
            let time = spec.get_duration("time").map_err(SessionError::player)?;
            let depth = spec.get_in_range("depth", 1..=60).map_err(SessionError::player)?.map(|d| d as u32);
            let player = slot_player(slot, "engine".into(), reversi_engine)?;
            let engine = player.engine();
            engine.time = if time.is_none() && depth.is_none() { Some(Duration::from_secs(1)) } else { time };
            engine.depth = depth;
            return Ok(player.choose_move(record));
        }
        let mut player = reversi_player(spec, record.moves().len() as u64).map_err(SessionError::player)?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Reversi>, spec: &PlayerSpec, caps: &Caps) -> Result<(), SessionError> {
        if spec.settings.contains_key("threads") {
            // The server's caps give a game's engine no more than one thread (its games share
            // the cores); a local `play` or `analyze` searches on every core.
            let threads = crate::games::reversi::players::threads_setting(spec).map_err(SessionError::player)?;
            if threads > SERVER_THREADS {
                return Err(SessionError::Player(format!(
                    "threads={threads}: this server searches each game on {SERVER_THREADS} thread (leave threads= out)"
                )));
            }
        }
        if spec.name == "engine" && spec.settings.contains_key("clock") {
            // The server thinks one move at a time on a shared engine: no game clock is kept.
            return Err(SessionError::Player("clock= is for matches and the terminal; here use time=".to_string()));
        }
        if spec.name == "engine" {
            // Checked without building an engine (its tables are tens of megabytes).
            if spec.settings.contains_key("level") || spec.settings.contains_key("seed") {
                // A level's time is capped by the server's longest thinking time when it plays.
                reversi_levels::level_from_spec(spec).map_err(SessionError::player)?;
            }
            spec.get_duration("time").map_err(SessionError::player)?;
            spec.get_in_range("depth", 1..=60).map_err(SessionError::player)?;
            let bytes = crate::games::reversi::engine::Engine::MEMORY_BYTES;
            if bytes > caps.engine_memory {
                return Err(SessionError::Player(format!(
                    "the engine needs {} MiB, over this server's limit of {} MiB per engine",
                    bytes >> 20,
                    caps.engine_memory >> 20
                )));
            }
            return Ok(());
        }
        reversi_player(spec, 0).map(|_| ()).map_err(SessionError::player)
    }
}

/// Reversi for the server's registry entry.
pub static SESSIONS: Served<Reversi, ReversiAdapter> = Served::new();

#[cfg(test)]
mod tests {
    #[test]
    fn the_server_refuses_more_than_one_thread_a_game() {
        use crate::session::{Adapter, Caps};
        let caps = Caps { max_think: std::time::Duration::from_secs(10), engine_memory: 1 << 30 };
        let record = crate::Record::new(crate::games::reversi::Reversi::new());
        let check = |spec: &str| super::ReversiAdapter::check_spec(&record, &spec.parse().unwrap(), &caps);
        assert!(check("engine:threads=1").is_ok());
        assert!(check("engine:time=1s").is_ok());
        for spec in ["engine:threads=2", "engine-v1:threads=4", "engine:level=5,threads=2"] {
            let error = check(spec).unwrap_err().to_string();
            assert!(error.contains("one thread") || error.contains("1 thread"), "{spec}: {error}");
        }
        assert!(check("engine:threads=0").is_err());
    }

    #[test]
    fn the_board_names_the_opening() {
        use crate::session::Adapter;
        let mut record = crate::Record::new(crate::games::reversi::Reversi::new());
        assert_eq!(super::ReversiAdapter::board(&record, None)["opening"], serde_json::Value::Null);
        // The Tiger, in an image that starts at e6.
        for mv in ["e6", "f4", "c3", "c4", "d3"] {
            record.play(mv.parse().unwrap()).unwrap();
        }
        assert_eq!(super::ReversiAdapter::board(&record, None)["opening"], "Tiger");
    }

    #[test]
    fn scores_are_discs() {
        use crate::session::SessionFactory;
        let session = super::SESSIONS.new_session(&serde_json::json!({}), &serde_json::json!({})).unwrap();
        assert_eq!(session.score_unit(), "discs");
        assert_eq!(session.check_move("f5").as_deref(), Ok("f5"));
        assert!(session.check_move("a1").is_err());
    }
}
