//! The exact Connect-N solver.
//!
//! Scores follow Pascal Pons' convention, from the side to move: a win on the side's `k`-th
//! own piece scores `(W*H+1)/2 + 1 - k` (for an even number of cells that is `W*H/2 + 1 - k`),
//! a draw 0, a loss the negative of the winner's score.
//!
//! Techniques: the bitboard of [`rules`](super::rules); fail-soft negamax with alpha-beta; the
//! exact score found by a sequence of null-window searches (Pons' iterative narrowing, tilted
//! away from 0; near the start, 0 first and then steps of one); a transposition table of packed
//! 64-bit entries (exact keys, a bound, the best move and the work done) shared between
//! threads and kept across positions (every entry is a true bound of an absolute score, so it
//! stays valid), with huge pages, and a small table private to each thread for the nodes near
//! the end (it stays in the core's cache); mirror symmetry (a position and its mirror share
//! one entry); moves that lose at once are never explored (never under an opponent threat);
//! forced blocks are played out without a node of their own (no table probe, no ordering:
//! chains of forced moves, as in Steininger's c4); the bound "no win within two of one's own
//! moves" (a move that makes two playable or stacked threats, or leaves the opponent only
//! moves under one's threats, wins at once; otherwise the best is a win with the third
//! stone); the stored best move first, then by the useful threats a move creates (not
//! directly above an opponent's threat; playable ones weigh 12, one stone higher 5, any 3),
//! moves under one's own threat last, ties broken centre first (early on, by the lines
//! through the cell); enhanced transposition cut-offs (through the children's chains of
//! forced moves); claimeven bounds both ways with the columns of an odd number of empty
//! cells paired (an even number of empty cells: the opponent answers on top, or in another
//! odd column, and the side to move gets at most the claim rows and the cells playable now;
//! an odd number: the side to move first plays in an odd column, then answers so); and
//! parallel solves that split a node's moves between threads
//! once its first move has not cut.
//!
//! ```
//! use tabletop::games::connect::solver::Solver;
//! use tabletop::games::connect::{Connect, ConnectVariant};
//! use tabletop::Game;
//! let v = ConnectVariant::connect4();
//! let mut solver = Solver::new(v, 1 << 20);
//! let p = Connect::from_notation(&v, "2252576253462244111563365343671351441").unwrap();
//! assert_eq!(solver.solve(&p), -1);
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::rules::{has_line, winning_cells, winning_cells4, Column, Connect, ConnectVariant};
use crate::game::Game;
use crate::memory::{try_large_vec, TableAllocError};

/// A transposition table of exact bounds, shareable between threads.
///
/// Each entry is one `u64`: a check value (46 bits), a priority (6 bits: the log2 of the
/// nodes the search below it took), the best move found (4 bits, 0 for none) and the bound
/// (8 bits). The table has a power of two entries; a key of `k` bits is mixed by a
/// multiplication modulo `2^k` (a bijection), the top bits of the product index a pair of
/// slots and the low bits are the check value, so a hit is exact. Of the two slots of a key,
/// the first keeps the entry that took the most work, the second always takes the newest.
#[derive(Debug)]
pub struct Table {
    entries: Vec<AtomicU64>,
    /// The bits a key may use.
    key_mask: u64,
    /// Bits of the check value (the key bits that the index does not give).
    check_bits: u32,
}

/// The size in bytes of the shared table a solver for `variant` allocates when asked for
/// `entries` entries (a power of two of 8-byte entries; see [`Table::new`]).
pub fn table_bytes(variant: ConnectVariant, entries: usize) -> u64 {
    Table::bytes_for(entries, Solver::key_bits(variant))
}

/// Bits of the check value of an entry.
const CHECK_BITS: u32 = 46;
const CHECK_SHIFT: u32 = 18;
const PRIORITY_SHIFT: u32 = 12;
const MOVE_SHIFT: u32 = 8;

impl Table {
    /// A table of about `entries` entries (8 bytes each; rounded down to a power of two, at
    /// least 131,072, more for keys of over 62 bits) for keys of `key_bits` bits.
    ///
    /// Panics if the memory cannot be allocated; [`Table::try_new`] returns an error instead.
    pub fn new(entries: usize, key_bits: u32) -> Self {
        Table::try_new(entries, key_bits).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table as [`Table::new`], or an error when the memory cannot be allocated.
    ///
    /// ```
    /// use tabletop::games::connect::solver::Table;
    /// assert_eq!(Table::try_new(1 << 20, 49).unwrap().bytes(), 8 << 20);
    /// assert!(Table::try_new(1 << 60, 49).is_err());
    /// ```
    pub fn try_new(entries: usize, key_bits: u32) -> Result<Self, TableAllocError> {
        Table::try_sized(entries, 17, key_bits)
    }

    /// A table for the solvers of `variant` ([`Table::try_new`] with the variant's key bits),
    /// after checking that it fits in the memory available
    /// ([`ensure_available`](crate::memory::ensure_available)).
    ///
    /// ```
    /// use tabletop::games::connect::solver::Table;
    /// use tabletop::games::connect::ConnectVariant;
    /// assert!(Table::try_for(ConnectVariant::connect4(), 1 << 16).is_ok());
    /// assert!(Table::try_for(ConnectVariant::connect4(), 1 << 50).is_err());
    /// ```
    pub fn try_for(variant: ConnectVariant, entries: usize) -> Result<Self, TableAllocError> {
        crate::memory::ensure_available(table_bytes(variant, entries))?;
        Table::try_new(entries, Solver::key_bits(variant))
    }

    /// The number of entries of a table asked for with `entries` entries, at least
    /// `2^min_bits` (more for long keys), and the key's check bits.
    fn size_bits(entries: usize, min_bits: u32, key_bits: u32) -> u32 {
        let entries = entries.max(1 << min_bits) as u64;
        let key_bits = key_bits.clamp(1, 64);
        // The index gives `bits - 1` bits of the mixed key; the rest must fit the check.
        (63 - entries.leading_zeros()).max(min_bits).max((key_bits + 1).saturating_sub(CHECK_BITS))
    }

    /// The size in bytes of `Table::new(entries, key_bits)`, without allocating it.
    pub fn bytes_for(entries: usize, key_bits: u32) -> u64 {
        8u64.saturating_mul(1u64 << Table::size_bits(entries, 17, key_bits))
    }

    /// A table of about `entries` entries, at least `2^min_bits` (more for long keys).
    fn try_sized(entries: usize, min_bits: u32, key_bits: u32) -> Result<Self, TableAllocError> {
        let bits = Table::size_bits(entries, min_bits, key_bits);
        let key_bits = key_bits.clamp(1, 64);
        let size = usize::try_from(1u64 << bits).map_err(|_| TableAllocError {
            bytes: 8u128 << bits,
            reason: "the size exceeds the address space".into(),
        })?;
        let entries = try_large_vec(size, || AtomicU64::new(0))?;
        let key_mask = if key_bits < 64 { (1u64 << key_bits) - 1 } else { u64::MAX };
        Ok(Table { entries, key_mask, check_bits: (key_bits + 1).saturating_sub(bits).max(1) })
    }

    /// A small table of fixed size (panics only if the system has no memory left at all).
    fn sized(entries: usize, min_bits: u32, key_bits: u32) -> Self {
        Table::try_sized(entries, min_bits, key_bits).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a table has at least 131,072 entries.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The size in bytes.
    pub fn bytes(&self) -> usize {
        self.len() * 8
    }

    /// Empties the table (only needed to measure a cold solve: entries never go stale).
    pub fn clear(&self) {
        self.entries.iter().for_each(|e| e.store(0, Ordering::Relaxed));
    }

    /// The first of the two slots of a key, and what the entry stores to check a hit.
    #[inline]
    fn slot(&self, key: u64) -> (usize, u64) {
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mixed = mixed & self.key_mask;
        let index = (mixed >> self.check_bits) << 1;
        (index as usize, mixed & ((1u64 << self.check_bits) - 1))
    }

    /// The bound stored for `key` (0 for none) and the best move stored (0 for none, else the
    /// column plus one).
    #[inline]
    fn get(&self, key: u64) -> (u8, u8) {
        let (i, check) = self.slot(key);
        for e in [self.entries[i].load(Ordering::Relaxed), self.entries[i + 1].load(Ordering::Relaxed)] {
            if e >> CHECK_SHIFT == check {
                return ((e & 0xff) as u8, ((e >> MOVE_SHIFT) & 0xf) as u8);
            }
        }
        (0, 0)
    }

    /// Stores a bound and a best move (0 for none: then the move stored before is kept).
    #[inline]
    fn put(&self, key: u64, value: u8, mut best: u8, priority: u32) {
        let (i, check) = self.slot(key);
        let first = self.entries[i].load(Ordering::Relaxed);
        let second = self.entries[i + 1].load(Ordering::Relaxed);
        let priority = priority.min(63) as u64;
        let same_first = first >> CHECK_SHIFT == check;
        if best == 0 {
            let old = if same_first {
                first
            } else if second >> CHECK_SHIFT == check {
                second
            } else {
                0
            };
            best = ((old >> MOVE_SHIFT) & 0xf) as u8;
        }
        let entry = check << CHECK_SHIFT | priority << PRIORITY_SHIFT | (best as u64) << MOVE_SHIFT | value as u64;
        if same_first || priority >= (first >> PRIORITY_SHIFT) & 63 {
            self.entries[i].store(entry, Ordering::Relaxed);
        } else {
            self.entries[i + 1].store(entry, Ordering::Relaxed);
        }
    }
}

/// Board geometry shared by every node of a search.
#[derive(Clone, Debug)]
struct Geometry {
    variant: ConnectVariant,
    width: usize,
    height: usize,
    line: usize,
    cells: i32,
    bottom: u64,
    board: u64,
    columns: [u64; 9],
    order: [usize; 9],
    min_score: i32,
    max_score: i32,
    /// For each cell (bit index), the number of lines through it on an empty board.
    cell_value: [i32; 64],
    /// The cells at the rows where the first empty cell of a column lies when the column has
    /// an even number of empty cells (its first, third, ... empty cells then lie on them).
    claim_rows: u64,
}

impl Geometry {
    fn new(v: ConnectVariant) -> Self {
        let width = v.width();
        let mut columns = [0u64; 9];
        for (c, m) in columns.iter_mut().enumerate().take(width) {
            *m = v.column_mask(c);
        }
        // Centre first, then alternately left and right of it.
        let mut order = [0usize; 9];
        for (i, o) in order.iter_mut().enumerate().take(width) {
            let (w, i) = (width as i64, i as i64);
            *o = (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as usize;
        }
        let cells = v.cells() as i32;
        let height = v.height();
        let mut claim_rows = 0u64;
        for c in 0..width {
            for r in (height % 2..height).step_by(2) {
                claim_rows |= 1u64 << (c * (height + 1) + r);
            }
        }
        let mut cell_value = [0i32; 64];
        let (w, h, n) = (width as i64, height as i64, v.line() as i64);
        for c in 0..w {
            for r in 0..h {
                let inside = |c: i64, r: i64| (0..w).contains(&c) && (0..h).contains(&r);
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    // Lines through (c, r) start k cells before it.
                    for k in 0..n {
                        let (c0, r0) = (c - k * dc, r - k * dr);
                        if inside(c0, r0) && inside(c0 + (n - 1) * dc, r0 + (n - 1) * dr) {
                            cell_value[(c * (h + 1) + r) as usize] += 1;
                        }
                    }
                }
            }
        }
        Geometry {
            variant: v,
            cell_value,
            claim_rows,
            width,
            height: v.height(),
            line: v.line(),
            cells,
            bottom: v.bottom_mask(),
            board: v.board_mask(),
            columns,
            order,
            min_score: -cells / 2,
            max_score: (cells + 1) / 2,
        }
    }

    #[inline]
    fn winning(&self, stones: u64, v: ConnectVariant) -> u64 {
        if self.line == 4 {
            winning_cells4(stones, self.height) & self.board
        } else {
            winning_cells(stones, v)
        }
    }

    /// Does `stones` hold a whole line?
    #[inline]
    fn has_line(&self, stones: u64, v: ConnectVariant) -> bool {
        if self.line == 4 {
            let h = self.height;
            for s in [1, h + 1, h, h + 2] {
                let m = stones & (stones >> s);
                if m & (m >> (2 * s)) != 0 {
                    return true;
                }
            }
            false
        } else {
            has_line(stones, v)
        }
    }

    /// Claimeven with paired odd columns (as in Steininger's c4, for any height): when the
    /// number of empty cells is even, the opponent of the side to move can answer a move in a
    /// column with an even number of empty cells on top of it, and a move in a column with
    /// an odd number in another such column (there is always one: their number is even). So
    /// the opponent gets every empty cell off the claim rows except those playable now, and
    /// the side to move at most the rest. If the side's stones and those cells hold no line,
    /// the side to move cannot win: its score is at most 0, and at most -1 if the opponent's
    /// cells hold a line (it completes it). `None` when the rule does not apply.
    ///
    /// When every column has an even number of empty cells this is plain claimeven; the odd
    /// columns make it apply at every node with an even number of empty cells (the empty
    /// 7x6 board: 187.1 M -> 146.8 M nodes).
    #[inline]
    fn claimeven_upper(&self, cur: u64, mask: u64, possible: u64) -> Option<i32> {
        if (self.cells - mask.count_ones() as i32) % 2 != 0 {
            return None;
        }
        let opponent_cells = (cur ^ mask) | (self.board & !self.claim_rows & !mask & !possible);
        if self.has_line(self.board & !opponent_cells, self.variant) {
            return None;
        }
        Some(if self.has_line(opponent_cells, self.variant) { -1 } else { 0 })
    }

    /// The mirror of [`Geometry::claimeven_upper`]: when the number of empty cells is odd,
    /// the side to move plays off the claim rows (in a column with an odd number of empty
    /// cells) and then answers as the opponent would above. If for one such move the
    /// opponent's stones and the cells left to it hold no line, the opponent cannot win: the
    /// score of the side to move is at least 0, and at least 1 if its own cells hold a line.
    /// `None` when no such move exists (the empty 7x6 board: 146.8 M -> 138.2 M nodes).
    #[inline]
    fn claimeven_lower(&self, cur: u64, mask: u64, possible: u64) -> Option<i32> {
        if (self.cells - mask.count_ones() as i32) % 2 != 1 {
            return None;
        }
        let mut first_moves = possible & !self.claim_rows;
        let mut best = None;
        while first_moves != 0 {
            let first = first_moves & first_moves.wrapping_neg();
            first_moves &= first_moves - 1;
            let after = mask | first;
            let playable_after = (after + self.bottom) & self.board;
            let own_cells = cur | first | (self.board & !self.claim_rows & !after & !playable_after);
            if self.has_line(self.board & !own_cells, self.variant) {
                continue;
            }
            if self.has_line(own_cells, self.variant) {
                return Some(1);
            }
            best = Some(0);
        }
        best
    }

    /// The mirror image of a single cell.
    #[inline]
    fn mirror_bit(&self, bit: u64) -> u64 {
        let s = self.height + 1;
        let col = bit.trailing_zeros() as usize / s;
        let shift = ((self.width - 1) as isize - 2 * col as isize) * s as isize;
        if shift >= 0 {
            bit << shift
        } else {
            bit >> -shift
        }
    }

    #[inline]
    fn mirror(&self, key: u64) -> u64 {
        let s = self.height + 1;
        let col = (1u64 << s) - 1;
        let mut r = 0;
        for c in 0..self.width {
            r |= ((key >> (c * s)) & col) << ((self.width - 1 - c) * s);
        }
        r
    }
}

/// Nodes with at most this many empty cells use a small private table instead of the shared
/// one: it stays in the core's cache, where a probe of a large table is a trip to memory.
const SMALL_MAX_EMPTY: i32 = 16;

/// Entries of the small table (512 KB).
const SMALL_ENTRIES: usize = 1 << 16;

/// Parallel solves split the nodes with at least this many empty cells.
const SPLIT_MIN_EMPTY: i32 = 24;

/// Up to this many stones played, moves with as many threats are ordered by the number of
/// lines through their cell (a quarter fewer nodes on the ply-1 position '4', a third on
/// '4444'; the sets, where positions have more stones, change by under 5%; from the first
/// 20 plies: the sets lose up to 7%).
const CELL_VALUE_MAX_MOVES: i32 = 16;

/// Positions with fewer stones played test the score against 0 first.
const NEAR_START: i32 = 4;

/// The next null-window test (is the score above the returned value?) when the score is known
/// to lie in `min..=max` (`min < max`).
///
/// Near the start (the empty board scores +1), the tests next to 0 dominate: make them first,
/// the weak test and then step by one on the side it points to (up to 3). Otherwise Pons'
/// halving, tilted so that the cheap tests far from 0 come first and fill the table: three
/// quarters of the way from 0 to the bound on the side of the midpoint (Pons takes half way;
/// three quarters: Test_L1_R1, whose positions end quickly, 2,032 -> 1,327 nodes, Test_L1_R2
/// 698 k -> 683 k, Test_L2_R1 290 -> 266, but Test_L2_R2 25,272 -> 27,449 and Test_L3_R1
/// 38.9 -> 42.3).
fn next_test(min: i32, max: i32, near_start: bool) -> i32 {
    if near_start {
        if min < 0 && max > 0 {
            return 0;
        } else if (1..=3).contains(&min) {
            return min;
        } else if (-3..=0).contains(&max) {
            return max - 1;
        }
    }
    let mut med = min + (max - min) / 2;
    if med <= 0 && min * 3 / 4 < med {
        med = min * 3 / 4;
    } else if med >= 0 && max * 3 / 4 > med {
        med = max * 3 / 4;
    }
    med
}

/// The threads of a parallel solve and their small tables.
struct Par {
    pool: rayon::ThreadPool,
    smalls: Vec<Arc<Table>>,
}

impl Par {
    fn new(threads: usize, variant: ConnectVariant) -> Option<Par> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok()?;
        let smalls =
            (0..threads).map(|_| Arc::new(Table::sized(SMALL_ENTRIES, 10, Solver::key_bits(variant)))).collect();
        Some(Par { pool, smalls })
    }

    /// The small table of the current thread.
    fn small(&self) -> Arc<Table> {
        self.smalls[rayon::current_thread_index().unwrap_or(0) % self.smalls.len()].clone()
    }
}

/// Counters of one solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveStats {
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken in microseconds.
    pub micros: u64,
}

/// Why a solve stopped without a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the solve ran out of time")]
pub struct OutOfTime;

/// The score of `position` by plain negamax on the rules, in Pons' convention (as
/// [`Solver::solve`]): the reference every pruning and ordering of the solver is tested against.
/// It visits every line of play, so it is for positions with few empty cells.
///
/// ```
/// use tabletop::games::connect::solver::{plain_negamax, Solver};
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::Game;
///
/// let variant = ConnectVariant::new(4, 4, 3).unwrap();
/// let mut position = Connect::start(&variant);
/// let mut moves = Vec::new();
/// for _ in 0..6 {
///     position.legal_moves(&mut moves);
///     position.play_unchecked(moves[0]);
/// }
/// assert_eq!(plain_negamax(&position), Solver::new(variant, 1 << 16).solve(&position));
/// ```
pub fn plain_negamax(position: &Connect) -> i32 {
    let cells = position.connect_variant().cells() as i32;
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    if moves.is_empty() {
        return 0;
    }
    let mut best = i32::MIN;
    for m in moves {
        let mut child = position.clone();
        child.play_unchecked(m);
        let score =
            if child.is_won() { (cells + 1 - position.moves_played() as i32) / 2 } else { -plain_negamax(&child) };
        best = best.max(score);
    }
    best
}

/// A solver for one variant; keep it to reuse its transposition table.
pub struct Solver {
    variant: ConnectVariant,
    geo: Geometry,
    table: Arc<Table>,
    /// Nodes with at most `small_max_empty` empty cells use this small table, private to a
    /// thread.
    small: Arc<Table>,
    small_max_empty: i32,
    nodes: u64,
    /// Forced moves played without a node of their own (no table entry, no ordering).
    forced: u64,
    deadline: Option<Instant>,
    /// [`Solver::try_solve`] gives up once [`Solver::nodes`] reaches this (checked every 4096
    /// nodes, so a single-threaded solve stops at the same node on every run).
    node_limit: Option<u64>,
    /// The search stops when any of these is set (parallel solves: a sibling's cut-off at a
    /// split node above).
    stops: Vec<Arc<AtomicBool>>,
    aborted: bool,
    /// Enhanced transposition cut-offs at nodes with at least this many empty cells (each
    /// costs a probe per child).
    etc_min_empty: i32,
    /// Parallel solves: nodes with at least this many empty cells search their moves after
    /// the first one in parallel.
    split_min_empty: i32,
    /// Print the node count of every null-window test (standard error).
    trace: bool,
    /// Enhanced transposition cut-offs made through a chain of forced moves (for tests).
    chain_cuts: u64,
}

/// A position inside the solver: the side to move's stones, every stone, the same two boards
/// mirrored (kept up to date move by move, for the symmetric table key), stones played.
#[derive(Clone, Copy, Debug)]
struct Node {
    cur: u64,
    mask: u64,
    mcur: u64,
    mmask: u64,
    moves: i32,
}

impl Node {
    #[inline]
    fn play(&self, bit: u64, mbit: u64) -> Node {
        Node {
            cur: self.cur ^ self.mask,
            mask: self.mask | bit,
            mcur: self.mcur ^ self.mmask,
            mmask: self.mmask | mbit,
            moves: self.moves + 1,
        }
    }
}

impl Solver {
    /// A solver for `variant` with a table of about `entries` entries (8 bytes each).
    ///
    /// Panics if the table cannot be allocated; [`Solver::try_new`] returns an error instead.
    pub fn new(variant: ConnectVariant, entries: usize) -> Self {
        Solver::try_new(variant, entries).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A solver for `variant` with a table of about `entries` entries (8 bytes each; see
    /// [`Solver::memory_bytes`]), or an error when the memory cannot be allocated.
    ///
    /// ```
    /// use tabletop::games::connect::solver::Solver;
    /// use tabletop::games::connect::ConnectVariant;
    /// let v = ConnectVariant::connect4();
    /// assert!(Solver::try_new(v, 1 << 16).is_ok());
    /// let err = Solver::try_new(v, 1 << 60).err().unwrap();
    /// assert!(err.to_string().starts_with("cannot allocate a table of"));
    /// ```
    pub fn try_new(variant: ConnectVariant, entries: usize) -> Result<Self, TableAllocError> {
        let table = Table::try_new(entries, Solver::key_bits(variant))?;
        Ok(Solver::with_table(variant, Arc::new(table)))
    }

    /// [`Solver::try_new`] after checking that it fits in the memory available
    /// ([`ensure_available`](crate::memory::ensure_available)): a size the system could only
    /// give by swapping is an error too.
    ///
    /// ```
    /// use tabletop::games::connect::solver::Solver;
    /// use tabletop::games::connect::ConnectVariant;
    /// assert!(Solver::try_new_checked(ConnectVariant::connect4(), 1 << 16).is_ok());
    /// assert!(Solver::try_new_checked(ConnectVariant::connect4(), 1 << 50).is_err());
    /// ```
    pub fn try_new_checked(variant: ConnectVariant, entries: usize) -> Result<Self, TableAllocError> {
        crate::memory::ensure_available(Solver::memory_bytes(variant, entries))?;
        Solver::try_new(variant, entries)
    }

    /// The memory of `Solver::new(variant, entries)` in bytes: its shared table (entries
    /// rounded down to a power of two, at least 131,072, 8 bytes each) and its small table.
    ///
    /// ```
    /// use tabletop::games::connect::solver::Solver;
    /// use tabletop::games::connect::ConnectVariant;
    /// let v = ConnectVariant::connect4();
    /// assert_eq!(Solver::memory_bytes(v, 1 << 23), (64 << 20) + (512 << 10));
    /// assert_eq!(Solver::memory_bytes(v, (1 << 23) + 5), Solver::memory_bytes(v, 1 << 23));
    /// ```
    pub fn memory_bytes(variant: ConnectVariant, entries: usize) -> u64 {
        let bits = Solver::key_bits(variant);
        let small = 8u64 << Table::size_bits(SMALL_ENTRIES, 10, bits);
        table_bytes(variant, entries).saturating_add(small)
    }

    /// A solver using a shared table.
    pub fn with_table(variant: ConnectVariant, table: Arc<Table>) -> Self {
        Solver {
            variant,
            geo: Geometry::new(variant),
            table,
            small: Arc::new(Table::sized(SMALL_ENTRIES, 10, Solver::key_bits(variant))),
            small_max_empty: SMALL_MAX_EMPTY,
            nodes: 0,
            forced: 0,
            deadline: None,
            node_limit: None,
            stops: Vec::new(),
            aborted: false,
            etc_min_empty: 14,
            split_min_empty: SPLIT_MIN_EMPTY,
            trace: false,
            chain_cuts: 0,
        }
    }

    /// The number of bits of a position key of `variant`.
    pub fn key_bits(variant: ConnectVariant) -> u32 {
        (variant.width() * (variant.height() + 1)) as u32
    }

    /// The variant solved.
    pub fn variant(&self) -> ConnectVariant {
        self.variant
    }

    /// The transposition table.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// Empties the tables (only needed to measure a cold solve: entries never go stale).
    pub fn clear_tables(&self) {
        self.table.clear();
        self.small.clear();
    }

    /// Nodes searched since the last reset of the counter.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Resets the node counter (and that of forced moves).
    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.forced = 0;
    }

    /// Forced moves played out without a node of their own since the last reset (not
    /// counted in [`Solver::nodes`]; one thread only).
    pub fn forced_moves(&self) -> u64 {
        self.forced
    }

    /// Prints the node count and time of every null-window test to standard error.
    pub fn set_trace(&mut self, trace: bool) {
        self.trace = trace;
    }

    /// Sets (or clears) a deadline after which [`Solver::try_solve`] gives up.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The largest score of the variant (a win with the side's first possible piece is less).
    pub fn max_score(&self) -> i32 {
        self.geo.max_score
    }

    fn node(&self, p: &Connect) -> Node {
        Node {
            cur: p.current_stones(),
            mask: p.mask(),
            mcur: self.geo.mirror(p.current_stones()),
            mmask: self.geo.mirror(p.mask()),
            moves: p.moves_played() as i32,
        }
    }

    /// Sets (or clears) a node budget: [`Solver::try_solve`] gives up once [`Solver::nodes`]
    /// (counted since [`Solver::reset_nodes`]) reaches `limit`. Unlike a deadline, a node
    /// budget stops a single-threaded solve at the same point on any machine.
    pub fn set_node_limit(&mut self, limit: Option<u64>) {
        self.node_limit = limit;
    }

    /// The exact score of `p` (see the module documentation for the convention).
    pub fn solve(&mut self, p: &Connect) -> i32 {
        let saved = self.deadline.take();
        let r = self.try_solve(p, false).unwrap_or(0);
        self.deadline = saved;
        r
    }

    /// The sign of the score of `p`: -1, 0 or +1.
    pub fn solve_weak(&mut self, p: &Connect) -> i32 {
        let saved = self.deadline.take();
        let r = self.try_solve(p, true).unwrap_or(0);
        self.deadline = saved;
        r
    }

    /// The exact (or with `weak`, the sign of the) score, or [`OutOfTime`] if the deadline
    /// passed first.
    pub fn try_solve(&mut self, p: &Connect, weak: bool) -> Result<i32, OutOfTime> {
        self.narrow(p, weak, None)
    }

    /// The null-window tests of a solve, each searched in `par`'s threads if given.
    fn narrow(&mut self, p: &Connect, weak: bool, par: Option<&Par>) -> Result<i32, OutOfTime> {
        self.aborted = false;
        if let Some(score) = self.finished_score(p) {
            return Ok(if weak { score.signum() } else { score });
        }
        let n = self.node(p);
        if self.can_win_next(n) {
            let s = (self.geo.cells + 1 - n.moves) / 2;
            return Ok(if weak { 1 } else { s });
        }
        let (mut min, mut max) = (-(self.geo.cells - n.moves) / 2, (self.geo.cells + 1 - n.moves) / 2);
        if weak {
            min = -1;
            max = 1;
        }
        // Near the start (the empty board scores +1), the tests next to 0 dominate: make them
        // first, the weak test and then the one on the side it points to; later positions use
        // Pons' halving, tilted so that the cheap tests far from 0 come first and fill the table.
        let near_start = n.moves < NEAR_START;
        while min < max {
            let med = next_test(min, max, near_start);
            let before = self.nodes;
            let t0 = Instant::now();
            let r = match par {
                Some(par) => par.pool.install(|| self.split_negamax(n, med, med + 1, par)),
                None => self.negamax(n, med, med + 1),
            };
            if self.trace {
                eprintln!(
                    "  score > {med}? {}  ({} nodes, {} forced moves in all, {:.2} s)",
                    r > med,
                    self.nodes - before,
                    self.forced,
                    t0.elapsed().as_secs_f64()
                );
            }
            if self.aborted {
                return Err(OutOfTime);
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        Ok(if weak { min.signum() } else { min })
    }

    /// Tests the score of `p` against `value`: true when the score is greater than `value`
    /// (one null-window search). `p` must not be finished.
    pub fn score_above(&mut self, p: &Connect, value: i32) -> bool {
        let n = self.node(p);
        if self.can_win_next(n) {
            return (self.geo.cells + 1 - n.moves) / 2 > value;
        }
        self.aborted = false;
        self.negamax(n, value, value + 1) > value
    }

    /// Like [`Solver::score_above`], but gives up at the deadline.
    pub fn try_score_above(&mut self, p: &Connect, value: i32) -> Result<bool, OutOfTime> {
        if let Some(score) = self.finished_score(p) {
            return Ok(score > value);
        }
        let r = self.score_above(p, value);
        if self.aborted {
            Err(OutOfTime)
        } else {
            Ok(r)
        }
    }

    /// A best move (the quickest win, else a draw, else the longest loss) and the exact score
    /// of `p`, which must not be finished; gives up at the deadline.
    pub fn best_move(&mut self, p: &Connect) -> Result<(Column, i32), OutOfTime> {
        let order = self.geo.order;
        let cells = self.geo.cells;
        for &c in &order[..self.geo.width] {
            if p.can_play(c) && p.is_winning_move(c) {
                return Ok((Column(c as u8), (cells + 1 - p.moves_played() as i32) / 2));
            }
        }
        let score = self.try_solve(p, false)?;
        for &c in &order[..self.geo.width] {
            if !p.can_play(c) {
                continue;
            }
            let mut child = p.clone();
            child.play_unchecked(Column(c as u8));
            // Optimal when the child's score (for the opponent) is at most -score.
            if !self.try_score_above(&child, -score)? {
                return Ok((Column(c as u8), score));
            }
        }
        Err(OutOfTime)
    }

    /// The score of every column (`None` for unplayable ones), from the side to move.
    pub fn solve_moves(&mut self, p: &Connect) -> Vec<Option<i32>> {
        (0..self.variant.width()).map(|c| self.column_score(p, c)).collect()
    }

    /// The score of playing column `col` (0-based) in `p`, from the side to move in `p`.
    pub fn column_score(&mut self, p: &Connect, col: usize) -> Option<i32> {
        if !p.can_play(col) || p.status().to_move().is_none() {
            return None;
        }
        if p.is_winning_move(col) {
            return Some((self.geo.cells + 1 - p.moves_played() as i32) / 2);
        }
        let mut child = p.clone();
        child.play_unchecked(Column(col as u8));
        Some(-self.solve(&child))
    }

    /// The score of a finished position: a loss for the side to move, or a draw.
    pub fn finished_score(&self, p: &Connect) -> Option<i32> {
        if p.is_won() {
            Some(-(self.geo.cells + 2 - p.moves_played() as i32) / 2)
        } else if p.moves_played() as i32 == self.geo.cells {
            Some(0)
        } else {
            None
        }
    }

    /// Solves `p` with `threads` threads sharing the table; returns the score and the nodes
    /// searched by all threads.
    ///
    /// Each null-window test is searched by all the threads (young brothers wait): a node
    /// with at least `SPLIT_MIN_EMPTY` empty cells searches its first move, and if that does
    /// not cut, its other moves in parallel; a cut-off among them stops the others.
    /// (Measured and dropped: lazy SMP with ABDADA-like deferral, each thread searching the
    /// whole test with perturbed move orders; 2 threads were slower than 1, each thread
    /// searching nearly the whole tree.)
    pub fn solve_parallel(&mut self, p: &Connect, threads: usize, weak: bool) -> (i32, u64) {
        let before = self.nodes;
        let saved = self.deadline.take();
        let par = if threads > 1 { Par::new(threads, self.variant) } else { None };
        let r = self.narrow(p, weak, par.as_ref()).unwrap_or(0);
        self.deadline = saved;
        (r, self.nodes - before)
    }

    /// A solver for a parallel task: the same tables (the small one of the thread that runs
    /// it), stopped by `stop` and whatever stops this one.
    fn task(&self, par: &Par, stop: &Arc<AtomicBool>) -> Solver {
        let mut stops = self.stops.clone();
        stops.push(stop.clone());
        Solver {
            variant: self.variant,
            geo: self.geo.clone(),
            table: self.table.clone(),
            small: par.small(),
            small_max_empty: self.small_max_empty,
            nodes: 0,
            forced: 0,
            deadline: self.deadline,
            node_limit: None,
            stops,
            aborted: false,
            etc_min_empty: self.etc_min_empty,
            split_min_empty: self.split_min_empty,
            trace: false,
            chain_cuts: 0,
        }
    }

    #[inline]
    fn possible(&self, n: Node) -> u64 {
        (n.mask + self.geo.bottom) & self.geo.board
    }

    #[inline]
    fn can_win_next(&self, n: Node) -> bool {
        self.geo.winning(n.cur, self.variant) & self.possible(n) != 0
    }

    /// The table for nodes with `empty` empty cells.
    #[inline]
    fn tt(&self, empty: i32) -> &Table {
        if empty <= self.small_max_empty {
            &self.small
        } else {
            &self.table
        }
    }

    #[inline]
    fn key_of(&self, n: Node) -> u64 {
        (n.cur + n.mask).min(n.mcur + n.mmask)
    }

    /// Has a cut-off elsewhere made this search useless?
    fn stopped(&self) -> bool {
        self.stops.iter().any(|s| s.load(Ordering::Relaxed))
    }

    fn check_time(&mut self) {
        if self.node_limit.is_some_and(|limit| self.nodes >= limit) {
            self.aborted = true;
        }
        if let Some(d) = self.deadline {
            if Instant::now() >= d {
                self.aborted = true;
            }
        }
        if self.stops.iter().any(|s| s.load(Ordering::Relaxed)) || crate::cancel::cancelled() {
            self.aborted = true;
        }
    }

    /// The node reached from `n` by playing the forced blocks (the side to move's only
    /// move against a single playable threat of the opponent) as long as there are any, and
    /// how many were played. Stops at a node that is lost at once or nearly full.
    #[inline]
    fn forced_chain_end(&self, mut n: Node) -> (Node, i32) {
        let g = &self.geo;
        let mut k = 0;
        while n.moves < g.cells - 2 {
            let possible = (n.mask + g.bottom) & g.board;
            let opp_win = g.winning(n.cur ^ n.mask, self.variant);
            let forced = possible & opp_win;
            if forced == 0 || forced & (forced - 1) != 0 || forced & (opp_win >> 1) != 0 {
                break;
            }
            n = n.play(forced, g.mirror_bit(forced));
            k += 1;
        }
        (n, k)
    }

    /// Negamax with alpha-beta on a position where the side to move cannot win at once.
    fn negamax(&mut self, n: Node, alpha: i32, beta: i32) -> i32 {
        let mut e = Moves::default();
        if let Some(score) = self.prepare(n, alpha, beta, &mut e) {
            return score;
        }
        if e.forced {
            let (_, bit, mbit, _) = e.list[0];
            return -self.negamax(n.play(bit, mbit), -e.beta, -e.alpha);
        }
        let mut best = i32::MIN;
        for i in 0..e.len {
            let (_, bit, mbit, col) = e.list[i];
            let score = -self.negamax(n.play(bit, mbit), -e.beta, -e.alpha);
            if self.aborted {
                return 0;
            }
            if score >= e.beta {
                return self.store_lower(&e, score, col);
            }
            best = best.max(score);
            e.alpha = e.alpha.max(score);
        }
        self.store_upper(&e, best)
    }

    /// Like [`Solver::negamax`], in the threads of `par`: with enough empty cells, the moves
    /// after the first are searched in parallel when the first does not cut.
    fn split_negamax(&mut self, n: Node, alpha: i32, beta: i32, par: &Par) -> i32 {
        if self.geo.cells - n.moves < self.split_min_empty {
            return self.negamax(n, alpha, beta);
        }
        // Stop at once in a task that a cut-off elsewhere made useless.
        self.check_time();
        let mut e = Moves::default();
        if let Some(score) = self.prepare(n, alpha, beta, &mut e) {
            return score;
        }
        if e.forced {
            let (_, bit, mbit, _) = e.list[0];
            return -self.split_negamax(n.play(bit, mbit), -e.beta, -e.alpha, par);
        }
        let (_, bit, mbit, col) = e.list[0];
        let first = -self.split_negamax(n.play(bit, mbit), -e.beta, -e.alpha, par);
        if self.aborted {
            return 0;
        }
        if first >= e.beta {
            return self.store_lower(&e, first, col);
        }
        // The other moves, best first, each to the next free thread.
        let stop = Arc::new(AtomicBool::new(false));
        let next = AtomicUsize::new(1);
        let results = std::sync::Mutex::new(Vec::with_capacity(e.len));
        let this = &*self;
        let work = || {
            let mut task = this.task(par, &stop);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= e.len || task.stopped() {
                    break;
                }
                let (_, bit, mbit, col) = e.list[i];
                let before = task.nodes;
                let score = -task.split_negamax(n.play(bit, mbit), -e.beta, -e.alpha, par);
                if !task.aborted && score >= e.beta {
                    stop.store(true, Ordering::Relaxed);
                }
                results.lock().expect("results").push((score, col, task.nodes - before, task.aborted));
                if task.aborted {
                    break;
                }
            }
        };
        rayon::scope(|scope| {
            for _ in 1..par.pool.current_num_threads() {
                scope.spawn(|_| work());
            }
            work();
        });
        let results = results.into_inner().expect("results");
        self.nodes += results.iter().map(|r| r.2).sum::<u64>();
        if let Some(&(score, col, _, _)) = results.iter().find(|r| !r.3 && r.0 >= e.beta) {
            return self.store_lower(&e, score, col);
        }
        if results.iter().any(|r| r.3) || self.stopped() {
            self.aborted = true;
            return 0;
        }
        let best = results.iter().map(|r| r.0).fold(first, i32::max);
        self.store_upper(&e, best)
    }

    /// Stores the lower bound `score` found by move `col` and returns it.
    #[inline(always)]
    fn store_lower(&self, e: &Moves, score: i32, col: u8) -> i32 {
        let (min_s, max_s) = (self.geo.min_score, self.geo.max_score);
        let last_col = (self.geo.width - 1) as u8;
        let canonical = if e.mirrored { last_col - col } else { col } + 1;
        let work = 64 - (self.nodes - e.start_nodes).leading_zeros();
        self.tt(e.empty).put(e.key, (score + max_s - 2 * min_s + 2) as u8, canonical, work);
        score
    }

    /// Stores the upper bound `best` (fail-soft: the best child's bound, often below alpha,
    /// which means fewer tests at the root and tighter stored bounds: 1-8% fewer nodes) and
    /// returns it.
    #[inline(always)]
    fn store_upper(&self, e: &Moves, best: i32) -> i32 {
        let work = 64 - (self.nodes - e.start_nodes).leading_zeros();
        self.tt(e.empty).put(e.key, (best - self.geo.min_score + 1) as u8, 0, work);
        best
    }

    /// Everything a node does before searching its moves: the score when it is known without
    /// them (forced losses, bounds, table and static cut-offs), else the moves in order.
    #[inline(always)]
    fn prepare(&mut self, n: Node, mut alpha: i32, mut beta: i32, e: &mut Moves) -> Option<i32> {
        self.nodes += 1;
        if self.nodes & 0xfff == 0 {
            self.check_time();
        }
        if self.aborted {
            return Some(0);
        }
        let g = &self.geo;
        let possible = (n.mask + g.bottom) & g.board;
        let opp = n.cur ^ n.mask;
        let opp_win = g.winning(opp, self.variant);
        let mut next = possible;
        let forced = possible & opp_win;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                // Two threats at once: lost on the opponent's next move.
                return Some(-(g.cells - n.moves) / 2);
            }
            next = forced;
        }
        next &= !(opp_win >> 1);
        if next == 0 {
            return Some(-(g.cells - n.moves) / 2);
        }
        if n.moves >= g.cells - 2 {
            return Some(0);
        }
        if forced != 0 {
            // The only move blocks the opponent's threat: play it without a node of its own
            // (no table entry, no ordering), as Steininger's c4 does with chains of forced moves.
            self.nodes -= 1;
            self.forced += 1;
            let min = -(g.cells - 2 - n.moves) / 2;
            let max = (g.cells - 1 - n.moves) / 2;
            let (alpha, beta) = (alpha.max(min), beta.min(max));
            if alpha >= beta {
                return Some(alpha);
            }
            e.forced = true;
            e.list[0] = (0, next, g.mirror_bit(next), 0);
            e.len = 1;
            (e.alpha, e.beta) = (alpha, beta);
            return None;
        }
        if alpha >= -1 {
            if let Some(upper) = g.claimeven_upper(n.cur, n.mask, possible) {
                if upper <= alpha {
                    return Some(upper);
                }
            }
        }
        if beta <= 1 {
            if let Some(lower) = g.claimeven_lower(n.cur, n.mask, possible) {
                if lower >= beta {
                    return Some(lower);
                }
            }
        }
        let min = -(g.cells - 2 - n.moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return Some(alpha);
            }
        }
        let mut max = (g.cells - 1 - n.moves) / 2;
        let (plain_key, mirror_key) = (n.cur + n.mask, n.mcur + n.mmask);
        let mirrored = mirror_key < plain_key;
        let key = plain_key.min(mirror_key);
        let start_nodes = self.nodes;
        let empty = g.cells - n.moves;
        let (v, tt_move) = self.tt(empty).get(key);
        let v = v as i32;
        let (min_s, max_s) = (self.geo.min_score, self.geo.max_score);
        if v != 0 {
            if v > max_s - min_s + 1 {
                let lower = v + 2 * min_s - max_s - 2;
                if alpha < lower {
                    alpha = lower;
                    if alpha >= beta {
                        return Some(alpha);
                    }
                }
            } else {
                let upper = v + min_s - 1;
                if beta > upper {
                    beta = upper;
                    if alpha >= beta {
                        return Some(beta);
                    }
                }
                max = max.min(upper);
            }
        }
        if beta > max {
            beta = max;
            if alpha >= beta {
                return Some(beta);
            }
        }

        // Order: centre first, then by threats created.
        let g = &self.geo;
        // The stored best move, as a column of this orientation.
        let tt_col = if tt_move == 0 {
            usize::MAX
        } else if mirrored {
            g.width - tt_move as usize
        } else {
            tt_move as usize - 1
        };
        let list = &mut e.list;
        let mut len = 0;
        let my_win = g.winning(n.cur, self.variant) & !n.mask;
        // The columns whose move leaves the opponent a forced block.
        let mut forcing = 0u32;
        for i in 0..g.width {
            let col = g.order[i];
            let bit = next & g.columns[col];
            if bit == 0 {
                continue;
            }
            let mirror_shift = ((g.width - 1) as isize - 2 * col as isize) * (g.height + 1) as isize;
            let mbit = if mirror_shift >= 0 { bit << mirror_shift } else { bit >> -mirror_shift };
            let mine = n.cur | bit;
            let threats = g.winning(mine, self.variant) & !(n.mask | bit);
            // Two threats the opponent can reach at once, or two stacked ones: the opponent
            // (who cannot win at once after a non-losing move) blocks one, we win with the
            // other at our next move, the best this node can score.
            let after = ((n.mask | bit) + g.bottom) & g.board;
            let playable = after & threats;
            if playable & playable.wrapping_sub(1) != 0 || playable & (threats >> 1) != 0 {
                return Some((g.cells - 1 - n.moves) / 2);
            }
            // Every move of the opponent under one of our winning cells: we win next time too.
            if playable == 0 && after != 0 && after & !(threats >> 1) == 0 {
                return Some((g.cells - 1 - n.moves) / 2);
            }
            forcing |= ((playable != 0) as u32) << col;
            // Only threats not directly above an opponent's threat can ever win; those
            // playable at once (the opponent must block: a forced chain) and those one stone
            // higher count more (c4's weights, in integers).
            let useful = threats & !((opp_win & !(n.mask | bit)) << 1);
            let mut score = (useful & after).count_ones() as i32 * 12
                + (useful & (after << 1)).count_ones() as i32 * 5
                + useful.count_ones() as i32 * 3;
            // Playing under one's own threat lets the opponent block it: such moves last
            // (a quarter fewer nodes on the large solves, 15% on Test_L2_R2).
            if (bit << 1) & my_win != 0 {
                score -= 1000;
            }
            // Early on, among moves with as many threats, those on cells that lie on more lines
            // (on an empty board) first, instead of by column only.
            if n.moves <= CELL_VALUE_MAX_MOVES {
                score = score * 16 + g.cell_value[bit.trailing_zeros() as usize];
            }
            if col == tt_col {
                score = 100_000;
            }

            // Insertion, stable for equal scores (keeps centre-first order).
            let mut j = len;
            while j > 0 && list[j - 1].0 < score {
                list[j] = list[j - 1];
                j -= 1;
            }
            list[j] = (score, bit, mbit, col as u8);
            len += 1;
        }

        // No move wins at our next turn (the loop above returned otherwise), nor at the one
        // after: the best is a win with our third stone from now.
        let max4 = (g.cells - 3 - n.moves) / 2;
        if beta > max4 {
            beta = max4;
            if alpha >= beta {
                return Some(beta);
            }
        }

        // Enhanced transposition cut-off: a child whose stored bound already refutes it. A
        // child where the opponent must block (a forced chain) has no entry of its own: follow
        // its chain of forced moves to the node that is searched and stored (as c4's static
        // evaluation of the children does); after k forced moves, this move's score is
        // (-1)^(k+1) times that node's score.
        if empty >= self.etc_min_empty {
            for &(_, bit, mbit, col) in &list[..len] {
                let child = n.play(bit, mbit);
                let (end, k) = if forcing & (1 << col) != 0 { self.forced_chain_end(child) } else { (child, 0) };
                let v = self.tt(empty - 1 - k).get(self.key_of(end)).0 as i32;
                let is_upper = v <= max_s - min_s + 1;
                let bound = if v == 0 {
                    continue;
                } else if k % 2 == 0 && is_upper {
                    -(v + min_s - 1)
                } else if k % 2 == 1 && !is_upper {
                    v + 2 * min_s - max_s - 2
                } else {
                    continue;
                };
                if bound >= beta {
                    self.chain_cuts += (k > 0) as u64;
                    return Some(bound);
                }
            }
        }

        e.len = len;
        (e.alpha, e.beta, e.key, e.mirrored, e.empty, e.start_nodes) = (alpha, beta, key, mirrored, empty, start_nodes);
        None
    }
}

/// A node's moves to search, best first, and what storing its result needs.
#[derive(Default)]
struct Moves {
    /// Ordering score, move bit, mirrored move bit, column.
    list: [(i32, u64, u64, u8); 9],
    len: usize,
    alpha: i32,
    beta: i32,
    key: u64,
    mirrored: bool,
    empty: i32,
    start_nodes: u64,
    /// The only move is a forced block, played without a node of its own.
    forced: bool,
}

/// Solves a position given as a column sequence (convenience for tests and tools).
pub fn solve_sequence(solver: &mut Solver, sequence: &str) -> Result<i32, super::rules::ConnectPositionError> {
    let p = Connect::from_notation(&solver.variant(), sequence)?;
    Ok(solver.solve(&p))
}

#[cfg(test)]
mod tests {
    use super::super::engine::Engine;
    use super::*;

    /// A position of `empties` empty cells reached by random moves, or `None` when the game
    /// ended first.
    fn random_position(v: ConnectVariant, empties: usize, rng: &mut impl rand::Rng) -> Option<Connect> {
        let mut p = Connect::start(&v);
        let mut moves = Vec::new();
        while p.status().to_move().is_some() && v.cells() - p.moves_played() > empties {
            p.legal_moves(&mut moves);
            p.play_unchecked(moves[rng.gen_range(0..moves.len())]);
        }
        p.status().to_move().is_some().then_some(p)
    }

    #[test]
    fn impossible_tables_are_errors() {
        let v = ConnectVariant::connect4();
        for entries in [1usize << 60, usize::MAX] {
            let err = Solver::try_new(v, entries).err().expect("an error, not an abort");
            assert!(err.to_string().starts_with("cannot allocate a table of "), "{err}");
        }
        assert!(Engine::try_with_table(v, std::time::Duration::from_millis(1), 1 << 60).is_err());
    }

    /// Enhanced transposition cut-offs through chains of forced moves at every node (the
    /// solver only makes them with at least 14 empty cells): every null-window test on random
    /// positions of four sizes matches plain negamax, with one table kept across positions,
    /// and cut-offs through chains of one forced move or more happen.
    #[test]
    fn chain_cutoffs_are_exact() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(27);
        let mut chain_cuts = 0;
        for (w, h, n, empties) in [(5, 4, 4, 10), (4, 4, 3, 11), (6, 4, 4, 10), (7, 6, 4, 9)] {
            let v = ConnectVariant::new(w, h, n).unwrap();
            let mut solver = Solver::new(v, 1 << 17);
            solver.etc_min_empty = 1;
            let mut tested = 0;
            while tested < 30 {
                let Some(p) = random_position(v, empties, &mut rng) else { continue };
                let exact = plain_negamax(&p);
                let bound = (v.cells() as i32 + 1) / 2;
                for value in -bound..=bound {
                    assert_eq!(solver.score_above(&p, value), exact > value, "{w}x{h}/{n} {} > {value}", p.notation());
                }
                assert_eq!(solver.solve(&p), exact, "{w}x{h}/{n} {}", p.notation());
                tested += 1;
            }
            chain_cuts += solver.chain_cuts;
        }
        assert!(chain_cuts > 0, "no cut-off through a forced chain");
    }

    /// The claimeven bounds, with the odd columns paired, are true bounds of the exact score
    /// (plain negamax) on random positions of five sizes, odd heights included, and they
    /// apply where plain claimeven (every column even; one column odd) would not.
    #[test]
    fn paired_claimeven_bounds_hold() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(28);
        let (mut uppers_with_odd_columns, mut lowers_with_many_odd_columns) = (0, 0);
        for (w, h, n, most_empty) in [(4, 3, 3, 10), (5, 4, 4, 12), (5, 5, 4, 12), (6, 4, 4, 12), (7, 6, 4, 12)] {
            let v = ConnectVariant::new(w, h, n).unwrap();
            let g = Geometry::new(v);
            for _ in 0..200 {
                let empties = rng.gen_range(most_empty - 5..=most_empty);
                let Some(p) = random_position(v, empties, &mut rng) else { continue };
                let (cur, mask) = (p.current_stones(), p.mask());
                let possible = (mask + g.bottom) & g.board;
                let odd_columns = (possible & !g.claim_rows).count_ones();
                let exact = plain_negamax(&p);
                if let Some(upper) = g.claimeven_upper(cur, mask, possible) {
                    assert!(exact <= upper, "{w}x{h}/{n} {}: {exact} > claimeven's {upper}", p.notation());
                    uppers_with_odd_columns += (odd_columns > 0) as u32;
                }
                if let Some(lower) = g.claimeven_lower(cur, mask, possible) {
                    assert!(exact >= lower, "{w}x{h}/{n} {}: {exact} < claimeven's {lower}", p.notation());
                    lowers_with_many_odd_columns += (odd_columns > 1) as u32;
                }
            }
        }
        assert!(uppers_with_odd_columns > 0 && lowers_with_many_odd_columns > 0, "{uppers_with_odd_columns} {lowers_with_many_odd_columns}");
    }

    #[test]
    fn memory_figures_match_the_tables() {
        for v in [ConnectVariant::connect3(), ConnectVariant::connect4()] {
            for entries in [0, 1000, 1 << 17, (1 << 18) + 1, 3 << 19] {
                let solver = Solver::try_new(v, entries).unwrap();
                assert_eq!(table_bytes(v, entries), solver.table().bytes() as u64);
                assert_eq!(Solver::memory_bytes(v, entries), (solver.table().bytes() + solver.small.bytes()) as u64);
            }
        }
    }
}
