//! The `tabletop` command: a thin front end that translates between people and the library.

use clap::{Parser, Subcommand};
use tabletop::tools;

mod common;
mod connect;
mod mathable;
mod play;
mod reversi;
mod slide;

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
    Moves(tools::position::PositionGame),
    /// The value of every legal move of a position (exact where a solver answers in time).
    #[command(subcommand)]
    Analyze(tools::position::PositionGame),
    /// Fit evaluation weights to self-play positions labelled by exact solves.
    #[command(subcommand)]
    Tune(TuneGame),
    /// Serve the web page and JSON API (games kept in SQLite).
    Serve(tabletop_web::command::ServeArgs),
    /// Be a Reversi engine for Othello GUIs: the NBoard protocol on standard input and output.
    Nboard(reversi::NboardArgs),
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
    Mathable(tools::mathable::MatchArgs),
}

#[derive(Subcommand)]
enum PerftGame {
    /// Slide perft.
    Slide(tools::slide::PerftArgs),
    /// Reversi perft.
    Reversi(tools::reversi::PerftArgs),
    /// Connect-N perft.
    Connect(tools::connect::PerftArgs),
}

#[derive(Subcommand)]
enum SolveGame {
    /// Solve a Slide position.
    Slide(tools::slide::SolveArgs),
    /// Solve a Reversi endgame exactly.
    Reversi(tools::reversi::SolveArgs),
    /// Solve Connect-N positions read from standard input or --position.
    Connect(tools::connect::SolveArgs),
}

#[derive(Subcommand)]
enum BenchGame {
    /// Slide solver and dictionary benchmarks.
    Slide(tools::slide::BenchArgs),
    /// Reversi perft, endgame and search-depth benchmarks.
    Reversi(tools::reversi::BenchArgs),
    /// Connect-N solver benchmarks on the shared test sets.
    Connect(tools::connect::BenchArgs),
    /// Mathable move generation and computer-turn benchmarks.
    Mathable(tools::mathable::BenchArgs),
    /// Load benchmark of `tabletop serve`: many games at once over loopback.
    Serve(tabletop_web::command::ServeBenchArgs),
}

#[derive(Subcommand)]
enum BookGame {
    /// Build a Connect-N opening book.
    Connect(tools::connect::BookArgs),
}

#[derive(Subcommand)]
enum TuneGame {
    /// Fit the Reversi engine's evaluation (writes the weight file the build includes).
    Reversi(tools::tune::ReversiArgs),
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
    if let Err(err) = run(cli.command) {
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Play(PlayGame::Slide(a)) => slide::play(a)?,
        Command::Play(PlayGame::Reversi(a)) => reversi::play(a)?,
        Command::Play(PlayGame::Connect(a)) => connect::play(a)?,
        Command::Play(PlayGame::Mathable(a)) => mathable::play(a)?,
        Command::Match(MatchGame::Slide(a)) => slide::run_match(a)?,
        Command::Match(MatchGame::Reversi(a)) => reversi::run_match(a)?,
        Command::Match(MatchGame::Connect(a)) => connect::run_match(a)?,
        Command::Match(MatchGame::Mathable(a)) => tools::mathable::run_match(a)?,
        Command::Perft(PerftGame::Slide(a)) => tools::slide::perft(a)?,
        Command::Perft(PerftGame::Reversi(a)) => tools::reversi::perft(a)?,
        Command::Perft(PerftGame::Connect(a)) => tools::connect::perft(a)?,
        Command::Solve(SolveGame::Slide(a)) => tools::slide::solve(a)?,
        Command::Solve(SolveGame::Reversi(a)) => tools::reversi::solve(a)?,
        Command::Solve(SolveGame::Connect(a)) => tools::connect::solve(a)?,
        Command::Bench(BenchGame::Slide(a)) => tools::slide::bench(a)?,
        Command::Bench(BenchGame::Reversi(a)) => tools::reversi::bench(a)?,
        Command::Bench(BenchGame::Connect(a)) => tools::connect::bench(a)?,
        Command::Bench(BenchGame::Mathable(a)) => tools::mathable::bench(a)?,
        Command::Bench(BenchGame::Serve(a)) => tabletop_web::command::bench(a)?,
        Command::Book(BookGame::Connect(a)) => tools::connect::book(a)?,
        Command::Moves(g) => tools::position::moves(g)?,
        Command::Analyze(g) => tools::position::analyze(g)?,
        Command::Tune(TuneGame::Reversi(a)) => tools::tune::reversi(a)?,
        Command::Nboard(a) => reversi::nboard(a)?,
        Command::Serve(a) => tabletop_web::command::serve(a)?,
    }
    Ok(())
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
