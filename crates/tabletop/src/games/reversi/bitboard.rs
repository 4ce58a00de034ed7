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

/// The number of discs that placing on `sq` flips when every other square is occupied: the
/// placer owns `p` and the opponent every other square. The last empty square of a game is
/// scored with this instead of [`flips`]: four line patterns and four table lookups.
///
/// ```
/// use tabletop::games::reversi::bitboard::{flips, last_flip_count};
/// // a1 empty, black owns c1 and c3, white everything else: a1 flips b1 and b2.
/// let sq = 0;
/// let black = (1 << 2) | (1 << 18);
/// let white = !black & !(1 << sq);
/// assert_eq!(last_flip_count(black, sq), 2);
/// assert_eq!(last_flip_count(black, sq), flips(black, white, sq).count_ones());
/// ```
#[inline]
pub fn last_flip_count(p: u64, sq: usize) -> u32 {
    let (row, col) = (sq / 8, sq % 8);
    let lines = &LINE_MASKS[sq];
    // Each line's discs of `p` as an 8-bit pattern: bit k is the k-th square of the line (by
    // column for rows and diagonals, by row for the column). Squares off a short diagonal read
    // as opponent discs running to the edge, so they never close a line.
    let row_bits = (p >> (8 * row)) & 0xFF;
    let col_bits = ((p >> col) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    let diag1 = (p & lines[0]).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    let diag2 = (p & lines[1]).wrapping_mul(0x0101_0101_0101_0101) >> 56;
    let counts = &LINE_FLIPS;
    (counts[col][row_bits as usize]
        + counts[row][col_bits as usize]
        + counts[col][diag1 as usize]
        + counts[col][diag2 as usize]) as u32
}

/// The two diagonals through each square: `[a1-h8 direction, h1-a8 direction]`.
static LINE_MASKS: [[u64; 2]; 64] = make_line_masks();

const fn make_line_masks() -> [[u64; 2]; 64] {
    let mut masks = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (r, c) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut other = 0i32;
        while other < 64 {
            let (r2, c2) = (other / 8, other % 8);
            if r2 - r == c2 - c {
                masks[sq][0] |= 1 << other;
            }
            if r2 - r == c - c2 {
                masks[sq][1] |= 1 << other;
            }
            other += 1;
        }
        sq += 1;
    }
    masks
}

/// `LINE_FLIPS[pos][own]`: the discs flipped along a full line of 8 by placing at `pos` when
/// `own` marks the placer's discs and every other square holds an opponent disc.
static LINE_FLIPS: [[u8; 256]; 8] = make_line_flips();

const fn make_line_flips() -> [[u8; 256]; 8] {
    let mut table = [[0u8; 256]; 8];
    let mut pos = 0;
    while pos < 8 {
        let mut own = 0;
        while own < 256 {
            let mut total = 0;
            // Towards higher positions, then towards lower ones.
            let mut i = pos + 1;
            while i < 8 && own >> i & 1 == 0 {
                i += 1;
            }
            if i < 8 {
                total += i - pos - 1;
            }
            let mut j = pos as i32 - 1;
            while j >= 0 && own >> j & 1 == 0 {
                j -= 1;
            }
            if j >= 0 {
                total += pos - j as usize - 1;
            }
            table[pos][own] = total as u8;
            own += 1;
        }
        pos += 1;
    }
    table
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

/// The squares of the board's edge (ranks 1 and 8, files a and h).
pub const EDGES: u64 = 0xFF81_8181_8181_81FF;

/// Discs of `p` that can never be flipped, a safe under-estimate: discs connected to an
/// occupied corner along filled or own-coloured edge runs, plus discs on completely filled
/// lines in all four directions.
pub fn stable(p: u64, o: u64) -> u64 {
    let [full_h, full_v, full_d1, full_d2] = full_lines(p | o);
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
        let diag1 = (east << 9) | (west >> 9) | EDGES | full_d1;
        let diag2 = (west << 7) | (east >> 7) | EDGES | full_d2;
        let next = st | (p & horiz & vert & diag1 & diag2);
        if next == st {
            return st;
        }
        st = next;
    }
}

/// The squares whose whole line is occupied, for each direction: `[horizontal, vertical,
/// a1-h8 diagonal, h1-a8 diagonal]`.
#[inline]
fn full_lines(occupied: u64) -> [u64; 4] {
    // A row is full when its 8 bits are: fold them onto the a file, then spread back.
    let mut h = occupied & (occupied >> 4);
    h &= h >> 2;
    h &= h >> 1;
    let full_h = (h & 0x0101_0101_0101_0101).wrapping_mul(0xFF);
    // A column likewise, folding the rows onto the first.
    let mut v = occupied & (occupied >> 32);
    v &= v >> 16;
    v &= v >> 8;
    let full_v = (v & 0xFF).wrapping_mul(0x0101_0101_0101_0101);
    // Diagonals: spread the empty squares along them both ways (1, 2 then 4 steps, masking the
    // files a step would wrap into); a square no empty square reaches lies on a full line.
    let empty = !occupied;
    let spread = |shift: u32, up: [u64; 3], down: [u64; 3]| {
        let mut a = empty | ((empty << shift) & up[0]);
        a |= (a << (2 * shift)) & up[1];
        a |= (a << (4 * shift)) & up[2];
        let mut b = empty | ((empty >> shift) & down[0]);
        b |= (b >> (2 * shift)) & down[1];
        b |= (b >> (4 * shift)) & down[2];
        !(a | b)
    };
    const NOT_LOW_FILES: [u64; 3] = [0xFEFE_FEFE_FEFE_FEFE, 0xFCFC_FCFC_FCFC_FCFC, 0xF0F0_F0F0_F0F0_F0F0];
    const NOT_HIGH_FILES: [u64; 3] = [0x7F7F_7F7F_7F7F_7F7F, 0x3F3F_3F3F_3F3F_3F3F, 0x0F0F_0F0F_0F0F_0F0F];
    let full_d1 = spread(9, NOT_LOW_FILES, NOT_HIGH_FILES);
    let full_d2 = spread(7, NOT_HIGH_FILES, NOT_LOW_FILES);
    [full_h, full_v, full_d1, full_d2]
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

    /// Steps a xorshift generator: varied boards, the same in every run.
    fn xorshift(x: &mut u64) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
    }

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
            xorshift(&mut x);
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
    fn runs_of_every_length_are_flipped() {
        // One disc of the mover, the opponent everywhere else: every line from `sq` is a run of
        // opponent discs of every length from 1 to 6, closed or not by the mover's disc.
        for sq in 0..64 {
            for own in (0..64).filter(|&q| q != sq) {
                let p = 1u64 << own;
                let o = !(p | 1 << sq);
                assert_eq!(flips(p, o, sq), naive_flips(p, o, sq), "square {sq}, own disc {own}");
            }
        }
    }

    #[test]
    fn last_flip_count_matches_flips_on_full_boards() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..5000 {
            xorshift(&mut x);
            let sq = (x >> 58) as usize;
            let p = x.rotate_left(17) & !(1 << sq);
            let o = !p & !(1 << sq);
            assert_eq!(last_flip_count(p, sq), flips(p, o, sq).count_ones(), "square {sq}, p {p:#x}");
            assert_eq!(last_flip_count(o, sq), flips(o, p, sq).count_ones(), "square {sq}, o {o:#x}");
        }
    }

    #[test]
    fn full_lines_match_a_naive_scan() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..3000 {
            xorshift(&mut x);
            // Mostly full boards, so that full lines occur.
            let occupied = !(x & x.rotate_left(11) & x.rotate_left(29) & if i % 3 == 0 { 0 } else { !0 });
            let mut expected = [0u64; 4];
            for sq in 0..64i32 {
                let (r, c) = (sq / 8, sq % 8);
                for (k, (dr, dc)) in [(0, 1), (1, 0), (1, 1), (1, -1)].into_iter().enumerate() {
                    let mut full = true;
                    for sign in [-1, 1] {
                        let (mut rr, mut cc) = (r, c);
                        while (0..8).contains(&rr) && (0..8).contains(&cc) {
                            full &= occupied >> (rr * 8 + cc) & 1 == 1;
                            rr += sign * dr;
                            cc += sign * dc;
                        }
                    }
                    if full {
                        expected[k] |= 1 << sq;
                    }
                }
            }
            assert_eq!(full_lines(occupied), expected, "{occupied:#x}");
        }
    }

    #[test]
    fn stable_discs_are_safe() {
        // A full first row of black is stable.
        assert_eq!(stable(0xFF, 0x100), 0xFF);
        assert_eq!(stable(0, 0xFF), 0);
    }
}
