//! The m,n,k-game's rules: on a board of m columns and n rows, x then o put a piece on an empty
//! cell; the first to get k in a row (across, up or diagonally) wins, a full board without one is
//! a draw. Tic-tac-toe is the 3,3,3-game. Moves and positions use the [grid](crate::grid)
//! notation: cells `b2`, positions `x.o/.x./... o`.

use crate::game::{Game, Outcome, Seat, Status, TwoPlayer};
use crate::grid::{lines, notation, parse_cell, parse_notation, run, CellMove, Grid, GridError, Pieces, DIRECTIONS};

/// The longest side of the board.
pub const MAX_SIDE: usize = 15;

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
    pub fn new(m: usize, n: usize, k: usize) -> Result<Self, GridError> {
        if (1..=MAX_SIDE).contains(&m) && (1..=MAX_SIDE).contains(&n) && (1..=m.max(n)).contains(&k) {
            Ok(MnkVariant { m: m as u8, n: n as u8, k: k as u8 })
        } else {
            Err(GridError::Variant(format!("m and n are 1 to {MAX_SIDE} and k 1 to the longer side, not {m},{n},{k}")))
        }
    }
}

impl Default for MnkVariant {
    /// Tic-tac-toe.
    fn default() -> Self {
        MnkVariant { m: 3, n: 3, k: 3 }
    }
}

/// A position: the pieces, and the winner once there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mnk {
    variant: MnkVariant,
    pieces: Pieces,
    winner: Option<Seat>,
}

impl Mnk {
    /// The line length that wins.
    pub fn k(&self) -> usize {
        self.variant.k as usize
    }

    /// The seat whose turn it is (x on an even count).
    fn mover(&self) -> Seat {
        Seat((self.pieces.count(None) % 2) as u8)
    }
}

impl Game for Mnk {
    type Move = CellMove;
    type Variant = MnkVariant;
    type MoveError = GridError;
    type PositionError = GridError;
    const NAME: &'static str = "mnk";

    fn start(variant: &MnkVariant) -> Self {
        Mnk { variant: *variant, pieces: Pieces::default(), winner: None }
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
            None if self.pieces.count(None) == self.variant.m as usize * self.variant.n as usize => {
                Status::Over(Outcome::Draw)
            }
            None => Status::ToMove(self.mover()),
        }
    }

    fn legal_moves(&self, moves: &mut Vec<CellMove>) {
        moves.clear();
        if self.status().to_move().is_some() {
            let (cols, cells) = (self.variant.m, self.variant.m as usize * self.variant.n as usize);
            let empty = (0..cells).filter(|&q| self.pieces.get(q).is_none());
            moves.extend(empty.map(|q| CellMove { cell: q as u16, cols }));
        }
    }

    fn play_unchecked(&mut self, mv: CellMove) {
        let (cell, seat) = (mv.cell as usize, self.mover());
        self.pieces.put(cell, seat);
        if DIRECTIONS.iter().any(|&d| run(self, cell, d, seat).len() >= self.k()) {
            self.winner = Some(seat);
        }
    }

    fn illegal_reason(&self, mv: CellMove) -> Option<GridError> {
        let (cols, rows) = self.dimensions();
        if mv.cols as usize != cols || mv.cell as usize >= cols * rows {
            Some(GridError::OffBoard { name: mv.to_string(), cols, rows })
        } else if self.status().to_move().is_none() {
            Some(GridError::GameOver)
        } else {
            self.pieces.get(mv.cell as usize).map(|_| GridError::Occupied(mv.to_string()))
        }
    }

    fn hash(&self) -> u64 {
        self.pieces.hash()
    }

    fn recompute_hash(&self) -> u64 {
        crate::grid::pieces_hash(self)
    }

    fn parse_move(&self, text: &str) -> Result<CellMove, GridError> {
        let cell = parse_cell(text, self.variant.m as usize, self.variant.n as usize)?;
        Ok(CellMove { cell: cell as u16, cols: self.variant.m })
    }

    fn notation(&self) -> String {
        notation(self, self.mover())
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
    fn from_notation(variant: &MnkVariant, text: &str) -> Result<Self, GridError> {
        let (pieces, to_move) = parse_notation(text, variant.m as usize, variant.n as usize, Self::PIECES)?;
        let mut p = Mnk { variant: *variant, pieces, winner: None };
        if pieces.count(Some(Seat(0))) != pieces.count(Some(Seat(1))) + to_move.index() {
            return Err(GridError::Impossible("the counts of x and o do not fit the side to move"));
        }
        p.winner = crate::grid::winner_by_lines(&p, p.k(), to_move)?;
        Ok(p)
    }

    fn expected_moves_left(&self) -> u32 {
        let (cols, rows) = self.dimensions();
        crate::grid::moves_left_on((cols * rows).saturating_sub(self.pieces.count(None)))
    }

    fn out_of_time(&self, seat: Seat) -> Outcome {
        crate::grid::out_of_time_by_lines(self, seat, self.k())
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
        self.mover().opponent()
    }
}

impl Grid for Mnk {
    const PIECES: &'static [&'static str] = &["x", "o"];

    fn dimensions(&self) -> (usize, usize) {
        (self.variant.m as usize, self.variant.n as usize)
    }

    fn piece(&self, cell: usize) -> Option<Seat> {
        self.pieces.get(cell)
    }

    fn line(&self) -> Vec<usize> {
        self.winner.map(|w| lines(self, w, self.k())).unwrap_or_default()
    }

    fn describe(&self) -> String {
        format!("{} x {}, {} in a row", self.variant.m, self.variant.n, self.k())
    }
}

impl crate::searched::Searched for Mnk {
    fn evaluate(&self) -> i32 {
        crate::grid::line_potential(self, self.k(), self.mover())
    }

    fn node_seconds(&self) -> f64 {
        1e-6 + 2e-8 * (self.variant.m as usize * self.variant.n as usize * self.k()) as f64
    }
}

crate::searched::standard_game!(Mnk);
