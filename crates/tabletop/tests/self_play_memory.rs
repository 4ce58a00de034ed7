//! Reversi's self-play keeps its memory bounded however many games it plays. A test binary of
//! its own, not a module of `suite`: it measures the process's resident memory, which the
//! suite's other tests, running beside it, would disturb.
#![cfg(all(feature = "tune", target_os = "linux"))]

use tabletop::games::reversi::tuning::SelfPlay;

/// The process's resident memory in MiB (`VmRSS` of `/proc/self/status`).
fn resident_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status is readable on Linux");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a VmRSS line in kB");
    kib / 1024
}

#[test]
fn self_play_memory_stays_bounded() {
    // Cheap games (depth 1, exact from 8 empties): the engine's and the solvers' tables are
    // what take the memory. Allocating them for each game grew the process by about 3-15 MB
    // a game (1.2 GB over these 300 games); kept per thread, they take the same memory for
    // 300 games as for 20.
    let settings = SelfPlay { games: 300, depth: 1, solve_empties: 8, ..SelfPlay::default() };
    let warm_up = SelfPlay { games: 20, ..settings.clone() }.generate_positions(&|| {});
    assert!(!warm_up.is_empty());
    let before = resident_mib();
    let positions = settings.generate_positions(&|| {});
    let grown = resident_mib().saturating_sub(before);
    assert!(positions.len() > 300 * 40, "{} positions", positions.len());
    assert!(grown < 250, "300 games of self-play grew the process by {grown} MiB");
}
