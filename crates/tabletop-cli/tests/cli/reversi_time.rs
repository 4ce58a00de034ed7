//! `tabletop bench reversi --time-use N` and the engine's game clock from the command line.

use crate::common;

#[test]
fn the_time_use_benchmark_reports_mean_and_max() {
    let run = common::tabletop(&["bench", "reversi", "--time-use", "3", "--move-time", "20ms"], "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("Time use of engine:time=20ms: 3 midgame positions"), "{}", run.stdout);
    assert!(run.stdout.contains("mean ") && run.stdout.contains("max "), "{}", run.stdout);
    let run = common::tabletop(&["bench", "reversi", "--time-use", "0"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("--time-use 0: give 1 to 10000 positions"), "{}", run.stderr);
}

#[test]
fn a_match_on_a_game_clock() {
    let args = ["match", "reversi", "--player", "engine:clock=1s", "--player", "random", "--games", "2"];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("engine:clock=1s"), "{}", run.stdout);
    let run = common::tabletop(&["match", "reversi", "--player", "engine:clock=soon", "--player", "random"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("5m+2s"), "{}", run.stderr);
}
