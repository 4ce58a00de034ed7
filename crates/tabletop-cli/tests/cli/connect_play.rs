//! Scripted games of `tabletop play connect`, and the solve command.

use crate::common;

fn run(args: &[&str], input: &str) -> String {
    let run = common::tabletop(args, input);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    run.stdout
}

/// The board after 1 and 2, O's last piece in brackets.
const AFTER_1_2: &str = "|       |\n|       |\n|X[O]   |\n---------\n 1 2 3 4\n";

#[test]
fn connect3_prints_the_documents_board_and_prompt() {
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human", "--no-color"], "1\n2\nquit\n");
    assert!(
        out.contains("\n|       |\n|       |\n|       |\n---------\n 1 2 3 4\nX's turn, where to place: "),
        "{out}"
    );
    assert!(out.contains(AFTER_1_2), "{out}");
    assert!(out.contains("O's turn, where to place: 2\n"), "{out}");
}

#[test]
fn invalid_input_asks_again() {
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human"], "1\n9\nabc\n2\nquit\n");
    assert!(out.contains("Invalid input: column 9 is off the board"), "{out}");
    assert!(out.contains("Invalid input: \"abc\" is not a column number"), "{out}");
    assert_eq!(out.matches("O's turn, where to place: ").count(), 3, "{out}");
    assert!(out.contains(AFTER_1_2), "{out}");
    assert!(out.trim_end().ends_with("Abandon the game in progress? (y/n) \nGame abandoned."), "{out}");
}

#[test]
fn connect3_forfeits_count_as_turns_and_the_twelfth_ends_in_a_draw() {
    // The script: eleven placements and a forfeit (the 9) make 12
    // turns with no winner: the document's program announces the draw instead of a 13th turn.
    let script = "1\n1\n2\n2\n1\n3\n2\n4\n3\n3\n4\n9\n";
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human", "--forfeit-invalid"], script);
    // The shared result sentence outside --document (the document's words are its own).
    assert!(out.contains("Draw: as many turns as cells without a line."), "{out}");
    assert!(!out.contains("There was a draw!"), "{out}");
    assert_eq!(out.matches("turn, where to place: ").count(), 12, "{out}");
}

/// The document program's transcript of a scripted run: a blank line and the board, the prompt
/// (with the input echoed), a blank line and the next board, ..., the result.
fn document_transcript(boards: &[&str], inputs: &[&str], result: &str) -> String {
    let frame = |rows: &str| {
        let rows: Vec<&str> = rows.split('/').collect();
        format!("|{}|\n|{}|\n|{}|\n---------\n 1 2 3 4\n", rows[0], rows[1], rows[2])
    };
    let mut out = String::new();
    for (i, board) in boards.iter().enumerate() {
        out.push('\n');
        out.push_str(&frame(board));
        if let Some(input) = inputs.get(i) {
            let side = if i % 2 == 0 { 'X' } else { 'O' };
            out.push_str(&format!("{side}'s turn, where to place: {input}\n"));
        }
    }
    out.push_str(result);
    out.push('\n');
    out
}

#[test]
fn document_mode_reproduces_the_programs_transcript() {
    let out = run(&["play", "connect", "--preset", "connect3", "--document"], "1\n2\n1\n2\n1\n");
    let boards = [
        "       /       /       ",
        "       /       /X      ",
        "       /       /X O    ",
        "       /X      /X O    ",
        "       /X O    /X O    ",
        "X      /X O    /X O    ",
    ];
    assert_eq!(out, document_transcript(&boards, &["1", "2", "1", "2", "1"], "Player X won!"));
    // The 12-turn case: eleven placements and a forfeit end in a draw, not a 13th turn.
    let out = run(&["play", "connect", "--preset", "connect3", "--document"], "1\n1\n2\n2\n1\n3\n2\n4\n3\n3\n4\n9\n");
    assert!(
        out.ends_with(
            "O's turn, where to place: 9\n\n|X X O  |\n|O O X X|\n|X X O O|\n---------\n 1 2 3 4\nThere was a draw!\n"
        ),
        "{out}"
    );
    assert_eq!(out.matches("where to place: ").count(), 12);
}

/// The document's program, character for character: a blank line before every board, and no
/// commands and no sentence for invalid input: `hint`, `undo`, `help` and an empty line forfeit
/// the turn silently, like any input that is not a column (issue 25).
#[test]
fn document_mode_has_the_programs_blank_lines_and_no_commands_or_forfeit_sentences() {
    let out = run(&["play", "connect", "--preset", "connect3", "--document"], "2\nhint\n2\nundo\n\nhelp\n2\n");
    let golden = "
|       |
|       |
|       |
---------
 1 2 3 4
X's turn, where to place: 2

|       |
|       |
|  X    |
---------
 1 2 3 4
O's turn, where to place: hint

|       |
|       |
|  X    |
---------
 1 2 3 4
X's turn, where to place: 2

|       |
|  X    |
|  X    |
---------
 1 2 3 4
O's turn, where to place: undo

|       |
|  X    |
|  X    |
---------
 1 2 3 4
X's turn, where to place: 

|       |
|  X    |
|  X    |
---------
 1 2 3 4
O's turn, where to place: help

|       |
|  X    |
|  X    |
---------
 1 2 3 4
X's turn, where to place: 2

|  X    |
|  X    |
|  X    |
---------
 1 2 3 4
Player X won!
";
    assert_eq!(out, golden);
}

/// The terminal board marks the last move (in brackets, taking the separators or the frame
/// beside it) and the winning line (in lower case); the document's program does not (issue 25).
#[test]
fn terminal_boards_mark_the_last_move_and_the_winning_line() {
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human", "--no-color"], "1\n2\n1\n2\n1\n");
    assert!(out.contains("\n|       |\n|X[O]   |\n|X O    |\n---------\n"), "{out}");
    assert!(
        out.contains("\n[x]     |\n|x O    |\n|x O    |\n---------\n 1 2 3 4\nPlayer X wins: 3 in a row.\n"),
        "{out}"
    );
    let document = run(&["play", "connect", "--preset", "connect3", "--document"], "1\n2\n1\n2\n1\n");
    assert!(!document.contains('[') && !document.contains('x'), "{document}");
}

#[test]
fn full_column_is_refused() {
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human"], "1\n1\n1\n1\nquit\n");
    assert!(out.contains("column 1 is full"), "{out}");
}

#[test]
fn forfeit_invalid_passes_the_turn() {
    // X 1, O types x (forfeits), X 1, O 2, X 1: three in a column.
    let out = run(
        &["play", "connect", "--preset", "connect3", "--player", "o=human", "--forfeit-invalid"],
        "1\nx\n1\n2\n1\n",
    );
    assert!(out.contains("O forfeits the turn"), "{out}");
    assert!(out.contains("Player X wins: 3 in a row.\nGame over: "), "{out}");
}

#[test]
fn o_can_win_and_undo_works() {
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human"], "1\n2\nundo\n2\n1\n2\n4\n2\n");
    assert!(out.contains("Player O wins: 3 in a row.\nGame over: "), "{out}");
}

#[test]
fn hint_gives_the_exact_result() {
    let out = run(&["play", "connect", "--preset", "connect3", "--player", "o=human"], "hint\nquit\n");
    assert!(out.contains("Hint: ") && out.contains("wins in"), "{out}");
}

#[test]
fn computer_opponent_plays() {
    let out = run(
        &["play", "connect", "--preset", "connect3", "--player", "x=human", "--player", "o=engine"],
        "1\n1\n1\n1\n1\n1\n1\n1\n",
    );
    assert!(out.contains("O (engine) plays "), "{out}");
    assert!(out.contains(" wins: ") || out.contains("Draw: ") || out.contains("End of input"), "{out}");
}

#[test]
fn solve_command_prints_pons_scores() {
    let out =
        run(&["solve", "connect"], "2252576253462244111563365343671351441 -1\n7422341735647741166133573473242566 1\n");
    assert_eq!(out, "2252576253462244111563365343671351441 -1\n7422341735647741166133573473242566 1\n");
    let bad = common::tabletop(&["solve", "connect", "--position", "1111", "--preset", "connect3"], "");
    assert!(!bad.ok && bad.stdout.is_empty());
    assert_eq!(bad.stderr, "error: bad position \"1111\": move 4: column 1 is full\n");
    let out =
        run(&["solve", "connect", "--preset", "connect3", "--position", "", "--all-moves", "--json", "--stats"], "");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 4);
    assert!(v["nodes"].as_u64().is_some());
    let out = run(&["solve", "connect", "--weak"], "7422341735647741166133573473242566\n");
    assert_eq!(out.trim(), "7422341735647741166133573473242566 1");
}

#[test]
fn perft_command() {
    let out = run(&["perft", "connect", "--depth", "4"], "");
    assert!(out.contains("2401"), "{out}");
}
