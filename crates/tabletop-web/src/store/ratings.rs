//! Seats' accounts and ratings in the database (schema step 8, both backends):
//! `game_players` (a seat held by an account: game, seat, account), `games.rated`, `ratings`
//! (per account, game type and speed: rating, deviation, volatility, games, last game) and
//! `rating_changes` (per rated game and seat: before and after; the account set to NULL when
//! it is deleted). A rated game's ratings are applied in the transaction that bumps its
//! version ([`Store::rate_game`]), at most once per game: the version check serialises the
//! processes, and `rating_changes`' key (game, seat) refuses a second time.

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use tabletop::rating::Rating;

use super::{blocking, GameRow, Store, StoreError};
use crate::ratings::{RatingChange, RatingJob, SeatAccount, StoredRating};

/// Schema step 8 (SQLite's dialect).
pub(crate) const SQLITE_STEP: &str = "ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE game_players (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX game_players_by_account ON game_players(account_id, game_id);
    CREATE TABLE ratings (
        account_id TEXT NOT NULL,
        game TEXT NOT NULL,
        speed TEXT NOT NULL,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL,
        updated INTEGER NOT NULL,
        PRIMARY KEY (account_id, game, speed)
    );
    CREATE TABLE rating_changes (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        account_id TEXT,
        game TEXT NOT NULL,
        speed TEXT NOT NULL,
        score REAL NOT NULL,
        rating_before REAL NOT NULL,
        rd_before REAL NOT NULL,
        volatility_before REAL NOT NULL,
        rating_after REAL NOT NULL,
        rd_after REAL NOT NULL,
        volatility_after REAL NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX rating_changes_by_account ON rating_changes(account_id);";

/// Schema step 8 (PostgreSQL's dialect).
pub(crate) fn postgres_step() -> String {
    SQLITE_STEP
        .replace("rated INTEGER NOT NULL DEFAULT 0", "rated BOOLEAN NOT NULL DEFAULT FALSE")
        .replace(" REAL ", " DOUBLE PRECISION ")
        .replace("updated INTEGER", "updated BIGINT")
        .replace(" at INTEGER", " at BIGINT")
}

const CHANGE_COLUMNS: &str = "seat, account_id, game, speed, score, rating_before, rd_before, volatility_before,
    rating_after, rd_after, volatility_after, at";

fn change_from_sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<RatingChange> {
    Ok(RatingChange {
        seat: r.get::<_, i64>(0)? as usize,
        account_id: r.get(1)?,
        game: r.get(2)?,
        speed: r.get(3)?,
        score: r.get(4)?,
        before: Rating { rating: r.get(5)?, deviation: r.get(6)?, volatility: r.get(7)? },
        after: Rating { rating: r.get(8)?, deviation: r.get(9)?, volatility: r.get(10)? },
        at: r.get(11)?,
    })
}

fn change_from_postgres(r: &tokio_postgres::Row) -> Result<RatingChange, StoreError> {
    Ok(RatingChange {
        seat: r.try_get::<_, i32>(0)? as usize,
        account_id: r.try_get(1)?,
        game: r.try_get(2)?,
        speed: r.try_get(3)?,
        score: r.try_get(4)?,
        before: Rating { rating: r.try_get(5)?, deviation: r.try_get(6)?, volatility: r.try_get(7)? },
        after: Rating { rating: r.try_get(8)?, deviation: r.try_get(9)?, volatility: r.try_get(10)? },
        at: r.try_get(11)?,
    })
}

/// Fills a loaded row's seats' accounts, `rated` and rating changes (SQLite, in the load's
/// snapshot).
pub(crate) fn sqlite_extras(conn: &rusqlite::Connection, row: &mut GameRow) -> Result<(), StoreError> {
    row.rated = conn.query_row("SELECT rated FROM games WHERE id = ?1", params![row.id], |r| r.get(0))?;
    let mut players = conn.prepare(
        "SELECT p.seat, a.id, a.name, a.bot FROM game_players p JOIN accounts a ON a.id = p.account_id WHERE p.game_id = ?1",
    )?;
    let linked = players
        .query_map(params![row.id], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, bool>(3)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    for (seat, id, name, bot) in linked {
        if let Some(slot) = usize::try_from(seat).ok().and_then(|s| row.accounts.get_mut(s)) {
            *slot = Some(SeatAccount { id, name, bot });
        }
    }
    if row.rated {
        let mut changes =
            conn.prepare(&format!("SELECT {CHANGE_COLUMNS} FROM rating_changes WHERE game_id = ?1 ORDER BY seat"))?;
        row.rating_changes = changes.query_map(params![row.id], change_from_sqlite)?.collect::<Result<_, _>>()?;
    }
    Ok(())
}

/// The same for PostgreSQL, in the load's transaction.
pub(crate) async fn postgres_extras(
    tx: &deadpool_postgres::Transaction<'_>,
    row: &mut GameRow,
) -> Result<(), StoreError> {
    row.rated = tx.query_one("SELECT rated FROM games WHERE id = $1", &[&row.id]).await?.try_get(0)?;
    let linked = tx
        .query(
            "SELECT p.seat, a.id, a.name, a.bot FROM game_players p JOIN accounts a ON a.id = p.account_id WHERE p.game_id = $1",
            &[&row.id],
        )
        .await?;
    for r in linked {
        let seat: i32 = r.try_get(0)?;
        if let Some(slot) = usize::try_from(seat).ok().and_then(|s| row.accounts.get_mut(s)) {
            *slot = Some(SeatAccount { id: r.try_get(1)?, name: r.try_get(2)?, bot: r.try_get(3)? });
        }
    }
    if row.rated {
        let query = format!("SELECT {CHANGE_COLUMNS} FROM rating_changes WHERE game_id = $1 ORDER BY seat");
        row.rating_changes =
            tx.query(&query, &[&row.id]).await?.iter().map(change_from_postgres).collect::<Result<_, _>>()?;
    }
    Ok(())
}

/// Stores a game's seats' accounts (all of them, replacing what was) on SQLite.
pub(crate) fn sqlite_set_players(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    accounts: &[Option<SeatAccount>],
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM game_players WHERE game_id = ?1", params![id])?;
    for (seat, account) in accounts.iter().enumerate() {
        if let Some(account) = account {
            tx.execute(
                "INSERT INTO game_players (game_id, seat, account_id) VALUES (?1, ?2, ?3)",
                params![id, seat as i64, account.id],
            )?;
        }
    }
    Ok(())
}

/// The same on PostgreSQL.
pub(crate) async fn postgres_set_players(
    tx: &deadpool_postgres::Transaction<'_>,
    id: &str,
    accounts: &[Option<SeatAccount>],
) -> Result<(), StoreError> {
    tx.execute("DELETE FROM game_players WHERE game_id = $1", &[&id]).await?;
    for (seat, account) in accounts.iter().enumerate() {
        if let Some(account) = account {
            let seat = seat as i32;
            tx.execute(
                "INSERT INTO game_players (game_id, seat, account_id) VALUES ($1, $2, $3)",
                &[&id, &seat, &account.id],
            )
            .await?;
        }
    }
    Ok(())
}

/// An account's ratings, per game type and speed.
pub type PlayerRatings = Vec<(String, String, StoredRating)>;

impl Store {
    /// Applies a rated game's end to its players' ratings if the game is still at version
    /// `expected` and was never rated: one transaction that bumps the version, reads and locks
    /// the players' ratings, stores the new ones and each seat's change. Answers the new
    /// version and the changes, or [`StoreError::Stale`] (another write, perhaps another
    /// process's rating, came first).
    pub async fn rate_game(
        &self,
        id: &str,
        expected: i64,
        job: &RatingJob,
    ) -> Result<(i64, Vec<RatingChange>), StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id, job) = (s.clone(), id.to_string(), job.clone());
                blocking(move || {
                    s.with_writer(|conn| {
                        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                        let bumped = tx.execute(
                            "UPDATE games SET version = version + 1 WHERE id = ?1 AND version = ?2",
                            params![id, expected],
                        )?;
                        let done: bool = tx.query_row(
                            "SELECT EXISTS (SELECT 1 FROM rating_changes WHERE game_id = ?1)",
                            params![id],
                            |r| r.get(0),
                        )?;
                        if bumped != 1 || done {
                            return Err(StoreError::Stale);
                        }
                        let mut stored = Vec::new();
                        for (_, account) in &job.seats {
                            stored.push(
                                tx.query_row(
                                    "SELECT rating, rd, volatility, games, updated FROM ratings
                                     WHERE account_id = ?1 AND game = ?2 AND speed = ?3",
                                    params![account, job.game, job.speed],
                                    |r| {
                                        Ok(StoredRating {
                                            rating: Rating {
                                                rating: r.get(0)?,
                                                deviation: r.get(1)?,
                                                volatility: r.get(2)?,
                                            },
                                            games: r.get(3)?,
                                            updated: r.get(4)?,
                                        })
                                    },
                                )
                                .optional()?,
                            );
                        }
                        let computed = crate::ratings::compute(&job, &stored);
                        for (change, after) in &computed {
                            tx.execute(
                                "INSERT INTO ratings (account_id, game, speed, rating, rd, volatility, games, updated)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                                 ON CONFLICT (account_id, game, speed) DO UPDATE SET rating = ?4, rd = ?5,
                                    volatility = ?6, games = ?7, updated = ?8",
                                params![
                                    change.account_id,
                                    job.game,
                                    job.speed,
                                    after.rating.rating,
                                    after.rating.deviation,
                                    after.rating.volatility,
                                    after.games,
                                    after.updated
                                ],
                            )?;
                            tx.execute(
                                &format!(
                                    "INSERT INTO rating_changes (game_id, {CHANGE_COLUMNS})
                                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                                ),
                                params![
                                    id,
                                    change.seat as i64,
                                    change.account_id,
                                    change.game,
                                    change.speed,
                                    change.score,
                                    change.before.rating,
                                    change.before.deviation,
                                    change.before.volatility,
                                    change.after.rating,
                                    change.after.deviation,
                                    change.after.volatility,
                                    change.at
                                ],
                            )?;
                        }
                        tx.commit()?;
                        Ok((expected + 1, computed.into_iter().map(|(c, _)| c).collect()))
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                // The row lock taken here serialises every writer of this game until commit.
                let bumped = tx
                    .execute("UPDATE games SET version = version + 1 WHERE id = $1 AND version = $2", &[&id, &expected])
                    .await?;
                let done: bool = tx
                    .query_one("SELECT EXISTS (SELECT 1 FROM rating_changes WHERE game_id = $1)", &[&id])
                    .await?
                    .try_get(0)?;
                if bumped != 1 || done {
                    return Err(StoreError::Stale);
                }
                // The players' rating rows exist and are locked in one order (by account), so
                // two games ending at once for one player are applied one after the other.
                let mut order: Vec<&String> = job.seats.iter().map(|(_, a)| a).collect();
                order.sort();
                for account in &order {
                    tx.execute(
                        "SELECT pg_advisory_xact_lock(727386, hashtext($1))",
                        &[&format!("{account} {} {}", job.game, job.speed)],
                    )
                    .await?;
                }
                let mut stored = Vec::new();
                for (_, account) in &job.seats {
                    let row = tx
                        .query_opt(
                            "SELECT rating, rd, volatility, games, updated FROM ratings
                             WHERE account_id = $1 AND game = $2 AND speed = $3",
                            &[account, &job.game, &job.speed],
                        )
                        .await?;
                    stored.push(match row {
                        Some(r) => Some(StoredRating {
                            rating: Rating {
                                rating: r.try_get(0)?,
                                deviation: r.try_get(1)?,
                                volatility: r.try_get(2)?,
                            },
                            games: r.try_get::<_, i32>(3)?.into(),
                            updated: r.try_get(4)?,
                        }),
                        None => None,
                    });
                }
                let computed = crate::ratings::compute(job, &stored);
                for (change, after) in &computed {
                    let games = i32::try_from(after.games).unwrap_or(i32::MAX);
                    tx.execute(
                        "INSERT INTO ratings (account_id, game, speed, rating, rd, volatility, games, updated)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                         ON CONFLICT (account_id, game, speed) DO UPDATE SET rating = $4, rd = $5,
                            volatility = $6, games = $7, updated = $8",
                        &[
                            &change.account_id,
                            &job.game,
                            &job.speed,
                            &after.rating.rating,
                            &after.rating.deviation,
                            &after.rating.volatility,
                            &games,
                            &after.updated,
                        ],
                    )
                    .await?;
                    let seat = change.seat as i32;
                    tx.execute(
                        &format!(
                            "INSERT INTO rating_changes (game_id, {CHANGE_COLUMNS})
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
                        ),
                        &[
                            &id,
                            &seat,
                            &change.account_id,
                            &change.game,
                            &change.speed,
                            &change.score,
                            &change.before.rating,
                            &change.before.deviation,
                            &change.before.volatility,
                            &change.after.rating,
                            &change.after.deviation,
                            &change.after.volatility,
                            &change.at,
                        ],
                    )
                    .await?;
                }
                tx.commit().await?;
                Ok((expected + 1, computed.into_iter().map(|(c, _)| c).collect()))
            }
        }
    }

    /// An account's ratings: (game, speed, rating), by game and speed.
    pub async fn ratings_of(&self, account_id: &str) -> Result<PlayerRatings, StoreError> {
        let id = account_id.to_string();
        let query = "SELECT game, speed, rating, rd, volatility, games, updated FROM ratings
                     WHERE account_id = $1 ORDER BY game, speed";
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_reader(|conn| {
                        let mut statement = conn.prepare(&query.replace("$1", "?1"))?;
                        let rows = statement.query_map(params![id], |r| {
                            Ok((
                                r.get(0)?,
                                r.get(1)?,
                                StoredRating {
                                    rating: Rating { rating: r.get(2)?, deviation: r.get(3)?, volatility: r.get(4)? },
                                    games: r.get(5)?,
                                    updated: r.get(6)?,
                                },
                            ))
                        })?;
                        Ok(rows.collect::<Result<_, _>>()?)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let mut out = Vec::new();
                for r in client.query(query, &[&id]).await? {
                    out.push((
                        r.try_get(0)?,
                        r.try_get(1)?,
                        StoredRating {
                            rating: Rating {
                                rating: r.try_get(2)?,
                                deviation: r.try_get(3)?,
                                volatility: r.try_get(4)?,
                            },
                            games: r.try_get::<_, i32>(5)?.into(),
                            updated: r.try_get(6)?,
                        },
                    ));
                }
                Ok(out)
            }
        }
    }

    /// The ids of the games an account holds a seat in, newest first, at most `limit`.
    pub async fn games_of(&self, account_id: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        let id = account_id.to_string();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_reader(|conn| {
                        let mut statement = conn.prepare(
                            "SELECT DISTINCT g.id, g.created, g.rowid FROM game_players p JOIN games g ON g.id = p.game_id
                             WHERE p.account_id = ?1 ORDER BY g.created DESC, g.rowid DESC LIMIT ?2",
                        )?;
                        let rows = statement.query_map(params![id, limit], |r| r.get(0))?;
                        Ok(rows.collect::<Result<_, _>>()?)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let rows = client
                    .query(
                        "SELECT DISTINCT g.id, g.created, g.seq FROM game_players p JOIN games g ON g.id = p.game_id
                         WHERE p.account_id = $1 ORDER BY g.created DESC, g.seq DESC LIMIT $2",
                        &[&id, &limit],
                    )
                    .await?;
                Ok(rows.iter().map(|r| r.get(0)).collect())
            }
        }
    }
}

/// Forgets an account's seats and ratings (its games stay, their seats anonymous; its rating
/// changes stay without it) and bumps those games' versions, so every process reloads them;
/// answers their ids. SQLite, in the deleting transaction.
pub(crate) fn sqlite_anonymise(tx: &rusqlite::Transaction<'_>, account_id: &str) -> Result<Vec<String>, StoreError> {
    let mut statement = tx.prepare("SELECT DISTINCT game_id FROM game_players WHERE account_id = ?1")?;
    let games: Vec<String> = statement.query_map(params![account_id], |r| r.get(0))?.collect::<Result<_, _>>()?;
    drop(statement);
    tx.execute(
        "UPDATE games SET version = version + 1 WHERE id IN (SELECT game_id FROM game_players WHERE account_id = ?1)",
        params![account_id],
    )?;
    tx.execute("DELETE FROM game_players WHERE account_id = ?1", params![account_id])?;
    tx.execute("DELETE FROM ratings WHERE account_id = ?1", params![account_id])?;
    tx.execute("UPDATE rating_changes SET account_id = NULL WHERE account_id = ?1", params![account_id])?;
    Ok(games)
}

/// The same on PostgreSQL.
pub(crate) async fn postgres_anonymise(
    tx: &deadpool_postgres::Transaction<'_>,
    account_id: &str,
) -> Result<Vec<String>, StoreError> {
    let games = tx
        .query(
            "UPDATE games SET version = version + 1
             WHERE id IN (SELECT game_id FROM game_players WHERE account_id = $1) RETURNING id",
            &[&account_id],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    tx.execute("DELETE FROM game_players WHERE account_id = $1", &[&account_id]).await?;
    tx.execute("DELETE FROM ratings WHERE account_id = $1", &[&account_id]).await?;
    tx.execute("UPDATE rating_changes SET account_id = NULL WHERE account_id = $1", &[&account_id]).await?;
    Ok(games)
}

/// One point of a player's rating graph: after the rated game `game_id` ended at `at`
/// (seconds since the Unix epoch), the rating and deviation in `game` at `speed`.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryPoint {
    /// The game type.
    pub game: String,
    /// The speed category.
    pub speed: String,
    /// The rated game's id.
    pub game_id: String,
    /// When it ended.
    pub at: i64,
    /// The rating after it.
    pub rating: f64,
    /// The deviation after it.
    pub deviation: f64,
}

impl Store {
    /// An account's rating after each of its rated games, oldest first: its newest `limit`
    /// (the graph of a player's page).
    pub async fn rating_history(&self, account_id: &str, limit: usize) -> Result<Vec<HistoryPoint>, StoreError> {
        let id = account_id.to_string();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        // Games ended in one second are ordered as they were made (`seq` on PostgreSQL, the
        // row id on SQLite), not by their random ids.
        let query = "SELECT c.game, c.speed, c.game_id, c.at, c.rating_after, c.rd_after
                     FROM rating_changes c JOIN games g ON g.id = c.game_id
                     WHERE c.account_id = $1 ORDER BY c.at DESC, g.created DESC, g.seq DESC LIMIT $2";
        let mut points = match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_reader(|conn| {
                        let query = query.replace("$1", "?1").replace("$2", "?2").replace("g.seq", "g.rowid");
                        let mut statement = conn.prepare(&query)?;
                        let rows = statement.query_map(params![id, limit], |r| {
                            Ok(HistoryPoint {
                                game: r.get(0)?,
                                speed: r.get(1)?,
                                game_id: r.get(2)?,
                                at: r.get(3)?,
                                rating: r.get(4)?,
                                deviation: r.get(5)?,
                            })
                        })?;
                        Ok(rows.collect::<Result<Vec<_>, _>>()?)
                    })
                })
                .await?
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let mut out = Vec::new();
                for r in client.query(query, &[&id, &limit]).await? {
                    out.push(HistoryPoint {
                        game: r.try_get(0)?,
                        speed: r.try_get(1)?,
                        game_id: r.try_get(2)?,
                        at: r.try_get(3)?,
                        rating: r.try_get(4)?,
                        deviation: r.try_get(5)?,
                    });
                }
                out
            }
        };
        points.reverse();
        Ok(points)
    }
}
