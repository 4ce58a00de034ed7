//! Seeks and quick pairing in the database (schema step 9, both backends):
//! `games.rating_range` (a seek's rating range, JSON `[min, max]`; NULL for games without one)
//! and `pool_entries` (one row per client waiting in a quick-pairing pool, or paired).
//!
//! - An entry keeps the hash of its secret (the client polls with the secret) and the hash of
//!   the seat token it will get (derived from the secret, see
//!   [`crate::service::seeks`]): the database holds no clear secret.
//! - A wave ([`Store::pool_wave`]) reads the waiting entries and marks the pairs it makes in
//!   one transaction: on PostgreSQL behind a transaction-level advisory lock (one wave at a time
//!   across every process sharing the database) and with the rows locked (`FOR UPDATE`), so a
//!   client leaving waits for the wave and finds its entry paired; on SQLite in an `IMMEDIATE`
//!   transaction (the file's write lock). Each claim is `... WHERE game_id IS NULL` and must
//!   change one row, or the wave's transaction is rolled back: an entry is paired at most once.

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::{blocking, Store, StoreError};

/// Schema step 9 (SQLite's dialect).
pub(crate) const SQLITE_STEP: &str = "ALTER TABLE games ADD COLUMN rating_range TEXT;
    CREATE TABLE pool_entries (
        id TEXT PRIMARY KEY,
        secret_hash TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        pool TEXT NOT NULL,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        clock TEXT NOT NULL,
        rated INTEGER NOT NULL,
        owner TEXT NOT NULL,
        account_id TEXT,
        account_name TEXT,
        rating REAL NOT NULL,
        created INTEGER NOT NULL,
        seen INTEGER NOT NULL,
        game_id TEXT,
        seat INTEGER
    );
    CREATE INDEX pool_entries_waiting ON pool_entries(pool, created) WHERE game_id IS NULL;
    CREATE INDEX pool_entries_by_owner ON pool_entries(owner);
    CREATE INDEX pool_entries_by_seen ON pool_entries(seen);";

/// Schema step 9 (PostgreSQL's dialect).
pub(crate) fn postgres_step() -> String {
    SQLITE_STEP
        .replace("rated INTEGER NOT NULL", "rated BOOLEAN NOT NULL")
        .replace(" REAL ", " DOUBLE PRECISION ")
        .replace("created INTEGER", "created BIGINT")
        .replace("seen INTEGER", "seen BIGINT")
}

/// The advisory lock key of a wave on PostgreSQL (one wave at a time across processes).
const WAVE_LOCK: i64 = 727_390;

/// A client in a quick-pairing pool, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolEntry {
    /// The entry's id (public to its holder; 32 hex digits).
    pub id: String,
    /// The hash of the seat token its holder gets once paired.
    pub token_hash: String,
    /// The pool: game, options, clock and rated, as one key.
    pub pool: String,
    /// The game's name.
    pub game: String,
    /// Its options (JSON text).
    pub options: String,
    /// The time control (its canonical text).
    pub clock: String,
    /// Rated or casual.
    pub rated: bool,
    /// Who entered it (`account:ID` or `address:KEY`): the cap on waiting entries counts by it.
    pub owner: String,
    /// The account, if its holder was logged in.
    pub account: Option<crate::ratings::SeatAccount>,
    /// Its holder's rating in the pool's game type and speed when it entered (1500 anonymous).
    pub rating: f64,
    /// When it entered (ms since the Unix epoch).
    pub created: i64,
    /// When it was last polled (ms since the Unix epoch).
    pub seen: i64,
    /// Once paired: the game and the seat.
    pub paired: Option<(String, usize)>,
}

/// What leaving a pool did.
#[derive(Clone, Debug, PartialEq)]
pub enum Leave {
    /// The entry was waiting: it is gone.
    Left,
    /// The entry was paired already (a wave came first): it stays, to be read.
    Paired(Box<PoolEntry>),
    /// No such entry (or not with this secret).
    Missing,
}

/// A pair a wave made: the new game's id and the entries for seat 0 and seat 1.
pub type Pair = (String, [PoolEntry; 2]);

const ENTRY_COLUMNS: &str =
    "id, token_hash, pool, game, options, clock, rated, owner, account_id, account_name, rating,
    created, seen, game_id, seat";

// A pool entry's account is never a bot's (`service::seeks::enter` refuses bots).
fn entry_from_sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<PoolEntry> {
    let account_id: Option<String> = r.get(8)?;
    let account_name: Option<String> = r.get(9)?;
    let game_id: Option<String> = r.get(13)?;
    let seat: Option<i64> = r.get(14)?;
    Ok(PoolEntry {
        id: r.get(0)?,
        token_hash: r.get(1)?,
        pool: r.get(2)?,
        game: r.get(3)?,
        options: r.get(4)?,
        clock: r.get(5)?,
        rated: r.get(6)?,
        owner: r.get(7)?,
        account: account_id.zip(account_name).map(|(id, name)| crate::ratings::SeatAccount { id, name, bot: false }),
        rating: r.get(10)?,
        created: r.get(11)?,
        seen: r.get(12)?,
        paired: game_id.zip(seat.and_then(|s| usize::try_from(s).ok())),
    })
}

fn entry_from_postgres(r: &tokio_postgres::Row) -> Result<PoolEntry, StoreError> {
    let account_id: Option<String> = r.try_get(8)?;
    let account_name: Option<String> = r.try_get(9)?;
    let game_id: Option<String> = r.try_get(13)?;
    let seat: Option<i32> = r.try_get(14)?;
    Ok(PoolEntry {
        id: r.try_get(0)?,
        token_hash: r.try_get(1)?,
        pool: r.try_get(2)?,
        game: r.try_get(3)?,
        options: r.try_get(4)?,
        clock: r.try_get(5)?,
        rated: r.try_get(6)?,
        owner: r.try_get(7)?,
        account: account_id.zip(account_name).map(|(id, name)| crate::ratings::SeatAccount { id, name, bot: false }),
        rating: r.try_get(10)?,
        created: r.try_get(11)?,
        seen: r.try_get(12)?,
        paired: game_id.zip(seat.and_then(|s| usize::try_from(s).ok())),
    })
}

/// A stored rating range (`[min, max]`), if readable.
pub(crate) fn range_from_text(text: Option<&str>) -> Option<(i64, i64)> {
    let [min, max]: [i64; 2] = serde_json::from_str(text?).ok()?;
    Some((min, max))
}

/// A rating range as stored.
pub(crate) fn range_text(range: Option<(i64, i64)>) -> Option<String> {
    range.map(|(min, max)| format!("[{min},{max}]"))
}

/// Reads a loaded game's rating range (SQLite, in the load's snapshot).
pub(crate) fn sqlite_range(conn: &rusqlite::Connection, id: &str) -> Result<Option<(i64, i64)>, StoreError> {
    let text: Option<String> =
        conn.query_row("SELECT rating_range FROM games WHERE id = ?1", params![id], |r| r.get(0)).optional()?.flatten();
    Ok(range_from_text(text.as_deref()))
}

/// The same on PostgreSQL.
pub(crate) async fn postgres_range(
    tx: &deadpool_postgres::Transaction<'_>,
    id: &str,
) -> Result<Option<(i64, i64)>, StoreError> {
    let row = tx.query_opt("SELECT rating_range FROM games WHERE id = $1", &[&id]).await?;
    let text: Option<String> = match row {
        Some(r) => r.try_get(0)?,
        None => None,
    };
    Ok(range_from_text(text.as_deref()))
}

/// A lobby game's details beyond its row: the rating range, and each seat held by an account
/// with that account's name and stored ratings in the game's type (every speed).
#[derive(Clone, Debug, Default)]
pub struct LobbyDetails {
    /// Per game id: its rating range.
    pub ranges: std::collections::HashMap<String, (i64, i64)>,
    /// (game id, seat, account name, speed, stored rating) for every seat held by an account
    /// (speed and rating `None` when the account has no rating in that game type).
    pub players: Vec<LobbyPlayer>,
}

/// A seat held by an account in a lobby game.
#[derive(Clone, Debug)]
pub struct LobbyPlayer {
    /// The game's id.
    pub game_id: String,
    /// The seat.
    pub seat: usize,
    /// The account's name (public).
    pub name: String,
    /// Is the account a bot's (the lobby marks it)?
    pub bot: bool,
    /// The account's stored rating in the game's type at one speed (that speed first), if any.
    pub stored: Option<(String, crate::ratings::StoredRating)>,
}

const DETAILS_QUERY: &str =
    "SELECT g.id, p.seat, a.name, r.speed, r.rating, r.rd, r.volatility, r.games, r.updated, a.bot
    FROM games g JOIN game_players p ON p.game_id = g.id JOIN accounts a ON a.id = p.account_id
    LEFT JOIN ratings r ON r.account_id = a.id AND r.game = g.game
    WHERE g.id = ANY($1)";

impl Store {
    /// The rating ranges and seated accounts (with their ratings) of the games `ids`.
    pub async fn lobby_details(&self, ids: &[String]) -> Result<LobbyDetails, StoreError> {
        let ids = ids.to_vec();
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_reader(|conn| {
                        let mut details = LobbyDetails::default();
                        let mut range = conn.prepare("SELECT rating_range FROM games WHERE id = ?1")?;
                        let query = DETAILS_QUERY.replace("= ANY($1)", "= ?1");
                        let mut players = conn.prepare(&query)?;
                        for id in &ids {
                            let text: Option<String> = range.query_row(params![id], |r| r.get(0)).optional()?.flatten();
                            if let Some(found) = range_from_text(text.as_deref()) {
                                details.ranges.insert(id.clone(), found);
                            }
                            let rows = players.query_map(params![id], |r| {
                                let speed: Option<String> = r.get(3)?;
                                let stored = match speed {
                                    Some(speed) => Some((
                                        speed,
                                        crate::ratings::StoredRating {
                                            rating: tabletop::rating::Rating {
                                                rating: r.get(4)?,
                                                deviation: r.get(5)?,
                                                volatility: r.get(6)?,
                                            },
                                            games: r.get(7)?,
                                            updated: r.get(8)?,
                                        },
                                    )),
                                    None => None,
                                };
                                let bot: bool = r.get(9)?;
                                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?, bot, stored))
                            })?;
                            for row in rows {
                                let (game_id, seat, name, bot, stored) = row?;
                                if let Ok(seat) = usize::try_from(seat) {
                                    details.players.push(LobbyPlayer { game_id, seat, name, bot, stored });
                                }
                            }
                        }
                        Ok(details)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let mut details = LobbyDetails::default();
                for r in client.query("SELECT id, rating_range FROM games WHERE id = ANY($1)", &[&ids]).await? {
                    let text: Option<String> = r.try_get(1)?;
                    if let Some(found) = range_from_text(text.as_deref()) {
                        details.ranges.insert(r.try_get(0)?, found);
                    }
                }
                for r in client.query(DETAILS_QUERY, &[&ids]).await? {
                    let speed: Option<String> = r.try_get(3)?;
                    let stored = match speed {
                        Some(speed) => Some((
                            speed,
                            crate::ratings::StoredRating {
                                rating: tabletop::rating::Rating {
                                    rating: r.try_get(4)?,
                                    deviation: r.try_get(5)?,
                                    volatility: r.try_get(6)?,
                                },
                                games: r.try_get::<_, i32>(7)?.into(),
                                updated: r.try_get(8)?,
                            },
                        )),
                        None => None,
                    };
                    let seat: i32 = r.try_get(1)?;
                    if let Ok(seat) = usize::try_from(seat) {
                        details.players.push(LobbyPlayer {
                            game_id: r.try_get(0)?,
                            seat,
                            name: r.try_get(2)?,
                            bot: r.try_get(9)?,
                            stored,
                        });
                    }
                }
                Ok(details)
            }
        }
    }

    /// Stores a new pool entry with its secret's hash, unless its owner already has `cap`
    /// waiting entries (answers `false` then).
    pub async fn pool_enter(&self, entry: &PoolEntry, secret_hash: &str, cap: usize) -> Result<bool, StoreError> {
        let cap = i64::try_from(cap).unwrap_or(i64::MAX);
        let (account_id, account_name) = match &entry.account {
            Some(a) => (Some(a.id.clone()), Some(a.name.clone())),
            None => (None, None),
        };
        match self {
            Store::Sqlite(s) => {
                let (s, e, secret_hash) = (s.clone(), entry.clone(), secret_hash.to_string());
                blocking(move || {
                    s.with_writer(|conn| {
                        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                        let waiting: i64 = tx.query_row(
                            "SELECT COUNT(*) FROM pool_entries WHERE owner = ?1 AND game_id IS NULL",
                            params![e.owner],
                            |r| r.get(0),
                        )?;
                        if waiting >= cap {
                            return Ok(false);
                        }
                        tx.execute(
                            &format!(
                                "INSERT INTO pool_entries (secret_hash, {ENTRY_COLUMNS})
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, NULL, NULL)"
                            ),
                            params![
                                secret_hash,
                                e.id,
                                e.token_hash,
                                e.pool,
                                e.game,
                                e.options,
                                e.clock,
                                e.rated,
                                e.owner,
                                account_id,
                                account_name,
                                e.rating,
                                e.created,
                                e.seen
                            ],
                        )?;
                        tx.commit()?;
                        Ok(true)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let e = entry;
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                // Two entries of one owner at once, in two processes: counted one after the other.
                tx.execute("SELECT pg_advisory_xact_lock(727391, hashtext($1))", &[&e.owner]).await?;
                let waiting: i64 = tx
                    .query_one("SELECT COUNT(*) FROM pool_entries WHERE owner = $1 AND game_id IS NULL", &[&e.owner])
                    .await?
                    .try_get(0)?;
                if waiting >= cap {
                    return Ok(false);
                }
                tx.execute(
                    &format!(
                        "INSERT INTO pool_entries (secret_hash, {ENTRY_COLUMNS})
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, NULL, NULL)"
                    ),
                    &[
                        &secret_hash,
                        &e.id,
                        &e.token_hash,
                        &e.pool,
                        &e.game,
                        &e.options,
                        &e.clock,
                        &e.rated,
                        &e.owner,
                        &account_id,
                        &account_name,
                        &e.rating,
                        &e.created,
                        &e.seen,
                    ],
                )
                .await?;
                tx.commit().await?;
                Ok(true)
            }
        }
    }

    /// The entry `id` if `secret_hash` is its secret's, marked seen at `now` (ms).
    pub async fn pool_poll(&self, id: &str, secret_hash: &str, now: i64) -> Result<Option<PoolEntry>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id, secret_hash) = (s.clone(), id.to_string(), secret_hash.to_string());
                blocking(move || {
                    s.with_writer(|conn| {
                        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                        tx.execute(
                            "UPDATE pool_entries SET seen = ?3 WHERE id = ?1 AND secret_hash = ?2",
                            params![id, secret_hash, now],
                        )?;
                        let entry = tx
                            .query_row(
                                &format!("SELECT {ENTRY_COLUMNS} FROM pool_entries WHERE id = ?1 AND secret_hash = ?2"),
                                params![id, secret_hash],
                                entry_from_sqlite,
                            )
                            .optional()?;
                        tx.commit()?;
                        Ok(entry)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let row = client
                    .query_opt(
                        &format!(
                            "UPDATE pool_entries SET seen = $3 WHERE id = $1 AND secret_hash = $2 RETURNING {ENTRY_COLUMNS}"
                        ),
                        &[&id, &secret_hash, &now],
                    )
                    .await?;
                row.as_ref().map(entry_from_postgres).transpose()
            }
        }
    }

    /// Leaves the pool: deletes the entry if it is still waiting.
    pub async fn pool_leave(&self, id: &str, secret_hash: &str) -> Result<Leave, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id, secret_hash) = (s.clone(), id.to_string(), secret_hash.to_string());
                blocking(move || {
                    s.with_writer(|conn| {
                        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                        let entry = tx
                            .query_row(
                                &format!("SELECT {ENTRY_COLUMNS} FROM pool_entries WHERE id = ?1 AND secret_hash = ?2"),
                                params![id, secret_hash],
                                entry_from_sqlite,
                            )
                            .optional()?;
                        let answer = match entry {
                            None => Leave::Missing,
                            Some(entry) if entry.paired.is_some() => Leave::Paired(Box::new(entry)),
                            Some(_) => {
                                tx.execute("DELETE FROM pool_entries WHERE id = ?1", params![id])?;
                                Leave::Left
                            }
                        };
                        tx.commit()?;
                        Ok(answer)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                // The row lock waits for a wave holding it; then the entry is seen as it left it.
                let row = tx
                    .query_opt(
                        &format!(
                            "SELECT {ENTRY_COLUMNS} FROM pool_entries WHERE id = $1 AND secret_hash = $2 FOR UPDATE"
                        ),
                        &[&id, &secret_hash],
                    )
                    .await?;
                let answer = match row.as_ref().map(entry_from_postgres).transpose()? {
                    None => Leave::Missing,
                    Some(entry) if entry.paired.is_some() => Leave::Paired(Box::new(entry)),
                    Some(_) => {
                        tx.execute("DELETE FROM pool_entries WHERE id = $1", &[&id]).await?;
                        Leave::Left
                    }
                };
                tx.commit().await?;
                Ok(answer)
            }
        }
    }

    /// One wave: forgets waiting entries not seen since `stale_before` and paired ones entered
    /// before `old_before` (ms), reads the waiting ones (oldest first), lets `pair` choose the
    /// pairs, and marks them paired in the same transaction; answers the pairs made. An entry is
    /// paired at most once, whatever other processes do at the same moment.
    pub async fn pool_wave(
        &self,
        stale_before: i64,
        old_before: i64,
        pair: impl FnOnce(Vec<PoolEntry>) -> Vec<Pair> + Send + 'static,
    ) -> Result<Vec<Pair>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_writer(|conn| {
                        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                        tx.execute(
                            "DELETE FROM pool_entries WHERE (game_id IS NULL AND seen < ?1) OR created < ?2",
                            params![stale_before, old_before],
                        )?;
                        let waiting = {
                            let mut statement = tx.prepare(&format!(
                                "SELECT {ENTRY_COLUMNS} FROM pool_entries WHERE game_id IS NULL ORDER BY created, id"
                            ))?;
                            let rows = statement.query_map([], entry_from_sqlite)?;
                            rows.collect::<Result<Vec<_>, _>>()?
                        };
                        let pairs = pair(waiting);
                        for (game_id, entries) in &pairs {
                            for (seat, entry) in entries.iter().enumerate() {
                                let claimed = tx.execute(
                                    "UPDATE pool_entries SET game_id = ?2, seat = ?3 WHERE id = ?1 AND game_id IS NULL",
                                    params![entry.id, game_id, seat as i64],
                                )?;
                                if claimed != 1 {
                                    return Err(StoreError::Stale);
                                }
                            }
                        }
                        tx.commit()?;
                        Ok(pairs)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&WAVE_LOCK]).await?;
                tx.execute(
                    "DELETE FROM pool_entries WHERE (game_id IS NULL AND seen < $1) OR created < $2",
                    &[&stale_before, &old_before],
                )
                .await?;
                let rows = tx
                    .query(
                        &format!(
                            "SELECT {ENTRY_COLUMNS} FROM pool_entries WHERE game_id IS NULL ORDER BY created, id FOR UPDATE"
                        ),
                        &[],
                    )
                    .await?;
                let waiting = rows.iter().map(entry_from_postgres).collect::<Result<Vec<_>, _>>()?;
                let pairs = pair(waiting);
                for (game_id, entries) in &pairs {
                    for (seat, entry) in entries.iter().enumerate() {
                        let seat = seat as i32;
                        let claimed = tx
                            .execute(
                                "UPDATE pool_entries SET game_id = $2, seat = $3 WHERE id = $1 AND game_id IS NULL",
                                &[&entry.id, &game_id, &seat],
                            )
                            .await?;
                        if claimed != 1 {
                            return Err(StoreError::Stale);
                        }
                    }
                }
                tx.commit().await?;
                Ok(pairs)
            }
        }
    }

    /// Puts the entries paired into game `game_id` back to waiting (the game could not be made).
    pub async fn pool_unpair(&self, game_id: &str) -> Result<(), StoreError> {
        let query = "UPDATE pool_entries SET game_id = NULL, seat = NULL WHERE game_id = $1";
        match self {
            Store::Sqlite(s) => {
                let (s, id) = (s.clone(), game_id.to_string());
                blocking(move || {
                    s.with_writer(|conn| {
                        conn.execute(&query.replace("$1", "?1"), params![id])?;
                        Ok(())
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                s.client().await?.execute(query, &[&game_id]).await?;
                Ok(())
            }
        }
    }
}
