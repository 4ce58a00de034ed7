//! `tabletop solve slide` and `tabletop play slide` end to end.

use crate::common;

use std::collections::HashMap;

use tabletop::games::slide::solver::SlideValue;
use tabletop::games::slide::{Slide, SlideVariant};
use tabletop::{Game, Outcome, Status};

fn tabletop(args: &[&str], stdin: &str) -> (bool, String, String) {
    let run = common::tabletop(args, stdin);
    (run.ok, run.stdout, run.stderr)
}

/// A deliberately different algorithm: enumerate every position reachable from `start` keyed by
/// its notation string, then settle values in rounds of increasing distance.
fn brute_force(start: &Slide) -> HashMap<String, SlideValue> {
    let mut children: HashMap<String, Vec<String>> = HashMap::new();
    let mut terminal: HashMap<String, Option<bool>> = HashMap::new(); // Some(true) = side to move lost
    let mut stack = vec![*start];
    while let Some(position) = stack.pop() {
        let key = position.notation();
        if children.contains_key(&key) || terminal.contains_key(&key) {
            continue;
        }
        match position.status() {
            Status::Over(Outcome::Win(seat)) => {
                terminal.insert(key, Some(seat != position.side_to_move().seat()));
            }
            Status::Over(_) => {
                terminal.insert(key, None);
            }
            Status::ToMove(_) => {
                let mut moves = Vec::new();
                position.legal_moves(&mut moves);
                let mut next = Vec::new();
                for mv in moves {
                    let mut child = position;
                    child.play(mv).unwrap();
                    next.push(child.notation());
                    stack.push(child);
                }
                children.insert(key, next);
            }
        }
    }
    let mut values: HashMap<String, SlideValue> = HashMap::new();
    for (key, lost) in &terminal {
        values.insert(key.clone(), if *lost == Some(true) { SlideValue::Loss(0) } else { SlideValue::Draw });
    }
    for distance in 1.. {
        let mut new_values = Vec::new();
        for (key, next) in &children {
            if values.contains_key(key) {
                continue;
            }
            let child_values: Vec<Option<SlideValue>> = next.iter().map(|c| values.get(c).copied()).collect();
            if child_values.iter().any(|v| *v == Some(SlideValue::Loss(distance - 1))) {
                new_values.push((key.clone(), SlideValue::Win(distance)));
            } else if child_values.iter().all(|v| matches!(v, Some(SlideValue::Win(d)) if *d < distance)) {
                new_values.push((key.clone(), SlideValue::Loss(distance)));
            }
        }
        // A round that settles nothing means no later round can: Win(d + 1) needs a Loss(d)
        // child and Loss(d + 1) a Win(d) child. Whatever is left is a draw.
        if new_values.is_empty() {
            break;
        }
        values.extend(new_values);
    }
    for key in children.keys() {
        values.entry(key.clone()).or_insert(SlideValue::Draw);
    }
    values
}

fn expected_json(value: SlideValue) -> (String, serde_json::Value) {
    let plies = match value.plies() {
        Some(p) => serde_json::Value::from(p),
        None => serde_json::Value::Null,
    };
    (value.result().to_string(), plies)
}

#[test]
fn solve_json_matches_brute_force_for_every_3x3_k() {
    for k in 0..=7 {
        let variant = SlideVariant::new(3, k).unwrap();
        let start = Slide::start(&variant);
        let values = brute_force(&start);
        // The empty board, and positions further in along a fixed line, every legal move checked.
        let mut positions = vec![start];
        let mut walk = start;
        let mut moves = Vec::new();
        for ply in 0..6 {
            walk.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            walk.play(moves[(ply * 5 + k) % moves.len()]).unwrap();
            positions.push(walk);
        }
        for position in positions.iter().filter(|p| p.status().to_move().is_some()) {
            let notation = position.notation();
            let (ok, out, err) = tabletop(
                &["solve", "slide", "--size", "3", "--empty", &k.to_string(), "--position", &notation, "--json"],
                "",
            );
            assert!(ok, "k={k} {notation}: {err}");
            assert_eq!(out.lines().count(), 1, "exactly one JSON object: {out}");
            let json: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(json["game"], "slide");
            assert_eq!(json["position"], notation.as_str());
            assert_eq!(json["to_move"], position.side_to_move().letter().to_string());
            let (result, plies) = expected_json(values[&notation]);
            assert_eq!(
                (json["result"].as_str().unwrap(), &json["plies"]),
                (result.as_str(), &plies),
                "k={k} {notation}"
            );
            let listed = json["moves"].as_array().unwrap();
            position.legal_moves(&mut moves);
            assert_eq!(listed.len(), moves.len());
            for (entry, mv) in listed.iter().zip(&moves) {
                let mut child = *position;
                child.play(*mv).unwrap();
                let (result, plies) = expected_json(values[&child.notation()].for_parent());
                assert_eq!(entry["move"], mv.to_string());
                assert_eq!(
                    (entry["result"].as_str().unwrap(), &entry["plies"]),
                    (result.as_str(), &plies),
                    "k={k} {notation} {mv}"
                );
            }
        }
    }
}

#[test]
fn zero_is_refused_with_the_boards_range_and_input_ends_once() {
    let (ok, out, _) = tabletop(&["play", "slide", "--size", "3", "--player", "o=human"], "0\n5\n");
    assert!(ok);
    assert!(out.contains("there is no square 0: squares are numbered 1 to 9."), "{out}");
    assert!(out.trim_end().ends_with("End of input: the game is left unfinished."), "{out}");
    assert_eq!(out.matches("End of input").count(), 1, "{out}");
    let (ok, _, err) = tabletop(&["play", "slide", "--player", "x=human"], "");
    assert!(!ok && err.contains("no seat \"x\""), "{err}");
}

#[test]
fn the_documents_program_form_plays_the_classic_player() {
    // PlayGame 4 2 3: a 4x4 board, 2 squares kept empty, the classic player with 3 levels.
    let (ok, out, err) = tabletop(&["play", "slide", "--document", "4", "2", "3"], "6\n");
    assert!(ok, "{err}");
    assert!(out.starts_with("  1   2   3   4 \n"), "the board first, no intro: {out}");
    assert!(out.contains("o (orange) (classic:levels=3) plays "), "{out}");
    assert!(!out.contains("End of input"), "{out}");
    let (ok, _, err) = tabletop(&["play", "slide", "--document", "4", "2", "13"], "");
    assert!(!ok && err.contains("levels"), "{err}");
}

#[test]
fn solve_rejects_bad_input_with_a_message() {
    let (ok, _, err) = tabletop(&["solve", "slide", "--size", "3", "--empty", "8"], "");
    assert!(!ok && err.contains("too many"), "{err}");
    let (ok, _, err) = tabletop(&["solve", "slide", "--size", "3", "--empty", "1", "--position", "obbbogbox"], "");
    assert!(!ok && err.contains("is not 'b', 'o' or 'g'") && !err.contains("panicked"), "{err}");
}

#[test]
fn scripted_game_between_two_people() {
    // Placements 1..9 (no line), an invalid entry, a slide, undo, the slide again, and o's
    // winning slide 2-4 that completes the row 4-5-6.
    let script = "1\n2\n3\n5\n4\n6\n8\n9\nten\n4-7\nundo\n4-7\n2-4\n";
    let (ok, out, err) = tabletop(
        &["play", "slide", "--size", "3", "--empty", "1", "--player", "b=human", "--player", "o=human"],
        script,
    );
    assert!(ok, "{err}");
    assert!(out.contains("Placement phase"), "{out}");
    assert!(out.contains("\"ten\" is not a move"), "invalid input explained: {out}");
    let after_error = out.split("\"ten\" is not a move").nth(1).unwrap();
    assert!(after_error.lines().nth(1).unwrap_or("").starts_with("b> 4-7"), "same prompt again: {after_error}");
    assert!(out.contains("Slide phase"), "{out}");
    assert!(out.contains("\no (orange) wins: o has 3 in a line.\nGame over: new, undo"), "{out}");
    // The same commands as every game, and one message at the end of input.
    assert!(out.contains("b (blue): you; o (orange): you."), "{out}");
    assert!(!out.contains("End of input"), "the game had ended: {out}");
    // Undo put the tile back on square 4: the board drawn after it shows 7 empty again.
    let after_undo = out.split("o> undo").nth(1).unwrap();
    assert!(after_undo.lines().any(|l| l.trim_start().starts_with('7')), "{after_undo}");
}

#[test]
fn scripted_game_against_the_computer_reaches_a_result() {
    let script = "5\nhint\n1\n3\n7\n2\n4\n6\n8\n9\n";
    let (ok, out, err) = tabletop(&["play", "slide", "--size", "3", "--empty", "0", "--levels", "2"], script);
    assert!(ok, "{err}");
    assert!(out.contains("Hint: "), "{out}");
    assert!(out.contains("(classic:levels=2) plays"), "{out}");
    assert!(out.contains("wins:") || out.contains("Draw:"), "{out}");
}

/// The README's scripted example runs as written: every line it types is accepted.
#[test]
fn the_readmes_scripted_example_runs_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let example = readme
        .lines()
        .find(|line| line.starts_with("printf '") && line.trim_end().ends_with("| tabletop play slide"))
        .expect("the README shows a scripted Slide game");
    let typed = example.trim_start_matches("printf '").split('\'').next().unwrap().replace("\\n", "\n");
    let (_, stdout, _) = tabletop(&["play", "slide"], &typed);
    let moves: Vec<&str> = typed.lines().collect();
    // Each typed move is answered by the engine's move, never by a reason it was refused.
    assert_eq!(stdout.matches("(engine) plays").count(), moves.len(), "{stdout}");
    assert!(!stdout.contains("not empty"), "{stdout}");
}

/// The terminal board marks the last move's tile (in brackets) and the winning line (in
/// capitals); the document's program does not (issue 25).
#[test]
fn terminal_boards_mark_the_last_move_and_the_winning_line() {
    let (ok, out, err) = tabletop(&["play", "slide", "--player", "o=human", "--no-color"], "1\n2\n4\n3\n");
    assert!(ok, "{err}");
    assert!(out.contains("\n b  o [o]\n b  5  6 \n 7  8  9 \n"), "{out}");
    let (ok, out, err) = tabletop(&["play", "slide", "--player", "o=human", "--no-color"], "1\n2\n4\n3\n7\n");
    assert!(ok, "{err}");
    assert!(out.contains("\n B  o  o \n B  5  6 \n[B] 8  9 \nb (blue) wins"), "{out}");
    let (ok, out, err) = tabletop(&["play", "slide", "--document", "3", "1", "2"], "5\n");
    assert!(ok, "{err}");
    assert!(!out.contains('['), "{out}");
}
