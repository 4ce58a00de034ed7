//! `tabletop review GAME --load FILE` on a game saved by `tabletop play`, and the hint at the end
//! of a game in the terminal.

use crate::common;

#[test]
fn a_played_and_saved_connect_three_game_is_reviewed_with_its_blunders() {
    let dir = std::env::temp_dir().join(format!("tabletop-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("c3.txt");
    let file_text = file.to_str().expect("UTF-8 path");
    // X throws away the win in column 3 (plays 4), O does not block, X wins.
    let input = format!("1\n1\n2\n2\n4\n4\n3\nsave {file_text}\nquit\n");
    let run = common::tabletop(&["play", "connect", "--preset", "connect3", "--player", "o=human"], &input);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "Game over: new, undo, save FILE (then tabletop review connect --load FILE), load FILE or quit> "
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(&format!("Saved to {file_text}.")), "{}", run.stdout);

    let run = common::tabletop(&["review", "connect", "--preset", "connect3", "--load", file_text, "--quiet"], "");
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("#  player  move  best"), "{}", run.stdout);
    // Move 5 (X's 4) and move 6 (O's 4) turned wins into losses.
    assert!(lines[5].starts_with("5  X       4??   3"), "{}", run.stdout);
    assert!(lines[5].ends_with("win -> loss  ?? blunder"), "{}", run.stdout);
    assert!(lines[6].starts_with("6  O       4??   3"), "{}", run.stdout);
    assert!(run.stdout.contains("X: 0 inaccuracies, 0 mistakes, 1 blunder."), "{}", run.stdout);
    assert!(run.stdout.contains("Marks (moves): exact values"), "{}", run.stdout);

    let run = common::tabletop(&["review", "connect", "--preset", "connect3", "--load", file_text, "--json"], "");
    assert!(run.ok, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(json["game"], "connect");
    assert_eq!(json["seats"], serde_json::json!(["X", "O"]));
    let moves = json["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 7);
    assert_eq!(moves[4]["mark"], "blunder");
    assert_eq!(moves[4]["best"], "3");
    assert_eq!(moves[4]["score_before"], 4); // Pons: (12 cells + 1 - the 5th disc) / 2
    assert_eq!(moves[6]["loss"], 0.0);
    assert_eq!(json["values"].as_array().expect("values").len(), 8);

    // Another game's file, or the wrong board, is refused in one line.
    let run = common::tabletop(&["review", "reversi", "--load", file_text], "");
    assert!(!run.ok);
    assert!(run.stderr.contains("cannot load"), "{}", run.stderr);
    let run = common::tabletop(&["review", "connect", "--load", dir.join("none.txt").to_str().unwrap(), "--quiet"], "");
    assert!(!run.ok && run.stderr.contains("cannot read"), "{}", run.stderr);
    std::fs::remove_dir_all(&dir).ok();
}
