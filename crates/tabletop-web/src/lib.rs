//! `tabletop serve`: a web page for every game and a JSON API, with games kept in SQLite.
//!
//! - [`sessions`]: a uniform [`sessions::Session`] over any game, with a small adapter per game.
//! - [`store`]: the SQLite database (every move committed before the answer).
//! - [`server`]: the axum router, the page (embedded in the binary) and the API handlers.
//! - [`bench`]: the load benchmark behind `tabletop bench serve`.

#![warn(missing_docs)]

pub mod bench;
pub mod server;
pub mod sessions;
pub mod store;

pub use server::{router, serve, AppState, ServeError};
pub use store::Store;

/// Runs [`serve`] on a new multi-threaded runtime (for the command line).
pub fn serve_blocking(addr: std::net::SocketAddr, db: &std::path::Path) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Runtime::new().map_err(ServeError::Serve)?;
    runtime.block_on(serve(addr, db))
}
