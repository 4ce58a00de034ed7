//! The `tabletop` command: a thin front end that translates between people and the library.

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
}

/// Options of `tabletop serve`.
#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: std::net::SocketAddr,
    /// SQLite database file, created on first start; `:memory:` for throw-away games.
    #[arg(long, default_value = "tabletop.db")]
    db: std::path::PathBuf,
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
    /// Games played at once.
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// Moves per game at most.
    #[arg(long, default_value_t = 40)]
    moves: usize,
    /// Seconds at most for the playing phase.
    #[arg(long, default_value_t = 30)]
    seconds: u64,
    /// Milliseconds each client waits before each move (0: back to back).
    #[arg(long, default_value_t = 100)]
    think_ms: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn bench_serve(args: ServeBenchArgs) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("tabletop-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");
    let settings = tabletop_web::bench::LoadSettings {
        games: args.games,
        max_moves: args.moves,
        max_time: std::time::Duration::from_secs(args.seconds),
        think: std::time::Duration::from_millis(args.think_ms),
    };
    let report = tabletop_web::bench::load_benchmark_blocking(settings, &db);
    let _ = std::fs::remove_dir_all(&dir);
    let report = report?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
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
    }
    if report.lost > 0 {
        anyhow::bail!("{} acknowledged moves are missing from the database", report.lost);
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
    if !matches!(cli.command, Command::Serve(_)) {
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
        Command::Serve(a) => tabletop_web::serve_blocking(a.addr, &a.db).map_err(anyhow::Error::from),
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
