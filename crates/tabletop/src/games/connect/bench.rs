//! The solver benchmark over Pons' shared test sets (`Test_L3_R1` ... `Test_L1_R2`): each line
//! is a position (a column sequence) and its exact score.
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

/// The directory of the sets in the shared data beside the repository, if it is there.
pub fn default_data_dir() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/connect"));
    dir.exists().then(|| dir.to_path_buf())
}

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
