//! The exact endgame solver: the final disc difference with perfect play.
//!
//! A specialised negamax alpha-beta on raw bitboards:
//! - **MTD(f) at the root**: the score is found by a sequence of null-window searches (from
//!   the pattern evaluation's estimate, each just past the bound the last one proved),
//!   sharing the table; every node is
//!   searched by a dedicated null-window search;
//! - **selective stages** (from [`SELECTIVE_MIN`] empties at the root, as in Edax): before
//!   the exact search, MTD(f) runs with ProbCut at the confidences of [`STAGE_T`]: at nodes
//!   of [`CUT_MIN`] empties or more a shallow search on the pattern evaluation
//!   ([`cut_shallow`] plies) predicts the exact score by a line fitted on solved positions
//!   ([`ProbCut::get_end`], `tuning::fit_endcut`), and the node is cut when the prediction
//!   is beyond the window by `t` standard deviations. Each stage leaves its moves in the
//!   table and its score as the next one's first guess. Table entries carry the level their
//!   bounds were proven at, and a search uses only bounds proven at its level or with less
//!   selectivity, so the last, exact stage trusts no estimate: the answer stays exact;
//! - **move ordering**: the transposition-table move first (searched before the others are
//!   even generated and scored), then fastest-first (moves that leave the opponent fewest
//!   replies first, corners counted double), with parity and potential mobility as
//!   tie-breaks; from [`SHALLOW_MIN`] empties a shallow search of the reply on the pattern
//!   evaluation ([`patterns`](super::patterns), scaled) is added to the key (counted double),
//!   deeper with more empties;
//! - **parity and square classes**: below [`ORDER_MIN`] empties, moves in quadrants with an
//!   odd number of empties first, and within those corners first and the squares next to
//!   corners last (a fixed order of the 64 squares, so that iterating over a bitboard of
//!   ranks visits them in that order);
//! - a **transposition table** of exact lower/upper bounds keyed by the full position (no false
//!   hits), two lock-free entries to a bucket of one cache line ([`Slot`]: the threads of a
//!   [`ParallelSolver`] share the table), deeper entries kept, used from [`TABLE_MIN`] empties,
//!   on huge pages where the system allows; from [`NEAR_MIN`] empties to [`TABLE_MIN`], a
//!   small table that stays in the processor's cache (one for each thread);
//! - **enhanced transposition cut-off**: before searching, children already in the table may
//!   refute the node at once;
//! - **stability cut-off**: the opponent's stable discs bound the best reachable score, tried
//!   when the window is high enough for it to matter (a threshold by empties, after Edax),
//!   down to 4 empties;
//! - **special-cased last empties**: the last 6 empties are searched over the empty squares
//!   without table or sorting, the last 3 and 2 by dedicated functions, and the very last
//!   empty counts its flips from four line patterns and a table.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::lockless::Slot;
use super::bitboard::{adjacent, final_score, flips, last_flip_count, moves, stable, Bits, CORNERS};
use super::probcut::{CutParams, ProbCut, END_SHALLOW_MAX};
use super::patterns::PatternWeights;
use super::rules::{Reversi, ReversiMove, Square};
use crate::memory::TableAllocError;

/// Below this many empties, moves are ordered by parity only (no mobility sort, no table).
pub const ORDER_MIN: u32 = 7;
/// From this many empties, the transposition table is used (below, probing costs more than
/// it saves).
pub const TABLE_MIN: u32 = 9;
/// Up to this many empties, the dedicated small-endgame search runs.
const SMALL_MAX: u32 = ORDER_MIN - 1;
/// From this many empties up to [`TABLE_MIN`], nodes use a small table that stays in the
/// processor's cache: it catches the transpositions between nearby subtrees, cheaply.
pub const NEAR_MIN: u32 = 7;
/// The small table holds `2^NEAR_BITS` entries (22 KB).
const NEAR_BITS: u32 = 10;
/// From this many empties, moves are ordered by a shallow search on the pattern evaluation.
pub const SHALLOW_MIN: u32 = 13;
/// The shallow search is `(empties - SHALLOW_OFFSET) / SHALLOW_STEP` plies deep: the child's
/// evaluation alone at 13-15 empties, 1 ply from 16, 2 from 19, 3 from 22, 4 from 25. FFO
/// #40-#49, one thread (`SHALLOW_MIN OFFSET STEP`: nodes, CPU seconds): `13 13 3`: 712 M, 25.2 s;
/// `14 13 3`: 737 M, 25.1-25.5 s; `14 12 3`: 701 M, 26.2 s; `13 12 3`: 679 M, 26.3 s; `14 14 3`:
/// 805 M, 26.3 s; `15 13 3`: 780 M, 26.1 s; `14 10 4`: 703 M, 27.6 s; `15 7 4` (2 plies from 15
/// empties, 3 from 19, 4 from 23, as tuned for the ten-feature evaluation): 733 M, 34.8 s with
/// the evaluation weighed twice as much.
const SHALLOW_OFFSET: u32 = 13;
/// See [`SHALLOW_OFFSET`].
const SHALLOW_STEP: u32 = 3;
/// The depth of the shallow search that gives MTD(f) its first guess.
const GUESS_DEPTH: u32 = 4;
/// From this many empties, enhanced transposition cut-offs are tried.
const ETC_MIN: u32 = 10;
/// From this many empties at the root, selective stages run before the exact search (see
/// [`Solver::set_selective_from`]).
pub const SELECTIVE_MIN: u32 = 20;
/// The selective stages' confidence: a node is cut when the shallow search predicts the
/// score beyond the window by this many standard deviations (1.1: 86%, 1.5: 93%, 2.0: 98%,
/// 2.6: 99.5% one-sided, for a normal residual). The exact search follows the last.
pub const STAGE_T: &[f32] = &[1.1, 1.5, 2.0, 2.6];
/// The level of a search without ProbCut, and of bounds it proved.
const EXACT: u8 = u8::MAX;
/// In the selective stages, ProbCut is tried at nodes with at least this many empties
/// (below, every bound is exact).
pub const CUT_MIN: u32 = 12;

/// The depth of ProbCut's shallow search at a node with `empties` empties (the evaluation
/// alone below 13 empties, one ply more every 3 empties, at most
/// [`super::probcut::END_SHALLOW_MAX`]).
///
/// ```
/// use tabletop::games::reversi::solver::cut_shallow;
/// assert_eq!(cut_shallow(12), 0);
/// assert_eq!(cut_shallow(20), 3);
/// ```
pub fn cut_shallow(empties: u32) -> u32 {
    (empties.saturating_sub(10) / 3).min(END_SHALLOW_MAX)
}

/// The built-in endgame ProbCut parameters for [`cut_shallow`]'s depths, by empties.
fn builtin_cuts() -> &'static [Option<CutParams>; 61] {
    static CUTS: std::sync::OnceLock<[Option<CutParams>; 61]> = std::sync::OnceLock::new();
    CUTS.get_or_init(|| {
        let cut = ProbCut::builtin();
        std::array::from_fn(|e| cut.get_end(e as u32, cut_shallow(e as u32)))
    })
}

#[derive(Clone, Copy, Default)]
struct Entry {
    lower: i8,
    upper: i8,
    best: u8,
    empties: u8,
    /// The selectivity the bounds were proven at ([`EXACT`] for exact bounds): they hold for
    /// searches at this level or a lower one.
    level: u8,
}

impl Entry {
    /// The entry in one word (a [`Slot`]'s data).
    #[inline]
    fn data(&self) -> u64 {
        self.lower as u8 as u64
            | (self.upper as u8 as u64) << 8
            | (self.best as u64) << 16
            | (self.empties as u64) << 24
            | (self.level as u64) << 32
    }

    /// The entry of a data word.
    #[inline]
    fn from_data(d: u64) -> Entry {
        Entry { lower: d as u8 as i8, upper: (d >> 8) as u8 as i8, best: (d >> 16) as u8, empties: (d >> 24) as u8, level: (d >> 32) as u8 }
    }
}

/// The memory of one [`Bucket`] in bytes: one cache line.
const BUCKET_BYTES: u64 = std::mem::size_of::<Bucket>() as u64;

/// The entries of a [`Bucket`].
const WAYS: usize = 2;

/// Two table entries in one cache line (48 bytes and padding), so that a probe reads one line.
/// The entries are lock-free [`Slot`]s of 24 bytes, shared by the threads of a
/// [`ParallelSolver`]; before they were (2026-11-29 to issue 56), three entries of 21 bytes
/// shared a line, their fields side by side, for one thread only.
#[derive(Default)]
#[repr(C, align(64))]
struct Bucket([Slot; WAYS]);

impl Bucket {
    /// The way that holds `(p, o)` and its entry, if one does.
    #[inline]
    fn find(&self, p: u64, o: u64) -> Option<(usize, Entry)> {
        if (p | o) == 0 {
            return None;
        }
        (0..WAYS).find_map(|k| self.0[k].get(p, o).map(|d| (k, Entry::from_data(d))))
    }
}

/// The buckets of a table of `2^bits` entries' memory: as many cache lines as three entries
/// to a line took before the table was shared (so that the memory of a table of `bits` stays
/// what it was), each holding [`WAYS`] entries.
const fn buckets_for(entries: u64) -> u64 {
    entries.div_ceil(3)
}

/// A transposition table of exact score bounds, in buckets of [`WAYS`] entries, lock-free:
/// the threads of a [`ParallelSolver`] share one.
struct Table {
    buckets: Vec<Bucket>,
}

impl Table {
    /// A table of the memory of `2^bits` entries ([`buckets_for`]).
    fn try_new(bits: u32) -> Result<Table, TableAllocError> {
        let size = buckets_for(1 << bits) as usize;
        Ok(Table { buckets: crate::memory::try_large_vec(size, Bucket::default)? })
    }

    fn clear(&self) {
        self.buckets.iter().flat_map(|b| &b.0).for_each(Slot::clear);
    }

    /// The bucket of `(p, o)`: the hash's high bits scaled to the number of buckets.
    #[inline]
    fn slot(&self, p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        ((h as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    #[inline]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        self.buckets[self.slot(p, o)].find(p, o).map(|(_, e)| e)
    }

    /// Stores bounds of `(p, o)` from a search of the window `(alpha, beta)` that returned
    /// `value`. Another thread may store into the same bucket at the same time: what one
    /// reads and merges is a whole entry of the position (or none), and every bound stored is
    /// proven, so a race loses a bound at worst, never makes a wrong one.
    #[allow(clippy::too_many_arguments)]
    fn store(&self, p: u64, o: u64, empties: u32, level: u8, (alpha, beta): (i32, i32), value: i32, best: u8) {
        let (mut lower, mut upper) = if value <= alpha {
            (-64, value)
        } else if value >= beta {
            (value, 64)
        } else {
            (value, value)
        };
        let bucket = &self.buckets[self.slot(p, o)];
        let mut best = best;
        let k = match bucket.find(p, o) {
            Some((k, old)) => {
                if old.level > level {
                    // Bounds proven with less selectivity stay; only a move is learned.
                    if old.best >= 64 {
                        bucket.0[k].set(p, o, Entry { best, ..old }.data());
                    }
                    return;
                }
                if old.level == level {
                    lower = lower.max(old.lower as i32);
                    upper = upper.min(old.upper as i32);
                }
                if value <= alpha && old.best < 64 {
                    // A fail-low proves nothing about the moves: keep the one that once cut.
                    best = old.best;
                }
                k
            }
            None => {
                // The shallowest entry gives way; when even it is much deeper, the last way
                // (always replaced) takes the new one, so the deep entries stay.
                let depth = |k: usize| Entry::from_data(bucket.0[k].peek().2).empties;
                let shallowest = (0..WAYS).min_by_key(|&k| depth(k)).unwrap_or(WAYS - 1);
                if depth(shallowest) as u32 > empties + 2 {
                    WAYS - 1
                } else {
                    shallowest
                }
            }
        };
        let entry = Entry { lower: lower as i8, upper: upper as i8, best, empties: empties as u8, level };
        bucket.0[k].set(p, o, entry.data());
    }
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

/// A game's result with perfect play, for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Every move loses.
    Loss,
    /// The best the side to move can reach is a draw.
    Draw,
    /// Some move wins.
    Win,
}

impl Outcome {
    /// The outcome of an exact final disc difference.
    ///
    /// ```
    /// use tabletop::games::reversi::solver::Outcome;
    /// assert_eq!((Outcome::of(3), Outcome::of(0), Outcome::of(-64)), (Outcome::Win, Outcome::Draw, Outcome::Loss));
    /// ```
    pub fn of(score: i32) -> Outcome {
        match score.signum() {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }
}

/// What [`Solver::solve_outcome`] found: the result with perfect play, not its margin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeSolution {
    /// Win, draw or loss for the side to move.
    pub outcome: Outcome,
    /// A move that keeps the outcome (`None` for a loss, which every move keeps, and when the
    /// game is over).
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
    /// The table from [`TABLE_MIN`] empties, shared with the other threads of a
    /// [`ParallelSolver`].
    table: Arc<Table>,
    /// A small table, resident in the cache, for the nodes below [`TABLE_MIN`] empties.
    near: Table,
    nodes: u64,
    deadline: Option<Instant>,
    /// Calls of [`Solver::check_time`] left before it reads the clock again.
    checks_until_clock: u32,
    /// Tests stop the search after this many more calls of [`Solver::check_time`] (a
    /// deadline that falls at a chosen point, whatever the machine's speed).
    #[cfg(test)]
    stop_after_checks: Option<u64>,
    stopped: bool,
    /// The selectivity of the search under way: an index into [`STAGE_T`], or [`EXACT`].
    level: u8,
    /// Selective stages run before the exact search from this many empties at the root.
    selective_from: u32,
    /// The endgame ProbCut parameters by empties, for [`cut_shallow`]'s depths.
    cuts: &'static [Option<CutParams>; 61],
    /// ProbCut cut-offs taken by the last call (in the selective stages).
    cut_offs: u64,
}

/// Calls of [`Solver::check_time`] (one a node above [`SMALL_MAX`] empties) between two
/// readings of the clock: 75 ms deadlines on game positions of 17-26 empties were passed by
/// at most 0.7 ms (by up to 21 ms when the node count decided).
const CLOCK_EVERY: u32 = 64;

/// From how high a score (`alpha`) the stability cut-off is tried, by empties (Edax's table).
#[inline]
fn stability_threshold(empties: u32) -> i32 {
    const T: [i32; 41] = [
        99, 99, 99, 99, 6, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 48, 50, 50,
        52, 52, 54, 54, 56, 56, 58, 58, 60, 60, 62, 62, 64,
    ];
    T[(empties as usize).min(40)]
}

/// The stability cut-off: the opponent's stable discs bound the score of `p` from above; this
/// bound if it is at most `alpha`. Tried only when `alpha` is high for the empties (below the
/// threshold the bound almost never cuts).
#[inline]
fn stability_cutoff(p: u64, o: u64, alpha: i32, empties: u32) -> Option<i32> {
    if alpha < stability_threshold(empties) {
        return None;
    }
    let bound = 64 - 2 * stable(o, p).count_ones() as i32;
    (bound <= alpha).then_some(bound)
}

/// Quadrant masks, for parity.
const QUADRANTS: [u64; 4] =
    [0x0000_0000_0F0F_0F0F, 0x0000_0000_F0F0_F0F0, 0x0F0F_0F0F_0000_0000, 0xF0F0_F0F0_0000_0000];

/// Classes of squares by how good they usually are to play, best first: corners, edge squares
/// two from a corner, middle edges, inner squares, squares beside a corner on an edge, and the
/// diagonal neighbours of corners.
const PRIORITY: [u64; 6] = [
    CORNERS,
    0x2400_8100_0081_0024,
    0x1800_0081_8100_0018,
    !(CORNERS | 0x2400_8100_0081_0024 | 0x1800_0081_8100_0018 | 0x4281_0000_0000_8142 | 0x0042_0000_0000_4200),
    0x4281_0000_0000_8142,
    0x0042_0000_0000_4200,
];

/// Every square, by [`PRIORITY`] class (the order in which the last empties are tried).
static BY_PRIORITY: [u8; 64] = {
    let mut order = [0u8; 64];
    let (mut n, mut class) = (0, 0);
    while class < PRIORITY.len() {
        let mut sq = 0;
        while sq < 64 {
            if PRIORITY[class] >> sq & 1 == 1 {
                order[n] = sq as u8;
                n += 1;
            }
            sq += 1;
        }
        class += 1;
    }
    order
};

/// The position of each square in [`BY_PRIORITY`].
static RANK: [u8; 64] = {
    let mut rank = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        rank[BY_PRIORITY[i] as usize] = i as u8;
        i += 1;
    }
    rank
};

/// For each set of quadrants (bit `q` for `QUADRANTS[q]`), the ranks of their squares.
static RANKED_QUADRANTS: [u64; 16] = {
    let mut masks = [0u64; 16];
    let mut set = 0;
    while set < 16 {
        let mut i = 0;
        while i < 64 {
            if QUADRANT[BY_PRIORITY[i] as usize] & set != 0 {
                masks[set as usize] |= 1 << i;
            }
            i += 1;
        }
        set += 1;
    }
    masks
};

/// The quadrant of each square as a bit (bit `q` for `QUADRANTS[q]`), for parity.
static QUADRANT: [u8; 64] = {
    let mut q = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        q[sq] = 1 << ((sq / 32) * 2 + (sq % 8) / 4);
        sq += 1;
    }
    q
};

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
    /// A solver with a table of `2^bits` entries (three to a 64-byte bucket); 20-22 is typical.
    ///
    /// Panics if the table cannot be allocated; [`Solver::try_new`] returns an error instead.
    pub fn new(bits: u32) -> Solver {
        Solver::try_new(bits).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A solver with a table of `2^bits` entries (`bits` clamped to 4..=28; memory:
    /// [`Solver::memory_bytes`]), or an error when the memory cannot be allocated.
    ///
    /// ```
    /// use tabletop::games::reversi::solver::Solver;
    /// assert!(Solver::try_new(12).is_ok());
    /// ```
    pub fn try_new(bits: u32) -> Result<Solver, TableAllocError> {
        Ok(Solver {
            table: Arc::new(Table::try_new(bits.clamp(4, 28))?),
            near: Table::try_new(NEAR_BITS)?,
            nodes: 0,
            deadline: None,
            checks_until_clock: 0,
            #[cfg(test)]
            stop_after_checks: None,
            stopped: false,
            level: EXACT,
            selective_from: SELECTIVE_MIN,
            cuts: builtin_cuts(),
            cut_offs: 0,
        })
    }

    /// A solver for another thread, sharing this one's big table (with a small table of its
    /// own, and the same settings).
    fn try_sharing(&self) -> Result<Solver, TableAllocError> {
        Ok(Solver {
            table: Arc::clone(&self.table),
            near: Table::try_new(NEAR_BITS)?,
            nodes: 0,
            deadline: self.deadline,
            checks_until_clock: 0,
            #[cfg(test)]
            stop_after_checks: None,
            stopped: false,
            level: EXACT,
            selective_from: self.selective_from,
            cuts: self.cuts,
            cut_offs: 0,
        })
    }

    /// Runs the selective stages before the exact search only from `empties` empties at the
    /// root (default [`SELECTIVE_MIN`]; more than 60 turns them off). The answers stay exact
    /// either way.
    ///
    /// ```
    /// use tabletop::games::reversi::{solver::Solver, Reversi};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let mut solver = Solver::new(16);
    /// let exact = solver.solve(&pos).score;
    /// solver.set_selective_from(8);
    /// solver.clear();
    /// assert_eq!(solver.solve(&pos).score, exact);
    /// ```
    pub fn set_selective_from(&mut self, empties: u32) {
        self.selective_from = empties;
    }

    /// The memory of `Solver::new(bits)` in bytes (both of its tables).
    ///
    /// ```
    /// use tabletop::games::reversi::solver::Solver;
    /// assert_eq!(Solver::memory_bytes(20), 64 * ((1 << 20) / 3 + 1 + (1 << 10) / 3 + 1));
    /// assert_eq!(Solver::memory_bytes(40), Solver::memory_bytes(28));
    /// ```
    pub const fn memory_bytes(bits: u32) -> u64 {
        let bits = if bits < 4 {
            4
        } else if bits > 28 {
            28
        } else {
            bits
        };
        BUCKET_BYTES * (buckets_for(1u64 << bits) + buckets_for(1u64 << NEAR_BITS))
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.table.clear();
        self.near.clear();
    }

    /// The table for nodes with `empties` empties.
    #[inline]
    fn table_for(&self, empties: u32) -> &Table {
        if empties >= TABLE_MIN {
            &self.table
        } else {
            &self.near
        }
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
        self.cut_offs = 0;
        self.stopped = false;
        self.checks_until_clock = 0;
        let (p, o) = position.player_opponent();
        let empties = 64 - (p | o).count_ones();
        let score = self.mtd(p, o, alpha, beta, empties);
        if self.stopped {
            return None;
        }
        let best = self.best_move(p, o, score);
        // A search stopped while looking for the move answers 0, which may pass for it.
        if self.stopped {
            return None;
        }
        Some(Solution { score, best, nodes: self.nodes })
    }

    /// Win, draw or loss with perfect play, and a move that keeps it: null-window searches
    /// around 0 of the moves (does one win? if not, does one draw?), far cheaper than the
    /// exact score, which MTD(f) narrows down test by test. No selective stage runs: the
    /// answer is proven. `None` if the deadline passed.
    ///
    /// ```
    /// use tabletop::games::reversi::{solver::{Outcome, Solver}, Reversi};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let mut solver = Solver::new(16);
    /// let exact = solver.solve(&pos).score;
    /// let wld = solver.solve_outcome(&pos).unwrap();
    /// assert_eq!(wld.outcome, Outcome::of(exact));
    /// assert_eq!(wld.best.is_some(), exact >= 0);
    /// ```
    pub fn solve_outcome(&mut self, position: &Reversi) -> Option<OutcomeSolution> {
        self.solve_outcome_from(position, None, None)
    }

    /// [`Solver::solve_outcome`] trying the move `prefer` first (so that, when it keeps the
    /// outcome, it is the move answered), and with ProbCut below the root at the confidence of
    /// selective stage `stage` ([`STAGE_T`]) when one is given: the outcome is then likely
    /// rather than proven, found at a fraction of the cost (as NTest's and Edax's "probable"
    /// solves). `None` if the deadline passed.
    ///
    /// ```
    /// use tabletop::games::reversi::{solver::{Outcome, Solver}, Reversi, ReversiMove};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let mut solver = Solver::new(16);
    /// let proven = solver.solve_outcome(&pos).unwrap();
    /// let likely = solver.solve_outcome_from(&pos, proven.best, Some(0)).unwrap();
    /// assert_eq!(likely.outcome, proven.outcome);
    /// ```
    pub fn solve_outcome_from(
        &mut self,
        position: &Reversi,
        prefer: Option<ReversiMove>,
        stage: Option<usize>,
    ) -> Option<OutcomeSolution> {
        self.nodes = 0;
        self.cut_offs = 0;
        self.stopped = false;
        self.checks_until_clock = 0;
        self.level = stage.map_or(EXACT, |s| s.min(STAGE_T.len() - 1) as u8);
        let (mut p, mut o) = position.player_opponent();
        let empties = 64 - (p | o).count_ones();
        let mut passed = false;
        if moves(p, o) == 0 {
            if moves(o, p) == 0 {
                self.level = EXACT;
                return Some(OutcomeSolution { outcome: Outcome::of(final_score(p, o)), best: None, nodes: 0 });
            }
            // The side to move passes; the opponent's best is its worst.
            (p, o) = (o, p);
            passed = true;
        }
        let prefer = match prefer {
            Some(ReversiMove::Place(sq)) if !passed => sq.index() as u8,
            _ => 64,
        };
        let found = self.outcome_root(p, o, empties, prefer);
        self.level = EXACT;
        if self.stopped {
            return None;
        }
        let (outcome, best) = match (passed, found) {
            (false, (outcome, sq)) => (outcome, sq.and_then(|sq| Square::from_index(sq as usize)).map(ReversiMove::Place)),
            // After a pass the opponent's outcome is reversed, and the pass is the only move.
            (true, (Outcome::Win, _)) => (Outcome::Loss, None),
            (true, (Outcome::Draw, _)) => (Outcome::Draw, Some(ReversiMove::Pass)),
            (true, (Outcome::Loss, _)) => (Outcome::Win, Some(ReversiMove::Pass)),
        };
        Some(OutcomeSolution { outcome, best, nodes: self.nodes })
    }

    /// The root of an outcome solve: `p`'s moves (it has some) in the solver's order, `prefer`
    /// first; a move that wins, else one that draws, else a loss.
    fn outcome_root(&mut self, p: u64, o: u64, empties: u32, prefer: u8) -> (Outcome, Option<u8>) {
        let mut list = [(0u8, 0i32, 0u64, 0u64); 32];
        let n = self.order(p, o, moves(p, o), empties, prefer, &mut list);
        let list = &mut list[..n];
        // Stable: equal keys keep the squares' order, so the solve does not depend on the sort.
        list.sort_by_key(|e| e.1);
        // Our score is above `threshold - 1` when the opponent's is at most `-threshold`.
        for (threshold, outcome) in [(1, Outcome::Win), (0, Outcome::Draw)] {
            for &(sq, _, f, om) in list.iter() {
                let (np, no) = (p | f | (1 << sq), o & !f);
                let child = if empties - 1 <= SMALL_MAX {
                    self.small_root(no, np, -threshold)
                } else {
                    self.nws_moves(no, np, -threshold, empties - 1, om)
                };
                if self.stopped {
                    return (Outcome::Loss, None);
                }
                if child <= -threshold {
                    return (outcome, Some(sq));
                }
            }
        }
        (Outcome::Loss, None)
    }

    /// The exact score of every legal move (for the side to move), best first.
    /// With a deadline, check [`Solver::stopped`] afterwards: the scores are then not valid.
    pub fn solve_all(&mut self, position: &Reversi) -> Vec<(ReversiMove, i32)> {
        self.stopped = false;
        let (p, o) = position.player_opponent();
        let empties = 64 - (p | o).count_ones();
        let mut out: Vec<(ReversiMove, i32)> = Vec::new();
        let m = moves(p, o);
        let mut total = 0;
        if m == 0 {
            if moves(o, p) != 0 {
                self.nodes = 0;
                let v = -self.mtd(o, p, -64, 64, empties);
                total += self.nodes;
                out.push((ReversiMove::Pass, v));
            }
        } else {
            for sq in Bits(m) {
                self.nodes = 0;
                let f = flips(p, o, sq);
                let v = -self.mtd(o & !f, p | f | (1 << sq), -64, 64, empties - 1);
                total += self.nodes;
                out.push((ReversiMove::Place(Square::from_index(sq).expect("on board")), v));
            }
        }
        self.nodes = total;
        out.sort_by_key(|(_, v)| -v);
        out
    }

    /// A move achieving at least `score` (the position's exact score, or a bound it is known
    /// to reach), read from the table or found by re-searching children.
    fn best_move(&mut self, p: u64, o: u64, score: i32) -> Option<ReversiMove> {
        let m = moves(p, o);
        if m == 0 {
            return (moves(o, p) != 0).then_some(ReversiMove::Pass);
        }
        let empties = 64 - (p | o).count_ones();
        let mut first = 64;
        if let Some(e) = self.table_for(empties).probe(p, o) {
            // The entry's move is the one that proved its lower bound (a fail-low keeps it).
            if e.best < 64 && m >> e.best & 1 == 1 && e.lower as i32 >= score && e.level == EXACT {
                return Square::from_index(e.best as usize).map(ReversiMove::Place);
            }
            first = e.best;
        }
        let nodes = self.nodes;
        let mut found = None;
        // The table's move, if any, is tried first: it is the likeliest.
        let rest = if first < 64 { m & !(1 << first) } else { m };
        let candidates = (first < 64 && m >> first & 1 == 1).then_some(first as usize).into_iter().chain(Bits(rest));
        for sq in candidates {
            let f = flips(p, o, sq);
            // Is this move at least `score`? A null window around it answers.
            let v = -self.nws(o & !f, p | f | (1 << sq), -score, empties - 1);
            if v >= score {
                found = Square::from_index(sq).map(ReversiMove::Place);
                break;
            }
        }
        self.nodes = nodes.max(self.nodes);
        found.or_else(|| Square::from_index(m.trailing_zeros() as usize).map(ReversiMove::Place))
    }

    /// Reads the clock every [`CLOCK_EVERY`] calls. Counting calls, not nodes: the nodes
    /// grow by many between two calls (the small solves count theirs), so a test on the node
    /// count could miss its multiple for a long time and overrun the deadline.
    fn check_time(&mut self) {
        if self.checks_until_clock == 0 {
            self.checks_until_clock = CLOCK_EVERY;
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
            if crate::cancel::cancelled() {
                self.stopped = true;
            }
        }
        self.checks_until_clock -= 1;
        #[cfg(test)]
        if let Some(left) = self.stop_after_checks {
            self.stopped |= left == 0;
            self.stop_after_checks = left.checked_sub(1);
        }
    }

    /// The score by a sequence of null-window searches (MTD(f)), the table keeping what each
    /// one proved: the first tests the pattern evaluation's estimate, then each moves just past the bound the previous one
    /// returned. Probes far from the true score are cheap, so this beats one wide-window
    /// search. Fail-soft within `(alpha, beta)`.
    fn mtd(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u32) -> i32 {
        let guess = self.selective_stages(p, o, empties);
        if self.stopped {
            return 0;
        }
        self.mtd_at(p, o, alpha, beta, empties, guess)
    }

    /// An estimate of the score for MTD(f)'s first test (fewer tests far from the score than
    /// from 0): from `selective_from` empties the selective stages' score (each stage
    /// estimates it with ProbCut, cheaply, leaving good moves in the table and its score as
    /// the next stage's first guess); below, a shallow search on the pattern evaluation,
    /// rounded to an even score.
    fn selective_stages(&mut self, p: u64, o: u64, empties: u32) -> i32 {
        let mut guess = first_guess(p, o);
        if empties >= self.selective_from {
            for level in 0..STAGE_T.len() as u8 {
                self.level = level;
                guess = self.mtd_at(p, o, -64, 64, empties, guess);
                if self.stopped {
                    break;
                }
            }
            self.level = EXACT;
        }
        guess
    }

    /// [`Solver::mtd`] at the current selectivity, from the first guess `guess`.
    fn mtd_at(&mut self, p: u64, o: u64, alpha: i32, beta: i32, empties: u32, mut guess: i32) -> i32 {
        // The score is known to lie in [lower, upper].
        let (mut lower, mut upper) = (-64, 64);
        while lower < upper {
            // Is the score at least `test`?
            let test = guess.clamp(lower + 1, upper);
            let v = self.nws(p, o, test - 1, empties);
            if self.stopped {
                return 0;
            }
            if v >= test {
                lower = v;
                guess = v + 1;
            } else {
                upper = v;
                guess = v;
            }
            if lower >= beta || upper <= alpha {
                break;
            }
        }
        if lower >= beta {
            lower
        } else {
            upper
        }
    }

    /// The null-window search: is the score above `alpha` (window `(alpha, alpha + 1)`)?
    /// Fail-soft: the value returned is a bound on the side it fell.
    fn nws(&mut self, p: u64, o: u64, alpha: i32, empties: u32) -> i32 {
        if empties <= SMALL_MAX {
            return self.small_root(p, o, alpha);
        }
        self.nws_moves(p, o, alpha, empties, moves(p, o))
    }

    /// [`Solver::nws`] above [`SMALL_MAX`] empties, given the moves `m` of `p`.
    fn nws_moves(&mut self, p: u64, o: u64, alpha: i32, empties: u32, m: u64) -> i32 {
        self.nodes += 1;
        self.check_time();
        if self.stopped {
            return 0;
        }
        if m == 0 {
            let om = moves(o, p);
            if om == 0 {
                return final_score(p, o);
            }
            return -self.nws_moves(o, p, -alpha - 1, empties, om);
        }
        if let Some(bound) = stability_cutoff(p, o, alpha, empties) {
            return bound;
        }
        let use_table = empties >= NEAR_MIN;
        let level = if empties >= CUT_MIN { self.level } else { EXACT };
        let mut hash_move = 64u8;
        if use_table {
            if let Some(e) = self.table_for(empties).probe(p, o) {
                if e.level >= level {
                    let (lo, up) = (e.lower as i32, e.upper as i32);
                    if lo > alpha {
                        return lo;
                    }
                    if up <= alpha {
                        return up;
                    }
                }
                hash_move = e.best;
            }
        }
        if level != EXACT {
            if let Some(v) = self.probcut(p, o, alpha, empties, level) {
                self.table.store(p, o, empties, level, (alpha, alpha + 1), v, 64);
                return v;
            }
        }
        let mut best = -65;
        let mut best_sq = 64u8;
        let mut m = m;
        if hash_move < 64 && m >> hash_move & 1 == 1 {
            // The table move first, before paying for the ordering of the others: it usually
            // cuts.
            let sq = hash_move as usize;
            let f = flips(p, o, sq);
            let (np, no) = (p | f | (1 << sq), o & !f);
            best = -self.nws(no, np, -alpha - 1, empties - 1);
            if self.stopped {
                return 0;
            }
            best_sq = hash_move;
            if best > alpha {
                self.table_for(empties).store(p, o, empties, level, (alpha, alpha + 1), best, best_sq);
                return best;
            }
            m &= !(1 << sq);
            if m == 0 {
                self.table_for(empties).store(p, o, empties, level, (alpha, alpha + 1), best, best_sq);
                return best;
            }
        }
        let mut list = [(0u8, 0i32, 0u64, 0u64); 32];
        let n = self.order(p, o, m, empties, 64, &mut list);
        let list = &mut list[..n];

        // Enhanced transposition cut-off.
        // Children known to fail low go last.
        if empties >= ETC_MIN {
            for (sq, key, f, _) in list.iter_mut() {
                if let Some(e) = self.table.probe(o & !*f, p | *f | (1 << *sq)).filter(|e| e.level >= level) {
                    let v = -(e.upper as i32);
                    if v > alpha {
                        return v;
                    }
                    if -(e.lower as i32) <= alpha {
                        *key += 1 << 24;
                    }
                }
            }
        }

        for i in 0..n {
            // Selection sort: a cut-off usually comes before the list is fully sorted.
            let mut k = i;
            for j in i + 1..n {
                if list[j].1 < list[k].1 {
                    k = j;
                }
            }
            list.swap(i, k);
            let (sq, _, f, om) = list[i];
            let (np, no) = (p | f | (1 << sq), o & !f);
            let v = if empties - 1 <= SMALL_MAX {
                -self.small_root(no, np, -alpha - 1)
            } else {
                -self.nws_moves(no, np, -alpha - 1, empties - 1, om)
            };
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_sq = sq;
                if v > alpha {
                    break;
                }
            }
        }
        if use_table {
            self.table_for(empties).store(p, o, empties, level, (alpha, alpha + 1), best, best_sq);
        }
        best
    }

    /// ProbCut in a selective stage: does a shallow search on the pattern evaluation predict,
    /// with the stage's confidence, that the score is above `alpha` (then `alpha + 1`) or at
    /// most `alpha` (then `alpha`)? The side is chosen by the static evaluation; one shallow
    /// null-window search tests it.
    fn probcut(&mut self, p: u64, o: u64, alpha: i32, empties: u32, level: u8) -> Option<i32> {
        if !(-63..62).contains(&alpha) {
            return None;
        }
        let c = self.cuts[empties.min(60) as usize]?;
        let margin = STAGE_T[level as usize] * c.sigma;
        // Above alpha when a * shallow + b - margin >= 100 (alpha + 1).
        let high = ((100.0 * (alpha + 1) as f32 + margin - c.b) / c.a).ceil() as i32;
        // At most alpha when a * shallow + b + margin <= 100 alpha.
        let low = ((100.0 * alpha as f32 - margin - c.b) / c.a).floor() as i32;
        let weights = PatternWeights::builtin();
        self.nodes += 1;
        if 2 * weights.evaluate(p, o) >= high + low {
            if eval_search(weights, p, o, c.shallow, high - 1, high, 1, 100) >= high {
                self.cut_offs += 1;
                return Some(alpha + 1);
            }
        } else if eval_search(weights, p, o, c.shallow, low, low + 1, 1, 100) <= low {
            self.cut_offs += 1;
            return Some(alpha);
        }
        None
    }

    /// Generates the moves of `p` (the set `m`) with their flips and an ordering key, lower
    /// first: the table move, then a shallow search, opponent mobility and parity. The replies
    /// of the opponent come along, for the child's search.
    fn order(
        &mut self,
        p: u64,
        o: u64,
        m: u64,
        empties: u32,
        hash_move: u8,
        list: &mut [(u8, i32, u64, u64); 32],
    ) -> usize {
        let mut n = 0;
        let empty = !(p | o);
        let odd = odd_empties(empty);
        let use_shallow = empties >= SHALLOW_MIN;
        let shallow_depth = if use_shallow { empties.saturating_sub(SHALLOW_OFFSET) / SHALLOW_STEP } else { 0 };
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            let np = p | f | (1 << sq);
            let no = o & !f;
            let om = moves(no, np);
            let key = if sq as u8 == hash_move {
                -1_000_000_000
            } else {
                let mob = om.count_ones() as i32 + (om & CORNERS).count_ones() as i32;
                let pmob = (adjacent(np) & empty).count_ones() as i32;
                let mut k = mob * 16 + pmob;
                if (1u64 << sq) & CORNERS != 0 {
                    k -= 8;
                }
                if odd >> sq & 1 == 1 {
                    k -= 4;
                }
                if use_shallow {
                    // A shallow search of the reply, scored for the opponent: low is good for us.
                    self.nodes += 1;
                    k += 2 * shallow(no, np, shallow_depth, -100_000, 100_000);
                }
                k
            };
            list[n] = (sq as u8, key, f, om);
            n += 1;
        }
        n
    }

    /// The last few empties (at most [`SMALL_MAX`]), null window `(alpha, alpha + 1)`: hands
    /// the empty squares to [`Solver::small`] as ranks in [`BY_PRIORITY`] order.
    fn small_root(&mut self, p: u64, o: u64, alpha: i32) -> i32 {
        let empty = !(p | o);
        let mut ranked = 0u64;
        let mut parity = 0;
        for sq in Bits(empty) {
            ranked |= 1 << RANK[sq];
            parity ^= QUADRANT[sq];
        }
        self.small(p, o, alpha, ranked, parity, false)
    }

    /// Plain alpha-beta over the empty squares, null window `(alpha, alpha + 1)`. The empty
    /// squares are given by their ranks in [`BY_PRIORITY`] (bit `i` of `ranked` for the square
    /// `BY_PRIORITY[i]`), so that iterating over the bits visits them best first; `parity`
    /// has bit `q` set when quadrant `q` holds an odd number of empties, and those quadrants
    /// go first.
    fn small(&mut self, p: u64, o: u64, alpha: i32, ranked: u64, parity: u8, passed: bool) -> i32 {
        let odd = RANKED_QUADRANTS[parity as usize];
        if ranked.count_ones() <= 3 {
            let mut xs = [0usize; 3];
            for (x, i) in xs.iter_mut().zip(Bits(ranked & odd).chain(Bits(ranked & !odd))) {
                *x = BY_PRIORITY[i] as usize;
            }
            return match ranked.count_ones() {
                3 => self.solve3(p, o, alpha, xs, passed),
                2 => self.solve2(p, o, alpha, xs[0], xs[1], passed),
                1 => {
                    self.nodes += 1;
                    last_one(p, o, xs[0])
                }
                _ => {
                    self.nodes += 1;
                    final_score(p, o)
                }
            };
        }
        self.nodes += 1;
        if let Some(bound) = stability_cutoff(p, o, alpha, ranked.count_ones()) {
            return bound;
        }
        let mut best = -65;
        for part in [ranked & odd, ranked & !odd] {
            for i in Bits(part) {
                let sq = BY_PRIORITY[i] as usize;
                let f = flips(p, o, sq);
                if f == 0 {
                    continue;
                }
                let (np, no) = (p | f | (1 << sq), o & !f);
                let v = -self.small(no, np, -alpha - 1, ranked & !(1 << i), parity ^ QUADRANT[sq], false);
                if v > best {
                    best = v;
                    if v > alpha {
                        return v;
                    }
                }
            }
        }
        if best == -65 {
            if passed {
                return final_score(p, o);
            }
            return -self.small(o, p, -alpha - 1, ranked, parity, true);
        }
        best
    }
}

impl Solver {
    /// Three empties, in the order to try them; null window `(alpha, alpha + 1)`.
    fn solve3(&mut self, p: u64, o: u64, alpha: i32, xs: [usize; 3], passed: bool) -> i32 {
        self.nodes += 1;
        let mut best = -65;
        for i in 0..3 {
            let sq = xs[i];
            let f = flips(p, o, sq);
            if f == 0 {
                continue;
            }
            // The other two, in their order.
            let (a, b) = match i {
                0 => (xs[1], xs[2]),
                1 => (xs[0], xs[2]),
                _ => (xs[0], xs[1]),
            };
            let v = -self.solve2(o & !f, p | f | (1 << sq), -alpha - 1, a, b, false);
            if v > best {
                best = v;
                if v > alpha {
                    return v;
                }
            }
        }
        if best == -65 {
            if passed {
                return final_score(p, o);
            }
            return -self.solve3(o, p, -alpha - 1, xs, true);
        }
        best
    }

    /// Two empties, `x1` then `x2`; null window `(alpha, alpha + 1)`.
    fn solve2(&mut self, p: u64, o: u64, alpha: i32, x1: usize, x2: usize, passed: bool) -> i32 {
        self.nodes += 1;
        let mut best = -65;
        let f = flips(p, o, x1);
        if f != 0 {
            self.nodes += 1;
            best = -last_one(o & !f, p | f | (1 << x1), x2);
            if best > alpha {
                return best;
            }
        }
        let f = flips(p, o, x2);
        if f != 0 {
            self.nodes += 1;
            return best.max(-last_one(o & !f, p | f | (1 << x2), x1));
        }
        if best == -65 {
            if passed {
                return final_score(p, o);
            }
            return -self.solve2(o, p, -alpha - 1, x1, x2, true);
        }
        best
    }
}

/// From this many empties, [`ParallelSolver`] splits a node of the principal variation
/// between its threads; below, one thread solves it alone.
pub const SPLIT_MIN: u32 = 16;

/// Exact solves on several threads sharing one table (each keeps its own small table for the
/// last empties, which stays in its core's cache).
///
/// MTD(f) as on one thread, the selective stages first, with every null-window search split
/// among the threads (young brothers wait, `split_nws`): from [`SPLIT_MIN`] empties, along the
/// first line, a node's first move is searched first (split in the same way); when it does not
/// cut, the node's other moves go to the threads as they come free. The threads share the table
/// (lock-free entries, [`Slot`]): what one proves, the others find. Every bound is proven, so
/// the answer is the exact score on any number of threads; only which of several equally good
/// moves comes back can vary. With one thread it is [`Solver::solve`].
///
/// ```
/// use tabletop::games::reversi::rules::Reversi;
/// use tabletop::games::reversi::solver::{ParallelSolver, Solver};
/// let line = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X";
/// let position: Reversi = line.parse().unwrap();
/// let mut two = ParallelSolver::try_new(2, 16).unwrap();
/// assert_eq!(two.solve(&position).score, Solver::new(16).solve(&position).score);
/// ```
pub struct ParallelSolver {
    solvers: Vec<Solver>,
}

impl ParallelSolver {
    /// `threads` solvers (at least one) sharing a table of `2^bits` entries' memory.
    pub fn try_new(threads: usize, bits: u32) -> Result<ParallelSolver, TableAllocError> {
        let mut solver = ParallelSolver { solvers: vec![Solver::try_new(bits)?] };
        solver.set_threads(threads)?;
        Ok(solver)
    }

    /// Solves on `threads` threads (at least one) from now on, the table kept.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), TableAllocError> {
        let threads = threads.max(1);
        self.solvers.truncate(threads);
        while self.solvers.len() < threads {
            let helper = self.solvers[0].try_sharing()?;
            self.solvers.push(helper);
        }
        Ok(())
    }

    /// The number of threads.
    pub fn threads(&self) -> usize {
        self.solvers.len()
    }

    /// Takes the other threads' solvers out (the solves are then on one thread) until
    /// [`ParallelSolver::rejoin`] puts them back.
    pub(super) fn split_off_helpers(&mut self) -> Vec<Solver> {
        self.solvers.split_off(1)
    }

    /// Puts back the solvers [`ParallelSolver::split_off_helpers`] took.
    pub(super) fn rejoin(&mut self, helpers: Vec<Solver>) {
        self.solvers.extend(helpers);
    }

    /// Empties the tables.
    pub fn clear(&mut self) {
        self.solvers[0].table.clear();
        self.solvers.iter().for_each(|s| s.near.clear());
    }

    /// Stops every thread at `deadline` (see [`Solver::set_deadline`]).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.solvers.iter_mut().for_each(|s| s.deadline = deadline);
    }

    /// Did the last search run out of time?
    pub fn stopped(&self) -> bool {
        self.solvers.iter().any(|s| s.stopped)
    }

    /// Readies every thread for a new search.
    fn start(&mut self) {
        for solver in &mut self.solvers {
            solver.nodes = 0;
            solver.cut_offs = 0;
            solver.stopped = false;
            solver.checks_until_clock = 0;
        }
    }

    /// The exact score of `position` for the side to move, and a best move; the nodes are
    /// those of every thread.
    pub fn solve(&mut self, position: &Reversi) -> Solution {
        self.solve_window(position, -64, 64).expect("no deadline set")
    }

    /// [`Solver::solve_window`] on every thread: with more than one, the exact score whatever
    /// the window (which it satisfies). `None` if the deadline passed.
    pub fn solve_window(&mut self, position: &Reversi, alpha: i32, beta: i32) -> Option<Solution> {
        if self.solvers.len() == 1 {
            return self.solvers[0].solve_window(position, alpha, beta);
        }
        self.start();
        let (p, o) = position.player_opponent();
        let empties = 64 - (p | o).count_ones();
        // MTD(f) as on one thread, the selective stages first, each null-window search split
        // among the threads (`split_nws`).
        let mut guess = first_guess(p, o);
        if empties >= self.solvers[0].selective_from {
            for level in 0..STAGE_T.len() as u8 {
                self.solvers.iter_mut().for_each(|s| s.level = level);
                guess = parallel_mtd(&mut self.solvers, p, o, guess, empties);
                if self.stopped() {
                    break;
                }
            }
            self.solvers.iter_mut().for_each(|s| s.level = EXACT);
        }
        if self.stopped() {
            return None;
        }
        let score = parallel_mtd(&mut self.solvers, p, o, guess, empties);
        if self.stopped() {
            return None;
        }
        let best = self.solvers[0].best_move(p, o, score);
        if self.stopped() {
            return None;
        }
        Some(Solution { score, best, nodes: self.solvers.iter().map(|s| s.nodes).sum() })
    }

    /// [`Solver::solve_outcome_from`], on the first thread (with the shared table).
    pub fn solve_outcome_from(
        &mut self,
        position: &Reversi,
        prefer: Option<ReversiMove>,
        stage: Option<usize>,
    ) -> Option<OutcomeSolution> {
        self.solvers[0].solve_outcome_from(position, prefer, stage)
    }

    /// [`Solver::solve_all`] with the moves shared among the threads (the same scores, in
    /// the same order, on any number of threads). With a deadline, check
    /// [`ParallelSolver::stopped`] afterwards.
    pub fn solve_all(&mut self, position: &Reversi) -> Vec<(ReversiMove, i32)> {
        let (p, o) = position.player_opponent();
        let m = moves(p, o);
        if self.solvers.len() == 1 || m.count_ones() < 2 {
            return self.solvers[0].solve_all(position);
        }
        self.start();
        let empties = 64 - (p | o).count_ones();
        let squares: Vec<usize> = Bits(m).collect();
        let next = AtomicUsize::new(0);
        let flag = crate::cancel::current();
        let mut scored: Vec<(usize, i32)> = std::thread::scope(|scope| {
            let workers: Vec<_> = self
                .solvers
                .iter_mut()
                .map(|solver| {
                    let (next, squares, flag) = (&next, &squares, flag.clone());
                    scope.spawn(move || {
                        let mut work = || {
                            let mut found = Vec::new();
                            while let Some(&sq) = squares.get(next.fetch_add(1, Ordering::Relaxed)) {
                                let f = flips(p, o, sq);
                                let v = -solver.mtd(o & !f, p | f | (1 << sq), -64, 64, empties - 1);
                                if solver.stopped {
                                    break;
                                }
                                found.push((sq, v));
                            }
                            found
                        };
                        match flag {
                            Some(flag) => crate::cancel::run_cancellable(&flag, work),
                            None => work(),
                        }
                    })
                })
                .collect();
            workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
        });
        // The order of Solver::solve_all: by square, then best first (a stable sort).
        scored.sort_by_key(|&(sq, _)| sq);
        let mut out: Vec<(ReversiMove, i32)> =
            scored.into_iter().filter_map(|(sq, v)| Some((ReversiMove::Place(Square::from_index(sq)?), v))).collect();
        out.sort_by_key(|(_, v)| -v);
        out
    }

    /// The nodes of every thread in the last call.
    pub fn nodes(&self) -> u64 {
        self.solvers.iter().map(|s| s.nodes).sum()
    }
}

/// MTD(f) at the solvers' level from `guess`, every null-window search split among the threads.
fn parallel_mtd(solvers: &mut [Solver], p: u64, o: u64, mut guess: i32, empties: u32) -> i32 {
    let (mut lower, mut upper) = (-64, 64);
    while lower < upper {
        let test = guess.clamp(lower + 1, upper);
        let v = split_nws(solvers, p, o, test - 1, empties);
        if solvers.iter().any(|s| s.stopped) {
            return 0;
        }
        if v >= test {
            lower = v;
            guess = v + 1;
        } else {
            upper = v;
            guess = v;
        }
    }
    upper
}

/// [`Solver::nws`] on every thread (young brothers wait): from [`SPLIT_MIN`] empties, a node's
/// first move is searched first (split in the same way); if it does not cut, the node's other
/// moves go to the threads as they come free (once one cuts, the others take no new move).
/// Fail-soft, as `nws`; the result is stored in the shared table.
fn split_nws(solvers: &mut [Solver], p: u64, o: u64, alpha: i32, empties: u32) -> i32 {
    let m = moves(p, o);
    if empties < SPLIT_MIN || m == 0 {
        return solvers[0].nws(p, o, alpha, empties);
    }
    solvers[0].nodes += 1;
    let level = if empties >= CUT_MIN { solvers[0].level } else { EXACT };
    let mut hash_move = 64;
    if let Some(e) = solvers[0].table.probe(p, o) {
        if e.level >= level {
            if e.lower as i32 > alpha {
                return e.lower as i32;
            }
            if e.upper as i32 <= alpha {
                return e.upper as i32;
            }
        }
        hash_move = e.best;
    }
    let mut list = [(0u8, 0i32, 0u64, 0u64); 32];
    let n = solvers[0].order(p, o, m, empties, hash_move, &mut list);
    let list = &mut list[..n];
    list.sort_by_key(|e| e.1);
    let (sq, _, f, _) = list[0];
    let first = -split_nws(solvers, o & !f, p | f | (1 << sq), -alpha - 1, empties - 1);
    if solvers.iter().any(|s| s.stopped) {
        return 0;
    }
    // Score and square in one word, so that `fetch_max` keeps the best pair.
    let pack = |score: i32, sq: u8| ((score + 65) as u32) << 8 | sq as u32;
    let best = AtomicU32::new(pack(first, sq));
    if first <= alpha && n > 1 {
        let next = AtomicUsize::new(1);
        let flag = crate::cancel::current();
        std::thread::scope(|scope| {
            for solver in solvers.iter_mut() {
                let (best, next, list, flag) = (&best, &next, &*list, &flag);
                scope.spawn(move || {
                    let mut work = || {
                        while let Some(&(sq, _, f, _)) = list.get(next.fetch_add(1, Ordering::Relaxed)) {
                            if (best.load(Ordering::Relaxed) >> 8) as i32 - 65 > alpha {
                                // Another move cut: the node is decided.
                                return;
                            }
                            let v = -solver.nws(o & !f, p | f | (1 << sq), -alpha - 1, empties - 1);
                            if solver.stopped {
                                return;
                            }
                            best.fetch_max(pack(v, sq), Ordering::Relaxed);
                        }
                    };
                    match flag {
                        Some(flag) => crate::cancel::run_cancellable(flag, work),
                        None => work(),
                    }
                });
            }
        });
    }
    if solvers.iter().any(|s| s.stopped) {
        return 0;
    }
    let best = best.into_inner();
    let (value, sq) = ((best >> 8) as i32 - 65, (best & 0xFF) as u8);
    solvers[0].table.store(p, o, empties, level, (alpha, alpha + 1), value, sq);
    value
}

/// MTD(f)'s first guess: a shallow search on the pattern evaluation, as a score rounded to an
/// even number.
fn first_guess(p: u64, o: u64) -> i32 {
    let estimate = shallow(p, o, GUESS_DEPTH, -100_000, 100_000) * PATTERN_SCALE / 100;
    estimate.clamp(-64, 64) & !1
}

/// The pattern evaluation (hundredths of a disc) is divided by this for the ordering key, where
/// it weighs against the mobility terms (FFO #40-#49, one thread, with the shallow depths of
/// [`SHALLOW_OFFSET`]: 8: 778 M nodes; 16: 746 M; 32: 701 M, 26.1 s; 48: 746 M; 64: 861 M).
const PATTERN_SCALE: i32 = 32;

/// A depth-limited alpha-beta on the built-in pattern evaluation (divided by
/// [`PATTERN_SCALE`], finished games worth 1000 per disc), for ordering moves far from the end.
#[inline]
fn shallow(p: u64, o: u64, depth: u32, alpha: i32, beta: i32) -> i32 {
    eval_search(PatternWeights::builtin(), p, o, depth, alpha, beta, PATTERN_SCALE, 1000)
}

/// The value of a `depth`-ply search on the pattern evaluation in hundredths of a disc
/// (finished games exact), as the endgame ProbCut's shallow search computes it: the
/// predictor its parameters are fitted on (`tuning::fit_endcut`).
///
/// ```
/// use tabletop::games::reversi::{patterns::PatternWeights, solver::cut_value, Reversi};
/// let start = Reversi::default();
/// let (p, o) = start.player_opponent();
/// let w = PatternWeights::builtin();
/// assert_eq!(cut_value(w, p, o, 0), w.evaluate(p, o));
/// ```
pub fn cut_value(weights: &PatternWeights, p: u64, o: u64, depth: u32) -> i32 {
    eval_search(weights, p, o, depth, -100_000, 100_000, 1, 100)
}

/// Alpha-beta to `depth` plies on `weights`' evaluation divided by `scale`; a finished game is
/// worth `win` per disc.
#[allow(clippy::too_many_arguments)]
fn eval_search(
    weights: &PatternWeights,
    p: u64,
    o: u64,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    scale: i32,
    win: i32,
) -> i32 {
    if depth == 0 {
        return weights.evaluate(p, o) / scale;
    }
    let m = moves(p, o);
    if m == 0 {
        if moves(o, p) == 0 {
            return final_score(p, o) * win;
        }
        return -eval_search(weights, o, p, depth - 1, -beta, -alpha, scale, win);
    }
    // From 3 plies, the opponent's fewest replies first, for earlier cut-offs.
    let mut list = [(0i32, 0u8, 0u64); 32];
    let mut n = 0;
    for sq in Bits(m) {
        let f = flips(p, o, sq);
        let key = if depth >= 3 { moves(o & !f, p | f | (1 << sq)).count_ones() as i32 } else { 0 };
        list[n] = (key, sq as u8, f);
        n += 1;
    }
    let list = &mut list[..n];
    if depth >= 3 {
        list.sort_unstable_by_key(|e| e.0);
    }
    let mut best = -1_000_000;
    for &(_, sq, f) in list.iter() {
        let v = -eval_search(weights, o & !f, p | f | (1 << sq), depth - 1, -beta, -alpha, scale, win);
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

/// The score with one empty square left, `sq` (every other square is occupied).
#[inline]
fn last_one(p: u64, o: u64, sq: usize) -> i32 {
    let mine = p.count_ones() as i32;
    let n = last_flip_count(p, sq) as i32;
    if n != 0 {
        return 2 * (mine + n + 1) - 64;
    }
    let n = last_flip_count(o, sq) as i32;
    if n != 0 {
        return 2 * (mine - n) - 64;
    }
    // Nobody can play: the empty square goes to the winner.
    final_score(p, o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, TwoPlayer};
    use crate::search::{NoEvaluation, NoOrdering, Options, Search};

    /// A seeded random game played down to `empties` empty squares; `None` if it ended first.
    fn random_game(rng: &mut rand_chacha::ChaCha8Rng, empties: u32) -> Option<Reversi> {
        use rand::Rng;
        let mut pos = Reversi::new();
        let mut list = Vec::new();
        while pos.open_squares() > empties && !pos.is_over() {
            pos.legal_moves(&mut list);
            pos.play_unchecked(list[rng.gen_range(0..list.len())]);
        }
        (!pos.is_over()).then_some(pos)
    }

    #[test]
    fn a_deadline_already_passed_stops_the_solve_at_its_first_node() {
        // 20 empties: thousands of nodes to solve. The clock was read only when the node count
        // hit a multiple of 4096, which the small solves' counts could step over: a solve
        // stopped that late overran 75 ms deadlines by up to 21 ms.
        let pos: Reversi = "---OOO----OOOOX--XOOOXX-XXOXOOXXOOOOOXXO--OOXXXO--XXOO----XXOO-- X".parse().unwrap();
        assert_eq!(pos.open_squares(), 20);
        let mut solver = Solver::new(16);
        solver.set_deadline(Some(Instant::now()));
        assert_eq!(solver.solve_window(&pos, -64, 64), None);
        assert!(solver.nodes() < 64, "{} nodes searched after the deadline", solver.nodes());
    }

    #[test]
    fn a_solve_stopped_at_any_point_answers_nothing_or_a_move_that_reaches_its_score() {
        // Stopped searches answer 0 as they unwind; one stopped while finding the best move
        // after the score must not offer the move that 0 seemed to prove.
        let mut exact = Solver::new(16);
        let mut checked = 0;
        let pos: Reversi = "---OOOXOO-OOOXX--OOOXOX-XXOXOOXXXOOOOXXOX-OOXXXO--XXOX----XXXXX- O".parse().unwrap();
        // A table of 16 entries: the root's entry is soon replaced, so the best move is
        // searched for after the score.
        let mut solver = Solver::new(4);
        solver.stop_after_checks = Some(u64::MAX);
        let full = solver.solve(&pos);
        let checks = u64::MAX - solver.stop_after_checks.unwrap_or(0);
        // The second half holds the search for the best move; past the end, nothing stops.
        for stop in checks / 2..checks + 2 {
            solver.clear();
            solver.stop_after_checks = Some(stop);
            if let Some(solution) = solver.solve_window(&pos, -64, 64) {
                assert_eq!(solution.score, full.score, "stopped after {stop} checks");
                let Some(ReversiMove::Place(sq)) = solution.best else { panic!("no move") };
                let mut child = pos;
                child.play(ReversiMove::Place(sq)).unwrap();
                let value = -exact.solve(&child).score;
                assert_eq!(value, full.score, "stopped after {stop} of {checks} checks: {sq} reaches {value}");
                checked += 1;
            }
        }
        assert!(checked > 0);
    }

    #[test]
    fn a_bucket_keeps_its_deep_entries_and_finds_what_was_stored() {
        // One bucket: every position lands in it.
        let table = Table::try_new(1).expect("a tiny table");
        assert_eq!(table.buckets.len(), 1);
        let position = |i: u64| (i + 1, (i + 1) << 40);
        let store = |table: &Table, i: u64, empties: u32| {
            let (p, o) = position(i);
            table.store(p, o, empties, EXACT, (0, 1), 2 * i as i32, i as u8);
        };
        store(&table, 0, 20);
        for i in 2..40 {
            store(&table, i, 10);
            // The one just stored is found, with its bounds and move.
            let (p, o) = position(i);
            let e = table.probe(p, o).expect("the last position stored");
            assert_eq!((e.lower as i32, e.upper as i32, e.best), (2 * i as i32, 64, i as u8));
        }
        // The deep entry survived 38 shallow ones.
        let (p, o) = position(0);
        assert_eq!(table.probe(p, o).map(|e| e.empties as u32), Some(20));
        // A deeper one takes the place of the shallowest.
        store(&table, 50, 19);
        assert!(table.probe(position(50).0, position(50).1).is_some());
        assert!(table.probe(position(39).0, position(39).1).is_none());
    }

    #[test]
    fn the_memory_figure_is_what_the_tables_hold() {
        for bits in [4, 12, 20] {
            let solver = Solver::try_new(bits).expect("memory");
            let bytes = (solver.table.buckets.len() + solver.near.buckets.len()) * std::mem::size_of::<Bucket>();
            assert_eq!(Solver::memory_bytes(bits), bytes as u64);
            assert!(solver.table.buckets.len() * 3 >= 1 << bits);
        }
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
    }

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

    #[test]
    fn the_outcome_solve_agrees_with_the_exact_score_and_its_move_keeps_it() {
        // Seeded random games stopped at 12-20 empties, some drawn, some with a pass to come.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let (mut exact, mut wld) = (Solver::new(18), Solver::new(18));
        let mut seen = [0; 3];
        let mut checked = 0;
        while checked < 150 {
            let stop = rng.gen_range(12..=20);
            let Some(pos) = random_game(&mut rng, stop) else { continue };
            let score = exact.solve(&pos).score;
            let got = wld.solve_outcome(&pos).expect("no deadline");
            assert_eq!(got.outcome, Outcome::of(score), "{pos}: exact {score}");
            seen[got.outcome as usize] += 1;
            match got.best {
                Some(mv) => {
                    assert!(score >= 0, "{pos}: a move offered in a lost position");
                    let mut child = pos;
                    child.play(mv).unwrap();
                    // The child's side to move is the opponent (who may have to pass).
                    let kept = -exact.solve(&child).score;
                    assert_eq!(Outcome::of(kept), got.outcome, "{pos}: {mv} reaches {kept}, the position {score}");
                }
                None => assert!(score < 0, "{pos}: no move offered for {score}"),
            }
            checked += 1;
        }
        assert!(seen.iter().all(|&n| n > 0), "losses, draws, wins: {seen:?}");
    }

    #[test]
    fn likely_outcomes_cut_and_mostly_agree_with_the_proof_and_the_preferred_move_comes_first() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let mut solver = Solver::new(18);
        let mut list = Vec::new();
        let (mut agree, mut positions, mut cut_offs) = ([0; STAGE_T.len()], 0, 0);
        let (mut preferred, mut with_move) = (0, 0);
        while positions < 40 {
            let Some(pos) = random_game(&mut rng, 18).filter(|pos| pos.placements() != 0) else { continue };
            let proven = solver.solve_outcome(&pos).expect("no deadline");
            for (stage, agreed) in agree.iter_mut().enumerate() {
                solver.clear();
                let likely = solver.solve_outcome_from(&pos, None, Some(stage)).expect("no deadline");
                cut_offs += solver.cut_offs;
                *agreed += usize::from(likely.outcome == proven.outcome);
                if let Some(mv) = likely.best {
                    pos.legal_moves(&mut list);
                    assert!(list.contains(&mv), "{pos}: {mv}");
                }
            }
            // A move that keeps the outcome, given first, is the one answered.
            if let Some(best) = proven.best {
                with_move += 1;
                pos.legal_moves(&mut list);
                let other = list.iter().copied().find(|&mv| mv != best);
                for prefer in [Some(best), other] {
                    let got = solver.solve_outcome_from(&pos, prefer, None).expect("no deadline");
                    assert_eq!(got.outcome, proven.outcome);
                    let mut child = pos;
                    let Some(mv) = prefer else { continue };
                    child.play(mv).unwrap();
                    let keeps = Outcome::of(-solver.solve(&child).score) == proven.outcome;
                    assert_eq!(got.best == prefer, keeps, "{pos}: {mv} keeps the outcome: {keeps}");
                    preferred += usize::from(keeps);
                }
            }
            positions += 1;
        }
        // Selective stages cut (so they are not the proof again), are right nearly always,
        // and more often the higher their confidence.
        assert!(cut_offs > 100, "{cut_offs} cut-offs");
        assert!(agree[STAGE_T.len() - 1] >= 36 && agree[STAGE_T.len() - 1] >= agree[0], "{agree:?} of {positions}");
        // Each proof's own move keeps it, and some of the other moves given first do too.
        assert!(preferred > with_move, "{preferred} of {with_move}");
    }

    #[test]
    fn an_outcome_solve_past_its_deadline_answers_nothing() {
        let pos: Reversi = "---OOO----OOOOX--XOOOXX-XXOXOOXXOOOOOXXO--OOXXXO--XXOO----XXOO-- X".parse().unwrap();
        let mut solver = Solver::new(16);
        solver.set_deadline(Some(Instant::now()));
        assert_eq!(solver.solve_outcome(&pos), None);
        solver.set_deadline(None);
        assert!(solver.solve_outcome(&pos).is_some());
    }

    #[test]
    fn selective_stages_give_the_exact_score() {
        // The built-in cuts, and deliberately bad ones (no margin, a biased line) that cut
        // often and wrongly: the stages' bounds must never decide the exact answer.
        let bad: &'static [Option<CutParams>; 61] = Box::leak(Box::new(std::array::from_fn(|e| {
            Some(CutParams { shallow: cut_shallow(e as u32), a: 1.0, b: 300.0, sigma: 0.0 })
        })));
        let mut exact = Solver::new(18);
        exact.set_selective_from(61);
        for (name, cuts) in [("built-in", builtin_cuts()), ("bad", bad)] {
            let mut selective = Solver::new(18);
            selective.cuts = cuts;
            selective.set_selective_from(CUT_MIN);
            let mut cut_offs = 0;
            let positions = crate::games::reversi::accuracy::positions(12, 23, 14..=18).expect("positions");
            for pos in positions {
                let expected = exact.solve(&pos).score;
                let got = selective.solve(&pos);
                cut_offs += selective.cut_offs;
                assert_eq!(got.score, expected, "{name} cuts: {pos}");
                let mut child = pos;
                child.play_unchecked(got.best.unwrap());
                assert_eq!(-exact.solve(&child).score, expected, "{name} cuts: best move of {pos}");
            }
            // The stages did cut, so the test exercises them.
            assert!(cut_offs > 100, "{name} cuts: only {cut_offs} cut-offs");
        }
        assert_eq!(exact.cut_offs, 0);
    }

    #[test]
    fn parallel_solves_agree_with_one_thread() {
        // Positions of 16-19 empties (so the first nodes are split), from seeded random games.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        let mut one = Solver::new(18);
        let (mut two, mut three) = (ParallelSolver::try_new(2, 18).unwrap(), ParallelSolver::try_new(3, 16).unwrap());
        // With the selective stages (from 20 empties by default) at these sizes too.
        two.solvers.iter_mut().for_each(|s| s.set_selective_from(CUT_MIN));
        one.set_selective_from(61);
        let mut checked = 0;
        while checked < 8 {
            let empties = rng.gen_range(SPLIT_MIN..=SPLIT_MIN + 3);
            let Some(pos) = random_game(&mut rng, empties) else { continue };
            let expected = one.solve(&pos).score;
            // Two threads from a fresh table, then three on a table kept from position to
            // position (entries of earlier solves, shared, must not change an answer).
            two.clear();
            for (threads, got) in [(2, two.solve(&pos)), (3, three.solve(&pos))] {
                assert_eq!(got.score, expected, "{pos} on {threads} threads");
                let mut child = pos;
                child.play_unchecked(got.best.unwrap());
                assert_eq!(-one.solve(&child).score, expected, "best move of {pos} on {threads} threads");
                assert!(got.nodes > 0);
            }
            checked += 1;
        }
    }

    #[test]
    fn every_move_solved_on_several_threads_scores_as_on_one() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let (mut one, mut two) = (Solver::new(18), ParallelSolver::try_new(2, 18).unwrap());
        let mut checked = 0;
        while checked < 6 {
            let empties = rng.gen_range(12..=15);
            let Some(pos) = random_game(&mut rng, empties) else { continue };
            let expected = one.solve_all(&pos);
            let got = two.solve_all(&pos);
            assert!(!two.stopped());
            // The same moves, the same scores, the same order (ties by square).
            assert_eq!(got, expected, "{pos}");
            checked += 1;
        }
    }

    #[test]
    fn a_parallel_solve_past_its_deadline_answers_nothing() {
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(31);
        let pos = std::iter::repeat_with(|| random_game(&mut rng, 22)).flatten().next().expect("a position");
        let mut two = ParallelSolver::try_new(2, 16).unwrap();
        two.set_deadline(Some(Instant::now()));
        assert!(two.solve_window(&pos, -64, 64).is_none());
        assert!(two.stopped());
        two.set_deadline(None);
    }
}
