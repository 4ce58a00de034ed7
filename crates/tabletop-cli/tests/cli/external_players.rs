//! `external:cmd=...` players (docs/PROTOCOL.md) in `tabletop match` and `tabletop play`: bots
//! on the line protocol winning, losing, crashing, timing out and answering illegal moves, and
//! a random bot finishing games of every game in the registry. The bots are
//! `tests/bots/bot.py` (Python 3 standard library) in its modes.

use crate::common;

use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::{Outcome, Record, Seat, Status};

/// The spec of an external player running `tests/bots/bot.py ARGS`.
fn bot(args: &str) -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bots/bot.py");
    format!("external:cmd=\"python3 {script} {args}\"")
}

fn tmp(name: &str) -> String {
    let dir = env!("CARGO_TARGET_TMPDIR");
    format!("{dir}/external-{}-{name}", std::process::id())
}

/// `tabletop match connect` (standard board, no random opening) between `a` and `b`: the output
/// and the games played, from `--games-out`.
fn connect_match(a: &str, b: &str, games: usize, name: &str) -> (common::Run, Vec<Record<Connect>>) {
    let out = tmp(name);
    let games = games.to_string();
    let args = ["match", "connect", "--player", a, "--player", b, "--games", &games, "--opening-max", "0"];
    let run = common::tabletop(&[&args[..], &["--games-out", &out]].concat(), "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let variant = ConnectVariant::connect4();
    let records = text
        .split("tabletop connect")
        .skip(1)
        .map(|g| Record::from_text(&variant, &format!("tabletop connect{g}")).unwrap())
        .collect();
    (run, records)
}

fn moves(record: &Record<Connect>) -> String {
    record.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")
}

#[test]
fn a_bot_wins_and_loses_by_the_rules() {
    // A stacks column 4, B column 1: whoever moves first completes its column first.
    let (run, games) = connect_match(&bot("prefer 4"), &bot("prefer 1"), 2, "win");
    assert_eq!(games.len(), 2);
    assert_eq!(moves(&games[0]), "4 1 4 1 4 1 4");
    assert_eq!(games[0].status(), Status::Over(Outcome::Win(Seat(0))));
    assert_eq!(moves(&games[1]), "1 4 1 4 1 4 1");
    assert_eq!(games[1].status(), Status::Over(Outcome::Win(Seat(0))));
    assert!(run.stdout.contains("2 games of connect"), "{}", run.stdout);
    let a = run.stdout.lines().find(|l| l.trim_start().starts_with("A ")).unwrap();
    let b = run.stdout.lines().find(|l| l.trim_start().starts_with("B ")).unwrap();
    assert!(a.contains("wins     1") && b.contains("wins     1"), "{}", run.stdout);
    assert!(!run.stdout.contains("forfeit"), "{}", run.stdout);
}

#[test]
fn a_bot_that_crashes_forfeits_and_the_match_goes_on() {
    // It crashes only in seat 1 (game 1); in game 2 it plays (first legal moves) to the end.
    let (run, games) = connect_match(&bot("--only-seat 1 crash"), "random", 2, "crash");
    let forfeits: Vec<&str> = run.stdout.lines().filter(|l| l.contains("forfeits")).collect();
    assert_eq!(forfeits.len(), 1, "{}", run.stdout);
    assert!(forfeits[0].starts_with("game 1: A ("), "{}", forfeits[0]);
    assert!(
        forfeits[0].ends_with("seat 1) forfeits: the bot exited before answering (exit status 3)"),
        "{}",
        forfeits[0]
    );
    assert!(run.stdout.contains("games lost by forfeit: A 1, B 0"), "{}", run.stdout);
    let b = run.stdout.lines().find(|l| l.trim_start().starts_with("B random")).unwrap();
    assert!(!b.contains("wins     0"), "B wins game 1 by forfeit: {}", run.stdout);
    // Game 1 stopped before any move; game 2 was played to its end.
    assert_eq!(games[0].moves().len(), 0);
    assert!(games[1].status().outcome().is_some(), "{}", moves(&games[1]));
}

#[test]
fn a_bot_that_times_out_forfeits_and_the_match_goes_on() {
    // It hangs only in seat 2 (game 2), after game 1 played normally.
    let spec = format!("{},timeout=2s", bot("--only-seat 2 hang"));
    let (run, games) = connect_match(&spec, "random", 2, "hang");
    let forfeits: Vec<&str> = run.stdout.lines().filter(|l| l.contains("forfeits")).collect();
    assert_eq!(forfeits.len(), 1, "{}", run.stdout);
    assert!(forfeits[0].starts_with("game 2: A ("), "{}", forfeits[0]);
    assert!(forfeits[0].ends_with("seat 2) forfeits: the bot timed out after 2s"), "{}", forfeits[0]);
    assert!(run.stdout.contains("games lost by forfeit: A 1, B 0"), "{}", run.stdout);
    assert!(games[0].status().outcome().is_some(), "{}", moves(&games[0]));
    assert!(games[1].status().outcome().is_none(), "game 2 stops at the forfeit");
}

#[test]
fn a_bot_that_plays_an_illegal_or_unreadable_move_forfeits() {
    // A always answers column 1; once B has helped fill it, A's 1 is illegal: every game.
    let (run, games) = connect_match(&bot("always 1"), &bot("prefer 1"), 2, "illegal");
    let forfeits: Vec<&str> = run.stdout.lines().filter(|l| l.contains("forfeits")).collect();
    assert_eq!(forfeits.len(), 2, "{}", run.stdout);
    for line in &forfeits {
        assert!(line.ends_with("forfeits: the bot's move 1 is not legal: column 1 is full"), "{line}");
    }
    assert_eq!(moves(&games[0]), "1 1 1 1 1 1");
    assert!(run.stdout.contains("games lost by forfeit: A 2, B 0"), "{}", run.stdout);

    // Column 9 does not exist; `hello` is not an answer. With --json the summary counts them.
    for (mode, reason) in [
        ("always 9", "the bot's move \"9\" cannot be read: column 9 is off the board"),
        ("garbage", "the bot answered \"hello\", not \"move MOVE\""),
    ] {
        let spec = bot(mode);
        let run = common::tabletop(
            &["match", "connect", "--player", &spec, "--player", "random", "--games", "2", "--json"],
            "",
        );
        assert!(run.ok, "{}", run.stderr);
        let summary: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        assert_eq!(summary["forfeits"], serde_json::json!([2, 0]), "{}", run.stdout);
        assert_eq!(summary["wins"], serde_json::json!([0, 2]), "{}", run.stdout);
        assert_eq!(run.stderr.matches(reason).count(), 2, "{mode}: {}", run.stderr);
    }
}

#[test]
fn the_protocol_is_what_docs_protocol_md_says() {
    let log = tmp("protocol.log");
    let (_, games) = connect_match(&bot(&format!("--log {log} prefer 4")), &bot("prefer 1"), 1, "protocol");
    let text = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    assert_eq!(moves(&games[0]), "4 1 4 1 4 1 4");
    let mut expected =
        "tabletop 1\ngame connect\nvariant ConnectVariant { width: 7, height: 6, line: 4 }\nseats 2\nseat 1\nstart \n"
            .to_string();
    for (position, history) in [("", ""), ("41", "4 1"), ("4141", "4 1 4 1"), ("414141", "4 1 4 1 4 1")] {
        expected += &format!("position {position}\nmoves {history}\nlegal 1 2 3 4 5 6 7\ntime 10000\ngo\n");
    }
    expected += "end win 4 in a row\n";
    assert_eq!(text, expected);
}

#[test]
fn a_random_bot_finishes_games_of_every_game() {
    for entry in tabletop::registry::GAMES {
        let log = tmp(&format!("{}-every.log", entry.name));
        let spec = bot(&format!("--log {log} random 7"));
        let run = common::tabletop(&["match", entry.name, "--player", &spec, "--player", "random", "--games", "2"], "");
        assert!(run.ok, "{}: {}\n{}", entry.name, run.stdout, run.stderr);
        assert!(run.stdout.starts_with(&format!("2 games of {}", entry.name)), "{}: {}", entry.name, run.stdout);
        assert!(!run.stdout.contains("forfeit"), "{}: {}", entry.name, run.stdout);
        let text = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_file(&log);
        assert_eq!(text.matches(&format!("game {}\n", entry.name)).count(), 2, "{}", entry.name);
        assert_eq!(text.lines().filter(|l| l.starts_with("end ")).count(), 2, "{}: {text}", entry.name);
        assert!(text.lines().filter(|l| *l == "go").count() >= 2, "{}", entry.name);
        assert!(text.lines().filter(|l| l.starts_with("legal ")).all(|l| l.len() > "legal ".len()), "{}", entry.name);
    }
}

#[test]
fn play_shows_a_bot_winning_and_a_bot_forfeiting() {
    let winner = bot("prefer 4");
    let run = common::tabletop(&["play", "connect", "--player", &format!("x={winner}"), "--player", "o=random"], "");
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("Player X wins: 4 in a row."), "{}", run.stdout);

    let crash = bot("crash");
    let run = common::tabletop(&["play", "connect", "--player", &format!("x={crash}"), "--player", "o=random"], "");
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("forfeits: the bot exited before answering (exit status 3)."), "{}", run.stdout);
    assert!(
        run.stdout.contains("Game over: X forfeits (the bot exited before answering (exit status 3)); O wins."),
        "{}",
        run.stdout
    );
}

#[test]
fn bad_external_specs_are_refused_before_any_game() {
    let run = common::tabletop(&["match", "connect", "--player", "external:timeout=1s"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("cmd"), "{}", run.stderr);
    let run = common::tabletop(&["match", "gomoku", "--player", "robot"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("external"), "the valid players include external: {}", run.stderr);
}

#[test]
fn the_example_connect_bot_beats_a_random_player() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/connect_bot.py");
    let spec = format!("external:cmd=\"python3 {example}\"");
    let run =
        common::tabletop(&["match", "connect", "--player", &spec, "--player", "random", "--games", "10", "--json"], "");
    assert!(run.ok, "{}", run.stderr);
    let summary: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    // Seeded openings and a seeded random player: the same games every run.
    assert_eq!(summary["wins"], serde_json::json!([10, 0]), "{}", run.stdout);
    assert_eq!(summary["forfeits"], serde_json::json!([0, 0]), "{}", run.stdout);
}

#[test]
fn a_bot_that_stops_reading_cannot_block_tabletop() {
    // It never reads its input, and answers `end` (always legal in a Mathable turn) again and
    // again: the positions sent to it soon fill the pipe, which must not stop the game.
    let spec = "external:cmd=\"while true; do echo move end; sleep 0.002; done\"";
    let args = ["match", "mathable", "--player", spec, "--player", "greedy", "--games", "1", "--json"];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}", run.stderr);
    let summary: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(summary["wins"], serde_json::json!([0, 1]), "{}", run.stdout);
    assert_eq!(summary["forfeits"], serde_json::json!([0, 0]), "{}", run.stdout);
}
