//! The engine's player: iterative-deepening principal-variation search on bitboards with a
//! transposition table, hash-move and evaluation-based move ordering, the phase-weighted
//! [`Weights::evaluate`](super::eval::Weights::evaluate), and an exact endgame solve once the empties are few enough for the budget.

use std::time::{Duration, Instant};

use super::bitboard::{final_score, flips, moves, Bits};
use super::eval::Weights;
use super::rules::{Reversi, ReversiMove, Square};
use super::solver::Solver;
use crate::game::Player;
use crate::memory::{try_large_vec, TableAllocError};
use crate::record::Record;

/// Values at or beyond this are decided games (`WON + disc difference`).
pub const WON: i32 = 100_000;

#[derive(Clone, Copy, Default)]
struct Entry {
    p: u64,
    o: u64,
    value: i32,
    depth: u8,
    bound: u8,
    best: u8,
}

/// The engine's search table holds `2^ENGINE_TABLE_BITS` entries.
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
        } else if self.value.abs() >= WON {
            let d = self.value.abs() - WON;
            format!("{} by {d} discs (proved)", if self.value > 0 { "wins" } else { "loses" })
        } else {
            format!("{:+.2} discs", self.value as f64 / 100.0)
        }
    }
}

/// The engine: a search with its tables. Reuse it across moves.
pub struct Engine {
    table: Vec<Entry>,
    mask: usize,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
    solver: Solver,
    /// Time budget per move.
    pub time: Option<Duration>,
    /// Depth limit (plies) for the midgame search.
    pub depth: Option<u32>,
    /// The evaluation's weights (the built-in ones unless replaced, e.g. for tuning).
    pub weights: &'static Weights,
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
        Ok(Engine {
            table: try_large_vec(1 << ENGINE_TABLE_BITS, Entry::default)?,
            mask: (1 << ENGINE_TABLE_BITS) - 1,
            nodes: 0,
            deadline: None,
            stopped: false,
            solver: Solver::try_new(ENGINE_SOLVER_BITS)?,
            weights: Weights::builtin(),
            time,
            depth,
        })
    }

    /// The memory of one engine in bytes: its search table and its endgame solver's tables
    /// (about 30 MB).
    ///
    /// ```
    /// use tabletop::games::reversi::engine::Engine;
    /// assert!(Engine::MEMORY_BYTES > 20 << 20 && Engine::MEMORY_BYTES < 64 << 20);
    /// ```
    pub const MEMORY_BYTES: u64 =
        (std::mem::size_of::<Entry>() as u64) * (1 << ENGINE_TABLE_BITS) + Solver::memory_bytes(ENGINE_SOLVER_BITS);

    /// The most empties the exact solver is tried on within the time budget.
    fn solve_empties(&self) -> u32 {
        match self.time {
            None => 0,
            Some(t) if t >= Duration::from_millis(3000) => 22,
            Some(t) if t >= Duration::from_millis(900) => 20,
            Some(t) if t >= Duration::from_millis(250) => 18,
            Some(t) if t >= Duration::from_millis(80) => 16,
            Some(_) => 12,
        }
    }

    /// Chooses a move for the side to move in `position` and says how good it is.
    pub fn analyse(&mut self, position: &Reversi) -> Analysis {
        let start = Instant::now();
        let (p, o) = position.player_opponent();
        let m = moves(p, o);
        if m == 0 {
            return Analysis {
                best: ReversiMove::Pass,
                value: 0,
                exact: false,
                depth: 0,
                nodes: 0,
                elapsed: start.elapsed(),
            };
        }
        let empties = position.open_squares();
        let exact_possible = self.depth.is_none() && empties <= self.solve_empties();
        // The midgame search gets the whole budget, or a quarter before an exact solve.
        let mid_budget = self.time.map(|t| if exact_possible { t / 4 } else { t });
        let mut result = self.midgame(p, o, mid_budget, start);
        if exact_possible {
            let deadline = self.time.map(|t| start + t);
            self.solver.set_deadline(deadline);
            if let Some(sol) = self.solver.solve_window(position, -64, 64) {
                result.best = sol.best.unwrap_or(result.best);
                result.value = sol.score;
                result.exact = true;
                result.depth = empties;
                result.nodes += sol.nodes;
            }
            self.solver.set_deadline(None);
        }
        result.elapsed = start.elapsed();
        result
    }

    fn midgame(&mut self, p: u64, o: u64, budget: Option<Duration>, start: Instant) -> Analysis {
        self.nodes = 0;
        self.stopped = false;
        self.deadline = budget.map(|b| start + b);
        let max_depth = self.depth.unwrap_or(60).clamp(1, 60);
        let mut root: Vec<(usize, u64)> = Bits(moves(p, o)).map(|sq| (sq, flips(p, o, sq))).collect();
        root.sort_by_key(|&(sq, f)| self.weights.evaluate(o & !f, p | f | (1 << sq)));
        let mut best = root[0].0;
        let mut best_value = 0;
        let mut completed = 0;
        let empties = 64 - (p | o).count_ones();
        for depth in 1..=max_depth {
            let mut alpha = -WON - 65;
            let beta = WON + 65;
            let mut iter_best = root[0].0;
            for (i, &(sq, f)) in root.iter().enumerate() {
                let (np, no) = (p | f | (1 << sq), o & !f);
                let v = if i == 0 {
                    -self.pvs(no, np, depth - 1, -beta, -alpha)
                } else {
                    let probe = -self.pvs(no, np, depth - 1, -alpha - 1, -alpha);
                    if probe > alpha {
                        -self.pvs(no, np, depth - 1, -beta, -probe)
                    } else {
                        probe
                    }
                };
                if self.stopped {
                    break;
                }
                if v > alpha {
                    alpha = v;
                    iter_best = sq;
                }
            }
            if self.stopped {
                // A partial iteration still improves on the last one if it found a better move.
                break;
            }
            best = iter_best;
            best_value = alpha;
            completed = depth;
            if let Some(i) = root.iter().position(|e| e.0 == best) {
                root[..=i].rotate_right(1);
            }
            if depth >= empties || best_value.abs() >= WON {
                break;
            }
            if let (Some(b), Some(_)) = (budget, self.deadline) {
                // The next iteration would take several times longer: do not start it.
                if start.elapsed() > b * 2 / 5 {
                    break;
                }
            }
        }
        let best = Square::from_index(best).map(ReversiMove::Place).expect("a square");
        Analysis {
            best,
            value: best_value,
            exact: false,
            depth: completed,
            nodes: self.nodes,
            elapsed: start.elapsed(),
        }
    }

    #[inline]
    fn slot(&self, p: u64, o: u64) -> usize {
        let h = (p ^ o.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ o.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        (h >> 24) as usize & self.mask
    }

    fn pvs(&mut self, p: u64, o: u64, depth: u32, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 0x3FF == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
            if crate::cancel::cancelled() {
                self.stopped = true;
            }
        }
        if self.stopped {
            return 0;
        }
        let m = moves(p, o);
        if m == 0 {
            if moves(o, p) == 0 {
                let s = final_score(p, o);
                return match s.cmp(&0) {
                    std::cmp::Ordering::Greater => WON + s,
                    std::cmp::Ordering::Less => -WON + s,
                    std::cmp::Ordering::Equal => 0,
                };
            }
            return -self.pvs(o, p, depth, -beta, -alpha);
        }
        if depth == 0 {
            return self.weights.evaluate(p, o);
        }
        let slot = self.slot(p, o);
        let e = self.table[slot];
        let mut hash_move = 64u8;
        if e.p == p && e.o == o {
            hash_move = e.best;
            if e.depth as u32 >= depth {
                match e.bound {
                    EXACT => return e.value,
                    LOWER if e.value >= beta => return e.value,
                    UPPER if e.value <= alpha => return e.value,
                    LOWER => alpha = alpha.max(e.value),
                    UPPER => beta = beta.min(e.value),
                    _ => {}
                }
            }
        }
        let alpha_start = alpha;
        let mut list = [(0u8, 0i32, 0u64); 32];
        let mut n = 0;
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            let key = if sq as u8 == hash_move {
                i32::MIN
            } else if depth >= 2 {
                self.weights.evaluate(o & !f, p | f | (1 << sq))
            } else {
                moves(o & !f, p | f | (1 << sq)).count_ones() as i32
            };
            list[n] = (sq as u8, key, f);
            n += 1;
        }
        let list = &mut list[..n];
        list.sort_unstable_by_key(|e| e.1);
        let mut best = i32::MIN;
        let mut best_sq = 64u8;
        for (i, &(sq, _, f)) in list.iter().enumerate() {
            let (np, no) = (p | f | (1 << sq), o & !f);
            let a = alpha.max(best);
            let v = if i == 0 {
                -self.pvs(no, np, depth - 1, -beta, -a)
            } else {
                let probe = -self.pvs(no, np, depth - 1, -a - 1, -a);
                if probe > a && probe < beta {
                    -self.pvs(no, np, depth - 1, -beta, -probe)
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
        let bound = if best <= alpha_start {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.table[slot] = Entry { p, o, value: best, depth: depth as u8, bound, best: best_sq };
        best
    }
}

/// The engine as a [`Player`].
pub struct EnginePlayer {
    engine: Engine,
    description: String,
}

impl EnginePlayer {
    /// An engine player with a time budget and/or a depth limit.
    pub fn new(time: Option<Duration>, depth: Option<u32>, description: String) -> Self {
        EnginePlayer { engine: Engine::new(time, depth), description }
    }

    /// An engine player as [`EnginePlayer::new`], or an error when the engine's tables cannot
    /// be allocated.
    pub fn try_new(time: Option<Duration>, depth: Option<u32>, description: String) -> Result<Self, TableAllocError> {
        Ok(EnginePlayer { engine: Engine::try_new(time, depth)?, description })
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
        self.engine.analyse(record.current()).best
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
        self.nodes = 0;
        self.stopped = false;
        self.deadline = None;
        let mut values = Vec::new();
        for sq in Bits(m) {
            let f = flips(p, o, sq);
            let v = -self.pvs(o & !f, p | f | (1 << sq), depth.clamp(1, 60) - 1, -WON - 65, WON + 65);
            if self.stopped {
                break;
            }
            if let Some(square) = Square::from_index(sq) {
                values.push((ReversiMove::Place(square), v));
            }
        }
        values
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_figure_matches_the_tables() {
        let engine = Engine::try_new(None, Some(1)).unwrap();
        let table = engine.table.len() * std::mem::size_of::<Entry>();
        assert_eq!(Engine::MEMORY_BYTES, table as u64 + Solver::memory_bytes(ENGINE_SOLVER_BITS));
        assert_eq!(Solver::memory_bytes(ENGINE_SOLVER_BITS), 24 * ((1 << 20) + (1 << 10)));
    }
}
