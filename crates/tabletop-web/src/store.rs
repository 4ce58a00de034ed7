//! Games kept in SQLite: one row per game, one row per move. Every move is committed before
//! the server answers, and a game is rebuilt after a restart by replaying its moves.
//!
//! The schema is versioned with `rusqlite_migration` (SQLite's `user_version`); the first
//! migration is the schema of the first release, so databases made by it upgrade in place.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};
use rusqlite_migration::{Migrations, M};
use serde_json::Value;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite answered an error.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The schema could not be brought up to date.
    #[error("database schema: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    /// The integrity check found damage.
    #[error("database {path} is damaged (PRAGMA quick_check: {report}); restore a backup or move it away")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite reported.
        report: String,
    },
    /// A stored value cannot be read back (damaged by hand or by a bug).
    #[error("stored data of game {id} is damaged: {what}")]
    Damaged {
        /// The game.
        id: String,
        /// What could not be read.
        what: String,
    },
}

/// What is stored about a game besides its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The unguessable id.
    pub id: String,
    /// The game's name.
    pub game: String,
    /// The options it was created with (public: shown to everyone).
    pub options: Value,
    /// What only the server may know (Mathable's bag seed): never shown.
    pub secret: Value,
    /// Per seat: the player spec (`human`, `open`, `engine:time=1s`, ...).
    pub seats: Vec<String>,
    /// Per seat: its secret token.
    pub tokens: Vec<String>,
    /// Whether hints and analysis are allowed between people.
    pub hints: bool,
    /// Seats that resigned, in order.
    pub resigned: Vec<usize>,
    /// Set when the game ended outside the rules (a resignation): why.
    pub ended: Option<String>,
    /// The winners when the game ended outside the rules.
    pub ended_winners: Vec<usize>,
    /// Creation time, seconds since the Unix epoch.
    pub created: i64,
}

/// A game in the lobby: id, game, public options, seats, creation time.
pub type LobbyGame = (String, String, Value, Vec<String>, i64);

/// The database.
pub struct Store {
    conn: Connection,
    /// Was this a first-release database (games stored before the schema had versions)? Its
    /// games never recorded whether a computer is to move.
    first_release: bool,
}

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        // The first release's schema (it used CREATE ... IF NOT EXISTS without a version).
        M::up(
            "CREATE TABLE IF NOT EXISTS games (
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
            CREATE INDEX IF NOT EXISTS games_by_time ON games(created);",
        ),
        // Hidden seeds, hints between people, open seats, resignations, computers to resume.
        M::up(
            "ALTER TABLE games ADD COLUMN secret TEXT NOT NULL DEFAULT '{}';
            ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE games ADD COLUMN resigned TEXT NOT NULL DEFAULT '[]';
            ALTER TABLE games ADD COLUMN ended_winners TEXT NOT NULL DEFAULT '[]';
            ALTER TABLE games ADD COLUMN open_seats INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE games ADD COLUMN computer_to_move INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX games_open ON games(open_seats) WHERE open_seats > 0;
            CREATE INDEX games_computer ON games(computer_to_move) WHERE computer_to_move = 1;",
        ),
    ])
}

fn json_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl Store {
    /// Opens (creating and migrating) the database at `path`, or a throw-away one for `:memory:`.
    /// An existing file is checked first (`PRAGMA quick_check`): a damaged one is refused.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let mut conn = Connection::open(path)?;
        // WAL with NORMAL sync survives a killed process (kill -9) without an fsync per move.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let report: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0))?;
        if report != "ok" {
            return Err(StoreError::Corrupt { path: path.to_path_buf(), report });
        }
        let unversioned: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let has_games: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games')",
            [],
            |r| r.get(0),
        )?;
        migrations().to_latest(&mut conn)?;
        Ok(Store { conn, first_release: unversioned == 0 && has_games })
    }

    /// Stores a new game, and whether a computer is to move first (to resume after a restart).
    pub fn insert_game(&self, row: &GameRow, computer_to_move: bool) -> Result<(), StoreError> {
        let open = row.seats.iter().filter(|s| *s == "open").count() as i64;
        self.conn.execute(
            "INSERT INTO games (id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners, open_seats, computer_to_move)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                row.id,
                row.game,
                row.options.to_string(),
                json_text(&row.seats),
                json_text(&row.tokens),
                row.ended,
                row.created,
                row.secret.to_string(),
                row.hints,
                json_text(&row.resigned),
                json_text(&row.ended_winners),
                open,
                computer_to_move,
            ],
        )?;
        Ok(())
    }

    /// A game and its moves, or `None` if there is no such game.
    pub fn load(&self, id: &str) -> Result<Option<(GameRow, Vec<String>)>, StoreError> {
        type Raw = (String, String, String, String, String, Option<String>, i64, String, bool, String, String);
        let raw: Option<Raw> = self
            .conn
            .query_row(
                "SELECT id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners
                 FROM games WHERE id = ?1",
                params![id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                        r.get(7)?,
                        r.get(8)?,
                        r.get(9)?,
                        r.get(10)?,
                    ))
                },
            )
            .optional()?;
        let Some((id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners)) = raw
        else {
            return Ok(None);
        };
        let damaged = |what: &str| StoreError::Damaged { id: id.clone(), what: what.to_string() };
        let mut options: Value = serde_json::from_str(&options).map_err(|_| damaged("options"))?;
        let mut secret: Value = serde_json::from_str(&secret).map_err(|_| damaged("secret"))?;
        // Games stored by the first release kept Mathable's seed among the public options.
        if let Some(seed) = options.as_object_mut().and_then(|o| o.remove("seed")) {
            if secret.get("seed").is_none() {
                secret["seed"] = seed;
            }
        }
        let row = GameRow {
            options,
            secret,
            seats: serde_json::from_str(&seats).map_err(|_| damaged("seats"))?,
            tokens: serde_json::from_str(&tokens).map_err(|_| damaged("tokens"))?,
            hints,
            resigned: serde_json::from_str(&resigned).map_err(|_| damaged("resigned"))?,
            ended_winners: serde_json::from_str(&ended_winners).map_err(|_| damaged("ended_winners"))?,
            ended,
            created,
            game,
            id: id.clone(),
        };
        if row.tokens.len() != row.seats.len() {
            return Err(damaged("tokens"));
        }
        let mut statement = self.conn.prepare("SELECT ply, notation FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let moves = statement
            .query_map(params![id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        if moves.iter().enumerate().any(|(i, (ply, _))| *ply != i as i64) {
            return Err(damaged("move numbers"));
        }
        Ok(Some((row, moves.into_iter().map(|(_, notation)| notation).collect())))
    }

    /// Appends the move at `ply` (0-based) of a game, and whether a computer is to move after it.
    pub fn append_move(&self, id: &str, ply: usize, notation: &str, computer_to_move: bool) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute(
            "INSERT INTO moves (game_id, ply, notation) VALUES (?1, ?2, ?3)",
            params![id, ply as i64, notation],
        )?;
        tx.execute("UPDATE games SET computer_to_move = ?2 WHERE id = ?1", params![id, computer_to_move])?;
        tx.commit()?;
        Ok(())
    }

    /// Forgets every move from `ply` on (undo).
    pub fn truncate_moves(&self, id: &str, ply: usize, computer_to_move: bool) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute("DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2", params![id, ply as i64])?;
        tx.execute("UPDATE games SET computer_to_move = ?2 WHERE id = ?1", params![id, computer_to_move])?;
        tx.commit()?;
        Ok(())
    }

    /// Records the seats that resigned, and the end of the game if it ended.
    pub fn set_resigned(
        &self,
        id: &str,
        resigned: &[usize],
        ended: Option<(&str, &[usize])>,
        computer_to_move: bool,
    ) -> Result<(), StoreError> {
        let (reason, winners) = match ended {
            Some((reason, winners)) => (Some(reason), json_text(&winners)),
            None => (None, "[]".to_string()),
        };
        self.conn.execute(
            "UPDATE games SET resigned = ?2, ended = ?3, ended_winners = ?4, computer_to_move = ?5 WHERE id = ?1",
            params![id, json_text(&resigned), reason, winners, computer_to_move],
        )?;
        Ok(())
    }

    /// Stores the seats after an open seat was given to a person (its spec became `human`).
    pub fn take_seat(&self, id: &str, seats: &[String]) -> Result<(), StoreError> {
        let open = seats.iter().filter(|s| *s == "open").count() as i64;
        self.conn.execute(
            "UPDATE games SET seats = ?2, open_seats = ?3 WHERE id = ?1",
            params![id, json_text(&seats), open],
        )?;
        Ok(())
    }

    /// Games with a seat open to anyone, newest first: (id, game, options, seats, created).
    pub fn lobby(&self, limit: usize) -> Result<Vec<LobbyGame>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT id, game, options, seats, created FROM games
             WHERE open_seats > 0 AND ended IS NULL ORDER BY created DESC, rowid DESC LIMIT ?1",
        )?;
        let rows = statement.query_map(params![limit as i64], |r| {
            Ok((r.get::<_, String>(0)?, r.get(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?, r.get(4)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, game, options, seats, created) = row?;
            // A damaged row is left out of the lobby rather than failing it for everyone.
            let (Ok(mut options), Ok(seats)) =
                (serde_json::from_str::<Value>(&options), serde_json::from_str::<Vec<String>>(&seats))
            else {
                tracing::warn!(game = %id, "lobby: a game's stored options or seats are damaged");
                continue;
            };
            if let Some(o) = options.as_object_mut() {
                o.remove("seed");
            }
            out.push((id, game, options, seats, created));
        }
        Ok(out)
    }

    /// Games whose computer seat may be to move (to resume thinking after a start): those marked
    /// so, and after upgrading a first-release database every unfinished game once.
    pub fn computer_to_move(&self) -> Result<Vec<String>, StoreError> {
        let query = if self.first_release {
            "SELECT id FROM games WHERE ended IS NULL ORDER BY created"
        } else {
            "SELECT id FROM games WHERE computer_to_move = 1 AND ended IS NULL ORDER BY created"
        };
        let mut statement = self.conn.prepare(query)?;
        let rows = statement.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<Vec<String>, _>>()?)
    }

    /// Marks whether a computer is to move in a game (set after loading an older database).
    pub fn set_computer_to_move(&self, id: &str, computer_to_move: bool) -> Result<(), StoreError> {
        self.conn.execute("UPDATE games SET computer_to_move = ?2 WHERE id = ?1", params![id, computer_to_move])?;
        Ok(())
    }
}
