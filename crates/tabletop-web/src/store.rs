//! Games kept in SQLite: one row per game, one row per move. Every move is committed before
//! the server answers, and a game is rebuilt after a restart by replaying its moves.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};
use serde_json::Value;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[error("database: {0}")]
pub struct StoreError(#[from] rusqlite::Error);

/// What is stored about a game besides its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The unguessable id.
    pub id: String,
    /// The game's name.
    pub game: String,
    /// The options it was created with.
    pub options: Value,
    /// Per seat: the player spec (`human`, `engine:time=1s`, ...).
    pub seats: Vec<String>,
    /// Per seat: its secret token.
    pub tokens: Vec<String>,
    /// Set when someone resigned or terminated: the seat and what they did.
    pub ended: Option<String>,
    /// Creation time, seconds since the Unix epoch.
    pub created: i64,
}

/// The database.
pub struct Store {
    conn: Connection,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    tokens TEXT NOT NULL,
    ended TEXT,
    created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    notation TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE INDEX IF NOT EXISTS games_by_time ON games(created);
";

impl Store {
    /// Opens (creating and migrating) the database at `path`, or a throw-away one for `:memory:`.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let conn = Connection::open(path)?;
        // WAL with NORMAL sync survives a killed process (kill -9) without an fsync per move.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.execute_batch(SCHEMA)?;
        Ok(Store { conn })
    }

    /// Stores a new game.
    pub fn insert_game(&self, row: &GameRow) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO games (id, game, options, seats, tokens, ended, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                row.id,
                row.game,
                row.options.to_string(),
                serde_json::to_string(&row.seats).unwrap_or_default(),
                serde_json::to_string(&row.tokens).unwrap_or_default(),
                row.ended,
                row.created
            ],
        )?;
        Ok(())
    }

    /// A game and its moves, or `None` if there is no such game.
    pub fn load(&self, id: &str) -> Result<Option<(GameRow, Vec<String>)>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT id, game, options, seats, tokens, ended, created FROM games WHERE id = ?1",
                params![id],
                |r| {
                    let text = |i: usize| r.get::<_, String>(i);
                    Ok(GameRow {
                        id: text(0)?,
                        game: text(1)?,
                        options: serde_json::from_str(&text(2)?).unwrap_or(Value::Null),
                        seats: serde_json::from_str(&text(3)?).unwrap_or_default(),
                        tokens: serde_json::from_str(&text(4)?).unwrap_or_default(),
                        ended: r.get(5)?,
                        created: r.get(6)?,
                    })
                },
            )
            .optional()?;
        let Some(row) = row else { return Ok(None) };
        let mut statement = self.conn.prepare("SELECT notation FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let moves = statement.query_map(params![id], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
        Ok(Some((row, moves)))
    }

    /// Appends the move at `ply` (0-based) of a game.
    pub fn append_move(&self, id: &str, ply: usize, notation: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO moves (game_id, ply, notation) VALUES (?1, ?2, ?3)",
            params![id, ply as i64, notation],
        )?;
        Ok(())
    }

    /// Forgets every move from `ply` on (undo).
    pub fn truncate_moves(&self, id: &str, ply: usize) -> Result<(), StoreError> {
        self.conn.execute("DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2", params![id, ply as i64])?;
        Ok(())
    }

    /// Marks a game as ended by resignation or termination.
    pub fn set_ended(&self, id: &str, ended: &str) -> Result<(), StoreError> {
        self.conn.execute("UPDATE games SET ended = ?2 WHERE id = ?1", params![id, ended])?;
        Ok(())
    }

    /// The most recent games: id, game, creation time, number of moves.
    pub fn recent(&self, limit: usize) -> Result<Vec<(String, String, i64, i64)>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT g.id, g.game, g.created, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)
             FROM games g ORDER BY g.created DESC, g.rowid DESC LIMIT ?1",
        )?;
        let rows = statement.query_map(params![limit as i64], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}
