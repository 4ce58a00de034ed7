//! A scripted terminal game of Reversi: an illegal move, a hint, an automatic pass, undo,
//! save/load and the end-of-game result.

use crate::common;

/// Black to move with 6 empties: h8 leaves white without a move (white passes automatically);
/// then a2, (white b4, forced), b2, (white passes), g7, (white h7) ends the game 40-24.
const POSITION: &str = "OOOOOOOO--OOXOXOXOOXXXOOX-OXXOOOXXOXOOOOXXOXOOOOXXXXOO--XXXXXOO- X";

fn run(args: &[&str], script: &str) -> String {
    let run = common::tabletop(args, script);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    run.stdout
}

#[test]
fn scripted_game_with_illegal_move_pass_undo_hint_and_result() {
    let file = std::env::temp_dir().join(format!("reversi-play-{}.txt", std::process::id()));
    let file = file.to_str().unwrap();
    let script = format!("z9\na1\npass\nhint\nh8\nsave {file}\nundo\nh8\na2\nb2\ng7\nload {file}\nquit\n");
    let out = run(&["play", "reversi", "--position", POSITION, "--player", "classic:depth=2", "--no-color"], &script);
    assert!(out.contains("\"z9\" is not a move"), "{out}");
    assert!(out.contains("a1 is already taken"), "{out}");
    assert!(out.contains("black cannot pass: it can place a disc (a2 is one of 6 legal squares)"), "{out}");
    assert!(out.contains("Legal moves: a2 b2 b4 g7 h7 h8") || out.contains("Legal moves: a2 b2 b4"), "{out}");
    assert!(out.contains("Hint: "), "{out}");
    assert!(out.contains("White has no legal move and passes."), "{out}");
    // The prompt again after each refused input, and after undo.
    assert_eq!(out.matches("Black to move (a2 b2 b4 g7 h7 h8)> ").count(), 6, "{out}");
    assert_eq!(out.matches("white (O) 32  empty 5").count(), 3, "the board once per change: {out}");
    assert!(out.contains("White (classic:depth=2) plays b4"), "{out}");
    assert!(out.contains("Black wins (Black 40, White 24 discs): the board is full."), "{out}");
    assert!(out.contains("Loaded"), "{out}");
    let saved = std::fs::read_to_string(file).unwrap();
    let _ = std::fs::remove_file(file);
    assert_eq!(saved, format!("tabletop reversi\nposition {POSITION}\nmoves h8 pass\n"));
}

#[test]
fn document_mode_is_a_person_against_the_classic_depth_6_player() {
    let out = run(&["play", "reversi", "--document", "--no-color"], "f5\n");
    assert!(out.starts_with("    a b c d e f g h\n"), "no intro: {out}");
    assert!(out.contains("White (classic:depth=6) plays "), "{out}");
    assert!(!out.contains("End of input"), "{out}");
}

/// The terminal board marks the last disc placed in brackets (the computer's too); the
/// document's program does not (issue 25).
#[test]
fn terminal_boards_mark_the_last_move() {
    let out = run(&["play", "reversi", "--human", "both", "--no-color"], "f5\nd6\n");
    assert!(out.contains("\n  5 . . . X X[X]. . 5\n"), "{out}");
    assert!(out.contains("\n  6 . . *[O]. . . . 6\n"), "{out}");
    let out = run(&["play", "reversi", "--no-color"], "f5\n");
    let computer = out.rsplit("plays ").next().unwrap_or_default();
    assert_eq!(computer.matches('[').count(), 1, "the computer's disc: {out}");
    let document = run(&["play", "reversi", "--document", "--no-color"], "f5\n");
    assert!(!document.contains('['), "{document}");
}

/// The document's program offers depth 8 too (issue 25); other depths are refused with the
/// reason, and --depth belongs to --document.
#[test]
fn document_mode_offers_depth_8() {
    let out = run(&["play", "reversi", "--document", "--depth", "8", "--no-color"], "f5\n");
    assert!(out.starts_with("    a b c d e f g h\n"), "no intro: {out}");
    assert!(out.contains("White (classic:depth=8) plays "), "{out}");
    let bad = common::tabletop(&["play", "reversi", "--document", "--depth", "7"], "");
    assert!(!bad.ok && bad.stdout.is_empty());
    assert_eq!(bad.stderr, "error: --depth 7: the document's program searches to depth 6 or 8\n");
    let alone = common::tabletop(&["play", "reversi", "--depth", "8"], "");
    assert!(!alone.ok && alone.stderr.contains("--document"), "{}", alone.stderr);
}

#[test]
fn bad_options_give_one_line_errors() {
    let out = common::tabletop(&["play", "reversi", "--human", "purple"], "");
    assert!(!out.ok);
    assert!(out.stderr.contains("expected black, white, both or none"), "{}", out.stderr);
}

#[test]
fn perft_and_solve_print_json() {
    let out = run(&["perft", "reversi", "6", "--json"], "");
    assert!(out.contains("\"nodes\":8200"), "{out}");
    // 6 empties: the scripted game's position, solved exactly with every move.
    let out = run(&["solve", "reversi", "--position", POSITION, "--all-moves", "--json"], "");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["game"], "reversi");
    assert_eq!(v["moves"].as_array().unwrap().len(), 6);
    let best = v["score"].as_i64().unwrap();
    assert_eq!(v["moves"][0]["score"].as_i64().unwrap(), best);
}
