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

/// A rack in a given order, bracketed as the simplified rules' program prints it:
/// `[ 9 32 1 19 13 60 2 ]`.
pub struct InOrder<'a>(pub &'a [u8]);

impl fmt::Display for InOrder<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for token in self.0 {
            write!(f, " {token}")?;
        }
        f.write_str(" ]")
    }
}

/// The racks in the order the simplified rules' program keeps them (the library keeps racks
/// sorted): tokens in the order drawn, a placed token taken out where it was, a swapped token
/// replaced in place by the one drawn for it, in the order the tokens were typed.
///
/// ```
/// use tabletop::games::mathable::text::{DrawnOrder, InOrder};
/// use tabletop::games::mathable::{Mathable, MathableMove, Preset, Settings, Tokens};
/// use tabletop::{Game, Seat};
/// let game = Mathable::new(&Settings::preset(Preset::Simple).with_seed(3)).unwrap();
/// let mut order = DrawnOrder::new(&game);
/// assert_eq!(InOrder(order.rack(Seat(0))).to_string(), "[ 2 10 10 2 56 5 2 ]");
/// // Swap 5 then 2, as typed: the first token drawn replaces the 5, the second the first 2.
/// let swap = MathableMove::Exchange(Tokens::from_slice(&[2, 5]).unwrap());
/// let drawn = game.draws_of(swap);
/// order.play(&game, swap, Some(&[5, 2]));
/// assert_eq!(order.rack(Seat(0)), &[drawn[1], 10, 10, 2, 56, drawn[0], 2]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrawnOrder {
    racks: Vec<Vec<u8>>,
}

impl DrawnOrder {
    /// The racks of `game`: in the order dealt when it is a game's start, else sorted (a
    /// loaded game's drawn order is not known).
    pub fn new(game: &Mathable) -> DrawnOrder {
        let fresh = Mathable::new(game.settings()).ok().filter(|start| start == game);
        let racks = match fresh.and_then(|_| Mathable::dealt_in_order(game.settings()).ok()) {
            Some(dealt) => dealt,
            None => (0..game.num_seats()).map(|s| game.rack(Seat(s as u8)).as_slice().to_vec()).collect(),
        };
        DrawnOrder { racks }
    }

    /// The racks after `mv` is played from `before`; `typed` is the order in which an
    /// exchange's tokens were given (by default the exchange's own, sorted, order).
    pub fn play(&mut self, before: &Mathable, mv: MathableMove, typed: Option<&[u8]>) {
        let Some(rack) = self.racks.get_mut(before.turn().index()) else { return };
        let drawn = before.draws_of(mv);
        match mv {
            MathableMove::Place { token, .. } => {
                if let Some(i) = rack.iter().position(|&t| t == token) {
                    rack.remove(i);
                }
            }
            MathableMove::EndTurn | MathableMove::Draw => rack.extend(drawn),
            MathableMove::Exchange(tokens) => {
                let typed = typed.filter(|t| Tokens::from_slice(t) == Some(tokens));
                let given = typed.unwrap_or(tokens.as_slice());
                // Each new token takes the place of a token given, not yet replaced.
                let mut replaced = vec![false; rack.len()];
                for (&old, &new) in given.iter().zip(&drawn) {
                    if let Some(i) = (0..rack.len()).find(|&i| !replaced[i] && rack[i] == old) {
                        rack[i] = new;
                        replaced[i] = true;
                    }
                }
            }
            MathableMove::Terminate => {}
        }
    }

    /// The rack of `seat`, in order.
    pub fn rack(&self, seat: Seat) -> &[u8] {
        self.racks.get(seat.index()).map_or(&[], Vec::as_slice)
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
