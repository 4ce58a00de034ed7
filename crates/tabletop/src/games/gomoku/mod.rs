//! Gomoku (free-style): five or more in a row wins, on boards of 7 x 7 to 19 x 19 (15 x 15 by
//! default). The fifth game, added as the registry's proof: everything of it lives in this folder
//! plus one line in `games/mod.rs` and its page module.
//!
//! - [`rules`]: the bitsets, moves (`h8`), the position notation, errors.
//! - [`engine`]: the computer players (engine, greedy, random) and the evaluation.
//! - [`analysis`]: every move's value; [`conformance`]: the suite's naive reference rules.
//! - [`session`]: the server's adapter; `terminal` and `tools` (feature `cli`): the command line.

pub mod analysis;
pub mod review;
pub mod conformance;
pub mod engine;
pub mod rules;
pub mod session;
pub mod environment;
pub mod threats;
#[cfg(feature = "cli")]
pub mod terminal;
#[cfg(feature = "cli")]
pub mod tools;

pub use rules::{Gomoku, GomokuMove, GomokuMoveError, GomokuPositionError, GomokuVariant, GomokuVariantError, Point, Stone};

/// Gomoku in the [registry](crate::registry).
pub static ENTRY: crate::registry::GameEntry = crate::registry::GameEntry {
    name: <Gomoku as crate::Game>::NAME,
    title: "Gomoku",
    about: "five in a row on a 15 x 15 board (free-style)",
    player_kinds: <Gomoku as crate::players::Players>::PLAYER_KINDS,
    session: &session::SESSIONS,
    environment: Some(&environment::ENVIRONMENT),
    conformance: conformance::check,
    #[cfg(feature = "cli")]
    commands: &tools::Commands,
    load_tests: &[
        (crate::registry::LoadRole::HundredsOfPlies, r#"{"options": {"size": 19}, "seats": ["human", "human"]}"#),
    ],
};
