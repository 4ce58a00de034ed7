//! The command-line side of the server: the options of `tabletop serve` and `tabletop bench
//! serve` (clap), turned into a [`ServeConfig`] or a benchmark run. The `tabletop` binary
//! only dispatches to [`serve`] and [`fn@bench`].

use std::time::Duration;

use crate::{ServeConfig, ServeError};

/// Why `tabletop bench serve` failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The benchmark could not run.
    #[error(transparent)]
    Bench(#[from] crate::bench::BenchError),
    /// Writing the scratch directory or the output failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The report could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The benchmark ran and found a fault.
    #[error("{0}")]
    Failed(String),
}

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
    /// Games one client address may create (or join) per minute.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub create_rate: u32,
    /// Hints and analyses one client address may ask per minute.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub hint_rate: u32,
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
}

/// A thinking time: a duration from 1 ms to 10 minutes.
fn parse_think(text: &str) -> Result<Duration, String> {
    let time = tabletop::player_spec::parse_duration(text).ok_or("expected a duration such as 10s or 500ms")?;
    if time < Duration::from_millis(1) || time > Duration::from_secs(600) {
        return Err("the longest thinking time must be from 1ms to 10m".into());
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
            create_rate: self.create_rate,
            hint_rate: self.hint_rate,
            cache_games: self.cache_games as usize,
            game_seed: self.game_seed,
            behind_proxy: self.behind_proxy,
            computer_lease: self.computer_lease,
            ..defaults
        }
    }
}

/// Runs `tabletop serve` until it is stopped.
pub fn serve(args: ServeArgs) -> Result<(), ServeError> {
    crate::serve_blocking(args.config(), &args.log_level)
}

/// Options of `tabletop bench serve`.
#[derive(clap::Args)]
pub struct ServeBenchArgs {
    /// Games played at once (default 200 on the server in this process, 400 with --targets).
    #[arg(long)]
    pub games: Option<usize>,
    /// Server processes already running (e.g. `tabletop serve --db postgres://...` twice), as
    /// http://HOST:PORT separated by commas: game k is created on target k % n, its move i goes
    /// to target i % n, and each move's event is timed on the next target's stream (cross-process
    /// with two targets or more); then every game is read back from every target.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["abuse", "db"])]
    pub targets: Vec<String>,
    /// The database of the server run in this process: a PostgreSQL URL (postgres://USER@HOST/DB)
    /// or a SQLite file (default: a temporary SQLite file).
    #[arg(long, conflicts_with = "abuse")]
    pub db: Option<String>,
    /// Moves per game at most.
    #[arg(long, default_value_t = 40)]
    pub moves: usize,
    /// Seconds at most for the playing phase (default 30), or of the attacks with --abuse (default 60).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub seconds: Option<u64>,
    /// Milliseconds each client waits before each move (0: back to back).
    #[arg(long, default_value_t = 100)]
    pub think_ms: u64,
    /// The abuse benchmark: 150 concurrent hint requesters, 2,000 idle connections, 10,000 game
    /// creations from one client and 20 seats asking for the longest thinking, while 20 ordinary
    /// clients play; against `tabletop serve` with its default limits, as a child process.
    #[arg(long)]
    pub abuse: bool,
    /// With --abuse: run the server in this process instead (its memory is then the whole process's).
    #[arg(long, requires = "abuse")]
    pub in_process: bool,
    /// With --abuse: ordinary clients playing person-vs-person games.
    #[arg(long, default_value_t = 20, requires = "abuse")]
    pub players: usize,
    /// With --abuse: concurrent hint requesters (each from its own loopback address).
    #[arg(long, default_value_t = 150, requires = "abuse")]
    pub hints: usize,
    /// With --abuse: idle connections held.
    #[arg(long, default_value_t = 2000, requires = "abuse")]
    pub idle: usize,
    /// With --abuse: games created by one client.
    #[arg(long, default_value_t = 10_000, requires = "abuse")]
    pub creations: usize,
    /// With --abuse: seats asking for the longest thinking (engine:time=10s).
    #[arg(long, default_value_t = 20, requires = "abuse")]
    pub long_thinkers: usize,
    /// With --abuse: ordinary people against a quick computer (engine:time=100ms), timing its replies.
    #[arg(long, default_value_t = 5, requires = "abuse")]
    pub versus_computer: usize,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What a `--db` value is, without its credentials (a PostgreSQL URL loses everything before `@`).
fn describe_db(db: &str) -> String {
    match crate::store::DatabaseTarget::parse(db) {
        crate::store::DatabaseTarget::Postgres(url) => {
            let place = url.rsplit('@').next().unwrap_or("").split('?').next().unwrap_or("");
            format!("PostgreSQL ({place})")
        }
        crate::store::DatabaseTarget::Sqlite(path) => format!("SQLite ({})", path.display()),
    }
}

/// Runs `tabletop bench serve`: prints the report (or one JSON object) and fails when the
/// benchmark found a fault (a lost move, a refused one, a missing event, the server died).
pub fn bench(args: ServeBenchArgs) -> Result<(), CommandError> {
    let dir = std::env::temp_dir().join(format!("tabletop-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");
    if args.abuse {
        let exe = if args.in_process { None } else { Some(std::env::current_exe()?) };
        let duration = Duration::from_secs(args.seconds.unwrap_or(60));
        let mut settings = crate::bench::AbuseSettings::new(duration, db, exe);
        settings.think = Duration::from_millis(args.think_ms);
        settings.players = args.players;
        settings.hints = args.hints;
        settings.idle = args.idle;
        settings.creations = args.creations;
        settings.long_thinkers = args.long_thinkers;
        settings.versus_computer = args.versus_computer;
        let report = crate::bench::abuse_benchmark_blocking(settings);
        let _ = std::fs::remove_dir_all(&dir);
        let r = report?;
        if args.json {
            println!("{}", serde_json::to_string(&r)?);
        } else {
            println!("abuse for {:.0} s against the server ({}):", r.seconds, r.server);
            println!("  peak memory {:.1} MiB (at the end {:.1} MiB)", r.peak_memory_mib, r.final_memory_mib);
            println!(
                "  ordinary moves ({} players): {} moves, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; answers {:?}",
                r.players, r.moves, r.move_p50_ms, r.move_p99_ms, r.move_max_ms, r.move_statuses
            );
            println!(
                "  {} people against engine:time=100ms: {} replies, p50 {:.0} ms, slowest {:.0} ms, {} still awaited at the end",
                args.versus_computer,
                r.computer_replies,
                r.computer_reply_p50_ms,
                r.computer_reply_max_ms,
                r.computer_replies_awaited
            );
            println!("  {} hint requesters: {:?}", args.hints, r.hint_statuses);
            println!("  {} creations from one client: {:?}", args.creations, r.create_statuses);
            println!(
                "  longest thinking: creations {:?}, {} computer moves seen",
                r.long_think_create_statuses, r.long_think_computer_moves
            );
            println!(
                "  idle connections: {} opened, {} closed by the server (held {:.1} s at the median), {} failed",
                r.idle_opened, r.idle_closed_by_server, r.idle_held_p50_s, r.idle_failed
            );
            println!(
                "  health probe: {}/{} answered, longest gap {:.0} ms, slowest {:.0} ms; server alive at the end: {}; {} ERROR log lines",
                r.probes_ok, r.probes, r.probe_max_gap_ms, r.probe_max_ms, r.server_alive, r.log_errors
            );
        }
        if !r.server_alive {
            return Err(CommandError::Failed("the server died during the attacks".into()));
        }
        return Ok(());
    }
    let default_games = if args.targets.is_empty() { 200 } else { 400 };
    let settings = crate::bench::LoadSettings {
        games: args.games.unwrap_or(default_games),
        max_moves: args.moves,
        max_time: Duration::from_secs(args.seconds.unwrap_or(30)),
        think: Duration::from_millis(args.think_ms),
    };
    let (report, against) = if args.targets.is_empty() {
        let (db, against) = match &args.db {
            Some(url) => (std::path::PathBuf::from(url), describe_db(url)),
            None => (db, "a temporary SQLite file".to_string()),
        };
        (crate::bench::load_benchmark_blocking(settings, &db), format!("one server in this process on {against}"))
    } else {
        let targets = args
            .targets
            .iter()
            .map(|t| crate::bench::target_addr(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| CommandError::Failed(format!("--targets: {e}")))?;
        let plural = if targets.len() == 1 { "" } else { "s" };
        let against = format!("{} server{plural}: {}", targets.len(), args.targets.join(", "));
        (crate::bench::load_benchmark_targets_blocking(settings, &targets), against)
    };
    let _ = std::fs::remove_dir_all(&dir);
    let report = report?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("against {against}");
        println!(
            "{} games at once: {} moves in {:.2} s = {:.0} moves/s; move latency p50 {:.2} ms, p99 {:.2} ms; lost {}",
            report.games,
            report.moves,
            report.seconds,
            report.moves_per_second,
            report.p50_ms,
            report.p99_ms,
            report.lost
        );
        let at = if report.cross_process {
            "cross-process events (at another server than the one taking the move)"
        } else {
            "events at the other seat"
        };
        println!(
            "{at}: {} measured, {} missing; delay after the acknowledgement p50 {:.2} ms, p99 {:.2} ms",
            report.events, report.events_missing, report.event_p50_ms, report.event_p99_ms
        );
        println!("moves refused with 409: {}; games stopped by other errors: {}", report.refused, report.errors);
        if let Some(error) = &report.first_error {
            println!("first error: {error}");
        }
    }
    if report.lost > 0 {
        return Err(CommandError::Failed(format!("{} acknowledged moves are missing from the database", report.lost)));
    }
    if report.refused > 0 || report.errors > 0 {
        return Err(CommandError::Failed(format!(
            "{} moves refused with 409, {} games stopped by errors",
            report.refused, report.errors
        )));
    }
    if report.events_missing > 0 {
        return Err(CommandError::Failed(format!(
            "{} moves never reached the other seat's event stream",
            report.events_missing
        )));
    }
    Ok(())
}
