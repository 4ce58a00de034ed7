//! `tabletop tournament mathable` and `tabletop openings mathable` (docs/TOURNAMENTS.md,
//! "Mathable"): a tournament of two levels whose W/D/L match the games it wrote, a results file
//! cut mid-line and resumed that gives the table of a run not interrupted, a deals file written,
//! read back and played, and bad input refused with a reason. Junior boards and levels without a
//! time budget (5: mostly random, 8: greedy, 3 and 6) keep the games short and reproducible.

use std::collections::HashMap;

use serde_json::Value;

use crate::common;

fn tmp(name: &str) -> String {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let path = format!("{dir}/mathable-tournament-{}-{name}", std::process::id());
    let _ = std::fs::remove_file(&path);
    path
}

fn run_ok(args: &[&str]) -> common::Run {
    let run = common::tabletop(args, "");
    assert!(run.ok, "{args:?}\n{}\n{}", run.stdout, run.stderr);
    run
}

/// The games of a results file, one JSON value each.
fn games_in(results: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(results).unwrap();
    text.lines().skip(1).map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// [`games_in`] without what varies between runs (the times, and the game text with its times).
fn games_of(results: &str) -> Vec<Value> {
    let mut games = games_in(results);
    for game in &mut games {
        let object = game.as_object_mut().unwrap();
        for key in ["time_ms", "text"] {
            object.remove(key);
        }
    }
    games
}

/// The standings of a `--json` run without the fields that vary with time.
fn table_of(stdout: &str) -> Value {
    let json: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    serde_json::json!({"standings": json["standings"], "crosstable": json["crosstable"], "games": json["games"]})
}

#[test]
fn a_tournament_of_two_levels_counts_the_games_it_wrote() {
    let results = tmp("levels.jsonl");
    let games_out = tmp("levels.txt");
    let args = [
        "tournament",
        "mathable",
        "--preset",
        "junior",
        "--player",
        "five=engine:level=5",
        "--player",
        "greedy=engine:level=8",
        "--games-per-pairing",
        "6",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--json",
        "--results",
        &results,
        "--games-out",
        &games_out,
    ];
    let run = run_ok(&args);
    let json: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(json["game"], "mathable");
    assert_eq!(json["games"], 6);
    assert_eq!(json["settings"]["openings"], "a fresh deal per opening from the seed");

    // W/D/L from the games written: each game's comment names the seats and the result.
    let text = std::fs::read_to_string(&games_out).unwrap();
    let games: Vec<&str> = text.split("tabletop mathable\n").skip(1).collect();
    assert_eq!(games.len(), 6, "{text}");
    let mut wdl: HashMap<String, [u64; 3]> = HashMap::new();
    for (i, game) in games.iter().enumerate() {
        let mut lines = game.lines();
        let scores = lines.next().unwrap();
        let head = lines.next().unwrap();
        let prefix = format!("# game {} (round 1): ", i + 1);
        let rest = head.strip_prefix(&prefix).unwrap_or_else(|| panic!("{head}"));
        let (first, rest) = rest.split_once(" (seat 1) - ").unwrap();
        let (second, rest) = rest.split_once(" (seat 2): ").unwrap();
        let result = rest.split(' ').next().unwrap();
        let (a, b) = match result {
            "1-0" => (0, 2),
            "0-1" => (2, 0),
            "1/2-1/2" => (1, 1),
            other => panic!("result {other:?} in {head}"),
        };
        wdl.entry(first.to_string()).or_default()[a] += 1;
        wdl.entry(second.to_string()).or_default()[b] += 1;
        // Opening pairs: the same deal twice, the seats swapped.
        let expected = if i % 2 == 0 { ("five", "greedy") } else { ("greedy", "five") };
        assert_eq!((first, second), expected, "{head}");
        // Mathable's saved-game text: the deal's save JSON, the moves, the result, move times.
        assert!(game.contains("\nposition {\"format\":\"tabletop-mathable-1\""), "{game}");
        assert!(
            game.contains("\nmoves ") && game.contains("\nresult ") && game.contains("# move times in ms: "),
            "{game}"
        );
        // The scores line agrees with the result.
        let points: Vec<i64> = scores
            .strip_prefix("# scores: ")
            .unwrap_or_else(|| panic!("{scores}"))
            .split(" - ")
            .map(|side| side.split(' ').nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(
            ["1-0", "1/2-1/2", "0-1"][a],
            match points[0].cmp(&points[1]) {
                std::cmp::Ordering::Greater => "1-0",
                std::cmp::Ordering::Equal => "1/2-1/2",
                std::cmp::Ordering::Less => "0-1",
            },
            "{game}"
        );
        assert!(game.contains("# opening: the deal of bag seed "), "{game}");
        let winner = game.lines().find_map(|l| l.strip_prefix("result ")).unwrap().split(' ').next().unwrap();
        assert_eq!(winner, ["1", "draw", "2"][a], "{game}");
    }
    let pairs: Vec<&str> = games.iter().map(|g| g.lines().find(|l| l.starts_with("position ")).unwrap()).collect();
    for k in 0..3 {
        assert_eq!(pairs[2 * k], pairs[2 * k + 1], "a pair shares its deal");
    }
    assert!(pairs[0] != pairs[2] && pairs[2] != pairs[4], "each pair has its own deal");
    for row in json["standings"].as_array().unwrap() {
        let name = row["name"].as_str().unwrap();
        let counts = [row["wins"].as_u64().unwrap(), row["draws"].as_u64().unwrap(), row["losses"].as_u64().unwrap()];
        assert_eq!(counts, wdl[name], "{name}: {row}");
        assert_eq!(row["games"], 6);
    }
    // The results file holds the same games.
    let committed = games_in(&results);
    assert_eq!(committed.len(), 6);
    for (game, text) in committed.iter().zip(&games) {
        assert!(game["text"].as_str().unwrap().ends_with(text), "{game}");
    }
    // `tabletop review mathable` reads the games file (its first game).
    let review = run_ok(&["review", "mathable", "--load", &games_out, "--json", "--quiet", "--time", "10ms"]);
    let review: Value = serde_json::from_str(review.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", review.stdout));
    let moves_line = games[0].lines().find_map(|l| l.strip_prefix("moves ")).unwrap();
    assert_eq!(review["moves"].as_array().map(Vec::len), Some(moves_line.split_whitespace().count()), "{review}");
    // Greedy beats mostly random play: the strong level leads.
    assert_eq!(json["standings"][0]["name"], "greedy", "{}", json["standings"]);
    for f in [results, games_out] {
        let _ = std::fs::remove_file(f);
    }
}

/// A three-player round-robin with the results file `results`.
fn round_robin(results: &str) -> Vec<String> {
    [
        "tournament",
        "mathable",
        "--preset",
        "junior",
        "--player",
        "three=engine:level=3",
        "--player",
        "six=engine:level=6",
        "--player",
        "eight=engine:level=8",
        "--games-per-pairing",
        "4",
        "--concurrency",
        "2",
        "--seed",
        "11",
        "--json",
        "--results",
        results,
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn a_results_file_cut_mid_game_resumes_to_the_table_of_an_uninterrupted_run() {
    let whole = tmp("whole.jsonl");
    let args = round_robin(&whole);
    let run = run_ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let table = table_of(&run.stdout);
    assert_eq!(table["games"], 12, "{table}");
    let games = games_of(&whole);
    assert_eq!(games.len(), 12);

    // What a kill -9 leaves: the settings, five games, and half of the sixth line.
    let text = std::fs::read_to_string(&whole).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let sixth = lines[6];
    let cut = format!("{}\n{}", lines[..6].join("\n"), &sixth[..sixth.len() / 2]);
    let resumed = tmp("resumed.jsonl");
    std::fs::write(&resumed, cut).unwrap();
    let args = round_robin(&resumed);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run_ok(&args);
    assert!(run.stderr.contains("resuming: 5 games already played"), "{}", run.stderr);
    assert_eq!(games_of(&resumed), games, "the same games, none twice, none lost");
    assert_eq!(table_of(&run.stdout), table, "the same table");
    // Other game settings with the same file are refused.
    let other = [&args[..], &["--bonus", "10"]].concat();
    let refused = common::tabletop(&other, "");
    assert!(!refused.ok && refused.stderr.contains("settings that differ: variant"), "{}", refused.stderr);
    for f in [whole, resumed] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn deals_files_round_trip_into_a_tournament() {
    let file = tmp("deals.txt");
    let run = run_ok(&["openings", "mathable", "--preset", "junior", "--count", "3", "--seed", "4", "--out", &file]);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("# 3 balanced deals of mathable (10x10 board, 2 players"), "{text}");
    let deals: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(deals.len(), 3, "{text}");
    let margins: Vec<i64> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# bag seed "))
        .map(|l| l.split("margin ").nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(margins.len(), 3);
    assert!(margins.iter().all(|m| m.abs() <= 10), "{margins:?}");
    for (i, deal) in deals.iter().enumerate() {
        assert!(deal.starts_with("{\"format\":\"tabletop-mathable-1\""), "{deal}");
        assert!(!deals[..i].contains(deal), "distinct deals");
    }
    // The same seed gives the same file.
    let again = tmp("deals-again.txt");
    run_ok(&["openings", "mathable", "--preset", "junior", "--count", "3", "--seed", "4", "--out", &again]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), text);

    let results = tmp("deals.jsonl");
    let args = [
        "tournament",
        "mathable",
        "--preset",
        "junior",
        "--player",
        "a=engine:level=6",
        "--player",
        "b=greedy",
        "--games-per-pairing",
        "8",
        "--openings",
        &file,
        "--results",
        &results,
    ];
    run_ok(&args);
    let games = games_in(&results);
    assert_eq!(games.len(), 8);
    for (i, g) in games.iter().enumerate() {
        // Deals in turn, each played twice with the seats swapped.
        let deal = deals[(i / 2) % 3];
        assert_eq!(g["opening_text"], format!("position {deal:?}").as_str(), "{g}");
        assert!(g["text"].as_str().unwrap().contains(&format!("\nposition {deal}\n")), "{g}");
        let names = if i % 2 == 0 { ["a", "b"] } else { ["b", "a"] };
        assert_eq!(g["names"], serde_json::json!(names));
    }

    // `seed N` lines are deals of the tournament's settings.
    std::fs::write(&file, "# two deals\nseed 5\n\n6\n").unwrap();
    let run = run_ok(&[
        "tournament",
        "mathable",
        "--preset",
        "junior",
        "--player",
        "a=random",
        "--player",
        "b=greedy",
        "--openings",
        &file,
        "--json",
    ]);
    let json: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(json["games"], 2);
    assert!(json["settings"]["openings"].as_str().unwrap().starts_with("2 positions"), "{json}");
    for f in [file, again, results] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn bad_mathable_tournaments_are_refused_with_a_reason() {
    let file = tmp("bad-deals.txt");
    let classic = tmp("classic-deals.txt");
    std::fs::write(&file, "# comment\nseed 3\n\nseed three\n").unwrap();
    run_ok(&["openings", "mathable", "--preset", "simple", "--count", "1", "--max-margin", "1000", "--out", &classic]);
    let two = ["--player", "a=random", "--player", "b=greedy"];
    for (args, reason) in [
        (&["--player", "a=random", "--player", "b=chess"][..], "unknown player \"chess\""),
        (&["--player", "a=random", "--player", "b=engine:level=99"], "level"),
        (
            &["--player", "a=random", "--player", "b=greedy", "--players", "3"],
            "--players 3: a Mathable tournament is for two players",
        ),
        (&[&two[..], &["--openings", &file]].concat(), "line 4: \"seed three\" is not a position"),
        (&[&two[..], &["--openings", &classic, "--preset", "junior"]].concat(), "are not the tournament's"),
        (&[&two[..], &["--opening-max", "3"]].concat(), "do not apply to Mathable"),
        (&[&two[..], &["--games-per-pairing", "3"]].concat(), "even number"),
    ] {
        let run = common::tabletop(&[&["tournament", "mathable"][..], args].concat(), "");
        assert!(!run.ok && run.stderr.contains(reason), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
    for (args, reason) in [
        (&["--count", "0"][..], "--count 0"),
        (&["--count", "2", "--players", "4"], "--players 4"),
        (&["--count", "2", "--judge", "human"], "--judge human"),
    ] {
        let run = common::tabletop(&[&["openings", "mathable"][..], args].concat(), "");
        assert!(!run.ok && run.stderr.contains(reason), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
    for f in [file, classic] {
        let _ = std::fs::remove_file(f);
    }
}
