//! Mathable: the number-tile game for 2 to 4 players, played like Scrabble with numbers.
//!
//! Each token placed must be the result of +, -, x or / of the two tokens next to it in a line.
//! See docs/MATHABLE.md for the rules as implemented and the resolution of open questions.
//!
//! - [`settings`]: board size, players, rack size, token set, presets.
//! - [`board`]: cells (`G9`), special squares, racks, the equation rule and the fast placement
//!   generator.
//! - [`rules`]: the bag, turns, scoring, the end of the game, the [`Game`](crate::Game) implementation.
//! - [`save`]: the JSON save format.
//! - [`players`]: the greedy, random and engine computer players.

pub mod board;
pub mod conformance;
pub mod engine;
pub mod players;
pub mod rules;
pub mod save;
pub mod settings;

pub use board::{Board, Cell, CellError, Op, Placement, PlacementError, Square, Tokens, MAX_RACK};
pub use players::{EnginePlayer, GreedyPlayer, MathableRandomPlayer, PLAYER_KINDS};
pub use rules::{Bag, EndCause, Mathable, MathableMove, MathableMoveError, MathablePositionError};
pub use save::SaveState;
pub use settings::{Layout, Operations, Preset, Settings, SettingsError, TokenSet, MAX_TOKEN};
