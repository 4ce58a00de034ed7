//! `tabletop serve`: a web page for every game and a JSON API, with games kept in SQLite or
//! PostgreSQL.
//!
//! # Layers
//!
//! A request goes down these layers, each using only the ones below it:
//!
//! 1. [`server`]: HTTP. The router, the limits and defences, and one handler per route, which
//!    extracts the request, makes one call into [`service`] (or [`page`]) and turns the answer
//!    or the [`error::ApiError`] into a response. It never touches a game's session (a rule
//!    `tests/layers.rs` checks).
//! 2. [`service`]: the game flow of each action (create, join, claim, move, undo, proposals,
//!    resign, hint, analysis, review, watch): the checks, the pace, the library's session,
//!    storing, telling the event streams, scheduling the computer.
//! 3. [`live`]: the games in memory (a bounded cache over the database), each with its
//!    session, stored row, event channel, presence, proposal and computer; [`engines`] does the
//!    thinking on a bounded pool of workers.
//! 4. [`store`]: the database (versioned schema; every move committed before the answer).
//!
//! Beside them: [`clocks`] (the timing stored with a game: the library's clock, deadlines,
//! the clock's JSON; `live::timer` ends games at their deadlines), [`page`] (the page's embedded files and the catalog of games, which names the
//! page module that draws each), [`config`] (the `tabletop serve` flags), [`sessions`] (the
//! library's [`sessions::Session`], started by name), [`connection`] (per-address caps and the
//! write deadline), [`error`] (why a request failed, one variant per HTTP status) and
//! [`command`].
//!
//! A move, `POST /api/games/{id}/moves`: `server::submit_move` extracts the body, then
//! [`service::play`] locks the seat's game (`live::AppState::seated`), checks the ply, the turn,
//! the storage and the seat's pace, handles the agreement move, plays the move on the session,
//! stores it (`live::LiveGame::store_move`, through [`store`]), tells the event streams
//! (`live::LiveGame::changed`; each stream's [`service::Watch`] renders the state for its
//! viewer), schedules the computer if it is next ([`live::schedule_for`], on [`engines`]), and
//! answers the mover's state, which the handler sends as JSON.

#![warn(missing_docs)]

pub mod clocks;
pub mod command;
pub mod config;
pub mod connection;
pub mod engines;
pub mod error;
pub mod live;
pub mod page;
pub mod passwords;
pub mod ratings;
pub mod server;
pub mod service;
pub mod sessions;
pub mod store;

pub use config::ServeConfig;
pub use live::AppState;
pub use server::{router, serve, start, RunningServer, ServeError};
pub use store::Store;

/// Runs [`serve`] on a new multi-threaded runtime (for the command line), logging to standard
/// error at `log_level` (`error`, `warn`, `info`, `debug`, or a tracing filter).
pub fn serve_blocking(config: ServeConfig, log_level: &str) -> Result<(), ServeError> {
    let filter = log_filter(log_level);
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr).try_init();
    let runtime = tokio::runtime::Runtime::new().map_err(ServeError::Serve)?;
    runtime.block_on(serve(config))
}

/// The server's log filter at `level` (`info`, `debug`, or a full filter): the database
/// client's own debug lines are kept out unless asked for by name, since they print every
/// statement's parameters, tokens among them.
pub fn log_filter(level: &str) -> tracing_subscriber::EnvFilter {
    let filter =
        tracing_subscriber::EnvFilter::try_new(level).unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    if level.contains("tokio_postgres") {
        filter
    } else {
        filter.add_directive("tokio_postgres=info".parse().expect("a valid directive"))
    }
}
