//! The game abstraction every game implements.
//!
//! A [`Game`] value is a *position*: everything needed to continue play (board, side to move,
//! and for Mathable the racks, the bag and its seeded random generator). Positions are cheap to
//! clone, so search uses copy-make; a [`Record`](crate::record::Record) keeps the history of a
//! game being played, which is where undo and draw by repetition live.

use std::fmt::{self, Debug, Display};
use std::hash::Hash;

/// A seat at the table, numbered from 0 in turn order (seat 0 moves first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat's index, for indexing per-seat arrays.
    ///
    /// ```
    /// assert_eq!(tabletop::Seat(1).index(), 1);
    /// ```
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The other seat of a two-seat game.
    ///
    /// ```
    /// use tabletop::Seat;
    /// assert_eq!(Seat(0).opponent(), Seat(1));
    /// ```
    pub fn opponent(self) -> Seat {
        Seat(self.0 ^ 1)
    }
}

impl Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// A set of seats, used for shared wins (equal highest scores in a multi-player game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeatSet(pub u8);

impl SeatSet {
    /// Does the set contain `seat`?
    ///
    /// ```
    /// use tabletop::{Seat, SeatSet};
    /// let set = SeatSet::from_seats([Seat(0), Seat(2)]);
    /// assert!(set.contains(Seat(2)) && !set.contains(Seat(1)));
    /// ```
    pub fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat.0) != 0
    }

    /// Builds a set from seats.
    pub fn from_seats(seats: impl IntoIterator<Item = Seat>) -> SeatSet {
        SeatSet(seats.into_iter().fold(0, |acc, s| acc | (1 << s.0)))
    }

    /// The seats in the set, in order.
    pub fn seats(self) -> impl Iterator<Item = Seat> {
        (0..8).map(Seat).filter(move |s| self.contains(*s))
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One seat won.
    Win(Seat),
    /// Nobody won (in a multi-player game: every seat tied).
    Draw,
    /// Several, but not all, seats share the win (equal highest scores).
    SharedWin(SeatSet),
}

impl Outcome {
    /// The result for `seat`: +1 win (alone), 0 draw or shared, -1 loss.
    ///
    /// ```
    /// use tabletop::{Outcome, Seat};
    /// assert_eq!(Outcome::Win(Seat(1)).result_for(Seat(0)), -1);
    /// assert_eq!(Outcome::Draw.result_for(Seat(0)), 0);
    /// ```
    pub fn result_for(self, seat: Seat) -> i32 {
        match self {
            Outcome::Win(w) if w == seat => 1,
            Outcome::Win(_) => -1,
            Outcome::Draw => 0,
            Outcome::SharedWin(set) if set.contains(seat) => 0,
            Outcome::SharedWin(_) => -1,
        }
    }
}

/// Whose turn it is, or how the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on and this seat moves next.
    ToMove(Seat),
    /// The game is over.
    Over(Outcome),
}

impl Status {
    /// The seat to move, or `None` when the game is over.
    pub fn to_move(self) -> Option<Seat> {
        match self {
            Status::ToMove(s) => Some(s),
            Status::Over(_) => None,
        }
    }

    /// The outcome, or `None` while the game goes on.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Status::ToMove(_) => None,
            Status::Over(o) => Some(o),
        }
    }
}

/// The rules of one game, as a position that moves can be played on.
///
/// Implementations keep positions small and [`Clone`] cheap: search copies a position before
/// each move instead of undoing it. Chance (Mathable's bag) is resolved inside `play` by a
/// seeded random generator stored in the position, so play stays deterministic and a game is
/// reproducible from its seed and its moves.
pub trait Game: Clone + PartialEq + Debug + Send + Sync + 'static {
    /// A move; `Display` gives its notation and [`Game::parse_move`] reads it back.
    type Move: Copy + Eq + Hash + Debug + Display + Send + Sync + 'static;
    /// What fixes the game apart from the position: board size, line length, rule set.
    type Variant: Clone + Debug + PartialEq + Send + Sync + 'static;
    /// Why a move could not be parsed or played.
    type MoveError: std::error::Error + Send + Sync + 'static;
    /// Why a position could not be parsed.
    type PositionError: std::error::Error + Send + Sync + 'static;

    /// The game's short name, as used on the command line (`slide`, `reversi`, ...).
    const NAME: &'static str;

    /// The starting position of a variant.
    fn start(variant: &Self::Variant) -> Self;
    /// The variant this position belongs to.
    fn variant(&self) -> Self::Variant;
    /// How many seats the game has.
    fn num_seats(&self) -> usize;
    /// Whose turn it is, or the outcome.
    fn status(&self) -> Status;
    /// Fills `moves` (cleared first) with every legal move, without duplicates.
    fn legal_moves(&self, moves: &mut Vec<Self::Move>);
    /// Plays a move known to be legal. Playing an illegal move may corrupt the position.
    fn play_unchecked(&mut self, mv: Self::Move);
    /// Why `mv` is not legal here, or `None` if it is.
    fn illegal_reason(&self, mv: Self::Move) -> Option<Self::MoveError>;
    /// The incrementally maintained position hash (Zobrist or similar).
    fn hash(&self) -> u64;
    /// The hash recomputed from scratch; equals [`Game::hash`] in a correct implementation.
    fn recompute_hash(&self) -> u64;
    /// Reads a move in this position's context (board size matters for range checks).
    fn parse_move(&self, text: &str) -> Result<Self::Move, Self::MoveError>;
    /// The position in the game's notation; [`Game::from_notation`] reads it back.
    fn notation(&self) -> String;
    /// Reads a position of a variant from its notation.
    fn from_notation(variant: &Self::Variant, text: &str) -> Result<Self, Self::PositionError>;

    /// Plays a move after checking it; on error the position is unchanged.
    fn play(&mut self, mv: Self::Move) -> Result<(), Self::MoveError> {
        match self.illegal_reason(mv) {
            Some(err) => Err(err),
            None => {
                self.play_unchecked(mv);
                Ok(())
            }
        }
    }

    /// Is `mv` legal here?
    fn is_legal(&self, mv: Self::Move) -> bool {
        self.illegal_reason(mv).is_none()
    }

    /// How many times the same position (with the same side to move) may occur before the game
    /// is drawn by repetition; `None` for games that cannot repeat.
    fn repetition_limit() -> Option<usize> {
        None
    }

    /// A short human-readable reason why the game ended (`"n in a row"`, `"no legal move"`).
    fn end_reason(&self) -> Option<String> {
        None
    }

    /// How many more moves the side to move expects to make: what an engine under a game clock
    /// shares its time over (see [`crate::clock::think_budget`]). The default suits games of
    /// a few dozen moves a side; games that know their length (a board that fills up) say so.
    fn expected_moves_left(&self) -> u32 {
        30
    }

    /// The outcome when `seat` runs out of time here: by default the others win (see
    /// [`crate::arena::forfeit_outcome`]); a game where the others could no longer win by any
    /// play makes it a draw instead. Each game's document says which rule it follows.
    fn out_of_time(&self, seat: Seat) -> Outcome {
        crate::arena::forfeit_outcome(seat, self.num_seats())
    }
}

/// A two-player zero-sum game that the generic search (`crate::search`) can play.
pub trait TwoPlayer: Game {
    /// The value of a finished position for the side that would move next, `ply` plies from
    /// the root of a search. The default scores wins and losses by distance, so search prefers
    /// quick wins and slow losses; games with an exact score (Reversi) override it.
    fn terminal_value(&self, outcome: Outcome, ply: u32) -> i32 {
        let mover = self.last_mover().opponent();
        match outcome.result_for(mover) {
            1 => crate::value::WIN - ply as i32,
            -1 => -(crate::value::WIN - ply as i32),
            _ => 0,
        }
    }

    /// The seat that made the last move (the seat *not* to move next). In a finished position
    /// it is the seat that ended the game.
    fn last_mover(&self) -> Seat;
}
