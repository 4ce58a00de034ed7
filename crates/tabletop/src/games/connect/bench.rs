//! The solver benchmark over Pons' test sets (`Test_L3_R1` ... `Test_L1_R2`, copied into the
//! repository's `crates/tabletop/data/connect/sets/`): each line is a position (a column
//! sequence) and its exact score.
//!
//! ```
//! use tabletop::games::connect::bench::solve_set;
//! use tabletop::games::connect::solver::Solver;
//! use tabletop::games::connect::ConnectVariant;
//! let mut solver = Solver::try_new(ConnectVariant::connect4(), 1 << 16).unwrap();
//! let result = solve_set(&mut solver, "2252576253462244111563365343671351441 -1\n\n").unwrap();
//! assert_eq!((result.positions, result.wrong.len()), (1, 0));
//! ```

use std::time::{Duration, Instant};

use super::rules::{Connect, ConnectPositionError};
use super::solver::Solver;
use crate::game::Game;

/// The five sets, with the milliseconds per position of Pons' solver.
pub const SETS: [(&str, f64); 5] =
    [("Test_L3_R1", 0.010), ("Test_L2_R1", 0.060), ("Test_L2_R2", 4.4), ("Test_L1_R1", 0.34), ("Test_L1_R2", 133.0)];

/// Pons' milliseconds per position for a set, if it is one of [`SETS`].
pub fn pons_ms(set: &str) -> Option<f64> {
    SETS.iter().find(|s| s.0 == set).map(|s| s.1)
}

/// The directory of the five sets in the repository (`crates/tabletop/data/connect/sets`), the
/// default of `tabletop bench connect` and what the tests read.
pub const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/connect/sets");

/// What solving one set gave.
#[derive(Clone, Debug, Default)]
pub struct SetResult {
    /// Positions solved.
    pub positions: u64,
    /// Nodes searched in all.
    pub nodes: u64,
    /// Time taken in all.
    pub elapsed: Duration,
    /// The lines whose score differed from the set's: `"SEQ: got S, expected E"`.
    pub wrong: Vec<String>,
}

impl SetResult {
    /// Milliseconds per position.
    pub fn mean_ms(&self) -> f64 {
        self.elapsed.as_secs_f64() * 1000.0 / self.positions.max(1) as f64
    }

    /// Nodes per position.
    pub fn mean_nodes(&self) -> f64 {
        self.nodes as f64 / self.positions.max(1) as f64
    }
}

/// Why a set could not be solved.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SetError {
    /// A line without a space between the position and the score.
    #[error("bad line {0:?}")]
    Line(String),
    /// A position that is not valid on the solver's board.
    #[error(transparent)]
    Position(#[from] ConnectPositionError),
}

/// Solves every line of a set (blank lines are skipped), from fresh tables, and checks the
/// scores.
pub fn solve_set(solver: &mut Solver, text: &str) -> Result<SetResult, SetError> {
    let v = solver.variant();
    solver.clear_tables();
    let mut result = SetResult::default();
    let start = Instant::now();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (seq, expected) = line.split_once(' ').ok_or_else(|| SetError::Line(line.to_string()))?;
        let p = Connect::from_notation(&v, seq)?;
        solver.reset_nodes();
        let score = solver.solve(&p);
        result.nodes += solver.nodes();
        result.positions += 1;
        if expected.trim().parse::<i32>().ok() != Some(score) {
            result.wrong.push(format!("{seq}: got {score}, expected {}", expected.trim()));
        }
    }
    result.elapsed = start.elapsed();
    Ok(result)
}

/// One position of the analysis benchmark ([`analysis_sample`]).
#[derive(Clone, Debug)]
pub struct AnalysisSample {
    /// Stones on the board.
    pub ply: usize,
    /// The position as a column sequence.
    pub notation: String,
    /// Wall time of the exact analysis of every move (up to the limit when not finished).
    pub elapsed: Duration,
    /// CPU time of the thread over the same span (the wall time where it cannot be read).
    pub cpu: Duration,
    /// Legal moves answered by the book.
    pub from_book: usize,
    /// Legal moves answered by the solver (a win at once counts for neither).
    pub solved: usize,
    /// Did every move get its exact value within the limit?
    pub complete: bool,
    /// Nodes the solver searched: the same on every run and machine when the position finished
    /// within the limit, unlike the times.
    pub nodes: u64,
}

/// The CPU time of the calling thread, where the system gives it.
fn thread_cpu() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return Some(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32));
        }
    }
    None
}

/// A position of `ply` stones reached by seeded random play, unfinished (drawn again until it
/// is), or `None` if `ply` is not below the number of cells.
///
/// ```
/// use tabletop::games::connect::bench::random_position;
/// use tabletop::games::connect::ConnectVariant;
/// use tabletop::Game;
/// let p = random_position(ConnectVariant::connect4(), 9, 1).unwrap();
/// assert_eq!((p.moves_played(), p.status().to_move().is_some()), (9, true));
/// assert_eq!(p, random_position(ConnectVariant::connect4(), 9, 1).unwrap());
/// ```
pub fn random_position(variant: super::ConnectVariant, ply: usize, seed: u64) -> Option<Connect> {
    use rand::{Rng, SeedableRng};
    if ply >= variant.cells() {
        return None;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut moves = Vec::new();
    loop {
        let mut p = Connect::start(&variant);
        while p.moves_played() < ply && p.status().to_move().is_some() {
            p.legal_moves(&mut moves);
            p.play_unchecked(moves[rng.gen_range(0..moves.len())]);
        }
        if p.moves_played() == ply && p.status().to_move().is_some() {
            return Some(p);
        }
    }
}

/// The exact value of every legal column of `root` (from the side to move), the way the
/// analysis does it: a win at once, else the child's score from the book when it has a proven
/// one, else the solver's; `None` if the deadline passed first. Also returns how many moves the
/// book and the solver answered.
pub fn exact_moves(
    book: Option<&super::book::Book>,
    solver: &mut Solver,
    root: &Connect,
    deadline: Option<Instant>,
) -> (Option<Vec<(super::Column, i32)>>, usize, usize) {
    let cells = root.connect_variant().cells() as i32;
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    let (mut from_book, mut solved) = (0, 0);
    let mut out = Vec::with_capacity(moves.len());
    for col in moves {
        if root.is_winning_move(col.0 as usize) {
            out.push((col, (cells + 1 - root.moves_played() as i32) / 2));
            continue;
        }
        let mut child = root.clone();
        child.play_unchecked(col);
        if let Some((_, Some(score))) = book.and_then(|b| b.lookup(&child)) {
            from_book += 1;
            out.push((col, -score));
            continue;
        }
        solver.set_deadline(deadline);
        let result = solver.try_solve(&child, false);
        solver.set_deadline(None);
        match result {
            Ok(score) => {
                solved += 1;
                out.push((col, -score));
            }
            Err(_) => return (None, from_book, solved),
        }
    }
    (Some(out), from_book, solved)
}

/// Times the exact analysis of every move of the position of `ply` stones drawn with `seed`
/// ([`random_position`]) on 7x6, with the shipped book and a fresh solver of `table` entries
/// (the analysis uses 2^21), giving up after `limit`.
pub fn analysis_sample(ply: usize, seed: u64, table: usize, limit: Duration) -> Option<AnalysisSample> {
    let v = super::ConnectVariant::connect4();
    let p = random_position(v, ply, seed)?;
    let book = super::book::Book::standard();
    let mut solver = Solver::try_new(v, table).ok()?;
    let (start, cpu0) = (Instant::now(), thread_cpu());
    let (moves, from_book, solved) = exact_moves(Some(&book), &mut solver, &p, Some(start + limit));
    let elapsed = start.elapsed();
    let cpu = match (cpu0, thread_cpu()) {
        (Some(a), Some(b)) => b.saturating_sub(a),
        _ => elapsed,
    };
    let nodes = solver.nodes();
    Some(AnalysisSample { ply, notation: p.notation(), elapsed, cpu, from_book, solved, complete: moves.is_some(), nodes })
}

/// Order statistics of a set of times.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeStats {
    /// How many.
    pub count: usize,
    /// Median.
    pub p50: Duration,
    /// 95th percentile (nearest rank).
    pub p95: Duration,
    /// The largest.
    pub max: Duration,
    /// How many took more than one second (or did not finish).
    pub over_1s: usize,
}

impl TimeStats {
    /// The statistics of `times` (nearest-rank percentiles).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::connect::bench::TimeStats;
    /// let times: Vec<Duration> = (1..=20).map(|s| Duration::from_millis(100 * s)).collect();
    /// let s = TimeStats::of(&times);
    /// assert_eq!((s.p50, s.p95, s.max, s.over_1s), (Duration::from_millis(1000), Duration::from_millis(1900), Duration::from_secs(2), 10));
    /// ```
    pub fn of(times: &[Duration]) -> TimeStats {
        let mut t = times.to_vec();
        t.sort();
        let rank = |q: f64| t[((q * t.len() as f64).ceil() as usize).clamp(1, t.len()) - 1];
        if t.is_empty() {
            return TimeStats::default();
        }
        TimeStats {
            count: t.len(),
            p50: rank(0.5),
            p95: rank(0.95),
            max: t[t.len() - 1],
            over_1s: t.iter().filter(|d| **d > Duration::from_secs(1)).count(),
        }
    }
}
