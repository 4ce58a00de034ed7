//! The server's settings (`tabletop serve` flags) and their defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Everything `tabletop serve` can be told. `ServeConfig::default()` is what the command uses
/// without flags, except that tests usually bind port 0 and a temporary database.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Where games are kept: a SQLite file (a path or `sqlite:PATH`; `:memory:` keeps nothing)
    /// or a PostgreSQL URL (`postgres://USER@HOST/DB`), which any number of processes may share.
    pub db: PathBuf,
    /// The origin used in invite links (`https://games.example.org`); from the request's Host header when unset.
    pub public_url: Option<String>,
    /// The longest a computer seat, a hint or an analysis may think.
    pub max_think: Duration,
    /// The most memory one engine may ask for, in bytes.
    pub engine_memory: u64,
    /// Engine worker threads (computer moves, hints, analysis).
    pub workers: usize,
    /// Hints and analyses that may wait for a worker before the next one gets 503.
    pub queue: usize,
    /// Open connections at most; further ones wait to be accepted.
    pub max_connections: usize,
    /// Open connections one client address may hold; further ones are closed at once (not
    /// applied behind a proxy, where every connection comes from the proxy).
    pub max_connections_per_address: usize,
    /// Event streams one client address may hold open (429 beyond).
    pub max_streams_per_address: usize,
    /// Event streams open on one game (429 beyond).
    pub max_streams_per_game: usize,
    /// How long a write may wait for a client that stopped reading before its connection closes.
    pub write_timeout: Duration,
    /// Games one account (a logged-in person), else one client address, may start per minute
    /// (create, join, open an invitation), a tenth of a minute's worth at once; counted in the
    /// database, so shared by every process (429 beyond).
    pub create_rate: u32,
    /// Hints and analyses one client address may ask per minute (this process's engine
    /// workers: counted by each process).
    pub hint_rate: u32,
    /// Moves and takebacks one mover may make per minute across all its games: the seat's
    /// account if it has one, else the client address; counted in the database, so shared by
    /// every process (429 beyond).
    pub move_rate: u32,
    /// Moves one mover may make at once before [`Self::move_rate`] holds it back (a few
    /// seconds' worth: a new game brings no new allowance).
    pub move_burst: u32,
    /// Proposals (takebacks between people, ending the game, rematches) one mover may make per
    /// minute across its games, after a first [`crate::live::limits::PROPOSAL_BURST`] (shared).
    pub proposal_rate: u32,
    /// Seeks (games with an open seat put in the lobby, entries in a quick-pairing pool) one
    /// account, else one client address, may make per minute, half a minute's worth at once
    /// (shared).
    pub seek_rate: u32,
    /// Games with open seats one client address may keep waiting in the lobby (429 beyond;
    /// this process's count, the seek rate bounds them across processes); a game stops counting when its seats are taken, it ends, or after [`OPEN_GAME_COUNTED`].
    pub max_open_games_per_address: usize,
    /// The most moves any game may have here; `None`: each game's own limit (its
    /// `Session::move_limit`). A game reaching it ends.
    pub move_limit: Option<usize>,
    /// Games kept in memory at most; the least recently used idle ones are evicted (they stay in the database).
    pub cache_games: usize,
    /// How long a client may take to send a request's headers, and how long an idle kept-alive connection stays open.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body.
    pub body_timeout: Duration,
    /// How often the database file is checked for removal or replacement.
    pub storage_check: Duration,
    /// For tests and benchmarks only: games' chance (Mathable's bags) follows from this seed and
    /// the order of creation, so runs repeat. Never on a public server: whoever knows it knows
    /// every rack.
    pub game_seed: Option<u64>,
    /// How long a process may think for a computer move without renewing its lease (shared
    /// databases): if it dies, another process takes the move over after this.
    pub computer_lease: Duration,
    /// Behind a reverse proxy: rate limits count per client address as the proxy's last
    /// `X-Forwarded-For` entry gives it (never set this when clients reach the server directly:
    /// they could claim any address).
    pub behind_proxy: bool,
    /// How long a person has for their first move in a game with a clock played in one sitting
    /// before the game is aborted (by correspondence: the control's days).
    pub first_move_time: Duration,
    /// How long a person's opponent must have been away (no event stream open) before a
    /// player may claim the game (`POST /api/games/{id}/claim-win`).
    pub claim_after: Duration,
    /// Behind TLS: the session cookie is marked `Secure` (and named with the `__Host-` prefix),
    /// so a browser never sends it over plain HTTP. On by itself when [`Self::public_url`]
    /// starts with `https://` (see [`Self::secure_cookies`]).
    pub secure_cookies: bool,
    /// Failed logins for one account name within [`Self::login_window`] before further
    /// attempts on that name get 429 (counted in the database: shared by every process).
    pub login_failures_per_account: u32,
    /// Failed logins from one client address (an IPv6 address's /64) within
    /// [`Self::login_window`] before further attempts from it get 429.
    pub login_failures_per_address: u32,
    /// Accounts one client address (an IPv6 address's /64) may create within
    /// [`Self::login_window`] (429 beyond).
    pub signups_per_address: u32,
    /// The window over which failed logins and sign-ups are counted.
    pub login_window: Duration,
    /// How long a login lasts (the session's expiry in the database and the cookie's Max-Age).
    pub session_lifetime: Duration,
    /// How often a seat's event stream in a game with a real-time clock is pinged to measure its
    /// lag ([`crate::clocks::PING_INTERVAL`]; tests shorten it).
    pub ping_interval: Duration,
    /// How often quick pairing runs a wave (pairs the clients waiting in its pools); waves run
    /// on the wall clock's multiples of it, at the same moments in every process.
    pub pool_wave: Duration,
    /// Pools one client (an account, or an anonymous client's address) may wait in at once
    /// (429 beyond).
    pub pool_entries_per_client: usize,
    /// A pool entry not polled for this long is dropped by the next wave
    /// ([`crate::service::seeks::STALE_AFTER`]; tests shorten it).
    pub pool_expiry: Duration,
}

/// How long an open game counts against its creator's address in the lobby cap.
pub const OPEN_GAME_COUNTED: Duration = Duration::from_secs(3600);

impl ServeConfig {
    /// Is the session cookie `Secure`? When asked ([`Self::secure_cookies`]) or when the
    /// public URL is `https://`.
    pub fn cookies_secure(&self) -> bool {
        self.secure_cookies
            || self.public_url.as_deref().is_some_and(|u| u.to_ascii_lowercase().starts_with("https://"))
    }

    /// The database `db` names.
    pub fn database(&self) -> crate::store::DatabaseTarget {
        crate::store::DatabaseTarget::parse(&self.db.to_string_lossy())
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            db: PathBuf::from("tabletop.db"),
            public_url: None,
            max_think: Duration::from_secs(10),
            engine_memory: 64 << 20,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            queue: 32,
            max_connections: 4096,
            max_connections_per_address: 128,
            max_streams_per_address: 32,
            max_streams_per_game: 256,
            write_timeout: Duration::from_secs(20),
            create_rate: 60,
            hint_rate: 120,
            move_rate: 600,
            move_burst: 30,
            proposal_rate: 4,
            seek_rate: 20,
            max_open_games_per_address: 8,
            move_limit: None,
            cache_games: 2000,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            storage_check: Duration::from_secs(2),
            game_seed: None,
            computer_lease: Duration::from_secs(3),
            behind_proxy: false,
            first_move_time: Duration::from_secs(30),
            claim_after: Duration::from_secs(60),
            secure_cookies: false,
            login_failures_per_account: 5,
            login_failures_per_address: 30,
            signups_per_address: 10,
            login_window: Duration::from_secs(15 * 60),
            session_lifetime: Duration::from_secs(30 * 86_400),
            ping_interval: crate::clocks::PING_INTERVAL,
            pool_wave: Duration::from_secs(10),
            pool_entries_per_client: 4,
            pool_expiry: crate::service::seeks::STALE_AFTER,
        }
    }
}
