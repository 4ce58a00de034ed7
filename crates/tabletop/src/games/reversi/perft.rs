//! A specialised perft on raw bitboards with bulk counting at the last ply.
//!
//! Convention (the same as the generic [`perft`](crate::perft())): a pass counts as a move, and a
//! finished game counts as one leaf at every deeper depth.

use super::bitboard::{flips, moves};
use super::rules::Reversi;

/// The number of leaves `depth` plies below `position`.
///
/// ```
/// use tabletop::games::reversi::{perft::perft, Reversi};
/// assert_eq!(perft(&Reversi::new(), 4), 244);
/// ```
pub fn perft(position: &Reversi, depth: u32) -> u64 {
    let (p, o) = position.player_opponent();
    count(p, o, depth)
}

fn count(p: u64, o: u64, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut m = moves(p, o);
    if m == 0 {
        if moves(o, p) == 0 {
            return 1;
        }
        return if depth == 1 { 1 } else { count(o, p, depth - 1) };
    }
    if depth == 1 {
        return m.count_ones() as u64;
    }
    let mut total = 0;
    if depth == 2 {
        while m != 0 {
            let sq = m.trailing_zeros() as usize;
            m &= m - 1;
            let f = flips(p, o, sq);
            let (np, no) = (p | f | (1 << sq), o & !f);
            let reply = moves(no, np);
            total += if reply != 0 { reply.count_ones() as u64 } else { 1 };
        }
        return total;
    }
    while m != 0 {
        let sq = m.trailing_zeros() as usize;
        m &= m - 1;
        let f = flips(p, o, sq);
        total += count(o & !f, p | f | (1 << sq), depth - 1);
    }
    total
}
