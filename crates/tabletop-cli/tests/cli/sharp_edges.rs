//! The command line's sharp edges (issue 15): each of these misbehaved before (a panic, an
//! abort, an endless read, an error on standard output with exit 0, bad input accepted).
//! Every error is one line on standard error and a non-zero exit.

use crate::common;

use common::{tabletop, Run};
use tabletop::games::connect::book::Book;
use tabletop::games::connect::solver::Solver;
use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::games::mathable::{Mathable, SaveState, Settings};
use tabletop::Game;

/// A scratch directory for this test process.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tabletop-sharp-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The run failed with exactly one line on standard error, starting `error: ` and containing
/// `text`, and nothing panicked.
fn refused(run: &Run, text: &str) {
    assert!(!run.ok, "accepted: {}", run.stdout);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("error: ") && run.stderr.contains(text), "{}", run.stderr);
}

#[test]
fn solve_connect_reports_bad_lines_on_stderr_and_fails() {
    let run = tabletop(&["solve", "connect", "--position", "8"], "");
    refused(&run, "bad position \"8\"");
    assert_eq!(run.stdout, "");
    // Bad lines are reported with their numbers, the others solved; a blank line is the empty
    // board; the exit status says something failed.
    let v = ConnectVariant::connect3();
    let mut solver = Solver::new(v, 1 << 16);
    let expected = format!(
        "12 {}\n {}\n",
        solver.solve(&Connect::from_notation(&v, "12").unwrap()),
        solver.solve(&Connect::new(v))
    );
    let run = tabletop(&["solve", "connect", "--preset", "connect3"], "12\n9\n\n1111x\n");
    assert!(!run.ok);
    assert_eq!(run.stdout, expected);
    let errors: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(errors.len(), 3, "{}", run.stderr);
    assert!(errors[0].starts_with("error: line 2: bad position \"9\""), "{}", errors[0]);
    assert!(errors[1].starts_with("error: line 4: bad position \"1111x\""), "{}", errors[1]);
    assert_eq!(errors[2], "error: 2 of 4 lines could not be solved");
    let run = tabletop(&["solve", "connect", "--preset", "connect3"], "12\n\n");
    assert!(run.ok, "{}", run.stderr);
    assert_eq!(run.stdout, expected);
}

#[test]
fn table_and_thread_sizes_are_bounded() {
    let run = tabletop(&["solve", "connect", "--table", "18446744073709551615", "--position", "44"], "");
    refused(&run, "cannot allocate a table of");
    let run = tabletop(&["solve", "connect", "--table", "1099511627776", "--position", "44"], "");
    refused(&run, "--table 1099511627776: cannot allocate a table of 8388609 MiB");
    let run = tabletop(&["solve", "connect", "--threads", "1000", "--position", "44"], "");
    refused(&run, "--threads 1000: give 1 to");
    let run = tabletop(&["solve", "connect", "--threads", "0", "--position", "44"], "");
    refused(&run, "--threads 0");
    let run = tabletop(&["book", "connect", "--threads", "1000", "--output", "/nonexistent/b.bin"], "");
    refused(&run, "--threads 1000");
    let run = tabletop(&["book", "connect", "--plies", "100", "--output", "/nonexistent/b.bin"], "");
    refused(&run, "--plies 100: a connect4 board has 42 cells");
    let run = tabletop(
        &["book", "connect", "--side", "all", "--plies", "20", "--reprove", "--output", "/nonexistent/b.bin"],
        "",
    );
    refused(&run, "--plies 20 with --side all: every position of up to 12 stones at most");
    let run = tabletop(&["book", "connect", "--side", "every", "--output", "/nonexistent/b.bin"], "");
    refused(&run, "--side \"every\": choose first, second, both or all");
    let run = tabletop(&["book", "connect", "--position-seconds", "NaN", "--output", "/nonexistent/b.bin"], "");
    refused(&run, "--position-seconds NaN");
}

#[test]
fn files_are_read_with_a_size_cap() {
    let run = tabletop(&["play", "mathable", "--load", "/dev/zero"], "");
    refused(&run, "/dev/zero is larger than");
    let run = tabletop(&["moves", "mathable", "--state", "/dev/zero"], "");
    refused(&run, "/dev/zero is larger than");
    if cfg!(feature = "tune") {
        let run = tabletop(&["tune", "reversi", "--weights", "/dev/zero", "--games", "1"], "");
        refused(&run, "/dev/zero is larger than");
    }
    let run = tabletop(&["book", "connect", "--report", "--output", "/dev/zero"], "");
    refused(&run, "/dev/zero is larger than");
}

#[test]
fn mathable_saves_are_validated_with_checked_arithmetic() {
    let dir = scratch("saves");
    let mut save = SaveState::from_game(&Mathable::start(&Settings::default()), &[]);
    save.scores = vec![i32::MAX - 3, 0];
    let path = dir.join("score.json");
    std::fs::write(&path, save.to_json(true)).unwrap();
    let run = tabletop(&["moves", "mathable", "--state", path.to_str().unwrap()], "");
    refused(&run, "score 2147483644 is beyond");

    let mut save = SaveState::from_game(&Mathable::start(&Settings::default()), &[]);
    save.bag.as_mut().unwrap().extend(std::iter::repeat_n(3u8, 256));
    let path = dir.join("bag.json");
    std::fs::write(&path, save.to_json(true)).unwrap();
    let run = tabletop(&["play", "mathable", "--load", path.to_str().unwrap()], "");
    refused(&run, "the bag holds more tokens of 3 than the set");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_are_printed_once() {
    let dir = scratch("once");
    let path = dir.join("bad.json");
    std::fs::write(&path, "{ not json").unwrap();
    let run = tabletop(&["moves", "mathable", "--state", path.to_str().unwrap()], "");
    refused(&run, "not a Mathable save");
    assert_eq!(run.stderr.matches("not a Mathable save").count(), 1, "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn weight_files_and_numeric_options_are_checked() {
    let dir = scratch("weights");
    let header = format!("empties {}\n", tabletop::games::reversi::eval::FEATURES.join(" "));
    let path = dir.join("huge.txt");
    std::fs::write(&path, format!("{header}0-60 1 2 3 4 5 6 7 8 9 2000000000\n")).unwrap();
    if cfg!(feature = "tune") {
        let run = tabletop(&["tune", "reversi", "--weights", path.to_str().unwrap(), "--games", "1"], "");
        refused(&run, "weight 2000000000 is beyond");
        let run = tabletop(&["tune", "reversi", "--ridge", "NaN", "--games", "1"], "");
        refused(&run, "--ridge NaN");
        let run = tabletop(&["tune", "reversi", "--ridge=-1", "--games", "1"], "");
        refused(&run, "--ridge -1");
        // The endgame ProbCut fit would be thrown away without a file to write it to.
        let run = tabletop(&["tune", "reversi", "--patterns", "--endcut-positions", "10", "--games", "1"], "");
        refused(&run, "--endcut-positions needs --patterns and --probcut-output");
    } else {
        // The training pipeline is not in the shipped binary: the command says so.
        let run = tabletop(&["tune", "reversi", "--games", "1"], "");
        refused(&run, "reversi has no tune command");
    }
    let run = tabletop(&["match", "slide", "--opening-min", "100", "--opening-max", "2", "--games", "2"], "");
    refused(&run, "--opening-min 100 is more than --opening-max 2");
    // A bad FFO range is refused before the benchmark's minutes of perft.
    let run = tabletop(&["bench", "reversi", "--ffo", "60-70"], "");
    refused(&run, "--ffo \"60-70\": give a range such as 40-49");
    // The FFO solves' threads are checked before the perft runs.
    let run = tabletop(&["bench", "reversi", "--threads", "0"], "");
    refused(&run, "--threads 0: give 1 to");
    // The accuracy benchmark refuses bad counts, ranges and players before solving anything.
    let run = tabletop(&["bench", "reversi", "--accuracy", "0"], "");
    refused(&run, "--accuracy 0: give 1 to 10000 positions");
    let run = tabletop(&["bench", "reversi", "--accuracy", "10001"], "");
    refused(&run, "--accuracy 10001: give 1 to 10000 positions");
    let run = tabletop(&["bench", "reversi", "--accuracy", "--accuracy-empties", "0-3"], "");
    refused(&run, "--accuracy-empties \"0-3\": give a range within 1-59");
    let run = tabletop(&["bench", "reversi", "--accuracy", "--player", "engine:speed=1"], "");
    refused(&run, "player \"engine:speed=1\": player \"engine\" has no setting \"speed\"");
    let run = tabletop(&["analyze", "reversi", "--time", "NaN"], "");
    assert!(!run.ok && run.stderr.contains("not a duration"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn book_files_are_checked() {
    let run = tabletop(&["book", "connect", "--report", "--output", "/nonexistent/x.bin"], "");
    refused(&run, "cannot read /nonexistent/x.bin");
    let dir = scratch("book");
    let path = dir.join("book.bin");
    let mut bytes = Book::standard().to_bytes();
    bytes[40] ^= 0x04;
    std::fs::write(&path, &bytes).unwrap();
    let run = tabletop(&["book", "connect", "--report", "--output", path.to_str().unwrap()], "");
    refused(&run, "the book is corrupted");
    // The shipped book still reports.
    let run = tabletop(&["book", "connect", "--report"], "");
    assert!(run.ok && run.stdout.contains("proven"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}
