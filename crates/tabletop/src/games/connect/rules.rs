//! Connect-N rules on one `u64` bitboard.
//!
//! The layout is Pascal Pons': column `c` uses bits `c * (H + 1) .. c * (H + 1) + H`, bottom
//! row first, and the bit above the top row of each column stays empty. That spare bit stops
//! lines from wrapping from one column into the next, so a line test is a few shifts and ands.

use std::fmt;
use std::str::FromStr;

use crate::game::{Game, Outcome, Seat, Status, TwoPlayer};

/// The smallest width or height.
pub const MIN_SIDE: usize = 3;
/// The largest width or height.
pub const MAX_SIDE: usize = 9;
/// The shortest line.
pub const MIN_LINE: usize = 3;
/// The longest line.
pub const MAX_LINE: usize = 6;

/// Board width, height and line length.
///
/// ```
/// use tabletop::games::connect::ConnectVariant;
/// let standard: ConnectVariant = "connect4".parse().unwrap();
/// assert_eq!((standard.width(), standard.height(), standard.line()), (7, 6, 4));
/// assert!(ConnectVariant::new(9, 7, 4).is_err()); // 9 * 8 bits do not fit a u64
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConnectVariant {
    width: u8,
    height: u8,
    line: u8,
}

/// Why a board size or line length was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectVariantError {
    /// The width or height is outside 3..=9.
    #[error("{what} {value} is not supported: choose {MIN_SIDE} to {MAX_SIDE}")]
    Side {
        /// "width" or "height".
        what: &'static str,
        /// The value given.
        value: usize,
    },
    /// The board needs more than 64 bits (W * (H + 1) > 64).
    #[error("a {width}x{height} board does not fit the 64-bit board: width * (height + 1) must be at most 64")]
    TooBig {
        /// The width.
        width: usize,
        /// The height.
        height: usize,
    },
    /// The line length is outside 3..=6 or longer than the board.
    #[error("line length {line} is not supported on a {width}x{height} board: choose {MIN_LINE} to {max}")]
    Line {
        /// The line length given.
        line: usize,
        /// The width.
        width: usize,
        /// The height.
        height: usize,
        /// The longest allowed.
        max: usize,
    },
    /// An unknown preset name.
    #[error("unknown preset {0:?}: choose connect3, connect4-6x4 or connect4 (or WxH/N such as 7x6/4)")]
    Preset(String),
}

impl ConnectVariant {
    /// A `width` x `height` board with lines of `line`.
    pub fn new(width: usize, height: usize, line: usize) -> Result<Self, ConnectVariantError> {
        for (what, value) in [("width", width), ("height", height)] {
            if !(MIN_SIDE..=MAX_SIDE).contains(&value) {
                return Err(ConnectVariantError::Side { what, value });
            }
        }
        if width * (height + 1) > 64 {
            return Err(ConnectVariantError::TooBig { width, height });
        }
        let max = MAX_LINE.min(width.max(height));
        if !(MIN_LINE..=max).contains(&line) {
            return Err(ConnectVariantError::Line { line, width, height, max });
        }
        Ok(ConnectVariant { width: width as u8, height: height as u8, line: line as u8 })
    }

    /// The document's Connect Three: 4 columns, 3 rows, lines of 3.
    pub fn connect3() -> Self {
        ConnectVariant { width: 4, height: 3, line: 3 }
    }

    /// The document's bonus: Connect Four on 6 columns and 4 rows.
    pub fn connect4_6x4() -> Self {
        ConnectVariant { width: 6, height: 4, line: 4 }
    }

    /// Standard Connect Four: 7 columns, 6 rows.
    pub fn connect4() -> Self {
        ConnectVariant { width: 7, height: 6, line: 4 }
    }

    /// The number of columns W.
    pub fn width(self) -> usize {
        self.width as usize
    }

    /// The number of rows H.
    pub fn height(self) -> usize {
        self.height as usize
    }

    /// The line length N.
    pub fn line(self) -> usize {
        self.line as usize
    }

    /// W * H.
    pub fn cells(self) -> usize {
        self.width() * self.height()
    }

    /// The bits of the bottom row.
    pub fn bottom_mask(self) -> u64 {
        (0..self.width()).fold(0, |acc, c| acc | 1u64 << (c * (self.height() + 1)))
    }

    /// Every playable cell.
    pub fn board_mask(self) -> u64 {
        self.bottom_mask() * ((1u64 << self.height()) - 1)
    }

    /// The bit of the bottom cell of column `col` (0-based).
    pub fn bottom_bit(self, col: usize) -> u64 {
        1u64 << (col * (self.height() + 1))
    }

    /// The bit of the top cell of column `col` (0-based).
    pub fn top_bit(self, col: usize) -> u64 {
        1u64 << (col * (self.height() + 1) + self.height() - 1)
    }

    /// The cells of column `col` (0-based).
    pub fn column_mask(self, col: usize) -> u64 {
        ((1u64 << self.height()) - 1) << (col * (self.height() + 1))
    }
}

impl Default for ConnectVariant {
    fn default() -> Self {
        ConnectVariant::connect4()
    }
}

impl fmt::Display for ConnectVariant {
    /// `7x6/4`, or the preset name when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.width, self.height, self.line) {
            (4, 3, 3) => f.write_str("connect3"),
            (6, 4, 4) => f.write_str("connect4-6x4"),
            (7, 6, 4) => f.write_str("connect4"),
            (w, h, n) => write!(f, "{w}x{h}/{n}"),
        }
    }
}

impl FromStr for ConnectVariant {
    type Err = ConnectVariantError;

    /// A preset (`connect3`, `connect4-6x4`, `connect4`) or `WxH/N`.
    fn from_str(text: &str) -> Result<Self, ConnectVariantError> {
        let text = text.trim().to_ascii_lowercase();
        match text.as_str() {
            "connect3" => return Ok(ConnectVariant::connect3()),
            "connect4-6x4" => return Ok(ConnectVariant::connect4_6x4()),
            "connect4" | "connect4-7x6" => return Ok(ConnectVariant::connect4()),
            _ => {}
        }
        let bad = || ConnectVariantError::Preset(text.clone());
        let (size, line) = text.split_once('/').ok_or_else(bad)?;
        let (w, h) = size.split_once('x').ok_or_else(bad)?;
        let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        ConnectVariant::new(num(w)?, num(h)?, num(line)?)
    }
}

/// A move: the column (0-based inside, 1-based in notation) a piece is dropped into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Column(pub u8);

impl fmt::Display for Column {
    /// The 1-based column number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0 + 1)
    }
}

impl FromStr for Column {
    type Err = ConnectMoveError;

    /// Reads a 1-based column number (range checked against a board by [`Game::parse_move`]).
    ///
    /// ```
    /// use tabletop::games::connect::Column;
    /// assert_eq!("4".parse::<Column>().unwrap(), Column(3));
    /// assert!("x".parse::<Column>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, ConnectMoveError> {
        let text = text.trim();
        match text.parse::<u32>() {
            Ok(n) if (1..=MAX_SIDE as u32).contains(&n) => Ok(Column((n - 1) as u8)),
            Ok(n) => Err(ConnectMoveError::OffBoard { column: n as usize, width: MAX_SIDE }),
            Err(_) => Err(ConnectMoveError::Syntax(text.to_string())),
        }
    }
}

/// Why a move could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectMoveError {
    /// Not a column number.
    #[error("{0:?} is not a column number")]
    Syntax(String),
    /// The column does not exist.
    #[error("column {column} is off the board: choose 1 to {width}")]
    OffBoard {
        /// The 1-based column given.
        column: usize,
        /// The board width.
        width: usize,
    },
    /// The column is full.
    #[error("column {0} is full")]
    Full(usize),
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
}

/// Why a position (a sequence of columns) could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConnectPositionError {
    /// A character is not a column digit.
    #[error("move {index}: {found:?} is not a column digit")]
    Syntax {
        /// The 1-based move number.
        index: usize,
        /// The character found.
        found: char,
    },
    /// A move names a column that does not exist.
    #[error("move {index}: column {column} is off the board (1 to {width})")]
    OffBoard {
        /// The 1-based move number.
        index: usize,
        /// The column given.
        column: usize,
        /// The board width.
        width: usize,
    },
    /// A move drops into a full column.
    #[error("move {index}: column {column} is full")]
    Full {
        /// The 1-based move number.
        index: usize,
        /// The column given.
        column: usize,
    },
    /// A move comes after the game was already won.
    #[error("move {index}: the game was already won by {winner} at move {won_at}")]
    AfterWin {
        /// The 1-based move number.
        index: usize,
        /// The winner ('X' or 'O').
        winner: char,
        /// The move that won.
        won_at: usize,
    },
}

/// One of the two sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// 'X', moves first.
    X,
    /// 'O', moves second.
    O,
}

impl Side {
    /// The side's letter.
    pub fn letter(self) -> char {
        match self {
            Side::X => 'X',
            Side::O => 'O',
        }
    }

    /// The side in a seat.
    pub fn from_seat(seat: Seat) -> Side {
        if seat.0 == 0 {
            Side::X
        } else {
            Side::O
        }
    }

    /// The seat of the side.
    pub fn seat(self) -> Seat {
        Seat(self as u8)
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The cells (as bits) where `stones` would complete a line of `n` if the cell were filled,
/// whether or not the cell is empty or reachable; restricted to the board.
pub fn winning_cells(stones: u64, variant: ConnectVariant) -> u64 {
    let h = variant.height();
    let n = variant.line();
    let board = variant.board_mask();
    if n == 4 {
        return winning_cells4(stones, h) & board;
    }
    let mut r = 0u64;
    // Vertical: only the cell above n - 1 stacked stones.
    let mut v = stones;
    for k in 1..n - 1 {
        v &= stones >> k;
    }
    r |= v << (n - 1);
    for s in [h + 1, h, h + 2] {
        // For each position j of the empty cell inside a window of n cells.
        for j in 0..n {
            let mut m = !0u64;
            for k in 0..n {
                if k == j {
                    continue;
                }
                // The window cell k sits (k - j) * s bits from the empty cell.
                let d = k as isize - j as isize;
                let shifted = if d > 0 { stones >> (d as usize * s) } else { stones << ((-d) as usize * s) };
                m &= shifted;
            }
            r |= m;
        }
    }
    r & board
}

/// Pons' formula for lines of four.
#[inline]
pub(crate) fn winning_cells4(position: u64, h: usize) -> u64 {
    // vertical
    let mut r = (position << 1) & (position << 2) & (position << 3);
    for s in [h + 1, h, h + 2] {
        let mut p = (position << s) & (position << (2 * s));
        r |= p & (position << (3 * s));
        r |= p & (position >> s);
        p = (position >> s) & (position >> (2 * s));
        r |= p & (position << s);
        r |= p & (position >> (3 * s));
    }
    r
}

/// Does `stones` hold a line of `n`?
pub fn has_line(stones: u64, variant: ConnectVariant) -> bool {
    let h = variant.height();
    let n = variant.line();
    // By doubling: `m` marks the starts of runs of `len` stones; two runs of `len` that overlap
    // make one of `n` (len <= n <= 2 len). Branch-free, a few shifts per direction.
    let run = |s: usize| {
        let (mut m, mut len) = (stones, 1);
        while 2 * len <= n {
            m &= m >> (len * s);
            len *= 2;
        }
        if len < n {
            m &= m >> ((n - len) * s);
        }
        m
    };
    (run(1) | run(h + 1) | run(h) | run(h + 2)) != 0
}

/// A Connect-N position: the board, the side to move, and the columns played so far.
///
/// ```
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::Game;
/// let p = Connect::from_notation(&ConnectVariant::connect4(), "4453").unwrap();
/// assert_eq!(p.moves_played(), 4);
/// assert_eq!(p.notation(), "4453");
/// ```
#[derive(Clone, Debug)]
pub struct Connect {
    variant: ConnectVariant,
    /// Stones of the side to move.
    current: u64,
    /// Every stone.
    mask: u64,
    /// Stones played.
    plies: u8,
    /// Turns forfeited (the document's rule for invalid input); they flip the side to move.
    passes: u8,
    /// Did the last move make a line?
    won: bool,
    /// The columns played, in order (0-based), [`PASS`] for a forfeited turn.
    history: [u8; HISTORY],
}

impl PartialEq for Connect {
    /// Positions are equal when the boards are; the move order that led there does not count.
    fn eq(&self, other: &Self) -> bool {
        self.variant == other.variant && self.current == other.current && self.mask == other.mask
    }
}

impl Eq for Connect {}

/// The most moves and forfeited turns a position remembers.
const HISTORY: usize = 128;
/// A forfeited turn in the history (written `0` in the notation).
const PASS: u8 = 0xff;

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Connect {
    /// The empty board of a variant.
    pub fn new(variant: ConnectVariant) -> Self {
        Connect { variant, current: 0, mask: 0, plies: 0, passes: 0, won: false, history: [0; HISTORY] }
    }

    /// The variant.
    pub fn connect_variant(&self) -> ConnectVariant {
        self.variant
    }

    /// Stones of the side to move.
    pub fn current_stones(&self) -> u64 {
        self.current
    }

    /// Every stone on the board.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Stones played so far.
    pub fn moves_played(&self) -> usize {
        self.plies as usize
    }

    /// The columns played so far, in order, `None` for a forfeited turn.
    pub fn history(&self) -> impl Iterator<Item = Option<Column>> + '_ {
        self.history[..self.plies as usize + self.passes as usize].iter().map(|&c| {
            if c == PASS {
                None
            } else {
                Some(Column(c))
            }
        })
    }

    /// Turns forfeited so far.
    pub fn passes(&self) -> usize {
        self.passes as usize
    }

    /// The side to move forfeits its turn (the origin document's rule for invalid input). A
    /// forfeited turn counts as a turn: after as many turns as cells the game is drawn.
    /// Returns false, changing nothing, when the game is over or the history is full.
    ///
    /// ```
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::{Game, Outcome, Status};
    /// // Connect Three: 10 turns played and nobody has won; the 11th and 12th are forfeited.
    /// let mut p = Connect::from_notation(&ConnectVariant::connect3(), "1122132433").unwrap();
    /// assert!(p.forfeit_turn());
    /// assert!(p.status().to_move().is_some());
    /// assert!(p.forfeit_turn());
    /// assert_eq!(p.status(), Status::Over(Outcome::Draw));
    /// ```
    pub fn forfeit_turn(&mut self) -> bool {
        let len = self.plies as usize + self.passes as usize;
        // Keep room in the history for every cell still empty.
        if self.status().to_move().is_none() || self.passes as usize + self.variant.cells() + 1 >= HISTORY {
            return false;
        }
        self.history[len] = PASS;
        self.passes += 1;
        self.current ^= self.mask;
        true
    }

    /// The side to move (or that would move, after the end).
    pub fn side_to_move(&self) -> Side {
        if (self.plies + self.passes) & 1 == 0 {
            Side::X
        } else {
            Side::O
        }
    }

    /// The stones of a side.
    pub fn stones(&self, side: Side) -> u64 {
        if side == self.side_to_move() {
            self.current
        } else {
            self.current ^ self.mask
        }
    }

    /// Did the last move win?
    pub fn is_won(&self) -> bool {
        self.won
    }

    /// Can a piece go into `col` (0-based)? Ignores whether the game is over.
    pub fn can_play(&self, col: usize) -> bool {
        col < self.variant.width() && self.mask & self.variant.top_bit(col) == 0
    }

    /// The number of stones in column `col` (0-based).
    pub fn column_height(&self, col: usize) -> usize {
        (self.mask & self.variant.column_mask(col)).count_ones() as usize
    }

    /// What is at (`row`, `col`), rows from the bottom, both 0-based; `None` off the board.
    pub fn cell(&self, row: usize, col: usize) -> Option<Option<Side>> {
        if row >= self.variant.height() || col >= self.variant.width() {
            return None;
        }
        let bit = 1u64 << (col * (self.variant.height() + 1) + row);
        Some(if self.mask & bit == 0 {
            None
        } else if self.stones(Side::X) & bit != 0 {
            Some(Side::X)
        } else {
            Some(Side::O)
        })
    }

    /// Would dropping into `col` win for the side to move? (`col` must be playable.)
    pub fn is_winning_move(&self, col: usize) -> bool {
        let bit = (self.mask + self.variant.bottom_bit(col)) & self.variant.column_mask(col);
        has_line(self.current | bit, self.variant)
    }

    /// Pons' position key: unique per position of a variant.
    pub fn key(&self) -> u64 {
        self.current + self.mask
    }

    /// The cells (row from the bottom, column) of every completed line of the winner, sorted;
    /// empty while nobody has won.
    ///
    /// ```
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::Game;
    /// let won = Connect::from_notation(&ConnectVariant::connect3(), "12121").unwrap();
    /// assert_eq!(won.winning_cells(), vec![(0, 0), (1, 0), (2, 0)]);
    /// ```
    pub fn winning_cells(&self) -> Vec<(usize, usize)> {
        let (w, h, n) = (self.variant.width() as i64, self.variant.height() as i64, self.variant.line() as i64);
        let Some(winner) = self.winner() else { return Vec::new() };
        let owner = |r: i64, c: i64| {
            (0..h).contains(&r) && (0..w).contains(&c) && self.cell(r as usize, c as usize) == Some(Some(winner))
        };
        let mut cells = Vec::new();
        for r in 0..h {
            for c in 0..w {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..n).all(|i| owner(r + i * dr, c + i * dc)) {
                        cells.extend((0..n).map(|i| ((r + i * dr) as usize, (c + i * dc) as usize)));
                    }
                }
            }
        }
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// The winner, if the last move made a line.
    pub fn winner(&self) -> Option<Side> {
        if self.won {
            Some(if self.side_to_move() == Side::X { Side::O } else { Side::X })
        } else {
            None
        }
    }

    fn key_hash(variant: ConnectVariant, key: u64) -> u64 {
        let tag = (variant.width() as u64) << 8 | (variant.height() as u64) << 4 | variant.line() as u64;
        mix(key ^ mix(tag))
    }

    /// Drops a piece for the side to move into a playable column `col` (0-based).
    fn drop_piece(&mut self, col: usize) {
        let bit = (self.mask + self.variant.bottom_bit(col)) & self.variant.column_mask(col);
        let mine = self.current | bit;
        self.won = has_line(mine, self.variant);
        let len = self.plies as usize + self.passes as usize;
        if len < HISTORY {
            self.history[len] = col as u8;
        }
        self.plies += 1;
        self.mask |= bit;
        self.current = mine ^ self.mask;
    }
}

impl Game for Connect {
    type Move = Column;
    type Variant = ConnectVariant;
    type MoveError = ConnectMoveError;
    type PositionError = ConnectPositionError;

    const NAME: &'static str = "connect";

    fn start(variant: &ConnectVariant) -> Self {
        Connect::new(*variant)
    }

    fn variant(&self) -> ConnectVariant {
        self.variant
    }

    fn num_seats(&self) -> usize {
        2
    }

    fn status(&self) -> Status {
        if self.won {
            Status::Over(Outcome::Win(self.side_to_move().seat().opponent()))
        } else if self.plies as usize + self.passes as usize >= self.variant.cells() {
            // The board is full, or (with forfeited turns) the document's rule: "if after 12
            // turns no player wins, there is a draw" - as many turns as cells.
            Status::Over(Outcome::Draw)
        } else {
            Status::ToMove(self.side_to_move().seat())
        }
    }

    fn legal_moves(&self, moves: &mut Vec<Column>) {
        moves.clear();
        if self.status().to_move().is_none() {
            return;
        }
        for col in 0..self.variant.width() {
            if self.mask & self.variant.top_bit(col) == 0 {
                moves.push(Column(col as u8));
            }
        }
    }

    fn play_unchecked(&mut self, mv: Column) {
        self.drop_piece(mv.0 as usize);
    }

    fn illegal_reason(&self, mv: Column) -> Option<ConnectMoveError> {
        let col = mv.0 as usize;
        if col >= self.variant.width() {
            Some(ConnectMoveError::OffBoard { column: col + 1, width: self.variant.width() })
        } else if self.status().to_move().is_none() {
            Some(ConnectMoveError::GameOver)
        } else if !self.can_play(col) {
            Some(ConnectMoveError::Full(col + 1))
        } else {
            None
        }
    }

    fn hash(&self) -> u64 {
        Connect::key_hash(self.variant, self.key())
    }

    fn recompute_hash(&self) -> u64 {
        // From the cells, not from the maintained bitboards.
        let mut current = 0u64;
        let mut mask = 0u64;
        let me = self.side_to_move();
        for col in 0..self.variant.width() {
            for row in 0..self.variant.height() {
                if let Some(Some(side)) = self.cell(row, col) {
                    let bit = 1u64 << (col * (self.variant.height() + 1) + row);
                    mask |= bit;
                    if side == me {
                        current |= bit;
                    }
                }
            }
        }
        Connect::key_hash(self.variant, current + mask)
    }

    fn parse_move(&self, text: &str) -> Result<Column, ConnectMoveError> {
        let text = text.trim();
        match text.parse::<u64>() {
            Ok(n) if n >= 1 && n as usize <= self.variant.width() => Ok(Column((n - 1) as u8)),
            Ok(n) => Err(ConnectMoveError::OffBoard {
                column: n.min(usize::MAX as u64) as usize,
                width: self.variant.width(),
            }),
            Err(_) => Err(ConnectMoveError::Syntax(text.to_string())),
        }
    }

    fn notation(&self) -> String {
        self.history().map(|c| c.map_or("0".to_string(), |c| c.to_string())).collect()
    }

    fn from_notation(variant: &ConnectVariant, text: &str) -> Result<Self, ConnectPositionError> {
        let mut p = Connect::new(*variant);
        let mut won_at = 0;
        for (i, ch) in text.trim().chars().enumerate() {
            let index = i + 1;
            let digit = ch.to_digit(10).ok_or(ConnectPositionError::Syntax { index, found: ch })? as usize;
            if digit == 0 && p.winner().is_none() && p.forfeit_turn() {
                // `0`: a forfeited turn (only written by games played with the forfeit rule).
                continue;
            }
            if digit == 0 || digit > variant.width() {
                return Err(ConnectPositionError::OffBoard { index, column: digit, width: variant.width() });
            }
            if let Some(winner) = p.winner() {
                return Err(ConnectPositionError::AfterWin { index, winner: winner.letter(), won_at });
            }
            if !p.can_play(digit - 1) {
                return Err(ConnectPositionError::Full { index, column: digit });
            }
            p.drop_piece(digit - 1);
            if p.won {
                won_at = index;
            }
        }
        Ok(p)
    }

    fn expected_moves_left(&self) -> u32 {
        crate::grid::moves_left_on(self.variant.cells().saturating_sub(self.moves_played()))
    }

    /// The side out of time loses, unless every line of the board holds one of its stones (the
    /// other side could no longer connect by any play): a draw.
    fn out_of_time(&self, seat: Seat) -> Outcome {
        let open = self.variant.board_mask() & !self.stones(Side::from_seat(seat));
        if has_line(open, self.variant) {
            Outcome::Win(seat.opponent())
        } else {
            Outcome::Draw
        }
    }

    fn end_reason(&self) -> Option<String> {
        match self.status() {
            Status::Over(Outcome::Win(_)) => Some(format!("{} in a row", self.variant.line())),
            // With forfeited turns the game is drawn after as many turns as cells, board full or not.
            Status::Over(_) if self.passes > 0 => Some("as many turns as cells without a line".to_string()),
            Status::Over(_) => Some("the board is full".to_string()),
            Status::ToMove(_) => None,
        }
    }
}

impl TwoPlayer for Connect {
    fn last_mover(&self) -> Seat {
        self.side_to_move().seat().opponent()
    }
}

impl fmt::Display for Connect {
    /// The document's board: rows top first between `|`, a line of `-`, the column numbers.
    ///
    /// ```
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::Game;
    /// let p = Connect::from_notation(&ConnectVariant::connect3(), "12").unwrap();
    /// assert_eq!(p.to_string(), "|       |\n|       |\n|X O    |\n---------\n 1 2 3 4\n");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render_board(self, |s| s.letter().to_string()))
    }
}

/// The board as text, with `cell` turning a side into what is printed (for colours).
/// Each cell is one character, cells are separated by a space, so any width lines up.
pub fn render_board(p: &Connect, cell: impl Fn(Side) -> String) -> String {
    render_board_marked(p, None, &[], |side, _| cell(side))
}

/// [`render_board`] with marks: the piece at `last` (row from the bottom, column: the last
/// move's) in brackets, `[X]`, the brackets taking the separators (or the frame) beside it, and
/// the pieces of `line` (a winning line) in lower case, `x`. `cell` gets the side and the
/// letter to print.
///
/// ```
/// use tabletop::games::connect::{rules::render_board_marked, Connect, ConnectVariant};
/// use tabletop::Game;
/// let won = Connect::from_notation(&ConnectVariant::connect3(), "12121").unwrap();
/// let text = render_board_marked(&won, Some((2, 0)), &won.winning_cells(), |_, l| l.to_string());
/// assert_eq!(text, "[x]     |\n|x O    |\n|x O    |\n---------\n 1 2 3 4\n");
/// ```
pub fn render_board_marked(
    p: &Connect,
    last: Option<(usize, usize)>,
    line: &[(usize, usize)],
    cell: impl Fn(Side, char) -> String,
) -> String {
    let w = p.variant.width();
    let mut out = String::new();
    for row in (0..p.variant.height()).rev() {
        // The frame, the cells and the separators between them: cell `col` is at 1 + 2 col.
        let mut slots: Vec<String> = Vec::with_capacity(2 * w + 1);
        slots.push("|".to_string());
        for col in 0..w {
            slots.push(match p.cell(row, col).flatten() {
                Some(side) => {
                    let letter = side.letter();
                    cell(side, if line.contains(&(row, col)) { letter.to_ascii_lowercase() } else { letter })
                }
                None => " ".to_string(),
            });
            slots.push(if col + 1 < w { " " } else { "|" }.to_string());
        }
        if let Some((_, col)) = last.filter(|&(r, _)| r == row) {
            if col < w {
                slots[2 * col] = "[".to_string();
                slots[2 * col + 2] = "]".to_string();
            }
        }
        out.push_str(&slots.concat());
        out.push('\n');
    }
    out.push_str(&"-".repeat(2 * w + 1));
    out.push('\n');
    for col in 0..w {
        out.push(' ');
        out.push_str(&(col + 1).to_string());
    }
    out.push('\n');
    out
}
