//! The engine's evaluation: mobility, potential mobility, corners, X- and C-squares, stable
//! discs, edge discs, parity and disc count, each weighted by game phase.
//!
//! The weights are data (`data/reversi/eval-weights.txt`, included in the build): one row of
//! weights per phase (a range of empties). They are fitted by least squares on positions from
//! self-play games, each labelled with an exact endgame solve (see the `tuning` module, built
//! with the `tune` feature, and `tabletop tune reversi`).

use std::sync::OnceLock;

use thiserror::Error;

use super::bitboard::{adjacent, moves, stable, CORNERS, EDGES};

const WEIGHTS_TEXT: &str = include_str!("../../../data/reversi/eval-weights.txt");

/// The number of features.
pub const FEATURE_COUNT: usize = 10;

/// The features, in the order of the weight file's columns.
pub const FEATURES: [&str; FEATURE_COUNT] = [
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

/// The largest weight a file may give, in absolute value: 100 discs per unit of a feature (the
/// fitted weights stay under 1,500). With features of at most 64, an evaluation stays far
/// inside `i32` (10 x 64 x 10,000).
pub const MAX_WEIGHT: i32 = 10_000;

/// What is wrong with a weight file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum WeightsError {
    /// The header line (`empties` and the feature names) is missing or names other features.
    #[error("line {line}: expected the header `empties {}`", FEATURES.join(" "))]
    Header {
        /// 1-based line number.
        line: usize,
    },
    /// A row is not `FROM-TO` followed by one integer per feature.
    #[error("line {line}: expected `FROM-TO` and {FEATURE_COUNT} integer weights")]
    Row {
        /// 1-based line number.
        line: usize,
    },
    /// A weight is beyond [`MAX_WEIGHT`] in absolute value.
    #[error("line {line}: weight {value} is beyond +/-{MAX_WEIGHT}")]
    Range {
        /// 1-based line number.
        line: usize,
        /// The weight.
        value: i64,
    },
    /// The rows do not cover every count of empties from 0 to 60 exactly once.
    #[error("the rows must cover empties 0 to 60 exactly once (empties {empties})")]
    Coverage {
        /// The first count of empties covered twice or not at all.
        empties: usize,
    },
}

/// Evaluation weights by phase: `row(empties)[feature]`, in hundredths of a disc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    table: [[i32; FEATURE_COUNT]; 61],
}

impl Weights {
    /// The weights built into the program.
    pub fn builtin() -> &'static Weights {
        static W: OnceLock<Weights> = OnceLock::new();
        W.get_or_init(|| Weights::parse(WEIGHTS_TEXT).expect("the built-in weight file is valid (tested)"))
    }

    /// Weights from rows, each covering the empties `from..=to`.
    pub fn from_rows(rows: &[((usize, usize), [i32; FEATURE_COUNT])]) -> Result<Weights, WeightsError> {
        let mut table = [[0; FEATURE_COUNT]; 61];
        let mut covered = [false; 61];
        for &((from, to), row) in rows {
            for e in from..=to {
                if e > 60 || covered[e] {
                    return Err(WeightsError::Coverage { empties: e });
                }
                covered[e] = true;
                table[e] = row;
            }
        }
        match covered.iter().position(|c| !c) {
            Some(e) => Err(WeightsError::Coverage { empties: e }),
            None => Ok(Weights { table }),
        }
    }

    /// Parses a weight file: `#` comments, a header `empties mobility ...`, then rows
    /// `FROM-TO w1 .. w10`.
    ///
    /// ```
    /// use tabletop::games::reversi::eval::Weights;
    /// let text = format!("empties {}\n0-60 1 2 3 4 5 6 7 8 9 10\n", tabletop::games::reversi::eval::FEATURES.join(" "));
    /// let w = Weights::parse(&text).unwrap();
    /// assert_eq!(w.row(30)[9], 10);
    /// assert!(Weights::parse("empties mobility\n").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Weights, WeightsError> {
        let mut rows = Vec::new();
        let mut header = false;
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if !header {
                if words.first() != Some(&"empties") || words[1..] != FEATURES {
                    return Err(WeightsError::Header { line: line_no });
                }
                header = true;
                continue;
            }
            let bad = WeightsError::Row { line: line_no };
            if words.len() != FEATURE_COUNT + 1 {
                return Err(bad);
            }
            let (from, to) = words[0].split_once('-').ok_or(bad.clone())?;
            let range = (from.parse().map_err(|_| bad.clone())?, to.parse().map_err(|_| bad.clone())?);
            let mut row = [0; FEATURE_COUNT];
            for (w, word) in row.iter_mut().zip(&words[1..]) {
                let value: i64 = word.parse().map_err(|_| bad.clone())?;
                if value.abs() > MAX_WEIGHT as i64 {
                    return Err(WeightsError::Range { line: line_no, value });
                }
                *w = value as i32;
            }
            rows.push((range, row));
        }
        if !header {
            return Err(WeightsError::Header { line: text.lines().count() + 1 });
        }
        Weights::from_rows(&rows)
    }

    /// The weights used with `empties` empty squares (60 for more).
    pub fn row(&self, empties: usize) -> &[i32; FEATURE_COUNT] {
        &self.table[empties.min(60)]
    }

    /// The value of a position for the side to move (`p`) under these weights.
    pub fn evaluate(&self, p: u64, o: u64) -> i32 {
        let f = features(p, o);
        let w = self.row((!(p | o)).count_ones() as usize);
        f.iter().zip(w).map(|(f, w)| f * w).sum()
    }
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

/// The features of a position, each a count for the side to move (`p`) minus the same for the
/// opponent (`parity` is 1 when the number of empties is odd).
///
/// ```
/// use tabletop::games::reversi::eval::{features, FEATURES};
/// let (black, white) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36));
/// let f = features(black, white);
/// assert_eq!(f[FEATURES.iter().position(|n| *n == "mobility").unwrap()], 0);
/// ```
#[inline]
pub fn features(p: u64, o: u64) -> [i32; FEATURE_COUNT] {
    let empty = !(p | o);
    let mp = moves(p, o);
    let mo = moves(o, p);
    let diff = |a: u64, b: u64| a.count_ones() as i32 - b.count_ones() as i32;
    let mut x = 0;
    for (sq, corner) in X_SQUARES {
        if empty & corner != 0 {
            x += (p & sq != 0) as i32 - (o & sq != 0) as i32;
        }
    }
    let mut c = 0;
    for (sqs, corner) in C_SQUARES {
        if empty & corner != 0 {
            c += (p & sqs).count_ones() as i32 - (o & sqs).count_ones() as i32;
        }
    }
    // Stable discs grow from the corners: none can exist before a corner is taken.
    let stable_diff = if (p | o) & CORNERS != 0 { diff(stable(p, o), stable(o, p)) } else { 0 };
    [
        diff(mp, mo),
        diff(mp & CORNERS, mo & CORNERS),
        // Potential mobility: empty squares next to the opponent's discs.
        diff(adjacent(o) & empty, adjacent(p) & empty),
        diff(p & CORNERS, o & CORNERS),
        x,
        c,
        stable_diff,
        diff(p & EDGES, o & EDGES),
        (empty.count_ones() % 2) as i32,
        diff(p, o),
    ]
}

/// The value of a position for the side to move (discs `p`) in hundredths of a disc, with the
/// built-in weights.
///
/// ```
/// use tabletop::games::reversi::eval::evaluate;
/// let (black, white) = ((1u64 << 35) | (1 << 28), (1u64 << 27) | (1 << 36));
/// assert_eq!(evaluate(black, white), evaluate(white, black)); // the start is symmetric
/// ```
#[inline]
pub fn evaluate(p: u64, o: u64) -> i32 {
    Weights::builtin().evaluate(p, o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_weights_parse() {
        assert!(Weights::parse(WEIGHTS_TEXT).is_ok());
    }

    #[test]
    fn bad_weight_files_are_refused_with_the_line() {
        let header = format!("empties {}\n", FEATURES.join(" "));
        assert_eq!(Weights::parse("mobility 1 2\n"), Err(WeightsError::Header { line: 1 }));
        assert_eq!(Weights::parse(&format!("{header}0-60 1 2\n")), Err(WeightsError::Row { line: 2 }));
        assert_eq!(Weights::parse(&format!("{header}0-x 1 2 3 4 5 6 7 8 9 10\n")), Err(WeightsError::Row { line: 2 }));
        assert_eq!(
            Weights::parse(&format!("{header}0-59 1 2 3 4 5 6 7 8 9 10\n")),
            Err(WeightsError::Coverage { empties: 60 })
        );
        let twice = format!("{header}0-30 1 2 3 4 5 6 7 8 9 10\n30-60 1 2 3 4 5 6 7 8 9 10\n");
        assert_eq!(Weights::parse(&twice), Err(WeightsError::Coverage { empties: 30 }));
        assert_eq!(
            Weights::parse(&format!("{header}0-60 1 2 3 4 5 6 7 8 9 10001\n")),
            Err(WeightsError::Range { line: 2, value: 10001 })
        );
        assert_eq!(
            Weights::parse(&format!("{header}0-60 1 2 3 4 5 6 7 8 9 -99999999999\n")),
            Err(WeightsError::Range { line: 2, value: -99999999999 })
        );
        assert!(Weights::parse(&format!("{header}0-60 1 2 3 4 5 6 7 8 9 -10000\n")).is_ok());
    }
}
