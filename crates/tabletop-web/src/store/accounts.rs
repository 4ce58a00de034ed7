//! Accounts in the database (schema step 7, both backends): `accounts` (a name as typed, its
//! lower-case key, unique, and the argon2id hash of the password), `account_sessions` (the
//! SHA-256 of each login's token, its account and expiry) and `account_attempts` (one row per
//! counted attempt, keyed by the hash of what is counted: a name's failed logins, an address's
//! failed logins or sign-ups; rows older than the limits' window are forgotten).
//!
//! Deleting an account removes its row and its sessions, and anonymises its games' seats and
//! rating changes ([`super::ratings`]).

use std::sync::Arc;

use rusqlite::{params, OptionalExtension, TransactionBehavior};

use super::{blocking, sqlite, Store, StoreError};

/// An account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// A random id (never shown: the name is what people see).
    pub id: String,
    /// The name as it was typed at sign-up.
    pub name: String,
    /// The password's argon2id PHC string.
    pub password_hash: String,
    /// Creation time, seconds since the Unix epoch.
    pub created: i64,
}

/// Runs `f` on SQLite's writing connection on a blocking thread.
pub(super) async fn write_sqlite<T: Send + 'static>(
    store: &Arc<sqlite::Store>,
    f: impl FnOnce(&mut rusqlite::Connection) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let store = store.clone();
    blocking(move || store.with_writer(f)).await
}

/// Runs `f` on SQLite's reading connection on a blocking thread.
pub(super) async fn read_sqlite<T: Send + 'static>(
    store: &Arc<sqlite::Store>,
    f: impl FnOnce(&rusqlite::Connection) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    let store = store.clone();
    blocking(move || store.with_reader(f)).await
}

/// Is this a unique-key violation (a name already taken)?
fn sqlite_taken(err: &rusqlite::Error) -> bool {
    matches!(err, rusqlite::Error::SqliteFailure(e, _) if e.code == rusqlite::ErrorCode::ConstraintViolation)
}

const ACCOUNT_COLUMNS: &str = "a.id, a.name, a.password, a.created";

fn account_from_sqlite(r: &rusqlite::Row<'_>) -> rusqlite::Result<AccountRow> {
    Ok(AccountRow { id: r.get(0)?, name: r.get(1)?, password_hash: r.get(2)?, created: r.get(3)? })
}

fn account_from_postgres(r: &tokio_postgres::Row) -> Result<AccountRow, StoreError> {
    Ok(AccountRow { id: r.try_get(0)?, name: r.try_get(1)?, password_hash: r.try_get(2)?, created: r.try_get(3)? })
}

impl Store {
    /// Stores a new account under `name_key` (its name in lower case); `false` when the key is
    /// taken.
    pub async fn create_account(&self, account: &AccountRow, name_key: &str) -> Result<bool, StoreError> {
        let (a, key) = (account.clone(), name_key.to_string());
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    match conn.execute(
                        "INSERT INTO accounts (id, name, name_key, password, created) VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![a.id, a.name, key, a.password_hash, a.created],
                    ) {
                        Ok(_) => Ok(true),
                        Err(e) if sqlite_taken(&e) => Ok(false),
                        Err(e) => Err(e.into()),
                    }
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let inserted = client
                    .execute(
                        "INSERT INTO accounts (id, name, name_key, password, created) VALUES ($1, $2, $3, $4, $5)
                         ON CONFLICT (name_key) DO NOTHING",
                        &[&a.id, &a.name, &key, &a.password_hash, &a.created],
                    )
                    .await?;
                Ok(inserted == 1)
            }
        }
    }

    /// The account whose name's key is `name_key`, if any.
    pub async fn account_by_name(&self, name_key: &str) -> Result<Option<AccountRow>, StoreError> {
        let key = name_key.to_string();
        let query = format!("SELECT {ACCOUNT_COLUMNS} FROM accounts a WHERE a.name_key = $1");
        match self {
            Store::Sqlite(s) => {
                let query = query.replace("$1", "?1");
                read_sqlite(s, move |conn| Ok(conn.query_row(&query, params![key], account_from_sqlite).optional()?))
                    .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client.query_opt(&query, &[&key]).await?.as_ref().map(account_from_postgres).transpose()
            }
        }
    }

    /// The account logged in by the session whose token hashes to `token_hash`, if it has not
    /// expired at `now` (seconds since the Unix epoch).
    pub async fn account_by_session(&self, token_hash: &str, now: i64) -> Result<Option<AccountRow>, StoreError> {
        let hash = token_hash.to_string();
        let query = format!(
            "SELECT {ACCOUNT_COLUMNS} FROM account_sessions s JOIN accounts a ON a.id = s.account_id
             WHERE s.token_hash = $1 AND s.expires > $2"
        );
        match self {
            Store::Sqlite(s) => {
                let query = query.replace("$1", "?1").replace("$2", "?2");
                read_sqlite(s, move |conn| {
                    Ok(conn.query_row(&query, params![hash, now], account_from_sqlite).optional()?)
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client.query_opt(&query, &[&hash, &now]).await?.as_ref().map(account_from_postgres).transpose()
            }
        }
    }

    /// Starts a session (the hash of its new token) for `account_id` until `expires`, ending
    /// the session `replaced` (the one the client held before, if any: a login never keeps a
    /// token from before it) and forgetting expired sessions.
    pub async fn start_account_session(
        &self,
        token_hash: &str,
        account_id: &str,
        now: i64,
        expires: i64,
        replaced: Option<&str>,
    ) -> Result<(), StoreError> {
        let (hash, id, replaced) = (token_hash.to_string(), account_id.to_string(), replaced.map(str::to_string));
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    tx.execute("DELETE FROM account_sessions WHERE expires <= ?1", params![now])?;
                    if let Some(old) = replaced {
                        tx.execute("DELETE FROM account_sessions WHERE token_hash = ?1", params![old])?;
                    }
                    tx.execute(
                    "INSERT INTO account_sessions (token_hash, account_id, created, expires) VALUES (?1, ?2, ?3, ?4)",
                    params![hash, id, now, expires],
                )?;
                    tx.commit()?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                tx.execute("DELETE FROM account_sessions WHERE expires <= $1", &[&now]).await?;
                if let Some(old) = replaced {
                    tx.execute("DELETE FROM account_sessions WHERE token_hash = $1", &[&old]).await?;
                }
                tx.execute(
                    "INSERT INTO account_sessions (token_hash, account_id, created, expires) VALUES ($1, $2, $3, $4)",
                    &[&hash, &id, &now, &expires],
                )
                .await?;
                tx.commit().await?;
                Ok(())
            }
        }
    }

    /// Ends the session whose token hashes to `token_hash` (nothing if there is none).
    pub async fn end_account_session(&self, token_hash: &str) -> Result<(), StoreError> {
        let hash = token_hash.to_string();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    conn.execute("DELETE FROM account_sessions WHERE token_hash = ?1", params![hash])?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client.execute("DELETE FROM account_sessions WHERE token_hash = $1", &[&hash]).await?;
                Ok(())
            }
        }
    }

    /// Replaces an account's password hash and ends every session of it but `keep`; answers
    /// how many sessions ended.
    pub async fn set_password(&self, account_id: &str, password_hash: &str, keep: &str) -> Result<u64, StoreError> {
        let (id, hash, keep) = (account_id.to_string(), password_hash.to_string(), keep.to_string());
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    tx.execute("UPDATE accounts SET password = ?2 WHERE id = ?1", params![id, hash])?;
                    let ended = tx.execute(
                        "DELETE FROM account_sessions WHERE account_id = ?1 AND token_hash <> ?2",
                        params![id, keep],
                    )?;
                    tx.commit()?;
                    Ok(ended as u64)
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                tx.execute("UPDATE accounts SET password = $2 WHERE id = $1", &[&id, &hash]).await?;
                let ended = tx
                    .execute("DELETE FROM account_sessions WHERE account_id = $1 AND token_hash <> $2", &[&id, &keep])
                    .await?;
                tx.commit().await?;
                Ok(ended)
            }
        }
    }

    /// Deletes an account and every session of it (its name is free again at once); its
    /// games stay, their seats anonymous (see [`super::ratings`]). Answers those games' ids.
    pub async fn delete_account(&self, account_id: &str) -> Result<Vec<String>, StoreError> {
        let id = account_id.to_string();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    tx.execute("DELETE FROM account_sessions WHERE account_id = ?1", params![id])?;
                    let games = super::ratings::sqlite_anonymise(&tx, &id)?;
                    tx.execute("DELETE FROM accounts WHERE id = ?1", params![id])?;
                    tx.commit()?;
                    Ok(games)
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                tx.execute("DELETE FROM account_sessions WHERE account_id = $1", &[&id]).await?;
                let games = super::ratings::postgres_anonymise(&tx, &id).await?;
                tx.execute("DELETE FROM accounts WHERE id = $1", &[&id]).await?;
                tx.commit().await?;
                Ok(games)
            }
        }
    }

    /// Counts an attempt at `now` (ms since the Unix epoch) under every key of `limits` (key,
    /// most attempts since `since`), unless one of them already holds its most: then nothing is
    /// counted and the answer is that key's index and its oldest attempt. Check and count are
    /// one transaction (serialised per key on PostgreSQL by an advisory lock), so concurrent
    /// attempts, in one process or many, never pass a limit together. Attempts older than
    /// `since` are forgotten.
    pub async fn reserve_attempt(
        &self,
        limits: &[(String, u64)],
        now: i64,
        since: i64,
    ) -> Result<Option<(usize, i64)>, StoreError> {
        let limits = limits.to_vec();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                    tx.execute("DELETE FROM account_attempts WHERE at <= ?1", params![since])?;
                    for (index, (key, most)) in limits.iter().enumerate() {
                        let (count, oldest): (i64, Option<i64>) = tx.query_row(
                            "SELECT COUNT(*), MIN(at) FROM account_attempts WHERE key = ?1 AND at > ?2",
                            params![key, since],
                            |r| Ok((r.get(0)?, r.get(1)?)),
                        )?;
                        if count.max(0) as u64 >= *most {
                            return Ok(Some((index, oldest.unwrap_or(now))));
                        }
                    }
                    for (key, _) in &limits {
                        tx.execute("INSERT INTO account_attempts (key, at) VALUES (?1, ?2)", params![key, now])?;
                    }
                    tx.commit()?;
                    Ok(None)
                })
                .await
            }
            Store::Postgres(s) => {
                let mut client = s.client().await?;
                let tx = client.transaction().await?;
                // Locks in a fixed order (sorted keys), so two attempts never wait on each other.
                let mut keys: Vec<&String> = limits.iter().map(|(key, _)| key).collect();
                keys.sort();
                for key in keys {
                    tx.execute("SELECT pg_advisory_xact_lock(727385, hashtext($1))", &[key]).await?;
                }
                tx.execute("DELETE FROM account_attempts WHERE at <= $1", &[&since]).await?;
                for (index, (key, most)) in limits.iter().enumerate() {
                    let row = tx
                        .query_one(
                            "SELECT COUNT(*), MIN(at) FROM account_attempts WHERE key = $1 AND at > $2",
                            &[key, &since],
                        )
                        .await?;
                    let count: i64 = row.try_get(0)?;
                    if count.max(0) as u64 >= *most {
                        let oldest: Option<i64> = row.try_get(1)?;
                        return Ok(Some((index, oldest.unwrap_or(now))));
                    }
                }
                for (key, _) in &limits {
                    tx.execute("INSERT INTO account_attempts (key, at) VALUES ($1, $2)", &[key, &now]).await?;
                }
                tx.commit().await?;
                Ok(None)
            }
        }
    }

    /// Takes back one attempt counted under `key` at `at` (an attempt that succeeded).
    pub async fn release_attempt(&self, key: &str, at: i64) -> Result<(), StoreError> {
        let key = key.to_string();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    conn.execute(
                        "DELETE FROM account_attempts WHERE rowid IN
                         (SELECT rowid FROM account_attempts WHERE key = ?1 AND at = ?2 LIMIT 1)",
                        params![key, at],
                    )?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client
                    .execute(
                        "DELETE FROM account_attempts WHERE ctid IN
                         (SELECT ctid FROM account_attempts WHERE key = $1 AND at = $2 LIMIT 1)",
                        &[&key, &at],
                    )
                    .await?;
                Ok(())
            }
        }
    }

    /// Forgets the attempts counted under `key` (a name's failed logins, after a success).
    pub async fn forget_attempts(&self, key: &str) -> Result<(), StoreError> {
        let key = key.to_string();
        match self {
            Store::Sqlite(s) => {
                write_sqlite(s, move |conn| {
                    conn.execute("DELETE FROM account_attempts WHERE key = ?1", params![key])?;
                    Ok(())
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                client.execute("DELETE FROM account_attempts WHERE key = $1", &[&key]).await?;
                Ok(())
            }
        }
    }
}
