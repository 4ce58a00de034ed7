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
    assert!(run.stderr.contains("clock") && run.stderr.contains("5+3"), "{}", run.stderr);
}

/// A match reports each player's time per move (issue 23: the time an engine uses in a match,
/// not only in the benchmark's positions): the engine on a 20 ms budget thinks, `random` does
/// not, and every move of both is counted.
#[test]
fn a_match_reports_the_time_per_move_of_each_player() {
    let args = ["match", "reversi", "--player", "engine:time=20ms", "--player", "random", "--games", "2", "--json"];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let summary: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
    let number = |key: &str, player: usize| summary[key][player].as_f64().unwrap_or_else(|| panic!("{key}: {summary}"));
    // Two games of at most 60 placements (and a few passes) less the openings, about half
    // of them each (fewer if the engine wipes `random` out early).
    for player in 0..2 {
        assert!((10.0..=70.0).contains(&number("moves", player)), "{summary}");
        assert!(number("max_ms_per_move", player) >= number("mean_ms_per_move", player), "{summary}");
    }
    assert!(number("mean_ms_per_move", 0) >= 5.0, "the engine thinks: {summary}");
    assert!(number("mean_ms_per_move", 1) < number("mean_ms_per_move", 0), "{summary}");
    let run = common::tabletop(&args[..args.len() - 1], "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("A time per move: mean "), "{}", run.stdout);
}
