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
