//! `tabletop tune reversi`: a small fit writes a weight file the library accepts.

use crate::common;

use common::tabletop;
use tabletop::games::reversi::eval::Weights;

#[test]
fn a_small_tuning_run_writes_valid_weights() {
    let path = std::env::temp_dir().join(format!("tabletop-tune-{}.txt", std::process::id()));
    let path_text = path.to_string_lossy().into_owned();
    let run = tabletop(
        &["tune", "reversi", "--games", "20", "--seed", "3", "--solve-empties", "10", "--output", &path_text],
        "",
    );
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("held-out mean squared error"), "{}", run.stdout);
    let text = std::fs::read_to_string(&path).expect("the weight file was written");
    let _ = std::fs::remove_file(&path);
    assert!(text.contains("--games 20 --seed 3"), "{text}");
    Weights::parse(&text).expect("a valid weight file");
}

#[test]
fn bad_tuning_options_are_refused() {
    let run = tabletop(&["tune", "reversi", "--depth", "0"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("--depth"), "{}", run.stderr);
}

#[test]
fn a_small_pattern_run_writes_weights_and_positions_the_library_accepts() {
    let dir = std::env::temp_dir();
    let id = std::process::id();
    let weights = dir.join(format!("tabletop-patterns-{id}.bin")).to_string_lossy().into_owned();
    let positions = dir.join(format!("tabletop-positions-{id}.bin")).to_string_lossy().into_owned();
    let cut = dir.join(format!("tabletop-probcut-{id}.txt")).to_string_lossy().into_owned();
    let args = ["tune", "reversi", "--patterns", "--games", "6", "--solve-empties", "10", "--iterations", "5"];
    let mut first = args.to_vec();
    first.extend(["--save-positions", &positions, "--output", &weights]);
    let run = tabletop(&first, "");
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("test-rms"), "{}", run.stdout);
    let bytes = std::fs::read(&weights).expect("the weight file was written");
    tabletop::games::reversi::patterns::PatternWeights::parse(&bytes).expect("valid weights");
    // The saved positions give the same weights.
    let mut again = args.to_vec();
    again.extend(["--load-positions", &positions, "--output", &weights, "--probcut-positions", "20"]);
    again.extend(["--probcut-output", &cut, "--endcut-positions", "20"]);
    let run = tabletop(&again, "");
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(std::fs::read(&weights).expect("written again"), bytes);
    let text = std::fs::read_to_string(&cut).expect("the ProbCut file was written");
    tabletop::games::reversi::probcut::ProbCut::parse(&text).expect("valid ProbCut parameters");
    // A damaged positions file is refused with a reason.
    std::fs::write(&positions, b"TTRVPOS1 damaged").expect("writable");
    let run = tabletop(&["tune", "reversi", "--patterns", "--load-positions", &positions], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("bad positions file"), "{}", run.stderr);
    for path in [&weights, &positions, &cut] {
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn a_second_round_plays_and_refines_with_a_weight_file() {
    let dir = std::env::temp_dir();
    let id = std::process::id();
    let first = dir.join(format!("tabletop-round1-{id}.bin")).to_string_lossy().into_owned();
    let second = dir.join(format!("tabletop-round2-{id}.bin")).to_string_lossy().into_owned();
    let prior = tabletop::games::reversi::patterns::PatternWeights::builtin();
    std::fs::write(&first, prior.to_bytes()).expect("writable");
    let run = tabletop(
        &[
            "tune",
            "reversi",
            "--patterns",
            "--games",
            "4",
            "--depth",
            "2",
            "--solve-empties",
            "10",
            "--iterations",
            "5",
            "--play-patterns",
            &first,
            "--search-label",
            "100",
            "--label-depth",
            "3",
            "--refine",
            &first,
            "--l2",
            "1e9",
            "--output",
            &second,
        ],
        "",
    );
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("shipped-test-rms"), "{}", run.stdout);
    // An overwhelming penalty toward the refined file gives that file back.
    let bytes = std::fs::read(&second).expect("the weight file was written");
    assert_eq!(tabletop::games::reversi::patterns::PatternWeights::parse(&bytes).as_ref(), Ok(prior));
    // A file that is not a weight file is refused, naming it.
    std::fs::write(&first, b"not weights").expect("writable");
    let run = tabletop(&["tune", "reversi", "--patterns", "--games", "1", "--refine", &first], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("bad pattern weight file"), "{}", run.stderr);
    // A labelling depth without search labels would be ignored: it is refused.
    let run = tabletop(&["tune", "reversi", "--patterns", "--games", "1", "--label-depth", "8"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("--label-depth needs --search-label"), "{}", run.stderr);
    for path in [&first, &second] {
        let _ = std::fs::remove_file(path);
    }
}
