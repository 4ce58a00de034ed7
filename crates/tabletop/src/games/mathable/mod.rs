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
//! - [`players`]: the greedy and random computer players; [`engine`]: the engine's player.
//! - [`text`]: the board, racks and results in text; [`mod@matches`]: matches between computer
//!   players; [`mod@bench`]: the benchmarks' positions and timings; [`openings`]: the deals
//!   tournaments start from.
//!
//! The assignment's operations, with their names here:
//!
//! ```
//! use rand::SeedableRng;
//! use tabletop::games::mathable::{Bag, Board, Cell, Preset, Settings, TokenSet, Tokens};
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
//! let mut bag = Bag::filled(TokenSet::Classic); // shuffle and fill the bag
//! assert_eq!(bag.len(), 106); // bag size
//! let mut rack = Tokens::EMPTY;
//! assert_eq!(bag.fill_rack(&mut rack, 7, &mut rng), 7); // draw tokens to fill a rack
//! assert_eq!((rack.len(), bag.len()), (7, 99)); // rack size
//! let first = rack.as_slice()[0];
//! assert_eq!(rack.position(first), Some(0)); // index of a token in a rack
//! let board = Board::new(&Settings::preset(Preset::Classic)); // set up the board
//! assert!(board.to_string().contains("3x")); // print the board
//! assert!(board.contains("N14".parse::<Cell>().unwrap())); // is a cell on the board
//! let new = bag.swap_token(&mut rack, first, &mut rng).unwrap(); // swap a rack token
//! assert!(rack.contains(new) && bag.len() == 99);
//! assert_eq!(board.score("G9".parse().unwrap(), 4), Ok(4)); // valid placement and points
//! assert!(board.can_place(&Tokens::from_slice(&[6]).unwrap())); // any valid placement?
//! assert!(!board.can_place(&Tokens::from_slice(&[5, 9]).unwrap()));
//! ```

pub mod analysis;
pub mod review;
pub mod session;
pub mod environment;
pub mod bench;
pub mod board;
pub mod conformance;
pub mod engine;
mod game;
pub mod matches;
pub mod openings;
pub mod players;
pub mod rules;
pub mod save;
pub mod settings;
pub mod text;

pub use board::{Board, Cell, CellError, Op, Placement, PlacementError, Square, Tokens, TokensError, MAX_RACK};
pub use players::{EnginePlayer, GreedyPlayer, MathableRandomPlayer, PLAYER_KINDS};
pub use rules::{Bag, EndCause, EndRefusal, Mathable, MathableMove, MathableMoveError, MathablePositionError};
pub use save::SaveState;
pub use settings::{Layout, Operations, Preset, Settings, SettingsError, TokenSet, MAX_TOKEN};
#[cfg(feature = "cli")]
pub mod options;
#[cfg(feature = "cli")]
pub mod terminal;
#[cfg(feature = "cli")]
pub mod tools;
#[cfg(feature = "cli")]
pub mod tournament;

/// Mathable in the [registry](crate::registry).
pub static ENTRY: crate::registry::GameEntry = crate::registry::GameEntry {
    name: <Mathable as crate::Game>::NAME,
    title: "Mathable",
    about: "number tiles on a board of equations, a op b = c, for 2 to 4 players",
    player_kinds: <Mathable as crate::players::Players>::PLAYER_KINDS,
    session: &session::SESSIONS,
    environment: Some(&environment::ENVIRONMENT),
    conformance: conformance::check,
    #[cfg(feature = "cli")]
    commands: &tools::Commands,
    load_tests: &[],
};
