//! Slide: n x n tic-tac-toe in which k squares always stay empty and, once only k are empty,
//! players slide their tiles.
//!
//! - [`rules`]: the board, moves, the configuration string (`obbbogbog`).
//! - [`dictionary`]: the origin document's hand-written hash dictionary.
//! - [`solver`]: exact values by retrograde analysis (slide phase) and memoised search (placement).
//! - [`players`]: the document's deliberately weak minimax player (`classic`) and the engine's
//!   player (exact when the solver table fits, heuristic search otherwise).
//! - [`analysis`]: every move's value; [`conformance`]: the generic suite's reference rules.
//! - `terminal` and `tools` (feature `cli`): the terminal presenter and the command-line tools.

pub mod analysis;
pub mod review;
pub mod session;
pub mod environment;
pub mod conformance;
pub mod dictionary;
pub mod players;
pub mod rules;
pub mod solver;

pub use rules::{Cell, Side, Slide, SlideMove, SlideMoveError, SlidePositionError, SlideVariant, SlideVariantError};
#[cfg(feature = "cli")]
pub mod options;
#[cfg(feature = "cli")]
pub mod terminal;
#[cfg(feature = "cli")]
pub mod tools;

/// Slide in the [registry](crate::registry).
pub static ENTRY: crate::registry::GameEntry = crate::registry::GameEntry {
    name: <Slide as crate::Game>::NAME,
    title: "Slide",
    about: "n x n tic-tac-toe in which k squares stay empty; then tiles slide",
    player_kinds: <Slide as crate::players::Players>::PLAYER_KINDS,
    session: &session::SESSIONS,
    environment: Some(&environment::ENVIRONMENT),
    conformance: conformance::check,
    #[cfg(feature = "cli")]
    commands: &tools::Commands,
    load_tests: &[
        (crate::registry::LoadRole::LongBetweenPeople, r#"{"options": {"size": 4, "empty": 2}, "seats": ["human", "human"]}"#),
        (crate::registry::LoadRole::LongerBetweenPeople, r#"{"options": {"size": 5, "empty": 2}, "seats": ["human", "human"]}"#),
    ],
};
