//! The Reversi levels in the terminal: offered by name in the intro and `help`, chosen by name
//! with `--player white=engine:level=club`, and refused with the valid names.

use crate::common;

#[test]
fn a_level_by_name_plays_white_in_a_scripted_game() {
    let run =
        common::tabletop(&["play", "reversi", "--player", "white=engine:level=club", "--no-color"], "help\nf5\nquit\n");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let out = run.stdout;
    let names = "Computer levels: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, 6 advanced, 7 expert, \
                 8 master, 9 grandmaster, 10 maximum (e.g. --player white=engine:level=club).";
    assert_eq!(out.matches(names).count(), 2, "in the intro and after help: {out}");
    assert!(out.contains("White: the computer (engine:level=club)"), "{out}");
    // After f5, white has d6, f4 and f6.
    assert!(["d6", "f4", "f6"].iter().any(|m| out.contains(&format!("White (engine:level=club) plays {m}"))), "{out}");
}

#[test]
fn a_match_between_two_levels_is_reproducible() {
    let args = [
        "match",
        "reversi",
        "--player",
        "engine:level=2",
        "--player",
        "engine:level=beginner",
        "--games",
        "4",
        "--json",
    ];
    let first = common::tabletop(&args, "");
    assert!(first.ok, "{}", first.stderr);
    assert!(first.stdout.contains("\"players\":[\"engine:level=2\",\"engine:level=beginner\"]"), "{}", first.stdout);
    // The same games and results; only the wall times per move differ between runs.
    let results = |stdout: &str| {
        let mut summary: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
        let map = summary.as_object_mut().expect("an object");
        for timed in ["mean_ms_per_move", "max_ms_per_move"] {
            assert!(map.remove(timed).is_some(), "{timed}: {stdout}");
        }
        summary
    };
    assert_eq!(results(&first.stdout), results(&common::tabletop(&args, "").stdout));
}

#[test]
fn an_unknown_level_is_refused_with_the_names() {
    let run = common::tabletop(&["play", "reversi", "--player", "white=engine:level=wizard"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("bad value \"wizard\" for level"), "{}", run.stderr);
    assert!(run.stderr.contains("1 beginner, 2 novice"), "{}", run.stderr);
}
