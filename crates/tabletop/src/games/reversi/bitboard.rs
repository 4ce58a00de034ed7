//! Bitboard primitives: move generation, flips, and the masks the evaluation uses.
//!
//! A board side is a `u64` with bit `8 * row + col` for the square at (row, col): a1 is bit 0,
//! h1 bit 7, a2 bit 8 and h8 bit 63 (the OBF order). The functions take the bitboards of the
//! side to move (`p`, for player) and of its opponent (`o`).

/// Every square but the a and h files: stops horizontal and diagonal shifts from wrapping.
const NOT_EDGE_FILES: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// The squares where `p` may place a disc: empty squares that close a line of `o` discs.
///
/// Kogge-Stone style: each of the 8 directions needs a handful of shifts and masks.
///
/// ```
/// use tabletop::games::reversi::bitboard::moves;
/// // The start: black (to move) on d5 and e4, white on d4 and e5.
/// let black = (1 << 35) | (1 << 28);
/// let white = (1 << 27) | (1 << 36);
/// assert_eq!(moves(black, white).count_ones(), 4);
/// ```
#[inline]
pub fn moves(p: u64, o: u64) -> u64 {
    let empty = !(p | o);
    let masked = o & NOT_EDGE_FILES;
    // The four directions side by side, so the compiler can use one vector lane each.
    const D: [u64; 4] = [1, 8, 7, 9];
    let os = [masked, o, masked, masked];
    let mut m = [0u64; 4];
    for i in 0..4 {
        let (d, o) = (D[i], os[i]);
        let mut fl = o & (p << d);
        let mut fr = o & (p >> d);
        fl |= o & (fl << d);
        fr |= o & (fr >> d);
        let pre_l = o & (o << d);
        let pre_r = o & (o >> d);
        let d2 = 2 * d;
        fl |= pre_l & (fl << d2);
        fr |= pre_r & (fr >> d2);
        fl |= pre_l & (fl << d2);
        fr |= pre_r & (fr >> d2);
        m[i] = (fl << d) | (fr >> d);
    }
    (m[0] | m[1] | m[2] | m[3]) & empty
}

/// Rays from each square, excluding it: `[square][direction]` (one cache line per square). Directions 0-3 go towards
/// higher bits (E, S, SE, SW), 4-7 towards lower bits (W, N, NW, NE).
static RAYS: [[u64; 8]; 64] = make_rays();

const fn make_rays() -> [[u64; 8]; 64] {
    const DIRS: [(i32, i32); 8] = [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)];
    let mut rays = [[0u64; 8]; 64];
    let mut d = 0;
    while d < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut r, mut c) = ((sq / 8) as i32, (sq % 8) as i32);
            let mut ray = 0u64;
            loop {
                r += DIRS[d].0;
                c += DIRS[d].1;
                if r < 0 || r > 7 || c < 0 || c > 7 {
                    break;
                }
                ray |= 1u64 << (r * 8 + c);
            }
            rays[sq][d] = ray;
            sq += 1;
        }
        d += 1;
    }
    rays
}

/// The discs of `o` that `p` flips by placing on the empty square `sq` (0 if the placement is
/// not legal; the result is meaningless for an occupied square).
///
/// ```
/// use tabletop::games::reversi::bitboard::flips;
/// let black = (1 << 35) | (1 << 28);
/// let white = (1 << 27) | (1 << 36);
/// // f5 (bit 37) flips e5 (bit 36).
/// assert_eq!(flips(black, white, 37), 1 << 36);
/// assert_eq!(flips(black, white, 0), 0);
/// ```
#[inline(always)]
pub fn flips(p: u64, o: u64, sq: usize) -> u64 {
    // Quick rejection: no opponent disc next to the square flips nothing.
    if NEIGHBOURS[sq] & o == 0 {
        return 0;
    }
    let mut f = 0;
    let not_o = !o;
    let rays = &RAYS[sq];
    // Towards higher bits: the first non-opponent square is the lowest set bit.
    for &ray in &rays[..4] {
        let blockers = ray & not_o;
        let b = blockers & blockers.wrapping_neg();
        let closed = ((b & p != 0) as u64).wrapping_neg();
        f |= ray & b.wrapping_sub(1) & closed;
    }
    // Towards lower bits (W, N, NW, NE: shifts right by 1, 8, 9, 7): grow the run of
    // opponent discs along the ray, then look at the square after it. (A bit scan here would
    // be emulated at great cost once the compiler vectorises the four directions.)
    const SHIFT: [u32; 4] = [1, 8, 9, 7];
    let x = 1u64 << sq;
    for i in 0..4 {
        let (ray, d) = (rays[4 + i], SHIFT[i]);
        let run = o & ray;
        let mut t = run & (x >> d);
        t |= run & (t >> d);
        t |= run & (t >> d);
        t |= run & (t >> d);
        t |= run & (t >> d);
        t |= run & (t >> d);
        let closed = (((t >> d) & p & ray != 0) as u64).wrapping_neg();
        f |= t & closed;
    }
    f
}

/// The squares next to each square.
static NEIGHBOURS: [u64; 64] = make_neighbours();

const fn make_neighbours() -> [u64; 64] {
    let mut n = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        n[sq] = adjacent(1 << sq);
        sq += 1;
    }
    n
}

/// Every square next to at least one square of `bits` (in any of the 8 directions). Masked
/// with the empty squares, the neighbours of the opponent's discs give potential mobility.
///
/// ```
/// use tabletop::games::reversi::bitboard::adjacent;
/// assert_eq!(adjacent(1).count_ones(), 3); // a1 touches b1, a2, b2
/// ```
#[inline]
pub const fn adjacent(bits: u64) -> u64 {
    let west = bits & 0xFEFE_FEFE_FEFE_FEFE; // can shift towards lower files
    let east = bits & 0x7F7F_7F7F_7F7F_7F7F; // can shift towards higher files
    (east << 1) | (west >> 1) | (bits << 8) | (bits >> 8) | (east << 9) | (west << 7) | (east >> 7) | (west >> 9)
}

/// The final score for the side whose discs are `p`: disc difference, empties to the winner.
///
/// ```
/// use tabletop::games::reversi::bitboard::final_score;
/// assert_eq!(final_score(0xFF, 0), 64);
/// assert_eq!(final_score(0b11, 0b100), 62 - 1 + 1);
/// ```
#[inline]
pub fn final_score(p: u64, o: u64) -> i32 {
    let (np, no) = (p.count_ones() as i32, o.count_ones() as i32);
    let diff = np - no;
    let empties = 64 - np - no;
    match diff.cmp(&0) {
        std::cmp::Ordering::Greater => diff + empties,
        std::cmp::Ordering::Less => diff - empties,
        std::cmp::Ordering::Equal => 0,
    }
}

/// The four corners.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;

/// Discs of `p` that can never be flipped, a safe under-estimate: discs connected to an
/// occupied corner along filled or own-coloured edge runs, plus discs on completely filled
/// lines in all four directions.
pub fn stable(p: u64, o: u64) -> u64 {
    let occupied = p | o;
    // Filled lines in each of the four directions.
    let mut full_h = 0u64;
    for r in 0..8 {
        let row = 0xFFu64 << (8 * r);
        if occupied & row == row {
            full_h |= row;
        }
    }
    let mut full_v = 0u64;
    for c in 0..8 {
        let col = 0x0101_0101_0101_0101u64 << c;
        if occupied & col == col {
            full_v |= col;
        }
    }
    let mut full_d1 = 0u64;
    let mut full_d2 = 0u64;
    for i in 0..15 {
        if occupied & DIAGS.0[i] == DIAGS.0[i] {
            full_d1 |= DIAGS.0[i];
        }
        if occupied & DIAGS.1[i] == DIAGS.1[i] {
            full_d2 |= DIAGS.1[i];
        }
    }
    let mut st = p & full_h & full_v & full_d1 & full_d2;
    // Grow from corners: a disc is stable if in each of the 4 line directions one neighbour is
    // stable own/edge, or the line is full.
    st |= p & CORNERS;
    if st == 0 {
        return 0;
    }
    loop {
        let east = st & 0x7F7F_7F7F_7F7F_7F7F;
        let west = st & 0xFEFE_FEFE_FEFE_FEFE;
        let horiz = (east << 1) | (west >> 1) | 0x8181_8181_8181_8181 | full_h;
        let vert = (st << 8) | (st >> 8) | 0xFF00_0000_0000_00FF | full_v;
        let diag1 = (east << 9) | (west >> 9) | 0xFF81_8181_8181_81FF | full_d1;
        let diag2 = (west << 7) | (east >> 7) | 0xFF81_8181_8181_81FF | full_d2;
        let next = st | (p & horiz & vert & diag1 & diag2);
        if next == st {
            return st;
        }
        st = next;
    }
}

/// The 15 a1-h8 diagonals and the 15 h1-a8 diagonals.
static DIAGS: ([u64; 15], [u64; 15]) = make_diags();

const fn make_diags() -> ([u64; 15], [u64; 15]) {
    let mut d1 = [0u64; 15];
    let mut d2 = [0u64; 15];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = (sq / 8, sq % 8);
        d1[r + 7 - c] |= 1 << sq;
        d2[r + c] |= 1 << sq;
        sq += 1;
    }
    (d1, d2)
}

/// Iterates over the set bits of a bitboard, lowest first, as square indices.
#[derive(Clone, Copy, Debug)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_flips(p: u64, o: u64, sq: usize) -> u64 {
        if (p | o) >> sq & 1 != 0 {
            return 0;
        }
        let mut all = 0;
        for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)] {
            let (mut r, mut c) = ((sq / 8) as i32 + dr, (sq % 8) as i32 + dc);
            let mut line = 0;
            while (0..8).contains(&r) && (0..8).contains(&c) && o >> (r * 8 + c) & 1 == 1 {
                line |= 1 << (r * 8 + c);
                r += dr;
                c += dc;
            }
            if (0..8).contains(&r) && (0..8).contains(&c) && p >> (r * 8 + c) & 1 == 1 {
                all |= line;
            }
        }
        all
    }

    #[test]
    fn flips_and_moves_match_a_naive_scan() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..3000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = x | (x >> 3);
            let mut y = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
            y ^= y >> 29;
            let p = occ & y;
            let o = occ & !y;
            let mut m = 0;
            for sq in 0..64 {
                let f = naive_flips(p, o, sq);
                if (p | o) >> sq & 1 == 0 {
                    assert_eq!(flips(p, o, sq), f, "square {sq}");
                }
                if f != 0 {
                    m |= 1 << sq;
                }
            }
            assert_eq!(moves(p, o), m);
        }
    }

    #[test]
    fn stable_discs_are_safe() {
        // A full first row of black is stable.
        assert_eq!(stable(0xFF, 0x100), 0xFF);
        assert_eq!(stable(0, 0xFF), 0);
    }
}
