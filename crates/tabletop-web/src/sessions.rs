//! The server's view of games: the library's [`Session`] (see `tabletop::session`), started by
//! name through the game registry, so this crate names no game.

use serde_json::Value;
pub use tabletop::session::{Caps, EngineSlot, Session, SessionError};

/// The names of the games the server offers (every game in the registry).
pub fn games() -> Vec<&'static str> {
    tabletop::registry::GAMES.iter().map(|g| g.name).collect()
}

/// Starts a session of a named game from its public options and the server's secret.
pub fn new_session(game: &str, options: &Value, secret: &Value) -> Result<Box<dyn Session>, SessionError> {
    match tabletop::registry::GAMES.iter().find(|g| g.name == game) {
        Some(entry) => entry.session.new_session(options, secret),
        None => Err(SessionError::Options(format!("unknown game {game:?}; available: {}", games().join(", ")))),
    }
}

/// Fills in what the server keeps to itself for a new game (a random bag seed, ...).
pub fn complete_secret(game: &str, secret: &mut Value) {
    if let Some(entry) = tabletop::registry::GAMES.iter().find(|g| g.name == game) {
        entry.session.complete_secret(secret);
    }
}
