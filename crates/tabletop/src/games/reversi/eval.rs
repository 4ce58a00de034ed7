//! The engine's evaluation: mobility, potential mobility, corners, X- and C-squares, stable
//! discs, parity and disc count, each weighted by game phase.
//!
//! The weights are data (`data/reversi/eval-weights.txt`, included in the build): two values
//! per feature, for the opening (60 empties) and the end (0 empties), linearly interpolated.
//! They are hand-tuned, not yet tuned by self-play.

use std::sync::OnceLock;

use super::bitboard::{adjacent, moves, stable, CORNERS};

const WEIGHTS_TEXT: &str = include_str!("../../../data/reversi/eval-weights.txt");

/// The features, in the order of the weight file.
const FEATURES: [&str; 10] = [
    "mobility",
    "corner_mobility",
    "potential_mobility",
    "corners",
    "x_squares",
    "c_squares",
    "stable",
    "edge_discs",
    "parity",
    "discs",
];

/// Weights by empties: `table[empties][feature]`.
struct Weights {
    table: [[i32; 10]; 61],
}

fn weights() -> &'static Weights {
    static W: OnceLock<Weights> = OnceLock::new();
    W.get_or_init(|| {
        let mut ends = [[0i32; 2]; 10];
        for line in WEIGHTS_TEXT.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let parts: Vec<&str> = line.split_whitespace().collect();
            let i = FEATURES.iter().position(|f| *f == parts[0]).expect("known feature in the weight file");
            ends[i] = [parts[1].parse().expect("a number"), parts[2].parse().expect("a number")];
        }
        let mut table = [[0i32; 10]; 61];
        for (e, row) in table.iter_mut().enumerate() {
            for (f, w) in row.iter_mut().enumerate() {
                *w = (ends[f][0] * e as i32 + ends[f][1] * (60 - e as i32)) / 60;
            }
        }
        Weights { table }
    })
}

/// X-squares (b2, g2, b7, g7) and the corner each belongs to.
const X_SQUARES: [(u64, u64); 4] = [(1 << 9, 1), (1 << 14, 1 << 7), (1 << 49, 1 << 56), (1 << 54, 1 << 63)];
/// C-squares (next to a corner on an edge) and their corner.
const C_SQUARES: [(u64, u64); 4] = [
    ((1 << 1) | (1 << 8), 1),
    ((1 << 6) | (1 << 15), 1 << 7),
    ((1 << 48) | (1 << 57), 1 << 56),
    ((1 << 55) | (1 << 62), 1 << 63),
];
const EDGES: u64 = 0xFF81_8181_8181_81FF;

/// The value of a position for the side to move (discs `p`) in hundredths of a disc.
///
/// ```
/// use tabletop::games::reversi::eval::evaluate;
/// let (black, white) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36));
/// assert_eq!(evaluate(black, white), evaluate(white, black)); // the start is symmetric
/// ```
pub fn evaluate(p: u64, o: u64) -> i32 {
    let empty = !(p | o);
    let empties = empty.count_ones() as usize;
    let w = &weights().table[empties.min(60)];
    let mp = moves(p, o);
    let mo = moves(o, p);
    let diff = |a: u64, b: u64| a.count_ones() as i32 - b.count_ones() as i32;
    let mut v = w[0] * diff(mp, mo) + w[1] * diff(mp & CORNERS, mo & CORNERS);
    // Potential mobility: empty squares next to the opponent's discs.
    v += w[2] * diff(adjacent(o) & empty, adjacent(p) & empty);
    v += w[3] * diff(p & CORNERS, o & CORNERS);
    let mut x = 0;
    for (sq, corner) in X_SQUARES {
        if empty & corner != 0 {
            x += (p & sq != 0) as i32 - (o & sq != 0) as i32;
        }
    }
    v += w[4] * x;
    let mut c = 0;
    for (sqs, corner) in C_SQUARES {
        if empty & corner != 0 {
            c += (p & sqs).count_ones() as i32 - (o & sqs).count_ones() as i32;
        }
    }
    v += w[5] * c;
    if (p | o) & CORNERS != 0 {
        v += w[6] * (stable(p, o).count_ones() as i32 - stable(o, p).count_ones() as i32);
    }
    v += w[7] * diff(p & EDGES, o & EDGES);
    if empties % 2 == 1 {
        v += w[8];
    }
    v + w[9] * diff(p, o)
}
