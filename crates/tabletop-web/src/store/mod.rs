//! Where games are kept: one row per game, one row per move, in SQLite (one file, one process:
//! the default) or PostgreSQL (any number of server processes on one database).
//!
//! - [`Store`] is the one interface; [`sqlite`] and [`postgres`] implement it with the same
//!   schema steps (each in its own dialect).
//! - Every write names the game's version it was decided on and bumps it; a write on a version
//!   that moved on (another request, another process) is refused with [`StoreError::Stale`],
//!   so two moves for one ply can never both be accepted.
//! - A computer move is thought by whoever holds the game's lease (Postgres: a row update with
//!   an expiry by the database's clock; SQLite: the one process always holds it).
//! - Every move is committed before the server answers, and a game is rebuilt by replaying its
//!   moves.
//! - SQLite's calls block: [`Store`] makes them on tokio's blocking threads, so that a database
//!   waiting for a lock never holds up the threads that answer requests (the page, the catalog).
//! - Seat tokens are stored hashed ([`hash_token`]): a token is shown to its holder once, when
//!   the seat is given, and the database alone cannot act for anyone.
//! - Invitations ([`StoredInvite`]) are codes apart from the seats' tokens, stored hashed too,
//!   and used once: the versioned write that records a use gives the seat a new token, so of two
//!   people opening one invitation at once (in one process or two) exactly one holds the seat.
//! - Accounts ([`accounts`]): names, argon2id password hashes, login sessions stored as their
//!   tokens' hashes with an expiry, and the attempts the login and sign-up limits count (in the
//!   database, so that every process sharing it counts the same).
//! - Rate limits ([`limits`]): one token bucket per limited thing and account or address,
//!   taken from in one statement, so processes sharing a database share each allowance.

pub mod accounts;
pub mod bots;
pub mod limits;
pub mod postgres;
pub mod ratings;
pub mod seeks;
pub mod sqlite;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite answered an error.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL answered an error (or the connection failed).
    #[error("database: {}", with_causes(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// No PostgreSQL connection could be had from the pool.
    #[error("database connection: {0}")]
    Pool(String),
    /// The schema could not be brought up to date.
    #[error("database schema: {0}")]
    Migration(String),
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
    /// The game changed since the version a write was decided on (or the move's ply is taken):
    /// another request, perhaps in another process, came first.
    #[error("the game has moved on")]
    Stale,
    /// The database stayed locked (another process writing, or this one's calls queued) for
    /// longer than a request may wait.
    #[error("the database is busy (locked by another connection or process)")]
    Busy,
    /// The database file cannot be written: refused at start.
    #[error(
        "the database {path} cannot be written ({reason}): make the file and its folder writable by this user \
         (SQLite creates FILE-wal and FILE-shm beside it), and do not open it read-only or immutable"
    )]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// The database file cannot be opened or created: refused at start.
    #[error(
        "cannot open or create the database {path} ({reason}): check that its folder exists and is writable by this user"
    )]
    CannotOpen {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// A blocking database call did not finish (its thread panicked, or the runtime is stopping).
    #[error("database call: {0}")]
    Task(String),
}

impl From<rusqlite_migration::Error> for StoreError {
    fn from(err: rusqlite_migration::Error) -> Self {
        StoreError::Migration(err.to_string())
    }
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
    /// Per seat: the hash of its secret token ([`hash_token`]); the token itself is never
    /// stored, only shown to its holder when the seat is given.
    pub token_hashes: Vec<String>,
    /// Per seat: its invitation, if it has one (a `human` seat of a game made since invitations
    /// were single use; empty for older games, whose invite links carry the seat's token).
    pub invites: Vec<Option<StoredInvite>>,
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
    /// The game's clocks (`None` for games stored before clocks: unlimited).
    pub timing: Option<crate::clocks::Timing>,
    /// Per seat: the account holding it, if its person was logged in (`None`: anonymous, or
    /// an account since deleted).
    pub accounts: Vec<Option<crate::ratings::SeatAccount>>,
    /// Is the game rated (chosen at creation)?
    pub rated: bool,
    /// The rating changes its end made (empty until a rated game ends).
    pub rating_changes: Vec<crate::ratings::RatingChange>,
    /// A seek's rating range (`[min, max]`, inclusive): who may take its open seat.
    pub rating_range: Option<(i64, i64)>,
}

/// A seat's invitation as stored: the hash of its code ([`hash_token`]; the code itself is
/// shown once, in the creator's invite link) and whether someone has used it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredInvite {
    /// The SHA-256 of the invitation's code, in hex.
    pub hash: String,
    /// Has someone opened it and taken the seat? An invitation is used once.
    pub claimed: bool,
    /// The bot account the seat is reserved for (a challenge): only it may take the seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved: Option<Reserved>,
}

/// The account a challenged seat is reserved for.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reserved {
    /// The account's id.
    pub id: String,
    /// Its name (shown on the seat until the bot takes it).
    pub name: String,
}

/// A game as loaded: its row, moves, version, pending proposal and whether a lease is held.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// What is stored besides the moves.
    pub row: GameRow,
    /// The moves in order.
    pub moves: Vec<String>,
    /// Each move's time and the mover's clock after it, where stored (`None` for moves of games
    /// without a clock or stored before clocks); as long as `moves`.
    pub times: Vec<Option<tabletop::clock::MoveTime>>,
    /// Bumped by every write.
    pub version: i64,
    /// The proposal waiting for answers (JSON as the server wrote it), if any.
    pub proposal: Option<Value>,
    /// Does some process hold an unexpired lease to think for its computer?
    pub leased: bool,
}

/// A game in the lobby: id, game, public options, seats, creation time, time control (`none`
/// for games stored before clocks), rated.
pub type LobbyGame = (String, String, Value, Vec<String>, i64, String, bool);

/// Where the server keeps its games, from `--db`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DatabaseTarget {
    /// A SQLite file (`:memory:` keeps nothing).
    Sqlite(PathBuf),
    /// A PostgreSQL connection URL (`postgres://USER@HOST[:PORT]/DB`).
    Postgres(String),
}

impl DatabaseTarget {
    /// Reads `--db`: `postgres://...` or `postgresql://...`, `sqlite:PATH`, or a plain path.
    ///
    /// ```
    /// use tabletop_web::store::DatabaseTarget;
    /// assert_eq!(DatabaseTarget::parse("games.db"), DatabaseTarget::Sqlite("games.db".into()));
    /// assert_eq!(DatabaseTarget::parse("sqlite:/tmp/g.db"), DatabaseTarget::Sqlite("/tmp/g.db".into()));
    /// assert!(matches!(DatabaseTarget::parse("postgres://me@localhost/games"), DatabaseTarget::Postgres(_)));
    /// ```
    pub fn parse(text: &str) -> Self {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            DatabaseTarget::Postgres(text.to_string())
        } else {
            DatabaseTarget::Sqlite(PathBuf::from(text.strip_prefix("sqlite:").unwrap_or(text)))
        }
    }
}

impl std::fmt::Display for DatabaseTarget {
    /// The file, or the URL without its password (it is printed and logged).
    ///
    /// ```
    /// use tabletop_web::store::DatabaseTarget;
    /// let url = DatabaseTarget::parse("postgres://games:s3cret@db.example.org/games");
    /// assert_eq!(url.to_string(), "postgres://games:***@db.example.org/games");
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DatabaseTarget::Sqlite(path) => write!(f, "{}", path.display()),
            DatabaseTarget::Postgres(url) => {
                let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
                match rest.split_once('@') {
                    Some((user, host)) => {
                        let user = user.split_once(':').map_or(user.to_string(), |(name, _)| format!("{name}:***"));
                        write!(f, "{scheme}://{user}@{host}")
                    }
                    None => write!(f, "{scheme}://{rest}"),
                }
            }
        }
    }
}

/// What every versioned write stores besides its change: the game's timing after it and the
/// moment it ends by itself if nobody acts (a flag or an abort; ms since the Unix epoch).
#[derive(Clone, Debug, Default)]
pub struct Timed {
    /// The timing after the write (`None`: a game without one).
    pub timing: Option<crate::clocks::Timing>,
    /// When the game is due to end by itself (the server's timer looks for it).
    pub deadline: Option<i64>,
}

impl Timed {
    /// The timing's JSON for its column.
    pub(crate) fn timing_text(&self) -> Option<String> {
        self.timing.as_ref().map(json_text)
    }
}

/// A [`Write`] that owns its data, to move to a blocking thread.
enum OwnedWrite {
    Move {
        ply: usize,
        notation: String,
        time: Option<String>,
    },
    Truncate {
        ply: usize,
    },
    Resigned {
        resigned: Vec<usize>,
        ended: Option<(String, Vec<usize>)>,
    },
    Seats {
        seats: Vec<String>,
        token_hashes: Vec<String>,
        invites: Vec<Option<StoredInvite>>,
        accounts: Vec<Option<crate::ratings::SeatAccount>>,
    },
    Proposal {
        proposal: Option<Value>,
    },
}

impl OwnedWrite {
    fn new(write: Write<'_>) -> Self {
        match write {
            Write::Move { ply, notation, time } => {
                OwnedWrite::Move { ply, notation: notation.to_string(), time: time.map(str::to_string) }
            }
            Write::Truncate { ply } => OwnedWrite::Truncate { ply },
            Write::Resigned { resigned, ended } => OwnedWrite::Resigned {
                resigned: resigned.to_vec(),
                ended: ended.map(|(reason, winners)| (reason.to_string(), winners.to_vec())),
            },
            Write::Seats { seats, token_hashes, invites, accounts } => OwnedWrite::Seats {
                seats: seats.to_vec(),
                token_hashes: token_hashes.to_vec(),
                invites: invites.to_vec(),
                accounts: accounts.to_vec(),
            },
            Write::Proposal { proposal } => OwnedWrite::Proposal { proposal: proposal.cloned() },
        }
    }

    fn borrowed(&self) -> Write<'_> {
        match self {
            OwnedWrite::Move { ply, notation, time } => Write::Move { ply: *ply, notation, time: time.as_deref() },
            OwnedWrite::Truncate { ply } => Write::Truncate { ply: *ply },
            OwnedWrite::Resigned { resigned, ended } => Write::Resigned {
                resigned,
                ended: ended.as_ref().map(|(reason, winners)| (reason.as_str(), winners.as_slice())),
            },
            OwnedWrite::Seats { seats, token_hashes, invites, accounts } => {
                Write::Seats { seats, token_hashes, invites, accounts }
            }
            OwnedWrite::Proposal { proposal } => Write::Proposal { proposal: proposal.as_ref() },
        }
    }
}

/// Runs a blocking SQLite call on tokio's blocking threads (never on a thread that answers
/// requests: a call may wait up to [`sqlite::BUSY_WAIT`] for a lock).
async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(call).await.map_err(|e| StoreError::Task(e.to_string()))?
}

/// The database: one of the two backends.
pub enum Store {
    /// One SQLite file (shared with the blocking threads that call it).
    Sqlite(Arc<sqlite::Store>),
    /// A PostgreSQL database shared by any number of server processes.
    Postgres(postgres::Store),
}

/// An error and its causes, `outer: inner: ...` (the database client's own text is often just
/// "db error", with the server's message in its source).
pub(crate) fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = cause.source();
    }
    text
}

/// `serde_json::to_string` of plain values (which cannot fail).
pub(crate) fn json_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Reads a game row's JSON columns (shared by both backends).
#[allow(clippy::too_many_arguments)]
pub(crate) fn row_from_columns(
    id: String,
    game: String,
    options: &str,
    seats: &str,
    tokens: &str,
    ended: Option<String>,
    created: i64,
    secret: &str,
    hints: bool,
    resigned: &str,
    ended_winners: &str,
    invites: &str,
    timing: Option<&str>,
) -> Result<GameRow, StoreError> {
    let damaged = |what: &str| StoreError::Damaged { id: id.clone(), what: what.to_string() };
    let mut options: Value = serde_json::from_str(options).map_err(|_| damaged("options"))?;
    let mut secret: Value = serde_json::from_str(secret).map_err(|_| damaged("secret"))?;
    // Games stored by the first release kept Mathable's seed among the public options.
    if let Some(seed) = options.as_object_mut().and_then(|o| o.remove("seed")) {
        if secret.get("seed").is_none() {
            secret["seed"] = seed;
        }
    }
    let mut row = GameRow {
        options,
        secret,
        seats: serde_json::from_str(seats).map_err(|_| damaged("seats"))?,
        token_hashes: serde_json::from_str(tokens).map_err(|_| damaged("tokens"))?,
        invites: serde_json::from_str(invites).map_err(|_| damaged("invites"))?,
        hints,
        resigned: serde_json::from_str(resigned).map_err(|_| damaged("resigned"))?,
        ended_winners: serde_json::from_str(ended_winners).map_err(|_| damaged("ended_winners"))?,
        ended,
        created,
        game,
        timing: match timing {
            Some(text) => Some(serde_json::from_str(text).map_err(|_| damaged("clock"))?),
            None => None,
        },
        accounts: Vec::new(),
        rated: false,
        rating_changes: Vec::new(),
        rating_range: None,
        id: id.clone(),
    };
    row.accounts = vec![None; row.seats.len()];
    if row.token_hashes.len() != row.seats.len() {
        return Err(damaged("tokens"));
    }
    // Games stored before invitations were single use have none: every seat without one.
    if row.invites.is_empty() {
        row.invites = vec![None; row.seats.len()];
    }
    if row.invites.len() != row.seats.len() {
        return Err(damaged("invites"));
    }
    Ok(row)
}

/// What is stored of a seat's token: its SHA-256, in hex. Tokens are 128 random bits, so a
/// plain hash is enough: nothing can be guessed from it, and no salt is needed.
///
/// ```
/// use tabletop_web::store::hash_token;
/// assert_eq!(hash_token("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
/// ```
pub fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A stored JSON list of clear tokens as the list of their hashes (the migration to hashed
/// tokens); `None` if it is not a list of strings.
pub(crate) fn hashed_tokens(clear: &str) -> Option<String> {
    let tokens: Vec<String> = serde_json::from_str(clear).ok()?;
    Some(json_text(&tokens.iter().map(|t| hash_token(t)).collect::<Vec<_>>()))
}

/// Checks that stored moves are numbered 0, 1, 2, ... and keeps their notations.
pub(crate) fn moves_in_order(
    id: &str,
    moves: Vec<(i64, String, Option<String>)>,
) -> Result<(Vec<String>, Vec<Option<tabletop::clock::MoveTime>>), StoreError> {
    if moves.iter().enumerate().any(|(i, (ply, _, _))| *ply != i as i64) {
        return Err(StoreError::Damaged { id: id.to_string(), what: "move numbers".into() });
    }
    Ok(moves.into_iter().map(|(_, notation, time)| (notation, time.as_deref().and_then(move_time))).unzip())
}

/// A move's time from its stored record (`{"time": MoveTime, "clock": Clock}`); `None` when
/// absent or unreadable (a move's time is for the record: a damaged one is left out, not fatal).
pub fn move_time(record: &str) -> Option<tabletop::clock::MoveTime> {
    let record: Value = serde_json::from_str(record).ok()?;
    serde_json::from_value(record.get("time")?.clone()).ok()
}

/// A lobby row with damaged JSON is left out rather than failing the lobby for everyone.
pub(crate) fn lobby_entry(
    id: String,
    game: String,
    options: &str,
    seats: &str,
    created: i64,
    clock: Option<&str>,
    rated: bool,
) -> Option<LobbyGame> {
    let (Ok(mut options), Ok(seats)) =
        (serde_json::from_str::<Value>(options), serde_json::from_str::<Vec<String>>(seats))
    else {
        tracing::warn!(game = %id, "lobby: a game's stored options or seats are damaged");
        return None;
    };
    if let Some(o) = options.as_object_mut() {
        o.remove("seed");
    }
    let control = clock
        .and_then(|text| serde_json::from_str::<crate::clocks::Timing>(text).ok())
        .map_or_else(|| "none".to_string(), |t| t.control().to_string());
    Some((id, game, options, seats, created, control, rated))
}

/// What a versioned write changes besides the version.
#[derive(Clone, Debug)]
pub enum Write<'a> {
    /// Appends the move at `ply` (0-based); ends a pending proposal and the lease.
    Move {
        /// Its number.
        ply: usize,
        /// Its notation.
        notation: &'a str,
        /// Its time and the clock after it (JSON: `{"time": MoveTime, "clock": Clock}`), kept
        /// for the record; `None` for a game without timing.
        time: Option<&'a str>,
    },
    /// Forgets every move from `ply` on (undo); ends a pending proposal and the lease.
    Truncate {
        /// The number of moves kept.
        ply: usize,
    },
    /// The seats that resigned, and the end of the game if it ended; ends a pending proposal.
    Resigned {
        /// Seats that resigned, in order.
        resigned: &'a [usize],
        /// Why it ended, and who won, if it ended.
        ended: Option<(&'a str, &'a [usize])>,
    },
    /// The seats after a seat was given to a person (an open seat joined, an invitation used),
    /// with the seat's new token.
    Seats {
        /// Every seat's spec.
        seats: &'a [String],
        /// Every seat's token hash ([`hash_token`]).
        token_hashes: &'a [String],
        /// Every seat's invitation (the one used now marked so).
        invites: &'a [Option<StoredInvite>],
        /// Every seat's account (the seat given now linked to its person's, if logged in).
        accounts: &'a [Option<crate::ratings::SeatAccount>],
    },
    /// A proposal started, changed or ended.
    Proposal {
        /// The proposal, or `None` when none is pending.
        proposal: Option<&'a Value>,
    },
}

impl Store {
    /// Opens (creating and migrating) the database `--db` names.
    pub async fn open(target: &DatabaseTarget) -> Result<Self, StoreError> {
        match target {
            DatabaseTarget::Sqlite(path) => {
                let path = path.clone();
                Ok(Store::Sqlite(Arc::new(blocking(move || sqlite::Store::open(&path)).await?)))
            }
            DatabaseTarget::Postgres(url) => Ok(Store::Postgres(postgres::Store::open(url).await?)),
        }
    }

    /// Can other processes write to this database (so cached games must be revalidated)?
    pub fn is_shared(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }

    /// Stores a new game at version 0, whether a computer is to move first, and when it is due
    /// to end by itself (a first move not made in time).
    pub async fn insert_game(
        &self,
        row: &GameRow,
        computer_to_move: bool,
        deadline: Option<i64>,
    ) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, row) = (s.clone(), row.clone());
                blocking(move || s.insert_game(&row, computer_to_move, deadline)).await
            }
            Store::Postgres(s) => s.insert_game(row, computer_to_move, deadline).await,
        }
    }

    /// Unfinished games due to end by themselves at `now` (ms since the Unix epoch), soonest
    /// first, at most `limit`.
    pub async fn due(&self, now: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.due(now, limit)).await
            }
            Store::Postgres(s) => s.due(now, limit).await,
        }
    }

    /// The soonest deadline of an unfinished game, if any.
    pub async fn next_deadline(&self) -> Result<Option<i64>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.next_deadline()).await
            }
            Store::Postgres(s) => s.next_deadline().await,
        }
    }

    /// Sets a game's deadline outside a versioned write (a stored deadline found stale).
    pub async fn set_deadline(&self, id: &str, deadline: Option<i64>) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id) = (s.clone(), id.to_string());
                blocking(move || s.set_deadline(&id, deadline)).await
            }
            Store::Postgres(s) => s.set_deadline(id, deadline).await,
        }
    }

    /// A game and its moves, or `None` if there is no such game.
    pub async fn load(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id) = (s.clone(), id.to_string());
                blocking(move || s.load(&id)).await
            }
            Store::Postgres(s) => s.load(id).await,
        }
    }

    /// A game's version, or `None` if there is no such game.
    pub async fn version(&self, id: &str) -> Result<Option<i64>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id) = (s.clone(), id.to_string());
                blocking(move || s.version(&id)).await
            }
            Store::Postgres(s) => s.version(id).await,
        }
    }

    /// Applies `write` if the game is still at version `expected`, with whether a computer is
    /// to move after it and the game's timing after it; answers the new version, or
    /// [`StoreError::Stale`].
    pub async fn write(
        &self,
        id: &str,
        expected: i64,
        write: Write<'_>,
        computer_to_move: bool,
        timed: &Timed,
    ) -> Result<i64, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id, write, timed) = (s.clone(), id.to_string(), OwnedWrite::new(write), timed.clone());
                blocking(move || s.write(&id, expected, write.borrowed(), computer_to_move, &timed)).await
            }
            Store::Postgres(s) => s.write(id, expected, write, computer_to_move, timed).await,
        }
    }

    /// Games with a seat open to anyone, newest first.
    pub async fn lobby(&self, limit: usize) -> Result<Vec<LobbyGame>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.lobby(limit)).await
            }
            Store::Postgres(s) => s.lobby(limit).await,
        }
    }

    /// Games whose computer seat may be to move and that nobody thinks for (to resume them).
    pub async fn computer_to_move(&self) -> Result<Vec<String>, StoreError> {
        match self {
            Store::Sqlite(s) => {
                let s = s.clone();
                blocking(move || s.computer_to_move()).await
            }
            Store::Postgres(s) => s.computer_to_move().await,
        }
    }

    /// Marks whether a computer is to move in a game (set after loading an older database).
    pub async fn set_computer_to_move(&self, id: &str, computer_to_move: bool) -> Result<(), StoreError> {
        match self {
            Store::Sqlite(s) => {
                let (s, id) = (s.clone(), id.to_string());
                blocking(move || s.set_computer_to_move(&id, computer_to_move)).await
            }
            Store::Postgres(s) => s.set_computer_to_move(id, computer_to_move).await,
        }
    }

    /// Takes (or renews) the lease to think for the computer of game `id` at `version` for
    /// `length`: `false` when another process holds it or the game moved on. With SQLite the one
    /// process always holds it.
    pub async fn take_lease(&self, id: &str, version: i64, owner: &str, length: Duration) -> Result<bool, StoreError> {
        match self {
            Store::Sqlite(_) => Ok(true),
            Store::Postgres(s) => s.take_lease(id, version, owner, length).await,
        }
    }
}
