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

/// The same count, with a transposition table of subtree counts (keyed by both bitboards and
/// the remaining depth) for subtrees of at least 3 plies: many move orders reach the same
/// position, so deep perfts get several times faster. `table_bits` sizes the table (2^bits
/// entries of 32 bytes).
///
/// ```
/// use tabletop::games::reversi::{perft::{perft, perft_hashed}, Reversi};
/// assert_eq!(perft_hashed(&Reversi::new(), 8, 12), perft(&Reversi::new(), 8));
/// ```
pub fn perft_hashed(position: &Reversi, depth: u32, table_bits: u32) -> u64 {
    let (p, o) = position.player_opponent();
    let size = 1usize << table_bits.clamp(4, 28);
    let mut table = vec![(0u64, 0u64, 0u64, 0u64); size];
    count_hashed(p, o, depth, &mut table)
}

fn count_hashed(p: u64, o: u64, depth: u32, table: &mut [(u64, u64, u64, u64)]) -> u64 {
    if depth < 3 {
        return count(p, o, depth);
    }
    let h = (p ^ o.rotate_left(31) ^ (depth as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93))
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let slot = (h >> 32) as usize & (table.len() - 1);
    let e = table[slot];
    if e.0 == p && e.1 == o && e.2 == depth as u64 {
        return e.3;
    }
    let mut m = moves(p, o);
    let total = if m == 0 {
        if moves(o, p) == 0 {
            1
        } else {
            count_hashed(o, p, depth - 1, table)
        }
    } else {
        let mut total = 0;
        while m != 0 {
            let sq = m.trailing_zeros() as usize;
            m &= m - 1;
            let f = flips(p, o, sq);
            total += count_hashed(o & !f, p | f | (1 << sq), depth - 1, table);
        }
        total
    };
    table[slot] = (p, o, depth as u64, total);
    total
}
