//! Reversi's rules on two bitboards: squares, moves, positions, the OBF notation, transcripts and
//! the game-logic operations of the origin document.

use std::fmt;
use std::str::FromStr;

use super::bitboard::{final_score, flips, moves, Bits};
use crate::game::{Game, Outcome, Seat, Status, TwoPlayer};

/// A disc colour, which is also a player. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Black (`X` in OBF), seat 0, moves first.
    Black,
    /// White (`O` in OBF), seat 1.
    White,
}

impl Color {
    /// The other colour.
    ///
    /// ```
    /// use tabletop::games::reversi::Color;
    /// assert_eq!(Color::Black.other(), Color::White);
    /// ```
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The colour's seat: Black 0, White 1.
    pub fn seat(self) -> Seat {
        Seat(self as u8)
    }

    /// The colour in a seat.
    pub fn from_seat(seat: Seat) -> Color {
        if seat.0 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The OBF letter: `X` for black, `O` for white.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }

    /// The colour's name in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a colour name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a colour: {0:?} (expected black/X or white/O)")]
pub struct ColorError(pub String);

impl FromStr for Color {
    type Err = ColorError;

    /// Reads `black`, `b`, `x`, `white`, `w` or `o` in any case.
    fn from_str(s: &str) -> Result<Color, ColorError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "black" | "b" | "x" => Ok(Color::Black),
            "white" | "w" | "o" => Ok(Color::White),
            _ => Err(ColorError(s.to_string())),
        }
    }
}

/// A square of the board: column `a`-`h` left to right, row `1`-`8` top to bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at 0-based `row` (0 is row 1) and `col` (0 is column a), if on the board.
    ///
    /// ```
    /// use tabletop::games::reversi::Square;
    /// assert_eq!(Square::new(3, 5).unwrap().to_string(), "f4");
    /// assert!(Square::new(8, 0).is_none());
    /// ```
    pub fn new(row: usize, col: usize) -> Option<Square> {
        (row < 8 && col < 8).then(|| Square((row * 8 + col) as u8))
    }

    /// The square with bit index `index` (0..64, a1 = 0, h1 = 7, h8 = 63).
    pub fn from_index(index: usize) -> Option<Square> {
        (index < 64).then_some(Square(index as u8))
    }

    /// The bit index, `8 * row + col`.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The 0-based row (0 is row 1, the top).
    pub fn row(self) -> usize {
        self.0 as usize / 8
    }

    /// The 0-based column (0 is column a).
    pub fn col(self) -> usize {
        self.0 as usize % 8
    }

    /// The square as a one-bit bitboard.
    pub fn bit(self) -> u64 {
        1 << self.0
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col() as u8) as char, self.row() + 1)
    }
}

impl FromStr for Square {
    type Err = ReversiMoveError;

    /// Reads `a1`..`h8`, in any case.
    fn from_str(s: &str) -> Result<Square, ReversiMoveError> {
        let t = s.trim().to_ascii_lowercase();
        let b = t.as_bytes();
        if b.len() == 2 && (b'a'..=b'h').contains(&b[0]) && (b'1'..=b'8').contains(&b[1]) {
            Ok(Square((b[1] - b'1') * 8 + (b[0] - b'a')))
        } else {
            Err(ReversiMoveError::Notation(s.trim().to_string()))
        }
    }
}

/// A move: a disc placed on a square, or a pass (only legal when no placement is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReversiMove {
    /// Place a disc of the side to move.
    Place(Square),
    /// Pass: the side to move has no legal placement but the opponent has one.
    Pass,
}

impl fmt::Display for ReversiMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReversiMove::Place(sq) => write!(f, "{sq}"),
            ReversiMove::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for ReversiMove {
    type Err = ReversiMoveError;

    /// Reads `a1`..`h8` (any case), `pass` or `PA`.
    ///
    /// ```
    /// use tabletop::games::reversi::ReversiMove;
    /// assert_eq!("F5".parse::<ReversiMove>().unwrap().to_string(), "f5");
    /// assert_eq!("PA".parse::<ReversiMove>().unwrap(), ReversiMove::Pass);
    /// assert!("i9".parse::<ReversiMove>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<ReversiMove, ReversiMoveError> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("pass") || t.eq_ignore_ascii_case("pa") {
            Ok(ReversiMove::Pass)
        } else {
            t.parse().map(ReversiMove::Place)
        }
    }
}

/// Why a move could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReversiMoveError {
    /// The text is not a move.
    #[error("{0:?} is not a move: write a square a1..h8 or pass")]
    Notation(String),
    /// Row or column outside 0..8.
    #[error("({row}, {col}) is off the board: rows and columns run from 0 to 7")]
    OffBoard {
        /// The row given.
        row: usize,
        /// The column given.
        col: usize,
    },
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// The square already holds a disc.
    #[error("{0} is already taken")]
    Occupied(Square),
    /// The placement would flip nothing.
    #[error("{square} flips no disc: a move must close a line of {opponent} discs")]
    NoFlip {
        /// The square.
        square: Square,
        /// The colour whose discs would have to be bracketed.
        opponent: Color,
    },
    /// The placement flips nothing because the side to move has no placement at all (a
    /// [`ReversiMove::Place`] played through the [`Game`] trait; [`Reversi::make_move`] passes
    /// automatically instead).
    #[error("{0} has no legal placement and must pass")]
    MustPass(Color),
    /// A pass while a placement exists.
    #[error("{color} cannot pass: it can place a disc ({example} is one of {count} legal squares)")]
    CannotPass {
        /// The side to move.
        color: Color,
        /// How many placements it has.
        count: u32,
        /// One of them.
        example: Square,
    },
}

/// Why a position could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReversiPositionError {
    /// The board part is not 64 characters.
    #[error("the board has {0} squares; expected 64 characters (X, O or -) from a1 to h8")]
    Length(usize),
    /// A board character is not X, O or -.
    #[error("character {index} ({square}) is {found:?}; expected X (black), O (white) or - (empty)")]
    Square {
        /// 0-based character position in the board part.
        index: usize,
        /// The square it stands for.
        square: Square,
        /// The character found.
        found: char,
    },
    /// The side to move is missing.
    #[error("the side to move is missing: add a space and X or O after the 64 squares")]
    MissingSide,
    /// The side to move is not X or O.
    #[error("side to move {0:?} after the board: expected X (black) or O (white)")]
    Side(String),
}

/// Why a transcript could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("move {number} ({text:?}) of the transcript: {reason}")]
pub struct TranscriptError {
    /// 1-based number of the move in the transcript.
    pub number: usize,
    /// The move's text.
    pub text: String,
    /// What was wrong.
    pub reason: ReversiMoveError,
}

/// Zobrist keys: `[colour][square]`, and one for white to move.
struct Keys {
    discs: [[u64; 64]; 2],
    white_to_move: u64,
}

static KEYS: Keys = make_keys();

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn make_keys() -> Keys {
    let mut discs = [[0u64; 64]; 2];
    let mut state = 0x5EED_0F07_E110_u64;
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let (s, k) = splitmix(state);
            state = s;
            discs[c][sq] = k;
            sq += 1;
        }
        c += 1;
    }
    let (_, white_to_move) = splitmix(state);
    Keys { discs, white_to_move }
}

/// A Reversi position: the discs of both colours and the side to move.
///
/// This is the game-logic component of the origin document, separated from any interface:
///
/// ```
/// use tabletop::games::reversi::{Color, Reversi};
/// let mut game = Reversi::new();
/// assert_eq!(game.turn(), Some(Color::Black));
/// assert_eq!(game.discs(Color::White), 2);
/// assert_eq!(game.open_squares(), 60);
/// assert!(game.is_legal_placement(4, 5)); // f5
/// assert_eq!(game.place(4, 5).unwrap(), 1); // flips e5
/// assert_eq!(game.occupant(4, 4), Some(Color::Black));
/// assert_eq!(game.winner(), None);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reversi {
    black: u64,
    white: u64,
    side: Color,
    hash: u64,
}

impl fmt::Debug for Reversi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Reversi({})", self.notation())
    }
}

impl Default for Reversi {
    fn default() -> Self {
        Reversi::new()
    }
}

impl Reversi {
    /// The initial position: d4 and e5 white, d5 and e4 black, black to move.
    ///
    /// ```
    /// use tabletop::games::reversi::Reversi;
    /// assert_eq!(
    ///     Reversi::new().to_string(),
    ///     "---------------------------OX------XO--------------------------- X"
    /// );
    /// ```
    pub fn new() -> Reversi {
        let white = (1 << 27) | (1 << 36);
        let black = (1 << 28) | (1 << 35);
        Reversi::from_bitboards(black, white, Color::Black)
    }

    /// A position from the bitboards of each colour (bit `8 * row + col`) and the side to move.
    /// A square in both sets is taken as black's.
    pub fn from_bitboards(black: u64, white: u64, side: Color) -> Reversi {
        let mut r = Reversi { black, white: white & !black, side, hash: 0 };
        r.hash = r.recompute_hash();
        r
    }

    /// The bitboard of a colour's discs.
    pub fn bitboard(&self, color: Color) -> u64 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }

    /// The bitboards of the side to move and of its opponent.
    pub fn player_opponent(&self) -> (u64, u64) {
        match self.side {
            Color::Black => (self.black, self.white),
            Color::White => (self.white, self.black),
        }
    }

    /// The side to move, even when it has to pass or the game is over.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Whose turn it is: the side to move, or `None` when nobody can move (the game is over).
    /// A side that must pass still has the turn: its only move is [`ReversiMove::Pass`].
    pub fn turn(&self) -> Option<Color> {
        (!self.is_over()).then_some(self.side)
    }

    /// The origin game-logic document's `whoseTurn`: the side that places the next disc, with
    /// passes made automatically ("if one player cannot move but the other can, play proceeds
    /// with the other player"), or `None` when nobody can move. Unlike [`Reversi::turn`], a
    /// side that must pass does not have the turn.
    ///
    /// ```
    /// use tabletop::games::reversi::{Color, Reversi};
    /// assert_eq!(Reversi::new().whose_turn(), Some(Color::Black));
    /// // After black's h8, white has no placement: black plays again.
    /// let mut p: Reversi = "OOOOOOOO--OOXOXOXOOXXXOOX-OXXOOOXXOXOOOOXXOXOOOOXXXXOO--XXXXXOO- X".parse().unwrap();
    /// p.place(7, 7).unwrap();
    /// assert_eq!(p.side_to_move(), Color::White);
    /// assert_eq!(p.whose_turn(), Some(Color::Black));
    /// let full: Reversi = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O".parse().unwrap();
    /// assert_eq!(full.whose_turn(), None);
    /// ```
    pub fn whose_turn(&self) -> Option<Color> {
        let (p, o) = self.player_opponent();
        if moves(p, o) != 0 {
            Some(self.side)
        } else if moves(o, p) != 0 {
            Some(self.side.other())
        } else {
            None
        }
    }

    /// Is the game over (neither side can place a disc)?
    pub fn is_over(&self) -> bool {
        let (p, o) = self.player_opponent();
        moves(p, o) == 0 && moves(o, p) == 0
    }

    /// The number of discs of `color`.
    ///
    /// ```
    /// use tabletop::games::reversi::{Color, Reversi};
    /// assert_eq!(Reversi::new().discs(Color::Black), 2);
    /// ```
    pub fn discs(&self, color: Color) -> u32 {
        self.bitboard(color).count_ones()
    }

    /// The number of empty squares.
    pub fn open_squares(&self) -> u32 {
        64 - (self.black | self.white).count_ones()
    }

    /// The outcome once the game is over (most discs wins, equal is a draw), `None` before.
    ///
    /// ```
    /// use tabletop::games::reversi::Reversi;
    /// use tabletop::{Outcome, Seat};
    /// let end: Reversi = format!("{} X", "X".repeat(64)).parse().unwrap();
    /// assert_eq!(end.winner(), Some(Outcome::Win(Seat(0))));
    /// ```
    pub fn winner(&self) -> Option<Outcome> {
        if !self.is_over() {
            return None;
        }
        let (b, w) = (self.discs(Color::Black), self.discs(Color::White));
        Some(match b.cmp(&w) {
            std::cmp::Ordering::Greater => Outcome::Win(Seat(0)),
            std::cmp::Ordering::Less => Outcome::Win(Seat(1)),
            std::cmp::Ordering::Equal => Outcome::Draw,
        })
    }

    /// The final score for `color` if the game ended now: the disc difference with the empty
    /// squares counted for the winner (a wipe-out is +64).
    pub fn final_score(&self, color: Color) -> i32 {
        final_score(self.bitboard(color), self.bitboard(color.other()))
    }

    /// Which colour occupies (row, col), if any (0-based; off-board squares are empty).
    ///
    /// ```
    /// use tabletop::games::reversi::{Color, Reversi};
    /// assert_eq!(Reversi::new().occupant(3, 3), Some(Color::White)); // d4
    /// assert_eq!(Reversi::new().occupant(0, 0), None);
    /// ```
    pub fn occupant(&self, row: usize, col: usize) -> Option<Color> {
        let sq = Square::new(row, col)?;
        self.at(sq)
    }

    /// Which colour occupies a square, if any.
    pub fn at(&self, sq: Square) -> Option<Color> {
        if self.black & sq.bit() != 0 {
            Some(Color::Black)
        } else if self.white & sq.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// Is a placement at (row, col) legal for the side to move?
    ///
    /// ```
    /// use tabletop::games::reversi::Reversi;
    /// let game = Reversi::new();
    /// assert!(game.is_legal_placement(2, 3)); // d3
    /// assert!(!game.is_legal_placement(0, 0)); // a1
    /// assert!(!game.is_legal_placement(9, 9));
    /// ```
    pub fn is_legal_placement(&self, row: usize, col: usize) -> bool {
        Square::new(row, col).is_some_and(|sq| self.placements() & sq.bit() != 0)
    }

    /// The squares where the side to move may place a disc, as a bitboard.
    pub fn placements(&self) -> u64 {
        let (p, o) = self.player_opponent();
        moves(p, o)
    }

    /// The squares where the side to move may place a disc, in a1..h8 order.
    ///
    /// ```
    /// use tabletop::games::reversi::Reversi;
    /// let squares: Vec<String> = Reversi::new().legal_placements().iter().map(|s| s.to_string()).collect();
    /// assert_eq!(squares, ["d3", "c4", "f5", "e6"]);
    /// ```
    pub fn legal_placements(&self) -> Vec<Square> {
        Bits(self.placements()).map(|i| Square(i as u8)).collect()
    }

    /// The discs a placement on `sq` by the side to move would flip (empty if it is illegal).
    ///
    /// ```
    /// use tabletop::games::reversi::{Reversi, Square};
    /// let e5: Square = "e5".parse().unwrap();
    /// let flipped = Reversi::new().flips("f5".parse().unwrap());
    /// assert_eq!(flipped, vec![e5]);
    /// ```
    pub fn flips(&self, sq: Square) -> Vec<Square> {
        Bits(self.flip_bits(sq)).map(|i| Square(i as u8)).collect()
    }

    /// The discs a placement on `sq` would flip, as a bitboard (0 if illegal or occupied).
    pub fn flip_bits(&self, sq: Square) -> u64 {
        let (p, o) = self.player_opponent();
        if (p | o) & sq.bit() != 0 {
            0
        } else {
            flips(p, o, sq.index())
        }
    }

    /// Places a disc of the side to move at (row, col), flipping every bracketed disc; returns
    /// the number flipped. An illegal placement leaves the position unchanged.
    ///
    /// ```
    /// use tabletop::games::reversi::{Reversi, ReversiMoveError};
    /// let mut game = Reversi::new();
    /// assert!(matches!(game.place(0, 0), Err(ReversiMoveError::NoFlip { .. })));
    /// assert!(matches!(game.place(3, 3), Err(ReversiMoveError::Occupied(_))));
    /// assert_eq!(game.place(2, 3), Ok(1));
    /// ```
    ///
    /// A side that must pass passes automatically, as in [`Reversi::make_move`].
    pub fn place(&mut self, row: usize, col: usize) -> Result<u32, ReversiMoveError> {
        self.make_move(row, col)
    }

    /// The origin game-logic document's `makeMove`: places a disc for the side whose turn it
    /// is by [`Reversi::whose_turn`], passing automatically first when the side to move has
    /// no placement and the other side has one; returns the number of discs flipped. An
    /// illegal placement leaves the position unchanged (the pass included). The [`Game`] trait
    /// keeps the pass an explicit move ([`ReversiMove::Pass`]).
    ///
    /// ```
    /// use tabletop::games::reversi::{Color, Reversi};
    /// // After black's h8, white has no placement: black places again, white passing on its own.
    /// let mut p: Reversi = "OOOOOOOO--OOXOXOXOOXXXOOX-OXXOOOXXOXOOOOXXOXOOOOXXXXOO--XXXXXOO- X".parse().unwrap();
    /// p.make_move(7, 7).unwrap();
    /// assert_eq!((p.side_to_move(), p.whose_turn()), (Color::White, Some(Color::Black)));
    /// assert!(p.make_move(1, 1).is_ok()); // b2 for black
    /// assert_eq!(p.at("b2".parse().unwrap()), Some(Color::Black));
    /// ```
    pub fn make_move(&mut self, row: usize, col: usize) -> Result<u32, ReversiMoveError> {
        let sq = Square::new(row, col).ok_or(ReversiMoveError::OffBoard { row, col })?;
        let mut next = *self;
        if next.whose_turn().is_some_and(|side| side != next.side) {
            next.play_unchecked(ReversiMove::Pass);
        }
        let mv = ReversiMove::Place(sq);
        if let Some(err) = next.illegal_reason(mv) {
            return Err(err);
        }
        let count = next.flip_bits(sq).count_ones();
        next.play_unchecked(mv);
        *self = next;
        Ok(count)
    }

    /// Passes; legal only when the side to move has no placement and the opponent has one.
    ///
    /// ```
    /// use tabletop::games::reversi::Reversi;
    /// assert!(Reversi::new().pass().is_err());
    /// ```
    pub fn pass(&mut self) -> Result<(), ReversiMoveError> {
        self.play(ReversiMove::Pass)
    }

    /// Plays a transcript such as `f5d6c3d3c4` (moves may be separated by spaces or commas;
    /// `pass`/`pa` are accepted, and omitted passes are inserted where a side has no
    /// placement). Returns the moves played, passes included.
    ///
    /// ```
    /// use tabletop::games::reversi::Reversi;
    /// let mut game = Reversi::new();
    /// let moves = game.play_transcript("f5d6c3d3c4").unwrap();
    /// assert_eq!(moves.len(), 5);
    /// assert!(Reversi::new().play_transcript("f5a1").unwrap_err().to_string().contains("move 2"));
    /// ```
    pub fn play_transcript(&mut self, text: &str) -> Result<Vec<ReversiMove>, TranscriptError> {
        let mut played = Vec::new();
        let mut copy = *self;
        for (i, token) in transcript_tokens(text).into_iter().enumerate() {
            let fail = |reason| TranscriptError { number: i + 1, text: token.clone(), reason };
            let mv: ReversiMove = token.parse().map_err(fail)?;
            if let ReversiMove::Place(_) = mv {
                if copy.placements() == 0 && !copy.is_over() {
                    copy.play_unchecked(ReversiMove::Pass);
                    played.push(ReversiMove::Pass);
                }
            }
            copy.play(mv).map_err(fail)?;
            played.push(mv);
        }
        *self = copy;
        Ok(played)
    }

    /// Writes moves as a transcript (`f5d6c3`), passes omitted (they are implied).
    ///
    /// ```
    /// use tabletop::games::reversi::{Reversi, ReversiMove};
    /// let moves: Vec<ReversiMove> = vec!["f5".parse().unwrap(), "d6".parse().unwrap()];
    /// assert_eq!(Reversi::transcript(&moves), "f5d6");
    /// ```
    pub fn transcript(moves: &[ReversiMove]) -> String {
        moves.iter().filter(|m| **m != ReversiMove::Pass).map(|m| m.to_string()).collect()
    }
}

/// Splits a transcript into move tokens: squares are two characters, passes `pass` or `pa`.
fn transcript_tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace() && *c != ',' && *c != ';').collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let rest: String = chars[i..chars.len().min(i + 4)].iter().collect::<String>().to_ascii_lowercase();
        let len = if rest.starts_with("pass") { 4 } else { 2.min(chars.len() - i) };
        tokens.push(chars[i..i + len].iter().collect());
        i += len;
    }
    tokens
}

/// The board for a terminal: columns a to h, rows 1 to 8, `X` for black, `O` for white,
/// `*` for the squares of `marked` (a bitboard, e.g. the legal moves) and `.` for the others,
/// then the disc counts. `paint` turns each `X`, `O` and `*` into what is printed (for
/// colours; it gets the disc's colour, `None` for a mark).
///
/// ```
/// use tabletop::games::reversi::{rules::render_board, Reversi};
/// let p = Reversi::new();
/// let text = render_board(&p, p.placements(), |t, _| t.to_string());
/// assert_eq!(text.lines().nth(3).unwrap(), "  3 . . . * . . . . 3");
/// assert!(text.ends_with("black (X) 2  white (O) 2  empty 60\n"));
/// ```
pub fn render_board(position: &Reversi, marked: u64, paint: impl Fn(&str, Option<Color>) -> String) -> String {
    render_board_marked(position, marked, None, paint)
}

/// [`render_board`] with the disc on `last` (the last move's square) in brackets, `[X]`, the
/// brackets taking the spaces beside it.
///
/// ```
/// use tabletop::games::reversi::{rules::render_board_marked, Reversi};
/// let mut p = Reversi::new();
/// p.place(4, 5).unwrap(); // f5
/// let text = render_board_marked(&p, 0, Some("f5".parse().unwrap()), |t, _| t.to_string());
/// assert_eq!(text.lines().nth(5).unwrap(), "  5 . . . X X[X]. . 5");
/// ```
pub fn render_board_marked(
    position: &Reversi,
    marked: u64,
    last: Option<Square>,
    paint: impl Fn(&str, Option<Color>) -> String,
) -> String {
    let mut out = String::from("    a b c d e f g h\n");
    for row in 0..8 {
        // The row number, then a space and a cell eight times: cell `col` is at 2 + 2 col.
        let mut slots = vec![format!("  {}", row + 1)];
        for col in 0..8 {
            let sq = Square::new(row, col).expect("on the board");
            slots.push(" ".to_string());
            slots.push(match position.at(sq) {
                Some(Color::Black) => paint("X", Some(Color::Black)),
                Some(Color::White) => paint("O", Some(Color::White)),
                None if marked & sq.bit() != 0 => paint("*", None),
                None => ".".to_string(),
            });
            if last == Some(sq) {
                slots[2 * col + 1] = "[".to_string();
            }
        }
        slots.push(" ".to_string());
        if let Some(col) = last.filter(|sq| sq.row() == row).map(|sq| sq.col()) {
            slots[2 * col + 3] = "]".to_string();
        }
        out.push_str(&slots.concat());
        out.push_str(&format!("{}\n", row + 1));
    }
    out.push_str("    a b c d e f g h\n");
    out.push_str(&format!(
        "  black (X) {}  white (O) {}  empty {}\n",
        position.discs(Color::Black),
        position.discs(Color::White),
        position.open_squares()
    ));
    out
}

impl fmt::Display for Reversi {
    /// The OBF form: 64 characters a1..h8 (`X`, `O`, `-`), a space, and `X` or `O` to move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(66);
        for i in 0..64 {
            s.push(match self.at(Square(i)) {
                Some(c) => c.letter(),
                None => '-',
            });
        }
        s.push(' ');
        s.push(self.side.letter());
        f.write_str(&s)
    }
}

impl FromStr for Reversi {
    type Err = ReversiPositionError;

    /// Reads the OBF form; `*`/`x` also mean black, `o` white, `.` empty, and anything after
    /// the side (such as the `;`-separated move scores of OBF test files) is ignored.
    ///
    /// ```
    /// use tabletop::games::reversi::{Reversi, ReversiPositionError};
    /// let start = Reversi::new();
    /// assert_eq!(start.to_string().parse::<Reversi>().unwrap(), start);
    /// let err = "---Z".parse::<Reversi>().unwrap_err();
    /// assert_eq!(err.to_string(), "character 3 (d1) is 'Z'; expected X (black), O (white) or - (empty)");
    /// ```
    fn from_str(text: &str) -> Result<Reversi, ReversiPositionError> {
        let text = text.trim();
        let board: String = text.chars().take_while(|c| !c.is_whitespace()).collect();
        let mut black = 0u64;
        let mut white = 0u64;
        for (i, ch) in board.chars().enumerate() {
            let Some(sq) = Square::from_index(i) else { break };
            match ch {
                'X' | 'x' | '*' => black |= sq.bit(),
                'O' | 'o' => white |= sq.bit(),
                '-' | '.' => {}
                found => return Err(ReversiPositionError::Square { index: i, square: sq, found }),
            }
        }
        let len = board.chars().count();
        if len != 64 {
            return Err(ReversiPositionError::Length(len));
        }
        let rest = text[board.len()..].trim_start();
        let side_text: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != ';').collect();
        let side = match side_text.as_str() {
            "" => return Err(ReversiPositionError::MissingSide),
            "X" | "x" | "*" => Color::Black,
            "O" | "o" => Color::White,
            other => return Err(ReversiPositionError::Side(other.to_string())),
        };
        Ok(Reversi::from_bitboards(black, white, side))
    }
}

impl Game for Reversi {
    type Move = ReversiMove;
    type Variant = ();
    type MoveError = ReversiMoveError;
    type PositionError = ReversiPositionError;

    const NAME: &'static str = "reversi";

    fn start(_: &()) -> Self {
        Reversi::new()
    }

    fn variant(&self) {}

    fn num_seats(&self) -> usize {
        2
    }

    fn status(&self) -> Status {
        match self.winner() {
            Some(outcome) => Status::Over(outcome),
            None => Status::ToMove(self.side.seat()),
        }
    }

    fn legal_moves(&self, list: &mut Vec<ReversiMove>) {
        list.clear();
        let (p, o) = self.player_opponent();
        let m = moves(p, o);
        if m != 0 {
            list.extend(Bits(m).map(|i| ReversiMove::Place(Square(i as u8))));
        } else if moves(o, p) != 0 {
            list.push(ReversiMove::Pass);
        }
    }

    fn play_unchecked(&mut self, mv: ReversiMove) {
        let color = self.side as usize;
        if let ReversiMove::Place(sq) = mv {
            let (p, o) = self.player_opponent();
            let f = flips(p, o, sq.index());
            let mut h = self.hash ^ KEYS.discs[color][sq.index()];
            for i in Bits(f) {
                h ^= KEYS.discs[0][i] ^ KEYS.discs[1][i];
            }
            self.hash = h;
            match self.side {
                Color::Black => {
                    self.black |= f | sq.bit();
                    self.white &= !f;
                }
                Color::White => {
                    self.white |= f | sq.bit();
                    self.black &= !f;
                }
            }
        }
        self.hash ^= KEYS.white_to_move;
        self.side = self.side.other();
    }

    fn illegal_reason(&self, mv: ReversiMove) -> Option<ReversiMoveError> {
        let (p, o) = self.player_opponent();
        let mine = moves(p, o);
        if mine == 0 && moves(o, p) == 0 {
            return Some(ReversiMoveError::GameOver);
        }
        match mv {
            ReversiMove::Place(sq) => {
                if (p | o) & sq.bit() != 0 {
                    Some(ReversiMoveError::Occupied(sq))
                } else if mine == 0 {
                    Some(ReversiMoveError::MustPass(self.side))
                } else if mine & sq.bit() == 0 {
                    Some(ReversiMoveError::NoFlip { square: sq, opponent: self.side.other() })
                } else {
                    None
                }
            }
            ReversiMove::Pass if mine != 0 => Some(ReversiMoveError::CannotPass {
                color: self.side,
                count: mine.count_ones(),
                example: Square(mine.trailing_zeros() as u8),
            }),
            ReversiMove::Pass => None,
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn recompute_hash(&self) -> u64 {
        let mut h = if self.side == Color::White { KEYS.white_to_move } else { 0 };
        for i in Bits(self.black) {
            h ^= KEYS.discs[0][i];
        }
        for i in Bits(self.white) {
            h ^= KEYS.discs[1][i];
        }
        h
    }

    fn parse_move(&self, text: &str) -> Result<ReversiMove, ReversiMoveError> {
        text.parse()
    }

    fn notation(&self) -> String {
        self.to_string()
    }

    fn from_notation(_: &(), text: &str) -> Result<Self, ReversiPositionError> {
        text.parse()
    }

    fn expected_moves_left(&self) -> u32 {
        crate::grid::moves_left_on(self.open_squares() as usize)
    }

    fn end_reason(&self) -> Option<String> {
        if !self.is_over() {
            None
        } else if self.open_squares() == 0 {
            Some("the board is full".to_string())
        } else {
            Some("neither player can move".to_string())
        }
    }
}

impl TwoPlayer for Reversi {
    /// The exact final score for the side that would move next: the disc difference with the
    /// empty squares going to the winner (so a wipe-out is +/-64). It does not depend on `ply`:
    /// Reversi scores by discs, not by the length of the game, and the generic search then
    /// returns exact final scores.
    fn terminal_value(&self, _: Outcome, _: u32) -> i32 {
        self.final_score(self.side)
    }

    fn last_mover(&self) -> Seat {
        self.side.other().seat()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document's `makeMove` passes for a side without a placement, as `whoseTurn` does:
    /// placing for the side whose turn it is works without an explicit `pass()` (issue 25);
    /// the `Game` trait still asks for the explicit pass, and an illegal placement changes
    /// nothing (the automatic pass included).
    #[test]
    fn make_move_passes_automatically_for_the_side_without_a_placement() {
        let mut p: Reversi = "OOOOOOOO--OOXOXOXOOXXXOOX-OXXOOOXXOXOOOOXXOXOOOOXXXXOO--XXXXXOO- X".parse().unwrap();
        p.make_move(7, 7).unwrap();
        assert_eq!((p.side_to_move(), p.whose_turn()), (Color::White, Some(Color::Black)));
        let b2: Square = "b2".parse().unwrap();
        assert_eq!(p.illegal_reason(ReversiMove::Place(b2)), Some(ReversiMoveError::MustPass(Color::White)));
        let before = p;
        assert!(matches!(p.make_move(0, 8), Err(ReversiMoveError::OffBoard { .. })));
        assert!(matches!(p.make_move(0, 0), Err(ReversiMoveError::Occupied(_))));
        assert_eq!(p, before);
        let flipped = p.place(1, 1).unwrap();
        assert!(flipped > 0);
        assert_eq!(p.at(b2), Some(Color::Black));
        assert_eq!(p.discs(Color::Black) + p.discs(Color::White), before.discs(Color::Black) + before.discs(Color::White) + 1);
    }

    #[test]
    fn bad_positions_say_what_and_where() {
        assert_eq!("-".repeat(63).parse::<Reversi>(), Err(ReversiPositionError::Length(63)));
        assert_eq!("-".repeat(64).parse::<Reversi>(), Err(ReversiPositionError::MissingSide));
        assert!(matches!(format!("{} Z", "-".repeat(64)).parse::<Reversi>(), Err(ReversiPositionError::Side(_))));
    }
}
