//! Games played on a rectangular grid of cells, whatever the game: a [`Grid`] says how many
//! columns and rows there are and whose piece is on each cell, and this module gives it the rest
//! that every such game writes the same way:
//!
//! - cell names ([`cell_name`], [`parse_cell`]): a column letter from `a` and a row number from
//!   1 at the bottom (`b2`), the move notation of placement games;
//! - the position notation ([`notation`], [`parse_notation`]): the rows from the top separated
//!   by `/`, each cell `.` or a seat's piece letter, a space and the side to move (`x.o/.x./... o`);
//! - the board JSON of the page's generic grid module ([`board_json`]) and the terminal's board
//!   ([`render`]).
//!
//! Cells are numbered row by row from the bottom row: cell `row * cols + col`.
//!
//! ```
//! use tabletop::grid::{cell_name, parse_cell};
//! assert_eq!(cell_name(3, 4), "b2");
//! assert_eq!(parse_cell(" B2 ", 3, 3), Ok(4));
//! assert!(parse_cell("d1", 3, 3).is_err());
//! ```

use serde_json::{json, Value};

use crate::game::{Game, Outcome, Seat};
use crate::record::Record;

/// A game whose board is a grid of cells, each empty or holding one seat's piece.
pub trait Grid: Game {
    /// Each seat's piece as one lowercase letter (`"x"`, `"o"`), in seat order.
    const PIECES: &'static [&'static str];
    /// The number of columns and rows.
    fn dimensions(&self) -> (usize, usize);
    /// The seat whose piece is on `cell` (`row * cols + col`, row 0 at the bottom), if any.
    fn piece(&self, cell: usize) -> Option<Seat>;
    /// The cells of a winning line (highlighted), none by default.
    fn line(&self) -> Vec<usize> {
        Vec::new()
    }
    /// The cells a move played (highlighted as the last move): by default the cell its
    /// notation names, as in placement games.
    fn move_cells(&self, mv: Self::Move) -> Vec<usize> {
        let (cols, rows) = self.dimensions();
        parse_cell(&mv.to_string(), cols, rows).ok().into_iter().collect()
    }
    /// The variant in words for the terminal's title (`3 x 3`).
    fn describe(&self) -> String {
        let (cols, rows) = self.dimensions();
        format!("{cols} x {rows}")
    }
}

/// Why a cell, a move, a position or a board of a grid game was refused: one error for the
/// games on a grid to share.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GridError {
    /// Not a column letter and a row number.
    #[error("{0:?} is not a cell: type a column letter and a row number, e.g. b2")]
    Syntax(String),
    /// Outside the board.
    #[error("{name} is off the {cols} x {rows} board")]
    OffBoard {
        /// The name read.
        name: String,
        /// Columns.
        cols: usize,
        /// Rows.
        rows: usize,
    },
    /// The cell holds a piece.
    #[error("{0} is taken")]
    Occupied(String),
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// Not rows, a space and the side to move.
    #[error("a position is the rows from the top separated by '/', each cell '.' or a piece ({0}), a space and the side to move")]
    Notation(String),
    /// The rows do not make the board.
    #[error("the position has {rows} rows of lengths {lengths}; this board is {cols} x {expected}")]
    Shape {
        /// Rows given.
        rows: usize,
        /// Their lengths, comma-separated.
        lengths: String,
        /// Columns of the board.
        cols: usize,
        /// Rows of the board.
        expected: usize,
    },
    /// A cell is neither `.` nor a piece.
    #[error("{0:?} is not a cell: use . or a piece letter")]
    Cell(char),
    /// The position cannot come from play (counts, lines).
    #[error("impossible position: {0}")]
    Impossible(&'static str),
    /// The board's size or rules are out of range.
    #[error("{0}")]
    Variant(String),
}

/// A move that is a cell, with the board's width so that it names itself (`b2`): the move of
/// the placement games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellMove {
    /// The cell, `row * cols + col`, row 0 at the bottom.
    pub cell: u16,
    /// The board's width.
    pub cols: u8,
}

impl std::fmt::Display for CellMove {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&cell_name(self.cols as usize, self.cell as usize))
    }
}

/// The most cells a [`Pieces`] board holds (15 x 15).
pub const MAX_CELLS: usize = 225;

/// The pieces on a board of at most [`MAX_CELLS`] cells, their count and their [`zobrist`]
/// hash, kept as pieces are put: the position storage of placement games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pieces {
    cells: [u8; MAX_CELLS],
    placed: u16,
    hash: u64,
}

impl Default for Pieces {
    fn default() -> Self {
        Pieces { cells: [0; MAX_CELLS], placed: 0, hash: 0 }
    }
}

impl Pieces {
    /// The seat whose piece is on `cell`, if any.
    pub fn get(&self, cell: usize) -> Option<Seat> {
        self.cells.get(cell).filter(|&&c| c != 0).map(|c| Seat(c - 1))
    }

    /// Puts a piece of `seat` on the empty `cell`.
    pub fn put(&mut self, cell: usize, seat: Seat) {
        self.cells[cell] = seat.0 + 1;
        self.hash ^= zobrist(seat, cell);
        self.placed += 1;
    }

    /// How many pieces are on the board, and how many of them are `seat`'s.
    pub fn count(&self, seat: Option<Seat>) -> usize {
        match seat {
            None => self.placed as usize,
            Some(seat) => self.cells.iter().filter(|&&c| c == seat.0 + 1).count(),
        }
    }

    /// The [`zobrist`] hash of the pieces.
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

/// The name of `cell` on a board `cols` wide: `b2`.
pub fn cell_name(cols: usize, cell: usize) -> String {
    format!("{}{}", (b'a' + (cell % cols) as u8) as char, cell / cols + 1)
}

/// Reads a cell name (any case, spaces around) on a `cols x rows` board.
pub fn parse_cell(text: &str, cols: usize, rows: usize) -> Result<usize, GridError> {
    let t = text.trim().to_ascii_lowercase();
    let syntax = || GridError::Syntax(text.trim().chars().take(20).collect());
    let col = t.chars().next().filter(char::is_ascii_lowercase).ok_or_else(syntax)?;
    let digits = &t[1..];
    if digits.is_empty() || digits.len() > 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(syntax());
    }
    let row: usize = digits.parse().map_err(|_| syntax())?;
    let c = (col as u8 - b'a') as usize;
    if row == 0 || row > rows || c >= cols {
        return Err(GridError::OffBoard { name: t, cols, rows });
    }
    Ok((row - 1) * cols + c)
}

/// The position notation of a grid: the rows from the top, `/` between them, then a space and
/// the piece of `to_move`.
pub fn notation<G: Grid>(position: &G, to_move: Seat) -> String {
    let (cols, rows) = position.dimensions();
    let text: Vec<String> = (0..rows)
        .rev()
        .map(|r| (0..cols).map(|c| position.piece(r * cols + c).map_or(".", |s| G::PIECES[s.index()])).collect())
        .collect();
    format!("{} {}", text.join("/"), G::PIECES[to_move.index()])
}

/// Reads [`notation`] on a `cols x rows` board with the piece letters `letters`: the pieces and the side to
/// move. The game checks what its rules add (counts, lines).
pub fn parse_notation(text: &str, cols: usize, rows: usize, letters: &[&str]) -> Result<(Pieces, Seat), GridError> {
    let syntax = || GridError::Notation(letters.join(", "));
    let seat_of = |t: &str| letters.iter().position(|p| p.eq_ignore_ascii_case(t)).map(|i| Seat(i as u8));
    let (board, side) = text.trim().rsplit_once(' ').ok_or_else(syntax)?;
    let to_move = seat_of(side.trim()).ok_or_else(syntax)?;
    let lines: Vec<&str> = board.trim().split('/').collect();
    if lines.len() != rows || lines.iter().any(|l| l.chars().count() != cols) {
        let lengths: Vec<String> = lines.iter().take(20).map(|l| l.chars().count().to_string()).collect();
        return Err(GridError::Shape { rows: lines.len(), lengths: lengths.join(", "), cols, expected: rows });
    }
    if cols * rows > MAX_CELLS {
        return Err(GridError::Variant(format!("a board has at most {MAX_CELLS} cells")));
    }
    let mut pieces = Pieces::default();
    for (i, line) in lines.iter().enumerate() {
        for (c, ch) in line.chars().enumerate().filter(|&(_, ch)| ch != '.') {
            pieces.put((rows - 1 - i) * cols + c, seat_of(&ch.to_string()).ok_or(GridError::Cell(ch))?);
        }
    }
    Ok((pieces, to_move))
}

/// The board as the page's generic grid module draws it:
/// `{"rows", "cols", "cells", "seats", "names", "col_labels", "row_labels", "last", "line"}`,
/// the cells and names row by row from the top row, `""` for an empty cell; `names` the move
/// a click on each cell plays, `seats` each seat's piece text, `last` the cells of the last
/// move and `line` those of a winning line.
///
/// ```
/// use serde_json::json;
/// use tabletop::games::mnk::{Mnk, MnkVariant};
/// use tabletop::{grid::board_json, Game, Record};
/// let mut record = Record::new(Mnk::start(&MnkVariant::default()));
/// for mv in ["a1", "a2", "b2", "b1", "c3"] {
///     record.play(record.current().parse_move(mv).unwrap()).unwrap();
/// }
/// let board = board_json(&record);
/// assert_eq!(board["cells"], json!(["", "", "x", "o", "x", "", "x", "o", ""]));
/// assert_eq!((&board["rows"], &board["cols"], &board["seats"]), (&json!(3), &json!(3), &json!(["x", "o"])));
/// assert_eq!(board["names"], json!(["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]));
/// assert_eq!((&board["col_labels"], &board["row_labels"]), (&json!(["a", "b", "c"]), &json!(["3", "2", "1"])));
/// assert_eq!((&board["last"], &board["line"]), (&json!(["c3"]), &json!(["a1", "b2", "c3"])));
/// ```
pub fn board_json<G: Grid>(record: &Record<G>) -> Value {
    let position = record.current();
    let (cols, rows) = position.dimensions();
    let top_first: Vec<usize> = (0..rows).rev().flat_map(|r| r * cols..(r + 1) * cols).collect();
    let names = |cells: Vec<usize>| cells.into_iter().map(|c| cell_name(cols, c)).collect::<Vec<_>>();
    let last = match (record.positions().iter().rev().nth(1), record.moves().last()) {
        (Some(before), Some(&mv)) => before.move_cells(mv),
        _ => Vec::new(),
    };
    json!({
        "rows": rows,
        "cols": cols,
        "cells": top_first.iter().map(|&c| position.piece(c).map_or("", |s| G::PIECES[s.index()])).collect::<Vec<_>>(),
        "seats": G::PIECES,
        "names": names(top_first.clone()),
        "col_labels": (0..cols).map(|c| ((b'a' + c as u8) as char).to_string()).collect::<Vec<_>>(),
        "row_labels": (0..rows).rev().map(|r| (r + 1).to_string()).collect::<Vec<_>>(),
        "last": names(last),
        "line": names(position.line()),
    })
}

/// The board as text for the terminal: column letters, row numbers, the pieces, the last move in
/// brackets and a winning line in capitals; `paint` colours a seat's piece text.
pub fn render<G: Grid>(record: &Record<G>, paint: impl Fn(Seat, &str) -> String) -> String {
    let position = record.current();
    let (cols, rows) = position.dimensions();
    let (line, last) = (position.line(), board_json(record)["last"].clone());
    let letters: String = (0..cols).map(|c| format!(" {} ", (b'a' + c as u8) as char)).collect();
    let mut out = format!("    {letters}\n");
    for r in (0..rows).rev() {
        out.push_str(&format!("{:>3} ", r + 1));
        for cell in r * cols..(r + 1) * cols {
            out.push_str(&match position.piece(cell) {
                None => " . ".to_string(),
                Some(seat) => {
                    let piece = G::PIECES[seat.index()];
                    let piece = if line.contains(&cell) { piece.to_ascii_uppercase() } else { piece.to_string() };
                    let lastly = last.as_array().is_some_and(|l| l.iter().any(|n| *n == cell_name(cols, cell)));
                    paint(seat, &if lastly { format!("[{piece}]") } else { format!(" {piece} ") })
                }
            });
        }
        out.push_str(&format!(" {}\n", r + 1));
    }
    out.push_str(&format!("    {letters}\n"));
    out
}

/// The four line directions as (column, row) steps: across, up and the two diagonals.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The cell `steps` steps from `cell` along `(dc, dr)` on a `cols x rows` board, if on it.
pub fn step((cols, rows): (usize, usize), cell: usize, (dc, dr): (i32, i32), steps: i32) -> Option<usize> {
    let (c, r) = ((cell % cols) as i32 + dc * steps, (cell / cols) as i32 + dr * steps);
    (c >= 0 && r >= 0 && (c as usize) < cols && (r as usize) < rows).then(|| r as usize * cols + c as usize)
}

/// The cells of `seat`'s row of pieces through `cell` along `direction`, counting `cell` as
/// `seat`'s whatever it holds (so a move's row is found before or after playing it).
pub fn run<G: Grid>(position: &G, cell: usize, direction: (i32, i32), seat: Seat) -> Vec<usize> {
    let mut out = vec![cell];
    for sign in [1, -1] {
        let along = |steps: i32| step(position.dimensions(), cell, direction, sign * steps);
        out.extend((1..).map_while(|s| along(s).filter(|&q| position.piece(q) == Some(seat))));
    }
    out
}

/// The cells of `seat`'s pieces in rows of `k` or more (ascending).
pub fn lines<G: Grid>(position: &G, seat: Seat, k: usize) -> Vec<usize> {
    let (cols, rows) = position.dimensions();
    let mut out: Vec<usize> = (0..cols * rows)
        .filter(|&q| position.piece(q) == Some(seat))
        .flat_map(|q| DIRECTIONS.map(|d| run(position, q, d, seat)))
        .filter(|row| row.len() >= k)
        .flatten()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Could any seat but `seat` still make a row of `k` (a row of `k` cells holding none of
/// `seat`'s pieces)? The flag rule of k-in-a-row games: a side out of time loses, unless the
/// others could no longer win by any play, when it is a draw (see [`out_of_time_by_lines`]).
pub fn others_can_make_a_row<G: Grid>(position: &G, seat: Seat, k: usize) -> bool {
    let dims = position.dimensions();
    (0..dims.0 * dims.1).flat_map(|q| DIRECTIONS.map(|d| (q, d))).any(|(cell, direction)| {
        step(dims, cell, direction, k as i32 - 1).is_some()
            && (0..k as i32).filter_map(|s| step(dims, cell, direction, s)).all(|q| position.piece(q) != Some(seat))
    })
}

/// [`Game::out_of_time`] for a two-seat game where a row of `k` wins: the other seat wins if
/// it still could make a row, else a draw.
pub fn out_of_time_by_lines<G: Grid>(position: &G, seat: Seat, k: usize) -> Outcome {
    if others_can_make_a_row(position, seat, k) {
        Outcome::Win(seat.opponent())
    } else {
        Outcome::Draw
    }
}

/// The moves the side to move may still make on a board of `empty` free cells shared by two
/// sides ([`Game::expected_moves_left`] of games that fill a board).
pub fn moves_left_on(empty: usize) -> u32 {
    (empty as u32).div_ceil(2).max(1)
}

/// The winner of a position read from its notation in a game where a row of `k` wins and the
/// game ends with it: the seat with such a row, which must have moved last (`to_move` is
/// another); none without one.
pub fn winner_by_lines<G: Grid>(position: &G, k: usize, to_move: Seat) -> Result<Option<Seat>, GridError> {
    let mut winners = (0..G::PIECES.len() as u8).map(Seat).filter(|&seat| !lines(position, seat, k).is_empty());
    match (winners.next(), winners.next()) {
        (Some(_), Some(_)) => Err(GridError::Impossible("two sides have a winning row")),
        (Some(winner), None) if winner == to_move => {
            Err(GridError::Impossible("the side to move already has a winning row"))
        }
        (winner, _) => Ok(winner),
    }
}

/// The value for `me` of a board where rows of `k` win: every row of `k` cells holding one
/// side's pieces only counts `4^pieces` for that side (against it for the others), clamped well
/// inside the decisive range. The evaluation of k-in-a-row games for the generic search.
pub fn line_potential<G: Grid>(position: &G, k: usize, me: Seat) -> i32 {
    let dims = position.dimensions();
    let mut total = 0i64;
    for (cell, direction) in (0..dims.0 * dims.1).flat_map(|q| DIRECTIONS.map(|d| (q, d))) {
        // A straight row is on the board when its last cell is.
        if step(dims, cell, direction, k as i32 - 1).is_none() {
            continue;
        }
        let (mut mine, mut theirs) = (0u32, 0u32);
        for q in (0..k as i32).filter_map(|s| step(dims, cell, direction, s)) {
            match position.piece(q) {
                Some(seat) if seat == me => mine += 1,
                Some(_) => theirs += 1,
                None => {}
            }
        }
        match (mine, theirs) {
            (mine, 0) => total += 4i64.pow(mine.min(20)),
            (0, theirs) => total -= 4i64.pow(theirs.min(20)),
            _ => {}
        }
    }
    total.clamp(-250_000, 250_000) as i32
}

/// The Zobrist key of a piece of `seat` on `cell`: a fixed mix of the two.
pub fn zobrist(seat: Seat, cell: usize) -> u64 {
    let mut x =
        (cell as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (seat.0 as u64 + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x = (x ^ (x >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

/// The [`zobrist`] keys of every piece on the board combined: a grid game's hash recomputed.
pub fn pieces_hash<G: Grid>(position: &G) -> u64 {
    let (cols, rows) = position.dimensions();
    (0..cols * rows).filter_map(|q| position.piece(q).map(|s| zobrist(s, q))).fold(0, |h, z| h ^ z)
}

/// The [environment](crate::environment) encoding of a grid game whose moves are cells: action
/// `cell` plays on that cell (`row * cols + col`, row 0 at the bottom); the observation is three
/// `rows x cols` planes (the player's pieces, the others', the empty cells).
pub struct CellActions;

impl<G: Grid> crate::environment::Encoding<G> for CellActions {
    fn num_actions(start: &G) -> usize {
        start.dimensions().0 * start.dimensions().1
    }

    fn encode(position: &G, mv: G::Move) -> Option<usize> {
        position.move_cells(mv).first().copied()
    }

    fn decode(position: &G, action: usize) -> Option<G::Move> {
        let (cols, rows) = position.dimensions();
        (action < cols * rows).then(|| position.parse_move(&cell_name(cols, action)).ok()).flatten()
    }

    fn observation_shape(start: &G) -> Vec<usize> {
        vec![3, start.dimensions().1, start.dimensions().0]
    }

    fn observe(position: &G, player: usize, out: &mut [f32]) {
        let (cols, rows) = position.dimensions();
        crate::environment::board_planes(out, rows, cols, player, |r, c| position.piece(r * cols + c).map(Seat::index));
    }
}
