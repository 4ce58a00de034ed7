//! The engine's player: iterative-deepening principal-variation search on bitboards with a
//! transposition table, its move first, then evaluation-based move ordering (replies alone near the leaves), the pattern evaluation
//! ([`PatternWeights::evaluate`](super::patterns::PatternWeights::evaluate); `engine-v1` keeps
//! the ten features of [`Weights::evaluate`](super::eval::Weights::evaluate)), and an exact
//! endgame solve once the empties are few enough for the budget.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::bitboard::{adjacent, final_score, flips, moves, Bits, CORNERS, EDGES};
use super::eval::Weights;
use super::patterns::{Indices, PatternWeights};
use super::rules::{Reversi, ReversiMove, Square};
use super::probcut::ProbCut;
use super::lockless::Slot;
use super::solver::{Outcome, ParallelSolver, Solver};
use super::symmetry::canonical;
use crate::clock::TimeControl;
use crate::players::{forced_move, Player, TimeLeft};
use crate::memory::{try_large_vec, TableAllocError};
use crate::record::Record;

/// The default [`Engine::reply_weight`]: a move is ordered by the evaluation of the position
/// it leads to plus this many hundredths of a disc per reply the opponent has there (fewer
/// replies first). With 100 the search to depth 15 of `tabletop bench reversi`'s 8 midgame
/// positions took 22% fewer nodes than with the evaluation alone (docs/REVERSI.md, issue 23).
pub const REPLY_WEIGHT: i32 = 100;

/// Values at or beyond this are decided games (`WON + disc difference`).
pub const WON: i32 = 100_000;

/// The time for one move: the search aims at `target` and never runs past `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveTime {
    /// No iteration is started past it, nor one predicted to end well past it.
    pub target: Duration,
    /// The deadline: a search still running is stopped (with the best move so far).
    pub limit: Duration,
}

/// An iteration is started if this share of it is predicted to fit: its first move (the
/// previous best, with a full window) takes about half of it, and a move that proves better
/// early in it is already worth having. With a fixed time per move (`engine:time=T`) time left
/// unused is lost, so a tenth is enough: 0.4 used 83% of the budget on average, 0.25 91-92%,
/// 0.1 96-99%, 0 100% (`tabletop bench reversi --time-use 50`).
const FIXED_TIME_SHARE: f64 = 0.1;

/// The same share with a game clock, whose unused time is kept for later moves.
const CLOCK_SHARE: f64 = 0.25;

impl MoveTime {
    /// A fixed budget per move (`engine:time=T`): aim at `T`, stop at `T`.
    pub fn fixed(time: Duration) -> MoveTime {
        MoveTime { target: time, limit: time }
    }

    /// Both times times `num / den`.
    fn scaled(self, num: u32, den: u32) -> MoveTime {
        MoveTime { target: self.target * num / den, limit: self.limit * num / den }
    }

    /// Whether to start another iteration after `elapsed`, the last iteration having taken
    /// `last` and the one before `before`. The next is predicted to take `last` times the
    /// growth from `before` to `last` (odd and even depths alternate, so the growth is kept
    /// within 1.5-8). It is started when the elapsed time is below the target and a share of
    /// it is predicted to fit before the limit (a tenth with a fixed time per move, a quarter
    /// with a game clock, where `target < limit`): stopped there, it may still improve the
    /// move.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::engine::MoveTime;
    /// let ms = Duration::from_millis;
    /// let t = MoveTime::fixed(ms(100));
    /// assert!(t.start_next(ms(20), ms(10), ms(4)));
    /// assert!(!t.start_next(ms(100), ms(10), ms(4)));
    /// // The next iteration would take about 180 ms: a tenth of it fits in the 40 ms left.
    /// assert!(t.start_next(ms(60), ms(60), ms(20)));
    /// // Not in the 15 ms left.
    /// assert!(!t.start_next(ms(85), ms(60), ms(20)));
    /// // With a clock (aim at 100 ms, stop at 250 ms) a quarter of it must fit.
    /// let clock = MoveTime { target: ms(100), limit: ms(250) };
    /// assert!(clock.start_next(ms(60), ms(60), ms(20)));
    /// assert!(!clock.start_next(ms(90), ms(200), ms(50)));
    /// ```
    pub fn start_next(&self, elapsed: Duration, last: Duration, before: Duration) -> bool {
        if elapsed >= self.target {
            return false;
        }
        let growth = if before.as_micros() >= 200 { last.as_secs_f64() / before.as_secs_f64() } else { 3.0 };
        let next = last.as_secs_f64() * growth.clamp(1.5, 8.0);
        let share = if self.target >= self.limit { FIXED_TIME_SHARE } else { CLOCK_SHARE };
        elapsed.as_secs_f64() + share * next <= self.limit.as_secs_f64()
    }
}

/// A game clock for the side to move: the time left for the rest of the game and the increment
/// added after each move (`engine:clock=5m+2s`, or the time an NBoard GUI gives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left for every remaining move.
    pub remaining: Duration,
    /// Added after each move.
    pub increment: Duration,
}

impl Clock {
    /// The budget of the next move in `position`. The remaining time is shared among the side
    /// to move's remaining moves with more weight in the midgame (where the game is decided
    /// and the search gains most) than in the opening and in the endgame (solved exactly in
    /// a fraction of the time); a small reserve and the increment's share are kept, and no
    /// move may take more than a fifth of the time left.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::{engine::Clock, Reversi};
    /// use tabletop::Game;
    /// let clock = Clock { remaining: Duration::from_secs(300), increment: Duration::ZERO };
    /// let opening = clock.budget(&Reversi::new());
    /// let mut mid = Reversi::new();
    /// for mv in ["f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7", "d7", "c6"] {
    ///     mid.play(mv.parse().unwrap()).unwrap();
    /// }
    /// let mid = clock.budget(&mid);
    /// assert!(mid.target > opening.target);
    /// assert!(mid.limit <= Duration::from_secs(60) && mid.target <= mid.limit);
    /// ```
    pub fn budget(&self, position: &Reversi) -> MoveTime {
        let empties = position.open_squares();
        // About 2% (at most a second) stays in reserve against the overheads of a move.
        let reserve = (self.remaining / 50).min(Duration::from_secs(1));
        let usable = self.remaining.saturating_sub(reserve);
        let weights: f64 = (1..=empties).rev().step_by(2).map(clock_weight).sum();
        let share = usable.as_secs_f64() * clock_weight(empties) / weights.max(1.0);
        let increment = self.increment.as_secs_f64() * 0.9;
        let cap = usable.as_secs_f64() / 5.0 + increment;
        let target = (share + increment).min(cap);
        MoveTime {
            target: Duration::from_secs_f64(target),
            limit: Duration::from_secs_f64((2.5 * target).min(cap)),
        }
    }
}

/// The weight of a move at `empties` empties in the sharing of a game clock.
fn clock_weight(empties: u32) -> f64 {
    match empties {
        0..=12 => 0.15,
        13..=20 => 0.8,
        21..=44 => 1.5,
        45..=52 => 1.0,
        _ => 0.6,
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    p: u64,
    o: u64,
    value: i32,
    depth: u8,
    bound: u8,
    best: u8,
    /// The search that stored it ([`Search::age`]).
    age: u8,
}

impl Entry {
    /// The entry's data in one word (a [`Slot`]'s data).
    #[inline]
    fn data(&self) -> u64 {
        self.value as u32 as u64
            | (self.depth as u64) << 32
            | (self.bound as u64) << 40
            | (self.best as u64) << 48
            | (self.age as u64) << 56
    }

    /// The entry of the position (`p`, `o`) with the data word `d`.
    #[inline]
    fn from_data(p: u64, o: u64, d: u64) -> Entry {
        Entry {
            p,
            o,
            value: d as u32 as i32,
            depth: (d >> 32) as u8,
            bound: (d >> 40) as u8,
            best: (d >> 48) as u8,
            age: (d >> 56) as u8,
        }
    }
}

/// Two table entries in one cache line (48 bytes and padding), so that a probe reads one
/// line: buckets of two 24-byte entries side by side put half of them across two lines.
#[derive(Default)]
#[repr(C, align(64))]
struct Bucket([Slot; 2]);

/// The midgame search's table, shared by the threads of one engine (the tasks of the split
/// nodes, [`Search::split_children`]). Its slots are
/// lock-free ([`Slot`]): an entry half written by another thread reads as none.
struct Table {
    buckets: Vec<Bucket>,
    /// The number of buckets less one (a power of two less one).
    mask: usize,
}

impl Table {
    /// A table of `2^bits` entries (two to a bucket).
    fn try_new(bits: u32) -> Result<Table, TableAllocError> {
        Ok(Table { buckets: try_large_vec(1 << (bits - 1), Bucket::default)?, mask: (1 << (bits - 1)) - 1 })
    }

    fn clear(&self) {
        self.buckets.iter().flat_map(|b| &b.0).for_each(Slot::clear);
    }

    /// The bucket of a position.
    #[inline]
    fn bucket(&self, p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        (h >> 25) as usize & self.mask
    }

    /// Starts fetching the bucket of the position into the cache, for a probe soon after.
    #[inline]
    fn prefetch(&self, p: u64, o: u64) {
        crate::memory::prefetch(&self.buckets[self.bucket(p, o)]);
    }

    /// The table's entry for the position, if it holds one.
    #[inline]
    fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        self.buckets[self.bucket(p, o)].0.iter().find_map(|slot| slot.get(p, o)).map(|d| Entry::from_data(p, o, d))
    }

    /// Stores an entry in its bucket: the first slot keeps the deepest entry of the current
    /// search (an entry of an earlier search, a shallower one or the same position gives way),
    /// the second takes the rest. One slot always replaced lost the deep entries to the many
    /// shallow ones: twice the nodes to depth 15 (see docs/REVERSI.md, "Search speed").
    #[inline]
    fn store(&self, entry: Entry) {
        let slots = &self.buckets[self.bucket(entry.p, entry.o)].0;
        let (fp, fo, fd) = slots[0].peek();
        let first = Entry::from_data(fp, fo, fd);
        let keep_first = !(first.p == entry.p && first.o == entry.o) && first.age == entry.age && first.depth > entry.depth;
        slots[keep_first as usize].set(entry.p, entry.o, entry.data());
    }
}

/// The engine's search table holds `2^ENGINE_TABLE_BITS` entries (two to a [`Bucket`]).
const ENGINE_TABLE_BITS: u32 = 18;
/// The engine's endgame solver has a table of `2^ENGINE_SOLVER_BITS` entries.
const ENGINE_SOLVER_BITS: u32 = 20;

const LOWER: u8 = 1;
const UPPER: u8 = 2;
const EXACT: u8 = 3;

/// What the engine thinks of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The move it would play.
    pub best: ReversiMove,
    /// Its value for the side to move: hundredths of a disc, or the exact final disc difference
    /// when `exact` is true.
    pub value: i32,
    /// True when the value is the exact final score from the endgame solver.
    pub exact: bool,
    /// The result with perfect play, when the solver proved it: with an exact value, or alone
    /// (win, draw or loss without the margin, [`Solver::solve_outcome`]), the value then
    /// being the midgame estimate made to agree with it.
    pub outcome: Option<Outcome>,
    /// The deepest completed iteration (plies), or the empties solved.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl Analysis {
    /// The value in words: `+12 (exact)` or `+1.35 discs`.
    pub fn describe(&self) -> String {
        if self.exact {
            format!("{:+} exact", self.value)
        } else if let Some(outcome) = self.outcome {
            let proven = match outcome {
                Outcome::Win => "a proven win",
                Outcome::Draw => "a proven draw",
                Outcome::Loss => "a proven loss",
            };
            format!("{:+.2} discs, {proven}", self.value as f64 / 100.0)
        } else if self.value.abs() >= WON {
            let d = self.value.abs() - WON;
            format!("{} by {d} discs (proved)", if self.value > 0 { "wins" } else { "loses" })
        } else {
            format!("{:+.2} discs", self.value as f64 / 100.0)
        }
    }
}

/// The state of one thread of the midgame search: the shared table, its counters, and the
/// engine's settings copied at the start of each search ([`Engine::prepare`]).
struct Search {
    table: Arc<Table>,
    /// Raised by the first thread of a search that meets the deadline or a cancel, so that
    /// the others stop too (read with the clock).
    halt: Arc<AtomicBool>,
    /// The cut-off flags of the split nodes this thread's task descends from
    /// ([`Search::split_children`]): when one is raised, a sibling has decided the node and
    /// the task stops.
    aborts: Vec<Arc<AtomicBool>>,
    /// Counts the searches (wrapping). Entries of earlier searches give their move only, not
    /// their bounds: with ProbCut those bounds are estimates, and one carried over from the
    /// previous move's search once made the engine play into a wipe-out in four plies
    /// (`tests::an_earlier_search_does_not_hide_a_wipe_out`).
    age: u8,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// Calls of [`Search::pvs_with`] until the clock is read again.
    checks_until_clock: u32,
    reply_weight: i32,
    probcut: Option<&'static ProbCut>,
    weights: &'static Weights,
    patterns: Option<&'static PatternWeights>,
}

impl Search {
    /// A thread's state on `table`, stopped by `halt`.
    fn new(table: Arc<Table>, halt: Arc<AtomicBool>) -> Search {
        Search {
            table,
            halt,
            aborts: Vec::new(),
            age: 0,
            nodes: 0,
            deadline: None,
            stopped: false,
            checks_until_clock: CLOCK_EVERY,
            reply_weight: REPLY_WEIGHT,
            probcut: None,
            weights: Weights::builtin(),
            patterns: None,
        }
    }
}

/// The most threads an engine searches on (`engine:threads=N`).
pub const MAX_THREADS: usize = 64;

/// Moves the engine plays without searching: the opening book ([`super::book::Book`]), seen
/// through this trait so that the engine does not depend on the book that is built with it.
pub trait BookMoves: Send + Sync {
    /// The book's best move in `position`, its value for the side to move (hundredths of a
    /// disc, or [`WON`] plus the margin) and the depth that valued it; `None` out of the book.
    fn book_move(&self, position: &Reversi) -> Option<(ReversiMove, i32, u32)>;
}

/// The engine: a search with its tables. Reuse it across moves.
pub struct Engine {
    /// The search of the thread that calls the engine; a parallel search forks its tasks'
    /// searches from it.
    search: Search,
    /// The threads of the midgame search when there are several (none: one thread).
    pool: Option<rayon::ThreadPool>,
    solver: ParallelSolver,
    /// The weight of each opponent reply in the midgame search's ordering key, hundredths of
    /// a disc ([`REPLY_WEIGHT`] by default; 0 orders by the evaluation alone).
    pub reply_weight: i32,
    /// Multi-ProbCut in the midgame search ([`ProbCut`]); `None` searches every move fully.
    pub probcut: Option<&'static ProbCut>,
    /// Time budget per move.
    pub time: Option<Duration>,
    /// Depth limit (plies) for the midgame search.
    pub depth: Option<u32>,
    /// The ten-feature evaluation's weights (`engine-v1`), used when `patterns` is `None`.
    pub weights: &'static Weights,
    /// The pattern evaluation's weights (the built-in ones unless replaced); `None` selects
    /// the ten-feature evaluation of `engine-v1`.
    pub patterns: Option<&'static PatternWeights>,
    /// The opening book consulted before searching ([`Engine::analyse`] and the clock's
    /// [`Engine::analyse_clock`]); `None` (the default) always searches.
    pub book: Option<&'static dyn BookMoves>,
}

impl Engine {
    /// An engine with a time budget and/or a depth limit (neither: 1 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let mut engine = Engine::new(None, Some(4));
    /// let analysis = engine.analyse(&Reversi::new());
    /// assert_eq!(analysis.depth, 4);
    /// assert!(Reversi::new().legal_placements().iter().any(|s| analysis.best.to_string() == s.to_string()));
    /// ```
    ///
    /// Panics if its tables cannot be allocated; [`Engine::try_new`] returns an error instead.
    pub fn new(time: Option<Duration>, depth: Option<u32>) -> Engine {
        Engine::try_new(time, depth).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An engine as [`Engine::new`], or an error when its tables ([`Engine::MEMORY_BYTES`])
    /// cannot be allocated.
    ///
    /// ```
    /// use tabletop::games::reversi::engine::Engine;
    /// let engine = Engine::try_new(None, Some(2)).unwrap();
    /// assert_eq!(engine.depth, Some(2));
    /// ```
    pub fn try_new(time: Option<Duration>, depth: Option<u32>) -> Result<Engine, TableAllocError> {
        let time = if time.is_none() && depth.is_none() { Some(Duration::from_secs(1)) } else { time };
        let table = Arc::new(Table::try_new(ENGINE_TABLE_BITS)?);
        Ok(Engine {
            search: Search::new(table, Arc::new(AtomicBool::new(false))),
            pool: None,
            solver: ParallelSolver::try_new(1, ENGINE_SOLVER_BITS)?,
            reply_weight: REPLY_WEIGHT,
            weights: Weights::builtin(),
            patterns: Some(PatternWeights::builtin()),
            probcut: Some(ProbCut::builtin()),
            time,
            depth,
            book: None,
        })
    }

    /// An engine as [`Engine::try_new`] with the ten-feature evaluation of `engine-v1`.
    ///
    /// ```
    /// use tabletop::games::reversi::engine::Engine;
    /// assert!(Engine::try_new_v1(None, Some(2)).unwrap().patterns.is_none());
    /// ```
    pub fn try_new_v1(time: Option<Duration>, depth: Option<u32>) -> Result<Engine, TableAllocError> {
        let mut engine = Engine::try_new(time, depth)?;
        engine.patterns = None;
        engine.probcut = None;
        engine.reply_weight = 0;
        Ok(engine)
    }

    /// Forgets every earlier search: the engine then searches exactly as a new one with the
    /// same settings would, without allocating its tables again. (Allocating and dropping
    /// them for each of thousands of games, with small allocations kept in between, made the
    /// allocator leave the freed tables unused: self-play grew by about 15 MB a game.)
    ///
    /// ```
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let position: Reversi = Reversi::new();
    /// let mut used = Engine::new(None, Some(5));
    /// used.analyse(&position);
    /// used.clear();
    /// let (again, fresh) = (used.analyse(&position), Engine::new(None, Some(5)).analyse(&position));
    /// assert_eq!((again.best, again.value, again.nodes), (fresh.best, fresh.value, fresh.nodes));
    /// ```
    pub fn clear(&mut self) {
        self.search.table.clear();
        self.search.age = 0;
        self.search.nodes = 0;
        self.search.deadline = None;
        self.search.stopped = false;
        self.search.checks_until_clock = CLOCK_EVERY;
        self.solver.clear();
    }

    /// The threads the engine searches on (1 unless [`Engine::set_threads`] said more).
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, rayon::ThreadPool::current_num_threads)
    }

    /// Searches on `threads` threads (clamped to 1..=[`MAX_THREADS`]): the midgame search by
    /// young brothers wait over a work-stealing pool (each node along the first line, and
    /// below it each node whose first move did not cut, with at least 6 plies to go, has its other moves searched as tasks of the pool; one table shared), the
    /// exact solves by
    /// [`ParallelSolver`] (one table shared too). The fixed-depth values of
    /// [`Engine::move_values`] and [`Engine::move_values_to`] stay on one thread, so that they
    /// are the same on every run; exact scores are the same on any number of threads.
    ///
    /// ```
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let mut engine = Engine::new(None, Some(6));
    /// engine.set_threads(2).unwrap();
    /// assert_eq!(engine.threads(), 2);
    /// let analysis = engine.analyse(&Reversi::new());
    /// assert_eq!(analysis.depth, 6);
    /// ```
    pub fn set_threads(&mut self, threads: usize) -> Result<(), TableAllocError> {
        let threads = threads.clamp(1, MAX_THREADS);
        self.solver.set_threads(threads)?;
        self.pool = if threads > 1 {
            // Deep stacks: a thread waiting at a split node runs other nodes' tasks on top of
            // its own search.
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(SEARCH_STACK_BYTES).build();
            // Without threads to start (the system refused them), the search runs on one.
            pool.ok()
        } else {
            None
        };
        Ok(())
    }

    /// Runs `work` with the engine on one thread (its other threads kept for later): for
    /// choices that must replay exactly, which the parallel searches' (among
    /// equally good moves) do not.
    ///
    /// ```
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let mut engine = Engine::new(None, Some(5));
    /// engine.set_threads(2).unwrap();
    /// let (a, b) = (engine.on_one_thread(|e| e.analyse(&Reversi::new())), Engine::new(None, Some(5)).analyse(&Reversi::new()));
    /// assert_eq!((a.best, a.value, a.nodes), (b.best, b.value, b.nodes));
    /// assert_eq!(engine.threads(), 2);
    /// ```
    pub fn on_one_thread<R>(&mut self, work: impl FnOnce(&mut Engine) -> R) -> R {
        let pool = self.pool.take();
        let solvers = self.solver.split_off_helpers();
        let result = work(self);
        self.pool = pool;
        self.solver.rejoin(solvers);
        result
    }

    /// Starts a search of every thread: the engine's settings copied, a new age, the counters
    /// and the stop flags cleared, and `deadline` set.
    fn prepare(&mut self, deadline: Option<Instant>) {
        let age = self.search.age.wrapping_add(1);
        self.search.halt.store(false, AtomicOrdering::Relaxed);
        let (reply_weight, probcut, weights, patterns) = (self.reply_weight, self.probcut, self.weights, self.patterns);
        {
            let search = &mut self.search;
            search.age = age;
            search.nodes = 0;
            search.stopped = false;
            search.deadline = deadline;
            search.reply_weight = reply_weight;
            search.probcut = probcut;
            search.weights = weights;
            search.patterns = patterns;
        }
    }

    /// The value of the midgame search of `depth` plies from `p` to move against `o` (which
    /// must have a move), without a time limit, in hundredths of a disc (or [`WON`] plus the
    /// disc difference for a decided game).
    ///
    /// ```
    /// use tabletop::games::reversi::engine::Engine;
    /// let mut engine = Engine::new(None, Some(1));
    /// let (p, o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
    /// assert_eq!(engine.search_value(p, o, 2), engine.search_value(o, p, 2));
    /// ```
    pub fn search_value(&mut self, p: u64, o: u64, depth: u32) -> i32 {
        if moves(p, o) == 0 {
            return 0;
        }
        let (saved, time) = (self.depth, self.time);
        self.depth = Some(depth.max(1));
        self.time = None;
        let value = self.midgame(p, o, None, Instant::now()).value;
        self.depth = saved;
        self.time = time;
        value
    }

    /// The static evaluation of a position for the side to move, in hundredths of a disc.
    #[inline]
    fn evaluate(&self, p: u64, o: u64) -> i32 {
        match self.patterns {
            Some(w) => w.evaluate(p, o),
            None => self.weights.evaluate(p, o),
        }
    }

    /// The memory of one engine in bytes: its search table and its endgame solver's tables
    /// (about 30 MB).
    ///
    /// ```
    /// use tabletop::games::reversi::engine::Engine;
    /// assert!(Engine::MEMORY_BYTES > 20 << 20 && Engine::MEMORY_BYTES < 64 << 20);
    /// ```
    pub const MEMORY_BYTES: u64 =
        (std::mem::size_of::<Bucket>() as u64) * (1 << (ENGINE_TABLE_BITS - 1)) + Solver::memory_bytes(ENGINE_SOLVER_BITS);

    /// The most empties the exact solver is tried on within `limit`.
    fn solve_empties(limit: Option<Duration>) -> u32 {
        reach(limit, &[(3000, 22), (900, 20), (250, 18), (80, 16), (0, 12)])
    }

    /// Chooses a move for the side to move in `position` and says how good it is, within the
    /// engine's [`time`](Engine::time) and [`depth`](Engine::depth).
    pub fn analyse(&mut self, position: &Reversi) -> Analysis {
        let budget = self.time.map(MoveTime::fixed);
        self.analyse_within(position, budget)
    }

    /// Chooses a move with a game clock ([`Clock::budget`]): a forced move is played at once,
    /// and the engine's [`depth`](Engine::depth) still limits the midgame search.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::{engine::{Clock, Engine}, Reversi};
    /// let mut engine = Engine::new(None, None);
    /// let clock = Clock { remaining: Duration::from_millis(600), increment: Duration::ZERO };
    /// let a = engine.analyse_clock(&Reversi::new(), &clock);
    /// assert!(a.elapsed < Duration::from_millis(300));
    /// ```
    pub fn analyse_clock(&mut self, position: &Reversi, clock: &Clock) -> Analysis {
        let start = Instant::now();
        let (p, o) = position.player_opponent();
        let m = moves(p, o);
        if m.count_ones() == 1 {
            // Nothing to choose: the clock is kept for the moves that need it.
            let best = Square::from_index(m.trailing_zeros() as usize).map(ReversiMove::Place).expect("a square");
            return Analysis { best, value: 0, exact: false, outcome: None, depth: 0, nodes: 0, elapsed: start.elapsed() };
        }
        self.analyse_within(position, Some(clock.budget(position)))
    }

    /// Chooses a move within `budget` (none: the depth limit alone).
    pub fn analyse_within(&mut self, position: &Reversi, budget: Option<MoveTime>) -> Analysis {
        let start = Instant::now();
        let (p, o) = position.player_opponent();
        let m = moves(p, o);
        if m == 0 {
            return Analysis {
                best: ReversiMove::Pass,
                value: 0,
                exact: false,
                outcome: None,
                depth: 0,
                nodes: 0,
                elapsed: start.elapsed(),
            };
        }
        if let Some((best, value, depth)) = self.book.and_then(|book| book.book_move(position)) {
            // The book's move and value, without a search (nodes 0, the book's depth).
            return Analysis { best, value, exact: false, outcome: None, depth, nodes: 0, elapsed: start.elapsed() };
        }
        let empties = position.open_squares();
        let limit = budget.map(|b| b.limit);
        let exact_possible = self.depth.is_none() && empties <= Engine::solve_empties(limit);
        let outcome_reach = match Engine::outcome_empties(limit) {
            0 => 0,
            proven => proven + LIKELY_EXTRA,
        };
        let outcome_possible = self.depth.is_none() && !exact_possible && empties <= outcome_reach;
        if outcome_possible {
            let mut result = self.outcome_first(position, budget, start);
            result.elapsed = start.elapsed();
            return result;
        }
        // The midgame search gets the whole budget, or a quarter before an exact solve.
        let mid_budget = budget.map(|b| if exact_possible { b.scaled(1, 4) } else { b });
        let mut result = self.midgame(p, o, mid_budget, start);
        if exact_possible {
            self.solve_into(position, (-64, 64), budget.map(|b| start + b.limit), &mut result);
        }
        result.elapsed = start.elapsed();
        result
    }

    /// The most empties at which a move is proven a win, draw or loss
    /// ([`Solver::solve_outcome`]) within `limit`, beyond the exact solve's reach. On
    /// positions of the engine's own games (fresh tables) the proof took at most 60 ms for
    /// four in five positions of 20 empties, 82 ms of 21, 157 ms of 22, 396 ms of 23 and
    /// 1.2 s of 24: about 2.3 times as long per empty (docs/REVERSI.md, "2026-12-01: proven
    /// outcomes").
    fn outcome_empties(limit: Option<Duration>) -> u32 {
        reach(limit, &[(2500, 24), (900, 23), (300, 22), (80, 20), (30, 18)])
    }

    /// A move where the game's outcome can be proven, or found likely, in time (Othello's
    /// endgame as NTest and Edax play it). The midgame search comes first, with
    /// [`MIDGAME_SHARE`] of the budget, and its move is the one the outcome solves try first;
    /// then, until the deadline, the solves: within [`Engine::outcome_empties`] the proof,
    /// beyond it (up to [`LIKELY_EXTRA`] empties more) the solver's selective stages first,
    /// each a likely outcome, then the proof. The last solve that ends decides: its winning or
    /// drawing move is played (the midgame's own when it keeps the outcome, as it is tried
    /// first); after a loss, or when none ends, the midgame's move.
    ///
    /// Time left after a proof goes to the margin: the exact score on the proven side of 0
    /// (the proof's table entries carry over), whose move keeps the outcome and loses no
    /// discs; unfinished by the deadline, the proof's move stands.
    fn outcome_first(&mut self, position: &Reversi, budget: Option<MoveTime>, start: Instant) -> Analysis {
        let mut result = self.outcome_move(position, budget, start);
        let window = match result.outcome {
            Some(Outcome::Win) => (0, 65),
            Some(Outcome::Loss) => (-65, 0),
            Some(Outcome::Draw) => {
                result.exact = true;
                result.depth = position.open_squares();
                return result;
            }
            None => return result,
        };
        self.solve_into(position, window, budget.map(|b| start + b.limit), &mut result);
        result
    }

    /// The exact score within `window` (exclusive bounds) by `deadline`: when the solve ends in
    /// time, its score and move replace the search's in `result`.
    fn solve_into(&mut self, position: &Reversi, window: (i32, i32), deadline: Option<Instant>, result: &mut Analysis) {
        self.solver.set_deadline(deadline);
        if let Some(sol) = self.solver.solve_window(position, window.0, window.1) {
            result.best = sol.best.unwrap_or(result.best);
            result.value = sol.score;
            result.exact = true;
            result.outcome = Some(Outcome::of(sol.score));
            result.depth = position.open_squares();
            result.nodes += sol.nodes;
        }
        self.solver.set_deadline(None);
    }

    /// [`Engine::outcome_first`] without the margin: the midgame search, then the outcome
    /// solves.
    fn outcome_move(&mut self, position: &Reversi, budget: Option<MoveTime>, start: Instant) -> Analysis {
        let (p, o) = position.player_opponent();
        let empties = position.open_squares();
        let mid_budget = budget.map(|b| b.scaled(MIDGAME_SHARE.0, MIDGAME_SHARE.1));
        let mut result = self.midgame(p, o, mid_budget, start);
        let own = result.best;
        let stages: &[Option<usize>] = if empties <= Engine::outcome_empties(budget.map(|b| b.limit)) {
            &[None]
        } else {
            &[Some(0), Some(1), Some(2), Some(3), None]
        };
        self.solver.set_deadline(budget.map(|b| start + b.limit));
        let mut prefer = own;
        let mut last = None;
        for &stage in stages {
            let Some(solution) = self.solver.solve_outcome_from(position, Some(prefer), stage) else { break };
            result.nodes += solution.nodes;
            if let Some(best) = solution.best {
                prefer = best;
            }
            last = Some((solution, stage.is_none()));
        }
        if let Some((solution, proven)) = last {
            result.best = solution.best.unwrap_or(own);
            if proven {
                result.outcome = Some(solution.outcome);
                result.value = match solution.outcome {
                    Outcome::Win => result.value.max(100),
                    Outcome::Draw => 0,
                    Outcome::Loss => result.value.min(-100),
                };
            }
        }
        self.solver.set_deadline(None);
        result
    }

    /// Iterative deepening. With a budget, iterations go on until the next one is predicted
    /// to overrun it (from the growth of the last two); the deadline `budget.limit` stops a
    /// search inside an iteration, which still counts if it proved a better move. With several
    /// threads, each node with at least [`SPLIT_DEPTH_MIN`] plies to go along the first line
    /// is split among them ([`Search::split_children`], young brothers wait).
    fn midgame(&mut self, p: u64, o: u64, budget: Option<MoveTime>, start: Instant) -> Analysis {
        self.prepare(budget.map(|b| start + b.limit));
        let max_depth = self.depth.unwrap_or(60).clamp(1, 60);
        let mut root: Vec<(usize, u64)> = Bits(moves(p, o)).map(|sq| (sq, flips(p, o, sq))).collect();
        root.sort_by_key(|&(sq, f)| self.evaluate(o & !f, p | f | (1 << sq)));
        let search = &mut self.search;
        let empties = empties_of(p, o);
        let (best, best_value, completed) = match &self.pool {
            None => deepen(&mut root, empties, max_depth, budget, start, |root, depth| search.root_iteration(p, o, root, depth)),
            Some(pool) => {
                let flag = crate::cancel::current();
                pool.install(|| {
                    let mut work = || deepen(&mut root, empties, max_depth, budget, start, |root, depth| search.split_root(p, o, root, depth));
                    match &flag {
                        Some(flag) => crate::cancel::run_cancellable(flag, work),
                        None => work(),
                    }
                })
            }
        };
        let best = Square::from_index(best).map(ReversiMove::Place).expect("a square");
        Analysis {
            best,
            value: best_value,
            exact: false,
            outcome: None,
            depth: completed,
            nodes: self.search.nodes,
            elapsed: start.elapsed(),
        }
    }
}

/// The empty squares of a position.
fn empties_of(p: u64, o: u64) -> u32 {
    64 - (p | o).count_ones()
}

/// Iterative deepening over the root moves `root` (their order is kept from one depth to the
/// next, the best first) from depth 1 to `max_depth`: the best square, its value and the
/// deepest depth completed. `iterate` searches the root to a depth: the best move's index in
/// `root` and its value when at least the first move was searched, and whether the search
/// stopped inside the iteration. With a budget, the next depth is started only when it is
/// predicted to be worth it ([`MoveTime::start_next`]).
fn deepen(
    root: &mut [(usize, u64)],
    empties: u32,
    max_depth: u32,
    budget: Option<MoveTime>,
    start: Instant,
    mut iterate: impl FnMut(&[(usize, u64)], u32) -> (Option<(usize, i32)>, bool),
) -> (usize, i32, u32) {
    let mut best = root[0].0;
    let mut best_value = 0;
    let mut completed = 0;
    // The durations of the last two completed iterations, for the prediction.
    let mut last = Duration::ZERO;
    for depth in 1..=max_depth {
        let iteration_start = Instant::now();
        let (found, stopped) = iterate(root, depth);
        if stopped {
            // Stopped inside the iteration: the moves searched so far at this depth began
            // with the previous best, so their best is at least as well informed.
            if let Some((i, value)) = found {
                best = root[i].0;
                best_value = value;
            }
            break;
        }
        let Some((i, value)) = found else { break };
        best = root[i].0;
        best_value = value;
        completed = depth;
        root[..=i].rotate_right(1);
        if depth >= empties || best_value.abs() >= WON {
            break;
        }
        let before = std::mem::replace(&mut last, iteration_start.elapsed());
        if let Some(b) = budget {
            if !b.start_next(start.elapsed(), last, before) {
                break;
            }
        }
    }
    (best, best_value, completed)
}

/// The most plies a value and the index of its move in a node's list can be packed for
/// [`pack_best`]: the move lists of Reversi hold at most 32 moves.
const PACKED_MOVES: usize = 64;

/// A value and the index of its move in a node's list in one word, so that `fetch_max` keeps
/// the best value and, among equal ones, the move searched first (as one thread does).
fn pack_best(value: i32, index: usize) -> u64 {
    ((value as i64 - i32::MIN as i64) as u64) << 8 | (PACKED_MOVES - 1 - index) as u64
}

/// The value and the move's index packed by [`pack_best`].
fn unpack_best(packed: u64) -> (i32, usize) {
    (((packed >> 8) as i64 + i32::MIN as i64) as i32, PACKED_MOVES - 1 - (packed & 0xFF) as usize)
}

/// The kind of bound a fail-soft value `best` searched in the window (`alpha`, `beta`) is.
fn bound_of(best: i32, alpha: i32, beta: i32) -> u8 {
    if best <= alpha {
        UPPER
    } else if best >= beta {
        LOWER
    } else {
        EXACT
    }
}

/// Nodes with at least this many plies to go are split among the threads.
const SPLIT_DEPTH_MIN: u32 = 6;

/// The stack of each thread of a parallel search: a thread waiting at a split node runs
/// other tasks on top of its own frames.
const SEARCH_STACK_BYTES: usize = 16 << 20;

impl Search {
    /// One iteration at the root on this thread: principal-variation search of the moves in
    /// their order, with a full window for the first.
    fn root_iteration(&mut self, p: u64, o: u64, root: &[(usize, u64)], depth: u32) -> (Option<(usize, i32)>, bool) {
        let mut alpha = -WON - 65;
        let beta = WON + 65;
        let mut found = None;
        for (i, &(sq, f)) in root.iter().enumerate() {
            let (np, no) = (p | f | (1 << sq), o & !f);
            let cix = Indices::new(no, np);
            let v = if i == 0 {
                -self.pvs(no, np, &cix, depth - 1, -beta, -alpha)
            } else {
                let probe = -self.pvs(no, np, &cix, depth - 1, -alpha - 1, -alpha);
                if self.stopped {
                    break;
                }
                if probe > alpha {
                    let v = -self.pvs(no, np, &cix, depth - 1, -beta, -probe);
                    if self.stopped {
                        // Stopped while re-searching: the move already proved better than
                        // the best so far at this depth, so it is the better choice.
                        found = Some((i, probe));
                        break;
                    }
                    v
                } else {
                    probe
                }
            };
            if self.stopped {
                break;
            }
            if v > alpha {
                alpha = v;
                found = Some((i, v));
            }
        }
        (found, self.stopped)
    }

    /// [`Search::root_iteration`] split among the threads of the rayon pool it runs in.
    fn split_root(&mut self, p: u64, o: u64, root: &[(usize, u64)], depth: u32) -> (Option<(usize, i32)>, bool) {
        let mut list = [(0u8, 0u64, 0u64); 32];
        for (slot, &(sq, f)) in list.iter_mut().zip(root) {
            let (np, no) = (p | f | (1 << sq), o & !f);
            *slot = (sq as u8, f, moves(no, np));
        }
        let found = self.split_children(p, o, &Indices::new(p, o), depth, (-WON - 65, WON + 65), &list[..root.len()]);
        (found, self.stopped)
    }

    /// [`Search::pvs`], with the node split among the threads of the rayon pool it runs in
    /// when it has at least [`SPLIT_DEPTH_MIN`] plies to go.
    #[allow(clippy::too_many_arguments)] // The node's arguments.
    fn split_pvs(&mut self, p: u64, o: u64, ix: &Indices, depth: u32, mut alpha: i32, mut beta: i32) -> i32 {
        let m = moves(p, o);
        if depth < SPLIT_DEPTH_MIN || m == 0 {
            return self.pvs_with(p, o, m, ix, depth, alpha, beta);
        }
        self.nodes += 1;
        let hash_move = match self.table_and_probcut(p, o, ix, depth, &mut alpha, &mut beta) {
            Ok(hash_move) => hash_move,
            Err(value) => return value,
        };
        // The moves in the order `pvs_with` tries them: the table's move, then by key.
        let mut keyed = [(0u8, 0i32, 0u64, 0u64); 32];
        let mut n = 0;
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            let (np, no) = (p | f | (1 << sq), o & !f);
            let replies = moves(no, np);
            let key = if sq as u8 == hash_move { i32::MIN } else { self.order_key(&ix.play(sq, f), no, np, replies) };
            keyed[n] = (sq as u8, key, f, replies);
            n += 1;
        }
        keyed[..n].sort_by_key(|e| e.1);
        let mut list = [(0u8, 0u64, 0u64); 32];
        for (slot, &(sq, _, f, replies)) in list.iter_mut().zip(&keyed[..n]) {
            *slot = (sq, f, replies);
        }
        let alpha_start = alpha;
        let found = self.split_children(p, o, ix, depth, (alpha, beta), &list[..n]);
        let Some((i, best)) = found.filter(|_| !self.stopped) else { return 0 };
        let bound = bound_of(best, alpha_start, beta);
        self.table.store(Entry { p, o, value: best, depth: depth as u8, bound, best: list[i].0, age: self.age });
        best
    }

    /// Searches the children `list` (square, flips, the replies) of a node with `depth` plies
    /// to go in the window (`alpha`, `beta`), young brothers wait: the first child on this
    /// thread (split in its turn), then, unless it cut, each other one as a task of the rayon
    /// pool (split in its turn), searched with a null window at the best value so far when it
    /// starts and again with the window when it proves better. A thread waiting for the tasks
    /// runs tasks of its own or of other nodes. Once a child cuts, the node's flag stops its
    /// other tasks. The best value and its move's index (the first in the list among equal
    /// values), or `None` when the search stopped before the first child ended. Fail-soft, as
    /// [`Search::pvs`].
    fn split_children(
        &mut self,
        p: u64,
        o: u64,
        ix: &Indices,
        depth: u32,
        (alpha, beta): (i32, i32),
        list: &[(u8, u64, u64)],
    ) -> Option<(usize, i32)> {
        let child = |i: usize| {
            let (sq, f, replies) = list[i];
            (o & !f, p | f | (1 << sq), replies, ix.play(sq as usize, f))
        };
        let (no, np, _, cix) = child(0);
        let first = -self.split_pvs(no, np, &cix, depth - 1, -beta, -alpha);
        if self.stopped {
            return None;
        }
        if first >= beta || list.len() == 1 {
            return Some((0, first));
        }
        let best = AtomicU64::new(pack_best(first, 0));
        let cut = Arc::new(AtomicBool::new(false));
        let nodes = AtomicU64::new(0);
        let flag = crate::cancel::current();
        let tasks: Vec<Search> = (1..list.len()).map(|_| self.fork(&cut)).collect();
        rayon::scope_fifo(|scope| {
            for (i, mut task) in (1..list.len()).zip(tasks) {
                let (best, cut, nodes, flag, child) = (&best, &cut, &nodes, &flag, &child);
                scope.spawn_fifo(move |_| {
                    let mut work = || {
                        task.poll();
                        let (no, np, _, cix) = child(i);
                        let mut a = alpha.max(unpack_best(best.load(AtomicOrdering::Relaxed)).0);
                        let v = loop {
                            if task.stopped || a >= beta {
                                return;
                            }
                            let probe = -task.split_pvs(no, np, &cix, depth - 1, -a - 1, -a);
                            if task.stopped {
                                return;
                            }
                            if probe <= a || probe >= beta {
                                break probe;
                            }
                            // Better than the best when it started: tested again at a better
                            // best found meanwhile, else searched with the window (as one
                            // thread does).
                            let now = alpha.max(unpack_best(best.load(AtomicOrdering::Relaxed)).0);
                            if probe <= now {
                                a = now;
                                continue;
                            }
                            let v = -task.split_pvs(no, np, &cix, depth - 1, -beta, -probe);
                            if task.stopped {
                                // The move already proved better than the best so far.
                                best.fetch_max(pack_best(probe, i), AtomicOrdering::Relaxed);
                                return;
                            }
                            break v;
                        };
                        best.fetch_max(pack_best(v, i), AtomicOrdering::Relaxed);
                        if v >= beta {
                            cut.store(true, AtomicOrdering::Relaxed);
                        }
                    };
                    match flag {
                        Some(flag) => crate::cancel::run_cancellable(flag, work),
                        None => work(),
                    }
                    nodes.fetch_add(task.nodes, AtomicOrdering::Relaxed);
                });
            }
        });
        self.nodes += nodes.into_inner();
        // The tasks stopped by the node's own cut-off leave its value whole; any other stop
        // (the deadline, a cancel, an ancestor's cut-off) stops this thread's search too.
        self.poll();
        let (value, i) = unpack_best(best.into_inner());
        Some((i, value))
    }

    /// A search for a task of a split node: this one's settings and table, its counters
    /// cleared, stopped by `cut` as well as by what stops this one.
    fn fork(&self, cut: &Arc<AtomicBool>) -> Search {
        let mut aborts = Vec::with_capacity(self.aborts.len() + 1);
        aborts.extend(self.aborts.iter().cloned());
        aborts.push(Arc::clone(cut));
        Search {
            table: Arc::clone(&self.table),
            halt: Arc::clone(&self.halt),
            aborts,
            age: self.age,
            nodes: 0,
            deadline: self.deadline,
            stopped: false,
            checks_until_clock: CLOCK_EVERY,
            reply_weight: self.reply_weight,
            probcut: self.probcut,
            weights: self.weights,
            patterns: self.patterns,
        }
    }

    /// Reads the clock and the flags: past the deadline or cancelled, the search stops and
    /// raises `halt` for the other threads; `halt` or a raised cut-off flag of a split node
    /// above stops it too.
    fn poll(&mut self) {
        let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d) || crate::cancel::cancelled();
        if out_of_time {
            self.halt.store(true, AtomicOrdering::Relaxed);
        }
        if out_of_time || self.halt.load(AtomicOrdering::Relaxed) || self.aborts.iter().any(|a| a.load(AtomicOrdering::Relaxed)) {
            self.stopped = true;
        }
    }
}

impl Search {
    /// The static evaluation in the search: the pattern indices `ix` kept move by move, and
    /// the side to move's moves `m` already generated.
    #[inline]
    fn evaluate_leaf(&self, ix: &Indices, p: u64, o: u64, m: u64) -> i32 {
        match self.patterns {
            Some(w) => w.evaluate_with_moves(ix, p, o, m),
            None => self.weights.evaluate(p, o),
        }
    }

    fn pvs(&mut self, p: u64, o: u64, ix: &Indices, depth: u32, alpha: i32, beta: i32) -> i32 {
        self.pvs_with(p, o, moves(p, o), ix, depth, alpha, beta)
    }

    /// [`Engine::pvs`] given the side to move's moves `m` (a parent one ply above the leaves
    /// has generated them to order its moves).
    #[allow(clippy::too_many_arguments)] // The node's arguments, and its moves.
    fn pvs_with(&mut self, p: u64, o: u64, m: u64, ix: &Indices, depth: u32, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        // Often enough (well under a millisecond) for a deadline of a few milliseconds. Counted
        // down rather than read from `nodes`, which leaves evaluated by their parents step.
        self.checks_until_clock -= 1;
        if self.checks_until_clock == 0 {
            self.checks_until_clock = CLOCK_EVERY;
            self.poll();
        }
        if self.stopped {
            return 0;
        }
        if m == 0 {
            if moves(o, p) == 0 {
                return finished_value(p, o);
            }
            return -self.pvs(o, p, &ix.pass(), depth, -beta, -alpha);
        }
        if depth == 0 {
            return self.evaluate_leaf(ix, p, o, m);
        }
        let hash_move = match self.table_and_probcut(p, o, ix, depth, &mut alpha, &mut beta) {
            Ok(hash_move) => hash_move,
            Err(value) => return value,
        };
        let alpha_start = alpha;
        let mut best = i32::MIN;
        let mut best_sq = 64u8;
        let mut rest = m;
        // The table's move first, before the other moves are generated and ordered: when it
        // cuts off, as it mostly does, that work is saved.
        if hash_move < 64 && m & (1u64 << hash_move) != 0 {
            let sq = hash_move as usize;
            rest &= !(1u64 << sq);
            let f = flips(p, o, sq);
            let (np, no) = (p | f | (1 << sq), o & !f);
            let v = -self.pvs_with(no, np, moves(no, np), &ix.play(sq, f), depth - 1, -beta, -alpha);
            if self.stopped {
                return 0;
            }
            best = v;
            best_sq = hash_move;
        }
        if best < beta && rest != 0 && depth == 1 {
            // One ply above the leaves: each child is evaluated as it is generated, the likely
            // good squares first (see `LEAF_CLASSES`).
            for sq in LEAF_CLASSES.iter().flat_map(|&class| Bits(rest & class)) {
                let f = flips(p, o, sq);
                let (np, no) = (p | f | (1 << sq), o & !f);
                let replies = moves(no, np);
                let v = if replies != 0 {
                    // A leaf, evaluated here rather than through a call of its own.
                    self.nodes += 1;
                    -self.evaluate_leaf(&ix.play(sq, f), no, np, replies)
                } else {
                    let a = alpha.max(best);
                    -self.pvs_with(no, np, replies, &ix.play(sq, f), 0, -beta, -a)
                };
                if self.stopped {
                    return 0;
                }
                if v > best {
                    best = v;
                    best_sq = sq as u8;
                    if v >= beta {
                        break;
                    }
                }
            }
        } else if best < beta && rest != 0 {
            // Each other move, its ordering key, its flips and the reply moves.
            let mut list = [(0u8, 0i32, 0u64, 0u64); 32];
            let mut n = 0;
            for sq in Bits(rest) {
                let f = flips(p, o, sq);
                let (np, no) = (p | f | (1 << sq), o & !f);
                let replies = moves(no, np);
                // The child's bucket arrives while the other moves are ordered.
                self.table.prefetch(no, np);
                let key = if depth >= ORDER_BY_EVALUATION_MIN {
                    self.order_key(&ix.play(sq, f), no, np, replies)
                } else {
                    replies.count_ones() as i32
                };
                list[n] = (sq as u8, key, f, replies);
                n += 1;
            }
            let list = &mut list[..n];
            for i in 0..n {
                // Selection rather than a full sort: most nodes cut off after a move or two.
                let mut pick = i;
                for j in i + 1..n {
                    if list[j].1 < list[pick].1 {
                        pick = j;
                    }
                }
                // Rotated rather than swapped into place, so that ties keep their order.
                list[i..=pick].rotate_right(1);
                let (sq, _, f, replies) = list[i];
                let (np, no) = (p | f | (1 << sq), o & !f);
                let cix = ix.play(sq as usize, f);
                let a = alpha.max(best);
                let v = if best == i32::MIN {
                    -self.pvs_with(no, np, replies, &cix, depth - 1, -beta, -a)
                } else {
                    let probe = -self.pvs_with(no, np, replies, &cix, depth - 1, -a - 1, -a);
                    if probe > a && probe < beta {
                        -self.pvs_with(no, np, replies, &cix, depth - 1, -beta, -probe)
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
        }
        let bound = bound_of(best, alpha_start, beta);
        self.table.store(Entry { p, o, value: best, depth: depth as u8, bound, best: best_sq, age: self.age });
        best
    }
}

impl Search {
    /// What a node learns before searching its moves: the table's bounds (which may narrow
    /// `alpha` and `beta`) and ProbCut. `Err` with the node's value when either decides it,
    /// else the table's move (64 for none).
    #[inline]
    #[allow(clippy::too_many_arguments)] // The node's arguments.
    fn table_and_probcut(&mut self, p: u64, o: u64, ix: &Indices, depth: u32, alpha: &mut i32, beta: &mut i32) -> Result<u8, i32> {
        let mut hash_move = 64u8;
        if let Some(e) = self.table.probe(p, o) {
            hash_move = e.best;
            if e.depth as u32 >= depth && e.age == self.age {
                match e.bound {
                    EXACT => return Err(e.value),
                    LOWER if e.value >= *beta => return Err(e.value),
                    UPPER if e.value <= *alpha => return Err(e.value),
                    LOWER => *alpha = (*alpha).max(e.value),
                    UPPER => *beta = (*beta).min(e.value),
                    _ => {}
                }
            }
        }
        if let Some(cut) = self.probcut {
            if let Some(v) = self.probcut(cut, p, o, ix, depth, *alpha, *beta) {
                return Err(v);
            }
        }
        Ok(hash_move)
    }

    /// The ordering key of a move (lower first) leading to the opponent's position (`no`,
    /// `np`) with the pattern indices `ix` and the opponent's moves `replies`: the position's
    /// evaluation for the opponent plus [`REPLY_WEIGHT`] (by default) per reply.
    #[inline]
    fn order_key(&self, ix: &Indices, no: u64, np: u64, replies: u64) -> i32 {
        self.evaluate_leaf(ix, no, np, replies) + self.reply_weight * replies.count_ones() as i32
    }

    /// Multi-ProbCut: a shallow null-window search predicts whether the full-depth value will
    /// be beyond `beta` (or below `alpha`) with the fitted confidence; if so, that bound.
    #[allow(clippy::too_many_arguments)] // The node's arguments, as pvs takes them.
    fn probcut(&mut self, cut: &ProbCut, p: u64, o: u64, ix: &Indices, depth: u32, alpha: i32, beta: i32) -> Option<i32> {
        let empties = 64 - (p | o).count_ones();
        let c = cut.get(depth, empties)?;
        // Decided games and windows near them are searched exactly.
        if alpha <= -PROBCUT_LIMIT || beta >= PROBCUT_LIMIT {
            return None;
        }
        let margin = PROBCUT_T * c.sigma as f64;
        let hi = ((beta as f64 + margin - c.b as f64) / c.a as f64).ceil() as i32;
        if hi < PROBCUT_LIMIT {
            let v = self.pvs(p, o, ix, c.shallow, hi - 1, hi);
            if self.stopped {
                return Some(0);
            }
            if v >= hi {
                return Some(beta);
            }
        }
        let lo = ((alpha as f64 - margin - c.b as f64) / c.a as f64).floor() as i32;
        if lo > -PROBCUT_LIMIT {
            let v = self.pvs(p, o, ix, c.shallow, lo, lo + 1);
            if self.stopped {
                return Some(0);
            }
            if v <= lo {
                return Some(alpha);
            }
        }
        None
    }
}

/// Nodes with at least this many plies to go order their moves by the evaluation of the
/// position each leads to (plus [`REPLY_WEIGHT`] per reply); shallower ones by the replies
/// alone. An evaluation per move costs more than it saves near the leaves: from 4 instead of
/// 2, the instructions to depths 11, 13 and 15 fell by 16%, 26% and 13% for 8% more, 1% fewer
/// and 15% more nodes (docs/REVERSI.md, "2026-11-29: cheaper ordering near the leaves").
const ORDER_BY_EVALUATION_MIN: u32 = 4;

/// Calls of [`Engine::pvs_with`] between two readings of the clock.
const CLOCK_EVERY: u32 = 256;

/// The order in which a node one ply above the leaves tries its moves after the table's
/// move, class by class: corners and the edge squares not next to a corner, the inner
/// squares, the edge squares next to a corner, the squares diagonal to a corner. Its children
/// are evaluated as they are generated: ordering them by their replies first cost the
/// replies and flips of every move, and a cut-off mostly comes after one or two. Depth 15 on
/// 8 positions: 19% more nodes, 20% fewer instructions (docs/REVERSI.md, "Search speed").
const LEAF_CLASSES: [u64; 4] = [
    CORNERS | EDGES_AWAY_FROM_CORNERS,
    !(CORNERS | EDGES_AWAY_FROM_CORNERS | C_SQUARES | X_SQUARES),
    C_SQUARES,
    X_SQUARES,
];

/// Edge squares that do not touch a corner (c1-f1, a3-a6 and the like).
const EDGES_AWAY_FROM_CORNERS: u64 = EDGES & !CORNERS & !adjacent(CORNERS);
/// Edge squares beside a corner (b1, a2 and the like).
const C_SQUARES: u64 = EDGES & adjacent(CORNERS);
/// The squares diagonal to a corner (b2, g2, b7, g7).
const X_SQUARES: u64 = adjacent(CORNERS) & !EDGES;

/// The empties a solve reaches within `limit`: the first of `steps` (the least limit in
/// milliseconds, the empties; largest first) that the limit meets, 0 for none or no limit.
fn reach(limit: Option<Duration>, steps: &[(u64, u32)]) -> u32 {
    let Some(limit) = limit else { return 0 };
    steps.iter().find(|&&(ms, _)| limit >= Duration::from_millis(ms)).map_or(0, |&(_, empties)| empties)
}

/// The share of the budget (numerator, denominator) of the midgame search before the outcome
/// solves ([`Engine::outcome_first`]); they take the rest.
const MIDGAME_SHARE: (u32, u32) = (2, 5);

/// Beyond [`Engine::outcome_empties`], up to this many empties more are searched for a likely
/// outcome by the solver's selective stages.
const LIKELY_EXTRA: u32 = 2;

/// Windows beyond this (hundredths of a disc) are never cut by ProbCut.
const PROBCUT_LIMIT: i32 = 6000;
/// How many standard deviations of the deep-on-shallow regression a cut needs.
const PROBCUT_T: f64 = 1.5;

/// The engine as a [`Player`].
pub struct EnginePlayer {
    engine: Engine,
    description: String,
    /// With a game clock (`engine:clock=5m+2s`): the clock at the start of a game, and the
    /// time left in this one.
    clock: Option<(Clock, Duration)>,
    /// The `time=` given, which caps a front end's game clock's budget.
    own_time: Option<Duration>,
    /// The game clock a front end keeps ([`Player::set_clock`]), told before each move.
    game_clock: Option<TimeLeft>,
}

impl EnginePlayer {
    /// An engine player with a time budget and/or a depth limit.
    pub fn new(time: Option<Duration>, depth: Option<u32>, description: String) -> Self {
        EnginePlayer { engine: Engine::new(time, depth), description, clock: None, own_time: time, game_clock: None }
    }

    /// An engine player as [`EnginePlayer::new`], or an error when the engine's tables cannot
    /// be allocated.
    pub fn try_new(time: Option<Duration>, depth: Option<u32>, description: String) -> Result<Self, TableAllocError> {
        Ok(EnginePlayer { engine: Engine::try_new(time, depth)?, description, clock: None, own_time: time, game_clock: None })
    }

    /// An engine player with the ten-feature evaluation (`engine-v1`).
    pub fn try_new_v1(
        time: Option<Duration>,
        depth: Option<u32>,
        description: String,
    ) -> Result<Self, TableAllocError> {
        let engine = Engine::try_new_v1(time, depth)?;
        Ok(EnginePlayer { engine, description, clock: None, own_time: time, game_clock: None })
    }

    /// Plays every game on `clock` (each game starts with the whole of it): each move's time
    /// comes from [`Clock::budget`], and the time it took (wall time) is taken off.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::{engine::{Clock, EnginePlayer}, Reversi};
    /// use tabletop::{Player, Record};
    /// let clock = Clock { remaining: Duration::from_millis(500), increment: Duration::ZERO };
    /// let mut player = EnginePlayer::try_new(None, None, "engine:clock=500ms".into()).unwrap().with_clock(clock);
    /// player.choose_move(&Record::new(Reversi::new()));
    /// assert!(player.time_left().unwrap() < Duration::from_millis(500));
    /// ```
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.engine.time = None;
        self.clock = Some((clock, clock.remaining));
        self
    }

    /// The time left on the game clock, if the player has one.
    pub fn time_left(&self) -> Option<Duration> {
        self.clock.map(|c| c.1)
    }

    /// The engine, for hints and analysis.
    pub fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

impl Player<Reversi> for EnginePlayer {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn choose_move(&mut self, record: &Record<Reversi>) -> ReversiMove {
        if let Some(time) = &self.game_clock {
            // A front end's clock: Fischer clocks as the engine's own clock shares them (the
            // midgame weighted, forced moves at once, exact solves when they fit); other
            // controls, or a time of its own, as a budget per move.
            if let (TimeControl::Fischer { increment, .. }, None) = (time.control, self.own_time) {
                let clock = Clock { remaining: time.own, increment };
                return self.engine.analyse_clock(record.current(), &clock).best;
            }
            if let Some(only) = forced_move(record.current()) {
                return only;
            }
            let usual = self.engine.time;
            self.engine.time = TimeLeft::cap(Some(time), self.own_time);
            let best = self.engine.analyse(record.current()).best;
            self.engine.time = usual;
            return best;
        }
        let Some((start, left)) = self.clock else {
            return self.engine.analyse(record.current()).best;
        };
        let started = Instant::now();
        let clock = Clock { remaining: left, increment: start.increment };
        let best = self.engine.analyse_clock(record.current(), &clock).best;
        let left = (left + start.increment).saturating_sub(started.elapsed());
        self.clock = Some((start, left));
        best
    }

    fn reset(&mut self) {
        if let Some((start, _)) = self.clock {
            self.clock = Some((start, start.remaining));
        }
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.game_clock = time.cloned();
    }
}

/// What the levels of play ([`levels`](super::levels)) need from the engine.
impl Engine {
    /// The value of every legal move of `position` for the side to move, searched `depth`
    /// plies deep (at least 1) with a full window, in the order of the legal moves: hundredths
    /// of a disc, or `WON` plus the disc difference once proved. A position with no placement
    /// gives `[(Pass, 0)]`. A cancelled search returns the moves searched so far.
    ///
    /// ```
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let values = Engine::new(None, Some(1)).move_values(&Reversi::new(), 2);
    /// assert_eq!(values.len(), 4);
    /// // The opening is symmetric: the four first moves are worth the same.
    /// assert!(values.iter().all(|v| v.1 == values[0].1));
    /// ```
    pub fn move_values(&mut self, position: &Reversi, depth: u32) -> Vec<(ReversiMove, i32)> {
        let (p, o) = position.player_opponent();
        let m = moves(p, o);
        if m == 0 {
            return vec![(ReversiMove::Pass, 0)];
        }
        self.prepare(None);
        let mut values = Vec::new();
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            let (cp, co) = (o & !f, p | f | (1 << sq));
            let v = -self.search.pvs(cp, co, &Indices::new(cp, co), depth.clamp(1, 60) - 1, -WON - 65, WON + 65);
            if self.search.stopped {
                break;
            }
            if let Some(square) = Square::from_index(sq) {
                values.push((ReversiMove::Place(square), v));
            }
        }
        values
    }

    /// The value of every legal placement of `position` for the side to move, all searched to
    /// the same depth with a full window: iterative deepening over the whole list of moves
    /// until `deadline` (or `max_depth` plies), keeping the last depth every move completed
    /// (a depth predicted not to finish in time is not started). Moves that lead to images
    /// of one position under the board's symmetries are searched once and share the value.
    /// Returns the moves in the order of the legal placements with their values (hundredths
    /// of a disc, or [`WON`] plus the disc difference once proved) and the depth in plies
    /// from `position`; no placement gives an empty list and depth 0.
    ///
    /// ```
    /// use std::time::{Duration, Instant};
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let mut engine = Engine::new(None, None);
    /// let (values, depth) = engine.move_values_until(&Reversi::new(), Instant::now() + Duration::from_millis(50), 6);
    /// assert_eq!(values.len(), 4);
    /// assert!(depth >= 1 && depth <= 6);
    /// // The four first moves lead to images of one position: one value.
    /// assert!(values.iter().all(|v| v.1 == values[0].1));
    /// ```
    pub fn move_values_until(
        &mut self,
        position: &Reversi,
        deadline: Instant,
        max_depth: u32,
    ) -> (Vec<(ReversiMove, i32)>, u32) {
        self.move_values_deepening(position, Some(deadline), max_depth)
    }

    /// [`Engine::move_values_until`] without a clock: every move searched to exactly `depth`
    /// plies (fewer only where the game ends sooner or every value is proved), so the values
    /// depend on the position and `depth` alone (the analysis' reproducible values). Moves
    /// leading to images of one position share one value.
    ///
    /// ```
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let (values, depth) = Engine::new(None, None).move_values_to(&Reversi::new(), 4);
    /// assert_eq!(depth, 4);
    /// assert!(values.iter().all(|v| v.1 == values[0].1));
    /// ```
    pub fn move_values_to(&mut self, position: &Reversi, depth: u32) -> (Vec<(ReversiMove, i32)>, u32) {
        self.move_values_deepening(position, None, depth)
    }

    /// Iterative deepening over every move (see [`Engine::move_values_until`]), to `max_depth`
    /// or until `deadline` if there is one.
    fn move_values_deepening(
        &mut self,
        position: &Reversi,
        deadline: Option<Instant>,
        max_depth: u32,
    ) -> (Vec<(ReversiMove, i32)>, u32) {
        let (p, o) = position.player_opponent();
        let children: Vec<(usize, u64, u64)> = Bits(moves(p, o))
            .map(|sq| {
                let f = flips(p, o, sq);
                (sq, o & !f, p | f | (1 << sq))
            })
            .collect();
        // For each move, the first move whose child is an image of its child.
        let keys: Vec<(u64, u64)> = children.iter().map(|&(_, cp, co)| canonical(cp, co)).collect();
        let first_of: Vec<usize> = keys.iter().map(|k| keys.iter().position(|x| x == k).unwrap_or(0)).collect();
        self.prepare(deadline);
        let mut best: Vec<(ReversiMove, i32)> = Vec::new();
        let mut completed = 0;
        let mut last = Duration::ZERO;
        let empties = 64 - (p | o).count_ones();
        for depth in 1..=max_depth.clamp(1, 60) {
            let iteration_start = Instant::now();
            let mut values: Vec<i32> = Vec::with_capacity(children.len());
            for (i, &(_, cp, co)) in children.iter().enumerate() {
                let v = if first_of[i] < i {
                    values[first_of[i]]
                } else {
                    -self.search.pvs(cp, co, &Indices::new(cp, co), depth - 1, -WON - 65, WON + 65)
                };
                if self.search.stopped {
                    break;
                }
                values.push(v);
            }
            if self.search.stopped {
                break;
            }
            best = children
                .iter()
                .zip(&values)
                .filter_map(|(&(sq, _, _), &v)| Some((ReversiMove::Place(Square::from_index(sq)?), v)))
                .collect();
            completed = depth;
            if depth >= empties || values.iter().all(|v| v.abs() >= WON) {
                break;
            }
            let Some(deadline) = deadline else { continue };
            let before = std::mem::replace(&mut last, iteration_start.elapsed());
            let remaining = deadline.saturating_duration_since(Instant::now());
            // A depth cut short is thrown away, so one is started only if all of it should fit.
            let growth = if before.as_micros() >= 200 { last.as_secs_f64() / before.as_secs_f64() } else { 3.0 };
            if last.as_secs_f64() * growth.clamp(1.5, 8.0) > remaining.as_secs_f64() {
                break;
            }
        }
        self.search.deadline = None;
        if completed == 0 && !children.is_empty() {
            // Not even one ply in time: one ply without a deadline (a few evaluations).
            self.search.stopped = false;
            best = children
                .iter()
                .filter_map(|&(sq, cp, co)| {
                    Some((ReversiMove::Place(Square::from_index(sq)?), -self.search.pvs(cp, co, &Indices::new(cp, co), 0, -WON - 65, WON + 65)))
                })
                .collect();
            completed = 1;
        }
        (best, completed)
    }

    /// The exact score and a best move of `position` from the engine's endgame solver, within
    /// the engine's time budget if it has one; `None` if the time ran out.
    ///
    /// ```
    /// use tabletop::games::reversi::{engine::Engine, Reversi};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let (best, score) = Engine::new(None, Some(1)).solve_exact(&pos).unwrap();
    /// assert!(pos.legal_placements().iter().any(|s| best.to_string() == s.to_string()));
    /// assert!(score.abs() <= 64);
    /// ```
    pub fn solve_exact(&mut self, position: &Reversi) -> Option<(ReversiMove, i32)> {
        self.solver.set_deadline(self.time.map(|t| Instant::now() + t));
        let solution = self.solver.solve_window(position, -64, 64);
        self.solver.set_deadline(None);
        let solution = solution?;
        Some((solution.best.unwrap_or(ReversiMove::Pass), solution.score))
    }
}

/// The value of a finished game for the side to move: beyond any evaluation, by the margin.
fn finished_value(p: u64, o: u64) -> i32 {
    let s = final_score(p, o);
    match s.cmp(&0) {
        std::cmp::Ordering::Greater => WON + s,
        std::cmp::Ordering::Less => -WON + s,
        std::cmp::Ordering::Equal => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use crate::game::Game;

    /// Plain negamax with the engine's evaluation and scoring of finished games.
    fn negamax(engine: &Engine, p: u64, o: u64, depth: u32) -> i32 {
        let m = moves(p, o);
        if m == 0 {
            if moves(o, p) == 0 {
                return finished_value(p, o);
            }
            return -negamax(engine, o, p, depth);
        }
        if depth == 0 {
            return engine.evaluate(p, o);
        }
        Bits(m)
            .map(|sq| {
                let f = flips(p, o, sq);
                -negamax(engine, o & !f, p | f | (1 << sq), depth - 1)
            })
            .max()
            .unwrap_or(i32::MIN)
    }

    fn random_positions(seed: u64, count: usize, plies: std::ops::Range<usize>) -> Vec<Reversi> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut moves = Vec::new();
        let mut out = Vec::new();
        while out.len() < count {
            let mut position = Reversi::new();
            for _ in 0..rng.gen_range(plies.clone()) {
                position.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                position.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            }
            if !position.is_over() && position.placements() != 0 {
                out.push(position);
            }
        }
        out
    }

    #[test]
    fn fixed_depth_search_agrees_with_plain_negamax_for_both_evaluations() {
        for (i, position) in random_positions(7, 12, 10..50).iter().enumerate() {
            let (p, o) = position.player_opponent();
            for depth in 1..=4 {
                for v1 in [false, true] {
                    let mut engine =
                        if v1 { Engine::try_new_v1(None, Some(depth)) } else { Engine::try_new(None, Some(depth)) }
                            .expect("memory");
                    let analysis = engine.analyse(position);
                    assert_eq!(analysis.value, negamax(&engine, p, o, depth), "position {i} depth {depth} v1 {v1}");
                    assert!(position.legal_placements().iter().any(|s| ReversiMove::Place(*s) == analysis.best));
                }
            }
        }
    }

    /// Whether a position within `plies` moves of (`p`, `o`) has its side to move passing.
    fn pass_within(p: u64, o: u64, plies: u32) -> bool {
        let m = moves(p, o);
        if m == 0 {
            return moves(o, p) != 0;
        }
        plies > 0 && Bits(m).any(|sq| {
            let f = flips(p, o, sq);
            pass_within(o & !f, p | f | (1 << sq), plies - 1)
        })
    }

    #[test]
    fn passes_next_to_the_leaves_are_searched_like_plain_negamax() {
        // Nodes one ply above the leaves evaluate their children themselves; a child whose
        // side to move must pass is searched instead (its value is the opponent's).
        let positions: Vec<Reversi> = random_positions(23, 2000, 40..58)
            .into_iter()
            .filter(|position| {
                let (p, o) = position.player_opponent();
                moves(p, o) != 0 && pass_within(p, o, 2)
            })
            .take(40)
            .collect();
        assert_eq!(positions.len(), 40, "enough positions with a pass near the leaves");
        for (i, position) in positions.iter().enumerate() {
            let (p, o) = position.player_opponent();
            for depth in 1..=3 {
                let mut engine = Engine::try_new(None, Some(depth)).expect("memory");
                engine.probcut = None;
                let analysis = engine.analyse(position);
                assert_eq!(analysis.value, negamax(&engine, p, o, depth), "position {i} depth {depth}");
            }
        }
    }

    #[test]
    fn ordering_by_replies_keeps_the_search_exact() {
        for (i, position) in random_positions(11, 10, 16..46).iter().enumerate() {
            let (p, o) = position.player_opponent();
            for depth in [3, 5] {
                for weight in [0, REPLY_WEIGHT, 400] {
                    let mut engine = Engine::try_new(None, Some(depth)).expect("memory");
                    engine.probcut = None;
                    engine.reply_weight = weight;
                    let analysis = engine.analyse(position);
                    assert_eq!(analysis.value, negamax(&engine, p, o, depth), "position {i} depth {depth} weight {weight}");
                }
            }
        }
    }

    #[test]
    fn memory_figure_matches_the_tables() {
        let engine = Engine::try_new(None, Some(1)).unwrap();
        let table = engine.search.table.buckets.len() * std::mem::size_of::<Bucket>();
        assert_eq!(std::mem::size_of::<Bucket>(), 64, "a bucket is one cache line");
        assert_eq!(engine.search.table.buckets.len() * 2, 1 << ENGINE_TABLE_BITS);
        assert_eq!(Engine::MEMORY_BYTES, table as u64 + Solver::memory_bytes(ENGINE_SOLVER_BITS));
        assert_eq!(Solver::memory_bytes(ENGINE_SOLVER_BITS), 64 * ((1 << 20) / 3 + 1 + (1 << 10) / 3 + 1));
    }

    /// Game 142 of `tabletop match reversi --player engine:time=100ms --player classic:depth=8
    /// --games 200 --seed 1`: after its searches of the earlier moves, the engine played b3,
    /// which loses every disc four plies later (white a3, then a4), on bounds the previous
    /// moves' searches had left in the table.
    /// A bucket keeps the deeper entry of the current search when a shallower position of
    /// the same bucket arrives (a table of one slot per bucket lost it), gives way to a later
    /// search, and is always found where it was stored.
    #[test]
    fn the_table_keeps_the_deeper_entry_of_a_bucket() {
        use rand::{Rng, SeedableRng};
        let table = Table::try_new(ENGINE_TABLE_BITS).expect("memory");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let mut random_position = || {
            let filled: u64 = rng.r#gen();
            let p = filled & rng.r#gen::<u64>();
            (p, filled & !p)
        };
        let deep = random_position();
        let target = table.bucket(deep.0, deep.1);
        let mut same_bucket = Vec::new();
        while same_bucket.len() < 2 {
            let q = random_position();
            if table.bucket(q.0, q.1) == target && q != deep {
                same_bucket.push(q);
            }
        }
        let entry = |(p, o): (u64, u64), depth: u8, age: u8| Entry { p, o, value: depth as i32, depth, bound: EXACT, best: 0, age };
        table.store(entry(deep, 10, 1));
        table.store(entry(same_bucket[0], 3, 1));
        table.store(entry(same_bucket[1], 2, 1));
        assert_eq!(table.probe(deep.0, deep.1).map(|e| e.depth), Some(10), "the deeper entry was lost");
        assert_eq!(table.probe(same_bucket[1].0, same_bucket[1].1).map(|e| e.depth), Some(2));
        assert!(table.probe(same_bucket[0].0, same_bucket[0].1).is_none());
        // The same position again, shallower: replaced in place.
        table.store(entry(deep, 4, 1));
        assert_eq!(table.probe(deep.0, deep.1).map(|e| e.depth), Some(4));
        // A later search's entry takes the first slot from an earlier search's deeper one.
        table.store(entry(deep, 12, 1));
        table.store(entry(same_bucket[0], 1, 2));
        assert_eq!(table.probe(same_bucket[0].0, same_bucket[0].1).map(|e| e.depth), Some(1));
        assert_eq!(Entry::from_data(0, 0, table.buckets[target].0[0].peek().2).depth, 1);
    }

    #[test]
    fn an_earlier_search_does_not_hide_a_wipe_out() {
        let moves = ["c4", "e3", "f4", "g3", "g4", "c3", "d3", "c5", "f3", "h4", "f5", "e6", "h3", "h2"];
        // The depths its 100 ms searches reached in that game.
        let mut engine = Engine::new(None, Some(1));
        let mut position = Reversi::new();
        let mut depths = [16, 13, 12].into_iter();
        for (ply, mv) in moves.iter().enumerate() {
            if ply >= 8 && ply % 2 == 0 {
                engine.depth = depths.next();
                engine.analyse(&position);
            }
            position.play(mv.parse().unwrap()).unwrap();
        }
        engine.depth = Some(11);
        assert_ne!(engine.analyse(&position).best.to_string(), "b3");
    }

    #[test]
    fn the_parallel_search_gives_proven_values_that_agree_with_the_exact_solver() {
        // Searched to the end without ProbCut, the value is proven: the exact score once the
        // last depth completes, or earlier a forced win (or loss) by a margin it reaches (or
        // cannot beat), when an iteration proves one (the deepening stops there). Splitting
        // the nodes among the threads may not make it wrong.
        let mut solver = Solver::new(18);
        let positions: Vec<Reversi> = random_positions(41, 400, 46..52)
            .into_iter()
            .filter(|p| (10..=13).contains(&p.open_squares()) && p.placements() != 0)
            .take(10)
            .collect();
        assert_eq!(positions.len(), 10);
        for position in &positions {
            let score = solver.solve(position).score;
            for threads in [1, 2, 3] {
                let mut engine = Engine::new(None, Some(position.open_squares()));
                engine.probcut = None;
                engine.set_threads(threads).expect("memory");
                let analysis = engine.analyse(position);
                let v = analysis.value;
                let mut child = *position;
                child.play(analysis.best).expect("a legal move");
                let reached = -solver.solve(&child).score;
                let case = format!("{position} on {threads} threads: {v}, {} reaches {reached} of {score}", analysis.best);
                match score.cmp(&0) {
                    std::cmp::Ordering::Greater => assert!(v > WON && v - WON <= score && reached >= v - WON, "{case}"),
                    std::cmp::Ordering::Equal => assert!(v == 0 && reached == 0, "{case}"),
                    std::cmp::Ordering::Less => assert!(v < -WON && v + WON >= score, "{case}"),
                }
            }
        }
    }

    #[test]
    fn the_parallel_search_to_a_fixed_depth_equals_plain_negamax() {
        // Without ProbCut a fixed-depth search is the evaluation's exact minimax: a position's
        // discs fix its distance from the root, so every entry a thread stores in the shared
        // table was searched to the depth any other thread needs there, and splitting the
        // nodes changes the order of the work, not the value.
        let depth = SPLIT_DEPTH_MIN + 1;
        for (i, position) in random_positions(45, 3, 24..36).iter().enumerate() {
            let (p, o) = position.player_opponent();
            let reference = Engine::new(None, Some(depth));
            let expected = negamax(&reference, p, o, depth);
            for threads in [2, 3] {
                let mut engine = Engine::new(None, Some(depth));
                engine.probcut = None;
                engine.set_threads(threads).expect("memory");
                let analysis = engine.analyse(position);
                assert_eq!((analysis.value, analysis.depth), (expected, depth), "position {i}, {threads} threads");
                // Its move reaches the value.
                let mut child = *position;
                child.play(analysis.best).expect("a legal move");
                let (cp, co) = child.player_opponent();
                assert_eq!(-negamax(&reference, cp, co, depth - 1), expected, "position {i}, {threads} threads");
            }
        }
    }

    #[test]
    fn the_parallel_search_reaches_the_depth_with_a_legal_move_and_stops_at_its_deadline() {
        for (i, position) in random_positions(43, 6, 14..30).iter().enumerate() {
            let mut one = Engine::new(None, Some(7));
            let mut two = Engine::new(None, Some(7));
            two.set_threads(2).expect("memory");
            let (a, b) = (one.analyse(position), two.analyse(position));
            assert_eq!(b.depth, 7, "position {i}");
            assert!(position.legal_placements().iter().any(|s| ReversiMove::Place(*s) == b.best), "position {i}");
            // Both are estimates at depth 7 with ProbCut (whose cuts depend on the order the
            // threads store their bounds in): within a few discs of each other.
            assert!((a.value - b.value).abs() <= 600, "position {i}: {} against {}", a.value, b.value);
            // Every task ended with the search: the engine searches again at once.
            let again = two.analyse(position);
            assert!(again.nodes > 0 && again.depth == 7);
        }
        // With a clock: every thread stops at the deadline.
        let mut timed = Engine::new(Some(Duration::from_millis(50)), None);
        timed.set_threads(3).expect("memory");
        let started = Instant::now();
        let analysis = timed.analyse(&random_positions(44, 1, 20..21)[0]);
        assert!(started.elapsed() < Duration::from_secs(2) && analysis.depth >= 1);
    }

    /// Seeded positions of 17-19 empties with a move, beyond the exact solve's reach at 100 ms.
    fn beyond_the_exact_reach() -> impl Iterator<Item = Reversi> {
        random_positions(31, 40, 41..44)
            .into_iter()
            .filter(|position| (17..=19).contains(&position.open_squares()) && position.placements() > 0)
    }

    #[test]
    fn a_proven_outcome_is_kept_and_the_midgame_choice_preferred_among_the_moves_that_keep_it() {
        // The midgame search is held to 4 plies and the budget is large, so that nothing here
        // depends on the machine's speed.
        let mut exact = Solver::new(20);
        let mut engine = Engine::new(None, Some(4));
        let mut midgame = Engine::new(None, Some(4));
        let budget = Some(MoveTime::fixed(Duration::from_secs(60)));
        let (mut overruled, mut preferred, mut lost) = (0, 0, 0);
        for position in beyond_the_exact_reach() {
            let score = exact.solve(&position).score;
            engine.clear();
            let got = engine.outcome_move(&position, budget, Instant::now());
            assert_eq!(got.outcome, Some(Outcome::of(score)), "{position}");
            let mut child = position;
            child.play(got.best).unwrap();
            let reached = -exact.solve(&child).score;
            midgame.clear();
            let own = midgame.analyse(&position).best;
            match Outcome::of(score) {
                Outcome::Loss => {
                    // Every move loses: the midgame search chooses.
                    assert_eq!(got.best, own, "{position}");
                    assert!(got.value <= -100);
                    lost += 1;
                }
                outcome => {
                    assert_eq!(Outcome::of(reached), outcome, "{position}: {} reaches {reached} of {score}", got.best);
                    let mut after_own = position;
                    after_own.play(own).unwrap();
                    if Outcome::of(-exact.solve(&after_own).score) == outcome {
                        assert_eq!(got.best, own, "{position}: the midgame's move keeps the outcome");
                        preferred += 1;
                    } else {
                        overruled += 1;
                    }
                }
            }
        }
        // Each branch was taken: the midgame's move kept, overruled, and a lost position.
        assert!(preferred > 0 && overruled > 0 && lost > 0, "{preferred} {overruled} {lost}");
    }

    #[test]
    fn time_left_after_a_proof_finds_the_margin_and_a_move_that_reaches_it() {
        // The positions of the test above, with time for the exact score after the proof.
        let mut exact = Solver::new(20);
        let mut engine = Engine::new(None, Some(4));
        let budget = Some(MoveTime::fixed(Duration::from_secs(60)));
        let mut seen = [0; 3];
        for position in beyond_the_exact_reach() {
            let score = exact.solve(&position).score;
            engine.clear();
            let got = engine.outcome_first(&position, budget, Instant::now());
            assert_eq!(got.outcome, Some(Outcome::of(score)), "{position}");
            assert!(got.exact, "{position}");
            assert_eq!(got.value, score, "{position}");
            let mut child = position;
            child.play(got.best).unwrap();
            assert_eq!(-exact.solve(&child).score, score, "{position}: {} does not reach {score}", got.best);
            seen[Outcome::of(score) as usize] += 1;
        }
        assert!(seen[0] > 0 && seen[2] > 0, "losses and wins: {seen:?}");
    }
}
