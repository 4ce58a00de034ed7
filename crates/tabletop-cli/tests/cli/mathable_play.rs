//! Scripted terminal games of Mathable: a simple game with P, S, E, T and invalid inputs, a
//! classic game to the end, and the move lister on a saved game.

use crate::common;

fn run(args: &[&str], input: &str) -> String {
    let run = common::tabletop(args, input);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    run.stdout
}

#[test]
fn simple_game_with_place_swap_end_terminate_and_invalid_inputs() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let save = format!("{dir}/mathable_play_save.json");
    let script = [
        "x", // unknown action
        "P",
        "Z9 4", // off the board
        "P",
        "G9 5", // no equation
        "P",
        "G9 7", // not on the rack
        "P",
        "G7 2", // occupied
        "S",
        "9", // bad count
        "S",
        "2",
        "1 2", // not on the rack
        "s",
        "2",
        "2 5", // swap: ends the turn
        "p",
        "g9 2", // a placement
        "S",    // no swap after a placement
        "e",    // end the turn
        &format!("save {save}"),
        "T",
        "y", // confirms
    ]
    .join("\n");
    let out = run(&["play", "mathable", "--preset", "simple", "--seed", "3", "--player", "2=greedy"], &script);
    let expect = [
        "Your rack: 2 2 2 5 10 10 56",
        "Action (P/S/E/T): x\nUnknown action \"x\"",
        "Enter move: Z9 4\n\"Z9\" is off the board",
        "5 at G9 makes no equation",
        "7 is not on your rack",
        "G7 is already occupied",
        "\"9\" is not a number from 1 to 7",
        "you can only exchange tokens on your rack (2 2 2 5 10 10 56)",
        "Swapped 2 -> 5, 5 -> 24",
        "Player 2 (greedy) places 4 on G6: +4",
        "Your rack: 2 2 5 10 10 24 56",
        "Placed 2 on G9: +2 points.",
        "Action (P/E/T): S\nYou cannot exchange after placing a token this turn.",
        "Saved to",
        "Game over (terminated).",
        "Player 2 (greedy) wins.",
    ];
    in_order(&out, &expect);
    // The computer's rack is never shown.
    assert_eq!(out.matches("Your rack").count(), out.matches("Player 1 (you) to move").count());

    // The save holds the moves so far.
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&save).unwrap()).unwrap();
    let history: Vec<&str> = saved["history"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(history.first(), Some(&"swap=2,5"), "{history:?}");
    assert!(history.windows(2).any(|w| w == ["G9=2", "end"]), "{history:?}");

    // The saved game lists its placements.
    let listed = run(&["moves", "mathable", "--state", &save, "--json", "--best"], "");
    let v: serde_json::Value = serde_json::from_str(listed.trim()).unwrap();
    assert_eq!(v["to_move"], 1);
    assert!(v["placements"].as_array().unwrap().iter().all(|p| p["points"].as_u64().is_some()));
    assert!(
        v["best"]["moves"].as_array().unwrap().last().unwrap() == "end"
            || v["best"]["moves"][0].as_str().unwrap().starts_with("swap")
    );
    let text = run(&["moves", "mathable", "--state", &save], "");
    assert!(text.starts_with("Player 1 to move, rack"), "{text}");
}

#[test]
fn undo_hint_terminate_confirmation_and_end_of_input() {
    // Player 1 places 2 on G9 (as in the simple game above), takes it back, asks for a hint,
    // answers no to terminating, types junk at both prompts, and the input ends.
    let script = "p\ng9 2\nx\nundo\nhint\nP\nhello\nP\ndraw\nT\nn\n";
    let out = run(&["play", "mathable", "--preset", "simple", "--seed", "3", "--player", "2=greedy"], script);
    let expect = [
        "Placed 2 on G9: +2 points.",
        "Action (P/E/T): x\nUnknown action \"x\": type P, E or T (or hint, undo",
        "Action (P/E/T): undo\n",
        "Your rack: 2 2 2 5 10 10 56",
        "Action (P/S/E/T): hint\nHint: ",
        "Enter move: hello\n\"hello\" is not a cell: write a column letter and a row number, like G9\n",
        "Enter move: draw\nEnter a cell and a token, like G9 4.",
        "Terminate the game now, ranking players by their scores? (y/n) n\nThe game goes on.",
        "End of input: the game is left unfinished.",
    ];
    in_order(&out, &expect);
    assert!(!out.contains("Game over"), "{out}");
    assert_eq!(out.matches("End of input").count(), 1, "{out}");
}

/// Issue 25: T against the computer is a proposal it answers. Player 1 places 2 on G9 before
/// the computer has moved (2-0): the computer can still catch up, so it refuses and the game
/// goes on (the person then ends the turn and the computer plays). `--document` keeps the
/// document's T, which ends the game at once.
#[test]
fn terminate_against_the_computer_is_refused_while_it_can_catch_up() {
    let script = "p\ng9 2\nT\ny\ne\n";
    let out = run(&["play", "mathable", "--preset", "simple", "--seed", "3", "--player", "2=greedy"], script);
    let expect = [
        "Placed 2 on G9: +2 points.",
        "Terminate the game now, ranking players by their scores? (y/n) y\n\
         The computer does not agree to end the game: it can still catch up.\nThe game goes on.",
        "Action (P/E/T): e",
        "Player 2 (greedy) places",
        "End of input: the game is left unfinished.",
    ];
    in_order(&out, &expect);
    assert!(!out.contains("Game over"), "{out}");

    let document = ["play", "mathable", "--document", "--seed", "3", "--player", "2=greedy"];
    let out = run(&document, "p\ng9 2\nT\ny\n");
    assert!(out.contains("Game over (terminated)."), "{out}");
    assert!(!out.contains("does not agree"), "{out}");
}

#[test]
fn people_at_one_terminal_look_away_before_a_rack_is_shown() {
    let out = run(&["play", "mathable", "--preset", "simple", "--seed", "3", "--player", "2=human"], "p\ng9 2\ne\n");
    let away = out.find("Player 2: your turn (the other players look away).").expect(&out);
    let rack = out.find("Player 2 to move. Your rack: ").expect(&out);
    assert!(away < rack, "{out}");
    assert!(!out[..away].contains("4 4 9 9 13 25 30"), "player 2's rack shown early: {out}");
}

#[test]
fn document_mode_uses_the_simplified_rules_programs_words() {
    let out = run(&["play", "mathable", "--document", "--seed", "3"], "s\n2\n2\n5\n");
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("___") && !l.contains(" |")).collect();
    assert_eq!(
        lines,
        [
            "Player 1's turn",
            "Bag (92 tokens)",
            "Rack: [ 2 10 10 2 56 5 2 ]",
            "Action (P/S/E/T): s",
            "How many to swap? 2",
            "1st token to swap: 2",
            "2nd token to swap: 5",
            "Swapped 2 -> 5, 5 -> 24",
            "Rack swapped: [ 5 10 10 2 56 24 2 ]",
            "Player 2's turn",
            "Bag (92 tokens)",
            "Rack: [ 25 9 30 4 13 4 9 ]",
            "Action (P/S/E/T): ",
        ]
    );
    // The grid: spreadsheet addresses, `|` between cells and `_` under each row.
    assert!(out.starts_with("   | A | B | C | D |"), "{out}");
    assert!(out.contains("\n 7 |   |   |   |   |   |   |  1|  2|   |"), "{out}");
    assert!(out.contains("\n___|___|___|"), "{out}");
}

/// The program's racks are in the order drawn, not sorted: a placed token leaves its place,
/// the refill goes at the end, and a swap lists the tokens as typed, each new token taking the
/// place of the one it replaces (the document's `Swapped 14 -> 32, 10 -> 13, 5 -> 19, 10 -> 60`,
/// `Rack swapped: [ 9 32 1 19 13 60 2 ]`; issue 25).
#[test]
fn document_mode_keeps_racks_and_swaps_in_typed_and_drawn_order() {
    let out = run(&["play", "mathable", "--document", "--seed", "3"], "p\ng9 2\ne\ns\n4\n9\n30\n4\n9\ne\n");
    let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("___") && !l.contains(" |")).collect();
    assert_eq!(
        lines,
        [
            "Player 1's turn",
            "Bag (92 tokens)",
            "Rack: [ 2 10 10 2 56 5 2 ]",
            "Action (P/S/E/T): p",
            "Enter move: g9 2",
            "Placed 2 on G9: +2 points.",
            "Player 1's turn",
            "Bag (92 tokens)",
            "Rack: [ 10 10 2 56 5 2 ]",
            "Action (P/E/T): e",
            "Player 2's turn",
            "Bag (91 tokens)",
            "Rack: [ 25 9 30 4 13 4 9 ]",
            "Action (P/S/E/T): s",
            "How many to swap? 4",
            "1st token to swap: 9",
            "2nd token to swap: 30",
            "3rd token to swap: 4",
            "4th token to swap: 9",
            "Swapped 9 -> 24, 30 -> 4, 4 -> 15, 9 -> 35",
            "Rack swapped: [ 25 24 4 15 13 4 35 ]",
            "Player 1's turn",
            "Bag (91 tokens)",
            "Rack: [ 10 10 2 56 5 2 5 ]",
            "Action (P/S/E/T): e",
            "Player 1 passes.",
            "Player 2's turn",
            "Bag (91 tokens)",
            "Rack: [ 25 24 4 15 13 4 35 ]",
            "Action (P/S/E/T): ",
        ]
    );
}

/// `--document` is the simplified rules' program: another preset is refused with the reason,
/// not silently replaced (issue 25); `--preset simple` is the program's own.
#[test]
fn document_mode_refuses_another_preset() {
    for preset in ["junior", "classic"] {
        let run = common::tabletop(&["play", "mathable", "--document", "--preset", preset, "--seed", "3"], "");
        assert!(!run.ok && run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(
            run.stderr,
            format!(
                "error: --document plays the simplified rules' program, which has only the simple preset's rules; \
                 to play --preset {preset}, leave out --document\n"
            )
        );
    }
    let out = run(&["play", "mathable", "--document", "--preset", "simple", "--seed", "3"], "");
    assert!(out.contains("Rack: [ 2 10 10 2 56 5 2 ]"), "{out}");
}

#[test]
fn classic_game_to_the_end() {
    let out = run(&["play", "mathable", "--seed", "5", "--player", "1=greedy", "--player", "2=engine:time=200ms"], "");
    assert!(out.contains("Mathable: 14x14 board, 2 players, rack 7, classic tokens, official squares, seed 5."));
    assert!(out.contains("Game over (rack emptied") || out.contains("Game over (no more equations"), "{out}");
    assert!(out.contains(" wins.") || out.contains("Draw"), "{out}");
    assert!(out.contains("  3x"), "special squares are marked");
}

#[test]
fn bad_options_are_refused_in_one_line() {
    let out = common::tabletop(&["play", "mathable", "--size", "9"], "");
    assert!(!out.ok);
    assert!(out.stderr.contains("board size 9 is not allowed"), "{}", out.stderr);
    let out = common::tabletop(&["play", "mathable", "--player", "3=greedy"], "");
    assert!(out.stderr.contains("seats go from 1 to 2"), "{}", out.stderr);
}

/// Writes a saved classic game in which player 1 (to move) holds `rack`, with extra tokens on the
/// board and, if `bag_left` is given, all but that many bag tokens moved onto the board's top rows.
fn saved_game(name: &str, tokens: &[(&str, u8)], rack: &[u8], bag_left: Option<usize>) -> String {
    use tabletop::games::mathable::{Mathable, Preset, SaveState, Settings};
    let game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(2)).unwrap();
    let mut save = SaveState::from_game(&game, &[]);
    let mut grid: Vec<Vec<String>> = save.board.iter().map(|r| r.split(' ').map(String::from).collect()).collect();
    for (cell, v) in tokens {
        let c: tabletop::games::mathable::Cell = cell.parse().unwrap();
        grid[c.row as usize][c.col as usize] = v.to_string();
    }
    save.racks[0] = rack.to_vec();
    save.bag = None;
    save.board = grid.iter().map(|r| r.join(" ")).collect();
    let full = save.to_game().unwrap();
    let mut save = SaveState::from_game(&full, &[]);
    if let Some(left) = bag_left {
        let bag = save.bag.take().unwrap();
        let mut rest = bag.iter();
        for row in grid.iter_mut().rev() {
            for cell in row.iter_mut() {
                if rest.len() > left && cell == "." {
                    *cell = rest.next().unwrap().to_string();
                }
            }
        }
        save.board = grid.iter().map(|r| r.join(" ")).collect();
        save.bag = Some(rest.copied().collect());
    }
    save.to_game().unwrap();
    let path = format!("{}/{name}.json", env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(&path, save.to_json(true)).unwrap();
    path
}

#[test]
fn restriction_squares_and_a_short_bag_at_the_terminal() {
    // G4 is a + square with G5=3 and G6=4 below it.
    let path = saved_game("mathable_restriction", &[("G5", 3), ("G6", 4)], &[7, 12, 5, 5, 5, 5, 5], None);
    let script = "P\nG4 12\nP\nG4 7\nmaybe\ny\nT\ny\n";
    let out = run(&["play", "mathable", "--load", &path, "--player", "2=greedy"], script);
    for e in [
        "G4 is a + square: 12 must be the sum of the two tokens next to it",
        "Placed 7 on G4: +7 points.",
        "Restriction square: draw an extra token? (Y/N): maybe\nAnswer Y or N.",
        "You drew an extra token. Your rack: ",
        "Action (P/E/T): T",
    ] {
        assert!(out.contains(e), "missing {e:?} in:\n{out}");
    }
    // A bag of 2 tokens cannot give 3.
    let path = saved_game("mathable_short_bag", &[], &[7, 12, 5, 5, 5, 5, 5], Some(2));
    let out = run(&["play", "mathable", "--load", &path, "--player", "2=greedy"], "S\n3\nS\n1\n5\nT\ny\n");
    assert!(out.contains("Bag: 2 tokens"), "{out}");
    assert!(out.contains("The bag holds only 2 tokens, fewer than the 3 you want to exchange."), "{out}");
    assert!(out.contains("Swapped 5 -> "), "{out}");
}

/// Each of `expect` appears in `out`, in this order.
fn in_order(out: &str, expect: &[&str]) {
    let mut from = 0;
    for e in expect {
        let at = out[from..].find(e).unwrap_or_else(|| panic!("missing {e:?} after byte {from} in:\n{out}"));
        from += at;
    }
}
