//! `tabletop nboard` (the NBoard protocol on standard input and output), `nboard:cmd=` players
//! in a match against the engine, and GGF game files (`--games-out`, the terminal's save/load).

use crate::common;

use tabletop::games::reversi::ggf::GgfGame;
use tabletop::games::reversi::{Reversi, ReversiMove};
use tabletop::{Game, Record};

const GAME: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]\
BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)";

fn tmp(name: &str) -> String {
    let dir = env!("CARGO_TARGET_TMPDIR");
    format!("{dir}/nboard-{}-{name}", std::process::id())
}

#[test]
fn nboard_engine_answers_a_scripted_session() {
    let after: Record<Reversi> = GAME.parse::<GgfGame>().unwrap().to_record().unwrap();
    let position = *after.current();
    let script = format!(
        "nboard 2\nset depth 3\nset contempt 0\nset game {GAME}\nping 1\ngo\nhint 2\nthis is garbage\nset game (;nonsense\n\
         move z9\nping 2\nlearn\nanalyze\n"
    );
    let run = common::tabletop(&["nboard"], &script);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "set myname tabletop");
    assert_eq!(lines[1], "pong 1");
    assert!(lines[2].starts_with("nodestats "), "{}", run.stdout);
    // go: "=== MOVE/EVAL/TIME" with a legal move of the game's last position.
    let answer: Vec<&str> = lines[3].strip_prefix("=== ").expect("a move").split('/').collect();
    assert_eq!(answer.len(), 3, "{}", lines[3]);
    let best: ReversiMove = answer[0].parse().unwrap();
    assert!(position.is_legal(best), "{}", lines[3]);
    // hint 2: status, two search lines of legal moves (best first), status.
    assert_eq!(lines[4], "status thinking");
    let hints: Vec<Vec<&str>> = lines[5..7].iter().map(|l| l.split_whitespace().collect()).collect();
    for h in &hints {
        assert_eq!((h[0], h[3]), ("search", "0"), "{h:?}");
        assert!(position.is_legal(h[1].parse().unwrap()), "{h:?}");
    }
    assert!(hints[0][2].parse::<f64>().unwrap() >= hints[1][2].parse::<f64>().unwrap());
    assert_eq!(lines[7], "status");
    // Bad input is answered as status lines (and on stderr), never fatal.
    assert!(lines[8].starts_with("status cannot read the game: "), "{}", lines[8]);
    assert!(lines[9].starts_with("status move z9 refused"), "{}", lines[9]);
    assert_eq!(&lines[10..], ["pong 2", "learned", "status analyze is not supported"]);
    assert!(run.stderr.contains("unknown command ignored: this is garbage"), "{}", run.stderr);

    // The move from go is played with "move", after which go answers for the other side.
    let script = format!("nboard 2\nset depth 2\nset game {GAME}\nmove {}/0.5/1.0\nping 3\ngo\n", answer[0]);
    let run = common::tabletop(&["nboard"], &script);
    assert!(run.ok, "{}", run.stderr);
    let mut next = position;
    next.play(best).unwrap();
    let line = run.stdout.lines().find(|l| l.starts_with("=== ")).unwrap();
    let reply: ReversiMove = line[4..].split('/').next().unwrap().parse().unwrap();
    assert!(next.is_legal(reply), "{line}");
    assert!(run.stdout.find("pong 3").unwrap() < run.stdout.find("=== ").unwrap());
}

#[test]
fn nboard_player_plays_a_match_against_the_engine_and_games_are_written_as_ggf() {
    let bin = env!("CARGO_BIN_EXE_tabletop");
    let out = tmp("match.ggf");
    let spec = format!("nboard:cmd=\"{bin} nboard\",depth=2");
    let run = common::tabletop(
        &[
            "match",
            "reversi",
            "--player",
            &spec,
            "--player",
            "engine:depth=2,book=off",
            "--games",
            "2",
            "--games-out",
            &out,
            "--json",
        ],
        "",
    );
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let summary: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(summary["games"], 2);
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let games = GgfGame::parse_all(&text).unwrap();
    assert_eq!(games.len(), 2);
    let nboard_name = format!("nboard:cmd={bin} nboard,depth=2");
    for (i, game) in games.iter().enumerate() {
        // Every move legal, every game finished, and its result written for black.
        let record = game.to_record().unwrap();
        assert!(record.current().is_over(), "game {i}");
        let score = record.current().final_score(tabletop::games::reversi::Color::Black);
        assert_eq!(game.result, Some(format!("{score:+}.00")));
        // Seats alternate: A (the nboard player) is black in game 0, white in game 1.
        let (a_seat, b_seat) = if i == 0 { (&game.black, &game.white) } else { (&game.white, &game.black) };
        assert_eq!(a_seat.as_deref(), Some(nboard_name.as_str()), "game {i}");
        assert_eq!(b_seat.as_deref(), Some("engine:book=off,depth=2"), "game {i}");
        // Written again, the record reads back the same.
        assert_eq!(
            GgfGame::from_record(&record, "x", "y")
                .to_string()
                .parse::<GgfGame>()
                .unwrap()
                .to_record()
                .unwrap()
                .moves(),
            record.moves()
        );
    }
    // `tabletop nboard` at depth 2 is the engine at depth 2 (without the opening book, which
    // `tabletop nboard` does not consult): the same games, move for move.
    let same = tmp("same.ggf");
    let run = common::tabletop(
        &[
            "match",
            "reversi",
            "--player",
            "engine:depth=2,book=off",
            "--player",
            "engine:depth=2,book=off",
            "--games",
            "2",
            "--games-out",
            &same,
        ],
        "",
    );
    assert!(run.ok, "{}", run.stderr);
    let engine_games = GgfGame::parse_all(&std::fs::read_to_string(&same).unwrap()).unwrap();
    let _ = std::fs::remove_file(&same);
    for (a, b) in games.iter().zip(&engine_games) {
        assert_eq!(a.moves, b.moves);
    }
    let wins = summary["wins"][0].as_u64().unwrap() + summary["wins"][1].as_u64().unwrap();
    assert_eq!(wins + summary["draws"].as_u64().unwrap(), 2);
    assert!(!run.stderr.contains("instead"), "no fallback move was needed: {}", run.stderr);

    // Without .ggf the saved-game text of each game is written.
    let out = tmp("match.txt");
    let run = common::tabletop(
        &["match", "reversi", "--player", "random", "--player", "classic:depth=1", "--games", "2", "--games-out", &out],
        "",
    );
    assert!(run.ok, "{}", run.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(text.matches("tabletop reversi\n").count(), 2, "{text}");
}

#[test]
fn a_broken_nboard_engine_is_reported_and_the_match_still_finishes() {
    let run = common::tabletop(
        &[
            "match",
            "reversi",
            "--player",
            "nboard:cmd=\"exit 0\",timeout=2s",
            "--player",
            "random",
            "--games",
            "2",
            "--json",
        ],
        "",
    );
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("the NBoard engine \"exit 0\""), "{}", run.stderr);
    let run = common::tabletop(&["match", "reversi", "--player", "nboard:depth=2"], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("cmd"), "{}", run.stderr);
}

#[test]
fn the_terminal_saves_and_loads_ggf() {
    let file = tmp("play.ggf");
    let script = format!("f5\nd6\nsave {file}\nquit\ny\n");
    let run = common::tabletop(&["play", "reversi", "--human", "both", "--no-color"], &script);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("(;GM[Othello]") && text.contains("B[F5]W[D6];)"), "{text}");
    // Load it (and a GGF written elsewhere) in a new session.
    let other = tmp("other.ggf");
    std::fs::write(&other, format!("{GAME}\n")).unwrap();
    let script = format!("load {file}\nc3\nload {other}\nquit\ny\n");
    let run = common::tabletop(&["play", "reversi", "--human", "both", "--no-color"], &script);
    let _ = (std::fs::remove_file(&file), std::fs::remove_file(&other));
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(&format!("Loaded {file} (2 moves).")), "{}", run.stdout);
    assert!(run.stdout.contains(&format!("Loaded {other} (8 moves).")), "{}", run.stdout);
}

#[test]
fn nboard_searches_with_the_weight_and_probcut_files_it_is_given() {
    use tabletop::games::reversi::patterns::{Layout, PatternWeights, PHASES};
    use tabletop::games::reversi::probcut::ProbCut;
    let script = format!("nboard 2\nset depth 6\nset game {GAME}\ngo\n");
    // "nodestats N T" and "=== MOVE/EVAL/TIME": the nodes and the value.
    let answer = |args: &[&str]| {
        let run = common::tabletop(args, &script);
        assert!(run.ok, "{args:?}: {}", run.stderr);
        let nodes: u64 = run
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("nodestats "))
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let line = run.stdout.lines().find(|l| l.starts_with("=== ")).unwrap().to_string();
        let value: f64 = line.split('/').nth(1).unwrap().parse().unwrap();
        (nodes, value)
    };
    let builtin = answer(&["nboard"]);

    // Weights that are all zero value every position 0, which the built-in ones do not.
    let zero = PatternWeights::from_phases(&vec![vec![0i16; Layout::get().size()]; PHASES]).unwrap();
    let zero_file = tmp("zero-weights.bin");
    std::fs::write(&zero_file, zero.to_bytes()).unwrap();
    assert_ne!(builtin.1, 0.0);
    assert_eq!(answer(&["nboard", "--weights", &zero_file]).1, 0.0);

    // The built-in ProbCut parameters written out search the same tree; a file without
    // parameters searches every move fully, a larger tree.
    let same = tmp("probcut-builtin.txt");
    std::fs::write(&same, ProbCut::builtin().to_text(&[])).unwrap();
    assert_eq!(answer(&["nboard", "--probcut", &same]), builtin);
    let none = tmp("probcut-none.txt");
    std::fs::write(&none, ProbCut::default().to_text(&["no parameters".to_string()])).unwrap();
    assert!(answer(&["nboard", "--probcut", &none]).0 > builtin.0);

    // A damaged, missing or foreign file is refused before the protocol starts.
    let damaged = tmp("damaged-weights.bin");
    std::fs::write(&damaged, &zero.to_bytes()[..1000]).unwrap();
    let garbage = tmp("garbage-probcut.txt");
    std::fs::write(&garbage, "3 8 4 one 0.5 144\n").unwrap();
    for (args, expected) in [
        (vec!["nboard", "--weights", &damaged], "--weights "),
        (vec!["nboard", "--weights", "/nonexistent/weights.bin"], "cannot read /nonexistent/weights.bin"),
        (vec!["nboard", "--weights", &same], "--weights "),
        (vec!["nboard", "--probcut", &garbage], "--probcut "),
        (vec!["nboard", "--probcut", &zero_file], "larger than 1024 KiB"),
        (vec!["nboard", "--probcut", "/dev/zero"], "larger than 1024 KiB"),
    ] {
        let run = common::tabletop(&args, "nboard 2\nping 1\n");
        assert!(!run.ok, "{args:?} was accepted");
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
    }
    // The system's reason is said once, not once in the message and again as its cause.
    let run = common::tabletop(&["nboard", "--weights", "/nonexistent/weights.bin"], "");
    assert_eq!(run.stderr.matches("No such file or directory").count(), 1, "{}", run.stderr);
    for f in [zero_file, same, none, damaged, garbage] {
        let _ = std::fs::remove_file(f);
    }
}
