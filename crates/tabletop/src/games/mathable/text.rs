//! Mathable in text: the board for a terminal (with highlighted placements), the simplified
//! rules' program's `|`/`_` grid and bracketed racks, ordinals, and the end-of-game summary.
//!
//! ```
//! use tabletop::games::mathable::text::{ordinal, Bracketed, Grid};
//! use tabletop::games::mathable::{Mathable, Preset, Settings, Tokens};
//! let game = Mathable::new(&Settings::preset(Preset::Simple).with_seed(1)).unwrap();
//! let grid = Grid(game.board()).to_string();
//! assert!(grid.starts_with("   | A | B |"));
//! assert!(grid.lines().nth(1).unwrap().starts_with("___|___|"));
//! assert_eq!(Bracketed(&Tokens::from_slice(&[1, 9, 14]).unwrap()).to_string(), "[ 1 9 14 ]");
//! assert_eq!((ordinal(1), ordinal(2), ordinal(3), ordinal(11), ordinal(22)), ("1st".into(), "2nd".into(), "3rd".into(), "11th".into(), "22nd".into()));
//! ```

use std::fmt;

use super::board::{Board, Cell, Square, Tokens};
use super::rules::{EndCause, Mathable, MathableMove};
use crate::game::{Game, Outcome, Seat, Status};

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `21st`: the swap dialogue's "1st token to swap:".
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A rack as the simplified rules' program writes it: `[ 9 14 1 5 10 10 2 ]`.
pub struct Bracketed<'a>(pub &'a Tokens);

impl fmt::Display for Bracketed<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[ {} ]", self.0)
    }
}

/// The board as the simplified rules' program draws it: a text grid of `|` and `_`, columns
/// lettered and rows numbered as in a spreadsheet (A1 is the top left cell), empty special
/// squares showing their mark.
pub struct Grid<'a>(pub &'a Board);

impl fmt::Display for Grid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let board = self.0;
        let n = board.size();
        let rule = format!("___{}|", "|___".repeat(n as usize));
        write!(f, "   ")?;
        for c in 0..n {
            write!(f, "| {} ", (b'A' + c) as char)?;
        }
        writeln!(f, "|\n{rule}")?;
        for r in 0..n {
            write!(f, "{:>2} ", r + 1)?;
            for c in 0..n {
                let cell = Cell::new(r, c);
                match board.get(cell) {
                    Some(v) => write!(f, "|{v:>3}")?,
                    None => write!(f, "|{:>3}", board.square(cell).mark().unwrap_or(""))?,
                }
            }
            writeln!(f, "|\n{rule}")?;
        }
        Ok(())
    }
}

/// What a piece of the terminal board is, for the front end to colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shade {
    /// An empty special square's mark.
    Special,
    /// A token placed before the last turn (not the start squares' tokens).
    Token,
    /// A token placed in the last turn that placed any.
    Last,
}

/// The board for a terminal: tokens and marks four characters wide, `paint` colouring each
/// piece by its [`Shade`], and a legend. With `stars`, the `highlight`ed cells' tokens are
/// marked `*` instead of painted (for output without colours).
pub fn terminal_board(
    game: &Mathable,
    highlight: &[Cell],
    stars: bool,
    paint: impl Fn(&str, Shade) -> String,
) -> String {
    let board = game.board();
    let n = board.size();
    let mut out = String::from("    ");
    for c in 0..n {
        out.push_str(&format!("{:>4}", (b'A' + c) as char));
    }
    out.push('\n');
    for r in 0..n {
        out.push_str(&format!("{:>4}", r + 1));
        for c in 0..n {
            let cell = Cell::new(r, c);
            let lit = highlight.contains(&cell);
            let text = match board.get(cell) {
                Some(v) if lit && stars => format!("{v:>3}*"),
                Some(v) if lit => paint(&format!("{v:>4}"), Shade::Last),
                Some(v) if board.square(cell) != Square::Start => paint(&format!("{v:>4}"), Shade::Token),
                Some(v) => format!("{v:>4}"),
                None => match board.square(cell).mark() {
                    Some(mark) => paint(&format!("{mark:>4}"), Shade::Special),
                    None => "   .".to_string(),
                },
            };
            out.push_str(&text);
        }
        out.push('\n');
    }
    out.push_str("    3x/2x: triple/double points   + - x /: restriction squares");
    if !highlight.is_empty() {
        out.push_str(if stars { "   *: last placements" } else { "   (last placements highlighted)" });
    }
    out.push('\n');
    out
}

/// The cells of the placements of the last turn that placed anything, given the moves of a game.
///
/// ```
/// use tabletop::games::mathable::text::last_placements;
/// use tabletop::games::mathable::MathableMove;
/// let place = |c: &str| MathableMove::Place { cell: c.parse().unwrap(), token: 4 };
/// let moves = [place("G9"), MathableMove::EndTurn, place("H9"), place("I9"), MathableMove::EndTurn, MathableMove::EndTurn];
/// assert_eq!(last_placements(&moves), vec!["I9".parse().unwrap(), "H9".parse().unwrap()]);
/// ```
pub fn last_placements(moves: &[MathableMove]) -> Vec<Cell> {
    let mut cells = Vec::new();
    for mv in moves.iter().rev() {
        match mv {
            MathableMove::Place { cell, .. } => cells.push(*cell),
            MathableMove::Draw => {}
            _ if cells.is_empty() => {}
            _ => break,
        }
    }
    cells
}

/// The end of a game in words, one line each: the cause, each player's deductions, the
/// scores, and the winners, with the players called by `names` (one per seat).
pub fn result_text(game: &Mathable, names: &[String]) -> String {
    let mut lines = Vec::new();
    lines.push(format!("Game over ({}).", game.end_cause().map_or("", |c| c.as_str())));
    if game.settings().deductions && game.end_cause() != Some(EndCause::Terminated) {
        for (s, name) in names.iter().enumerate() {
            let left = game.rack(Seat(s as u8));
            if !left.is_empty() {
                lines.push(format!("{name} loses {} for {} left on the rack.", left.sum(), left));
            }
        }
    }
    for (s, name) in names.iter().enumerate() {
        lines.push(format!("  {name}: {}", game.score(Seat(s as u8))));
    }
    lines.push(match game.status() {
        Status::Over(Outcome::Win(w)) => crate::value::result_sentence(Some(&names[w.index()]), "", ""),
        Status::Over(Outcome::SharedWin(set)) => {
            let who: Vec<&str> = set.seats().map(|s| names[s.index()].as_str()).collect();
            format!("Shared win: {}.", who.join(" and "))
        }
        _ => crate::value::result_sentence(None, "", "every player has the same score"),
    });
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mathable::{Preset, Settings};

    #[test]
    fn the_terminal_board_marks_the_last_placements() {
        let mut game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(3)).unwrap();
        let placement = game.placements()[0];
        game.play(MathableMove::Place { cell: placement.cell, token: placement.token }).unwrap();
        let stars = terminal_board(&game, &[placement.cell], true, |t, _| t.to_string());
        assert!(stars.contains(&format!("{:>3}*", placement.token)) && stars.contains("*: last placements"));
        let painted = terminal_board(&game, &[placement.cell], false, |t, s| match s {
            Shade::Last => format!("<{}>", t.trim()),
            _ => t.to_string(),
        });
        assert!(painted.contains(&format!("<{}>", placement.token)));
        assert_eq!(terminal_board(&game, &[], true, |t, _| t.to_string()).lines().count(), 14 + 2);
    }
}
