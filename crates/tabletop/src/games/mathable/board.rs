//! The board, cells, special squares, token multisets (racks) and the equation rule with its
//! fast placement generator.

use std::fmt;
use std::str::FromStr;

use super::settings::{Layout, Operations, Settings, MAX_TOKEN};

/// Width of the padded board array: up to 14 columns plus two empty cells on each side, so the
/// two neighbours of any on-board cell in any direction are inside the array.
pub(crate) const W: usize = 18;
const PAD: usize = 2;
/// Cells in the padded board array.
pub(crate) const CELLS: usize = W * W;
/// The byte of an empty cell.
pub(crate) const EMPTY: u8 = 255;
/// The largest rack (and exchange).
pub const MAX_RACK: usize = 8;

/// A square of the board, 0-based, written like a spreadsheet cell: column letter then row
/// number (`G9` is column 6, row 8).
///
/// ```
/// use tabletop::games::mathable::Cell;
/// let cell: Cell = "g9".parse().unwrap();
/// assert_eq!((cell.col, cell.row, cell.to_string()), (6, 8, "G9".to_string()));
/// assert!("Z3".parse::<Cell>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Row, 0 = row 1 at the top.
    pub row: u8,
    /// Column, 0 = column A at the left.
    pub col: u8,
}

/// Why a cell could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    /// Not a letter followed by a number.
    #[error("{0:?} is not a cell: write a column letter and a row number, like G9")]
    Syntax(String),
    /// Outside the largest board.
    #[error("{0:?} is off the board: columns go from A to N and rows from 1 to 14")]
    Range(String),
}

impl Cell {
    /// The cell at `row`, `col` (0-based).
    pub const fn new(row: u8, col: u8) -> Cell {
        Cell { row, col }
    }

    pub(crate) fn index(self) -> usize {
        (self.row as usize + PAD) * W + self.col as usize + PAD
    }

    pub(crate) fn from_index(index: usize) -> Cell {
        Cell { row: (index / W - PAD) as u8, col: (index % W - PAD) as u8 }
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.col) as char, self.row + 1)
    }
}

impl FromStr for Cell {
    type Err = CellError;

    fn from_str(text: &str) -> Result<Cell, CellError> {
        let t = text.trim();
        let mut chars = t.chars();
        let letter = chars.next().filter(char::is_ascii_alphabetic).ok_or_else(|| CellError::Syntax(t.to_string()))?;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 3 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(CellError::Syntax(t.to_string()));
        }
        let col = letter.to_ascii_uppercase() as u8 - b'A';
        let row: u32 = digits.parse().map_err(|_| CellError::Syntax(t.to_string()))?;
        if col >= 14 || row == 0 || row > 14 {
            return Err(CellError::Range(t.to_string()));
        }
        Ok(Cell { row: row as u8 - 1, col })
    }
}

/// An arithmetic operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Addition.
    Add,
    /// Subtraction (larger minus smaller).
    Sub,
    /// Multiplication.
    Mul,
    /// Exact division (larger by smaller, divisor not 0).
    Div,
}

impl Op {
    /// The operation's symbol (`+ - x /`).
    pub fn symbol(self) -> char {
        match self {
            Op::Add => '+',
            Op::Sub => '-',
            Op::Mul => 'x',
            Op::Div => '/',
        }
    }

    /// The noun for messages (`sum`, `difference`, ...).
    pub fn result_name(self) -> &'static str {
        match self {
            Op::Add => "sum",
            Op::Sub => "difference",
            Op::Mul => "product",
            Op::Div => "quotient",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// What kind of square a cell is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Square {
    /// A plain square.
    Normal,
    /// One of the four centre squares with a printed start tile.
    Start,
    /// Doubles the token's points.
    Double,
    /// Triples the token's points.
    Triple,
    /// A restriction square: the token must be the result of this operation.
    Restriction(Op),
}

impl Square {
    fn from_code(code: u8) -> Square {
        match code {
            1 => Square::Start,
            2 => Square::Double,
            3 => Square::Triple,
            4 => Square::Restriction(Op::Add),
            5 => Square::Restriction(Op::Sub),
            6 => Square::Restriction(Op::Mul),
            7 => Square::Restriction(Op::Div),
            _ => Square::Normal,
        }
    }

    /// The points multiplier (1, 2 or 3).
    pub fn multiplier(self) -> u32 {
        match self {
            Square::Double => 2,
            Square::Triple => 3,
            _ => 1,
        }
    }

    /// A two-character mark for board pictures (`3x`, `2x`, ` +`, ...), or `None` for plain squares.
    pub fn mark(self) -> Option<&'static str> {
        match self {
            Square::Double => Some("2x"),
            Square::Triple => Some("3x"),
            Square::Restriction(Op::Add) => Some("+"),
            Square::Restriction(Op::Sub) => Some("-"),
            Square::Restriction(Op::Mul) => Some("x"),
            Square::Restriction(Op::Div) => Some("/"),
            _ => None,
        }
    }
}

/// The official 14x14 layout: `3` triple, `2` double, `+ - * /` restriction, `s` start tile.
const OFFICIAL: [&[u8; 14]; 14] = [
    b"3.....33.....3",
    b".2../..../..2.",
    b"..2..-..-..2..",
    b"...2..+*..2...",
    b"./..2.*+.2../.",
    b"..-........-..",
    b"3..*+.ss.*+..3",
    b"3..+*.ss.+*..3",
    b"..-........-..",
    b"./..2.+*.2../.",
    b"...2..*+..2...",
    b"..2..-..-..2..",
    b".2../..../..2.",
    b"3.....33.....3",
];

const OFF_BOARD: u8 = 255;

const fn build_squares(size: usize, official: bool) -> [u8; CELLS] {
    let mut table = [OFF_BOARD; CELLS];
    let off = (14 - size) / 2;
    let mut r = 0;
    while r < size {
        let mut c = 0;
        while c < size {
            let code = match OFFICIAL[r + off][c + off] {
                b's' => 1,
                b'2' => 2,
                b'3' => 3,
                b'+' => 4,
                b'-' => 5,
                b'*' => 6,
                b'/' => 7,
                _ => 0,
            };
            table[(r + PAD) * W + c + PAD] = if official || code == 1 { code } else { 0 };
            c += 1;
        }
        r += 1;
    }
    table
}

static SQUARES: [[u8; CELLS]; 8] = [
    build_squares(8, true),
    build_squares(10, true),
    build_squares(12, true),
    build_squares(14, true),
    build_squares(8, false),
    build_squares(10, false),
    build_squares(12, false),
    build_squares(14, false),
];

/// A multiset of up to 8 tokens kept sorted: a rack, or the tokens of an exchange.
///
/// ```
/// use tabletop::games::mathable::Tokens;
/// let rack = Tokens::from_slice(&[7, 3, 45, 3]).unwrap();
/// assert_eq!(rack.as_slice(), &[3, 3, 7, 45]);
/// assert_eq!(rack.position(7), Some(2));
/// assert_eq!(rack.len(), 4);
/// assert_eq!(rack.to_string(), "3 3 7 45");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Tokens {
    len: u8,
    values: [u8; MAX_RACK],
}

impl Tokens {
    /// No tokens.
    pub const EMPTY: Tokens = Tokens { len: 0, values: [0; MAX_RACK] };

    /// The tokens of a slice, or `None` if there are more than 8 or a value is above 90.
    pub fn from_slice(values: &[u8]) -> Option<Tokens> {
        if values.len() > MAX_RACK || values.iter().any(|&v| v > MAX_TOKEN) {
            return None;
        }
        let mut t = Tokens::EMPTY;
        for &v in values {
            t.insert(v);
        }
        Some(t)
    }

    /// How many tokens (the rack size of the assignment).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// No tokens at all?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tokens, sorted.
    pub fn as_slice(&self) -> &[u8] {
        &self.values[..self.len as usize]
    }

    /// The index of a token in the (sorted) rack, if present.
    pub fn position(&self, token: u8) -> Option<usize> {
        self.as_slice().iter().position(|&v| v == token)
    }

    /// Does the rack hold this token?
    pub fn contains(&self, token: u8) -> bool {
        self.position(token).is_some()
    }

    /// How many tokens of this value.
    pub fn count(&self, token: u8) -> usize {
        self.as_slice().iter().filter(|&&v| v == token).count()
    }

    /// Adds a token (keeps the order). Panics if the multiset is full.
    pub fn insert(&mut self, token: u8) {
        assert!((self.len as usize) < MAX_RACK, "a rack holds at most 8 tokens");
        let mut i = self.len as usize;
        while i > 0 && self.values[i - 1] > token {
            self.values[i] = self.values[i - 1];
            i -= 1;
        }
        self.values[i] = token;
        self.len += 1;
    }

    /// Removes one token of this value; false if there is none.
    pub fn remove(&mut self, token: u8) -> bool {
        match self.position(token) {
            Some(i) => {
                self.values.copy_within(i + 1..self.len as usize, i);
                self.len -= 1;
                self.values[self.len as usize] = 0;
                true
            }
            None => false,
        }
    }

    /// Is every token of `other` here (as a multiset)?
    pub fn contains_all(&self, other: &Tokens) -> bool {
        let mut copy = *self;
        other.as_slice().iter().all(|&v| copy.remove(v))
    }

    /// The distinct values as a bit mask (bit v set when the value v is present).
    pub fn mask(&self) -> u128 {
        self.as_slice().iter().fold(0, |m, &v| m | 1u128 << v)
    }

    /// The sum of the face values.
    pub fn sum(&self) -> u32 {
        self.as_slice().iter().map(|&v| v as u32).sum()
    }
}

/// Why a list of tokens could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokensError {
    /// A word that is not a token (a number from 0 to 90).
    #[error("{0:?} is not a token")]
    NotAToken(String),
    /// More tokens than a rack holds.
    #[error("more than {MAX_RACK} tokens")]
    TooMany,
}

impl std::str::FromStr for Tokens {
    type Err = TokensError;

    /// Tokens separated by spaces or commas: `9 14, 1`.
    ///
    /// ```
    /// use tabletop::games::mathable::Tokens;
    /// assert_eq!("9 14, 1".parse::<Tokens>().unwrap().as_slice(), &[1, 9, 14]);
    /// assert!("9 x".parse::<Tokens>().is_err() && "91".parse::<Tokens>().is_err());
    /// assert!("1 2 3 4 5 6 7 8 9".parse::<Tokens>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut values = Vec::new();
        for word in text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
            match word.parse::<u8>() {
                Ok(v) if v <= MAX_TOKEN => values.push(v),
                _ => return Err(TokensError::NotAToken(word.to_string())),
            }
        }
        Tokens::from_slice(&values).ok_or(TokensError::TooMany)
    }
}

impl fmt::Display for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

/// One valid placement and the points it scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    /// Where.
    pub cell: Cell,
    /// Which token.
    pub token: u8,
    /// Its points (before any end-of-turn bonus).
    pub points: u32,
}

/// Why a token cannot go on a cell (the equation rule only; racks are not looked at).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlacementError {
    /// The cell is outside this board.
    #[error("{0} is off the board")]
    OffBoard(Cell),
    /// The cell holds a token.
    #[error("{0} is already occupied")]
    Occupied(Cell),
    /// No pair of tokens in a line next to the cell gives the token.
    #[error("{token} at {cell} makes no equation: it must be {ops} of the two tokens next to it in a line")]
    NoEquation {
        /// The cell.
        cell: Cell,
        /// The token.
        token: u8,
        /// The allowed operations, in words.
        ops: &'static str,
    },
    /// The cell is a restriction square and the token only fits other operations.
    #[error("{cell} is a {op} square: {token} must be the {} of the two tokens next to it", op.result_name())]
    Restriction {
        /// The cell.
        cell: Cell,
        /// The square's operation.
        op: Op,
        /// The token.
        token: u8,
    },
}

const DIRS: [isize; 4] = [-1, 1, -(W as isize), W as isize];
const ALL_OPS: u8 = 0b1111;
const ADD_SUB: u8 = 0b0011;

#[inline]
fn bit(v: u32) -> u128 {
    if v < 128 {
        1u128 << v
    } else {
        0
    }
}

/// The results of `a` and `b` under the operations in `ops` (bit per `Op`), as a value mask.
#[inline]
pub(crate) fn equation_mask(a: u8, b: u8, ops: u8) -> u128 {
    let (a, b) = (a as u32, b as u32);
    let mut m = 0;
    if ops & 1 != 0 {
        m |= bit(a + b);
    }
    if ops & 2 != 0 {
        m |= bit(a.abs_diff(b));
    }
    if ops & 4 != 0 {
        m |= bit(a * b);
    }
    if ops & 8 != 0 {
        if b != 0 && a % b == 0 {
            m |= bit(a / b);
        }
        if a != 0 && b % a == 0 {
            m |= bit(b / a);
        }
    }
    m
}

/// The playing surface: tokens on cells, the special squares and the operations in use.
///
/// ```
/// use tabletop::games::mathable::{Board, Cell, Preset, Settings};
/// let board = Board::new(&Settings::preset(Preset::Classic));
/// // G8=3 and G7=1 stand above G9, so G9 takes 3+1, 3-1, 3x1 and 3/1.
/// let g9: Cell = "G9".parse().unwrap();
/// assert_eq!(board.score(g9, 4), Ok(4));
/// assert_eq!(board.score(g9, 2), Ok(2));
/// assert!(board.score(g9, 5).is_err());
/// assert!(board.contains(g9) && !board.contains(Cell::new(13, 13).offset(1, 0)));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    cells: [u8; CELLS],
    squares: &'static [u8; CELLS],
    size: u8,
    ops: u8,
}

impl Cell {
    /// The cell `dr` rows and `dc` columns away (may be off any board: row or column 255 up).
    pub fn offset(self, dr: i8, dc: i8) -> Cell {
        Cell { row: self.row.wrapping_add(dr as u8), col: self.col.wrapping_add(dc as u8) }
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({}x{}):\n{self}", self.size, self.size)
    }
}

impl Board {
    /// Sets up the board of a game: the special squares and the four start tiles 1, 2, 3, 4 in
    /// the 2x2 block around the centre.
    pub fn new(settings: &Settings) -> Board {
        let size = settings.size.clamp(8, 14) & !1;
        let plain = matches!(settings.layout, Layout::Plain) as usize;
        let squares = &SQUARES[(size as usize / 2 - 4) + 4 * plain];
        let ops = match settings.operations {
            Operations::All => ALL_OPS,
            Operations::AddSub => ADD_SUB,
        };
        let mut board = Board { cells: [EMPTY; CELLS], squares, size, ops };
        let m = size / 2;
        for (i, cell) in Board::start_cells(size).into_iter().enumerate() {
            board.cells[cell.index()] = i as u8 + 1;
        }
        debug_assert_eq!(board.get(Cell::new(m, m)), Some(4));
        board
    }

    /// The four start cells (holding 1, 2, 3, 4) of a board of side `size`.
    pub fn start_cells(size: u8) -> [Cell; 4] {
        let m = size / 2;
        [Cell::new(m - 1, m - 1), Cell::new(m - 1, m), Cell::new(m, m - 1), Cell::new(m, m)]
    }

    /// The side N.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// Is the cell on this board?
    pub fn contains(&self, cell: Cell) -> bool {
        cell.row < self.size && cell.col < self.size
    }

    /// The token on a cell, if any (`None` off the board too).
    pub fn get(&self, cell: Cell) -> Option<u8> {
        if !self.contains(cell) {
            return None;
        }
        let v = self.cells[cell.index()];
        (v != EMPTY).then_some(v)
    }

    /// Puts a token on a cell (no rule check). Used by placements and by loading saved games.
    pub(crate) fn set(&mut self, cell: Cell, token: Option<u8>) {
        self.cells[cell.index()] = token.unwrap_or(EMPTY);
    }

    /// The kind of square a cell is.
    pub fn square(&self, cell: Cell) -> Square {
        if !self.contains(cell) {
            return Square::Normal;
        }
        Square::from_code(self.squares[cell.index()])
    }

    /// Every cell of the board, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.size).flat_map(move |r| (0..self.size).map(move |c| Cell::new(r, c)))
    }

    /// The tokens on the board other than the four start tiles, as counts by value.
    pub fn placed_counts(&self) -> [u32; MAX_TOKEN as usize + 1] {
        let mut counts = [0; MAX_TOKEN as usize + 1];
        for cell in self.cells() {
            if let (Some(v), false) = (self.get(cell), self.square(cell) == Square::Start) {
                counts[v as usize] += 1;
            }
        }
        counts
    }

    /// The operations usable on the square at `index`.
    #[inline]
    fn ops_at(&self, index: usize) -> u8 {
        match self.squares[index] {
            code @ 4..=7 => (1 << (code - 4)) & self.ops,
            _ => self.ops,
        }
    }

    #[inline]
    fn multiplier_at(&self, index: usize) -> u32 {
        match self.squares[index] {
            2 => 2,
            3 => 3,
            _ => 1,
        }
    }

    /// The value masks of the equations of the four directions at an (empty) cell index.
    #[inline]
    fn masks_at(&self, index: usize, ops: u8) -> [u128; 4] {
        let mut masks = [0u128; 4];
        for (k, &d) in DIRS.iter().enumerate() {
            let a = self.cells[index.wrapping_add_signed(d)];
            if a != EMPTY {
                let b = self.cells[index.wrapping_add_signed(2 * d)];
                if b != EMPTY {
                    masks[k] = equation_mask(a, b, ops);
                }
            }
        }
        masks
    }

    /// Is the placement valid, and how many points does it score? Points are the token's value
    /// times the number of directions in which it completes an equation (a pair fitting two
    /// operations counts once) times the square's multiplier; on a restriction square only
    /// equations of that square's operation count.
    pub fn score(&self, cell: Cell, token: u8) -> Result<u32, PlacementError> {
        if !self.contains(cell) {
            return Err(PlacementError::OffBoard(cell));
        }
        let index = cell.index();
        if self.cells[index] != EMPTY {
            return Err(PlacementError::Occupied(cell));
        }
        let b = 1u128 << token.min(127);
        let masks = self.masks_at(index, self.ops_at(index));
        let n = masks.iter().filter(|&&m| m & b != 0).count() as u32;
        if n > 0 {
            return Ok(token as u32 * n * self.multiplier_at(index));
        }
        if let Square::Restriction(op) = self.square(cell) {
            if self.masks_at(index, self.ops).iter().any(|&m| m & b != 0) {
                return Err(PlacementError::Restriction { cell, op, token });
            }
        }
        let ops =
            if self.ops == ALL_OPS { "the sum, difference, product or quotient" } else { "the sum or difference" };
        Err(PlacementError::NoEquation { cell, token, ops })
    }

    /// Appends every valid placement of the distinct values in `rack_mask` (bit per value) to
    /// `out`, with points. This is the fast generator: one pass over the cells with value masks.
    pub fn placements_into(&self, rack_mask: u128, out: &mut Vec<Placement>) {
        let n = self.size as usize;
        for r in 0..n {
            let row_start = (r + PAD) * W + PAD;
            for index in row_start..row_start + n {
                if self.cells[index] != EMPTY {
                    continue;
                }
                let masks = self.masks_at(index, self.ops_at(index));
                let mut hits = (masks[0] | masks[1] | masks[2] | masks[3]) & rack_mask;
                if hits == 0 {
                    continue;
                }
                let mult = self.multiplier_at(index);
                let cell = Cell::from_index(index);
                while hits != 0 {
                    let v = hits.trailing_zeros();
                    hits &= hits - 1;
                    let b = 1u128 << v;
                    let dirs = masks.iter().filter(|&&m| m & b != 0).count() as u32;
                    out.push(Placement { cell, token: v as u8, points: v * dirs * mult });
                }
            }
        }
    }

    /// Every valid placement of a rack's tokens (one per distinct value and cell).
    ///
    /// ```
    /// use tabletop::games::mathable::{Board, Preset, Settings, Tokens};
    /// let board = Board::new(&Settings::preset(Preset::Classic));
    /// let rack = Tokens::from_slice(&[5, 6]).unwrap();
    /// // The start tiles form the lines (1,2), (3,4), (1,3) and (2,4): 6 = 2+4 fits above H7
    /// // and below H8; 5 fits nowhere.
    /// let cells: Vec<String> = board.placements(&rack).iter().map(|p| format!("{}={}", p.cell, p.token)).collect();
    /// assert_eq!(cells, ["H6=6", "H9=6"]);
    /// ```
    pub fn placements(&self, rack: &Tokens) -> Vec<Placement> {
        let mut out = Vec::new();
        self.placements_into(rack.mask(), &mut out);
        out
    }

    /// Does any valid placement exist for a rack?
    pub fn can_place(&self, rack: &Tokens) -> bool {
        self.can_place_mask(rack.mask())
    }

    pub(crate) fn can_place_mask(&self, rack_mask: u128) -> bool {
        let n = self.size as usize;
        for r in 0..n {
            let row_start = (r + PAD) * W + PAD;
            for index in row_start..row_start + n {
                if self.cells[index] == EMPTY {
                    let m = self.masks_at(index, self.ops_at(index));
                    if (m[0] | m[1] | m[2] | m[3]) & rack_mask != 0 {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Places a token without any check.
    pub(crate) fn put(&mut self, cell: Cell, token: u8) {
        self.cells[cell.index()] = token;
    }

    pub(crate) fn raw(&self) -> &[u8; CELLS] {
        &self.cells
    }
}

impl fmt::Display for Board {
    /// The board as a text grid: column letters on top, row numbers on the left, tokens as
    /// numbers and empty special squares as `3x`, `2x`, `+`, `-`, `x`, `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "   ")?;
        for c in 0..self.size {
            write!(f, "{:>4}", (b'A' + c) as char)?;
        }
        writeln!(f)?;
        for r in 0..self.size {
            write!(f, "{:>3}", r + 1)?;
            for c in 0..self.size {
                let cell = Cell::new(r, c);
                match self.get(cell) {
                    Some(v) => write!(f, "{v:>4}")?,
                    None => write!(f, "{:>4}", self.square(cell).mark().unwrap_or("."))?,
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
