//! The Connect-N solver: small boards and Pons' benchmark sets.

use tabletop::games::connect::solver::Solver;
use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::Game;

fn check_set(name: &str, step: usize) {
    let path = format!("{}/../../../shared/data/connect/{name}", env!("CARGO_MANIFEST_DIR"));
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

#[test]
fn small_boards() {
    let mut s = Solver::new(ConnectVariant::connect3(), 1 << 16);
    assert!(s.solve(&Connect::start(&ConnectVariant::connect3())) > 0, "4x3/3: first player wins");
    let v = ConnectVariant::connect4_6x4();
    let mut s = Solver::new(v, 1 << 20);
    assert!(s.solve(&Connect::start(&v)) < 0, "6x4/4: second player wins");
}
