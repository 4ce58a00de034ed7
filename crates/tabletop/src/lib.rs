//! # tabletop
//!
//! Rules, notation and computer players for classic board games, kept apart from any user
//! interface: Slide (n x n tic-tac-toe with sliding), Reversi, Connect-N and Mathable.
//!
//! - [`Game`] is the rules of one game as a position; [`TwoPlayer`] adds what the generic
//!   [`search`] needs. Each game lives in its own module under [`games`].
//! - [`Record`] is a game being played: history, undo, draw by repetition.
//! - [`Player`] is anything that chooses moves; [`PlayerSpec`] is the text form (`engine:time=1s`).
//! - [`arena`] plays matches, [`perft()`] counts move paths and [`conformance`] is the suite every
//!   game passes.
//!
//! ```
//! use tabletop::games::slide::{Slide, SlideVariant};
//! use tabletop::{Game, Record};
//! let mut record = Record::new(Slide::start(&SlideVariant::new(3, 1).unwrap()));
//! let mv = record.current().parse_move("5").unwrap();
//! record.play(mv).unwrap();
//! assert_eq!(record.current().notation(), "ggggbgggg");
//! ```

#![warn(missing_docs)]
// Edition 2024 (chosen so that doctests compile as one program) lets `if let` chain; nested ifs
// written before it stay as they are.
#![allow(clippy::collapsible_if)]

pub mod analysis;
pub mod arena;
pub mod cancel;
pub mod clock;
pub mod conformance;
pub mod environment;
pub mod external;
pub mod game;
pub mod games;
pub mod grid;
pub mod levels;
pub mod memory;
pub mod perft;
pub mod player_spec;
pub mod players;
pub mod rating;
pub mod record;
pub mod registry;
pub mod review;
pub mod search;
pub mod searched;
pub mod session;
pub mod stats;
#[cfg(feature = "cli")]
pub mod tools;
pub mod tournament;
pub mod value;

/// The examples of docs/ORIGINS.md (the origin documents' operations), run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/ORIGINS.md")]
pub struct OriginsDoc;

pub use analysis::{Analysis, AnalysisSettings, Analyze, MoveValue};
pub use game::{Game, Outcome, Seat, SeatSet, Status, TwoPlayer};
pub use perft::perft;
pub use player_spec::{PlayerKind, PlayerSpec, SpecError};
pub use players::Player;
pub use record::{EndReason, Record, RecordError, RecordTextError};
