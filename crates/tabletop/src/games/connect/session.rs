//! Connect-N on the server: its options (presets or sizes), its board as JSON, the engine per worker.

use std::time::Duration;

use serde_json::{json, Value};

use crate::session::{SessionError, option_str, option_usize, slot_player, Adapter, Caps, EngineSlot, Served};
use crate::{Player, PlayerKind, PlayerSpec, Record};
use super::engine::{make_player as connect_player, Engine as ConnectEngine};
use super::solver::Solver as ConnectSolver;
use super::{Column, Connect, ConnectVariant, Side as ConnectSide};

/// Connect-N on the web.
pub struct ConnectAdapter;

/// The Connect engine's table when a spec names none, at most (2^23 entries, 64 MiB).
const CONNECT_DEFAULT_TABLE: u64 = 1 << 23;

/// The largest table (a power of two, at most the default) whose solver fits in `memory`.
fn connect_default_table(variant: ConnectVariant, memory: u64) -> u64 {
    let mut entries = CONNECT_DEFAULT_TABLE;
    while entries > 1 << 16 && ConnectSolver::memory_bytes(variant, entries as usize) > memory {
        entries /= 2;
    }
    entries
}

impl ConnectAdapter {
    /// The engine in a worker's slot for this variant and table size.
    fn engine(slot: &mut EngineSlot, variant: ConnectVariant, table: u64) -> Result<&mut ConnectEngine, SessionError> {
        let key = format!("{}x{}x{}:{table}", variant.width(), variant.height(), variant.line());
        slot_player(slot, key, || {
            ConnectEngine::try_with_table(variant, Duration::from_secs(1), table as usize).map_err(SessionError::engine)
        })
    }
}

impl Adapter<Connect> for ConnectAdapter {
    const NAME: &'static str = "connect";
    const REVIEW: Option<crate::session::ReviewRange<Connect>> = Some(crate::review::review_range);
    const OPTION_KEYS: &'static [&'static str] = &["preset", "width", "height", "connect"];

    fn player_kinds() -> &'static [PlayerKind] {
        crate::games::connect::engine::PLAYER_KINDS
    }

    fn start(options: &Value, _secret: &Value) -> Result<Connect, SessionError> {
        let variant: ConnectVariant = match option_str(options, "preset")? {
            Some(preset) => {
                if ["width", "height", "connect"].iter().any(|k| options.get(k).is_some_and(|v| !v.is_null())) {
                    return Err(SessionError::Options("give either \"preset\" or \"width\", \"height\" and \"connect\", not both".into()));
                }
                preset.parse().map_err(|e: crate::games::connect::ConnectVariantError| SessionError::options(e))?
            }
            None => ConnectVariant::new(
                option_usize(options, "width", 7)?,
                option_usize(options, "height", 6)?,
                option_usize(options, "connect", 4)?,
            )
            .map_err(SessionError::options)?,
        };
        Ok(Connect::new(variant))
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "X" } else { "O" }.to_string()
    }

    fn board(record: &Record<Connect>, _viewer: Option<usize>) -> Value {
        let position = record.current();
        let variant = position.connect_variant();
        // Rows top first, as drawn.
        let rows: Vec<Vec<&str>> = (0..variant.height())
            .rev()
            .map(|r| {
                (0..variant.width())
                    .map(|c| match position.cell(r, c) {
                        Some(Some(ConnectSide::X)) => "X",
                        Some(Some(ConnectSide::O)) => "O",
                        _ => "",
                    })
                    .collect()
            })
            .collect();
        let line: Vec<[usize; 2]> =
            position.winning_cells().into_iter().map(|(r, c)| [variant.height() - 1 - r, c]).collect();
        json!({
            "width": variant.width(),
            "height": variant.height(),
            "connect": variant.line(),
            "rows": rows,
            "winning_line": line,
            "last_move": record.moves().last().map(|m| m.to_string()),
        })
    }

    fn choose(
        record: &Record<Connect>,
        spec: &PlayerSpec,
        slot: &mut EngineSlot,
        caps: &Caps,
    ) -> Result<Column, SessionError> {
        let variant = record.current().connect_variant();
        if spec.name == "engine" && !is_level(spec) {
            let time = spec.get_duration("time").map_err(SessionError::player)?.unwrap_or(Duration::from_secs(1));
            let table = spec.get_in_range("table", 1 << 16..=1 << 30).map_err(SessionError::player)?;
            let table = table.unwrap_or_else(|| connect_default_table(variant, caps.engine_memory));
            let engine = Self::engine(slot, variant, table)?;
            engine.set_time(time);
            return Ok(engine.choose_move(record));
        }
        let mut player = connect_player(spec, variant, record.moves().len() as u64).map_err(SessionError::player)?;
        Ok(player.choose_move(record))
    }

    fn check_spec(record: &Record<Connect>, spec: &PlayerSpec, caps: &Caps) -> Result<(), SessionError> {
        if spec.name == "engine" && !is_level(spec) {
            // Checked without building an engine: its table is what the caps bound.
            spec.get_duration("time").map_err(SessionError::player)?;
            if let Some(table) = spec.get_in_range("table", 1 << 16..=1 << 30).map_err(SessionError::player)? {
                let bytes = ConnectSolver::memory_bytes(record.current().connect_variant(), table as usize);
                if bytes > caps.engine_memory {
                    return Err(SessionError::Player(format!(
                        "table={table} needs {} MiB, over this server's limit of {} MiB per engine",
                        bytes.div_ceil(1 << 20),
                        caps.engine_memory >> 20
                    )));
                }
            }
            return Ok(());
        }
        connect_player(spec, ConnectVariant::connect4(), 0).map(|_| ()).map_err(SessionError::player)
    }
}

/// Connect for the server's registry entry.
pub static SESSIONS: Served<Connect, ConnectAdapter> = Served::new();

/// An `engine` spec that names a level (or a seed, which only a level takes): built by
/// [`connect_player`] like the other players, not from the slot's engine.
fn is_level(spec: &PlayerSpec) -> bool {
    spec.settings.contains_key("level") || spec.settings.contains_key("seed")
}

#[cfg(test)]
mod tests {
    #[test]
    fn checking_a_move_plays_nothing() {
        use crate::session::SessionFactory;
        let session = super::SESSIONS.new_session(&serde_json::json!({"preset": "connect3"}), &serde_json::json!({})).unwrap();
        assert_eq!(session.check_move(" 2 ").as_deref(), Ok("2"));
        assert!(session.check_move("9").is_err());
        assert_eq!(session.ply(), 0);
        assert_eq!(session.agreement_move(), None);
    }
}
