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
