//! `tabletop serve`: a web page for every game and a JSON API, with games kept in SQLite.
//!
//! - [`config`]: the server's settings ([`ServeConfig`], the `tabletop serve` flags).
//! - [`sessions`]: a uniform [`sessions::Session`] over any game, with a small adapter per game.
//! - [`store`]: the SQLite database (versioned schema; every move committed before the answer).
//! - [`live`]: the games in memory (a bounded cache), their events, proposals and computers.
//! - [`connection`]: per-address caps and the write deadline for clients that stop reading.
//! - [`error`]: [`error::ApiError`], why a request failed (one variant per HTTP status).
//! - [`engines`]: the bounded pool of engine workers that does all the thinking.
//! - [`server`]: the router, the page (embedded in the binary), the API handlers, the limits.

#![warn(missing_docs)]

pub mod command;
pub mod config;
pub mod connection;
pub mod engines;
pub mod error;
pub mod live;
pub mod server;
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
