//! `tabletop tournament` and `tabletop openings` (docs/TOURNAMENTS.md): a four-player
//! round-robin with two threads killed with SIGKILL midway and resumed gives the same games and
//! table as a run not interrupted; a bot that crashes every fifth game forfeits exactly those
//! games; openings files round-trip into a tournament; an SPRT of a strong level against a weak
//! one accepts H1.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

fn tmp(name: &str) -> String {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let path = format!("{dir}/tournament-{}-{name}", std::process::id());
    let _ = std::fs::remove_file(&path);
    path
}

/// The example Python bot of the repository as a player spec.
fn example_bot() -> String {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/connect_bot.py");
    format!("bot=external:cmd=\"python3 {script}\"")
}

/// The arguments of the four-player round-robin, with the results file `results`.
fn round_robin(results: &str) -> Vec<String> {
    let mut args: Vec<String> =
        ["tournament", "connect", "--player", "two=engine:level=2", "--player", "five=engine:level=5"]
            .map(String::from)
            .to_vec();
    args.extend(["--player".to_string(), example_bot(), "--player".into(), "seven=engine:level=7".into()]);
    args.extend(
        [
            "--rounds",
            "2",
            "--games-per-pairing",
            "2",
            "--concurrency",
            "2",
            "--seed",
            "5",
            "--json",
            "--results",
            results,
        ]
        .map(String::from),
    );
    args
}

/// The games of a results file, without what varies between runs (the times, and the game
/// text with its times), one JSON value each.
fn games_of(results: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(results).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let mut game: Value = serde_json::from_str(line).unwrap();
            let object = game.as_object_mut().unwrap();
            for key in ["time_ms", "text"] {
                object.remove(key);
            }
            game
        })
        .collect()
}

/// The standings of a `--json` run without the fields that vary with time.
fn table_of(stdout: &str) -> Value {
    let json: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    serde_json::json!({"standings": json["standings"], "crosstable": json["crosstable"], "games": json["games"]})
}

#[test]
fn a_round_robin_killed_midway_and_resumed_equals_one_not_interrupted() {
    let whole = tmp("whole.jsonl");
    let args = round_robin(&whole);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let table = table_of(&run.stdout);
    assert_eq!(table["games"], 24, "{table}");
    let games = games_of(&whole);
    assert_eq!(games.len(), 24);
    // Every pairing played 4 games, each player 12.
    for row in table["standings"].as_array().unwrap() {
        assert_eq!(row["games"], 12, "{row}");
    }

    // The same tournament, killed (SIGKILL) once 7 games are in its results file, then run again.
    let resumed = tmp("resumed.jsonl");
    let args = round_robin(&resumed);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let lines = std::fs::read_to_string(&resumed).map_or(0, |t| t.lines().count());
        if lines > 7 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "no progress");
        assert!(child.try_wait().unwrap().is_none(), "finished before it could be killed");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = games_of(&resumed).len();
    assert!((7..24).contains(&before), "{before} games before the kill");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(&format!("resuming: {before} games already played")), "{}", run.stderr);
    assert_eq!(games_of(&resumed), games, "the same games, none twice, none lost");
    assert_eq!(table_of(&run.stdout), table, "the same table");

    // Run once more: everything is played, nothing is added.
    let again = common::tabletop(&args, "");
    assert!(again.ok, "{}", again.stderr);
    assert_eq!(games_of(&resumed).len(), 24);
    // Other settings with the same file are refused.
    let mut other: Vec<&str> = args.clone();
    let seed = other.iter().position(|a| *a == "--seed").unwrap();
    other[seed + 1] = "6";
    let refused = common::tabletop(&other, "");
    assert!(!refused.ok && refused.stderr.contains("settings that differ: seed"), "{}", refused.stderr);
    for f in [whole, resumed] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn a_bot_that_crashes_every_fifth_game_forfeits_exactly_those_games() {
    let counter = tmp("counter");
    let results = tmp("crash.jsonl");
    let games_out = tmp("crash.txt");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bots/crash_every_fifth.py");
    let bot = format!("crashy=external:cmd=\"python3 {script} {counter}\"");
    let args = [
        "tournament",
        "connect",
        "--player",
        &bot,
        "--player",
        "two=engine:level=2",
        "--games-per-pairing",
        "16",
        "--results",
        &results,
        "--games-out",
        &games_out,
    ];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let games: Vec<Value> =
        std::fs::read_to_string(&results).unwrap().lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(games.len(), 16);
    let forfeited: Vec<u64> =
        games.iter().filter(|g| !g["forfeit"].is_null()).map(|g| g["index"].as_u64().unwrap() + 1).collect();
    assert_eq!(forfeited, [5, 10, 15], "{}", run.stdout);
    for g in games.iter().filter(|g| !g["forfeit"].is_null()) {
        let seat = g["forfeit"].as_u64().unwrap() as usize;
        assert_eq!(g["names"][seat], "crashy");
        assert!(g["reason"].as_str().unwrap().contains("crashy forfeits: the bot exited before answering"), "{g}");
        // The crashy bot lost it: its opponent scored the point.
        let crashy_points = if seat == 0 { g["score"].as_f64().unwrap() } else { 1.0 - g["score"].as_f64().unwrap() };
        assert_eq!(crashy_points, 0.0);
    }
    let lines: Vec<&str> = run.stdout.lines().filter(|l| l.contains("forfeits")).collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(lines[0].starts_with("game 5: crashy (seat "), "{}", lines[0]);
    assert!(run.stdout.contains("(3 lost by forfeit)"), "{}", run.stdout);
    assert!(!run.stdout.contains("withdrawn"), "{}", run.stdout);
    // The games file has every game, the forfeits' reasons among its comments.
    let text = std::fs::read_to_string(&games_out).unwrap();
    assert_eq!(text.matches("tabletop connect\n").count(), 16);
    assert_eq!(text.matches("crashy forfeits").count(), 3);
    for f in [counter, results, games_out] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn a_player_that_fails_again_and_again_is_withdrawn() {
    let results = tmp("withdrawn.jsonl");
    let args = [
        "tournament",
        "connect",
        "--player",
        "broken=external:cmd=\"exit 3\"",
        "--player",
        "two=engine:level=2",
        "--player",
        "three=engine:level=3",
        "--games-per-pairing",
        "4",
        "--max-failures",
        "2",
        "--results",
        &results,
    ];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("broken withdrawn after forfeiting 2 games in a row"), "{}", run.stdout);
    let games: Vec<Value> =
        std::fs::read_to_string(&results).unwrap().lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    let with_broken = games.iter().filter(|g| g["names"][0] == "broken" || g["names"][1] == "broken").count();
    assert_eq!(with_broken, 2, "its remaining games are not played");
    assert_eq!(games.len(), 2 + 4, "two and three play all of theirs");
    let _ = std::fs::remove_file(results);
}

#[test]
fn openings_files_round_trip_into_a_tournament() {
    let file = tmp("openings.txt");
    let run = common::tabletop(&["openings", "connect", "--count", "4", "--seed", "3", "--out", &file], "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&file).unwrap();
    let positions: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(positions.len(), 4, "{text}");
    // No two are the same up to the mirror image.
    let mirror = |p: &str| p.chars().map(|c| char::from(b'8' - (c as u8 - b'0'))).collect::<String>();
    for (i, a) in positions.iter().enumerate() {
        for b in &positions[..i] {
            assert!(a != b && mirror(a) != *b, "{a} and {b}");
        }
    }
    // The same seed gives the same file.
    let again = tmp("openings-again.txt");
    assert!(common::tabletop(&["openings", "connect", "--count", "4", "--seed", "3", "--out", &again], "").ok);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);

    let results = tmp("openings.jsonl");
    let args = [
        "tournament",
        "connect",
        "--player",
        "a=engine:level=3",
        "--player",
        "b=engine:level=4",
        "--games-per-pairing",
        "10",
        "--openings",
        &file,
        "--results",
        &results,
    ];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let games: Vec<Value> =
        std::fs::read_to_string(&results).unwrap().lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(games.len(), 10);
    for (i, g) in games.iter().enumerate() {
        // Openings in turn, each played twice with the seats swapped.
        let expected = format!("position {:?}", positions[(i / 2) % 4]);
        assert_eq!(g["opening_text"], expected.as_str(), "{g}");
        let text = g["text"].as_str().unwrap();
        assert!(text.contains(&format!("\nposition {}\n", positions[(i / 2) % 4])), "{text}");
    }
    assert_eq!(games[0]["names"], serde_json::json!(["a", "b"]));
    assert_eq!(games[1]["names"], serde_json::json!(["b", "a"]));

    // A bad line is refused with its number.
    std::fs::write(&file, "# comment\n44\n\n4x\n").unwrap();
    let bad = common::tabletop(
        &["tournament", "connect", "--player", "a=random", "--player", "b=random", "--openings", &file],
        "",
    );
    assert!(!bad.ok && bad.stderr.contains("line 4: \"4x\""), "{}", bad.stderr);
    for f in [file, again, results] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn an_sprt_of_a_strong_level_against_a_weak_one_accepts_h1() {
    let html = tmp("sprt.html");
    let args = [
        "tournament",
        "connect",
        "--player",
        "eight=engine:level=8",
        "--player",
        "two=engine:level=2",
        "--sprt",
        "elo0=0,elo1=5,alpha=0.05,beta=0.05",
        "--concurrency",
        "2",
        "--json",
        "--html",
        &html,
    ];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let pairs = &json["pairs"];
    assert_eq!(pairs["decision"], "h1", "{pairs}");
    let games = json["games"].as_u64().unwrap();
    assert!(games < 100 && games.is_multiple_of(2), "{games} games");
    let counts: Vec<u64> =
        pairs["pentanomial"]["counts"].as_array().unwrap().iter().map(|c| c.as_u64().unwrap()).collect();
    assert_eq!(counts.iter().sum::<u64>() * 2, games, "every game in a pair");
    assert!(pairs["llr"].as_f64().unwrap() >= pairs["bounds"][1].as_f64().unwrap());
    assert!(pairs["elo"][0].as_f64().unwrap() > 0.0, "the interval is above 0: {pairs}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("H1 accepted") && page.contains("eight"), "{page}");
    let _ = std::fs::remove_file(html);
}

#[test]
fn bad_tournaments_are_refused_with_a_reason() {
    for (args, reason) in [
        (&["--player", "a=random"][..], "at least two players"),
        (&["--player", "a=random", "--player", "a=random"], "two players are called \"a\""),
        (&["--player", "a=random", "--player", "b=random", "--games-per-pairing", "3"], "even number"),
        (&["--player", "a=random", "--player", "engine:level=3"], "expected NAME=SPEC"),
        (&["--player", "a=random", "--player", "b=chess"], "unknown player"),
        (
            &["--player", "a=random", "--player", "b=random", "--player", "c=random", "--sprt", "elo0=0,elo1=5"],
            "exactly two",
        ),
    ] {
        let run = common::tabletop(&[&["tournament", "connect"][..], args].concat(), "");
        assert!(!run.ok && run.stderr.contains(reason), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn a_tournament_under_clocks_writes_them_with_every_game() {
    let results = tmp("clocks.jsonl");
    let args = [
        "tournament",
        "connect",
        "--player",
        "a=engine:level=3",
        "--player",
        "b=engine:level=4,clock=0:30+0.5",
        "--tc",
        "1+0.1",
        "--games-per-pairing",
        "2",
        "--json",
        "--results",
        &results,
    ];
    let run = common::tabletop(&args, "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let json: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(json["settings"]["tc"], "1+0.1");
    let games: Vec<Value> =
        std::fs::read_to_string(&results).unwrap().lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(games.len(), 2);
    // Game 1 has a (1+0.1) in seat 1 and b (its own 0:30+0.5) in seat 2.
    let text = games[0]["text"].as_str().unwrap();
    assert!(text.contains("\nclock 1+0.1 0:30+0.5\n") && text.contains("\ntimes "), "{text}");
    let bad =
        common::tabletop(&["tournament", "connect", "--player", "a=random", "--player", "b=random:clock=soon"], "");
    assert!(!bad.ok && bad.stderr.contains("clock"), "{}", bad.stderr);
    let _ = std::fs::remove_file(results);
}
