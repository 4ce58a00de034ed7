//! The SQLite backend: one file, one process (the default).
//!
//! - The schema is versioned with `rusqlite_migration` (SQLite's `user_version`); the first
//!   migration is the schema of the first release, so databases made by it upgrade in place.
//!   The steps are those of [`super::postgres`], in SQLite's dialect.
//! - Two connections: one writes, one reads (with the write-ahead log, reads go on while a
//!   write waits for the file's lock). Every call blocks its thread: the server makes them on
//!   tokio's blocking threads ([`super::Store`]), never on the threads that answer requests.
//! - No call waits for the database longer than [`BUSY_WAIT`] (for this process's other
//!   calls, then for another process holding the file's lock): past it, [`StoreError::Busy`].
//! - At open, a real write proves the file writable: a read-only or immutable file is refused
//!   ([`StoreError::ReadOnly`]) rather than served with every write failing.

use std::path::Path;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};
use rusqlite::{params, Connection, ErrorCode, OptionalExtension, TransactionBehavior};
use rusqlite_migration::{HookError, Migrations, M};
use serde_json::Value;

use super::{json_text, GameRow, LobbyGame, StoreError, StoredGame, Timed, Write};

/// The longest one call waits for the database (this process's other calls on the same
/// connection, then another process holding the file's write lock) before it gives up with
/// [`StoreError::Busy`] (the client gets 503 and `Retry-After`).
pub const BUSY_WAIT: Duration = Duration::from_secs(1);

/// How long opening waits for another process's lock (migrations, the write probe): a
/// start may wait for a backup or a second process a little longer than a request.
const OPEN_BUSY_WAIT: Duration = Duration::from_secs(5);

/// The database: a connection that writes and one that reads (the same one in memory).
pub struct Store {
    writer: Mutex<Connection>,
    /// `None` for an in-memory database (a second connection would open another one).
    reader: Option<Mutex<Connection>>,
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
        // Versions (every write names the one it was decided on), stored proposals, leases.
        M::up(
            "ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE games ADD COLUMN proposal TEXT;
            ALTER TABLE games ADD COLUMN lease_owner TEXT;
            ALTER TABLE games ADD COLUMN lease_until INTEGER;",
        ),
        // Seat tokens stored hashed: the clear tokens of older games are replaced by their
        // hashes (in Rust: SQLite has no SHA-256), so their holders' tokens keep working.
        M::up_with_hook("", |tx: &rusqlite::Transaction| hash_clear_tokens(tx).map_err(HookError::from)),
        // Invitations apart from seat tokens, used once (per seat: the code's hash and whether
        // it was used). Older games keep '[]': their invite links carry the seat's token.
        M::up("ALTER TABLE games ADD COLUMN invites TEXT NOT NULL DEFAULT '[]';"),
        // Clocks: each game's timing (JSON; NULL for older games, which stay unlimited), the
        // moment it ends by itself if nobody acts (ms since the Unix epoch), and each move's time
        // with the clock after it.
        M::up(
            "ALTER TABLE games ADD COLUMN clock TEXT;
            ALTER TABLE games ADD COLUMN deadline INTEGER;
            ALTER TABLE moves ADD COLUMN time TEXT;
            CREATE INDEX games_deadline ON games(deadline) WHERE deadline IS NOT NULL AND ended IS NULL;",
        ),
        // Accounts (optional; games do not name them), their login sessions (token hashes with
        // an expiry) and the attempts counted by the login and sign-up limits.
        M::up(
            "CREATE TABLE accounts (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL UNIQUE,
                password TEXT NOT NULL,
                created INTEGER NOT NULL
            );
            CREATE TABLE account_sessions (
                token_hash TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                created INTEGER NOT NULL,
                expires INTEGER NOT NULL
            );
            CREATE INDEX account_sessions_by_account ON account_sessions(account_id);
            CREATE INDEX account_sessions_by_expiry ON account_sessions(expires);
            CREATE TABLE account_attempts (
                key TEXT NOT NULL,
                at INTEGER NOT NULL
            );
            CREATE INDEX account_attempts_by_key ON account_attempts(key, at);
            CREATE INDEX account_attempts_by_time ON account_attempts(at);",
        ),
        // Seats linked to accounts, rated games, ratings and each rated game's changes.
        M::up(super::ratings::SQLITE_STEP),
        // Seeks' rating ranges and the quick-pairing pools.
        M::up(super::seeks::SQLITE_STEP),
        // Bot accounts, their API tokens and the challenges waiting for them.
        M::up(super::bots::SQLITE_STEP),
        // Rate limits shared by every request: one bucket per limited thing and account or
        // address (see `super::limits`).
        M::up(super::limits::SQLITE_STEP),
    ])
}

/// Replaces every game's clear tokens by their hashes (a migration step: runs once per
/// database). A row whose tokens cannot be read is left as it is (it loads as damaged anyway).
fn hash_clear_tokens(tx: &rusqlite::Transaction) -> Result<(), rusqlite::Error> {
    let rows = {
        let mut statement = tx.prepare("SELECT id, tokens FROM games")?;
        let rows = statement.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    let mut update = tx.prepare("UPDATE games SET tokens = ?2 WHERE id = ?1")?;
    for (id, tokens) in rows {
        match super::hashed_tokens(&tokens) {
            Some(hashed) => {
                update.execute(params![id, hashed])?;
            }
            None => tracing::warn!(game = %id, "migration: the game's stored tokens are damaged; left as they are"),
        }
    }
    Ok(())
}

/// SQLite's code for an error, if it is one of SQLite's.
fn code_of(err: &rusqlite::Error) -> Option<ErrorCode> {
    match err {
        rusqlite::Error::SqliteFailure(e, _) => Some(e.code),
        _ => None,
    }
}

/// Is this SQLite's "database is locked" (or "table is locked")?
fn is_busy(err: &StoreError) -> bool {
    matches!(err, StoreError::Busy)
        || matches!(err, StoreError::Sqlite(e) if matches!(code_of(e), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)))
}

/// A call's error: SQLite's "busy" or "locked" (the lock waited for past the deadline) is
/// [`StoreError::Busy`]; anything else as it is.
fn settled(err: StoreError) -> StoreError {
    match &err {
        StoreError::Sqlite(e) if matches!(code_of(e), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)) => {
            StoreError::Busy
        }
        _ => err,
    }
}

/// Does `path` name an in-memory database (where each connection has its own)?
fn in_memory(path: &Path) -> bool {
    let text = path.to_string_lossy();
    text == ":memory:" || text.is_empty() || (text.starts_with("file:") && text.contains("mode=memory"))
}

/// Opening's errors that say the file cannot be written: refused with what to do.
fn refused_at_open(path: &Path, err: StoreError) -> StoreError {
    let code = match &err {
        StoreError::Sqlite(e) => code_of(e),
        StoreError::Migration(text) if text.contains("readonly") => Some(ErrorCode::ReadOnly),
        _ => None,
    };
    match code {
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly { path: path.to_path_buf(), reason: err.to_string() },
        Some(ErrorCode::CannotOpen) => StoreError::CannotOpen { path: path.to_path_buf(), reason: err.to_string() },
        _ => err,
    }
}

impl Store {
    /// Opens (creating and migrating) the database at `path`, or a throw-away one for `:memory:`.
    /// An existing file is checked first (`PRAGMA quick_check`): a damaged one is refused, and
    /// so is one this process cannot write (read-only, immutable, or in a read-only folder).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        // Processes started together on a new file race to create it. SQLite answers "busy" at
        // once, without waiting, where waiting could deadlock (two readers both wanting to switch
        // the file to WAL, or to write the schema): the losers start over after a short pause.
        let mut attempt: u32 = 0;
        loop {
            match Self::open_once(path) {
                Err(err) if attempt < 40 && is_busy(&err) => {
                    attempt += 1;
                    std::thread::sleep(Duration::from_millis(u64::from(10 + 10 * attempt.min(20))));
                }
                result => return result.map_err(|err| refused_at_open(path, err)),
            }
        }
    }

    fn open_once(path: &Path) -> Result<Self, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(OPEN_BUSY_WAIT)?;
        // WAL with NORMAL sync survives a killed process (kill -9) without an fsync per move.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
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
        // Two processes started together on a new file both find steps to apply; the one that
        // loses the race fails on the winner's work, then finds nothing left to do.
        let mut attempt = 0;
        while let Err(err) = migrations().to_latest(&mut conn) {
            attempt += 1;
            if attempt > 5 || err.to_string().contains("readonly") {
                return Err(err.into());
            }
            std::thread::sleep(Duration::from_millis(50 * attempt));
        }
        probe_write(&conn)?;
        let reader = if in_memory(path) {
            None
        } else {
            let reader = Connection::open(path)?;
            reader.pragma_update(None, "query_only", true)?;
            Some(Mutex::new(reader))
        };
        Ok(Store { writer: Mutex::new(conn), reader, first_release: unversioned == 0 && has_games })
    }

    /// Runs `f` on the writing connection, waited for [`BUSY_WAIT`] at most (SQLite waits
    /// for another process's lock until then too).
    pub(super) fn with_writer<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut conn = bounded(&self.writer, Instant::now() + BUSY_WAIT)?;
        f(&mut conn).map_err(settled)
    }

    /// Runs `f` on the reading connection (the writing one in memory), bounded alike.
    pub(super) fn with_reader<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let conn = bounded(self.reader.as_ref().unwrap_or(&self.writer), Instant::now() + BUSY_WAIT)?;
        f(&conn).map_err(settled)
    }

    /// See [`super::Store::insert_game`].
    pub fn insert_game(&self, row: &GameRow, computer_to_move: bool, deadline: Option<i64>) -> Result<(), StoreError> {
        let open = row.seats.iter().filter(|s| *s == "open").count() as i64;
        let timing = row.timing.as_ref().map(json_text);
        self.with_writer(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute(
                "INSERT INTO games (id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners, open_seats, computer_to_move, invites, clock, deadline, rated, rating_range)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                params![
                    row.id,
                    row.game,
                    row.options.to_string(),
                    json_text(&row.seats),
                    json_text(&row.token_hashes),
                    row.ended,
                    row.created,
                    row.secret.to_string(),
                    row.hints,
                    json_text(&row.resigned),
                    json_text(&row.ended_winners),
                    open,
                    computer_to_move,
                    json_text(&row.invites),
                    timing,
                    deadline,
                    row.rated,
                    super::seeks::range_text(row.rating_range),
                ],
            )?;
            super::ratings::sqlite_set_players(&tx, &row.id, &row.accounts)?;
            tx.commit()?;
            Ok(())
        })
    }

    /// See [`super::Store::due`].
    pub fn due(&self, now: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        self.with_reader(|conn| {
            let mut statement = conn.prepare(
                "SELECT id FROM games WHERE deadline IS NOT NULL AND ended IS NULL AND deadline <= ?1
                 ORDER BY deadline LIMIT ?2",
            )?;
            let rows = statement.query_map(params![now, limit as i64], |r| r.get(0))?;
            Ok(rows.collect::<Result<Vec<String>, _>>()?)
        })
    }

    /// See [`super::Store::next_deadline`].
    pub fn next_deadline(&self) -> Result<Option<i64>, StoreError> {
        self.with_reader(|conn| {
            Ok(conn.query_row(
                "SELECT MIN(deadline) FROM games WHERE deadline IS NOT NULL AND ended IS NULL",
                [],
                |r| r.get(0),
            )?)
        })
    }

    /// See [`super::Store::set_deadline`].
    pub fn set_deadline(&self, id: &str, deadline: Option<i64>) -> Result<(), StoreError> {
        self.with_writer(|conn| {
            conn.execute("UPDATE games SET deadline = ?2 WHERE id = ?1", params![id, deadline])?;
            Ok(())
        })
    }

    /// See [`super::Store::load`].
    pub fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        // One snapshot for the row and the moves.
        self.with_reader(|conn| {
            let snapshot = conn.unchecked_transaction()?;
            load_game(&snapshot, id)
        })
    }

    /// See [`super::Store::version`].
    pub fn version(&self, id: &str) -> Result<Option<i64>, StoreError> {
        self.with_reader(|conn| {
            Ok(conn.query_row("SELECT version FROM games WHERE id = ?1", params![id], |r| r.get(0)).optional()?)
        })
    }

    /// See [`super::Store::write`].
    pub fn write(
        &self,
        id: &str,
        expected: i64,
        write: Write<'_>,
        computer_to_move: bool,
        timed: &Timed,
    ) -> Result<i64, StoreError> {
        self.with_writer(|conn| {
            // IMMEDIATE: the file's write lock is taken (or waited for, until the deadline) first.
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let bumped = tx.execute(
                "UPDATE games SET version = version + 1, computer_to_move = ?3, clock = ?4, deadline = ?5
                 WHERE id = ?1 AND version = ?2",
                params![id, expected, computer_to_move, timed.timing_text(), timed.deadline],
            )?;
            if bumped != 1 {
                return Err(StoreError::Stale);
            }
            match write {
                Write::Move { ply, notation, time } => {
                    tx.execute(
                        "INSERT INTO moves (game_id, ply, notation, time) VALUES (?1, ?2, ?3, ?4)",
                        params![id, ply as i64, notation, time],
                    )
                    .map_err(stale_if_taken)?;
                    tx.execute("UPDATE games SET proposal = NULL WHERE id = ?1", params![id])?;
                }
                Write::Truncate { ply } => {
                    tx.execute("DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2", params![id, ply as i64])?;
                    tx.execute("UPDATE games SET proposal = NULL WHERE id = ?1", params![id])?;
                }
                Write::Resigned { resigned, ended } => {
                    let (reason, winners) = match ended {
                        Some((reason, winners)) => (Some(reason), json_text(&winners)),
                        None => (None, "[]".to_string()),
                    };
                    tx.execute(
                        "UPDATE games SET resigned = ?2, ended = ?3, ended_winners = ?4, proposal = NULL WHERE id = ?1",
                        params![id, json_text(&resigned), reason, winners],
                    )?;
                }
                Write::Seats { seats, token_hashes, invites, accounts } => {
                    let open = seats.iter().filter(|s| *s == "open").count() as i64;
                    tx.execute(
                        "UPDATE games SET seats = ?2, open_seats = ?3, tokens = ?4, invites = ?5 WHERE id = ?1",
                        params![id, json_text(&seats), open, json_text(&token_hashes), json_text(&invites)],
                    )?;
                    super::ratings::sqlite_set_players(&tx, id, accounts)?;
                }
                Write::Proposal { proposal } => {
                    tx.execute(
                        "UPDATE games SET proposal = ?2 WHERE id = ?1",
                        params![id, proposal.map(Value::to_string)],
                    )?;
                }
            }
            tx.commit()?;
            Ok(expected + 1)
        })
    }

    /// See [`super::Store::lobby`].
    pub fn lobby(&self, limit: usize) -> Result<Vec<LobbyGame>, StoreError> {
        self.with_reader(|conn| {
            let mut statement = conn.prepare(
                "SELECT id, game, options, seats, created, clock, rated FROM games
             WHERE open_seats > 0 AND ended IS NULL ORDER BY created DESC, rowid DESC LIMIT ?1",
            )?;
            let rows = statement.query_map(params![limit as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, bool>(6)?,
                ))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (id, game, options, seats, created, clock, rated) = row?;
                out.extend(super::lobby_entry(id, game, &options, &seats, created, clock.as_deref(), rated));
            }
            Ok(out)
        })
    }

    /// See [`super::Store::computer_to_move`]; after upgrading a first-release database, every
    /// unfinished game once.
    pub fn computer_to_move(&self) -> Result<Vec<String>, StoreError> {
        let query = if self.first_release {
            "SELECT id FROM games WHERE ended IS NULL ORDER BY created"
        } else {
            "SELECT id FROM games WHERE computer_to_move = 1 AND ended IS NULL ORDER BY created"
        };
        self.with_reader(|conn| {
            let mut statement = conn.prepare(query)?;
            let rows = statement.query_map([], |r| r.get(0))?;
            Ok(rows.collect::<Result<Vec<String>, _>>()?)
        })
    }

    /// See [`super::Store::set_computer_to_move`].
    pub fn set_computer_to_move(&self, id: &str, computer_to_move: bool) -> Result<(), StoreError> {
        self.with_writer(|conn| {
            conn.execute("UPDATE games SET computer_to_move = ?2 WHERE id = ?1", params![id, computer_to_move])?;
            Ok(())
        })
    }
}

/// A game and its moves, read on `conn`.
fn load_game(conn: &Connection, id: &str) -> Result<Option<StoredGame>, StoreError> {
    type Raw = (
        String,
        String,
        String,
        String,
        String,
        Option<String>,
        i64,
        String,
        bool,
        String,
        String,
        i64,
        Option<String>,
        String,
        Option<String>,
    );
    let raw: Option<Raw> = conn
        .query_row(
            "SELECT id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners, version, proposal, invites, clock
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
                    r.get(11)?,
                    r.get(12)?,
                    r.get(13)?,
                    r.get(14)?,
                ))
            },
        )
        .optional()?;
    let Some((
        id,
        game,
        options,
        seats,
        tokens,
        ended,
        created,
        secret,
        hints,
        resigned,
        ended_winners,
        version,
        proposal,
        invites,
        clock,
    )) = raw
    else {
        return Ok(None);
    };
    let mut row = super::row_from_columns(
        id.clone(),
        game,
        &options,
        &seats,
        &tokens,
        ended,
        created,
        &secret,
        hints,
        &resigned,
        &ended_winners,
        &invites,
        clock.as_deref(),
    )?;
    super::ratings::sqlite_extras(conn, &mut row)?;
    row.rating_range = super::seeks::sqlite_range(conn, &id)?;
    let proposal = match proposal {
        Some(text) => Some(
            serde_json::from_str(&text).map_err(|_| StoreError::Damaged { id: id.clone(), what: "proposal".into() })?,
        ),
        None => None,
    };
    let mut statement = conn.prepare("SELECT ply, notation, time FROM moves WHERE game_id = ?1 ORDER BY ply")?;
    let moves = statement
        .query_map(params![id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, Option<String>>(2)?)))?
        .collect::<Result<Vec<_>, _>>()?;
    let (moves, times) = super::moves_in_order(&id, moves)?;
    Ok(Some(StoredGame { row, moves, times, version, proposal, leased: false }))
}

/// A move whose ply is already stored lost a race: the game moved on.
fn stale_if_taken(err: rusqlite::Error) -> StoreError {
    match &err {
        rusqlite::Error::SqliteFailure(failure, _) if failure.code == rusqlite::ErrorCode::ConstraintViolation => {
            StoreError::Stale
        }
        _ => StoreError::Sqlite(err),
    }
}

/// `connection` locked, waited for until `deadline` at most, with SQLite's own wait for
/// other processes' locks ending then too.
fn bounded(connection: &Mutex<Connection>, deadline: Instant) -> Result<MutexGuard<'_, Connection>, StoreError> {
    let conn = connection.try_lock_until(deadline).ok_or(StoreError::Busy)?;
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(StoreError::Busy);
    }
    conn.busy_timeout(left)?;
    Ok(conn)
}

/// Writes once, for real: the header's `user_version` rewritten with its own value, committed.
/// A file that cannot be written (read-only, `immutable=1`, `mode=ro`, a folder where the
/// write-ahead log cannot be made) fails here, at start, not at the first move.
fn probe_write(conn: &Connection) -> Result<(), StoreError> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let written = conn.execute_batch(&format!("BEGIN IMMEDIATE; PRAGMA user_version = {version}; COMMIT;"));
    if written.is_err() && !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    Ok(written?)
}
