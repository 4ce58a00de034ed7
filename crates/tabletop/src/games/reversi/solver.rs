//! The exact endgame solver: the final disc difference with perfect play.
//!
//! A specialised negamax alpha-beta (principal-variation search) on raw bitboards:
//! - **fastest-first** ordering: moves that leave the opponent fewest replies first (corners
//!   counted double), the transposition-table move before all;
//! - **parity**: below [`ORDER_MIN`] empties, moves in quadrants with an odd number of empties
//!   first;
//! - a **transposition table** of exact lower/upper bounds keyed by the full position (no false
//!   hits), two entries per bucket, deeper entries kept;
//! - **enhanced transposition cut-off**: before searching, children already in the table may
//!   refute the node at once;
//! - **stability cut-off**: the opponent's stable discs bound the best reachable score;
//! - **special-cased last empties**: the last 4 empties are searched without table or sorting,
//!   and the very last empty counts flips directly.

use std::time::Instant;

use super::bitboard::{final_score, flips, moves, stable, Bits, CORNERS};
use super::rules::{Reversi, ReversiMove, Square};

/// Below this many empties, moves are ordered by parity only (no mobility sort, no table).
pub const ORDER_MIN: u32 = 7;
/// Up to this many empties, the dedicated small-endgame search runs.
const SMALL_MAX: u32 = 4;
/// From this many empties, moves are ordered by a shallow search.
const SHALLOW_MIN: u32 = 11;
/// From this many empties, enhanced transposition cut-offs are tried.
const ETC_MIN: u32 = 12;

#[derive(Clone, Copy, Default)]
struct Entry {
    p: u64,
    o: u64,
    lower: i8,
    upper: i8,
    best: u8,
    empties: u8,
}

/// What the solver found for a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The exact final disc difference for the side to move (empties to the winner).
    pub score: i32,
    /// A best move (`None` when the game is over).
    pub best: Option<ReversiMove>,
    /// Nodes visited.
    pub nodes: u64,
}

/// An exact endgame solver with its transposition table; reuse it across positions.
///
/// ```
/// use tabletop::games::reversi::{solver::Solver, Reversi};
/// // 8 empties: solved in an instant.
/// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
/// let solution = Solver::new(16).solve(&pos);
/// assert!(solution.best.is_some() && solution.score.abs() <= 64);
/// ```
pub struct Solver {
    table: Vec<Entry>,
    mask: usize,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
}

/// Quadrant masks, for parity.
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0F0F_0F0F, 0x0000_0000_F0F0_F0F0, 0x0F0F_0F0F_0000_0000, 0xF0F0_F0F0_0000_0000];

/// Empties in quadrants holding an odd number of empties.
#[inline]
fn odd_empties(empty: u64) -> u64 {
    let mut odd = 0;
    for q in QUADRANTS {
        if (empty & q).count_ones() & 1 == 1 {
            odd |= empty & q;
        }
    }
    odd
}

impl Solver {
    /// A solver with a table of `2^bits` entries (24 bytes each); 20-22 is typical.
    pub fn new(bits: u32) -> Solver {
        let size = 1usize << bits.clamp(4, 28);
        Solver { table: vec![Entry::default(); size], mask: size - 1, nodes: 0, deadline: None, stopped: false }
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|e| *e = Entry::default());
    }

    /// Nodes visited by the last call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Stops searching at `deadline`: [`Solver::solve_window`] then returns `None`. `None`
    /// removes the limit ([`Solver::solve`] must only be used without one).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Did the last search run out of time?
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The exact score of `position` for the side to move, and a best move.
    pub fn solve(&mut self, position: &Reversi) -> Solution {
        self.solve_window(position, -64, 64).expect("no deadline set")
    }

    /// Solves within the window `(alpha, beta)`: an exact score inside it, or a bound outside
    /// (fail-soft). `None` if the deadline passed.
    pub fn solve_window(&mut self, position: &Reversi, alpha: i32, beta: i32) -> Option<Solution> {
        self.nodes = 0;
        self.stopped = false;
        let (p, o) = position.player_opponent();
        let empties = 64 - (p | o).count_ones();
        let score = self.search(p, o, alpha, beta, empties);
        if self.stopped {
            return None;
        }
        let best = self.best_move(p, o, score);
        Some(Solution { score, best, nodes: self.nodes })
    }

    /// The exact score of every legal move (for the side to move), best first.
    pub fn solve_all(&mut self, position: &Reversi) -> Vec<(ReversiMove, i32)> {
        let (p, o) = position.player_opponent();
        let empties = 64 - (p | o).count_ones();
        let mut out: Vec<(ReversiMove, i32)> = Vec::new();
        let m = moves(p, o);
        let mut total = 0;
        if m == 0 {
            if moves(o, p) != 0 {
                self.nodes = 0;
                let v = -self.search(o, p, -64, 64, empties);
                total += self.nodes;
                out.push((ReversiMove::Pass, v));
            }
        } else {
            for sq in Bits(m) {
                self.nodes = 0;
                let f = flips(p, o, sq);
                let v = -self.search(o & !f, p | f | (1 << sq), -64, 64, empties - 1);
                total += self.nodes;
                out.push((ReversiMove::Place(Square::from_index(sq).expect("on board")), v));
            }
        }
        self.nodes = total;
        out.sort_by_key(|(_, v)| -v);
        out
    }

    /// A move achieving `score`, read from the table or found by re-searching children.
    fn best_move(&mut self, p: u64, o: u64, score: i32) -> Option<ReversiMove> {
        let m = moves(p, o);
        if m == 0 {
            return (moves(o, p) != 0).then_some(ReversiMove::Pass);
        }
        let empties = 64 - (p | o).count_ones();
        if let Some(e) = self.probe(p, o) {
            if e.best < 64 && m >> e.best & 1 == 1 && e.lower == e.upper {
                return Square::from_index(e.best as usize).map(ReversiMove::Place);
            }
        }
        let nodes = self.nodes;
        let mut found = None;
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            // Is this move at least `score`? A null window around it answers.
            let v = -self.search(o & !f, p | f | (1 << sq), -score, -score + 1, empties - 1);
            if v >= score {
                found = Square::from_index(sq).map(ReversiMove::Place);
                break;
            }
        }
        self.nodes = nodes.max(self.nodes);
        found.or_else(|| Square::from_index(m.trailing_zeros() as usize).map(ReversiMove::Place))
    }

    #[inline]
    fn slot(&self, p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        ((h >> 20) as usize) & self.mask & !1
    }

    #[inline]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let i = self.slot(p, o);
        for e in &self.table[i..i + 2] {
            if e.p == p && e.o == o && (e.p | e.o) != 0 {
                return Some(*e);
            }
        }
        None
    }

    fn store(&mut self, p: u64, o: u64, empties: u32, (alpha, beta): (i32, i32), value: i32, best: u8) {
        let (mut lower, mut upper) = if value <= alpha {
            (-64, value)
        } else if value >= beta {
            (value, 64)
        } else {
            (value, value)
        };
        let i = self.slot(p, o);
        let slot = if self.table[i].p == p && self.table[i].o == o {
            i
        } else if self.table[i + 1].p == p && self.table[i + 1].o == o {
            i + 1
        } else if self.table[i].empties <= self.table[i + 1].empties {
            i
        } else {
            i + 1
        };
        let e = &mut self.table[slot];
        if e.p == p && e.o == o {
            lower = lower.max(e.lower as i32);
            upper = upper.min(e.upper as i32);
        } else if e.empties as u32 > empties + 2 && slot == i {
            // Keep a much deeper entry in the first slot; use the second.
            let e2 = &mut self.table[i + 1];
            *e2 = Entry { p, o, lower: lower as i8, upper: upper as i8, best, empties: empties as u8 };
            return;
        }
        *e = Entry { p, o, lower: lower as i8, upper: upper as i8, best, empties: empties as u8 };
    }

    fn check_time(&mut self) {
        if self.nodes & 0xFFF == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
        }
    }

    /// Negamax PVS with table, ordering and cut-offs, for `empties` > [`SMALL_MAX`].
    fn search(&mut self, p: u64, o: u64, mut alpha: i32, mut beta: i32, empties: u32) -> i32 {
        if empties <= SMALL_MAX {
            return self.small(p, o, alpha, beta, !(p | o), false);
        }
        if empties < ORDER_MIN {
            return self.parity_search(p, o, alpha, beta, empties, false);
        }
        self.nodes += 1;
        self.check_time();
        if self.stopped {
            return 0;
        }
        let m = moves(p, o);
        if m == 0 {
            if moves(o, p) == 0 {
                return final_score(p, o);
            }
            return -self.search(o, p, -beta, -alpha, empties);
        }
        // Stability cut-off: the opponent's stable discs are lost to us for good.
        if alpha >= 16 {
            let bound = 64 - 2 * stable(o, p).count_ones() as i32;
            if bound <= alpha {
                return bound;
            }
            beta = beta.min(bound);
        }
        let mut hash_move = 64u8;
        if let Some(e) = self.probe(p, o) {
            let (lo, up) = (e.lower as i32, e.upper as i32);
            if lo >= beta {
                return lo;
            }
            if up <= alpha {
                return up;
            }
            if lo == up {
                return lo;
            }
            alpha = alpha.max(lo);
            beta = beta.min(up);
            hash_move = e.best;
        }
        let alpha_start = alpha;

        // Generate and score the moves.
        let mut list = [(0u8, 0i32, 0u64); 32];
        let mut n = 0;
        let odd = odd_empties(!(p | o));
        let shallow_depth = if empties >= SHALLOW_MIN { 1 + (empties - SHALLOW_MIN) / 4 } else { 0 };
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            let np = p | f | (1 << sq);
            let no = o & !f;
            let key = if sq as u8 == hash_move {
                -1_000_000
            } else if shallow_depth > 0 {
                // A shallow search of the reply, scored for the opponent: low is good for us.
                self.nodes += 1;
                shallow(no, np, shallow_depth, -10_000, 10_000)
            } else {
                let om = moves(no, np);
                let mut k = (om.count_ones() as i32 + (om & CORNERS).count_ones() as i32) * 16;
                if (1u64 << sq) & CORNERS != 0 {
                    k -= 8;
                }
                if odd >> sq & 1 == 1 {
                    k -= 4;
                }
                // Potential mobility as the tie-break.
                k + (super::bitboard::adjacent(np) & !(np | no)).count_ones() as i32 / 4
            };
            list[n] = (sq as u8, key, f);
            n += 1;
        }
        let list = &mut list[..n];
        list.sort_unstable_by_key(|e| e.1);

        // Enhanced transposition cut-off.
        if empties >= ETC_MIN {
            for &(sq, _, f) in list.iter() {
                let np = p | f | (1 << sq);
                let no = o & !f;
                if let Some(e) = self.probe(no, np) {
                    let v = -(e.upper as i32);
                    if v >= beta {
                        return v;
                    }
                }
            }
        }

        let mut best = -65;
        let mut best_sq = 64u8;
        for (i, &(sq, _, f)) in list.iter().enumerate() {
            let np = p | f | (1 << sq);
            let no = o & !f;
            let a = alpha.max(best);
            let v = if i == 0 {
                -self.search(no, np, -beta, -a, empties - 1)
            } else {
                let probe = -self.search(no, np, -a - 1, -a, empties - 1);
                if probe > a && probe < beta {
                    -self.search(no, np, -beta, -probe, empties - 1)
                } else {
                    probe
                }
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_sq = sq;
                if v >= beta {
                    break;
                }
            }
        }
        self.store(p, o, empties, (alpha_start, beta), best, best_sq);
        best
    }

    /// Alpha-beta with parity ordering, no table: for a few empties above [`SMALL_MAX`].
    fn parity_search(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u32, passed: bool) -> i32 {
        self.nodes += 1;
        let empty = !(p | o);
        let m = moves(p, o);
        if m == 0 {
            if passed {
                return final_score(p, o);
            }
            return -self.parity_search(o, p, -beta, -alpha, empties, true);
        }
        let odd = odd_empties(empty);
        let mut best = -65;
        for part in [m & odd, m & !odd] {
            for sq in Bits(part) {
                let f = flips(p, o, sq);
                let (np, no) = (p | f | (1 << sq), o & !f);
                let v = if empties - 1 <= SMALL_MAX {
                    -self.small(no, np, -beta, -alpha.max(best), empty & !(1 << sq), false)
                } else {
                    -self.parity_search(no, np, -beta, -alpha.max(best), empties - 1, false)
                };
                if v > best {
                    best = v;
                    if v >= beta {
                        return v;
                    }
                }
            }
        }
        best
    }

    /// The last few empties: plain alpha-beta over the empty squares, odd quadrants first.
    fn small(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empty: u64, passed: bool) -> i32 {
        self.nodes += 1;
        if empty == 0 {
            return final_score(p, o);
        }
        if empty & (empty - 1) == 0 {
            return last_one(p, o, empty.trailing_zeros() as usize);
        }
        let odd = odd_empties(empty);
        let mut best = -65;
        for part in [empty & odd, empty & !odd] {
            for sq in Bits(part) {
                let f = flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                let v = -self.small(o & !f, p | f | (1 << sq), -beta, -alpha.max(best), empty & !(1 << sq), false);
                if v > best {
                    best = v;
                    if v >= beta {
                        return v;
                    }
                }
            }
        }
        if best == -65 {
            if passed {
                return final_score(p, o);
            }
            return -self.small(o, p, -beta, -alpha, empty, true);
        }
        best
    }
}

/// A quick evaluation for move ordering: mobility, corners, and frontier, for the side to move.
#[inline]
fn quick_eval(p: u64, o: u64) -> i32 {
    let mp = moves(p, o);
    let mo = moves(o, p);
    let empty = !(p | o);
    let frontier_p = (super::bitboard::adjacent(p) & empty).count_ones() as i32;
    let frontier_o = (super::bitboard::adjacent(o) & empty).count_ones() as i32;
    16 * (mp.count_ones() as i32 - mo.count_ones() as i32) + 8 * (mp & CORNERS).count_ones() as i32
        - 8 * (mo & CORNERS).count_ones() as i32
        + 40 * ((p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32)
        + 4 * (frontier_o - frontier_p)
}

/// A depth-limited alpha-beta on [`quick_eval`], for ordering moves far from the end.
fn shallow(p: u64, o: u64, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    let m = moves(p, o);
    if depth == 0 {
        return quick_eval(p, o);
    }
    if m == 0 {
        if moves(o, p) == 0 {
            return final_score(p, o) * 100;
        }
        return -shallow(o, p, depth - 1, -beta, -alpha);
    }
    let mut best = -100_000;
    for sq in Bits(m) {
        let f = flips(p, o, sq);
        let v = -shallow(o & !f, p | f | (1 << sq), depth - 1, -beta, -alpha);
        if v > best {
            best = v;
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
    }
    best
}

/// The score with one empty square left, `sq`.
#[inline]
fn last_one(p: u64, o: u64, sq: usize) -> i32 {
    let f = flips(p, o, sq);
    if f != 0 {
        return 2 * (p.count_ones() + f.count_ones() + 1) as i32 - 64;
    }
    let f = flips(o, p, sq);
    if f != 0 {
        return 64 - 2 * (o.count_ones() + f.count_ones() + 1) as i32;
    }
    final_score(p, o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, TwoPlayer};
    use crate::search::{NoEvaluation, NoOrdering, Options, Search};

    #[test]
    fn agrees_with_the_generic_exact_search() {
        // Random positions 9-11 empties from the end, reached by seeded random games.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut solver = Solver::new(16);
        let mut checked = 0;
        while checked < 30 {
            let mut pos = Reversi::new();
            let mut list = Vec::new();
            let stop = if checked % 2 == 0 { rng.gen_range(53..=55) } else { rng.gen_range(58..=63) };
            while pos.open_squares() > 64 - stop && !pos.is_over() {
                pos.legal_moves(&mut list);
                pos.play_unchecked(list[rng.gen_range(0..list.len())]);
            }
            if pos.is_over() {
                continue;
            }
            let mut search = Search::new(NoEvaluation, NoOrdering, Options { exact: true, ..Options::default() });
            let expected = search.search(&pos, &[], Default::default()).value;
            let got = solver.solve(&pos);
            assert_eq!(got.score, expected, "{pos}");
            let mut child = pos;
            child.play_unchecked(got.best.unwrap());
            let check = search.search(&child, &[], Default::default()).value;
            assert_eq!(-check, expected, "best move of {pos}");
            let _ = pos.terminal_value(crate::Outcome::Draw, 0);
            checked += 1;
        }
    }
}
