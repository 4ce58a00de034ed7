//! Slide's rules: the board, the two phases, lines, draws, moves and the configuration string.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::game::{Game, Outcome, Seat, Status, TwoPlayer};

/// The smallest board size.
pub const MIN_SIZE: u8 = 3;
/// The largest board size (64 squares fit one `u64`).
pub const MAX_SIZE: u8 = 8;

/// One of the two sides. Blue (the human in the original document) always moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// 'b', the human in the original document, moves first.
    Blue,
    /// 'o', the computer in the original document.
    Orange,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Blue => Side::Orange,
            Side::Orange => Side::Blue,
        }
    }

    /// The side's seat: Blue 0, Orange 1.
    pub fn seat(self) -> Seat {
        Seat(self as u8)
    }

    /// The side in a seat.
    pub fn from_seat(seat: Seat) -> Side {
        if seat.0 == 0 {
            Side::Blue
        } else {
            Side::Orange
        }
    }

    /// The letter of the side's tiles: 'b' or 'o'.
    pub fn letter(self) -> char {
        match self {
            Side::Blue => 'b',
            Side::Orange => 'o',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl FromStr for Side {
    type Err = SlidePositionError;

    fn from_str(s: &str) -> Result<Side, SlidePositionError> {
        match s.trim() {
            "b" | "B" | "blue" => Ok(Side::Blue),
            "o" | "O" | "orange" => Ok(Side::Orange),
            other => Err(SlidePositionError::BadSide(other.to_string())),
        }
    }
}

/// What a square holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// 'g' (green): empty.
    Empty,
    /// A tile of a side.
    Tile(Side),
}

impl Cell {
    /// The configuration-string letter: 'g', 'b' or 'o'.
    pub fn letter(self) -> char {
        match self {
            Cell::Empty => 'g',
            Cell::Tile(side) => side.letter(),
        }
    }
}

/// Board size and the number of squares that must stay empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlideVariant {
    size: u8,
    empty: u8,
}

/// Why a board size or empty count was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlideVariantError {
    /// The size is outside 3..=8.
    #[error("board size {0} is not supported: choose 3 to 8")]
    Size(usize),
    /// k is larger than n*n - 2.
    #[error("{empty} empty squares is too many for a {size}x{size} board: at most {max}")]
    Empty {
        /// The board size.
        size: usize,
        /// The requested number of empty squares.
        empty: usize,
        /// The largest allowed.
        max: usize,
    },
}

impl SlideVariant {
    /// An `size` x `size` board on which `empty` squares must stay empty.
    ///
    /// ```
    /// use tabletop::games::slide::SlideVariant;
    /// assert!(SlideVariant::new(3, 7).is_ok());
    /// assert!(SlideVariant::new(3, 8).is_err());
    /// assert!(SlideVariant::new(9, 0).is_err());
    /// ```
    pub fn new(size: usize, empty: usize) -> Result<Self, SlideVariantError> {
        if !(MIN_SIZE as usize..=MAX_SIZE as usize).contains(&size) {
            return Err(SlideVariantError::Size(size));
        }
        let max = size * size - 2;
        if empty > max {
            return Err(SlideVariantError::Empty { size, empty, max });
        }
        Ok(SlideVariant { size: size as u8, empty: empty as u8 })
    }

    /// The board size n.
    pub fn size(self) -> usize {
        self.size as usize
    }

    /// The number k of squares that must stay empty.
    pub fn empty(self) -> usize {
        self.empty as usize
    }

    /// n * n.
    pub fn squares(self) -> usize {
        self.size() * self.size()
    }
}

/// A square, numbered from 0 internally and from 1 in notation (row by row).
pub type Square = u8;

/// A move: put a tile on an empty square, or slide a tile to an adjacent empty square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlideMove {
    /// Placement phase: a tile on this square (0-based).
    Place(Square),
    /// Slide phase: the tile on `from` moves to the empty square `to` (0-based).
    Slide {
        /// The square the tile leaves.
        from: Square,
        /// The empty square it enters.
        to: Square,
    },
}

impl fmt::Display for SlideMove {
    /// Square numbers from 1: `5`, or `3-6` for a slide.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SlideMove::Place(sq) => write!(f, "{}", sq + 1),
            SlideMove::Slide { from, to } => write!(f, "{}-{}", from + 1, to + 1),
        }
    }
}

impl FromStr for SlideMove {
    type Err = SlideMoveError;

    /// Reads `5` or `3-6` (squares from 1); the range is checked against a board by
    /// [`Game::parse_move`].
    ///
    /// ```
    /// use tabletop::games::slide::SlideMove;
    /// assert_eq!("3-6".parse::<SlideMove>().unwrap(), SlideMove::Slide { from: 2, to: 5 });
    /// assert!("x".parse::<SlideMove>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, SlideMoveError> {
        let text = text.trim();
        let square = |s: &str| -> Result<Square, SlideMoveError> {
            match s.trim().parse::<u32>() {
                Ok(n) if (1..=64).contains(&n) => Ok((n - 1) as Square),
                Ok(n) => Err(SlideMoveError::OffBoard { square: n as usize, squares: 64 }),
                Err(_) => Err(SlideMoveError::Syntax(text.to_string())),
            }
        };
        match text.split_once('-') {
            Some((from, to)) => Ok(SlideMove::Slide { from: square(from)?, to: square(to)? }),
            None => Ok(SlideMove::Place(square(text)?)),
        }
    }
}

/// Why a move could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlideMoveError {
    /// Not a square number or `FROM-TO`.
    #[error("{0:?} is not a move: type a square number (5) or FROM-TO to slide (3-6)")]
    Syntax(String),
    /// A square number outside the board.
    #[error("there is no square {square}: squares are numbered 1 to {squares}")]
    OffBoard {
        /// The square given (from 1).
        square: usize,
        /// The number of squares.
        squares: usize,
    },
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// A slide was given while tiles are still being placed.
    #[error("tiles cannot slide yet: while more than {0} squares are empty, put a tile on an empty square")]
    NotSlidePhase(usize),
    /// A placement was given in the slide phase.
    #[error("all tiles are placed: slide one of your tiles into an adjacent empty square (FROM-TO)")]
    NotPlacementPhase,
    /// The target square is taken.
    #[error("square {0} is not empty")]
    Occupied(usize),
    /// The slide does not start from the mover's tile.
    #[error("square {0} does not hold one of your tiles")]
    NotYourTile(usize),
    /// The squares of a slide are not neighbours.
    #[error("square {from} is not next to square {to} (slides go to a neighbouring square, diagonals included)")]
    NotAdjacent {
        /// The source square (from 1).
        from: usize,
        /// The target square (from 1).
        to: usize,
    },
}

/// Why a configuration string was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlidePositionError {
    /// The board size or empty count is not supported.
    #[error(transparent)]
    Variant(#[from] SlideVariantError),
    /// Wrong number of characters.
    #[error("a {size}x{size} configuration has {expected} characters, not {found}")]
    Length {
        /// The board size.
        size: usize,
        /// n * n.
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A character other than b, o, g.
    #[error("character {found:?} at position {index} is not 'b', 'o' or 'g'")]
    BadChar {
        /// The 1-based index in the string.
        index: usize,
        /// The character.
        found: char,
    },
    /// The side suffix is not b or o.
    #[error("side to move {0:?} is not 'b' or 'o'")]
    BadSide(String),
    /// Fewer empty squares than the variant keeps empty.
    #[error("{found} empty squares, but {required} must stay empty")]
    TooFewEmpty {
        /// Empty squares in the string.
        found: usize,
        /// k.
        required: usize,
    },
    /// Tile counts that alternate play cannot produce.
    #[error(
        "{blue} blue and {orange} orange tiles: blue moves first, so blue has as many tiles as orange or one more"
    )]
    Counts {
        /// Blue tiles.
        blue: usize,
        /// Orange tiles.
        orange: usize,
    },
    /// The side to move contradicts the tile counts during placement.
    #[error("while tiles are being placed the side to move follows from the counts: {0} moves")]
    WrongSide(Side),
    /// Both sides have a line, or the side to move has one.
    #[error("no legal game reaches this position (a line for the side to move or for both sides)")]
    Unreachable,
}

/// A Slide position: the tiles of both sides, the side to move, and the variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slide {
    variant: SlideVariant,
    blue: u64,
    orange: u64,
    to_move: Side,
    hash: u64,
}

/// Geometry of one board size: line masks and neighbour masks.
struct Geometry {
    lines: Vec<u64>,
    neighbours: [u64; 64],
}

fn geometry(size: usize) -> &'static Geometry {
    static TABLES: OnceLock<Vec<Geometry>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        (0..=MAX_SIZE as usize)
            .map(|n| {
                let bit = |r: usize, c: usize| 1u64 << (r * n + c);
                let mut lines = Vec::new();
                if n >= MIN_SIZE as usize {
                    for i in 0..n {
                        lines.push((0..n).map(|c| bit(i, c)).sum());
                        lines.push((0..n).map(|r| bit(r, i)).sum());
                    }
                    lines.push((0..n).map(|i| bit(i, i)).sum());
                    lines.push((0..n).map(|i| bit(i, n - 1 - i)).sum());
                }
                let mut neighbours = [0u64; 64];
                for r in 0..n {
                    for c in 0..n {
                        for dr in -1i32..=1 {
                            for dc in -1i32..=1 {
                                let (rr, cc) = (r as i32 + dr, c as i32 + dc);
                                if (dr, dc) != (0, 0) && (0..n as i32).contains(&rr) && (0..n as i32).contains(&cc) {
                                    neighbours[r * n + c] |= bit(rr as usize, cc as usize);
                                }
                            }
                        }
                    }
                }
                Geometry { lines, neighbours }
            })
            .collect()
    });
    &tables[size]
}

/// Each square's neighbour mask (8 directions) on an n x n board.
pub(crate) fn neighbours(size: usize) -> &'static [u64; 64] {
    &geometry(size).neighbours
}

/// The line masks (rows, columns, both main diagonals) of an n x n board.
pub(crate) fn lines(size: usize) -> &'static [u64] {
    &geometry(size).lines
}

fn zobrist(square: usize, side: Side) -> u64 {
    static KEYS: OnceLock<[[u64; 2]; 64]> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut keys = [[0u64; 2]; 64];
        let mut state = 0x5eed_51de_u64;
        for square in keys.iter_mut() {
            for key in square.iter_mut() {
                *key = splitmix64(&mut state);
            }
        }
        keys
    })[square][side as usize]
}

const ORANGE_TO_MOVE_KEY: u64 = 0x9e37_79b9_7f4a_7c15;

/// A fixed, well-mixed sequence for Zobrist keys (reproducible across runs and machines).
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Slide {
    /// The document's "new board": size n, k squares to stay empty, every square empty ('g').
    ///
    /// ```
    /// use tabletop::games::slide::Slide;
    /// let board = Slide::new(3, 1).unwrap();
    /// assert_eq!(board.configuration(), "ggggggggg");
    /// ```
    pub fn new(size: usize, empty: usize) -> Result<Self, SlideVariantError> {
        Ok(Slide::start(&SlideVariant::new(size, empty)?))
    }

    /// A position from bitboards (bit `row * n + col`) and the side to move, unchecked: for
    /// solvers that enumerate boards. Use [`Game::from_notation`] for anything a user typed.
    pub fn from_parts(variant: SlideVariant, blue: u64, orange: u64, to_move: Side) -> Self {
        let mut board = Slide { variant, blue, orange, to_move, hash: 0 };
        board.hash = board.recompute_hash();
        board
    }

    /// Every slide-phase position from which the side that just moved reaches this one with a
    /// slide (the predecessors, for retrograde analysis).
    pub fn unmoves(&self) -> Vec<Slide> {
        let mover = self.to_move.other();
        let empties = self.empties();
        let geo = geometry(self.size());
        let mut parents = Vec::new();
        let mut tiles = self.tiles(mover);
        while tiles != 0 {
            let to = tiles.trailing_zeros() as usize;
            tiles &= tiles - 1;
            let mut origins = geo.neighbours[to] & empties;
            while origins != 0 {
                let from = origins.trailing_zeros() as usize;
                origins &= origins - 1;
                let swap = (1u64 << from) | (1u64 << to);
                let (blue, orange) = match mover {
                    Side::Blue => (self.blue ^ swap, self.orange),
                    Side::Orange => (self.blue, self.orange ^ swap),
                };
                parents.push(Slide::from_parts(self.variant, blue, orange, mover));
            }
        }
        parents
    }

    /// The board size n.
    pub fn size(&self) -> usize {
        self.variant.size()
    }

    /// The variant (n and k).
    pub fn slide_variant(&self) -> SlideVariant {
        self.variant
    }

    /// The side to move (also when the game is over: the side that would move).
    pub fn side_to_move(&self) -> Side {
        self.to_move
    }

    /// The bitboard of a side's tiles (bit `row * n + col`).
    pub fn tiles(&self, side: Side) -> u64 {
        match side {
            Side::Blue => self.blue,
            Side::Orange => self.orange,
        }
    }

    /// The bitboard of empty squares.
    pub fn empties(&self) -> u64 {
        let all = if self.variant.squares() == 64 { u64::MAX } else { (1u64 << self.variant.squares()) - 1 };
        all & !(self.blue | self.orange)
    }

    /// The number of empty squares.
    pub fn empty_count(&self) -> usize {
        self.empties().count_ones() as usize
    }

    /// True while tiles are still being placed (more than k squares empty).
    pub fn is_placement_phase(&self) -> bool {
        self.empty_count() > self.variant.empty()
    }

    fn index(&self, row: usize, col: usize) -> Option<usize> {
        let n = self.size();
        (row < n && col < n).then_some(row * n + col)
    }

    /// What the square at (row, col) holds (0-based), or `None` off the board.
    ///
    /// ```
    /// use tabletop::games::slide::{Cell, Side, Slide};
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// assert_eq!(board.cell(0, 0), Some(Cell::Tile(Side::Orange)));
    /// assert_eq!(board.cell(2, 2), Some(Cell::Empty));
    /// assert_eq!(board.cell(3, 0), None);
    /// ```
    pub fn cell(&self, row: usize, col: usize) -> Option<Cell> {
        let bit = 1u64 << self.index(row, col)?;
        Some(if self.blue & bit != 0 {
            Cell::Tile(Side::Blue)
        } else if self.orange & bit != 0 {
            Cell::Tile(Side::Orange)
        } else {
            Cell::Empty
        })
    }

    /// Is the square at (row, col) empty? (False off the board.)
    pub fn is_empty(&self, row: usize, col: usize) -> bool {
        self.cell(row, col) == Some(Cell::Empty)
    }

    /// Does the square at (row, col) hold the computer's ('o') tile?
    pub fn is_computer(&self, row: usize, col: usize) -> bool {
        self.cell(row, col) == Some(Cell::Tile(Side::Orange))
    }

    /// Does the square at (row, col) hold the human's ('b') tile?
    pub fn is_human(&self, row: usize, col: usize) -> bool {
        self.cell(row, col) == Some(Cell::Tile(Side::Blue))
    }

    /// The document's "put": sets the square at (row, col) to `cell`, whatever it held, keeping
    /// the side to move. For setting up boards; it does not check the rules (use
    /// [`Game::play`] for moves). Returns false off the board.
    ///
    /// ```
    /// use tabletop::games::slide::{Cell, Side, Slide};
    /// let mut board = Slide::new(3, 1).unwrap();
    /// assert!(board.put(1, 1, Cell::Tile(Side::Blue)));
    /// assert!(board.is_human(1, 1));
    /// ```
    pub fn put(&mut self, row: usize, col: usize, cell: Cell) -> bool {
        let Some(index) = self.index(row, col) else {
            return false;
        };
        let bit = 1u64 << index;
        self.blue &= !bit;
        self.orange &= !bit;
        match cell {
            Cell::Tile(Side::Blue) => self.blue |= bit,
            Cell::Tile(Side::Orange) => self.orange |= bit,
            Cell::Empty => {}
        }
        self.hash = self.recompute_hash();
        true
    }

    /// Does `side` fill a whole row, column or main diagonal?
    ///
    /// ```
    /// use tabletop::games::slide::{Side, Slide};
    /// let board = Slide::from_configuration(3, 1, "obbbogboo").unwrap();
    /// assert!(board.has_line(Side::Orange) && !board.has_line(Side::Blue));
    /// ```
    pub fn has_line(&self, side: Side) -> bool {
        let tiles = self.tiles(side);
        geometry(self.size()).lines.iter().any(|&line| line & !tiles == 0)
    }

    /// Is the position a draw for `side` to move: in the slide phase (or a full board) with no
    /// tile of `side` next to an empty square, and no line on the board?
    ///
    /// ```
    /// use tabletop::games::slide::{Side, Slide};
    /// let board = Slide::from_configuration(3, 1, "obbboobog").unwrap();
    /// assert!(board.is_draw_for(Side::Blue));
    /// ```
    pub fn is_draw_for(&self, side: Side) -> bool {
        !self.has_line(Side::Blue)
            && !self.has_line(Side::Orange)
            && !self.is_placement_phase()
            && self.slidable_tiles(side) == 0
    }

    /// The document's four-valued evaluation from the computer's point of view: the same as
    /// [`Slide::eval_board`] (kept for the classic player and the dictionary).
    ///
    /// ```
    /// use tabletop::games::slide::Slide;
    /// assert_eq!(Slide::from_configuration(3, 1, "obbbogboo").unwrap().classic_score(), 3);
    /// assert_eq!(Slide::from_configuration(3, 1, "obbboobog").unwrap().classic_score(), 2);
    /// assert_eq!(Slide::from_configuration(3, 1, "obbbogbog").unwrap().classic_score(), 1);
    /// ```
    pub fn classic_score(&self) -> u8 {
        self.eval_board()
    }

    /// The document's `evalBoard`, from its fixed point of view: 3 the computer ('o') has won,
    /// 0 the human ('b') has won, 2 a draw for the side to move, 1 undecided. For either side's
    /// point of view, [`Slide::eval_board_for`].
    ///
    /// ```
    /// use tabletop::games::slide::Slide;
    /// let won_by_o = Slide::from_configuration(3, 1, "obbbogboo").unwrap();
    /// let won_by_b = Slide::from_configuration(3, 1, "googobbbb").unwrap();
    /// let open = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// assert_eq!((won_by_o.eval_board(), won_by_b.eval_board(), open.eval_board()), (3, 0, 1));
    /// ```
    pub fn eval_board(&self) -> u8 {
        self.eval_board_for(Side::Orange)
    }

    /// The document's evaluation from `side`'s point of view: 3 `side` has won, 0 the other
    /// side has won, 2 a draw for the side to move, 1 undecided. [`Slide::eval_board`] is the
    /// computer's ('o') view, as the document's.
    ///
    /// ```
    /// use tabletop::games::slide::{Side, Slide};
    /// let won_by_o = Slide::from_configuration(3, 1, "obbbogboo").unwrap();
    /// assert_eq!(won_by_o.eval_board_for(Side::Orange), 3);
    /// assert_eq!(won_by_o.eval_board_for(Side::Blue), 0);
    /// let open = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// assert_eq!((open.eval_board_for(Side::Blue), open.eval_board_for(Side::Orange)), (1, 1));
    /// ```
    pub fn eval_board_for(&self, side: Side) -> u8 {
        if self.has_line(side) {
            3
        } else if self.has_line(side.other()) {
            0
        } else if self.is_draw_for(self.to_move) {
            2
        } else {
            1
        }
    }

    /// The squares (0-based, row-major) of the winner's completed lines (rows, columns and the
    /// two diagonals), sorted; empty while nobody has won.
    ///
    /// ```
    /// use tabletop::games::slide::Slide;
    /// assert_eq!(Slide::from_configuration(3, 1, "obbbogboo").unwrap().winning_squares(), vec![0, 4, 8]);
    /// assert!(Slide::from_configuration(3, 1, "obbbogbog").unwrap().winning_squares().is_empty());
    /// ```
    pub fn winning_squares(&self) -> Vec<usize> {
        let n = self.size();
        let winner = match self.status() {
            Status::Over(Outcome::Win(seat)) => Side::from_seat(seat),
            _ => return Vec::new(),
        };
        let owned = |r: usize, c: usize| self.cell(r, c) == Some(Cell::Tile(winner));
        let mut cells = Vec::new();
        let lines = (0..n)
            .map(|r| (0..n).map(|c| (r, c)).collect::<Vec<_>>())
            .chain((0..n).map(|c| (0..n).map(|r| (r, c)).collect()))
            .chain([(0..n).map(|i| (i, i)).collect(), (0..n).map(|i| (i, n - 1 - i)).collect()]);
        for line in lines {
            if line.iter().all(|&(r, c)| owned(r, c)) {
                cells.extend(line.iter().map(|&(r, c)| r * n + c));
            }
        }
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// The tiles of `side` next to at least one empty square.
    fn slidable_tiles(&self, side: Side) -> u64 {
        let empties = self.empties();
        let geo = geometry(self.size());
        let mut tiles = self.tiles(side);
        let mut result = 0;
        while tiles != 0 {
            let sq = tiles.trailing_zeros() as usize;
            tiles &= tiles - 1;
            if geo.neighbours[sq] & empties != 0 {
                result |= 1 << sq;
            }
        }
        result
    }

    /// Are two squares (0-based) neighbours, diagonals included?
    pub fn adjacent(&self, a: Square, b: Square) -> bool {
        (a as usize) < 64 && geometry(self.size()).neighbours[a as usize] & (1u64 << (b as u64 & 63)) != 0
    }

    /// The configuration string: one of 'b', 'o', 'g' per square, column by column, each column
    /// top to bottom (the original document's order).
    ///
    /// ```
    /// use tabletop::games::slide::Slide;
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// assert_eq!(board.configuration(), "obbbogbog");
    /// ```
    pub fn configuration(&self) -> String {
        let n = self.size();
        let mut text = String::with_capacity(n * n);
        for col in 0..n {
            for row in 0..n {
                text.push(self.cell(row, col).map_or('g', Cell::letter));
            }
        }
        text
    }

    /// Reads a configuration string for an n x n board with k squares kept empty. The side to
    /// move follows from the tile counts during placement; in the slide phase it is the side
    /// that moves first after the last placement unless a suffix `:b` or `:o` says otherwise.
    pub fn from_configuration(size: usize, empty: usize, text: &str) -> Result<Self, SlidePositionError> {
        let variant = SlideVariant::new(size, empty)?;
        Slide::from_notation(&variant, text)
    }

    /// The side that moves first once every tile is placed: placement alternates from blue.
    fn default_slide_side(&self) -> Side {
        if (self.variant.squares() - self.variant.empty()).is_multiple_of(2) {
            Side::Blue
        } else {
            Side::Orange
        }
    }

    fn winner(&self) -> Option<Side> {
        // Only the side that just moved can have completed a line.
        let last = self.to_move.other();
        if self.has_line(last) {
            Some(last)
        } else if self.has_line(self.to_move) {
            Some(self.to_move)
        } else {
            None
        }
    }
}

impl Game for Slide {
    type Move = SlideMove;
    type Variant = SlideVariant;
    type MoveError = SlideMoveError;
    type PositionError = SlidePositionError;

    const NAME: &'static str = "slide";

    fn start(variant: &SlideVariant) -> Self {
        let mut board = Slide { variant: *variant, blue: 0, orange: 0, to_move: Side::Blue, hash: 0 };
        board.hash = board.recompute_hash();
        board
    }

    fn variant(&self) -> SlideVariant {
        self.variant
    }

    fn num_seats(&self) -> usize {
        2
    }

    fn status(&self) -> Status {
        if let Some(winner) = self.winner() {
            Status::Over(Outcome::Win(winner.seat()))
        } else if !self.is_placement_phase() && self.slidable_tiles(self.to_move) == 0 {
            Status::Over(Outcome::Draw)
        } else {
            Status::ToMove(self.to_move.seat())
        }
    }

    fn legal_moves(&self, moves: &mut Vec<SlideMove>) {
        moves.clear();
        if self.winner().is_some() {
            return;
        }
        let mut empties = self.empties();
        if self.is_placement_phase() {
            while empties != 0 {
                moves.push(SlideMove::Place(empties.trailing_zeros() as Square));
                empties &= empties - 1;
            }
            return;
        }
        let geo = geometry(self.size());
        let mut tiles = self.tiles(self.to_move);
        while tiles != 0 {
            let from = tiles.trailing_zeros() as usize;
            tiles &= tiles - 1;
            let mut targets = geo.neighbours[from] & empties;
            while targets != 0 {
                moves.push(SlideMove::Slide { from: from as Square, to: targets.trailing_zeros() as Square });
                targets &= targets - 1;
            }
        }
    }

    fn play_unchecked(&mut self, mv: SlideMove) {
        let side = self.to_move;
        let tiles = match side {
            Side::Blue => &mut self.blue,
            Side::Orange => &mut self.orange,
        };
        match mv {
            SlideMove::Place(sq) => {
                *tiles |= 1 << sq;
                self.hash ^= zobrist(sq as usize, side);
            }
            SlideMove::Slide { from, to } => {
                *tiles ^= (1 << from) | (1 << to);
                self.hash ^= zobrist(from as usize, side) ^ zobrist(to as usize, side);
            }
        }
        self.to_move = side.other();
        self.hash ^= ORANGE_TO_MOVE_KEY;
    }

    fn illegal_reason(&self, mv: SlideMove) -> Option<SlideMoveError> {
        let squares = self.variant.squares();
        let check = |sq: Square| {
            ((sq as usize) >= squares).then_some(SlideMoveError::OffBoard { square: sq as usize + 1, squares })
        };
        if self.status().to_move().is_none() {
            return Some(SlideMoveError::GameOver);
        }
        let empties = self.empties();
        match mv {
            SlideMove::Place(sq) => {
                if let Some(err) = check(sq) {
                    return Some(err);
                }
                if !self.is_placement_phase() {
                    return Some(SlideMoveError::NotPlacementPhase);
                }
                (empties & (1 << sq) == 0).then_some(SlideMoveError::Occupied(sq as usize + 1))
            }
            SlideMove::Slide { from, to } => {
                if let Some(err) = check(from).or_else(|| check(to)) {
                    return Some(err);
                }
                if self.is_placement_phase() {
                    return Some(SlideMoveError::NotSlidePhase(self.variant.empty()));
                }
                if self.tiles(self.to_move) & (1 << from) == 0 {
                    Some(SlideMoveError::NotYourTile(from as usize + 1))
                } else if empties & (1 << to) == 0 {
                    Some(SlideMoveError::Occupied(to as usize + 1))
                } else if !self.adjacent(from, to) {
                    Some(SlideMoveError::NotAdjacent { from: from as usize + 1, to: to as usize + 1 })
                } else {
                    None
                }
            }
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn recompute_hash(&self) -> u64 {
        let mut hash = if self.to_move == Side::Orange { ORANGE_TO_MOVE_KEY } else { 0 };
        for (side, mut tiles) in [(Side::Blue, self.blue), (Side::Orange, self.orange)] {
            while tiles != 0 {
                hash ^= zobrist(tiles.trailing_zeros() as usize, side);
                tiles &= tiles - 1;
            }
        }
        hash
    }

    /// ```
    /// use tabletop::games::slide::{Slide, SlideVariant};
    /// use tabletop::Game;
    /// let start = Slide::start(&SlideVariant::new(3, 1).unwrap());
    /// let err = start.parse_move("0").unwrap_err();
    /// assert_eq!(err.to_string(), "there is no square 0: squares are numbered 1 to 9");
    /// ```
    fn parse_move(&self, text: &str) -> Result<SlideMove, SlideMoveError> {
        let squares = self.variant.squares();
        let mv: SlideMove = text.parse().map_err(|e| match e {
            SlideMoveError::OffBoard { square, .. } => SlideMoveError::OffBoard { square, squares },
            other => other,
        })?;
        let (a, b) = match mv {
            SlideMove::Place(sq) => (sq, sq),
            SlideMove::Slide { from, to } => (from, to),
        };
        for sq in [a, b] {
            if sq as usize >= squares {
                return Err(SlideMoveError::OffBoard { square: sq as usize + 1, squares });
            }
        }
        Ok(mv)
    }

    /// The configuration string, with `:b` or `:o` appended only in the slide phase when the
    /// side to move is not the one that follows from the counts.
    fn notation(&self) -> String {
        let mut text = self.configuration();
        if !self.is_placement_phase() && self.to_move != self.default_slide_side() {
            text.push(':');
            text.push(self.to_move.letter());
        }
        text
    }

    fn from_notation(variant: &SlideVariant, text: &str) -> Result<Self, SlidePositionError> {
        let text = text.trim();
        let (config, side) = match text.split_once(':') {
            Some((c, s)) => (c, Some(s.parse::<Side>()?)),
            None => (text, None),
        };
        let n = variant.size();
        let found = config.chars().count();
        if found != n * n {
            return Err(SlidePositionError::Length { size: n, expected: n * n, found });
        }
        let mut board = Slide::start(variant);
        for (i, ch) in config.chars().enumerate() {
            let (row, col) = (i % n, i / n);
            let cell = match ch.to_ascii_lowercase() {
                'b' => Cell::Tile(Side::Blue),
                'o' => Cell::Tile(Side::Orange),
                'g' => Cell::Empty,
                found => return Err(SlidePositionError::BadChar { index: i + 1, found }),
            };
            board.put(row, col, cell);
        }
        let (blue, orange) = (board.blue.count_ones() as usize, board.orange.count_ones() as usize);
        if blue != orange && blue != orange + 1 {
            return Err(SlidePositionError::Counts { blue, orange });
        }
        if board.empty_count() < variant.empty() {
            return Err(SlidePositionError::TooFewEmpty { found: board.empty_count(), required: variant.empty() });
        }
        let counted = if blue == orange { Side::Blue } else { Side::Orange };
        board.to_move = if board.is_placement_phase() {
            match side {
                Some(s) if s != counted => return Err(SlidePositionError::WrongSide(counted)),
                _ => counted,
            }
        } else {
            side.unwrap_or_else(|| board.default_slide_side())
        };
        let (b_line, o_line) = (board.has_line(Side::Blue), board.has_line(Side::Orange));
        if (b_line && o_line) || board.has_line(board.to_move) {
            return Err(SlidePositionError::Unreachable);
        }
        board.hash = board.recompute_hash();
        Ok(board)
    }

    fn repetition_limit() -> Option<usize> {
        Some(3)
    }

    fn end_reason(&self) -> Option<String> {
        match self.status() {
            Status::ToMove(_) => None,
            Status::Over(Outcome::Win(seat)) => {
                Some(format!("{} has {} in a line", Side::from_seat(seat).letter(), self.size()))
            }
            Status::Over(_) if self.empty_count() == 0 => Some("the board is full with no line".to_string()),
            Status::Over(_) => Some(format!("{} has no tile next to an empty square", self.to_move.letter())),
        }
    }
}

impl TwoPlayer for Slide {
    fn last_mover(&self) -> Seat {
        self.to_move.other().seat()
    }
}

/// The board for a terminal: one row per line, empty squares by their number (1 at the top
/// left, row by row), tiles by their letter passed through `tile` (for colours), every cell
/// right-aligned to the width of the largest number.
///
/// ```
/// use tabletop::games::slide::{rules::render_board, Slide};
/// let p: Slide = Slide::new(3, 1).unwrap();
/// assert_eq!(render_board(&p, |_, t| t.to_string()), " 1  2  3 \n 4  5  6 \n 7  8  9 \n");
/// ```
pub fn render_board(position: &Slide, tile: impl Fn(Side, &str) -> String) -> String {
    render_board_marked(position, None, &[], tile)
}

/// [`render_board`] with marks: the tile on `last` (a 0-based square: the last move's) in
/// brackets, `[b]`, and the tiles on the squares of `line` (a winning line) in capitals, `B`.
///
/// ```
/// use tabletop::games::slide::{rules::render_board_marked, Slide};
/// let won = Slide::from_configuration(3, 1, "obbbogboo").unwrap();
/// let text = render_board_marked(&won, Some(8), &won.winning_squares(), |_, t| t.to_string());
/// assert_eq!(text, " O  b  b \n b  O  o \n b  8 [O]\n");
/// ```
pub fn render_board_marked(
    position: &Slide,
    last: Option<Square>,
    line: &[usize],
    tile: impl Fn(Side, &str) -> String,
) -> String {
    let n = position.size();
    let width = if n * n >= 10 { 3 } else { 2 };
    let mut out = String::new();
    for row in 0..n {
        for col in 0..n {
            let square = row * n + col;
            match position.cell(row, col) {
                Some(Cell::Tile(side)) => {
                    let letter = side.letter();
                    let letter = if line.contains(&square) { letter.to_ascii_uppercase() } else { letter };
                    if last.map(usize::from) == Some(square) {
                        // The brackets take the space before the letter and the one after it.
                        out.push_str(&tile(side, &format!("{:>w$}", format!("[{letter}]"), w = width + 1)));
                        continue;
                    }
                    out.push_str(&tile(side, &format!("{letter:>width$}")));
                }
                _ => out.push_str(&format!("{:>width$}", square + 1)),
            }
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

impl fmt::Display for Slide {
    /// The configuration string (see [`Game::notation`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document's evalBoard has one point of view, whichever side is to move: 3 the
    /// computer ('o') won, 0 the human ('b') won (issue 25); the side-relative evaluation is
    /// `eval_board_for`.
    #[test]
    fn eval_board_is_the_documents_fixed_point_of_view() {
        let won_by_o = Slide::from_configuration(3, 1, "obbbogboo").unwrap();
        let won_by_b = Slide::from_configuration(3, 1, "googobbbb").unwrap();
        let open = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
        let drawn = Slide::from_configuration(3, 1, "obbboobog").unwrap();
        assert_eq!([won_by_o, won_by_b, open, drawn].map(|p| p.eval_board()), [3, 0, 1, 2]);
        assert_eq!([won_by_o, won_by_b].map(|p| p.eval_board_for(Side::Blue)), [0, 3]);
        assert_eq!(won_by_b.eval_board(), won_by_b.eval_board_for(Side::Orange));
    }
}
