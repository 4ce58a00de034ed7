//! Nothing at the terminal panics on any input: seeded random scripts of commands, moves and
//! junk for every game end normally.

use crate::common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const WORDS: &[&str] = &[
    "",
    "help",
    "hint",
    "undo",
    "undo",
    "new",
    "board",
    "save",
    "load",
    "load /dev/zero",
    "save /nonexistent/x",
    "quit",
    "n",
    "y",
    "p",
    "s",
    "e",
    "t",
    "P",
    "S",
    "E",
    "T",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "9",
    "99",
    "-1",
    "1-2",
    "4-5",
    "a1",
    "f5",
    "d3",
    "h8",
    "pass",
    "G9 2",
    "g9=2",
    "H8 4",
    "swap=2,5",
    "draw",
    "end",
    "terminate",
    "2 5",
    "1,2",
    "18446744073709551616",
    "\u{e9}\u{e9}",
    "x=1",
    "  4  ",
];

fn script(rng: &mut ChaCha8Rng, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        if rng.gen_bool(0.1) {
            let len = rng.gen_range(0..12);
            out.extend((0..len).map(|_| rng.gen_range(' '..='~')));
        } else {
            out.push_str(WORDS[rng.gen_range(0..WORDS.len())]);
        }
        out.push('\n');
    }
    out
}

#[test]
fn random_scripts_never_panic() {
    // Every registered game's play examples (its special modes among them).
    let mut games: Vec<(Vec<&str>, &str)> = Vec::new();
    for game in tabletop::registry::GAMES {
        for example in game.commands.play_examples() {
            let mut args = vec!["play", game.name];
            args.extend(example.args.iter().copied());
            games.push((args, example.first_move));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut runs = 0;
    for (args, first_move) in &games {
        for _ in 0..4 {
            // Start with a legal move now and then, so scripts reach positions beyond the start.
            let mut input = if rng.gen_bool(0.5) { format!("{first_move}\n") } else { String::new() };
            input.push_str(&script(&mut rng, 60));
            let run = common::tabletop(args, &input);
            assert!(!run.stderr.contains("panicked"), "{args:?} with\n{input}\n{}", run.stderr);
            assert!(run.ok, "{args:?} with\n{input}\n{}", run.stderr);
            // The game was shown: the board and a prompt or an ending message came out.
            assert!(run.stdout.lines().count() >= 3, "{args:?} printed almost nothing:\n{}", run.stdout);
            runs += 1;
        }
    }
    assert_eq!(runs, 4 * games.len());
    assert!(games.len() >= tabletop::registry::GAMES.len());
}
