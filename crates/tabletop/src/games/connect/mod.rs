//! Connect-N: Connect Three, Connect Four and other drop games on boards up to 9 x 9.
//!
//! - [`rules`]: the bitboard, moves, the position notation (Pons' column sequences).
//! - [`solver`]: the exact solver (Pons' score convention).
//! - [`book`]: the opening book format and the shipped 7x6 book.
//! - [`engine`]: the computer players (perfect, levels, random).
//! - [`build`]: building books with the solver; [`mod@bench`]: the solver benchmark on Pons' sets.

pub mod analysis;
pub mod review;
pub mod session;
pub mod environment;
pub mod bench;
pub mod book;
pub mod build;
pub mod conformance;
pub mod engine;
pub mod rules;
pub mod solver;

pub use rules::{Column, Connect, ConnectMoveError, ConnectPositionError, ConnectVariant, ConnectVariantError, Side};
#[cfg(feature = "cli")]
pub mod options;
#[cfg(feature = "cli")]
pub mod terminal;
#[cfg(feature = "cli")]
pub mod tools;

/// Connect-N in the [registry](crate::registry).
pub static ENTRY: crate::registry::GameEntry = crate::registry::GameEntry {
    name: <Connect as crate::Game>::NAME,
    title: "Connect-N",
    about: "drop pieces into columns; N in a row wins (Connect Three, Connect Four)",
    player_kinds: <Connect as crate::players::Players>::PLAYER_KINDS,
    session: &session::SESSIONS,
    environment: Some(&environment::ENVIRONMENT),
    conformance: conformance::check,
    #[cfg(feature = "cli")]
    commands: &tools::Commands,
    load_tests: &[
        (crate::registry::LoadRole::LongestThinkingSecond, r#"{"options": {"preset": "connect4"}, "seats": ["human", "engine:time=10s"]}"#),
    ],
};
