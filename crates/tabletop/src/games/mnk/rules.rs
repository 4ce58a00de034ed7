//! The m,n,k-game's rules: on a board of m columns and n rows, x then o put a piece on an empty
//! cell; the first to get k in a row (across, up or diagonally) wins, a full board without one is
//! a draw. Tic-tac-toe is the 3,3,3-game. Moves and positions use the [grid](crate::grid)
//! notation: cells `b2`, positions `x.o/.x./... o`.

use std::fmt;

use crate::game::{Game, Outcome, Seat, Status, TwoPlayer};
use crate::grid::{cell_name, notation, parse_cell, parse_notation, CellError, Grid, NotationError};

/// The longest side of the board.
pub const MAX_SIDE: usize = 15;
const CELLS: usize = MAX_SIDE * MAX_SIDE;
/// The four line directions as (column, row) steps.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The board (m columns, n rows) and the line length k, validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MnkVariant {
    m: u8,
    n: u8,
    k: u8,
}

impl MnkVariant {
    /// m columns, n rows, k in a row: each side 1 to 15, k 1 to the longer side.
    ///
    /// ```
    /// use tabletop::games::mnk::MnkVariant;
    /// assert_eq!(MnkVariant::new(3, 3, 3).unwrap(), MnkVariant::default());
    /// assert!(MnkVariant::new(3, 3, 4).is_err() && MnkVariant::new(16, 3, 3).is_err());
    /// ```
    pub fn new(m: usize, n: usize, k: usize) -> Result<Self, MnkError> {
        let side = 1..=MAX_SIDE;
        if side.contains(&m) && side.contains(&n) && (1..=m.max(n)).contains(&k) {
            Ok(MnkVariant { m: m as u8, n: n as u8, k: k as u8 })
        } else {
            Err(MnkError::Variant(m, n, k))
        }
    }
}

impl Default for MnkVariant {
    /// Tic-tac-toe.
    fn default() -> Self {
        MnkVariant { m: 3, n: 3, k: 3 }
    }
}

/// Why a board, a move or a position was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MnkError {
    /// m, n or k out of range.
    #[error("m and n are 1 to {MAX_SIDE} and k is 1 to the longer side, not m={0}, n={1}, k={2}")]
    Variant(usize, usize, usize),
    /// Not a cell of the board.
    #[error(transparent)]
    Cell(#[from] CellError),
    /// The cell holds a piece.
    #[error("{0} is taken")]
    Occupied(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Not a position's notation.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// The counts or lines cannot come from play.
    #[error("impossible position: {0}")]
    Impossible(&'static str),
}

/// A move: the cell, with the board's width so that it names itself (`b2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MnkMove {
    /// The cell, `row * m + column`, row 0 at the bottom.
    pub cell: u16,
    /// The board's width.
    pub cols: u8,
}

impl fmt::Display for MnkMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cell_name(self.cols as usize, self.cell as usize))
    }
}

/// A position: each cell's piece (0 empty, else the seat plus 1), the winner, the hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mnk {
    variant: MnkVariant,
    cells: [u8; CELLS],
    placed: u16,
    winner: Option<Seat>,
    hash: u64,
}

/// The Zobrist key of a piece of `seat` on `cell`: a fixed mix of the two.
fn zobrist(seat: Seat, cell: usize) -> u64 {
    let mut x = (cell as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (seat.0 as u64 + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x = (x ^ (x >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

impl Mnk {
    /// The line length that wins.
    pub fn k(&self) -> usize {
        self.variant.k as usize
    }

    /// The cell `steps` steps from `cell` along `(dc, dr)`, if on the board.
    fn step(&self, cell: usize, (dc, dr): (i32, i32), steps: i32) -> Option<usize> {
        let (m, n) = (self.variant.m as i32, self.variant.n as i32);
        let (c, r) = ((cell as i32 % m) + dc * steps, (cell as i32 / m) + dr * steps);
        (c >= 0 && c < m && r >= 0 && r < n).then_some((r * m + c) as usize)
    }

    /// The cells of `seat`'s run through `cell` along `direction` (`cell` counted as `seat`'s).
    fn run(&self, cell: usize, direction: (i32, i32), seat: Seat) -> Vec<usize> {
        let mut out = vec![cell];
        for sign in [1, -1] {
            let mut steps = sign;
            while let Some(next) = self.step(cell, direction, steps).filter(|&q| self.cells[q] == seat.0 + 1) {
                out.push(next);
                steps += sign;
            }
        }
        out
    }

    /// The pieces of `seat` in rows of k or more.
    fn lines_of(&self, seat: Seat) -> Vec<usize> {
        let mut out: Vec<usize> = (0..self.cells())
            .filter(|&q| self.cells[q] == seat.0 + 1)
            .flat_map(|q| DIRECTIONS.map(|d| self.run(q, d, seat)))
            .filter(|run| run.len() >= self.k())
            .flatten()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn cells(&self) -> usize {
        self.variant.m as usize * self.variant.n as usize
    }

    fn put(&mut self, cell: usize, seat: Seat) {
        self.cells[cell] = seat.0 + 1;
        self.hash ^= zobrist(seat, cell);
        self.placed += 1;
    }
}

impl Game for Mnk {
    type Move = MnkMove;
    type Variant = MnkVariant;
    type MoveError = MnkError;
    type PositionError = MnkError;
    const NAME: &'static str = "mnk";

    fn start(variant: &MnkVariant) -> Self {
        Mnk { variant: *variant, cells: [0; CELLS], placed: 0, winner: None, hash: 0 }
    }

    fn variant(&self) -> MnkVariant {
        self.variant
    }

    fn num_seats(&self) -> usize {
        2
    }

    fn status(&self) -> Status {
        match self.winner {
            Some(seat) => Status::Over(Outcome::Win(seat)),
            None if self.placed as usize == self.cells() => Status::Over(Outcome::Draw),
            None => Status::ToMove(Seat((self.placed % 2) as u8)),
        }
    }

    fn legal_moves(&self, moves: &mut Vec<MnkMove>) {
        moves.clear();
        if self.status().to_move().is_some() {
            let cols = self.variant.m;
            moves.extend((0..self.cells()).filter(|&q| self.cells[q] == 0).map(|q| MnkMove { cell: q as u16, cols }));
        }
    }

    fn play_unchecked(&mut self, mv: MnkMove) {
        let (cell, seat) = (mv.cell as usize, Seat((self.placed % 2) as u8));
        self.put(cell, seat);
        if DIRECTIONS.iter().any(|&d| self.run(cell, d, seat).len() >= self.k()) {
            self.winner = Some(seat);
        }
    }

    fn illegal_reason(&self, mv: MnkMove) -> Option<MnkError> {
        if mv.cols != self.variant.m || mv.cell as usize >= self.cells() {
            let (name, cols, rows) = (mv.to_string(), self.variant.m as usize, self.variant.n as usize);
            return Some(CellError::OffBoard { name, cols, rows }.into());
        }
        if self.status().to_move().is_none() {
            return Some(MnkError::GameOver);
        }
        (self.cells[mv.cell as usize] != 0).then(|| MnkError::Occupied(mv.to_string()))
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn recompute_hash(&self) -> u64 {
        (0..self.cells()).filter_map(|q| self.piece(q).map(|s| zobrist(s, q))).fold(0, |h, z| h ^ z)
    }

    fn parse_move(&self, text: &str) -> Result<MnkMove, MnkError> {
        let cell = parse_cell(text, self.variant.m as usize, self.variant.n as usize)?;
        Ok(MnkMove { cell: cell as u16, cols: self.variant.m })
    }

    fn notation(&self) -> String {
        notation(self, Seat((self.placed % 2) as u8))
    }

    /// Reads a position, e.g. `xx./oo./... x`.
    ///
    /// ```
    /// use tabletop::games::mnk::{Mnk, MnkVariant};
    /// use tabletop::Game;
    /// let p = Mnk::from_notation(&MnkVariant::default(), "xx./oo./... x").unwrap();
    /// assert_eq!(p.notation(), "xx./oo./... x");
    /// assert!(Mnk::from_notation(&MnkVariant::default(), "xx./oo./... o").is_err());
    /// ```
    fn from_notation(variant: &MnkVariant, text: &str) -> Result<Self, MnkError> {
        let (cells, to_move) = parse_notation(text, variant.m as usize, variant.n as usize, Self::PIECES)?;
        let mut p = Mnk::start(variant);
        for (q, seat) in cells.iter().enumerate() {
            if let Some(seat) = seat {
                p.put(q, *seat);
            }
        }
        let count = |s: u8| cells.iter().filter(|c| c.is_some_and(|c| c.0 == s)).count();
        if count(0) != count(1) + to_move.index() || to_move.index() != (p.placed % 2) as usize {
            return Err(MnkError::Impossible("the counts of x and o do not fit the side to move"));
        }
        let (x, o) = (!p.lines_of(Seat(0)).is_empty(), !p.lines_of(Seat(1)).is_empty());
        p.winner = match (x, o) {
            (true, true) => return Err(MnkError::Impossible("both sides have k in a row")),
            (true, false) if to_move == Seat(1) => Some(Seat(0)),
            (false, true) if to_move == Seat(0) => Some(Seat(1)),
            (false, false) => None,
            _ => return Err(MnkError::Impossible("the side to move already has k in a row")),
        };
        Ok(p)
    }

    fn end_reason(&self) -> Option<String> {
        match self.status() {
            Status::Over(Outcome::Win(_)) => Some(format!("{} in a row", self.k())),
            Status::Over(_) => Some("the board is full".to_string()),
            Status::ToMove(_) => None,
        }
    }
}

impl TwoPlayer for Mnk {
    fn last_mover(&self) -> Seat {
        Seat(((self.placed + 1) % 2) as u8)
    }
}

impl Grid for Mnk {
    const PIECES: &'static [&'static str] = &["x", "o"];

    fn dimensions(&self) -> (usize, usize) {
        (self.variant.m as usize, self.variant.n as usize)
    }

    fn piece(&self, cell: usize) -> Option<Seat> {
        self.cells.get(cell).filter(|&&c| c != 0).map(|c| Seat(c - 1))
    }

    fn line(&self) -> Vec<usize> {
        self.winner.map(|w| self.lines_of(w)).unwrap_or_default()
    }

    fn describe(&self) -> String {
        format!("{} x {}, {} in a row", self.variant.m, self.variant.n, self.k())
    }
}

impl crate::searched::Searched for Mnk {
    /// Every window of k cells holding one side's pieces only counts 4^pieces for that side.
    fn evaluate(&self) -> i32 {
        let me = self.placed % 2;
        let mut total = 0i64;
        for q in 0..self.cells() {
            for d in DIRECTIONS {
                let Some(window) = (0..self.k() as i32).map(|s| self.step(q, d, s)).collect::<Option<Vec<_>>>() else {
                    continue;
                };
                let count = |s: u16| window.iter().filter(|&&c| self.cells[c] as u16 == s + 1).count() as u32;
                match (count(me), count(1 - me)) {
                    (mine, 0) => total += 4i64.pow(mine),
                    (0, theirs) => total -= 4i64.pow(theirs),
                    _ => {}
                }
            }
        }
        total.clamp(-250_000, 250_000) as i32
    }
}
