//! Exact values of Slide positions.
//!
//! The slide phase can cycle, so plain search is not exact there. It is solved once per variant
//! by retrograde analysis: every board with exactly k empty squares is ranked, losses at distance
//! 0 are the boards where the side that just moved has a line, and values spread backwards in
//! order of distance (a win takes the nearest losing child, a loss the farthest winning one).
//! Boards never reached that way are draws: neither side can force a win, and with draw by
//! repetition the defender can hold the draw forever. A winner following the table never repeats
//! a position (its distance strictly falls), so repetition never changes a result.
//!
//! The placement phase cannot cycle; it is solved by alpha-beta with a table of bounds, and its
//! last placements look the slide-phase values up in the retrograde table.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use super::rules::{Side, Slide, SlideMove, SlideVariant};
use crate::game::{Game, Outcome, Status};
// Values use the generic search's scale: a win p plies away is WIN - p.
use crate::search::{from_table, to_table, DECISIVE as DECISIVE_MIN, INFINITY as INFINITE, WIN as DECISIVE};

/// A multiply-and-fold hasher for integer keys: the solver's tables hold millions of bitboard
/// keys, where the standard library's DoS-resistant hasher costs several times more.
#[derive(Default)]
struct BitboardHasher(u64);

impl Hasher for BitboardHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, value: u64) {
        let mixed = (self.0 ^ value).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = mixed ^ (mixed >> 29);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<BitboardHasher>>;

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlideValue {
    /// The side to move wins; the game ends after this many plies with best play.
    Win(u32),
    /// Neither side can force a win.
    Draw,
    /// The side to move loses; the game ends after this many plies with best play.
    Loss(u32),
}

impl SlideValue {
    /// Ordered for the side to move: higher is better (quick wins, then draws, then slow losses).
    pub fn rank(self) -> i64 {
        match self {
            SlideValue::Win(d) => 1_000_000 - d as i64,
            SlideValue::Draw => 0,
            SlideValue::Loss(d) => -1_000_000 + d as i64,
        }
    }

    /// The value for the side that moved into this position.
    pub fn for_parent(self) -> SlideValue {
        match self {
            SlideValue::Win(d) => SlideValue::Loss(d + 1),
            SlideValue::Draw => SlideValue::Draw,
            SlideValue::Loss(d) => SlideValue::Win(d + 1),
        }
    }

    /// "win", "draw" or "loss".
    pub fn result(self) -> &'static str {
        match self {
            SlideValue::Win(_) => "win",
            SlideValue::Draw => "draw",
            SlideValue::Loss(_) => "loss",
        }
    }

    /// Plies to the end with best play, or `None` for a draw.
    pub fn plies(self) -> Option<u32> {
        match self {
            SlideValue::Win(d) | SlideValue::Loss(d) => Some(d),
            SlideValue::Draw => None,
        }
    }
}

impl fmt::Display for SlideValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlideValue::Win(d) => f.write_str(&crate::value::wins_in(crate::value::own_moves(*d))),
            SlideValue::Draw => write!(f, "draw"),
            SlideValue::Loss(d) => f.write_str(&crate::value::loses_in(crate::value::own_moves(*d))),
        }
    }
}

/// The number of slide-phase boards of a variant (the size of its retrograde table).
pub fn slide_phase_boards(variant: SlideVariant) -> u128 {
    let squares = variant.squares() as u128;
    let k = variant.empty() as u128;
    let tiles = squares - k;
    binomial(squares, k) * binomial(tiles, tiles.div_ceil(2))
}

fn binomial(n: u128, k: u128) -> u128 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Retrograde tables larger than this many boards are not built (4x4 needs at most about 2 million).
pub const MAX_TABLE_BOARDS: u128 = 4_000_000;

const UNKNOWN: u8 = 0;
const WIN: u8 = 1;
const LOSS: u8 = 2;

/// The solved slide phase of one variant.
pub struct SlidePhaseTable {
    variant: SlideVariant,
    ranker: Ranker,
    // Per board and side to move (rank * 2 + side): kind and distance.
    kind: Vec<u8>,
    distance: Vec<u16>,
}

/// A perfect index of slide-phase boards (at most 16 squares): the colex rank of the set of
/// empty squares, then the colex rank of blue's squares packed onto the occupied ones. Both are
/// computed a byte at a time from small tables, since ranking is the retrograde loop's hot spot.
struct Ranker {
    full: u64,
    blue_choices: u64,
    // pack[occupied byte][blue byte]: blue's bits packed onto the occupied bits.
    pack: Vec<[u8; 256]>,
    // colex[byte index][byte][set bits below it]: that byte's share of the colex rank.
    colex: [Vec<[u64; 17]>; 2],
}

impl Ranker {
    fn new(variant: SlideVariant) -> Self {
        let mut binomial = [[0u64; 17]; 17];
        for n in 0..17 {
            binomial[n][0] = 1;
            for k in 1..=n {
                binomial[n][k] = binomial[n - 1][k - 1] + if k < n { binomial[n - 1][k] } else { 0 };
            }
        }
        let tiles = variant.squares() - variant.empty();
        let pack = (0..256usize)
            .map(|occupied| {
                let mut row = [0u8; 256];
                for (blue, packed) in row.iter_mut().enumerate() {
                    let mut bit = 0;
                    for sq in 0..8 {
                        if occupied & (1 << sq) != 0 {
                            *packed |= (((blue >> sq) & 1) << bit) as u8;
                            bit += 1;
                        }
                    }
                }
                row
            })
            .collect();
        let colex = [0usize, 1].map(|part| {
            (0..256usize)
                .map(|byte| {
                    let mut row = [0u64; 17];
                    for (below, share) in row.iter_mut().enumerate() {
                        let mut i = below + 1;
                        for bit in 0..8 {
                            if byte & (1 << bit) != 0 {
                                let pos = part * 8 + bit;
                                *share += if i <= 16 { binomial[pos][i] } else { 0 };
                                i += 1;
                            }
                        }
                    }
                    row
                })
                .collect()
        });
        Ranker { full: (1u64 << variant.squares()) - 1, blue_choices: binomial[tiles][tiles.div_ceil(2)], pack, colex }
    }

    fn colex_rank(&self, set: u64) -> u64 {
        let low = (set & 0xff) as usize;
        self.colex[0][low][0] + self.colex[1][(set >> 8) as usize & 0xff][low.count_ones() as usize]
    }

    fn rank(&self, blue: u64, orange: u64) -> usize {
        let occupied = blue | orange;
        let (occ_low, occ_high) = ((occupied & 0xff) as usize, (occupied >> 8) as usize & 0xff);
        let packed = self.pack[occ_low][(blue & 0xff) as usize] as u64
            | (self.pack[occ_high][(blue >> 8) as usize & 0xff] as u64) << occ_low.count_ones();
        (self.colex_rank(self.full & !occupied) * self.blue_choices + self.colex_rank(packed)) as usize
    }
}

fn has_line(lines: &[u64], tiles: u64) -> bool {
    lines.iter().any(|&line| line & !tiles == 0)
}

impl SlidePhaseTable {
    /// Solves the slide phase of `variant`; `None` if the table would exceed [`MAX_TABLE_BOARDS`]
    /// or the variant has no slide phase (k = 0).
    pub fn build(variant: SlideVariant) -> Option<Self> {
        if variant.empty() == 0 || variant.squares() > 16 || slide_phase_boards(variant) > MAX_TABLE_BOARDS {
            return None;
        }
        let squares = variant.squares();
        let tiles = squares - variant.empty();
        let blue_count = tiles.div_ceil(2);
        let ranker = Ranker::new(variant);
        let lines = super::rules::lines(variant.size());
        let neighbours = super::rules::neighbours(variant.size());
        // Boards in rank order: empty sets in colex order, then blue sets in colex order.
        let mut boards: Vec<(u64, u64)> = Vec::with_capacity(slide_phase_boards(variant) as usize);
        for_each_subset(squares, variant.empty(), |empties| {
            let occupied: Vec<usize> = (0..squares).filter(|sq| empties & (1 << sq) == 0).collect();
            for_each_subset(occupied.len(), blue_count, |pick| {
                let mut blue = 0u64;
                for (i, &sq) in occupied.iter().enumerate() {
                    if pick & (1 << i) != 0 {
                        blue |= 1 << sq;
                    }
                }
                let orange = ranker.full & !empties & !blue;
                debug_assert_eq!(ranker.rank(blue, orange), boards.len());
                boards.push((blue, orange));
            });
        });
        let states = boards.len() * 2;
        let mut kind = vec![UNKNOWN; states];
        let mut distance = vec![0u16; states];
        let mut remaining = vec![0u8; states];
        let mut queue: Vec<u32> = Vec::new();
        // (tiles of the side to move, the other side's tiles); even states have blue to move.
        let split = |state: usize| {
            let (blue, orange) = boards[state / 2];
            if state.is_multiple_of(2) {
                (blue, orange)
            } else {
                (orange, blue)
            }
        };
        let slides = |tiles: u64, empties: u64| -> u32 {
            let mut count = 0;
            let mut rest = tiles;
            while rest != 0 {
                count += (neighbours[rest.trailing_zeros() as usize] & empties).count_ones();
                rest &= rest - 1;
            }
            count
        };
        for state in 0..states {
            let (mine, theirs) = split(state);
            let empties = ranker.full & !(mine | theirs);
            if has_line(lines, theirs) {
                kind[state] = LOSS;
                queue.push(state as u32);
            } else if has_line(lines, mine) {
                // Unreachable (the side to move already has a line); never a parent's child.
                kind[state] = WIN;
            } else {
                // Zero slides is a draw: it stays UNKNOWN with no children to wait for.
                remaining[state] = slides(mine, empties) as u8;
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let state = queue[head] as usize;
            head += 1;
            // The side that just moved ("theirs" here) slid a tile from a now-empty square
            // `from` to one of its squares `to`: undoing that gives the parents.
            let (mine, theirs) = split(state);
            let empties = ranker.full & !(mine | theirs);
            let d = distance[state] + 1;
            let mut rest = theirs;
            while rest != 0 {
                let to = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let mut origins = neighbours[to] & empties;
                while origins != 0 {
                    let from = origins.trailing_zeros() as usize;
                    origins &= origins - 1;
                    // A parent that was already over (a line on either side) is not UNKNOWN,
                    // so the check below skips it.
                    let parent_movers = theirs ^ (1 << to) ^ (1 << from);
                    let (blue, orange) =
                        if state.is_multiple_of(2) { (mine, parent_movers) } else { (parent_movers, mine) };
                    let parent = ranker.rank(blue, orange) * 2 + (1 - state % 2);
                    if kind[parent] != UNKNOWN {
                        continue;
                    }
                    if kind[state] == LOSS {
                        kind[parent] = WIN;
                        distance[parent] = d;
                        queue.push(parent as u32);
                    } else {
                        remaining[parent] -= 1;
                        if remaining[parent] == 0 {
                            kind[parent] = LOSS;
                            distance[parent] = d;
                            queue.push(parent as u32);
                        }
                    }
                }
            }
        }
        Some(SlidePhaseTable { variant, ranker, kind, distance })
    }

    /// The value of a slide-phase position of this table's variant.
    pub fn value(&self, position: &Slide) -> Option<SlideValue> {
        if position.slide_variant() != self.variant || position.is_placement_phase() {
            return None;
        }
        let rank = self.ranker.rank(position.tiles(Side::Blue), position.tiles(Side::Orange));
        let state = rank * 2 + position.side_to_move() as usize;
        Some(match *self.kind.get(state)? {
            WIN => SlideValue::Win(self.distance[state] as u32),
            LOSS => SlideValue::Loss(self.distance[state] as u32),
            _ => SlideValue::Draw,
        })
    }

    /// The number of boards in the table.
    pub fn boards(&self) -> usize {
        self.kind.len() / 2
    }
}

/// The empty squares that would complete a line of `tiles` (lines the other side has not touched).
fn completing_squares(lines: &[u64], tiles: u64, other: u64) -> u64 {
    let mut squares = 0;
    for &line in lines {
        let missing = line & !tiles;
        if line & other == 0 && missing.count_ones() == 1 {
            squares |= missing;
        }
    }
    squares
}

/// Calls `f` with every `k`-subset of `0..n` as a bit mask (Gosper's hack).
fn for_each_subset(n: usize, k: usize, mut f: impl FnMut(u64)) {
    if k > n {
        return;
    }
    if k == 0 {
        f(0);
        return;
    }
    let mut set: u64 = (1 << k) - 1;
    let limit: u64 = 1 << n;
    while set < limit {
        f(set);
        let c = set & set.wrapping_neg();
        let r = set + c;
        set = (((r ^ set) >> 2) / c) | r;
    }
}

/// The slide-phase table of a variant, built once per process and shared.
pub fn shared_table(variant: SlideVariant) -> Option<Arc<SlidePhaseTable>> {
    static CACHE: OnceLock<Mutex<HashMap<SlideVariant, Option<Arc<SlidePhaseTable>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    cache.entry(variant).or_insert_with(|| SlidePhaseTable::build(variant).map(Arc::new)).clone()
}

/// Can a variant be solved exactly by [`SlideSolver`]? (Every 3x3 and 4x4 variant can.)
pub fn is_solvable(variant: SlideVariant) -> bool {
    variant.squares() <= 16 && (variant.empty() == 0 || slide_phase_boards(variant) <= MAX_TABLE_BOARDS)
}

/// Exact values of positions of one variant: the slide-phase table plus a table of bounds for
/// the placement phase, kept between calls.
pub struct SlideSolver {
    variant: SlideVariant,
    table: Option<Arc<SlidePhaseTable>>,
    bounds: FastMap<(u64, u64), (i32, i32)>,
    symmetry: Symmetries,
    nodes: u64,
    /// Searches give up at this instant ([`SlideSolver::try_value`]).
    deadline: Option<Instant>,
    /// The current search ran out of time: its values are not valid and are not stored.
    stopped: bool,
}

/// Maps (row, col) on an n x n board to its image under one symmetry.
type SquareMap = fn(usize, usize, usize) -> (usize, usize);

/// The eight symmetries of the square (rotations and reflections) map rows, columns, the two
/// diagonals and neighbours onto each other, so symmetric placement positions share one entry.
struct Symmetries {
    // [symmetry][byte index][byte value] -> the image of those 8 squares.
    images: Vec<[[u64; 256]; 2]>,
}

impl Symmetries {
    fn new(size: usize) -> Self {
        let n = size;
        let maps: [SquareMap; 8] = [
            |r, c, _| (r, c),
            |r, c, n| (c, n - 1 - r),
            |r, c, n| (n - 1 - r, n - 1 - c),
            |r, c, n| (n - 1 - c, r),
            |r, c, _| (c, r),
            |r, c, n| (r, n - 1 - c),
            |r, c, n| (n - 1 - c, n - 1 - r),
            |r, c, n| (n - 1 - r, c),
        ];
        let images = maps
            .iter()
            .map(|map| {
                let mut table = [[0u64; 256]; 2];
                for (part, bytes) in table.iter_mut().enumerate() {
                    for (value, image) in bytes.iter_mut().enumerate() {
                        for bit in 0..8 {
                            let sq = part * 8 + bit;
                            if value & (1 << bit) != 0 && sq < n * n {
                                let (r, c) = map(sq / n, sq % n, n);
                                *image |= 1 << (r * n + c);
                            }
                        }
                    }
                }
                table
            })
            .collect();
        Symmetries { images }
    }

    fn image(table: &[[u64; 256]; 2], bits: u64) -> u64 {
        table[0][(bits & 0xff) as usize] | table[1][((bits >> 8) & 0xff) as usize]
    }

    /// The smallest image of a board (at most 16 squares) under the symmetries.
    fn canonical(&self, blue: u64, orange: u64) -> (u64, u64) {
        self.images.iter().map(|t| (Self::image(t, blue), Self::image(t, orange))).min().unwrap_or((blue, orange))
    }
}

fn encode(value: SlideValue) -> i32 {
    match value {
        SlideValue::Win(d) => DECISIVE - d as i32,
        SlideValue::Draw => 0,
        SlideValue::Loss(d) => -(DECISIVE - d as i32),
    }
}

fn decode(value: i32) -> SlideValue {
    if value >= DECISIVE_MIN {
        SlideValue::Win((DECISIVE - value) as u32)
    } else if value <= -DECISIVE_MIN {
        SlideValue::Loss((DECISIVE + value) as u32)
    } else {
        SlideValue::Draw
    }
}

impl SlideSolver {
    /// A solver for `variant`, or `None` if it is too large to solve exactly (see [`is_solvable`]).
    pub fn new(variant: SlideVariant) -> Option<Self> {
        if !is_solvable(variant) {
            return None;
        }
        let table = if variant.empty() == 0 { None } else { Some(shared_table(variant)?) };
        Some(SlideSolver {
            variant,
            table,
            bounds: FastMap::default(),
            symmetry: Symmetries::new(variant.size()),
            nodes: 0,
            deadline: None,
            stopped: false,
        })
    }

    /// The variant this solver answers for.
    pub fn variant(&self) -> SlideVariant {
        self.variant
    }

    /// Nodes searched in the placement phase so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact value of `position` for the side to move (without history: repetition of
    /// earlier positions does not change values, see the module documentation).
    ///
    /// ```
    /// use tabletop::games::slide::{solver::{SlideSolver, SlideValue}, Slide};
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// let mut solver = SlideSolver::new(board.slide_variant()).unwrap();
    /// assert_eq!(solver.value(&board), SlideValue::Win(1));
    /// ```
    pub fn value(&mut self, position: &Slide) -> SlideValue {
        assert_eq!(position.slide_variant(), self.variant, "position of another variant");
        let deadline = self.deadline.take();
        let value = decode(self.search(position, -INFINITE, INFINITE, 0));
        self.deadline = deadline;
        value
    }

    /// The value of every legal move, for the side to move (higher [`SlideValue::rank`] is better).
    pub fn move_values(&mut self, position: &Slide) -> Vec<(SlideMove, SlideValue)> {
        let deadline = self.deadline.take();
        let values = self.try_move_values(position);
        self.deadline = deadline;
        values.expect("without a deadline the search never gives up")
    }

    /// Makes [`SlideSolver::try_value`] and [`SlideSolver::try_move_values`] give up at
    /// `deadline` (`None`: no limit). The other methods ignore it.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// The exact value of `position`, or `None` if the deadline passed first. What was proved
    /// before the deadline is kept for the next call.
    ///
    /// ```
    /// use std::time::Instant;
    /// use tabletop::games::slide::{solver::{SlideSolver, SlideValue}, Slide};
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// let mut solver = SlideSolver::new(board.slide_variant()).unwrap();
    /// solver.set_deadline(Some(Instant::now()));
    /// assert_eq!(solver.try_value(&board), None);
    /// solver.set_deadline(None);
    /// assert_eq!(solver.try_value(&board), Some(SlideValue::Win(1)));
    /// ```
    pub fn try_value(&mut self, position: &Slide) -> Option<SlideValue> {
        assert_eq!(position.slide_variant(), self.variant, "position of another variant");
        self.stopped = self.deadline.is_some_and(|d| Instant::now() >= d);
        let value = self.search(position, -INFINITE, INFINITE, 0);
        let stopped = std::mem::take(&mut self.stopped);
        (!stopped).then(|| decode(value))
    }

    /// [`SlideSolver::move_values`] within the deadline, or `None` if it passed first.
    pub fn try_move_values(&mut self, position: &Slide) -> Option<Vec<(SlideMove, SlideValue)>> {
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        moves
            .into_iter()
            .map(|mv| {
                let mut child = *position;
                child.play_unchecked(mv);
                Some((mv, self.try_value(&child)?.for_parent()))
            })
            .collect()
    }

    /// The best move: the quickest win, else a draw, else the slowest loss; the first in move
    /// order among equals.
    pub fn best_move(&mut self, position: &Slide) -> Option<(SlideMove, SlideValue)> {
        let values = self.move_values(position);
        let best = values.iter().map(|(_, v)| v.rank()).max()?;
        values.into_iter().find(|(_, v)| v.rank() == best)
    }

    fn search(&mut self, position: &Slide, mut alpha: i32, mut beta: i32, ply: u32) -> i32 {
        self.nodes += 1;
        if self.stopped || self.past_deadline() {
            return 0;
        }
        match position.status() {
            Status::Over(Outcome::Draw) => return 0,
            Status::Over(Outcome::Win(seat)) => {
                let win = DECISIVE - ply as i32;
                return if seat == position.side_to_move().seat() { win } else { -win };
            }
            _ => {}
        }
        if !position.is_placement_phase() {
            let table = self.table.as_ref().expect("slide phase exists only with k > 0");
            let value = table.value(position).expect("every slide-phase board is in the table");
            return from_table(encode(value), ply);
        }
        let key = self.symmetry.canonical(position.tiles(Side::Blue), position.tiles(Side::Orange));
        let (mut low, mut high) = match self.bounds.get(&key) {
            Some(&(l, h)) => (from_table(l, ply), from_table(h, ply)),
            None => (-INFINITE, INFINITE),
        };
        if low == high || low >= beta {
            return low;
        }
        if high <= alpha {
            return high;
        }
        alpha = alpha.max(low);
        beta = beta.min(high);
        let (alpha_start, beta_start) = (alpha, beta);
        let me = position.side_to_move();
        let (mine, theirs) = (position.tiles(me), position.tiles(me.other()));
        let lines = super::rules::lines(self.variant.size());
        if completing_squares(lines, mine, theirs) != 0 {
            return DECISIVE - (ply as i32 + 1); // a win at once is the best there is
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        if position.empty_count() - 1 > self.variant.empty() {
            // The opponent places next: two threats lose, one threat must be blocked (any other
            // move loses in two plies, while the block cannot lose that fast).
            let threats = completing_squares(lines, theirs, mine);
            match threats.count_ones() {
                0 => {}
                1 => moves.retain(|&mv| mv == SlideMove::Place(threats.trailing_zeros() as u8)),
                _ => return -(DECISIVE - (ply as i32 + 2)),
            }
        }
        let mut best = -INFINITE;
        for mv in moves {
            let mut child = *position;
            child.play_unchecked(mv);
            let value = -self.search(&child, -beta, -alpha, ply + 1);
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        if best <= alpha_start {
            high = best;
        } else if best >= beta_start {
            low = best;
        } else {
            low = best;
            high = best;
        }
        if self.stopped {
            return 0; // an unfinished search proves nothing
        }
        self.bounds.insert(key, (to_table(low, ply), to_table(high, ply)));
        best
    }

    /// Is there a deadline, and has it passed? (Looked at every 4,096 nodes; sets `stopped`.)
    fn past_deadline(&mut self) -> bool {
        if self.deadline.is_some() && self.nodes.is_multiple_of(4096) {
            // A server cancelling an analysis (crate::cancel) stops it as its deadline would.
            if self.deadline.is_some_and(|deadline| Instant::now() >= deadline) || crate::cancel::cancelled() {
                self.stopped = true;
            }
        }
        self.stopped
    }
}
