//! The rate limits' buckets in the database (one schema step, both backends): `rate_limits`,
//! one row per limited thing and whoever does it (the key: the SHA-256 of `kind:who`, so the
//! database keeps no account id or address in clear), holding the bucket as a theoretical
//! arrival time (GCRA): `tat`, in microseconds since the Unix epoch.
//!
//! A check is ONE statement (an upsert that computes the refilled bucket and takes an action
//! from it, or leaves it as it is and says so), so two requests, in one process or in several
//! sharing a PostgreSQL database, never take the same action: the allowance is the server's,
//! not each process's. PostgreSQL judges time by its own clock (the processes' clocks do not
//! matter); SQLite (one process) by the caller's.
//!
//! GCRA: an action at `now` is allowed when `max(tat, now) + period - now <= burst * period`,
//! and then `tat` becomes `max(tat, now) + period`. A bucket whose `tat` is past is full: its row
//! says nothing more than no row, and [`Store::forget_full_limits`] removes it.

use rusqlite::params;

use super::{blocking, Store, StoreError};

/// The schema step, SQLite's dialect (`IF NOT EXISTS`: a database rolled back to an older
/// step by hand, as a test of an older release's file does, may still hold the table).
pub(crate) const SQLITE_STEP: &str = "CREATE TABLE IF NOT EXISTS rate_limits (
    key TEXT PRIMARY KEY,
    tat INTEGER NOT NULL,
    allowed INTEGER NOT NULL
);";

/// The schema step, PostgreSQL's dialect.
pub(crate) const POSTGRES_STEP: &str = "CREATE TABLE IF NOT EXISTS rate_limits (
    key TEXT PRIMARY KEY,
    tat BIGINT NOT NULL,
    allowed BOOLEAN NOT NULL
);";

/// The database's clock in microseconds since the epoch, the same everywhere in a statement
/// (`now()` is the transaction's start; each check is a transaction of its own).
const PG_NOW_US: &str = "(extract(epoch from now()) * 1000000)::bigint";

impl Store {
    /// Takes one action from the bucket `key` (refilled at one action per `period_us`
    /// microseconds, holding `burst` at most), at `now_us` (SQLite; PostgreSQL uses its own
    /// clock). Answers `None` when taken, or in how many microseconds one will be there.
    pub async fn take_from_bucket(
        &self,
        key: &str,
        period_us: i64,
        burst: i64,
        now_us: i64,
    ) -> Result<Option<i64>, StoreError> {
        let period = period_us.max(1);
        let tolerance = period.saturating_mul(burst.max(1));
        let key = key.to_string();
        let (allowed, tat, now) = match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_writer(|conn| {
                        Ok(conn.query_row(
                            "INSERT INTO rate_limits (key, tat, allowed) VALUES (?1, ?2 + ?3, 1)
                             ON CONFLICT (key) DO UPDATE SET
                               allowed = (MAX(tat, ?2) + ?3 - ?2 <= ?4),
                               tat = CASE WHEN MAX(tat, ?2) + ?3 - ?2 <= ?4 THEN MAX(tat, ?2) + ?3 ELSE tat END
                             RETURNING allowed, tat",
                            params![key, now_us, period, tolerance],
                            |r| Ok((r.get::<_, bool>(0)?, r.get::<_, i64>(1)?, now_us)),
                        )?)
                    })
                })
                .await?
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                let query = format!(
                    "INSERT INTO rate_limits (key, tat, allowed) VALUES ($1, {PG_NOW_US} + $2, TRUE)
                     ON CONFLICT (key) DO UPDATE SET
                       allowed = (GREATEST(rate_limits.tat, {PG_NOW_US}) + $2 - {PG_NOW_US} <= $3),
                       tat = CASE WHEN GREATEST(rate_limits.tat, {PG_NOW_US}) + $2 - {PG_NOW_US} <= $3
                                  THEN GREATEST(rate_limits.tat, {PG_NOW_US}) + $2 ELSE rate_limits.tat END
                     RETURNING allowed, tat, {PG_NOW_US}"
                );
                let row = client.query_one(&query, &[&key, &period, &tolerance]).await?;
                (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)
            }
        };
        if allowed {
            return Ok(None);
        }
        // Refused: `tat` is unchanged; the next action fits once `tat + period - now` is
        // down to the tolerance.
        Ok(Some(tat.saturating_add(period).saturating_sub(now).saturating_sub(tolerance).max(1)))
    }

    /// Forgets the buckets that are full at `now_us` (SQLite; PostgreSQL uses its own clock):
    /// their rows say no more than no row. Answers how many.
    pub async fn forget_full_limits(&self, now_us: i64) -> Result<u64, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || {
                    s.with_writer(|conn| {
                        Ok(conn.execute("DELETE FROM rate_limits WHERE tat < ?1", params![now_us])? as u64)
                    })
                })
                .await
            }
            Store::Postgres(s) => {
                let client = s.client().await?;
                Ok(client.execute(&format!("DELETE FROM rate_limits WHERE tat < {PG_NOW_US}"), &[]).await?)
            }
        }
    }
}
