//! The value scale every search and solver shares: wins and losses by distance ([`WIN`] minus
//! plies), decisive values, and [`verdict`] to read a value back in words. It sits below both
//! the game abstraction (a finished position's value) and the search.

/// The value of a win at the root; a win `p` plies away is worth `WIN - p`.
pub const WIN: i32 = 1_000_000;
/// Larger than any value a search returns.
pub const INFINITY: i32 = WIN + 1;
/// Values at least this far from zero are decisive (a forced win or loss).
pub const DECISIVE: i32 = WIN - 10_000;

/// A value decoded for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move wins in this many plies.
    Win(u32),
    /// The side to move loses in this many plies.
    Loss(u32),
    /// Neither side is known to win; the heuristic or exact score.
    Score(i32),
}

/// Decodes a search value into a win or loss with distance, or a plain score.
///
/// ```
/// use tabletop::value::{verdict, Verdict, WIN};
/// assert_eq!(verdict(WIN - 5), Verdict::Win(5));
/// assert_eq!(verdict(-(WIN - 2)), Verdict::Loss(2));
/// assert_eq!(verdict(12), Verdict::Score(12));
/// ```
pub fn verdict(value: i32) -> Verdict {
    if value >= DECISIVE {
        Verdict::Win((WIN - value) as u32)
    } else if value <= -DECISIVE {
        Verdict::Loss((WIN + value) as u32)
    } else {
        Verdict::Score(value)
    }
}

/// A count and its noun with the right plural: `1 move`, `3 moves`, `0 moves`.
///
/// ```
/// use tabletop::value::count;
/// assert_eq!(count(1, "move", "moves"), "1 move");
/// assert_eq!(count(3, "disc", "discs"), "3 discs");
/// ```
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// A distance in plies as the mover's own moves: a win on the next ply is a win in 1 move, a
/// loss on the ply after that a loss in 1 move (the opponent's), 3 plies are 2 moves.
///
/// ```
/// assert_eq!((1..=5).map(tabletop::value::own_moves).collect::<Vec<_>>(), [1, 1, 2, 2, 3]);
/// ```
pub fn own_moves(plies: u32) -> u32 {
    plies.div_ceil(2).max(1)
}

/// A forced result `plies` away for the side to move, the words every game uses: `wins in 1
/// move`, `loses in 3 moves` (counted in the mover's own moves, see [`own_moves`]).
///
/// ```
/// use tabletop::value::{forced_result, Verdict};
/// assert_eq!(forced_result(Verdict::Win(1)).unwrap(), "wins in 1 move");
/// assert_eq!(forced_result(Verdict::Win(9)).unwrap(), "wins in 5 moves");
/// assert_eq!(forced_result(Verdict::Loss(2)).unwrap(), "loses in 1 move");
/// assert_eq!(forced_result(Verdict::Score(3)), None);
/// ```
pub fn forced_result(verdict: Verdict) -> Option<String> {
    match verdict {
        Verdict::Win(p) => Some(wins_in(own_moves(p))),
        Verdict::Loss(p) => Some(loses_in(own_moves(p))),
        Verdict::Score(_) => None,
    }
}

/// `wins in N moves` for a count of the mover's own moves (singular for 1).
pub fn wins_in(moves: u32) -> String {
    format!("wins in {}", count(moves.into(), "move", "moves"))
}

/// `loses in N moves` for a count of the mover's own moves (singular for 1).
pub fn loses_in(moves: u32) -> String {
    format!("loses in {}", count(moves.into(), "move", "moves"))
}

/// The sentence that ends a game, the same shape in every game and front end:
/// `WINNER wins (SCORES): REASON.` or `Draw (SCORES): REASON.`, such as `Blue wins: three in a
/// line.` or `Black wins (Black 40, White 24 discs): the board is full.` (`winner` is `None` for
/// a draw; an empty `scores` or `reason` leaves its part out).
///
/// ```
/// use tabletop::value::result_sentence;
/// assert_eq!(result_sentence(Some("Black"), "Black 40, White 24 discs", "the board is full."),
///            "Black wins (Black 40, White 24 discs): the board is full.");
/// assert_eq!(result_sentence(None, "", "the board is full"), "Draw: the board is full.");
/// assert_eq!(result_sentence(Some("Player 1"), "", ""), "Player 1 wins.");
/// ```
pub fn result_sentence(winner: Option<&str>, scores: &str, reason: &str) -> String {
    let mut text = match winner {
        Some(name) => format!("{name} wins"),
        None => "Draw".to_string(),
    };
    if !scores.trim().is_empty() {
        text = format!("{text} ({})", scores.trim());
    }
    let reason = reason.trim().trim_end_matches('.');
    if reason.is_empty() {
        format!("{text}.")
    } else {
        format!("{text}: {reason}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forced_results_count_the_movers_moves_singular_and_plural() {
        let words: Vec<String> = (1..=4).filter_map(|p| forced_result(Verdict::Win(p))).collect();
        assert_eq!(words, ["wins in 1 move", "wins in 1 move", "wins in 2 moves", "wins in 2 moves"]);
        assert_eq!(forced_result(Verdict::Loss(2)).unwrap(), "loses in 1 move");
        assert_eq!(forced_result(Verdict::Loss(6)).unwrap(), "loses in 3 moves");
        assert_eq!(count(0, "move", "moves"), "0 moves");
        assert_eq!(count(1, "disc", "discs"), "1 disc");
    }

    #[test]
    fn a_result_is_one_sentence_whatever_its_parts() {
        assert_eq!(result_sentence(Some("X"), "", "five in a row"), "X wins: five in a row.");
        assert_eq!(result_sentence(None, "Black 32, White 32 discs", ""), "Draw (Black 32, White 32 discs).");
        assert_eq!(result_sentence(None, "", "  the board is full.  "), "Draw: the board is full.");
    }
}
