//! The command-line side of the server: the options of `tabletop serve` (clap), turned into a
//! [`ServeConfig`]. The `tabletop` binary only dispatches to [`serve`]; `tabletop bench serve`
//! lives with the benchmarks (crate `tabletop-client`).

use std::time::Duration;

use crate::{ServeConfig, ServeError};

/// Options of `tabletop serve`.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: std::net::SocketAddr,
    /// Where games are kept: a SQLite file (a path or sqlite:PATH, created on first start;
    /// `:memory:` for throw-away games), or a PostgreSQL URL (postgres://USER@HOST/DB) that any
    /// number of server processes may share (see docs/DEPLOY.md).
    #[arg(long, default_value = "tabletop.db")]
    pub db: std::path::PathBuf,
    /// The origin used in invite links (e.g. `https://games.example.org`); default: the request's Host.
    #[arg(long)]
    pub public_url: Option<String>,
    /// The longest a computer seat, hint or analysis may think (e.g. 10s, 500ms).
    #[arg(long, default_value = "10s", value_parser = parse_think)]
    pub max_think: Duration,
    /// The most memory one engine may ask for (e.g. 64MiB, 1GiB).
    #[arg(long, default_value = "64MiB", value_parser = parse_bytes)]
    pub engine_memory: u64,
    /// Engine worker threads (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: Option<u16>,
    /// Hints and analyses that may wait for a worker; more get 503.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub queue: u32,
    /// Open connections at most.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,
    /// Open connections one client address may hold (not applied with --behind-proxy).
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections_per_address: u32,
    /// Event streams one client address may hold open (429 beyond).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_streams_per_address: u32,
    /// Event streams open on one game (429 beyond).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_streams_per_game: u32,
    /// Seconds a write may wait for a client that stopped reading before its connection closes.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout: u64,
    /// Games one account (else one client address) may start per minute: create, join, open an
    /// invitation; a tenth of that at once. Shared by every process on one database.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub create_rate: u32,
    /// Hints and analyses one client address may ask per minute (counted by each process: its
    /// engine workers).
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub hint_rate: u32,
    /// Moves and takebacks one player may make per minute across all their games, by account
    /// (else by client address); far above a person's pace; 429 beyond. Shared by every process.
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub move_rate: u32,
    /// Moves one player may make at once before --move-rate holds them back (a new game brings
    /// no new allowance).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub move_burst: u32,
    /// Proposals (takebacks, ending the game, rematches) one player may make per minute across
    /// their games, after a first three. Shared by every process.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub proposal_rate: u32,
    /// Seeks (open games put in the lobby, quick-pairing entries) one account (else one client
    /// address) may make per minute; half that at once. Shared by every process.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub seek_rate: u32,
    /// Games with open seats one client address may keep in the lobby (for an hour at most;
    /// counted by each process).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_open_games_per_address: u32,
    /// The most moves any game may have here (default: each game's own limit, see docs/API.md).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub move_limit: Option<u32>,
    /// Games kept in memory at most (the others stay in the database and load on demand).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub cache_games: u32,
    /// Log level: error, warn, info, debug (or a tracing filter such as tabletop_web=debug).
    #[arg(long, default_value = "info")]
    pub log_level: String,
    /// For tests only: Mathable bags follow from this seed and the order of creation, so runs
    /// repeat. Never on a public server: whoever knows the seed knows every rack.
    #[arg(long, hide_short_help = true)]
    pub game_seed: Option<u64>,
    /// Behind a reverse proxy (nginx): count rate limits per client address as the proxy's
    /// X-Forwarded-For gives it. Never when clients reach the server directly.
    #[arg(long)]
    pub behind_proxy: bool,
    /// With a shared (PostgreSQL) database: how long a process may think for a computer move
    /// without renewing its lease; if it dies, another process takes the move over after this.
    #[arg(long, default_value = "3s", value_parser = parse_think)]
    pub computer_lease: Duration,
    /// In a game with a clock (in one sitting): how long a person has for their first move
    /// before the game is aborted.
    #[arg(long, default_value = "30s", value_parser = parse_wait)]
    pub first_move_time: Duration,
    /// How long an opponent must have been away before the other player may claim the game.
    #[arg(long, default_value = "60s", value_parser = parse_wait)]
    pub claim_after: Duration,
    /// Behind TLS (a proxy terminating HTTPS): mark the session cookie Secure. On by itself when
    /// --public-url is https://.
    #[arg(long)]
    pub secure_cookies: bool,
    /// Failed logins on one account name per 15 minutes before further attempts get 429.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub login_failures_per_account: u32,
    /// Failed logins from one client address per 15 minutes before further attempts get 429.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub login_failures_per_address: u32,
    /// Accounts one client address may create per 15 minutes.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub signups_per_address: u32,
    /// How often quick pairing pairs the clients waiting in its pools (a wave), e.g. 10s.
    #[arg(long, default_value = "10s", value_parser = parse_wave)]
    pub pool_wave: Duration,
    /// Pools one client (an account, or an anonymous client's address) may wait in at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub pool_entries_per_client: u32,
}

/// A wave interval: a duration from 100 ms to 10 minutes.
fn parse_wave(text: &str) -> Result<Duration, String> {
    let time = tabletop::player_spec::parse_duration(text).ok_or("expected a duration such as 10s")?;
    if time < Duration::from_millis(100) || time > Duration::from_secs(600) {
        return Err("the wave interval must be from 100ms to 10m".into());
    }
    Ok(time)
}

/// A thinking time: a duration from 1 ms to 10 minutes.
fn parse_think(text: &str) -> Result<Duration, String> {
    let time = tabletop::player_spec::parse_duration(text).ok_or("expected a duration such as 10s or 500ms")?;
    if time < Duration::from_millis(1) || time > Duration::from_secs(600) {
        return Err("the longest thinking time must be from 1ms to 10m".into());
    }
    Ok(time)
}

/// A wait (a first move's time, an absence before a claim): a duration from 1 ms to a day.
fn parse_wait(text: &str) -> Result<Duration, String> {
    let time = tabletop::player_spec::parse_duration(text).ok_or("expected a duration such as 30s or 2m")?;
    if time < Duration::from_millis(1) || time > Duration::from_secs(86_400) {
        return Err("the wait must be from 1ms to 24h".into());
    }
    Ok(time)
}

/// A size in bytes: `64MiB`, `1GiB`, `512KiB` or a bare number of bytes, from 1 MiB to 1 TiB.
fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("unknown unit {unit:?}: use KiB, MiB or GiB")),
    };
    let bytes = number.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)).ok_or("expected a size such as 64MiB")?;
    if !(1 << 20..=1 << 40).contains(&bytes) {
        return Err("the engine memory must be from 1MiB to 1TiB".into());
    }
    Ok(bytes)
}

impl ServeArgs {
    /// The server's configuration from these options (the others keep their defaults).
    pub fn config(&self) -> ServeConfig {
        let defaults = ServeConfig::default();
        ServeConfig {
            addr: self.addr,
            db: self.db.clone(),
            public_url: self.public_url.clone(),
            max_think: self.max_think,
            engine_memory: self.engine_memory,
            workers: self.workers.map_or(defaults.workers, usize::from),
            queue: self.queue as usize,
            max_connections: self.max_connections as usize,
            max_connections_per_address: self.max_connections_per_address as usize,
            max_streams_per_address: self.max_streams_per_address as usize,
            max_streams_per_game: self.max_streams_per_game as usize,
            write_timeout: Duration::from_secs(self.write_timeout),
            create_rate: self.create_rate,
            hint_rate: self.hint_rate,
            move_rate: self.move_rate,
            move_burst: self.move_burst,
            proposal_rate: self.proposal_rate,
            seek_rate: self.seek_rate,
            max_open_games_per_address: self.max_open_games_per_address as usize,
            move_limit: self.move_limit.map(|n| n as usize),
            cache_games: self.cache_games as usize,
            game_seed: self.game_seed,
            behind_proxy: self.behind_proxy,
            computer_lease: self.computer_lease,
            first_move_time: self.first_move_time,
            claim_after: self.claim_after,
            secure_cookies: self.secure_cookies,
            login_failures_per_account: self.login_failures_per_account,
            login_failures_per_address: self.login_failures_per_address,
            signups_per_address: self.signups_per_address,
            pool_wave: self.pool_wave,
            pool_entries_per_client: self.pool_entries_per_client as usize,
            ..defaults
        }
    }
}

/// Runs `tabletop serve` until it is stopped.
pub fn serve(args: ServeArgs) -> Result<(), ServeError> {
    crate::serve_blocking(args.config(), &args.log_level)
}
