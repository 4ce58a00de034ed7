//! `tabletop tune reversi`: a small fit writes a weight file the library accepts.

mod common;

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
