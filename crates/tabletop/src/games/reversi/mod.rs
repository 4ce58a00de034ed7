//! Reversi / Othello: exact rules on bitboards, a fast perft, an exact endgame solver, the
//! origin document's "classic" player and the engine's player.
//!
//! - [`rules`]: squares, moves, positions ([`Reversi`]), the OBF notation, transcripts and the
//!   game-logic operations (turn, discs, open squares, winner, legality, occupant, place, flips,
//!   pass; undo lives in [`Record`](crate::Record)).
//! - [`bitboard`]: move generation and flips on two `u64`s.
//! - [`perft`]: the specialised move-path counter (bulk counting at the last plies, a
//!   symmetry-reduced table of subtree counts).
//! - [`solver`]: the exact endgame solver.
//! - [`lockless`]: the table slots the threads of one search share without locks.
//! - [`symmetry`]: the eight symmetries of the board and the canonical form of a position.
//! - [`classic`]: the origin document's fixed-depth square-weight player.
//! - [`patterns`]: the engine's pattern evaluation (tables per phase, learned from data).
//! - [`eval`]: the former ten-feature evaluation, kept for `engine-v1`.
//! - [`engine`]: the engine's search (PVS, transposition table, Multi-ProbCut).
//! - [`book`]: the opening book the engine builds for itself (`tabletop book reversi`), built
//!   into the program and consulted by the `engine` player and levels 7-10.
//! - [`openings`]: the well-known opening lines by name, found for a game's moves and their
//!   symmetric images.
//! - [`levels`]: the ten levels of play for people (`engine:level=1..10`, by number or name).
//! - `tuning` (with the `tune` feature): self-play, exact labels, the fits of both evaluations
//!   and of ProbCut.
//! - [`ggf`]: GGF game records (read and write, to and from a [`Record`](crate::Record)).
//! - [`nboard`]: the NBoard protocol: the engine side ([`nboard::serve`]) and a player that
//!   drives any NBoard engine ([`nboard::NboardPlayer`]).
//! - [`players`]: the player tables (`engine`, `engine-v1`, `classic`, `random`; `nboard` for
//!   local front ends only) for specs.
//! - [`mod@bench`]: the FFO endgame lines and the benchmarks' seeded positions.
//! - [`accuracy`]: the midgame-accuracy benchmark (the discs a player's move loses against the
//!   exact solver, on seeded positions of 20-24 empties).
//!
//! Undo, as for every game, is [`Record::undo`](crate::Record::undo):
//!
//! ```
//! use tabletop::games::reversi::Reversi;
//! use tabletop::{Game, Record};
//! let mut record = Record::new(Reversi::new());
//! record.play("f5".parse().unwrap()).unwrap();
//! assert_eq!(record.undo().map(|m| m.to_string()), Some("f5".to_string()));
//! assert_eq!(*record.current(), Reversi::new());
//! ```

pub mod accuracy;
pub mod analysis;
pub mod review;
pub mod session;
pub mod environment;
pub mod bench;
pub mod bitboard;
pub mod book;
pub mod classic;
pub mod conformance;
pub mod engine;
pub mod eval;
pub mod ggf;
pub mod levels;
pub mod lockless;
pub mod nboard;
pub mod openings;
pub mod patterns;
pub mod perft;
pub mod players;
pub mod probcut;
pub mod rules;
pub mod solver;
pub mod symmetry;
#[cfg(feature = "tune")]
pub mod tuning;

pub use rules::{
    Color, ColorError, Reversi, ReversiMove, ReversiMoveError, ReversiPositionError, Square, TranscriptError,
};
#[cfg(feature = "cli")]
pub mod options;
#[cfg(feature = "cli")]
pub mod terminal;
#[cfg(feature = "cli")]
pub mod tools;
#[cfg(feature = "tune")]
pub mod tune_command;

/// Reversi / Othello in the [registry](crate::registry).
pub static ENTRY: crate::registry::GameEntry = crate::registry::GameEntry {
    name: <Reversi as crate::Game>::NAME,
    title: "Reversi / Othello",
    about: "discs flip when outflanked; the most discs at the end wins",
    player_kinds: <Reversi as crate::players::Players>::PLAYER_KINDS,
    session: &session::SESSIONS,
    environment: Some(&environment::ENVIRONMENT),
    conformance: conformance::check,
    #[cfg(feature = "cli")]
    commands: &tools::Commands,
    load_tests: &[
        (crate::registry::LoadRole::QuickComputer, r#"{"seats": ["human", "engine:time=100ms"]}"#),
        (crate::registry::LoadRole::DefaultComputer, r#"{"seats": ["human", "engine"]}"#),
        (crate::registry::LoadRole::SecondAMoveFirst, r#"{"seats": ["engine:time=1s", "human"]}"#),
        (crate::registry::LoadRole::LongestThinkingFirst, r#"{"seats": ["engine:time=10s", "human"]}"#),
        (crate::registry::LoadRole::BetweenPeople, r#"{"seats": ["human", "human"]}"#),
    ],
};
