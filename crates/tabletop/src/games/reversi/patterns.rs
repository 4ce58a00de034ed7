//! The engine's evaluation: pattern tables in the style of Logistello and Edax, learned from
//! self-play positions (see the `tuning` module, built with the `tune` feature, and
//! `tabletop tune reversi --patterns`).
//!
//! - **Patterns** ([`PATTERNS`]): rows and columns 2, 3 and 4 from an edge, the diagonals of 8
//!   to 4 squares, each edge with its two X-squares, the 3x3 corners and the 2x5 corners
//!   (both orientations): 46 instances of 11 shapes. The instances of a shape are its images
//!   under the board's symmetries, with their squares in the image's order, so that they share
//!   one table: a configuration is read as a base-3 number (0 empty, 1 the side to move's
//!   disc, 2 the opponent's), its digits in the shape's square order.
//! - **Global features**: the side to move's and the opponent's mobility (one small table
//!   each) and one value per count of empties (the side to move's tempo and parity).
//! - **Phases**: one full set of tables per [`PHASE_WIDTH`] empties.
//!
//! An evaluation reads each instance's squares with `pext` (BMI2) when the build targets it,
//! and turns the two bit strings into the base-3 index with a per-instance table.
//!
//! The weights are a binary file ([`PatternWeights::parse`]), included in the build: a header
//! naming the pattern set ([`PATTERN_SET`]) and the sizes, and a checksum of the weights.

use std::sync::OnceLock;

use thiserror::Error;

use super::bitboard::moves;
use super::symmetry::transform;

const BUILTIN: &[u8] = include_bytes!("../../../data/reversi/eval-patterns.bin");

/// The name of the pattern set the weight files must be made for: a file for another set (or
/// another order of tables) is refused.
pub const PATTERN_SET: &str =
    "tabletop-reversi-patterns/1: hv2 hv3 hv4 d8 d7 d6 d5 d4 edge2x c3x3 c2x5 mob omob empties";

/// The first bytes of a pattern weight file.
pub const MAGIC: &[u8; 8] = b"TTRVPATW";

/// Empties per phase: phase `e / PHASE_WIDTH` for `e` empties (60 counts as 59).
pub const PHASE_WIDTH: usize = 4;

/// The number of phases.
pub const PHASES: usize = 60 / PHASE_WIDTH;

/// The phase of a position with `empties` empty squares.
///
/// ```
/// use tabletop::games::reversi::patterns::{phase, PHASES};
/// assert_eq!(phase(0), 0);
/// assert_eq!(phase(60), PHASES - 1);
/// ```
#[inline]
pub fn phase(empties: u32) -> usize {
    (empties as usize).min(59) / PHASE_WIDTH
}

const fn sq(name: &str) -> u8 {
    let b = name.as_bytes();
    (b[1] - b'1') * 8 + (b[0] - b'a')
}

/// A shape: its name and its squares, in the order of the base-3 digits (the first the
/// lowest).
pub struct Pattern {
    /// The shape's name.
    pub name: &'static str,
    /// Its squares (0 = a1, 7 = h1, 63 = h8) in digit order.
    pub squares: &'static [u8],
}

macro_rules! squares {
    ($($s:literal)*) => { &[$(sq($s)),*] };
}

/// The pattern shapes, in the order of their tables in a weight file.
pub const PATTERNS: [Pattern; 11] = [
    Pattern { name: "hv2", squares: squares!("a2" "b2" "c2" "d2" "e2" "f2" "g2" "h2") },
    Pattern { name: "hv3", squares: squares!("a3" "b3" "c3" "d3" "e3" "f3" "g3" "h3") },
    Pattern { name: "hv4", squares: squares!("a4" "b4" "c4" "d4" "e4" "f4" "g4" "h4") },
    Pattern { name: "d8", squares: squares!("a1" "b2" "c3" "d4" "e5" "f6" "g7" "h8") },
    Pattern { name: "d7", squares: squares!("b1" "c2" "d3" "e4" "f5" "g6" "h7") },
    Pattern { name: "d6", squares: squares!("c1" "d2" "e3" "f4" "g5" "h6") },
    Pattern { name: "d5", squares: squares!("d1" "e2" "f3" "g4" "h5") },
    Pattern { name: "d4", squares: squares!("e1" "f2" "g3" "h4") },
    Pattern { name: "edge2x", squares: squares!("b2" "a1" "b1" "c1" "d1" "e1" "f1" "g1" "h1" "g2") },
    Pattern { name: "c3x3", squares: squares!("a1" "b1" "a2" "b2" "c1" "a3" "c2" "b3" "c3") },
    Pattern { name: "c2x5", squares: squares!("a1" "b1" "c1" "d1" "e1" "a2" "b2" "c2" "d2" "e2") },
];

/// Mobility is counted up to this (more counts as this).
const MAX_MOBILITY: usize = 31;

/// How many distinct images under the board's symmetries each shape of [`PATTERNS`] has
/// (its instances), in order.
const IMAGES: [usize; PATTERNS.len()] = [4, 4, 4, 2, 4, 4, 4, 4, 4, 4, 8];

/// Each instance's table offset within a phase, known when compiling so that the evaluation
/// reads each weight with one load at a constant displacement (about a third fewer
/// instructions per evaluation than offsets read from the layout). [`Layout::build`] checks
/// it against the layout it computes.
const INSTANCE_OFFSETS: [u32; INSTANCES] = {
    let mut out = [0u32; INSTANCES];
    let (mut shape, mut i, mut offset) = (0, 0, 0usize);
    while shape < PATTERNS.len() {
        let mut k = 0;
        while k < IMAGES[shape] {
            out[i] = offset as u32;
            i += 1;
            k += 1;
        }
        offset += 3usize.pow(PATTERNS[shape].squares.len() as u32);
        shape += 1;
    }
    out
};

/// The number of weights per phase: the shapes' tables (the last instance's shape ends
/// them), both mobilities and the empties.
const PHASE_SIZE: usize = INSTANCE_OFFSETS[INSTANCES - 1] as usize
    + 3usize.pow(PATTERNS[PATTERNS.len() - 1].squares.len() as u32)
    + 2 * (MAX_MOBILITY + 1)
    + 61;

/// The most squares of a shape.
const MAX_SQUARES: usize = 10;

/// The square `q` under symmetry `s`, as [`transform`] maps a single disc.
const fn image_square(q: u8, s: usize) -> u8 {
    let (mut row, mut file) = (q / 8, q % 8);
    if s & 4 != 0 {
        let t = row;
        row = file;
        file = t;
    }
    if s & 1 != 0 {
        file = 7 - file;
    }
    if s & 2 != 0 {
        row = 7 - row;
    }
    row * 8 + file
}

/// Every instance's mask and, for each bit of a `pext` of that mask (the lowest square first),
/// the power of 3 of its digit: the instances of [`Layout::build`], in its order, computed
/// when compiling so that [`PatternWeights::evaluate`] reads each instance with a constant
/// mask ([`Layout::build`] checks that the two agree).
const INSTANCE_DIGITS: ([u64; INSTANCES], [[u16; MAX_SQUARES]; INSTANCES]) = {
    let mut masks = [0u64; INSTANCES];
    let mut digits = [[0u16; MAX_SQUARES]; INSTANCES];
    let (mut shape, mut i) = (0, 0);
    while shape < PATTERNS.len() {
        let squares = PATTERNS[shape].squares;
        let first = i;
        let mut s = 0;
        while s < 8 {
            let mut mask = 0u64;
            let mut k = 0;
            while k < squares.len() {
                mask |= 1 << image_square(squares[k], s);
                k += 1;
            }
            let mut seen = false;
            let mut j = first;
            while j < i {
                seen |= masks[j] == mask;
                j += 1;
            }
            if !seen {
                masks[i] = mask;
                // Bit `b` of the `pext` is the `b`-th lowest square of the mask; its digit is
                // the place of that square in the image's order.
                let mut b = 0;
                let mut sq = 0;
                while sq < 64 {
                    if mask >> sq & 1 == 1 {
                        let mut k = 0;
                        while image_square(squares[k], s) != sq as u8 {
                            k += 1;
                        }
                        digits[i][b] = 3u16.pow(k as u32);
                        b += 1;
                    }
                    sq += 1;
                }
                i += 1;
            }
            s += 1;
        }
        shape += 1;
    }
    assert!(i == INSTANCES, "the images of the shapes are the instances");
    (masks, digits)
};

/// Where each instance's table of base-3 values starts in [`TERNARY`] (instances whose
/// squares are read in the same order share one), and the tables' total length.
const TERNARY_OFFSETS: ([u32; INSTANCES], usize) = {
    let (masks, digits) = INSTANCE_DIGITS;
    let mut offsets = [0u32; INSTANCES];
    let mut len = 0usize;
    let mut i = 0;
    while i < INSTANCES {
        let n = masks[i].count_ones();
        let mut shared = INSTANCES;
        let mut j = 0;
        while j < i && shared == INSTANCES {
            let mut same = masks[j].count_ones() == n;
            let mut b = 0;
            while b < MAX_SQUARES {
                same &= digits[j][b] == digits[i][b];
                b += 1;
            }
            if same {
                shared = j;
            }
            j += 1;
        }
        if shared < INSTANCES {
            offsets[i] = offsets[shared];
        } else {
            offsets[i] = len as u32;
            len += 1 << n;
        }
        i += 1;
    }
    (offsets, len)
};

/// For each instance, for each bit string its `pext` can give, the base-3 value of those
/// squares (the side's discs as digits 1); at [`TERNARY_OFFSETS`].
static TERNARY: [u16; TERNARY_OFFSETS.1] = {
    let (masks, digits) = INSTANCE_DIGITS;
    let mut table = [0u16; TERNARY_OFFSETS.1];
    let mut i = 0;
    while i < INSTANCES {
        let n = masks[i].count_ones() as usize;
        let start = TERNARY_OFFSETS.0[i] as usize;
        let mut bits = 0;
        while bits < 1 << n {
            let mut value = 0u16;
            let mut b = 0;
            while b < n {
                if bits >> b & 1 == 1 {
                    value += digits[i][b];
                }
                b += 1;
            }
            table[start + bits] = value;
            bits += 1;
        }
        i += 1;
    }
    table
};

/// Where the side to move's mobility weights start in a phase.
const MOBILITY: usize = PHASE_SIZE - 2 * (MAX_MOBILITY + 1) - 61;
/// Where the opponent's mobility weights start in a phase.
const OPPONENT_MOBILITY: usize = MOBILITY + MAX_MOBILITY + 1;
/// Where the weights by empties start in a phase.
const EMPTIES: usize = OPPONENT_MOBILITY + MAX_MOBILITY + 1;

/// One instance of a shape on the board.
#[derive(Clone, Debug)]
struct Instance {
    /// Its squares as a mask (`pext` reads them in increasing order).
    mask: u64,
    /// Where its base-3 index table starts in [`TERNARY`].
    ternary: usize,
    /// Where its shape's table starts in a phase's weights.
    offset: usize,
    /// Its shape (index in [`PATTERNS`]).
    shape: usize,
    /// Its squares in digit order (the first the lowest base-3 digit).
    squares: Vec<u8>,
}

/// Where everything lives in a phase's weights, and the tables that index them.
#[derive(Clone, Debug)]
pub struct Layout {
    instances: Vec<Instance>,
    /// Start of each shape's table.
    shape_offsets: Vec<usize>,
    mobility: usize,
    opponent_mobility: usize,
    empties: usize,
    /// Weights per phase.
    size: usize,
    /// For each shape, each configuration's representative among the configurations the
    /// shape's own symmetries map it to (the least index): they share one weight.
    canonical: Vec<Vec<u32>>,
    /// For each square, its digit's weight (a power of 3) in every instance (0 where it is
    /// not one of the instance's squares), for [`Indices`]: a move adds and subtracts whole
    /// rows, which the compiler turns into a few vector instructions.
    by_square: Box<[[u16; LANES]; 64]>,
}

/// The number of pattern instances.
pub const INSTANCES: usize = 46;
/// [`INSTANCES`] rounded up to whole 256-bit vectors of `u16`.
const LANES: usize = 48;

/// The base-3 index of every pattern instance of a position, from both sides' points of view,
/// kept up to date move by move ([`Indices::play`]) instead of read from the board at each
/// evaluation ([`PatternWeights::evaluate_indices`]): a move changes only the instances of
/// the placed and flipped squares, about 25 of 92 numbers.
///
/// ```
/// use tabletop::games::reversi::bitboard::flips;
/// use tabletop::games::reversi::patterns::{Indices, PatternWeights};
/// let w = PatternWeights::builtin();
/// let (p, o) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36)); // black, white
/// let f = flips(p, o, 19); // d3
/// let child = Indices::new(p, o).play(19, f);
/// let (np, no) = (o & !f, p | f | (1 << 19)); // white to move
/// assert_eq!(child, Indices::new(np, no));
/// assert_eq!(w.evaluate_indices(&child, np, no), w.evaluate(np, no));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Indices {
    /// Digits 1 for the side to move's discs, 2 for the opponent's.
    mine: [u16; LANES],
    /// Digits 1 for the opponent's discs, 2 for the side to move's.
    theirs: [u16; LANES],
}

impl Indices {
    /// The indices of the position with `p` to move against `o`.
    pub fn new(p: u64, o: u64) -> Indices {
        let o = o & !p;
        let layout = Layout::get();
        let mut mine = [0u16; LANES];
        let mut theirs = [0u16; LANES];
        for (i, inst) in layout.instances.iter().enumerate() {
            let (a, b) = (pext(p, inst.mask) as usize, pext(o, inst.mask) as usize);
            let t = &TERNARY[inst.ternary..];
            mine[i] = t[a] + 2 * t[b];
            theirs[i] = t[b] + 2 * t[a];
        }
        Indices { mine, theirs }
    }

    /// The indices after the side to move places a disc on `square` and turns `flipped`: the
    /// opponent is then to move (the two points of view swap).
    #[inline(always)]
    pub fn play(&self, square: usize, flipped: u64) -> Indices {
        let rows = &Layout::get().by_square;
        let mut turned = [0u16; LANES];
        let mut f = flipped;
        while f != 0 {
            let row = &rows[f.trailing_zeros() as usize];
            f &= f - 1;
            for k in 0..LANES {
                turned[k] = turned[k].wrapping_add(row[k]);
            }
        }
        let placed = &rows[square & 63];
        let (mut mine, mut theirs) = ([0u16; LANES], [0u16; LANES]);
        for k in 0..LANES {
            // The placed square, empty, becomes the mover's: digit 1 in its view, 2 in the
            // other; a turned disc goes from 2 to 1 in the mover's view, 1 to 2 in the other.
            mine[k] = self.mine[k].wrapping_add(placed[k]).wrapping_sub(turned[k]);
            theirs[k] = self.theirs[k].wrapping_add(placed[k].wrapping_mul(2)).wrapping_add(turned[k]);
        }
        // The opponent is to move: the views swap.
        Indices { mine: theirs, theirs: mine }
    }

    /// The same position with the other side to move (a pass).
    #[inline]
    pub fn pass(&self) -> Indices {
        Indices { mine: self.theirs, theirs: self.mine }
    }
}

fn pow3(n: usize) -> usize {
    3usize.pow(n as u32)
}

impl Layout {
    /// The layout of [`PATTERN_SET`].
    pub fn get() -> &'static Layout {
        static L: OnceLock<Layout> = OnceLock::new();
        L.get_or_init(Layout::build)
    }

    fn build() -> Layout {
        let mut instances = Vec::new();
        let mut shape_offsets = Vec::new();
        let mut canonical = Vec::new();
        let mut offset = 0;
        for (shape, pattern) in PATTERNS.iter().enumerate() {
            let n = pattern.squares.len();
            shape_offsets.push(offset);
            let image = |s: usize| -> Vec<u8> {
                pattern.squares.iter().map(|&q| transform(1u64 << q, s).trailing_zeros() as u8).collect()
            };
            let mask_of = |squares: &[u8]| squares.iter().fold(0u64, |m, &q| m | 1 << q);
            let own_mask = mask_of(pattern.squares);
            let mut seen = Vec::new();
            // The shape's own symmetries, as permutations of its digits.
            let mut perms: Vec<Vec<usize>> = Vec::new();
            for s in 0..8 {
                let squares = image(s);
                let mask = mask_of(&squares);
                if mask == own_mask {
                    perms.push(
                        squares.iter().map(|q| pattern.squares.iter().position(|x| x == q).unwrap_or(0)).collect(),
                    );
                }
                if seen.contains(&mask) {
                    continue;
                }
                seen.push(mask);
                // Bit j of a `pext` result is the j-th lowest square of the mask.
                let mut sorted = squares.clone();
                sorted.sort_unstable();
                let digit: Vec<u32> =
                    sorted.iter().map(|q| 3u32.pow(squares.iter().position(|x| x == q).unwrap_or(0) as u32)).collect();
                let table: Vec<u32> = (0..1usize << n)
                    .map(|bits| (0..n).filter(|j| bits >> j & 1 == 1).map(|j| digit[j]).sum())
                    .collect();
                // The compile-time table must read the squares as this one does.
                let i = instances.len();
                let start = TERNARY_OFFSETS.0.get(i).map_or(usize::MAX, |&t| t as usize);
                assert!(
                    TERNARY.get(start..start + table.len()).is_some_and(|t| t.iter().map(|&v| v as u32).eq(table)),
                    "instance {i}'s base-3 table"
                );
                instances.push(Instance { mask, ternary: start, offset, shape, squares: squares.clone() });
            }
            let size = pow3(n);
            let canon: Vec<u32> = (0..size)
                .map(|idx| {
                    let digits: Vec<usize> = (0..n).map(|k| idx / pow3(k) % 3).collect();
                    perms
                        .iter()
                        .map(|perm| {
                            // Digit k of the instance's square perm[k]... read in the image's order.
                            (0..n).map(|k| digits[perm[k]] * pow3(k)).sum::<usize>() as u32
                        })
                        .min()
                        .unwrap_or(idx as u32)
                })
                .collect();
            canonical.push(canon);
            offset += size;
        }
        let mobility = offset;
        let opponent_mobility = mobility + MAX_MOBILITY + 1;
        let empties = opponent_mobility + MAX_MOBILITY + 1;
        let size = empties + 61;
        assert_eq!(instances.len(), INSTANCES, "the pattern set's instance count");
        assert_eq!(size, PHASE_SIZE, "the weights per phase");
        assert_eq!(mobility, PHASE_SIZE - 2 * (MAX_MOBILITY + 1) - 61, "the mobility weights' offset");
        let mut by_square = Box::new([[0u16; LANES]; 64]);
        for (i, inst) in instances.iter().enumerate() {
            assert_eq!(inst.offset, INSTANCE_OFFSETS[i] as usize, "instance {i}'s offset");
            assert_eq!(inst.mask, INSTANCE_DIGITS.0[i], "instance {i}'s mask");
            for (k, &q) in inst.squares.iter().enumerate() {
                by_square[q as usize][i] = pow3(k) as u16;
            }
        }
        Layout {
            instances,
            shape_offsets,
            mobility,
            opponent_mobility,
            empties,
            size,
            canonical,
            by_square,
        }
    }

    /// The number of pattern instances on the board.
    ///
    /// ```
    /// use tabletop::games::reversi::patterns::Layout;
    /// assert_eq!(Layout::get().instances(), 46);
    /// ```
    pub fn instances(&self) -> usize {
        self.instances.len()
    }

    /// Weights per phase.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The weight indices a position uses, each once: one per pattern instance, its mobility,
    /// its opponent's mobility and its empties. With `canonical`, configurations that a
    /// shape's own symmetry maps onto each other give the same index (as the fit needs).
    ///
    /// ```
    /// use tabletop::games::reversi::patterns::Layout;
    /// let layout = Layout::get();
    /// let (p, o) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36));
    /// let mut indices = Vec::new();
    /// layout.features(p, o, false, &mut indices);
    /// assert_eq!(indices.len(), layout.instances() + 3);
    /// assert!(indices.iter().all(|&i| (i as usize) < layout.size()));
    /// ```
    pub fn features(&self, p: u64, o: u64, canonical: bool, out: &mut Vec<u32>) {
        // A square cannot hold both colours; overlapping bits would index past the tables.
        let o = o & !p;
        out.clear();
        for inst in &self.instances {
            let local = u32::from(TERNARY[inst.ternary + pext(p, inst.mask) as usize])
                + 2 * u32::from(TERNARY[inst.ternary + pext(o, inst.mask) as usize]);
            let local = if canonical { self.canonical[inst.shape][local as usize] } else { local };
            out.push(inst.offset as u32 + local);
        }
        let (mp, mo) = mobilities(p, o);
        out.push((self.mobility + mp) as u32);
        out.push((self.opponent_mobility + mo) as u32);
        // Positions with more than 60 empties (not reachable in play) count as 60.
        out.push((self.empties + (64 - (p | o).count_ones() as usize).min(60)) as u32);
    }

    /// Gives every configuration the weight of its representative (after a fit on
    /// representatives only).
    pub fn spread_canonical(&self, weights: &mut [f64]) {
        for (shape, canon) in self.canonical.iter().enumerate() {
            let base = self.shape_offsets[shape];
            for (idx, &c) in canon.iter().enumerate() {
                weights[base + idx] = weights[base + c as usize];
            }
        }
    }
}

#[inline]
fn mobilities(p: u64, o: u64) -> (usize, usize) {
    ((moves(p, o).count_ones() as usize).min(MAX_MOBILITY), (moves(o, p).count_ones() as usize).min(MAX_MOBILITY))
}

/// The bits of `x` under `mask`, packed into the low bits in increasing order.
///
/// ```
/// use tabletop::games::reversi::patterns::pext;
/// assert_eq!(pext(0b1011_0100, 0b1111_0000), 0b1011);
/// assert_eq!(pext(u64::MAX, 0x8000_0000_0000_0001), 0b11);
/// ```
#[inline]
pub fn pext(x: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the build targets BMI2 (`target_feature = "bmi2"`), so the instruction exists.
        unsafe { std::arch::x86_64::_pext_u64(x, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let (mut m, mut out, mut bit) = (mask, 0u64, 0);
        while m != 0 {
            let low = m & m.wrapping_neg();
            if x & low != 0 {
                out |= 1 << bit;
            }
            bit += 1;
            m ^= low;
        }
        out
    }
}

/// What is wrong with a pattern weight file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PatternWeightsError {
    /// The file does not start with [`MAGIC`] and a complete header.
    #[error("not a Reversi pattern weight file (it must start with \"TTRVPATW\" and a header)")]
    Magic,
    /// The file was made for another pattern set.
    #[error("the weights are for the pattern set {found:?}; this program uses {PATTERN_SET:?}")]
    PatternSet {
        /// The set the file names.
        found: String,
    },
    /// The phases or table sizes differ from this program's.
    #[error("the file has {phases} phases of {size} weights; this program needs {expected_phases} of {expected_size}")]
    Sizes {
        /// Phases in the file.
        phases: u64,
        /// Weights per phase in the file.
        size: u64,
        /// Phases needed.
        expected_phases: usize,
        /// Weights per phase needed.
        expected_size: usize,
    },
    /// The file is shorter or longer than its header says.
    #[error("the file holds {found} bytes of weights; its header announces {expected}")]
    Length {
        /// Bytes announced.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The weights do not match the checksum in the header.
    #[error("checksum mismatch: the header says {expected:016x}, the weights give {found:016x} (a damaged file)")]
    Checksum {
        /// The header's checksum.
        expected: u64,
        /// The weights' checksum.
        found: u64,
    },
}

/// FNV-1a, 64 bits: the weight files' checksum.
///
/// ```
/// use tabletop::games::reversi::patterns::fnv1a;
/// assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
/// assert_ne!(fnv1a(b"a"), fnv1a(b"b"));
/// ```
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Pattern weights for every phase, in hundredths of a disc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternWeights {
    weights: Vec<i16>,
}

impl PatternWeights {
    /// The weights built into the program.
    pub fn builtin() -> &'static PatternWeights {
        static W: OnceLock<PatternWeights> = OnceLock::new();
        W.get_or_init(|| PatternWeights::parse(BUILTIN).expect("the built-in pattern weights are valid (tested)"))
    }

    /// Weights from one vector per phase (each [`Layout::size`] long; `None` if not).
    ///
    /// ```
    /// use tabletop::games::reversi::patterns::{Layout, PatternWeights, PHASES};
    /// let zero = vec![vec![0i16; Layout::get().size()]; PHASES];
    /// let w = PatternWeights::from_phases(&zero).unwrap();
    /// assert_eq!(w.evaluate(1, 2), 0);
    /// assert_eq!(PatternWeights::parse(&w.to_bytes()).unwrap(), w);
    /// ```
    pub fn from_phases(phases: &[Vec<i16>]) -> Option<PatternWeights> {
        let size = Layout::get().size();
        if phases.len() != PHASES || phases.iter().any(|p| p.len() != size) {
            return None;
        }
        Some(PatternWeights { weights: phases.concat() })
    }

    /// The weight file: [`MAGIC`], the set's name (u16 length, then UTF-8), the phases and the
    /// weights per phase (u32 each), the FNV-1a checksum of the weights (u64), then the
    /// weights (i16), all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload: Vec<u8> = self.weights.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut out = Vec::with_capacity(payload.len() + 256);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(PATTERN_SET.len() as u16).to_le_bytes());
        out.extend_from_slice(PATTERN_SET.as_bytes());
        out.extend_from_slice(&(PHASES as u32).to_le_bytes());
        out.extend_from_slice(&(Layout::get().size() as u32).to_le_bytes());
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Reads a weight file, refusing one for another pattern set, of other sizes, of the
    /// wrong length or with a wrong checksum.
    pub fn parse(bytes: &[u8]) -> Result<PatternWeights, PatternWeightsError> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], PatternWeightsError> {
            let end = at.checked_add(n).filter(|&e| e <= bytes.len()).ok_or(PatternWeightsError::Magic)?;
            let slice = &bytes[at..end];
            at = end;
            Ok(slice)
        };
        if take(8)? != MAGIC {
            return Err(PatternWeightsError::Magic);
        }
        let name_len = u16::from_le_bytes([take(1)?[0], take(1)?[0]]) as usize;
        let name = String::from_utf8_lossy(take(name_len)?).into_owned();
        if name != PATTERN_SET {
            return Err(PatternWeightsError::PatternSet { found: name });
        }
        let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64;
        let phases = u32_at(take(4)?);
        let size = u32_at(take(4)?);
        let expected_size = Layout::get().size();
        if phases != PHASES as u64 || size != expected_size as u64 {
            return Err(PatternWeightsError::Sizes { phases, size, expected_phases: PHASES, expected_size });
        }
        let mut sum = [0u8; 8];
        sum.copy_from_slice(take(8)?);
        let expected = u64::from_le_bytes(sum);
        let header = 8 + 2 + name_len + 16;
        let payload = &bytes[header..];
        let wanted = (PHASES * expected_size * 2) as u64;
        if payload.len() as u64 != wanted {
            return Err(PatternWeightsError::Length { expected: wanted, found: payload.len() as u64 });
        }
        let found = fnv1a(payload);
        if found != expected {
            return Err(PatternWeightsError::Checksum { expected, found });
        }
        let weights = payload.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
        Ok(PatternWeights { weights })
    }

    /// The weights of a phase.
    pub fn phase(&self, phase: usize) -> &[i16] {
        let size = Layout::get().size();
        let phase = phase.min(PHASES - 1);
        &self.weights[phase * size..(phase + 1) * size]
    }

    /// The value of a position for the side to move (`p`) in hundredths of a disc, within
    /// +/-64 discs.
    ///
    /// ```
    /// use tabletop::games::reversi::patterns::PatternWeights;
    /// let w = PatternWeights::builtin();
    /// let (black, white) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36));
    /// assert_eq!(w.evaluate(black, white), w.evaluate(white, black)); // the start is symmetric
    /// ```
    #[inline]
    pub fn evaluate(&self, p: u64, o: u64) -> i32 {
        // A square cannot hold both colours; overlapping bits would index past the tables.
        let o = o & !p;
        let empties = 64 - (p | o).count_ones();
        let start = phase(empties).min(PHASES - 1) * PHASE_SIZE;
        let w: &[i16; PHASE_SIZE] = self.weights[start..start + PHASE_SIZE].try_into().expect("PHASE_SIZE weights");
        // Written out term by term, like `evaluate_with_moves`: each mask, table and weight
        // offset is a constant. Masking a `pext` by its width and taking the `min` never change
        // a value; they let the compiler drop the bounds checks.
        macro_rules! weights {
            ($($i:literal)*) => {
                0i32 $(+ {
                    const MASK: u64 = INSTANCE_DIGITS.0[$i];
                    const WIDTH: u64 = (1 << MASK.count_ones()) - 1;
                    const TABLE: usize = TERNARY_OFFSETS.0[$i] as usize;
                    let mine = TERNARY[TABLE + (pext(p, MASK) & WIDTH) as usize] as usize;
                    let theirs = TERNARY[TABLE + (pext(o, MASK) & WIDTH) as usize] as usize;
                    let index = (mine + 2 * theirs).min(PHASE_SIZE - 1 - INSTANCE_OFFSETS[$i] as usize);
                    w[INSTANCE_OFFSETS[$i] as usize + index] as i32
                })*
            };
        }
        let mut sum = weights!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45);
        const _: () = assert!(INSTANCES == 46, "the terms above list every instance");
        let (mp, mo) = mobilities(p, o);
        sum += w[MOBILITY + mp] as i32 + w[OPPONENT_MOBILITY + mo] as i32;
        sum += w[EMPTIES + (empties as usize).min(60)] as i32;
        sum.clamp(-6400, 6400)
    }
}

impl PatternWeights {
    /// [`PatternWeights::evaluate`] of the position `p` to move against `o` whose pattern
    /// indices are `indices` (kept by [`Indices::play`]): the same value, without reading the
    /// patterns from the board.
    #[inline]
    pub fn evaluate_indices(&self, indices: &Indices, p: u64, o: u64) -> i32 {
        self.evaluate_with_moves(indices, p, o, moves(p, o))
    }

    /// [`PatternWeights::evaluate_indices`] given the side to move's moves `m` (the search
    /// has them already).
    #[inline]
    pub fn evaluate_with_moves(&self, indices: &Indices, p: u64, o: u64, m: u64) -> i32 {
        let empties = 64 - (p | o).count_ones();
        let start = phase(empties).min(PHASES - 1) * PHASE_SIZE;
        let w: &[i16; PHASE_SIZE] = self.weights[start..start + PHASE_SIZE].try_into().expect("PHASE_SIZE weights");
        let ix = &indices.mine;
        // Written out term by term (the compiler does not unroll a loop of 46), so that each
        // offset is a constant displacement. An index is below its shape's size, so the `min`
        // never changes it; it lets the compiler drop the bounds checks (it already knows a
        // `u16` fits below all but the last shape's end), which otherwise made it keep every
        // term on the stack until all checks had passed.
        macro_rules! weights {
            ($($i:literal)*) => {
                0i32 $(+ w[INSTANCE_OFFSETS[$i] as usize
                    + (ix[$i] as usize).min(PHASE_SIZE - 1 - INSTANCE_OFFSETS[$i] as usize)] as i32)*
            };
        }
        let mut sum = weights!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45);
        const _: () = assert!(INSTANCES == 46, "the terms above list every instance");
        let (mp, mo) = ((m.count_ones() as usize).min(MAX_MOBILITY), (moves(o, p).count_ones() as usize).min(MAX_MOBILITY));
        sum += w[MOBILITY + mp] as i32 + w[OPPONENT_MOBILITY + mo] as i32;
        sum += w[EMPTIES + (empties as usize).min(60)] as i32;
        sum.clamp(-6400, 6400)
    }
}

/// The value of a position for the side to move with the built-in pattern weights, in
/// hundredths of a disc.
#[inline]
pub fn evaluate(p: u64, o: u64) -> i32 {
    PatternWeights::builtin().evaluate(p, o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_has_46_instances_and_every_square_of_the_edges() {
        let layout = Layout::get();
        assert_eq!(layout.instances(), 46);
        let all = layout.instances.iter().fold(0u64, |m, i| m | i.mask);
        assert_eq!(all, u64::MAX);
    }

    #[test]
    fn symmetric_positions_use_the_same_weights() {
        // Every image of a position reads the same multiset of shape configurations.
        let layout = Layout::get();
        let (p, o) = (0x0000_1038_0c04_0000u64, 0x0000_2800_3018_0000u64);
        let mut base = Vec::new();
        layout.features(p, o, true, &mut base);
        base.sort_unstable();
        for s in 1..8 {
            let mut f = Vec::new();
            layout.features(transform(p, s), transform(o, s), true, &mut f);
            f.sort_unstable();
            assert_eq!(f, base, "symmetry {s}");
        }
    }

    #[test]
    fn indices_kept_move_by_move_match_a_fresh_reading_and_evaluate_alike() {
        use super::super::bitboard::{flips, Bits};
        let w = PatternWeights::builtin();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            let (mut p, mut o) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36));
            let mut ix = Indices::new(p, o);
            loop {
                assert_eq!(ix, Indices::new(p, o));
                assert_eq!(w.evaluate_indices(&ix, p, o), w.evaluate(p, o));
                let m = moves(p, o);
                if m == 0 {
                    if moves(o, p) == 0 {
                        break;
                    }
                    (p, o, ix) = (o, p, ix.pass());
                    continue;
                }
                // A seeded choice among the moves (a linear congruential generator).
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let sq = Bits(m).nth((x >> 33) as usize % m.count_ones() as usize).unwrap_or(0);
                let f = flips(p, o, sq);
                ix = ix.play(sq, f);
                (p, o) = (o & !f, p | f | (1 << sq));
            }
        }
    }

    #[test]
    fn pext_matches_the_portable_loop() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..100 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mask = x.rotate_left(17) & x.rotate_left(5);
            let mut expected = 0u64;
            let mut bit = 0;
            for i in 0..64 {
                if mask >> i & 1 == 1 {
                    expected |= (x >> i & 1) << bit;
                    bit += 1;
                }
            }
            assert_eq!(pext(x, mask), expected);
        }
    }

    #[test]
    fn any_pair_of_bitboards_is_evaluated_without_panicking() {
        let w = PatternWeights::builtin();
        for (p, o) in [
            (0, 0),
            (1, 2),
            (u64::MAX, 0),
            (0, u64::MAX),
            (u64::MAX, u64::MAX),
            (0xAAAA_AAAA_AAAA_AAAA, 0x5555_5555_5555_5555),
        ] {
            assert!(w.evaluate(p, o).abs() <= 6400);
        }
    }

    #[test]
    fn the_builtin_weights_load() {
        assert!(PatternWeights::parse(BUILTIN).is_ok());
    }

    #[test]
    fn damaged_or_foreign_files_are_refused() {
        let good = PatternWeights::builtin().to_bytes();
        assert_eq!(PatternWeights::parse(&good).as_ref(), Ok(PatternWeights::builtin()));
        let mut flipped = good.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(matches!(PatternWeights::parse(&flipped), Err(PatternWeightsError::Checksum { .. })));
        assert_eq!(
            PatternWeights::parse(&good[..good.len() - 2])
                .err()
                .map(|e| matches!(e, PatternWeightsError::Length { .. })),
            Some(true)
        );
        assert_eq!(PatternWeights::parse(b"TTRVPAT"), Err(PatternWeightsError::Magic));
        assert_eq!(PatternWeights::parse(b"nonsense and more nonsense"), Err(PatternWeightsError::Magic));
        let mut other = good.clone();
        other[10] = b'X';
        assert!(matches!(PatternWeights::parse(&other), Err(PatternWeightsError::PatternSet { .. })));
        let mut sizes = good;
        let at = 8 + 2 + PATTERN_SET.len();
        sizes[at] = 3;
        assert!(matches!(PatternWeights::parse(&sizes), Err(PatternWeightsError::Sizes { phases: 3, .. })));
    }
}
