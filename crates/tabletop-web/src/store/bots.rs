//! Bot accounts in the database (one schema step, both backends): `accounts.bot` (an account
//! made a bot, for good), `api_tokens` (the SHA-256 of each bot's API token: one per account, a
//! new one replaces it) and `challenges` (a game's seat reserved for a bot account, listed to the
//! bot until it takes the seat or the game is over; the reservation itself is in the seat's
//! invitation, [`super::StoredInvite::reserved`]). The tables are made `IF NOT EXISTS`: a database
//! taken back to an earlier step by hand (as the migration tests do) keeps them, harmlessly.

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::accounts::{read_sqlite, write_sqlite};
use super::{Store, StoreError};

/// The schema step (SQLite's dialect).
pub(crate) const SQLITE_STEP: &str = "ALTER TABLE accounts ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE IF NOT EXISTS api_tokens (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        created INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS api_tokens_by_account ON api_tokens(account_id);
    CREATE TABLE IF NOT EXISTS challenges (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        created INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX IF NOT EXISTS challenges_by_account ON challenges(account_id, created);";

/// The schema step (PostgreSQL's dialect).
pub(crate) const POSTGRES_STEP: &str = "ALTER TABLE accounts ADD COLUMN bot BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE TABLE IF NOT EXISTS api_tokens (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        created BIGINT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS api_tokens_by_account ON api_tokens(account_id);
    CREATE TABLE IF NOT EXISTS challenges (
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        created BIGINT NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX IF NOT EXISTS challenges_by_account ON challenges(account_id, created);";

impl Store {
    /// Makes an account a bot, if it is one already or has held no seat in any game (a bot's
    /// record starts empty, as lichess asks). `false` when it has played.
    pub async fn make_bot(&self, account_id: &str) -> Result<bool, StoreError> {
        let id = account_id.to_string();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let changed = conn.execute(
                        "UPDATE accounts SET bot = 1 WHERE id = ?1
                         AND (bot = 1 OR NOT EXISTS (SELECT 1 FROM game_players WHERE account_id = ?1))",
                        params![id],
                    )?;
                    Ok(changed == 1)
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let changed = client
                    .execute(
                        "UPDATE accounts SET bot = TRUE WHERE id = $1
                         AND (bot OR NOT EXISTS (SELECT 1 FROM game_players WHERE account_id = $1))",
                        &[&id],
                    )
                    .await?;
                Ok(changed == 1)
            }
        }
    }

    /// Is the account a bot?
    pub async fn account_is_bot(&self, account_id: &str) -> Result<bool, StoreError> {
        let id = account_id.to_string();
        match self {
            Store::Sqlite(s) => {
                read_sqlite(s, move |conn| {
                    let bot: Option<bool> = conn
                        .query_row("SELECT bot FROM accounts WHERE id = ?1", params![id], |r| r.get(0))
                        .optional()?;
                    Ok(bot.unwrap_or(false))
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let row = client.query_opt("SELECT bot FROM accounts WHERE id = $1", &[&id]).await?;
                Ok(match row {
                    Some(row) => row.try_get(0)?,
                    None => false,
                })
            }
        }
    }

    /// Stores the hash of a bot's new API token, ending the one it had (one token per account).
    pub async fn set_api_token(&self, account_id: &str, token_hash: &str, now: i64) -> Result<(), StoreError> {
        let (id, hash) = (account_id.to_string(), token_hash.to_string());
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    tx.execute("DELETE FROM api_tokens WHERE account_id = ?1", params![id])?;
                    tx.execute(
                        "INSERT INTO api_tokens (token_hash, account_id, created) VALUES (?1, ?2, ?3)",
                        params![hash, id, now],
                    )?;
                    tx.commit()?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                tx.execute("DELETE FROM api_tokens WHERE account_id = $1", &[&id]).await?;
                tx.execute(
                    "INSERT INTO api_tokens (token_hash, account_id, created) VALUES ($1, $2, $3)",
                    &[&hash, &id, &now],
                )
                .await?;
                tx.commit().await?;
                Ok(())
            }
        }
    }

    /// Ends an account's API token (and forgets its challenges when `challenges_too`: the
    /// account is being deleted); answers how many tokens ended.
    pub async fn revoke_api_tokens(&self, account_id: &str, challenges_too: bool) -> Result<u64, StoreError> {
        let id = account_id.to_string();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let ended = conn.execute("DELETE FROM api_tokens WHERE account_id = ?1", params![id])?;
                    if challenges_too {
                        conn.execute("DELETE FROM challenges WHERE account_id = ?1", params![id])?;
                    }
                    Ok(ended as u64)
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let ended = client.execute("DELETE FROM api_tokens WHERE account_id = $1", &[&id]).await?;
                if challenges_too {
                    client.execute("DELETE FROM challenges WHERE account_id = $1", &[&id]).await?;
                }
                Ok(ended)
            }
        }
    }

    /// The bot account (id, name) whose API token hashes to `token_hash`, if any.
    pub async fn account_by_api_token(&self, token_hash: &str) -> Result<Option<(String, String)>, StoreError> {
        let hash = token_hash.to_string();
        let query = "SELECT a.id, a.name FROM api_tokens t JOIN accounts a ON a.id = t.account_id
                     WHERE t.token_hash = $1 AND a.bot";
        match self {
            Store::Sqlite(s) => {
                let query = query.replace("$1", "?1").replace("a.bot", "a.bot = 1");
                read_sqlite(s, move |conn| {
                    Ok(conn.query_row(&query, params![hash], |r| Ok((r.get(0)?, r.get(1)?))).optional()?)
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                match client.query_opt(query, &[&hash]).await? {
                    Some(row) => Ok(Some((row.try_get(0)?, row.try_get(1)?))),
                    None => Ok(None),
                }
            }
        }
    }

    /// Records that `seat` of game `game_id` is reserved for the bot `account_id`.
    pub async fn add_challenge(
        &self,
        game_id: &str,
        seat: usize,
        account_id: &str,
        created: i64,
    ) -> Result<(), StoreError> {
        let (game, id) = (game_id.to_string(), account_id.to_string());
        let seat = i32::try_from(seat).unwrap_or(i32::MAX);
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    conn.execute(
                    "INSERT OR REPLACE INTO challenges (game_id, seat, account_id, created) VALUES (?1, ?2, ?3, ?4)",
                    params![game, seat, id, created],
                )?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client
                    .execute(
                        "INSERT INTO challenges (game_id, seat, account_id, created) VALUES ($1, $2, $3, $4)
                         ON CONFLICT (game_id, seat) DO UPDATE SET account_id = $3, created = $4",
                        &[&game, &seat, &id, &created],
                    )
                    .await?;
                Ok(())
            }
        }
    }

    /// The newest `limit` challenges of the bot `account_id`: (game id, seat).
    pub async fn challenges_for(&self, account_id: &str, limit: usize) -> Result<Vec<(String, usize)>, StoreError> {
        let id = account_id.to_string();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        match self {
            Store::Sqlite(s) => {
                read_sqlite(s, move |conn| {
                    let mut statement = conn.prepare(
                        "SELECT game_id, seat FROM challenges WHERE account_id = ?1 ORDER BY created DESC LIMIT ?2",
                    )?;
                    let rows = statement
                        .query_map(params![id, limit], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows.into_iter().filter_map(|(g, s)| Some((g, usize::try_from(s).ok()?))).collect())
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let rows = client
                    .query(
                        "SELECT game_id, seat FROM challenges WHERE account_id = $1 ORDER BY created DESC LIMIT $2",
                        &[&id, &limit],
                    )
                    .await?;
                let mut found = Vec::new();
                for row in rows {
                    let seat: i32 = row.try_get(1)?;
                    if let Ok(seat) = usize::try_from(seat) {
                        found.push((row.try_get(0)?, seat));
                    }
                }
                Ok(found)
            }
        }
    }

    /// Forgets a game's challenge at `seat` (taken, or the game is over).
    pub async fn end_challenge(&self, game_id: &str, seat: usize) -> Result<(), StoreError> {
        let game = game_id.to_string();
        let seat = i32::try_from(seat).unwrap_or(i32::MAX);
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    conn.execute("DELETE FROM challenges WHERE game_id = ?1 AND seat = ?2", params![game, seat])?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client.execute("DELETE FROM challenges WHERE game_id = $1 AND seat = $2", &[&game, &seat]).await?;
                Ok(())
            }
        }
    }
}
