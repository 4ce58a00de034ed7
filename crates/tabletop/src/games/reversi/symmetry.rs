//! The eight symmetries of the board (rotations and reflections of the square) on bitboards,
//! and the canonical form of a position: the least of its eight images.
//!
//! The rules of Reversi look the same in all eight directions, so a position and its images
//! have the same move counts, scores and perft counts: tables keyed by the canonical form let
//! symmetric transpositions share one entry.
//!
//! Symmetry `s` (0..8) applies, in this order: the transposition along the a1-h8 diagonal
//! when `s & 4` is set, the horizontal mirror (a file <-> h file) when `s & 1` is set, and the
//! vertical flip (rank 1 <-> rank 8) when `s & 2` is set. Symmetry 0 is the identity.
//!
//! ```
//! use tabletop::games::reversi::symmetry::{canonical, transform};
//! let (p, o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
//! let key = canonical(p, o);
//! for s in 0..8 {
//!     assert_eq!(canonical(transform(p, s), transform(o, s)), key);
//! }
//! ```

/// The vertical flip: rank 1 <-> rank 8 (a1 <-> a8).
///
/// ```
/// use tabletop::games::reversi::symmetry::flip_vertical;
/// assert_eq!(flip_vertical(1), 1 << 56);
/// ```
#[inline]
pub fn flip_vertical(x: u64) -> u64 {
    x.swap_bytes()
}

/// The horizontal mirror: the a file <-> the h file (a1 <-> h1), by three delta swaps.
///
/// ```
/// use tabletop::games::reversi::symmetry::mirror_horizontal;
/// assert_eq!(mirror_horizontal(1), 1 << 7);
/// ```
#[inline]
pub fn mirror_horizontal(x: u64) -> u64 {
    const K1: u64 = 0x5555_5555_5555_5555;
    const K2: u64 = 0x3333_3333_3333_3333;
    const K4: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    let x = ((x >> 1) & K1) | ((x & K1) << 1);
    let x = ((x >> 2) & K2) | ((x & K2) << 2);
    ((x >> 4) & K4) | ((x & K4) << 4)
}

/// The transposition along the a1-h8 diagonal (h1 <-> a8), by three delta swaps.
///
/// ```
/// use tabletop::games::reversi::symmetry::flip_diagonal;
/// assert_eq!(flip_diagonal(1 << 7), 1 << 56);
/// assert_eq!(flip_diagonal(1 << 63), 1 << 63);
/// ```
#[inline]
pub fn flip_diagonal(x: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0F0F_0F0F_0000_0000;
    let mut x = x;
    let t = K4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    let t = K2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    let t = K1 & (x ^ (x << 7));
    x ^ t ^ (t >> 7)
}

/// The image of `x` under symmetry `s` (0..8; only the low 3 bits count): the diagonal
/// transposition if `s & 4`, then the horizontal mirror if `s & 1`, then the vertical flip if
/// `s & 2`.
///
/// ```
/// use tabletop::games::reversi::symmetry::transform;
/// // a1 goes to each corner twice (it lies on the transposition's axis).
/// let images: Vec<u64> = (0..8).map(|s| transform(1, s)).collect();
/// assert_eq!(images, [1, 1 << 7, 1 << 56, 1 << 63, 1, 1 << 7, 1 << 56, 1 << 63]);
/// ```
#[inline]
pub fn transform(x: u64, s: usize) -> u64 {
    let x = if s & 4 != 0 { flip_diagonal(x) } else { x };
    let x = if s & 1 != 0 { mirror_horizontal(x) } else { x };
    if s & 2 != 0 {
        flip_vertical(x)
    } else {
        x
    }
}

/// The canonical form of a position (`p` the side to move, `o` its opponent): the least
/// `(p, o)` pair, compared as `p` then `o`, among the eight images of the position
/// ([`transform`] with the same symmetry on both sides). Every image of a position has the
/// same canonical form.
///
/// One transposition, two mirrors and byte swaps per side: a few dozen instructions.
///
/// ```
/// use tabletop::games::reversi::symmetry::canonical;
/// // The four first moves lead to symmetric positions: f5 and d3 (white to move).
/// let f5 = canonical(0x0000_0000_0800_0000, 0x0000_0038_1000_0000);
/// let d3 = canonical(0x0000_0010_0000_0000, 0x0000_0008_1808_0000);
/// assert_eq!(f5, d3);
/// ```
#[inline]
pub fn canonical(p: u64, o: u64) -> (u64, u64) {
    let pack = |p: u64, o: u64| ((p as u128) << 64) | o as u128;
    let (pd, od) = (flip_diagonal(p), flip_diagonal(o));
    let bases = [
        (p, o),
        (mirror_horizontal(p), mirror_horizontal(o)),
        (pd, od),
        (mirror_horizontal(pd), mirror_horizontal(od)),
    ];
    let mut best = u128::MAX;
    for (p, o) in bases {
        best = best.min(pack(p, o)).min(pack(flip_vertical(p), flip_vertical(o)));
    }
    ((best >> 64) as u64, best as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random positions: each square empty, the player's or the opponent's.
    fn random_positions(seed: u64, n: usize) -> Vec<(u64, u64)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                let (a, b): (u64, u64) = (rng.r#gen(), rng.r#gen());
                (a & b, !a & b)
            })
            .collect()
    }

    /// The image of a square index under symmetry `s`, by coordinates.
    fn square_image(sq: usize, s: usize) -> usize {
        let (mut row, mut col) = (sq / 8, sq % 8);
        if s & 4 != 0 {
            (row, col) = (col, row);
        }
        if s & 1 != 0 {
            col = 7 - col;
        }
        if s & 2 != 0 {
            row = 7 - row;
        }
        8 * row + col
    }

    #[test]
    fn transforms_move_every_square_as_the_coordinates_say() {
        for s in 0..8 {
            for sq in 0..64 {
                assert_eq!(transform(1 << sq, s), 1 << square_image(sq, s), "symmetry {s}, square {sq}");
            }
        }
    }

    #[test]
    fn the_eight_images_are_distinct_and_form_a_group() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            // Random dense boards: none has a symmetry of its own.
            let x: u64 = rng.r#gen();
            let images: Vec<u64> = (0..8).map(|s| transform(x, s)).collect();
            // The generators are involutions and keep the number of discs.
            assert_eq!(flip_vertical(flip_vertical(x)), x);
            assert_eq!(mirror_horizontal(mirror_horizontal(x)), x);
            assert_eq!(flip_diagonal(flip_diagonal(x)), x);
            assert!(images.iter().all(|i| i.count_ones() == x.count_ones()));
            // Distinct for a board with no symmetry of its own (random dense boards).
            let mut sorted = images.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 8, "{x:#x}");
            for s in 0..8 {
                // Closure: a composition is one of the eight, and every symmetry has an inverse.
                for t in 0..8 {
                    assert!(images.contains(&transform(transform(x, s), t)));
                }
                assert!((0..8).any(|t| transform(transform(x, s), t) == x), "no inverse for {s}");
            }
            // Relations of the dihedral group: the two mirrors commute, and the transposition
            // turns one into the other.
            assert_eq!(flip_vertical(mirror_horizontal(x)), mirror_horizontal(flip_vertical(x)));
            assert_eq!(mirror_horizontal(flip_diagonal(x)), flip_diagonal(flip_vertical(x)));
        }
    }

    #[test]
    fn the_canonical_form_is_the_least_image_and_invariant() {
        for (p, o) in random_positions(11, 500) {
            let key = canonical(p, o);
            let least = (0..8).map(|s| (transform(p, s), transform(o, s))).min().unwrap();
            assert_eq!(key, least);
            for s in 0..8 {
                assert_eq!(canonical(transform(p, s), transform(o, s)), key, "symmetry {s}");
            }
        }
    }

    #[test]
    fn symmetric_positions_have_the_same_perft() {
        // Rules are the same in all directions: mid-game positions from short random games.
        use crate::games::reversi::bitboard::{flips, moves};
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..6 {
            let (mut p, mut o) = (0x0000_0008_1000_0000u64, 0x0000_0010_0800_0000u64);
            for _ in 0..rng.gen_range(4..20) {
                let m = moves(p, o);
                if m == 0 {
                    break;
                }
                let nth = rng.gen_range(0..m.count_ones());
                let mut mm = m;
                for _ in 0..nth {
                    mm &= mm - 1;
                }
                let sq = mm.trailing_zeros() as usize;
                let f = flips(p, o, sq);
                (p, o) = (o & !f, p | f | (1 << sq));
            }
            let expected = crate::games::reversi::perft::count(p, o, 5);
            for s in 0..8 {
                assert_eq!(crate::games::reversi::perft::count(transform(p, s), transform(o, s), 5), expected);
            }
        }
    }
}
