//! Every game at the terminal takes the same commands: a move, `hint`, `undo`, `save FILE`,
//! `load FILE`, `help`, and the end of input ends the game with one message.

use crate::common;

/// (game arguments, a first move as typed): every registered game's first play example.
fn games() -> Vec<(Vec<&'static str>, &'static str)> {
    tabletop::registry::GAMES
        .iter()
        .map(|game| {
            let examples = game.commands.play_examples();
            let example = examples.first().unwrap_or_else(|| panic!("{} offers no play example", game.name));
            let mut args = vec![game.name];
            args.extend(example.args.iter().copied());
            (args, example.first_move)
        })
        .collect()
}

#[test]
fn every_game_takes_the_same_commands() {
    let dir = std::env::temp_dir().join(format!("tabletop-shared-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (args, first) in games() {
        let file = dir.join(format!("{}.save", args[0]));
        let file = file.to_str().unwrap();
        let script = format!("help\n{first}\nhint\nundo\nsave {file}\n{first}\nload {file}\n");
        let mut all = vec!["play"];
        all.extend(args.iter().copied());
        let run = common::tabletop(&all, &script);
        let out = run.stdout;
        assert!(run.ok, "{}: {}", args[0], run.stderr);
        for expected in ["Change who plays with --player SEAT=SPEC", "Hint: ", "Saved to ", "Loaded "] {
            assert!(out.contains(expected), "{}: missing {expected:?} in\n{out}", args[0]);
        }
        assert!(out.contains("hint (a suggestion), undo") || out.contains("undo (your last placement"), "{out}");
        assert!(!out.contains("Nothing to undo"), "{}: undo took nothing back:\n{out}", args[0]);
        // `undo` took the game back to the start (the person's move and any reply), so the save
        // holds no move, and loading it takes back the move played after saving.
        assert!(out.contains(&format!("Loaded {file} (0 moves).")), "{}:\n{out}", args[0]);
        assert!(out.trim_end().ends_with("End of input: the game is left unfinished."), "{}:\n{out}", args[0]);
        assert_eq!(out.matches("End of input").count(), 1, "{}", args[0]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
