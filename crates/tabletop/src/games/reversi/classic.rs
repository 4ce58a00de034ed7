//! The origin document's computer player, kept as a faithful baseline: fixed-depth minimax with
//! alpha-beta pruning and a static evaluation summing fixed square weights.

use super::bitboard::{final_score, flips, moves, Bits};
use super::rules::{Reversi, ReversiMove, Square};
use crate::players::Player;
use crate::record::Record;

/// The document's square weights, row by row from a1.
pub const SQUARE_WEIGHTS: [i32; 64] = [
    120, -20, 20, 5, 5, 20, -20, 120, //
    -20, -40, -5, -5, -5, -5, -40, -20, //
    20, -5, 15, 3, 3, 15, -5, 20, //
    5, -5, 3, 3, 3, 3, -5, 5, //
    5, -5, 3, 3, 3, 3, -5, 5, //
    20, -5, 15, 3, 3, 15, -5, 20, //
    -20, -40, -5, -5, -5, -5, -40, -20, //
    120, -20, 20, 5, 5, 20, -20, 120,
];

/// A finished game is worth this plus the disc difference (beyond any weight sum).
const DECIDED: i32 = 10_000;

/// The document's evaluation: the sum of the square weights over the mover's discs minus the
/// sum over the opponent's.
///
/// ```
/// use tabletop::games::reversi::classic::square_weight_eval;
/// assert_eq!(square_weight_eval(1, 0), 120); // a corner
/// ```
pub fn square_weight_eval(p: u64, o: u64) -> i32 {
    Bits(p).map(|i| SQUARE_WEIGHTS[i]).sum::<i32>() - Bits(o).map(|i| SQUARE_WEIGHTS[i]).sum::<i32>()
}

fn minimax(p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    // A cancelled search (see crate::cancel) unwinds at once; its move is then discarded.
    if depth > 3 && crate::cancel::cancelled() {
        return 0;
    }
    let m = moves(p, o);
    if m == 0 && moves(o, p) == 0 {
        let s = final_score(p, o);
        return s.signum() * DECIDED + s;
    }
    if depth == 0 {
        return square_weight_eval(p, o);
    }
    if m == 0 {
        return -minimax(o, p, depth - 1, -beta, -alpha);
    }
    let mut best = i32::MIN + 1;
    for sq in Bits(m) {
        let f = flips(p, o, sq);
        let v = -minimax(o & !f, p | f | (1 << sq), depth - 1, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// The best move at a fixed depth (the first in a1..h8 order among equals), with its value.
///
/// ```
/// use tabletop::games::reversi::{classic::classic_move, Reversi};
/// let (mv, _) = classic_move(&Reversi::new(), 4);
/// assert!(Reversi::new().legal_placements().iter().any(|s| mv.to_string() == s.to_string()));
/// ```
pub fn classic_move(position: &Reversi, depth: u32) -> (ReversiMove, i32) {
    let (p, o) = position.player_opponent();
    let m = moves(p, o);
    if m == 0 {
        return (ReversiMove::Pass, 0);
    }
    let mut best = (64, i32::MIN);
    let mut alpha = i32::MIN + 1;
    for sq in Bits(m) {
        let f = flips(p, o, sq);
        let v = -minimax(o & !f, p | f | (1 << sq), depth.saturating_sub(1), i32::MIN + 1, -alpha);
        if v > best.1 {
            best = (sq, v);
            alpha = v;
        }
    }
    (Square::from_index(best.0).map(ReversiMove::Place).expect("a square"), best.1)
}

/// The classic player at a fixed depth (the document suggests 6, and 8 to thrash most humans).
#[derive(Clone, Debug)]
pub struct ClassicPlayer {
    /// Search depth in plies.
    pub depth: u32,
}

impl Player<Reversi> for ClassicPlayer {
    fn describe(&self) -> String {
        format!("classic:depth={}", self.depth)
    }

    fn choose_move(&mut self, record: &Record<Reversi>) -> ReversiMove {
        classic_move(record.current(), self.depth).0
    }
}
