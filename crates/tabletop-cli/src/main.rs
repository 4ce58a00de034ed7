//! The `tabletop` command: a thin front end that translates between people and the library.

use anyhow::Context;
use clap::{Parser, Subcommand};

mod common;
mod connect;
mod mathable;
mod play;
mod position;
mod reversi;
mod slide;
mod tune;

/// tabletop: classic board games in the terminal, with strong computer players.
#[derive(Parser)]
#[command(name = "tabletop", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a game in the terminal (people and computer players).
    #[command(subcommand)]
    Play(PlayGame),
    /// Computer-vs-computer match with a win/draw/loss summary.
    #[command(subcommand)]
    Match(MatchGame),
    /// Count move paths to a depth (checks move generation).
    #[command(subcommand)]
    Perft(PerftGame),
    /// Exact game-theoretic values of positions.
    #[command(subcommand)]
    Solve(SolveGame),
    /// Speed benchmarks.
    #[command(subcommand)]
    Bench(BenchGame),
    /// Build an opening book with the solver.
    #[command(subcommand)]
    Book(BookGame),
    /// The legal moves of a position, in the game's notation.
    #[command(subcommand)]
    Moves(position::PositionGame),
    /// The value of every legal move of a position (exact where a solver answers in time).
    #[command(subcommand)]
    Analyze(position::PositionGame),
    /// Fit evaluation weights to self-play positions labelled by exact solves.
    #[command(subcommand)]
    Tune(TuneGame),
    /// Serve the web page and JSON API (games kept in SQLite).
    Serve(ServeArgs),
    /// Be a Reversi engine for Othello GUIs: the NBoard protocol on standard input and output.
    Nboard(reversi::NboardArgs),
}

/// Options of `tabletop serve`.
#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: std::net::SocketAddr,
    /// Where games are kept: a SQLite file (a path or sqlite:PATH, created on first start;
    /// `:memory:` for throw-away games), or a PostgreSQL URL (postgres://USER@HOST/DB) that any
    /// number of server processes may share (see docs/DEPLOY.md).
    #[arg(long, default_value = "tabletop.db")]
    db: std::path::PathBuf,
    /// The origin used in invite links (e.g. https://games.example.org); default: the request's Host.
    #[arg(long)]
    public_url: Option<String>,
    /// The longest a computer seat, hint or analysis may think (e.g. 10s, 500ms).
    #[arg(long, default_value = "10s", value_parser = parse_think)]
    max_think: std::time::Duration,
    /// The most memory one engine may ask for (e.g. 64MiB, 1GiB).
    #[arg(long, default_value = "64MiB", value_parser = parse_bytes)]
    engine_memory: u64,
    /// Engine worker threads (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    workers: Option<u16>,
    /// Hints and analyses that may wait for a worker; more get 503.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    queue: u32,
    /// Open connections at most.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_connections: u32,
    /// Games one client address may create (or join) per minute.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    create_rate: u32,
    /// Hints and analyses one client address may ask per minute.
    #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    hint_rate: u32,
    /// Games kept in memory at most (the others stay in the database and load on demand).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    cache_games: u32,
    /// Log level: error, warn, info, debug (or a tracing filter such as tabletop_web=debug).
    #[arg(long, default_value = "info")]
    log_level: String,
    /// For tests only: Mathable bags follow from this seed and the order of creation, so runs
    /// repeat. Never on a public server: whoever knows the seed knows every rack.
    #[arg(long, hide_short_help = true)]
    game_seed: Option<u64>,
    /// Behind a reverse proxy (nginx): count rate limits per client address as the proxy's
    /// X-Forwarded-For gives it. Never when clients reach the server directly.
    #[arg(long)]
    behind_proxy: bool,
    /// With a shared (PostgreSQL) database: how long a process may think for a computer move
    /// without renewing its lease; if it dies, another process takes the move over after this.
    #[arg(long, default_value = "3s", value_parser = parse_think)]
    computer_lease: std::time::Duration,
}

/// A thinking time: a duration from 1 ms to 10 minutes.
fn parse_think(text: &str) -> Result<std::time::Duration, String> {
    let time = tabletop::player_spec::parse_duration(text).ok_or("expected a duration such as 10s or 500ms")?;
    if time < std::time::Duration::from_millis(1) || time > std::time::Duration::from_secs(600) {
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

#[derive(Subcommand)]
enum PlayGame {
    /// Slide: n x n tic-tac-toe where k squares stay empty and tiles slide.
    Slide(slide::PlayArgs),
    /// Reversi / Othello.
    Reversi(reversi::PlayArgs),
    /// Connect-N: Connect Three, Connect Four and other drop games.
    Connect(connect::PlayArgs),
    /// Mathable: the number-tile game.
    Mathable(mathable::PlayArgs),
}

#[derive(Subcommand)]
enum MatchGame {
    /// Slide match.
    Slide(slide::MatchArgs),
    /// Reversi match.
    Reversi(reversi::MatchArgs),
    /// Connect-N match.
    Connect(connect::MatchArgs),
    /// Mathable match.
    Mathable(mathable::MatchArgs),
}

#[derive(Subcommand)]
enum PerftGame {
    /// Slide perft.
    Slide(slide::PerftArgs),
    /// Reversi perft.
    Reversi(reversi::PerftArgs),
    /// Connect-N perft.
    Connect(connect::PerftArgs),
}

#[derive(Subcommand)]
enum SolveGame {
    /// Solve a Slide position.
    Slide(slide::SolveArgs),
    /// Solve a Reversi endgame exactly.
    Reversi(reversi::SolveArgs),
    /// Solve Connect-N positions read from standard input or --position.
    Connect(connect::SolveArgs),
}

#[derive(Subcommand)]
enum BenchGame {
    /// Slide solver and dictionary benchmarks.
    Slide(slide::BenchArgs),
    /// Reversi perft, endgame and search-depth benchmarks.
    Reversi(reversi::BenchArgs),
    /// Connect-N solver benchmarks on the shared test sets.
    Connect(connect::BenchArgs),
    /// Mathable move generation and computer-turn benchmarks.
    Mathable(mathable::BenchArgs),
    /// Load benchmark of `tabletop serve`: many games at once over loopback.
    Serve(ServeBenchArgs),
}

/// Options of `tabletop bench serve`.
#[derive(clap::Args)]
struct ServeBenchArgs {
    /// Games played at once (default 200 on the server in this process, 400 with --targets).
    #[arg(long)]
    games: Option<usize>,
    /// Server processes already running (e.g. `tabletop serve --db postgres://...` twice), as
    /// http://HOST:PORT separated by commas: game k is created on target k % n, its move i goes
    /// to target i % n, and each move's event is timed on the next target's stream (cross-process
    /// with two targets or more); then every game is read back from every target.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["abuse", "db"])]
    targets: Vec<String>,
    /// The database of the server run in this process: a PostgreSQL URL (postgres://USER@HOST/DB)
    /// or a SQLite file (default: a temporary SQLite file).
    #[arg(long, conflicts_with = "abuse")]
    db: Option<String>,
    /// Moves per game at most.
    #[arg(long, default_value_t = 40)]
    moves: usize,
    /// Seconds at most for the playing phase (default 30), or of the attacks with --abuse (default 60).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=600))]
    seconds: Option<u64>,
    /// Milliseconds each client waits before each move (0: back to back).
    #[arg(long, default_value_t = 100)]
    think_ms: u64,
    /// The abuse benchmark: 150 concurrent hint requesters, 2,000 idle connections, 10,000 game
    /// creations from one client and 20 seats asking for the longest thinking, while 20 ordinary
    /// clients play; against `tabletop serve` with its default limits, as a child process.
    #[arg(long)]
    abuse: bool,
    /// With --abuse: run the server in this process instead (its memory is then the whole process's).
    #[arg(long, requires = "abuse")]
    in_process: bool,
    /// With --abuse: ordinary clients playing person-vs-person games.
    #[arg(long, default_value_t = 20, requires = "abuse")]
    players: usize,
    /// With --abuse: concurrent hint requesters (each from its own loopback address).
    #[arg(long, default_value_t = 150, requires = "abuse")]
    hints: usize,
    /// With --abuse: idle connections held.
    #[arg(long, default_value_t = 2000, requires = "abuse")]
    idle: usize,
    /// With --abuse: games created by one client.
    #[arg(long, default_value_t = 10_000, requires = "abuse")]
    creations: usize,
    /// With --abuse: seats asking for the longest thinking (engine:time=10s).
    #[arg(long, default_value_t = 20, requires = "abuse")]
    long_thinkers: usize,
    /// With --abuse: ordinary people against a quick computer (engine:time=100ms), timing its replies.
    #[arg(long, default_value_t = 5, requires = "abuse")]
    versus_computer: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
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

fn bench_serve(args: ServeBenchArgs) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("tabletop-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");
    if args.abuse {
        let exe = if args.in_process { None } else { Some(std::env::current_exe()?) };
        let duration = std::time::Duration::from_secs(args.seconds.unwrap_or(60));
        let mut settings = tabletop_web::bench::AbuseSettings::new(duration, db, exe);
        settings.think = std::time::Duration::from_millis(args.think_ms);
        settings.players = args.players;
        settings.hints = args.hints;
        settings.idle = args.idle;
        settings.creations = args.creations;
        settings.long_thinkers = args.long_thinkers;
        settings.versus_computer = args.versus_computer;
        let report = tabletop_web::bench::abuse_benchmark_blocking(settings);
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
            anyhow::bail!("the server died during the attacks");
        }
        return Ok(());
    }
    let default_games = if args.targets.is_empty() { 200 } else { 400 };
    let settings = tabletop_web::bench::LoadSettings {
        games: args.games.unwrap_or(default_games),
        max_moves: args.moves,
        max_time: std::time::Duration::from_secs(args.seconds.unwrap_or(30)),
        think: std::time::Duration::from_millis(args.think_ms),
    };
    let (report, against) = if args.targets.is_empty() {
        let (db, against) = match &args.db {
            Some(url) => (std::path::PathBuf::from(url), describe_db(url)),
            None => (db, "a temporary SQLite file".to_string()),
        };
        (
            tabletop_web::bench::load_benchmark_blocking(settings, &db),
            format!("one server in this process on {against}"),
        )
    } else {
        let targets = args
            .targets
            .iter()
            .map(|t| tabletop_web::bench::target_addr(t))
            .collect::<Result<Vec<_>, _>>()
            .context("--targets")?;
        let plural = if targets.len() == 1 { "" } else { "s" };
        let against = format!("{} server{plural}: {}", targets.len(), args.targets.join(", "));
        (tabletop_web::bench::load_benchmark_targets_blocking(settings, &targets), against)
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
        anyhow::bail!("{} acknowledged moves are missing from the database", report.lost);
    }
    if report.refused > 0 || report.errors > 0 {
        anyhow::bail!("{} moves refused with 409, {} games stopped by errors", report.refused, report.errors);
    }
    if report.events_missing > 0 {
        anyhow::bail!("{} moves never reached the other seat's event stream", report.events_missing);
    }
    Ok(())
}

#[derive(Subcommand)]
enum BookGame {
    /// Build a Connect-N opening book.
    Connect(connect::BookArgs),
}

#[derive(Subcommand)]
enum TuneGame {
    /// Fit the Reversi engine's evaluation (writes the weight file the build includes).
    Reversi(tune::ReversiArgs),
}

fn main() {
    let cli = Cli::parse();
    // An NBoard engine's closed pipe must be an error the player handles, not the end of tabletop.
    let runs_engines = match &cli.command {
        Command::Match(MatchGame::Reversi(a)) => a.options.players.iter().any(|s| s.name == "nboard"),
        Command::Play(PlayGame::Reversi(a)) => a.players.iter().any(|s| s.contains("nboard")),
        _ => false,
    };
    if !matches!(cli.command, Command::Serve(_)) && !runs_engines {
        end_quietly_on_closed_pipe();
    }
    let result = match cli.command {
        Command::Play(PlayGame::Slide(a)) => slide::play(a),
        Command::Play(PlayGame::Reversi(a)) => reversi::play(a),
        Command::Play(PlayGame::Connect(a)) => connect::play(a),
        Command::Play(PlayGame::Mathable(a)) => mathable::play(a),
        Command::Match(MatchGame::Slide(a)) => slide::run_match(a),
        Command::Match(MatchGame::Reversi(a)) => reversi::run_match(a),
        Command::Match(MatchGame::Connect(a)) => connect::run_match(a),
        Command::Match(MatchGame::Mathable(a)) => mathable::run_match(a),
        Command::Perft(PerftGame::Slide(a)) => slide::perft(a),
        Command::Perft(PerftGame::Reversi(a)) => reversi::perft(a),
        Command::Perft(PerftGame::Connect(a)) => connect::perft(a),
        Command::Solve(SolveGame::Slide(a)) => slide::solve(a),
        Command::Solve(SolveGame::Reversi(a)) => reversi::solve(a),
        Command::Solve(SolveGame::Connect(a)) => connect::solve(a),
        Command::Bench(BenchGame::Slide(a)) => slide::bench(a),
        Command::Bench(BenchGame::Reversi(a)) => reversi::bench(a),
        Command::Bench(BenchGame::Connect(a)) => connect::bench(a),
        Command::Bench(BenchGame::Mathable(a)) => mathable::bench(a),
        Command::Bench(BenchGame::Serve(a)) => bench_serve(a),
        Command::Book(BookGame::Connect(a)) => connect::book(a),
        Command::Moves(g) => position::moves(g),
        Command::Analyze(g) => position::analyze(g),
        Command::Tune(TuneGame::Reversi(a)) => tune::reversi(a),
        Command::Nboard(a) => reversi::nboard(a),
        Command::Serve(a) => {
            let defaults = tabletop_web::ServeConfig::default();
            let config = tabletop_web::ServeConfig {
                addr: a.addr,
                db: a.db,
                public_url: a.public_url,
                max_think: a.max_think,
                engine_memory: a.engine_memory,
                workers: a.workers.map_or(defaults.workers, usize::from),
                queue: a.queue as usize,
                max_connections: a.max_connections as usize,
                create_rate: a.create_rate,
                hint_rate: a.hint_rate,
                cache_games: a.cache_games as usize,
                game_seed: a.game_seed,
                behind_proxy: a.behind_proxy,
                computer_lease: a.computer_lease,
                ..defaults
            };
            tabletop_web::serve_blocking(config, &a.log_level).map_err(anyhow::Error::from)
        }
    };
    if let Err(err) = result {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

/// Restores the default action of SIGPIPE, which Rust programs ignore: otherwise
/// `tabletop ... | head` makes the next `println!` panic on the closed pipe, where Unix tools
/// end quietly. Not for the server, whose closed connections must not end it.
#[cfg(unix)]
fn end_quietly_on_closed_pipe() {
    // SAFETY: called first thing in main, before any other thread exists; SIG_DFL is a valid
    // action for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn end_quietly_on_closed_pipe() {}
