//! A specialised perft on raw bitboards with bulk counting at the last ply, and a version with
//! a table of subtree counts keyed by the symmetry-reduced position.
//!
//! Convention (the same as the generic [`perft`](crate::perft())): a pass counts as a move, and a
//! finished game counts as one leaf at every deeper depth.

use super::bitboard::{flips, moves};
use super::rules::Reversi;
use super::symmetry::canonical;
use crate::memory::{try_large_vec, TableAllocError};

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

/// The plain count below `p` (to move) and `o`: the last two plies in bulk.
pub(crate) fn count(p: u64, o: u64, depth: u32) -> u64 {
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

/// The default size of [`perft_hashed`]'s table: 2^22 entries of 24 bytes (96 MiB).
pub const DEFAULT_TABLE_BITS: u32 = 22;

/// Subtrees of fewer plies are counted without the table (bulk counting is cheaper than a probe).
const MIN_TABLE_DEPTH: u32 = 3;

/// Entries per bucket (one bucket is probed per node).
const WAYS: usize = 4;

/// Bits of [`Entry::data`] that hold the remaining depth; the count is above them.
const DEPTH_BITS: u32 = 8;

/// One cached subtree count: the canonical position and `count << 8 | depth` (depth 0: empty).
#[derive(Clone, Copy, Default)]
struct Entry {
    p: u64,
    o: u64,
    data: u64,
}

/// The same count, with a table of subtree counts for subtrees of at least 3 plies: many move
/// orders reach the same position, or one of its 7 symmetric images (mirrors and rotations of
/// the board have the same perft), so the table is keyed by the canonical form of the
/// position ([`canonical`]) and the remaining depth. The table has
/// 2^`table_bits` entries (clamped to 4..=30) of 24 bytes in buckets of 4; a new count
/// replaces the shallowest entry of its bucket (the cheapest to count again), the oldest among
/// equals.
///
/// An error when the table cannot be allocated.
///
/// ```
/// use tabletop::games::reversi::{perft::{perft, perft_hashed}, Reversi};
/// assert_eq!(perft_hashed(&Reversi::new(), 8, 12).unwrap(), perft(&Reversi::new(), 8));
/// ```
pub fn perft_hashed(position: &Reversi, depth: u32, table_bits: u32) -> Result<u64, TableAllocError> {
    let (p, o) = position.player_opponent();
    let mut table = Table::new(table_bits)?;
    Ok(table.count(p, o, depth))
}

struct Table {
    entries: Vec<Entry>,
    /// 64 minus the bits of the bucket index (the index is the top bits of the hash).
    shift: u32,
}

impl Table {
    fn new(table_bits: u32) -> Result<Table, TableAllocError> {
        let bits = table_bits.clamp(4, 30);
        let entries = try_large_vec(1usize << bits, Entry::default)?;
        Ok(Table { entries, shift: 64 - (bits - WAYS.trailing_zeros()) })
    }

    fn count(&mut self, p: u64, o: u64, depth: u32) -> u64 {
        if depth < MIN_TABLE_DEPTH {
            return count(p, o, depth);
        }
        let (cp, co) = canonical(p, o);
        let h = (cp ^ u64::from(depth).wrapping_mul(0xD6E8_FEB8_6659_FD93)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ co.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        let first = (h >> self.shift) as usize * WAYS;
        let bucket = &self.entries[first..first + WAYS];
        let depth_mask = (1 << DEPTH_BITS) - 1;
        for e in bucket {
            if e.p == cp && e.o == co && e.data & depth_mask == u64::from(depth) {
                return e.data >> DEPTH_BITS;
            }
        }
        let mut m = moves(p, o);
        let total = if m == 0 {
            if moves(o, p) == 0 {
                1
            } else {
                self.count(o, p, depth - 1)
            }
        } else {
            let mut total = 0;
            while m != 0 {
                let sq = m.trailing_zeros() as usize;
                m &= m - 1;
                let f = flips(p, o, sq);
                total += self.count(o & !f, p | f | (1 << sq), depth - 1);
            }
            total
        };
        if total >> (64 - DEPTH_BITS) == 0 {
            // The shallowest entry; the last of equals, entries move up one slot to make room
            // at the front.
            let bucket = &mut self.entries[first..first + WAYS];
            let victim = (0..WAYS).rev().min_by_key(|&i| bucket[i].data & depth_mask).unwrap_or(0);
            bucket[..=victim].rotate_right(1);
            bucket[0] = Entry { p: cp, o: co, data: total << DEPTH_BITS | u64::from(depth) };
        }
        total
    }
}
