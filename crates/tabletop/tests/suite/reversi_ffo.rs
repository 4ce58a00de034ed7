//! The FFO endgame test positions #40-#49 solve exactly: score and a best move. All ten take
//! about a minute of CPU in the test profile (optimised); `tabletop bench reversi` times them.
//! Some are solved on several threads too (the same exact answers).

use std::time::Instant;

use tabletop::games::reversi::bench::FFO_FILES;
use tabletop::games::reversi::solver::{ParallelSolver, Solver};
use tabletop::games::reversi::{Reversi, ReversiMove};

/// The file of #40-#49.
const FFO: &str = FFO_FILES[0].1;

/// (position, best score, moves achieving it) of line `index` (0 = #40).
fn case(index: usize) -> (Reversi, i32, Vec<ReversiMove>) {
    let line = FFO.lines().filter(|l| !l.trim().is_empty()).nth(index).expect("ten positions");
    let mut parts = line.split(';');
    let position: Reversi = parts.next().unwrap().parse().unwrap();
    let scored: Vec<(ReversiMove, i32)> = parts
        .filter_map(|p| p.trim().split_once(':'))
        .map(|(m, s)| (m.parse().unwrap(), s.trim_start_matches('+').parse().unwrap()))
        .collect();
    let best = scored.iter().map(|s| s.1).max().unwrap();
    (position, best, scored.into_iter().filter(|s| s.1 == best).map(|s| s.0).collect())
}

fn check(index: usize) {
    let (position, score, best) = case(index);
    let mut solver = Solver::new(21);
    let start = Instant::now();
    let solution = solver.solve(&position);
    println!(
        "FFO #{}: score {} best {:?} nodes {} in {:.2?}",
        40 + index,
        solution.score,
        solution.best,
        solution.nodes,
        start.elapsed()
    );
    assert_eq!(solution.score, score, "FFO #{}", 40 + index);
    assert!(best.contains(&solution.best.unwrap()), "FFO #{}: {:?} not in {best:?}", 40 + index, solution.best);
}

/// The parallel solver (threads sharing one table) on `index`'s position: the file's score and
/// one of its best moves, as the one-thread solver of [`check`].
fn check_parallel(solver: &mut ParallelSolver, index: usize) {
    let (position, score, best) = case(index);
    solver.clear();
    let solution = solver.solve(&position);
    assert_eq!(solution.score, score, "FFO #{} on {} threads", 40 + index, solver.threads());
    let mv = solution.best.unwrap();
    assert!(best.contains(&mv), "FFO #{} on {} threads: {mv} not in {best:?}", 40 + index, solver.threads());
}

#[test]
fn ffo_40_to_44_on_two_threads() {
    let mut solver = ParallelSolver::try_new(2, 21).unwrap();
    for index in 0..5 {
        check_parallel(&mut solver, index);
    }
}

#[test]
fn ffo_47_on_three_threads() {
    check_parallel(&mut ParallelSolver::try_new(3, 21).unwrap(), 7);
}

#[test]
fn ffo_40() {
    check(0);
}
#[test]
fn ffo_41() {
    check(1);
}
#[test]
fn ffo_42() {
    check(2);
}
#[test]
fn ffo_43() {
    check(3);
}
#[test]
fn ffo_44() {
    check(4);
}
#[test]
fn ffo_45() {
    check(5);
}
#[test]
fn ffo_46() {
    check(6);
}
#[test]
fn ffo_47() {
    check(7);
}
#[test]
fn ffo_48() {
    check(8);
}
#[test]
fn ffo_49() {
    check(9);
}
