//! Game clocks at the terminal (`tabletop play GAME --tc`), in matches (`--tc`, `clock=`) and
//! in the review of a timed game.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common;

#[test]
fn a_person_who_lets_the_clock_run_out_loses_and_the_review_shows_the_times() {
    let dir = std::env::temp_dir().join(format!("tabletop-clock-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("timed.txt");
    let file_text = file.to_str().expect("UTF-8 path");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["play", "connect", "--preset", "connect3", "--player", "o=human", "--tc", "0:02+0"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tabletop binary runs");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // X moves at once; O thinks longer than its two seconds (late input only makes it later).
    stdin.write_all(b"1\n").expect("X's move");
    std::thread::sleep(Duration::from_millis(3500));
    stdin.write_all(format!("2\nsave {file_text}\nquit\n").as_bytes()).expect("O's late move");
    drop(stdin);
    let out = child.wait_with_output().expect("tabletop finishes");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    // Both clocks at each prompt: X's runs (a little under two seconds), O's waits whole.
    assert!(stdout.contains("[X 0:0") && stdout.contains(" | O 0:02.0] X's turn"), "{stdout}");
    assert!(stdout.contains("O ran out of time."), "{stdout}");
    assert!(stdout.contains("Game over: O ran out of time; X wins."), "{stdout}");
    // The late move was not played: the saved game has X's move only, with its time.
    let saved = std::fs::read_to_string(&file).expect("saved");
    assert!(saved.contains("\nmoves 1\nclock 0:02+0\ntimes "), "{saved}");

    let run = common::tabletop(&["review", "connect", "--preset", "connect3", "--load", file_text, "--quiet"], "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].ends_with("  time"), "{}", run.stdout);
    assert!(lines[1].contains(" s, 0:0") && lines[1].ends_with(" left"), "{}", run.stdout);
    let run = common::tabletop(&["review", "connect", "--preset", "connect3", "--load", file_text, "--json"], "");
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(json["clock"]["controls"], serde_json::json!(["0:02+0"]));
    assert!(json["clock"]["moves"][0]["remaining_ms"].as_u64().is_some_and(|ms| ms <= 2000), "{json}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_timed_match_reports_time_losses_and_the_share_of_the_clock_used_and_saves_the_times() {
    let dir = std::env::temp_dir().join(format!("tabletop-clock-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("games.txt");
    let out_text = out.to_str().expect("UTF-8 path");
    let args = ["match", "mnk", "--tc", "0:30+0", "--games", "2", "--player", "engine:depth=2", "--player", "random"];
    let run = common::tabletop(&[&args[..], &["--json", "--games-out", out_text]].concat(), "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(json["clocks"], serde_json::json!(["0:30+0", "0:30+0"]));
    assert_eq!(json["time_losses"], serde_json::json!([0, 0]));
    let share = json["mean_clock_share"][0].as_f64().expect("a share");
    assert!((0.0..1.0).contains(&share), "{json}");
    let games = std::fs::read_to_string(&out).expect("games written");
    assert_eq!(games.matches("\nclock 0:30+0\ntimes ").count(), 2, "{games}");
    assert_eq!(games.matches("\nresult ").count(), 2, "{games}");

    // A player's own clock= overrides --tc; a bad one is refused with the reason.
    let run = common::tabletop(&["match", "mnk", "--games", "2", "--player", "engine:clock=0:20+1", "--json"], "");
    assert!(run.ok, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(json["clocks"], serde_json::json!(["0:20+1", "none"]));
    let run = common::tabletop(&["match", "mnk", "--player", "engine:clock=soon"], "");
    assert!(!run.ok && run.stderr.contains("clock"), "{}", run.stderr);
    let run = common::tabletop(&["match", "mnk", "--tc", "99999+0"], "");
    assert!(!run.ok && run.stderr.contains("--tc"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).ok();
}
