//! Move-path enumeration (perft), the standard check of move generation.
//!
//! Convention, the same for every game: a pass (where a game has one) is a move like any other,
//! and a finished game counts as one leaf at every deeper depth.

use crate::game::Game;

/// The number of leaves of the game tree `depth` plies below `position`.
///
/// ```
/// use tabletop::games::slide::{Slide, SlideVariant};
/// use tabletop::{perft, Game};
/// let start = Slide::start(&SlideVariant::new(3, 0).unwrap());
/// assert_eq!(perft(&start, 2), 9 * 8);
/// ```
pub fn perft<G: Game>(position: &G, depth: u32) -> u64 {
    let mut buffers = vec![Vec::new(); depth as usize + 1];
    perft_with(position, depth, &mut buffers)
}

fn perft_with<G: Game>(position: &G, depth: u32, buffers: &mut [Vec<G::Move>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (moves, rest) = buffers.split_first_mut().expect("one buffer per ply");
    position.legal_moves(moves);
    if moves.is_empty() {
        return 1;
    }
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for &mv in moves.iter() {
        let mut child = position.clone();
        child.play_unchecked(mv);
        total += perft_with(&child, depth - 1, rest);
    }
    total
}
