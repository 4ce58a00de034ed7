//! Generic search for two-player zero-sum games.
//!
//! [`Search`] is a negamax alpha-beta search with an optional principal-variation (null-window)
//! refinement, a transposition table keyed by [`Game::hash`](crate::Game::hash), iterative deepening, limits by
//! depth, time and nodes, the principal variation, and pluggable [`Evaluator`] and
//! [`MoveOrder`]. With [`Options::exact`] it searches every line to the end of the game and the
//! value is the game-theoretic one: wins and losses by distance ([`WIN`] minus plies) or, for
//! games that score (Reversi), the exact final score.
//!
//! Every option is tested to give the same root value as plain negamax (`tests/search_options.rs`).

use std::time::{Duration, Instant};

use crate::game::{Status, TwoPlayer};

pub use crate::value::{verdict, Verdict, DECISIVE, INFINITY, WIN};

/// A static evaluation: the value of a position for the side to move, well inside
/// `(-DECISIVE, DECISIVE)`.
pub trait Evaluator<G>: Send + Sync {
    /// Scores `position` for the side to move.
    fn evaluate(&self, position: &G) -> i32;
}

impl<G, F: Fn(&G) -> i32 + Send + Sync> Evaluator<G> for F {
    fn evaluate(&self, position: &G) -> i32 {
        self(position)
    }
}

/// An evaluation that knows nothing: every position is worth 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEvaluation;

impl<G> Evaluator<G> for NoEvaluation {
    fn evaluate(&self, _: &G) -> i32 {
        0
    }
}

/// Orders moves so that good ones are searched first (the hash move is put first separately).
pub trait MoveOrder<G: TwoPlayer>: Send + Sync {
    /// Reorders `moves`, best first.
    fn order(&self, position: &G, moves: &mut [G::Move]);
}

/// Keeps the game's own move order.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoOrdering;

impl<G: TwoPlayer> MoveOrder<G> for NoOrdering {
    fn order(&self, _: &G, _: &mut [G::Move]) {}
}

/// When to stop searching. Unset limits do not apply; with none set, a heuristic search stops
/// at depth 64 and an exact search runs to the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// The deepest iteration, in plies.
    pub depth: Option<u32>,
    /// Wall-clock time for the whole search.
    pub time: Option<Duration>,
    /// Nodes for the whole search.
    pub nodes: Option<u64>,
}

impl Limits {
    /// A depth limit only.
    pub fn depth(depth: u32) -> Self {
        Limits { depth: Some(depth), ..Limits::default() }
    }

    /// A time limit only.
    pub fn time(time: Duration) -> Self {
        Limits { time: Some(time), ..Limits::default() }
    }
}

/// Which search techniques to use. The default uses all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Prune with alpha-beta (off: plain negamax).
    pub alpha_beta: bool,
    /// Principal-variation search: null-window searches after the first move.
    pub pvs: bool,
    /// Transposition table with `2^bits` entries, or none.
    pub tt_bits: Option<u32>,
    /// Deepen one ply at a time up to the depth limit (off: search the depth limit at once).
    pub iterative_deepening: bool,
    /// Search to the end of the game, never calling the evaluation.
    pub exact: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { alpha_beta: true, pvs: true, tt_bits: Some(20), iterative_deepening: true, exact: false }
    }
}

impl Options {
    /// Plain negamax: no pruning, no table, no deepening.
    pub fn plain() -> Self {
        Options { alpha_beta: false, pvs: false, tt_bits: None, iterative_deepening: false, exact: false }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The value of the root for the side to move.
    pub value: i32,
    /// The best move, or `None` if the root has no legal move.
    pub best_move: Option<M>,
    /// The principal variation, starting with the best move (may be shorter than the depth).
    pub pv: Vec<M>,
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// True when the value is the game-theoretic value (no line was cut off by the horizon).
    pub exact: bool,
    /// False when a time or node limit stopped the search before the first iteration finished.
    pub complete: bool,
    /// Time taken.
    pub elapsed: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry<M> {
    key: u64,
    value: i32,
    /// Remaining depth searched, or `EXACT_DEPTH` when no line reached the horizon.
    depth: u32,
    bound: Bound,
    best: Option<M>,
}

const EXACT_DEPTH: u32 = u32::MAX;

/// A reusable searcher: keep one per player so the transposition table carries over moves.
pub struct Search<G: TwoPlayer, E, O> {
    evaluator: E,
    ordering: O,
    options: Options,
    table: Vec<Option<Entry<G::Move>>>,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stopped: bool,
    horizon_hit: bool,
    path: Vec<u64>,
    earlier: Vec<u64>,
    buffers: Vec<Vec<G::Move>>,
    pv: Vec<Vec<G::Move>>,
}

impl<G: TwoPlayer, E: Evaluator<G>, O: MoveOrder<G>> Search<G, E, O> {
    /// A searcher with the given evaluation, move ordering and options.
    pub fn new(evaluator: E, ordering: O, options: Options) -> Self {
        let table = match options.tt_bits {
            Some(bits) => vec![None; 1usize << bits.min(30)],
            None => Vec::new(),
        };
        Search {
            evaluator,
            ordering,
            options,
            table,
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stopped: false,
            horizon_hit: false,
            path: Vec::new(),
            earlier: Vec::new(),
            buffers: Vec::new(),
            pv: Vec::new(),
        }
    }

    /// The options in use.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Empties the transposition table.
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|e| *e = None);
    }

    /// Searches `root`. `earlier` holds the hashes of positions played before it in the game,
    /// so that games with draw by repetition avoid (or seek) repeating them.
    pub fn search(&mut self, root: &G, earlier: &[u64], limits: Limits) -> SearchResult<G::Move> {
        let start = Instant::now();
        self.begin(earlier, limits, start);
        let max_depth = match (self.options.exact, limits.depth) {
            (true, _) => EXACT_DEPTH,
            (false, Some(d)) => d.max(1),
            (false, None) => 64,
        };
        let first_depth = if self.options.iterative_deepening && !self.options.exact { 1 } else { max_depth };
        let mut result = SearchResult {
            value: 0,
            best_move: None,
            pv: Vec::new(),
            depth: 0,
            nodes: 0,
            exact: false,
            complete: false,
            elapsed: Duration::ZERO,
        };
        let mut depth = first_depth;
        loop {
            self.horizon_hit = false;
            let value = self.negamax(root, depth, -INFINITY, INFINITY, 0);
            if self.stopped {
                if result.best_move.is_none() {
                    result.best_move = self.pv.first().and_then(|pv| pv.first().copied());
                }
                break;
            }
            result.value = value;
            result.pv = self.pv.first().cloned().unwrap_or_default();
            result.best_move = result.pv.first().copied();
            result.depth = depth;
            result.exact = !self.horizon_hit;
            result.complete = true;
            if result.exact || depth >= max_depth {
                break;
            }
            depth += 1;
        }
        if result.best_move.is_none() {
            // Stopped before any move was searched: fall back on the first ordered legal move.
            let mut moves = Vec::new();
            root.legal_moves(&mut moves);
            self.ordering.order(root, &mut moves);
            result.best_move = moves.first().copied();
        }
        result.nodes = self.nodes;
        result.elapsed = start.elapsed();
        result
    }

    /// The value of every legal move of `root` (from the side to move at the root, so the best
    /// move has the highest value), each searched with a full window under `limits`.
    pub fn analyse_moves(&mut self, root: &G, earlier: &[u64], limits: Limits) -> Vec<(G::Move, i32)> {
        let mut moves = Vec::new();
        root.legal_moves(&mut moves);
        let mut history = earlier.to_vec();
        history.push(root.hash());
        moves
            .into_iter()
            .map(|mv| {
                let mut child = root.clone();
                child.play_unchecked(mv);
                let result = self.search(&child, &history, limits);
                // Values count plies from the child: one more from the root.
                let value = match verdict(result.value) {
                    Verdict::Win(p) => -(WIN - p as i32 - 1),
                    Verdict::Loss(p) => WIN - p as i32 - 1,
                    Verdict::Score(s) => -s,
                };
                (mv, value)
            })
            .collect()
    }

    fn begin(&mut self, earlier: &[u64], limits: Limits, start: Instant) {
        self.nodes = 0;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.deadline = limits.time.map(|t| start + t);
        self.stopped = false;
        self.path.clear();
        self.earlier = earlier.to_vec();
        self.pv.clear();
    }

    fn out_of_budget(&mut self) -> bool {
        if self.nodes >= self.node_limit {
            self.stopped = true;
        } else if self.nodes.is_multiple_of(1024) {
            if let Some(deadline) = self.deadline {
                if Instant::now() >= deadline {
                    self.stopped = true;
                }
            }
            if crate::cancel::cancelled() {
                self.stopped = true;
            }
        }
        self.stopped
    }

    fn is_repetition(&self, hash: u64) -> bool {
        G::repetition_limit().is_some() && (self.path.contains(&hash) || self.earlier.contains(&hash))
    }

    fn slot(&self, hash: u64) -> usize {
        (hash as usize) & (self.table.len() - 1)
    }

    fn negamax(&mut self, position: &G, depth: u32, mut alpha: i32, beta: i32, ply: u32) -> i32 {
        let ply_index = ply as usize;
        while self.pv.len() <= ply_index + 1 {
            self.pv.push(Vec::new());
        }
        self.pv[ply_index].clear();
        self.nodes += 1;
        if self.out_of_budget() {
            return 0;
        }
        if let Status::Over(outcome) = position.status() {
            return position.terminal_value(outcome, ply);
        }
        let hash = position.hash();
        if ply > 0 && self.is_repetition(hash) {
            return 0;
        }
        if depth == 0 {
            self.horizon_hit = true;
            return self.evaluator.evaluate(position);
        }
        let use_bounds = self.options.alpha_beta;
        let alpha_start = alpha;

        let mut hash_move = None;
        if !self.table.is_empty() {
            if let Some(entry) = self.table[self.slot(hash)] {
                if entry.key == hash {
                    hash_move = entry.best;
                    if entry.depth >= depth && ply > 0 {
                        let value = from_table(entry.value, ply);
                        let usable = match entry.bound {
                            Bound::Exact => true,
                            Bound::Lower => use_bounds && value >= beta,
                            Bound::Upper => use_bounds && value <= alpha,
                        };
                        if usable {
                            if entry.depth != EXACT_DEPTH {
                                self.horizon_hit = true;
                            }
                            return value;
                        }
                    }
                }
            }
        }

        let mut moves = self.buffers.pop().unwrap_or_default();
        position.legal_moves(&mut moves);
        self.ordering.order(position, &mut moves);
        if let Some(hm) = hash_move {
            if let Some(i) = moves.iter().position(|&m| m == hm) {
                moves[..=i].rotate_right(1);
            }
        }

        let outer_horizon = self.horizon_hit;
        self.horizon_hit = false;
        self.path.push(hash);
        let mut best = -INFINITY;
        let mut best_move = None;
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = position.clone();
            child.play_unchecked(mv);
            let child_depth = if depth == EXACT_DEPTH { EXACT_DEPTH } else { depth - 1 };
            let value = if !use_bounds {
                -self.negamax(&child, child_depth, -INFINITY, INFINITY, ply + 1)
            } else if self.options.pvs && i > 0 {
                let probe = -self.negamax(&child, child_depth, -alpha - 1, -alpha, ply + 1);
                if probe > alpha && probe < beta {
                    -self.negamax(&child, child_depth, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            } else {
                -self.negamax(&child, child_depth, -beta, -alpha, ply + 1)
            };
            if self.stopped {
                break;
            }
            if value > best {
                best = value;
                best_move = Some(mv);
                let (head, tail) = self.pv.split_at_mut(ply_index + 1);
                let line = &mut head[ply_index];
                line.clear();
                line.push(mv);
                line.extend_from_slice(&tail[0]);
            }
            if use_bounds {
                alpha = alpha.max(value);
                if alpha >= beta {
                    break;
                }
            }
        }
        self.path.pop();
        moves.clear();
        self.buffers.push(moves);
        let subtree_exact = !self.horizon_hit;
        self.horizon_hit |= outer_horizon;
        if self.stopped {
            return 0;
        }

        if !self.table.is_empty() {
            let bound = if !use_bounds {
                Bound::Exact
            } else if best <= alpha_start {
                Bound::Upper
            } else if best >= beta {
                Bound::Lower
            } else {
                Bound::Exact
            };
            let slot = self.slot(hash);
            self.table[slot] = Some(Entry {
                key: hash,
                value: to_table(best, ply),
                depth: if subtree_exact { EXACT_DEPTH } else { depth },
                bound,
                best: best_move,
            });
        }
        best
    }
}

/// Decisive values are stored relative to the node, so they stay right at any ply. Values
/// beyond [`WIN`] (the [`INFINITY`] sentinel of an open bound) pass unchanged.
pub(crate) fn to_table(value: i32, ply: u32) -> i32 {
    if value.abs() > WIN {
        value
    } else if value >= DECISIVE {
        value + ply as i32
    } else if value <= -DECISIVE {
        value - ply as i32
    } else {
        value
    }
}

/// The inverse of [`to_table`].
pub(crate) fn from_table(value: i32, ply: u32) -> i32 {
    if value.abs() > WIN {
        value
    } else if value >= DECISIVE {
        value - ply as i32
    } else if value <= -DECISIVE {
        value + ply as i32
    } else {
        value
    }
}
