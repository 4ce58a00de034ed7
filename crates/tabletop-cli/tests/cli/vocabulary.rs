//! One player vocabulary and one default in every game's terminal (issue 25): the computer a
//! person meets without `--player` is the library's default (the page's first choice too, from
//! the server's catalog), every game takes `engine:level=N` or its name, and the levels' errors
//! read the same.

use crate::common;

/// `play GAME` for every registered game, with its default options and players.
fn games() -> Vec<Vec<&'static str>> {
    tabletop::registry::GAMES.iter().map(|game| vec!["play", game.name]).collect()
}

#[test]
fn every_game_plays_the_same_default_computer_as_the_page() {
    let default = tabletop::levels::DEFAULT_COMPUTER;
    for args in games() {
        // No --player: the person against the default computer (nothing typed: the game is left).
        let run = common::tabletop(&args, "");
        assert!(run.ok, "{args:?}: {}", run.stderr);
        assert!(run.stdout.contains(&format!(": the computer ({default})")), "{args:?}:\n{}", run.stdout);
    }
}

#[test]
fn every_game_takes_a_level_by_number_or_name_and_refuses_a_wrong_one() {
    for args in games() {
        for level in ["engine:level=1", "engine:level=Beginner", "engine:level=maximum"] {
            let mut with = args.clone();
            let seat_two = format!("2={level}");
            with.extend(["--player", seat_two.as_str()]);
            let run = common::tabletop(&with, "");
            assert!(run.ok, "{with:?}: {}", run.stderr);
            assert!(run.stdout.contains(&format!("the computer ({level})")), "{with:?}:\n{}", run.stdout);
        }
        for (wrong, says) in
            [("engine:level=11", "1 beginner, 2 novice"), ("engine:level=2,time=1s", "a level sets its own")]
        {
            let mut with = args.clone();
            let seat_two = format!("2={wrong}");
            with.extend(["--player", seat_two.as_str()]);
            let run = common::tabletop(&with, "");
            assert!(!run.ok, "{with:?} was accepted");
            assert!(run.stderr.contains(says), "{with:?}: {}", run.stderr);
        }
    }
}

/// Is `line` the shared end-of-game sentence: `WINNER wins (SCORES): REASON.` or `Draw: REASON.`
/// (scores and reason optional)?
fn is_result_sentence(line: &str) -> bool {
    let Some(body) = line.strip_suffix('.') else { return false };
    let head = body.split_once(": ").map_or(body, |(head, _reason)| head);
    let scores_only = |rest: &str| rest.is_empty() || (rest.starts_with(" (") && rest.ends_with(')'));
    if let Some(rest) = head.strip_prefix("Draw") {
        return scores_only(rest);
    }
    match head.find(" wins") {
        Some(at) => at > 0 && scores_only(&head[at + " wins".len()..]),
        None => false,
    }
}

#[test]
fn every_game_ends_with_the_same_sentence_shape() {
    assert!(is_result_sentence("Black wins (Black 40, White 24 discs): the board is full."));
    assert!(is_result_sentence("Draw: the board is full."));
    assert!(is_result_sentence("o (orange) wins: o has 3 in a line."));
    assert!(!is_result_sentence("Player X won!") && !is_result_sentence("There was a draw!"));
    for game in tabletop::registry::GAMES {
        // Two random players play to the end with nobody at the table.
        let args = ["play", game.name, "--player", "1=random:seed=3", "--player", "2=random:seed=4"];
        let run = common::tabletop(&args, "");
        assert!(run.ok, "{}: {}", game.name, run.stderr);
        let sentence = run.stdout.lines().map(str::trim).find(|line| is_result_sentence(line));
        assert!(sentence.is_some(), "{}: no result sentence in\n{}", game.name, run.stdout);
        assert!(!run.stdout.contains(" won!") && !run.stdout.contains("There was a draw"), "{}", game.name);
    }
}

#[test]
fn forced_results_read_in_moves_with_the_right_plural() {
    // Slide 3x3 with one square kept empty: o to move and win at once on square 9.
    let run = common::tabletop(&["analyze", "slide", "--size", "3", "--empty", "1", "--position", "oogbbgbgg"], "");
    assert!(run.ok, "{}", run.stderr);
    assert!(run.stdout.contains("wins in 1 move") && !run.stdout.contains("1 moves"), "{}", run.stdout);
    assert!(!run.stdout.contains("plies") && !run.stdout.contains(" ply"), "{}", run.stdout);
}
