//! The PostgreSQL backend: any number of server processes on one database.
//!
//! - A pool of connections (deadpool-postgres) for reads and writes; each versioned write is
//!   one transaction whose first statement bumps the version only if it is the expected one.
//! - Schema steps: the same as [`super::sqlite`]'s, in Postgres' dialect, recorded in
//!   `schema_migrations` and applied under an advisory lock (processes may start together);
//!   the step that hashes older games' clear tokens runs in Rust (`hash_clear_tokens`).
//! - `seq` numbers games in the order they were made (SQLite's `rowid` does it there).
//! - Leases: `lease_owner` and `lease_until` (milliseconds by the database's clock, so the
//!   processes' clocks do not matter).
//! - Live updates: [`Store::notify_all`] sends on the `tabletop_games` channel (NOTIFY);
//!   [`listen`] keeps a dedicated connection LISTENing and forwards every payload.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_postgres::{Config, NoTls};

use super::{json_text, GameRow, LobbyGame, StoreError, StoredGame, Timed, Write};

/// The NOTIFY channel every process listens on.
pub const CHANNEL: &str = "tabletop_games";

/// Connections per process at most (keep `max_connections` of the server above the sum).
const POOL_SIZE: usize = 16;

/// The schema, step by step (the same steps as SQLite's, in Postgres' dialect).
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE games (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        seats TEXT NOT NULL,
        tokens TEXT NOT NULL,
        ended TEXT,
        created BIGINT NOT NULL
    );
    CREATE TABLE moves (
        game_id TEXT NOT NULL REFERENCES games(id),
        ply INTEGER NOT NULL,
        notation TEXT NOT NULL,
        PRIMARY KEY (game_id, ply)
    );
    CREATE INDEX games_by_time ON games(created);",
    "ALTER TABLE games ADD COLUMN secret TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE games ADD COLUMN hints BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE games ADD COLUMN resigned TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE games ADD COLUMN ended_winners TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE games ADD COLUMN open_seats INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN computer_to_move BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX games_open ON games(open_seats) WHERE open_seats > 0;
    CREATE INDEX games_computer ON games(computer_to_move) WHERE computer_to_move;",
    "ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN proposal TEXT;
    ALTER TABLE games ADD COLUMN lease_owner TEXT;
    ALTER TABLE games ADD COLUMN lease_until BIGINT;
    ALTER TABLE games ADD COLUMN seq BIGSERIAL;",
    // Seat tokens stored hashed: done by `hash_clear_tokens` (the same step as SQLite's).
    "",
    // Invitations apart from seat tokens, used once (the same step as SQLite's).
    "ALTER TABLE games ADD COLUMN invites TEXT NOT NULL DEFAULT '[]';",
    // Clocks (the same step as SQLite's).
    "ALTER TABLE games ADD COLUMN clock TEXT;
    ALTER TABLE games ADD COLUMN deadline BIGINT;
    ALTER TABLE moves ADD COLUMN time TEXT;
    CREATE INDEX games_deadline ON games(deadline) WHERE deadline IS NOT NULL AND ended IS NULL;",
    // Accounts, their sessions and the counted attempts (the same step as SQLite's).
    "CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        password TEXT NOT NULL,
        created BIGINT NOT NULL
    );
    CREATE TABLE account_sessions (
        token_hash TEXT PRIMARY KEY,
        account_id TEXT NOT NULL,
        created BIGINT NOT NULL,
        expires BIGINT NOT NULL
    );
    CREATE INDEX account_sessions_by_account ON account_sessions(account_id);
    CREATE INDEX account_sessions_by_expiry ON account_sessions(expires);
    CREATE TABLE account_attempts (
        key TEXT NOT NULL,
        at BIGINT NOT NULL
    );
    CREATE INDEX account_attempts_by_key ON account_attempts(key, at);
    CREATE INDEX account_attempts_by_time ON account_attempts(at);",
    // Seats linked to accounts and ratings: built by `super::ratings::postgres_step`.
    "",
    // Seeks' rating ranges and the quick-pairing pools: built by `super::seeks::postgres_step`.
    "",
    // Bot accounts, their API tokens and the challenges waiting for them.
    super::bots::POSTGRES_STEP,
    // Rate limits shared by every process (the same step as SQLite's; see `super::limits`).
    super::limits::POSTGRES_STEP,
];

/// The step (1-based, as recorded) whose SQL is [`super::seeks::postgres_step`].
const SEEKS: usize = 9;

/// The step (1-based, as recorded) whose SQL is [`super::ratings::postgres_step`].
const RATINGS: usize = 8;

/// The step (1-based, as recorded) whose work is [`hash_clear_tokens`].
const TOKENS_HASHED: usize = 4;

/// The database's clock in milliseconds since the epoch (leases are judged by it alone).
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/// A PostgreSQL database.
pub struct Store {
    pool: Pool,
}

fn pool_error(err: impl std::error::Error) -> StoreError {
    StoreError::Pool(super::with_causes(&err))
}

impl Store {
    /// Connects to `url` and brings the schema up to date.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let config: Config = url.parse()?;
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .wait_timeout(Some(Duration::from_secs(5)))
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(pool_error)?;
        let store = Store { pool };
        store.migrate().await?;
        Ok(store)
    }

    pub(super) async fn client(&self) -> Result<deadpool_postgres::Client, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // Two processes starting together: the second waits, then finds nothing to do.
        tx.execute("SELECT pg_advisory_xact_lock(727384)", &[]).await?;
        // (No "already exists, skipping" notice in every start's log.)
        tx.batch_execute("SET LOCAL client_min_messages = warning").await?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)").await?;
        let done: i32 = tx.query_one("SELECT COALESCE(MAX(version), 0) FROM schema_migrations", &[]).await?.get(0);
        let done = usize::try_from(done).map_err(|_| StoreError::Migration(format!("schema version {done}")))?;
        if done > MIGRATIONS.len() {
            return Err(StoreError::Migration(format!(
                "the database's schema (version {done}) is newer than this program's ({}): upgrade tabletop",
                MIGRATIONS.len()
            )));
        }
        for (step, sql) in MIGRATIONS.iter().enumerate().skip(done) {
            tx.batch_execute(sql).await?;
            if step + 1 == RATINGS {
                tx.batch_execute(&super::ratings::postgres_step()).await?;
            }
            if step + 1 == SEEKS {
                tx.batch_execute(&super::seeks::postgres_step()).await?;
            }
            if step + 1 == TOKENS_HASHED {
                hash_clear_tokens(&tx).await?;
            }
            tx.execute("INSERT INTO schema_migrations (version) VALUES ($1)", &[&(step as i32 + 1)]).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// See [`super::Store::insert_game`].
    pub async fn insert_game(
        &self,
        row: &GameRow,
        computer_to_move: bool,
        deadline: Option<i64>,
    ) -> Result<(), StoreError> {
        let open = row.seats.iter().filter(|s| *s == "open").count() as i32;
        let timing = row.timing.as_ref().map(json_text);
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx
            .execute(
                "INSERT INTO games (id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners, open_seats, computer_to_move, invites, clock, deadline, rated, rating_range)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
                &[
                    &row.id,
                    &row.game,
                    &row.options.to_string(),
                    &json_text(&row.seats),
                    &json_text(&row.token_hashes),
                    &row.ended,
                    &row.created,
                    &row.secret.to_string(),
                    &row.hints,
                    &json_text(&row.resigned),
                    &json_text(&row.ended_winners),
                    &open,
                    &computer_to_move,
                    &json_text(&row.invites),
                    &timing,
                    &deadline,
                    &row.rated,
                    &super::seeks::range_text(row.rating_range),
                ],
            )
            .await?;
        super::ratings::postgres_set_players(&tx, &row.id, &row.accounts).await?;
        tx.commit().await?;
        Ok(())
    }

    /// See [`super::Store::due`].
    pub async fn due(&self, now: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        let client = self.client().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(
                "SELECT id FROM games WHERE deadline IS NOT NULL AND ended IS NULL AND deadline <= $1
                 ORDER BY deadline LIMIT $2",
                &[&now, &limit],
            )
            .await?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    /// See [`super::Store::next_deadline`].
    pub async fn next_deadline(&self) -> Result<Option<i64>, StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one("SELECT MIN(deadline) FROM games WHERE deadline IS NOT NULL AND ended IS NULL", &[])
            .await?;
        Ok(row.try_get(0)?)
    }

    /// See [`super::Store::set_deadline`].
    pub async fn set_deadline(&self, id: &str, deadline: Option<i64>) -> Result<(), StoreError> {
        let client = self.client().await?;
        client.execute("UPDATE games SET deadline = $2 WHERE id = $1", &[&id, &deadline]).await?;
        Ok(())
    }

    /// See [`super::Store::load`].
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let mut client = self.client().await?;
        // One snapshot for the row and the moves: a move committed between two plain reads
        // would give moves newer than the version (and a process applying the next move's
        // notification on top would play it twice).
        let client = client
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
        let query = format!(
            "SELECT id, game, options, seats, tokens, ended, created, secret, hints, resigned, ended_winners, version, proposal,
                    lease_owner IS NOT NULL AND lease_until > {NOW_MS}, invites, clock
             FROM games WHERE id = $1"
        );
        let Some(r) = client.query_opt(&query, &[&id]).await? else { return Ok(None) };
        let mut row = super::row_from_columns(
            r.try_get(0)?,
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
            r.try_get(5)?,
            r.try_get(6)?,
            r.try_get(7)?,
            r.try_get(8)?,
            r.try_get(9)?,
            r.try_get(10)?,
            r.try_get(14)?,
            r.try_get::<_, Option<String>>(15)?.as_deref(),
        )?;
        super::ratings::postgres_extras(&client, &mut row).await?;
        row.rating_range = super::seeks::postgres_range(&client, id).await?;
        let version: i64 = r.try_get(11)?;
        let proposal = match r.try_get::<_, Option<String>>(12)? {
            Some(text) => Some(
                serde_json::from_str::<Value>(&text)
                    .map_err(|_| StoreError::Damaged { id: id.to_string(), what: "proposal".into() })?,
            ),
            None => None,
        };
        let leased: Option<bool> = r.try_get(13)?;
        let moves = client
            .query("SELECT ply, notation, time FROM moves WHERE game_id = $1 ORDER BY ply", &[&id])
            .await?
            .iter()
            .map(|m| {
                Ok((i64::from(m.try_get::<_, i32>(0)?), m.try_get::<_, String>(1)?, m.try_get::<_, Option<String>>(2)?))
            })
            .collect::<Result<Vec<_>, tokio_postgres::Error>>()?;
        let (moves, times) = super::moves_in_order(id, moves)?;
        client.commit().await?;
        Ok(Some(StoredGame { row, moves, times, version, proposal, leased: leased.unwrap_or(false) }))
    }

    /// See [`super::Store::version`].
    pub async fn version(&self, id: &str) -> Result<Option<i64>, StoreError> {
        let client = self.client().await?;
        Ok(client.query_opt("SELECT version FROM games WHERE id = $1", &[&id]).await?.map(|r| r.get(0)))
    }

    /// See [`super::Store::write`].
    pub async fn write(
        &self,
        id: &str,
        expected: i64,
        write: Write<'_>,
        computer_to_move: bool,
        timed: &Timed,
    ) -> Result<i64, StoreError> {
        let mut client = self.client().await?;
        let timing = timed.timing_text();
        if let Write::Move { ply, notation, time } = write {
            // The hot path in one statement (one round trip, atomic by itself): the version
            // bump and the move, or nothing when the version moved on or the ply is taken.
            let ply = i32::try_from(ply).map_err(|_| StoreError::Stale)?;
            let inserted = client
                .execute(
                    "WITH bumped AS (
                        UPDATE games SET version = version + 1, computer_to_move = $3, proposal = NULL,
                               lease_owner = NULL, lease_until = NULL, clock = $6, deadline = $7
                        WHERE id = $1 AND version = $2 RETURNING id)
                     INSERT INTO moves (game_id, ply, notation, time) SELECT id, $4, $5, $8 FROM bumped",
                    &[&id, &expected, &computer_to_move, &ply, &notation, &timing, &timed.deadline, &time],
                )
                .await
                .map_err(stale_if_taken)?;
            return if inserted == 1 { Ok(expected + 1) } else { Err(StoreError::Stale) };
        }
        let tx = client.transaction().await?;
        // The row lock taken here serialises every writer of this game until commit.
        let bumped = tx
            .execute(
                "UPDATE games SET version = version + 1, computer_to_move = $3, clock = $4, deadline = $5
                 WHERE id = $1 AND version = $2",
                &[&id, &expected, &computer_to_move, &timing, &timed.deadline],
            )
            .await?;
        if bumped != 1 {
            return Err(StoreError::Stale);
        }
        match write {
            Write::Move { ply, notation, time } => {
                let ply = i32::try_from(ply).map_err(|_| StoreError::Stale)?;
                tx.execute(
                    "INSERT INTO moves (game_id, ply, notation, time) VALUES ($1, $2, $3, $4)",
                    &[&id, &ply, &notation, &time],
                )
                .await
                .map_err(stale_if_taken)?;
                tx.execute(
                    "UPDATE games SET proposal = NULL, lease_owner = NULL, lease_until = NULL WHERE id = $1",
                    &[&id],
                )
                .await?;
            }
            Write::Truncate { ply } => {
                let ply = i32::try_from(ply).map_err(|_| StoreError::Stale)?;
                tx.execute("DELETE FROM moves WHERE game_id = $1 AND ply >= $2", &[&id, &ply]).await?;
                tx.execute(
                    "UPDATE games SET proposal = NULL, lease_owner = NULL, lease_until = NULL WHERE id = $1",
                    &[&id],
                )
                .await?;
            }
            Write::Resigned { resigned, ended } => {
                let (reason, winners) = match ended {
                    Some((reason, winners)) => (Some(reason), json_text(&winners)),
                    None => (None, "[]".to_string()),
                };
                tx.execute(
                    "UPDATE games SET resigned = $2, ended = $3, ended_winners = $4, proposal = NULL,
                            lease_owner = NULL, lease_until = NULL WHERE id = $1",
                    &[&id, &json_text(&resigned), &reason, &winners],
                )
                .await?;
            }
            Write::Seats { seats, token_hashes, invites, accounts } => {
                let open = seats.iter().filter(|s| *s == "open").count() as i32;
                tx.execute(
                    "UPDATE games SET seats = $2, open_seats = $3, tokens = $4, invites = $5 WHERE id = $1",
                    &[&id, &json_text(&seats), &open, &json_text(&token_hashes), &json_text(&invites)],
                )
                .await?;
                super::ratings::postgres_set_players(&tx, id, accounts).await?;
            }
            Write::Proposal { proposal } => {
                tx.execute("UPDATE games SET proposal = $2 WHERE id = $1", &[&id, &proposal.map(Value::to_string)])
                    .await?;
            }
        }
        tx.commit().await?;
        Ok(expected + 1)
    }

    /// See [`super::Store::lobby`].
    pub async fn lobby(&self, limit: usize) -> Result<Vec<LobbyGame>, StoreError> {
        let client = self.client().await?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(
                "SELECT id, game, options, seats, created, clock, rated FROM games
                 WHERE open_seats > 0 AND ended IS NULL ORDER BY created DESC, seq DESC LIMIT $1",
                &[&limit],
            )
            .await?;
        let mut out = Vec::new();
        for r in rows {
            let options: String = r.try_get(2)?;
            let seats: String = r.try_get(3)?;
            let clock: Option<String> = r.try_get(5)?;
            out.extend(super::lobby_entry(
                r.try_get(0)?,
                r.try_get(1)?,
                &options,
                &seats,
                r.try_get(4)?,
                clock.as_deref(),
                r.try_get(6)?,
            ));
        }
        Ok(out)
    }

    /// See [`super::Store::computer_to_move`]: games whose computer is to move and whose lease,
    /// if any, has expired (its process died or hung).
    pub async fn computer_to_move(&self) -> Result<Vec<String>, StoreError> {
        let client = self.client().await?;
        let query = format!(
            "SELECT id FROM games WHERE computer_to_move AND ended IS NULL
               AND (lease_until IS NULL OR lease_until < {NOW_MS}) ORDER BY created LIMIT 200"
        );
        Ok(client.query(&query, &[]).await?.iter().map(|r| r.get(0)).collect())
    }

    /// See [`super::Store::set_computer_to_move`].
    pub async fn set_computer_to_move(&self, id: &str, computer_to_move: bool) -> Result<(), StoreError> {
        let client = self.client().await?;
        client.execute("UPDATE games SET computer_to_move = $2 WHERE id = $1", &[&id, &computer_to_move]).await?;
        Ok(())
    }

    /// See [`super::Store::take_lease`].
    pub async fn take_lease(&self, id: &str, version: i64, owner: &str, length: Duration) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let length = i64::try_from(length.as_millis()).unwrap_or(i64::MAX / 2);
        let query = format!(
            "UPDATE games SET lease_owner = $3, lease_until = {NOW_MS} + $4
             WHERE id = $1 AND version = $2 AND ended IS NULL
               AND (lease_owner IS NULL OR lease_owner = $3 OR lease_until < {NOW_MS})"
        );
        Ok(client.execute(&query, &[&id, &version, &owner, &length]).await? == 1)
    }

    /// Tells every process listening (this one too) about changes, in order, in one round trip.
    pub async fn notify_all(&self, payloads: &[String]) -> Result<(), StoreError> {
        let client = self.client().await?;
        client
            .execute(
                "SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY n",
                &[&CHANNEL, &payloads],
            )
            .await?;
        Ok(())
    }
}

/// Replaces every game's clear tokens by their hashes (a migration step, in the migrating
/// transaction). A row whose tokens cannot be read is left as it is (it loads as damaged).
async fn hash_clear_tokens(tx: &deadpool_postgres::Transaction<'_>) -> Result<(), StoreError> {
    let rows = tx.query("SELECT id, tokens FROM games", &[]).await?;
    let update = tx.prepare("UPDATE games SET tokens = $2 WHERE id = $1").await?;
    for row in rows {
        let (id, tokens): (String, String) = (row.try_get(0)?, row.try_get(1)?);
        match super::hashed_tokens(&tokens) {
            Some(hashed) => {
                tx.execute(&update, &[&id, &hashed]).await?;
            }
            None => tracing::warn!(game = %id, "migration: the game's stored tokens are damaged; left as they are"),
        }
    }
    Ok(())
}

/// A move whose ply is already stored lost a race: the game moved on.
fn stale_if_taken(err: tokio_postgres::Error) -> StoreError {
    if err.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) {
        StoreError::Stale
    } else {
        StoreError::Postgres(err)
    }
}

/// What the listener reports.
#[derive(Debug)]
pub enum Heard {
    /// A payload sent on [`CHANNEL`].
    Payload(String),
    /// The listening connection was (re)made: changes may have been missed before it.
    Connected,
}

/// Keeps a connection LISTENing on [`CHANNEL`] (reconnecting after a failure) and forwards what
/// it hears; ends when the receiver is dropped.
pub fn listen(url: &str) -> Result<mpsc::Receiver<Heard>, StoreError> {
    use futures_util::StreamExt;
    let config: Config = url.parse()?;
    let (sender, receiver) = mpsc::channel(1024);
    tokio::spawn(async move {
        let mut failures = 0u32;
        loop {
            match config.connect(NoTls).await {
                Ok((client, mut connection)) => {
                    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    // The connection is driven by polling `messages`, so LISTEN runs alongside.
                    let listen_sql = format!("LISTEN {CHANNEL}");
                    let listening = client.batch_execute(&listen_sql);
                    tokio::pin!(listening);
                    let mut listened = false;
                    loop {
                        tokio::select! {
                            done = &mut listening, if !listened => {
                                listened = true;
                                if let Err(err) = done {
                                    tracing::warn!("LISTEN failed: {err}");
                                    break;
                                }
                                failures = 0;
                                if sender.send(Heard::Connected).await.is_err() {
                                    return;
                                }
                            }
                            message = messages.next() => match message {
                                Some(Ok(tokio_postgres::AsyncMessage::Notification(note))) => {
                                    if sender.send(Heard::Payload(note.payload().to_string())).await.is_err() {
                                        return;
                                    }
                                }
                                Some(Ok(_)) => {}
                                Some(Err(err)) => {
                                    tracing::warn!("the listening connection failed: {err}");
                                    break;
                                }
                                None => break,
                            },
                        }
                    }
                }
                Err(err) => tracing::warn!("cannot reach the database to listen for changes: {err}"),
            }
            if sender.is_closed() {
                return;
            }
            failures = failures.saturating_add(1);
            tokio::time::sleep(Duration::from_millis(200u64.saturating_mul(u64::from(failures.min(25))))).await;
        }
    });
    Ok(receiver)
}
