//! The Connect-N solver: small boards and Pons' benchmark sets.

use tabletop::games::connect::bench::DATA_DIR;
use tabletop::games::connect::solver::{plain_negamax, Solver};
use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::Game;

fn check_set(name: &str, step: usize) {
    let path = format!("{DATA_DIR}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v = ConnectVariant::connect4();
    let mut solver = Solver::new(v, 1 << 22);
    let mut count = 0;
    for line in text.lines().step_by(step) {
        let (seq, score) = line.split_once(' ').unwrap();
        let p = Connect::from_notation(&v, seq).unwrap();
        assert_eq!(solver.solve(&p), score.trim().parse::<i32>().unwrap(), "{name}: {seq}");
        count += 1;
    }
    assert!(count >= 1000 / step);
}

#[test]
fn set_l3_r1_full() {
    check_set("Test_L3_R1", 1);
}

#[test]
fn set_l2_r1_full() {
    check_set("Test_L2_R1", 1);
}

#[test]
fn set_l2_r2_sampled() {
    check_set("Test_L2_R2", 10);
}

#[test]
fn set_l1_r1_full() {
    check_set("Test_L1_R1", 1);
}

#[test]
fn set_l1_r2_sampled() {
    check_set("Test_L1_R2", 50);
}

/// Parallel solves (positions searched by two threads, with moves split between them at the
/// nodes with many empty cells) give the exact scores; the table is shared across positions.
#[test]
fn parallel_solves_sampled() {
    let path = format!("{DATA_DIR}/Test_L1_R2");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v = ConnectVariant::connect4();
    let mut solver = Solver::new(v, 1 << 22);
    for line in text.lines().step_by(100) {
        let (seq, score) = line.split_once(' ').unwrap();
        let p = Connect::from_notation(&v, seq).unwrap();
        let expected: i32 = score.trim().parse().unwrap();
        assert_eq!(solver.solve_parallel(&p, 2, false).0, expected, "{seq}");
        assert_eq!(solver.solve_parallel(&p, 2, true).0, expected.signum(), "weak {seq}");
    }
}

#[test]
fn small_boards() {
    let mut s = Solver::new(ConnectVariant::connect3(), 1 << 16);
    assert!(s.solve(&Connect::start(&ConnectVariant::connect3())) > 0, "4x3/3: first player wins");
    let v = ConnectVariant::connect4_6x4();
    let mut s = Solver::new(v, 1 << 20);
    assert!(s.solve(&Connect::start(&v)) < 0, "6x4/4: second player wins");
}

#[test]
fn solver_matches_plain_negamax_on_many_sizes() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    // 7x7 and 9x6 use the prime-sized table (keys over 50 bits); the others the power of two.
    for (w, h, n, empties) in [(7, 7, 4, 8), (9, 6, 5, 8), (5, 4, 3, 9), (4, 4, 3, 10), (6, 5, 4, 9), (3, 9, 6, 9)] {
        let v = ConnectVariant::new(w, h, n).unwrap();
        let mut solver = Solver::new(v, 1 << 16);
        let mut tested = 0;
        while tested < 12 {
            let mut p = Connect::start(&v);
            let mut moves = Vec::new();
            while p.status().to_move().is_some() && v.cells() - p.moves_played() > empties {
                p.legal_moves(&mut moves);
                p.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            }
            if p.status().to_move().is_none() {
                continue;
            }
            assert_eq!(solver.solve(&p), plain_negamax(&p), "{w}x{h}/{n} {}", p.notation());
            let weak = solver.solve_weak(&p);
            assert_eq!(weak, plain_negamax(&p).signum(), "weak {w}x{h}/{n} {}", p.notation());
            tested += 1;
        }
    }
}

/// 7x6: the first player wins, and only with the centre column (weak solves of the seven
/// first moves, one thread: about 70 s in the test profile).
#[test]
fn seven_by_six_only_the_centre_wins() {
    let v = ConnectVariant::connect4();
    let mut solver = Solver::new(v, 1 << 26);
    let start = Connect::start(&v);
    let mut moves = Vec::new();
    start.legal_moves(&mut moves);
    for m in moves {
        let mut child = start.clone();
        child.play_unchecked(m);
        let value = -solver.solve_weak(&child);
        assert_eq!(value > 0, m.0 == 3, "column {m}: {value}");
    }
}

/// A seeded random sample of every Pons set (40 lines each, beyond the stepped ones above):
/// the exact scores, with the forced chains, the four-ply bound and the threat ordering.
#[test]
fn seeded_sample_of_every_set() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(27);
    let v = ConnectVariant::connect4();
    let mut solver = Solver::new(v, 1 << 22);
    for name in ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R1", "Test_L1_R2"] {
        let path = format!("{DATA_DIR}/{name}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        for _ in 0..40 {
            let line = lines[rng.gen_range(0..lines.len())];
            let (seq, score) = line.split_once(' ').unwrap();
            let p = Connect::from_notation(&v, seq).unwrap();
            assert_eq!(solver.solve(&p), score.trim().parse::<i32>().unwrap(), "{name}: {seq}");
        }
    }
}

/// Every null-window test (is the score above v?) agrees with plain negamax, for every v, on
/// random positions of small boards: the bounds of the static pruning (forced chains played
/// without a node, no win within two of one's own moves, claimeven) must hold in every window,
/// not only give the right final score. One table for all positions, so stored bounds are
/// reused across them.
#[test]
fn null_window_tests_match_plain_negamax() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let mut forced = 0;
    for (w, h, n, empties, positions) in [(5, 4, 4, 11, 40), (4, 4, 3, 11, 40), (6, 4, 4, 10, 40), (7, 6, 4, 9, 20)] {
        let v = ConnectVariant::new(w, h, n).unwrap();
        let mut solver = Solver::new(v, 1 << 17);
        let mut tested = 0;
        while tested < positions {
            let mut p = Connect::start(&v);
            let mut moves = Vec::new();
            while p.status().to_move().is_some() && v.cells() - p.moves_played() > empties {
                p.legal_moves(&mut moves);
                p.play_unchecked(moves[rng.gen_range(0..moves.len())]);
            }
            if p.status().to_move().is_none() {
                continue;
            }
            let exact = plain_negamax(&p);
            let bound = (v.cells() as i32 + 1) / 2;
            solver.reset_nodes();
            for value in -bound..=bound {
                assert_eq!(solver.score_above(&p, value), exact > value, "{w}x{h}/{n} {} > {value}", p.notation());
            }
            forced += solver.forced_moves();
            tested += 1;
        }
    }
    assert!(forced > 0, "no forced chain was exercised");
}
