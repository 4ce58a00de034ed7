//! Gomoku's rules (free-style): two players place stones on the intersections of an n x n board
//! (7 to 19, 15 by default), black first; five or more in a row, horizontally, vertically or
//! diagonally, wins; a full board without one is a draw.
//!
//! Moves are written `h8`: a column letter from `a` (no letter skipped) and a row number from 1
//! at the bottom. A position is written row by row from the top, `/` between rows, `x` black,
//! `o` white and `.` empty, then a space and the side to move.

use std::fmt;
use std::str::FromStr;

use crate::game::{Game, Outcome, Seat, Status, TwoPlayer};

/// The largest board side.
pub const MAX_SIZE: usize = 19;
/// The smallest board side.
pub const MIN_SIZE: usize = 7;
/// How many in a row win (or more: free-style).
pub const FIVE: usize = 5;
const WORDS: usize = (MAX_SIZE * MAX_SIZE).div_ceil(64);

/// A board size, validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GomokuVariant {
    size: u8,
}

/// Why a board size was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GomokuVariantError {
    /// Outside 7..=19.
    #[error("a Gomoku board is {MIN_SIZE} to {MAX_SIZE} squares wide, not {0}")]
    Size(usize),
}

impl GomokuVariant {
    /// A board of `size` x `size`.
    ///
    /// ```
    /// use tabletop::games::gomoku::GomokuVariant;
    /// assert_eq!(GomokuVariant::new(15).unwrap().size(), 15);
    /// assert!(GomokuVariant::new(20).is_err());
    /// ```
    pub fn new(size: usize) -> Result<GomokuVariant, GomokuVariantError> {
        if (MIN_SIZE..=MAX_SIZE).contains(&size) {
            Ok(GomokuVariant { size: size as u8 })
        } else {
            Err(GomokuVariantError::Size(size))
        }
    }

    /// The side of the board.
    pub fn size(self) -> usize {
        self.size as usize
    }

    /// The number of intersections.
    pub fn cells(self) -> usize {
        self.size() * self.size()
    }
}

impl Default for GomokuVariant {
    fn default() -> Self {
        GomokuVariant { size: 15 }
    }
}

/// A stone's colour: black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stone {
    /// `x`, seat 0.
    Black,
    /// `o`, seat 1.
    White,
}

impl Stone {
    /// The letter in positions: `x` or `o`.
    pub fn letter(self) -> char {
        match self {
            Stone::Black => 'x',
            Stone::White => 'o',
        }
    }

    /// The other colour.
    pub fn other(self) -> Stone {
        match self {
            Stone::Black => Stone::White,
            Stone::White => Stone::Black,
        }
    }

    /// The colour of a seat.
    pub fn from_seat(seat: Seat) -> Stone {
        if seat.0 == 0 { Stone::Black } else { Stone::White }
    }

    /// The seat of the colour.
    pub fn seat(self) -> Seat {
        Seat(self as u8)
    }
}

/// A move: the intersection's index, `row * size + column`, row 0 at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub u16);

/// A move that could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GomokuMoveError {
    /// Not a column letter and a row number.
    #[error("{0:?} is not a move: type a column letter and a row number, e.g. h8")]
    Syntax(String),
    /// Off the board.
    #[error("{0} is off the {1} x {1} board")]
    OffBoard(String, usize),
    /// The intersection holds a stone.
    #[error("{0} is taken")]
    Occupied(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
}

/// A position that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GomokuPositionError {
    /// Not rows, a space and the side to move.
    #[error("a Gomoku position is the rows from the top separated by '/', each cell x, o or '.', a space and the side to move (x or o)")]
    Syntax,
    /// The rows do not make the variant's board.
    #[error("the position has {rows} rows of lengths {lengths}; this board is {size} x {size}")]
    Shape {
        /// Rows given.
        rows: usize,
        /// Their lengths, comma-separated.
        lengths: String,
        /// The variant's side.
        size: usize,
    },
    /// A cell is not `x`, `o` or `.`.
    #[error("{0:?} is not a cell: use x, o or .")]
    Cell(char),
    /// The stone counts do not fit the side to move.
    #[error("{black} black and {white} white stones cannot have {to_move} to move")]
    Counts {
        /// Black stones.
        black: usize,
        /// White stones.
        white: usize,
        /// The side named to move.
        to_move: char,
    },
    /// Both sides have five in a row, or the side to move has one (the game would have ended).
    #[error("impossible position: {0}")]
    Impossible(&'static str),
}

/// A Gomoku position: the stones of both sides as bitsets, the side to move, the last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gomoku {
    variant: GomokuVariant,
    stones: [[u64; WORDS]; 2],
    to_move: Stone,
    placed: u16,
    last: Option<Point>,
    winner: Option<Stone>,
    hash: u64,
}

/// The Zobrist key of a stone: a fixed mix of its colour and intersection.
fn zobrist(stone: Stone, point: usize) -> u64 {
    let mut x = (point as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (stone as u64 + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    x
}

/// The key of "white to move".
const WHITE_TO_MOVE: u64 = 0x5851_F42D_4C95_7F2D;

/// The four line directions as (row, column) steps.
pub const DIRECTIONS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

impl Gomoku {
    /// The empty board of a variant, black to move.
    pub fn new(variant: GomokuVariant) -> Gomoku {
        Gomoku { variant, stones: [[0; WORDS]; 2], to_move: Stone::Black, placed: 0, last: None, winner: None, hash: 0 }
    }

    /// The board size.
    pub fn gomoku_variant(&self) -> GomokuVariant {
        self.variant
    }

    /// The side of the board.
    pub fn size(&self) -> usize {
        self.variant.size()
    }

    /// The side to move (in a finished game, the side that would move next).
    pub fn side_to_move(&self) -> Stone {
        self.to_move
    }

    /// The last move played, if any.
    pub fn last_move(&self) -> Option<Point> {
        self.last
    }

    /// The side with five or more in a row, if any.
    pub fn winner(&self) -> Option<Stone> {
        self.winner
    }

    /// How many stones are on the board.
    pub fn stones_placed(&self) -> usize {
        self.placed as usize
    }

    /// The stone at (`row` from the bottom, `col`), or `None` on an empty or outside intersection.
    pub fn stone(&self, row: usize, col: usize) -> Option<Stone> {
        let n = self.size();
        if row >= n || col >= n {
            return None;
        }
        self.stone_at(row * n + col)
    }

    /// The stone at an intersection index.
    pub fn stone_at(&self, point: usize) -> Option<Stone> {
        let (w, b) = (point / 64, 1u64 << (point % 64));
        if self.stones[0][w] & b != 0 {
            Some(Stone::Black)
        } else if self.stones[1][w] & b != 0 {
            Some(Stone::White)
        } else {
            None
        }
    }

    /// Is the intersection empty (and on the board)?
    pub fn is_empty_at(&self, point: usize) -> bool {
        point < self.variant.cells() && self.stone_at(point).is_none()
    }

    /// The stones of `stone` in a row through `point` along `(dr, dc)`, counting `point` itself
    /// as that colour.
    pub fn run_through(&self, point: usize, (dr, dc): (i32, i32), stone: Stone) -> usize {
        let n = self.size() as i32;
        let (r, c) = ((point / self.size()) as i32, (point % self.size()) as i32);
        let mut count = 1;
        for sign in [1, -1] {
            let (mut rr, mut cc) = (r + sign * dr, c + sign * dc);
            while rr >= 0 && rr < n && cc >= 0 && cc < n && self.stone_at((rr * n + cc) as usize) == Some(stone) {
                count += 1;
                rr += sign * dr;
                cc += sign * dc;
            }
        }
        count
    }

    /// Would `stone` at the empty `point` make five or more in a row?
    pub fn makes_five(&self, point: usize, stone: Stone) -> bool {
        DIRECTIONS.iter().any(|&d| self.run_through(point, d, stone) >= FIVE)
    }

    /// The intersections of the winning line(s) through the last move, when the game was won.
    pub fn winning_line(&self) -> Vec<Point> {
        let (Some(winner), Some(last)) = (self.winner, self.last) else { return Vec::new() };
        let n = self.size() as i32;
        let p = last.0 as usize;
        let (r, c) = ((p / self.size()) as i32, (p % self.size()) as i32);
        let mut out = Vec::new();
        for d in DIRECTIONS {
            if self.run_through(p, d, winner) < FIVE {
                continue;
            }
            for sign in [1, -1] {
                let (mut rr, mut cc) = (r, c);
                while rr >= 0 && rr < n && cc >= 0 && cc < n && self.stone_at((rr * n + cc) as usize) == Some(winner) {
                    out.push(Point((rr * n + cc) as u16));
                    rr += sign * d.0;
                    cc += sign * d.1;
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The name of an intersection: `h8`.
    pub fn point_name(&self, point: Point) -> String {
        let n = self.size();
        let p = point.0 as usize;
        format!("{}{}", (b'a' + (p % n) as u8) as char, p / n + 1)
    }

    fn put(&mut self, point: usize, stone: Stone) {
        self.stones[stone as usize][point / 64] |= 1u64 << (point % 64);
        self.hash ^= zobrist(stone, point);
        self.placed += 1;
    }
}

/// A move in a position's context, displayed in the game's notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GomokuMove {
    /// The intersection.
    pub point: Point,
    /// The board side (so the move can name itself).
    pub size: u8,
}

impl fmt::Display for GomokuMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.size as usize;
        let p = self.point.0 as usize;
        write!(f, "{}{}", (b'a' + (p % n) as u8) as char, p / n + 1)
    }
}

impl Game for Gomoku {
    type Move = GomokuMove;
    type Variant = GomokuVariant;
    type MoveError = GomokuMoveError;
    type PositionError = GomokuPositionError;

    const NAME: &'static str = "gomoku";

    fn start(variant: &GomokuVariant) -> Self {
        Gomoku::new(*variant)
    }

    fn variant(&self) -> GomokuVariant {
        self.variant
    }

    fn num_seats(&self) -> usize {
        2
    }

    fn status(&self) -> Status {
        match self.winner {
            Some(stone) => Status::Over(Outcome::Win(stone.seat())),
            None if self.placed as usize == self.variant.cells() => Status::Over(Outcome::Draw),
            None => Status::ToMove(self.to_move.seat()),
        }
    }

    fn legal_moves(&self, moves: &mut Vec<GomokuMove>) {
        moves.clear();
        if self.status().to_move().is_none() {
            return;
        }
        let size = self.variant.size;
        moves.extend((0..self.variant.cells()).filter(|&p| self.stone_at(p).is_none()).map(|p| GomokuMove { point: Point(p as u16), size }));
    }

    fn play_unchecked(&mut self, mv: GomokuMove) {
        let p = mv.point.0 as usize;
        let stone = self.to_move;
        self.put(p, stone);
        if self.makes_five(p, stone) {
            self.winner = Some(stone);
        }
        self.last = Some(mv.point);
        self.to_move = stone.other();
        self.hash ^= WHITE_TO_MOVE;
    }

    fn illegal_reason(&self, mv: GomokuMove) -> Option<GomokuMoveError> {
        let p = mv.point.0 as usize;
        if mv.size != self.variant.size || p >= self.variant.cells() {
            return Some(GomokuMoveError::OffBoard(mv.to_string(), self.size()));
        }
        if self.status().to_move().is_none() {
            return Some(GomokuMoveError::GameOver);
        }
        if self.stone_at(p).is_some() {
            return Some(GomokuMoveError::Occupied(mv.to_string()));
        }
        None
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn recompute_hash(&self) -> u64 {
        let mut h = if self.to_move == Stone::White { WHITE_TO_MOVE } else { 0 };
        for p in 0..self.variant.cells() {
            if let Some(stone) = self.stone_at(p) {
                h ^= zobrist(stone, p);
            }
        }
        h
    }

    /// Reads `h8` (case-insensitive).
    ///
    /// ```
    /// use tabletop::games::gomoku::{Gomoku, GomokuVariant};
    /// use tabletop::Game;
    /// let p = Gomoku::new(GomokuVariant::default());
    /// assert_eq!(p.parse_move("H8").unwrap().to_string(), "h8");
    /// assert!(p.parse_move("z1").is_err());
    /// assert!(p.parse_move("h").is_err());
    /// ```
    fn parse_move(&self, text: &str) -> Result<GomokuMove, GomokuMoveError> {
        let t = text.trim().to_ascii_lowercase();
        let mut chars = t.chars();
        let syntax = || GomokuMoveError::Syntax(text.trim().chars().take(20).collect());
        let col = chars.next().filter(char::is_ascii_lowercase).ok_or_else(syntax)?;
        let digits: String = chars.collect();
        if digits.is_empty() || digits.len() > 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(syntax());
        }
        let row: usize = digits.parse().map_err(|_| syntax())?;
        let n = self.size();
        let c = (col as u8 - b'a') as usize;
        if row == 0 || row > n || c >= n {
            return Err(GomokuMoveError::OffBoard(t, n));
        }
        Ok(GomokuMove { point: Point(((row - 1) * n + c) as u16), size: self.variant.size })
    }

    fn notation(&self) -> String {
        let n = self.size();
        let rows: Vec<String> = (0..n)
            .rev()
            .map(|r| (0..n).map(|c| self.stone(r, c).map_or('.', Stone::letter)).collect())
            .collect();
        format!("{} {}", rows.join("/"), self.to_move.letter())
    }

    /// Reads a position: the rows from the top, `/` between them, and the side to move.
    ///
    /// ```
    /// use tabletop::games::gomoku::{Gomoku, GomokuVariant};
    /// use tabletop::Game;
    /// let v = GomokuVariant::new(7).unwrap();
    /// let text = "......./......./......./...x.../......./......./....... o";
    /// let p = Gomoku::from_notation(&v, text).unwrap();
    /// assert_eq!(p.notation(), text);
    /// assert!(Gomoku::from_notation(&v, "......./....... x").is_err());
    /// ```
    fn from_notation(variant: &GomokuVariant, text: &str) -> Result<Self, GomokuPositionError> {
        let (board, side) = text.trim().rsplit_once(' ').ok_or(GomokuPositionError::Syntax)?;
        let to_move = match side.trim() {
            "x" | "X" => Stone::Black,
            "o" | "O" => Stone::White,
            _ => return Err(GomokuPositionError::Syntax),
        };
        let rows: Vec<&str> = board.trim().split('/').collect();
        let n = variant.size();
        if rows.len() != n || rows.iter().any(|r| r.chars().count() != n) {
            let lengths: Vec<String> = rows.iter().take(20).map(|r| r.chars().count().to_string()).collect();
            return Err(GomokuPositionError::Shape { rows: rows.len(), lengths: lengths.join(", "), size: n });
        }
        let mut p = Gomoku::new(*variant);
        for (i, row) in rows.iter().enumerate() {
            let r = n - 1 - i;
            for (c, ch) in row.chars().enumerate() {
                match ch {
                    'x' | 'X' => p.put(r * n + c, Stone::Black),
                    'o' | 'O' => p.put(r * n + c, Stone::White),
                    '.' => {}
                    other => return Err(GomokuPositionError::Cell(other)),
                }
            }
        }
        let count = |s: Stone| p.stones[s as usize].iter().map(|w| w.count_ones() as usize).sum::<usize>();
        let (black, white) = (count(Stone::Black), count(Stone::White));
        let fits = match to_move {
            Stone::Black => black == white,
            Stone::White => black == white + 1,
        };
        if !fits {
            return Err(GomokuPositionError::Counts { black, white, to_move: to_move.letter() });
        }
        p.to_move = to_move;
        if to_move == Stone::White {
            p.hash ^= WHITE_TO_MOVE;
        }
        let five = |s: Stone| (0..n * n).any(|q| p.stone_at(q) == Some(s) && p.makes_five(q, s));
        let (bf, wf) = (five(Stone::Black), five(Stone::White));
        if bf && wf {
            return Err(GomokuPositionError::Impossible("both sides have five in a row"));
        }
        // The side that made five moved last, so the other side is to move.
        if (bf && to_move == Stone::Black) || (wf && to_move == Stone::White) {
            return Err(GomokuPositionError::Impossible("the side to move already has five in a row"));
        }
        p.winner = if bf {
            Some(Stone::Black)
        } else if wf {
            Some(Stone::White)
        } else {
            None
        };
        Ok(p)
    }

    fn expected_moves_left(&self) -> u32 {
        // Games end long before the board fills: the moves a side makes in a typical game of
        // 60 stones, at least ten more.
        (30u32.saturating_sub(self.stones_placed() as u32 / 2)).max(10)
    }

    /// The side out of time loses, unless the other could no longer make five in a row on any
    /// line (every line of five holds a stone of the side out of time): a draw.
    fn out_of_time(&self, seat: Seat) -> Outcome {
        let n = self.size();
        let flagger = if seat.index() == 0 { Stone::Black } else { Stone::White };
        let open_five = (0..n * n).any(|q| {
            let (c, r) = ((q % n) as i64, (q / n) as i64);
            [(1i64, 0i64), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
                (0..5).all(|s| {
                    let (cc, rr) = (c + dc * s, r + dr * s);
                    (0..n as i64).contains(&cc)
                        && (0..n as i64).contains(&rr)
                        && self.stone_at(rr as usize * n + cc as usize) != Some(flagger)
                })
            })
        });
        if open_five {
            Outcome::Win(seat.opponent())
        } else {
            Outcome::Draw
        }
    }

    fn end_reason(&self) -> Option<String> {
        match self.status() {
            Status::Over(Outcome::Win(_)) => Some("five in a row".to_string()),
            Status::Over(_) => Some("the board is full".to_string()),
            Status::ToMove(_) => None,
        }
    }
}

impl TwoPlayer for Gomoku {
    fn last_mover(&self) -> Seat {
        self.to_move.other().seat()
    }
}

impl FromStr for GomokuVariant {
    type Err = GomokuVariantError;

    /// `15` or `15x15`.
    fn from_str(text: &str) -> Result<Self, GomokuVariantError> {
        let t = text.trim().to_ascii_lowercase();
        let side = t.split_once('x').map_or(t.as_str(), |(a, _)| a);
        GomokuVariant::new(side.parse().map_err(|_| GomokuVariantError::Size(0))?)
    }
}

/// The board as text for the terminal: column letters, row numbers, `x`/`o`, the last move in
/// brackets and the winning line in capitals; `paint` colours a stone's text.
pub fn render_board(position: &Gomoku, paint: impl Fn(Stone, &str) -> String) -> String {
    let n = position.size();
    let line = position.winning_line();
    let letters: String = (0..n).map(|c| format!(" {} ", (b'a' + c as u8) as char)).collect();
    let mut out = format!("    {letters}\n");
    for r in (0..n).rev() {
        out.push_str(&format!("{:>3} ", r + 1));
        for c in 0..n {
            let p = r * n + c;
            let cell = match position.stone(r, c) {
                None => " . ".to_string(),
                Some(stone) => {
                    let winning = line.contains(&Point(p as u16));
                    let letter = if winning { stone.letter().to_ascii_uppercase() } else { stone.letter() };
                    let text = if position.last_move() == Some(Point(p as u16)) {
                        format!("[{letter}]")
                    } else {
                        format!(" {letter} ")
                    };
                    paint(stone, &text)
                }
            };
            out.push_str(&cell);
        }
        out.push_str(&format!(" {}\n", r + 1));
    }
    out.push_str(&format!("    {letters}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(p: &mut Gomoku, moves: &[&str]) {
        for m in moves {
            let mv = p.parse_move(m).unwrap();
            p.play(mv).unwrap();
        }
    }

    #[test]
    fn five_or_more_in_a_row_wins_and_ends_the_game() {
        let mut p = Gomoku::new(GomokuVariant::default());
        play(&mut p, &["a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2"]);
        assert_eq!(p.status(), Status::ToMove(Seat(0)));
        play(&mut p, &["e1"]);
        assert_eq!(p.status(), Status::Over(Outcome::Win(Seat(0))));
        assert_eq!(p.end_reason().as_deref(), Some("five in a row"));
        assert_eq!(p.winning_line().len(), 5);
        assert!(matches!(p.play(p.parse_move("f1").unwrap()), Err(GomokuMoveError::GameOver)));
        // An overline (six) wins too: free-style.
        let mut q = Gomoku::new(GomokuVariant::default());
        play(&mut q, &["a1", "a9", "b1", "b9", "d1", "d9", "e1", "e9", "f1", "f9"]);
        assert_eq!(q.status(), Status::ToMove(Seat(0)));
        play(&mut q, &["c1"]);
        assert_eq!(q.status(), Status::Over(Outcome::Win(Seat(0))));
        assert_eq!(q.winning_line().len(), 6);
    }

    #[test]
    fn diagonals_win_and_moves_are_checked() {
        let mut p = Gomoku::new(GomokuVariant::new(9).unwrap());
        play(&mut p, &["e5", "a9", "d4", "b9", "c3", "c9", "b2", "d9"]);
        assert!(matches!(p.play(p.parse_move("e5").unwrap()), Err(GomokuMoveError::Occupied(_))));
        assert!(matches!(p.parse_move("j1"), Err(GomokuMoveError::OffBoard(..))));
        assert!(matches!(p.parse_move("a10"), Err(GomokuMoveError::OffBoard(..))));
        play(&mut p, &["a1"]);
        assert_eq!(p.winner(), Some(Stone::Black));
    }

    #[test]
    fn notation_round_trips_and_refuses_impossible_positions() {
        let v = GomokuVariant::new(7).unwrap();
        let mut p = Gomoku::new(v);
        play(&mut p, &["d4", "e5", "c3"]);
        let text = p.notation();
        let back = Gomoku::from_notation(&v, &text).unwrap();
        assert_eq!(back.notation(), text);
        assert_eq!(back.hash(), back.recompute_hash());
        assert_eq!(back.hash(), p.hash());
        assert!(matches!(
            Gomoku::from_notation(&v, "xxxxx../ooooo../......./......./......./......./....... x"),
            Err(GomokuPositionError::Impossible(_))
        ));
        assert!(matches!(
            Gomoku::from_notation(&v, "xx...../......./......./......./......./......./....... x"),
            Err(GomokuPositionError::Counts { .. })
        ));
        let won = Gomoku::from_notation(&v, "xxxxx../oooo.../......./......./......./......./....... o").unwrap();
        assert_eq!(won.winner(), Some(Stone::Black));
    }
}
