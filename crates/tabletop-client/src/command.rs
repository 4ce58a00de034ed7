//! `tabletop bench serve`: its options (clap) and the report it prints. The `tabletop` binary
//! only dispatches to [`fn@bench`].

use std::time::Duration;

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
    /// The watchers benchmark instead: this many event streams watch one long game while
    /// --watched-moves more moves are played (the server's CPU time and bytes for them).
    #[arg(long, conflicts_with_all = ["abuse", "targets", "db"])]
    pub watchers: Option<usize>,
    /// With --watchers: the moves played before the watchers connect.
    #[arg(long, default_value_t = 380, requires = "watchers")]
    pub moves_before: usize,
    /// With --watchers: the moves played while they watch.
    #[arg(long, default_value_t = 20, requires = "watchers")]
    pub watched_moves: usize,
    /// With --watchers: the server program to measure (default: this one), run as `EXE serve`.
    #[arg(long, requires = "watchers")]
    pub watch_server: Option<std::path::PathBuf>,
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
    /// creations from one client, 20 seats asking for the longest thinking, 300 event streams
    /// that never read, 1,000 event streams from one address and 20 games against a second a
    /// move from one address, while 20 ordinary clients play; against `tabletop serve` with its
    /// default limits, as a child process.
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
    /// With --abuse: event streams that never read (4 KiB receive buffers), each from its own
    /// address, on one long game whose moves are played throughout.
    #[arg(long, default_value_t = 300, requires = "abuse")]
    pub slow_readers: usize,
    /// With --abuse: event streams one address tries to open and hold.
    #[arg(long, default_value_t = 1000, requires = "abuse")]
    pub per_address: usize,
    /// With --abuse: games against engine:time=1s run by one address, moving at once.
    #[arg(long, default_value_t = 20, requires = "abuse")]
    pub scheduling_games: usize,
    /// With --abuse: the `tabletop` binary to serve (another build, to compare), instead of this one.
    #[arg(long, requires = "abuse", conflicts_with = "in_process")]
    pub server_exe: Option<std::path::PathBuf>,
    /// The accounts benchmark instead: this many people sign up and log in (all at once, each
    /// from its own loopback address), pair off into rated games with a clock, and play them
    /// to their ends at --think-ms, against a server with its default limits (with --db).
    #[arg(long, conflicts_with_all = ["abuse", "targets", "watchers"])]
    pub accounts: Option<usize>,
    /// With --accounts: the games' time control.
    #[arg(long, default_value = "5+3", requires = "accounts")]
    pub clock: String,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// What a `--db` value is, without its credentials (a PostgreSQL URL loses everything before `@`).
fn describe_db(db: &str) -> String {
    match tabletop_web::store::DatabaseTarget::parse(db) {
        tabletop_web::store::DatabaseTarget::Postgres(url) => {
            let place = url.rsplit('@').next().unwrap_or("").split('?').next().unwrap_or("");
            format!("PostgreSQL ({place})")
        }
        tabletop_web::store::DatabaseTarget::Sqlite(path) => format!("SQLite ({})", path.display()),
    }
}

/// Runs `tabletop bench serve`: prints the report (or one JSON object) and fails when the
/// benchmark found a fault (a lost move, a refused one, a missing event, the server died).
pub fn bench(args: ServeBenchArgs) -> Result<(), CommandError> {
    let dir = std::env::temp_dir().join(format!("tabletop-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");
    if let Some(watchers) = args.watchers {
        let server_exe = match &args.watch_server {
            Some(exe) => exe.clone(),
            None => std::env::current_exe()?,
        };
        let settings = crate::watchers::WatchersSettings {
            watchers,
            moves_before: args.moves_before,
            moves_watched: args.watched_moves,
            server_exe,
            dir: dir.clone(),
            seed: 1,
        };
        let report = crate::watchers::watchers_benchmark_blocking(settings);
        let _ = std::fs::remove_dir_all(&dir);
        let r = report?;
        if args.json {
            println!("{}", serde_json::to_string(&r)?);
        } else {
            println!(
                "{} watchers ({} refused) of a game at move {}, {} moves watched:",
                r.watchers_accepted, r.watchers_refused, r.moves_before, r.moves_watched
            );
            println!(
                "  server CPU {:.2} s, {:.1} MiB of events sent (median event {} bytes), peak memory {:.1} MiB",
                r.server_cpu_seconds,
                r.bytes_sent as f64 / (1 << 20) as f64,
                r.event_bytes_median,
                r.server_peak_rss_mib
            );
            println!(
                "  last move seen by every watcher {:.0} ms after its answer; lobby meanwhile p99 {:.1} ms, max {:.1} ms",
                r.last_move_delivery_ms, r.lobby_p99_ms, r.lobby_max_ms
            );
        }
        return Ok(());
    }
    if args.abuse {
        let exe = match (&args.server_exe, args.in_process) {
            (Some(exe), _) => Some(exe.clone()),
            (None, true) => None,
            (None, false) => Some(std::env::current_exe()?),
        };
        let duration = Duration::from_secs(args.seconds.unwrap_or(60));
        let mut settings = crate::bench::AbuseSettings::new(duration, db, exe);
        settings.think = Duration::from_millis(args.think_ms);
        settings.players = args.players;
        settings.hints = args.hints;
        settings.idle = args.idle;
        settings.creations = args.creations;
        settings.long_thinkers = args.long_thinkers;
        settings.versus_computer = args.versus_computer;
        settings.slow_readers = args.slow_readers;
        settings.per_address = args.per_address;
        settings.scheduling_games = args.scheduling_games;
        let report = crate::bench::abuse_benchmark_blocking(settings);
        let _ = std::fs::remove_dir_all(&dir);
        let r = report?;
        if args.json {
            println!("{}", serde_json::to_string(&r)?);
        } else {
            println!("abuse for {:.0} s against the server ({}):", r.seconds, r.server);
            println!("  peak memory {:.1} MiB (at the end {:.1} MiB)", r.peak_memory_mib, r.final_memory_mib);
            println!(
                "  kernel TCP memory (whole host): {:.1} MiB before, peak {:.1} MiB",
                r.tcp_memory_start_mib, r.tcp_memory_peak_mib
            );
            println!(
                "  ordinary moves ({} players): {} moves, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; answers {:?}",
                r.players, r.moves, r.move_p50_ms, r.move_p99_ms, r.move_max_ms, r.move_statuses
            );
            println!(
                "  {} people against engine:time=100ms: {} replies, p50 {:.0} ms, p99 {:.0} ms, slowest {:.0} ms, {} still awaited at the end",
                args.versus_computer,
                r.computer_replies,
                r.computer_reply_p50_ms,
                r.computer_reply_p99_ms,
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
                "  {} slow readers on one game ({} moves played): {:?}, {} closed by the server by the end",
                args.slow_readers, r.slow_game_moves, r.slow_reader_statuses, r.slow_readers_closed_by_server
            );
            println!("  {} event streams from one address: {:?}", args.per_address, r.per_address_statuses);
            println!(
                "  {} games against engine:time=1s from one address: creations {:?}, {} computer moves seen",
                args.scheduling_games, r.scheduling_create_statuses, r.scheduling_computer_moves
            );
            println!(
                "  idle connections: {} opened, {} closed by the server (held {:.1} s at the median), {} failed",
                r.idle_opened, r.idle_closed_by_server, r.idle_held_p50_s, r.idle_failed
            );
            println!(
                "  health probe: {}/{} answered, p99 {:.0} ms, longest gap {:.0} ms, slowest {:.0} ms; server alive at the end: {}; {} ERROR log lines",
                r.probes_ok, r.probes, r.probe_p99_ms, r.probe_max_gap_ms, r.probe_max_ms, r.server_alive, r.log_errors
            );
        }
        if !r.server_alive {
            return Err(CommandError::Failed("the server died during the attacks".into()));
        }
        return Ok(());
    }
    if let Some(accounts) = args.accounts {
        return accounts_bench(&args, accounts, db, &dir);
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

/// `tabletop bench serve --accounts N`: runs the accounts benchmark and prints its report.
fn accounts_bench(
    args: &ServeBenchArgs,
    accounts: usize,
    db: std::path::PathBuf,
    dir: &std::path::Path,
) -> Result<(), CommandError> {
    let settings = crate::bench::AccountsSettings {
        accounts,
        max_moves: args.moves,
        max_time: Duration::from_secs(args.seconds.unwrap_or(60)),
        think: Duration::from_millis(args.think_ms),
        clock: args.clock.clone(),
    };
    let (db, against) = match &args.db {
        Some(url) => (std::path::PathBuf::from(url), describe_db(url)),
        None => (db, "a temporary SQLite file".to_string()),
    };
    let report = crate::bench::accounts_benchmark_blocking(settings, &db);
    let _ = std::fs::remove_dir_all(dir);
    let r = report?;
    if args.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        println!("against one server in this process on {against}, its default limits");
        println!(
            "{} accounts signed up and logged in at once in {:.1} s: sign-up p50 {:.0} ms, p99 {:.0} ms; login p50 {:.0} ms, p99 {:.0} ms",
            r.accounts, r.login_phase_seconds, r.signup_p50_ms, r.signup_p99_ms, r.login_p50_ms, r.login_p99_ms
        );
        println!(
            "{} rated games ({} clock) at once: {} moves in {:.2} s = {:.0} moves/s; move latency p50 {:.2} ms, p99 {:.2} ms",
            r.games, args.clock, r.moves, r.seconds, r.moves_per_second, r.p50_ms, r.p99_ms
        );
        println!(
            "games read back over with both rating changes: {}; refused with 429: {}; errors: {}",
            r.rated_games_ended, r.limited, r.errors
        );
        if let Some(error) = &r.first_error {
            println!("first error: {error}");
        }
    }
    if r.errors > 0 || r.limited > 0 {
        return Err(CommandError::Failed(format!("{} errors, {} requests refused with 429", r.errors, r.limited)));
    }
    Ok(())
}
