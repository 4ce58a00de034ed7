//! Slide's analysis: exact on 3x3 and 4x4 (the solver, no clock), the generic search at one
//! depth elsewhere; a position is analysed through its canonical image under the board's 8
//! symmetries, so a position and its images get identical values on mapped moves.

use crate::analysis::{search_one, sorted, Analysis, AnalysisSettings, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;
use crate::search::{NoOrdering, Options, Search};

use super::players::SlideEvaluation;
use super::solver::{is_solvable, SlideSolver, SlideValue};
use super::{Slide, SlideMove};

/// The calibration of the generic search on Slide (`cargo test --release -p tabletop --lib
/// slide_calibration -- --ignored --nocapture`, the 2-core development machine under the load
/// of other builds, 2026-11-27): the seconds per move at depth `d` are about
/// `SEARCH_BASE * g^d` with the growth `g` = a fifth of the legal moves (at least 2). Measured
/// per move: 6x6 with 30 moves 2.1 ms at depth 5, 20 ms at 6, 68 ms at 7; 8x8 with 54 moves
/// 3 ms at 4, 19 ms at 5, 0.31 s at 6; 5x5 with 21 moves 15 ms at 7.
const SEARCH_BASE: f64 = 5.0e-7;

/// The square `(r, c)` of an `n` x `n` board under symmetry `s` (0..8, 0 the identity).
fn map_square(s: usize, r: usize, c: usize, n: usize) -> (usize, usize) {
    match s {
        0 => (r, c),
        1 => (c, n - 1 - r),
        2 => (n - 1 - r, n - 1 - c),
        3 => (n - 1 - c, r),
        4 => (c, r),
        5 => (r, n - 1 - c),
        6 => (n - 1 - c, n - 1 - r),
        _ => (n - 1 - r, c),
    }
}

/// A board's bits under symmetry `s`.
fn map_bits(s: usize, bits: u64, n: usize) -> u64 {
    (0..n * n).filter(|&q| bits & (1 << q) != 0).fold(0, |acc, q| {
        let (r, c) = map_square(s, q / n, q % n, n);
        acc | 1 << (r * n + c)
    })
}

/// A position's image under symmetry `s`.
fn image(s: usize, p: &Slide) -> Slide {
    let n = p.size();
    let (blue, orange) = (p.tiles(super::Side::Blue), p.tiles(super::Side::Orange));
    Slide::from_parts(p.slide_variant(), map_bits(s, blue, n), map_bits(s, orange, n), p.side_to_move())
}

/// The depth of the estimates for a position with `moves` legal moves: the fixed one, or the
/// deepest whose calibrated cost (`SEARCH_BASE`) fits the settings' time.
pub fn search_depth(settings: AnalysisSettings, moves: u32) -> u32 {
    let growth = (moves as f64 / 5.0).max(2.0);
    settings.pick_depth(40, |d| SEARCH_BASE * growth.powi(d as i32) * moves.max(1) as f64)
}

impl Analyze for Slide {
    /// Exact on 3x3 and 4x4 (the solver, without a clock), else the generic search with the
    /// engine's evaluation, every move to one depth ([`search_depth`]).
    ///
    /// ```
    /// use tabletop::games::slide::Slide;
    /// use tabletop::{AnalysisSettings, Analyze, Record};
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// let analysis = Slide::analyze(&Record::new(board), AnalysisSettings::default());
    /// assert_eq!(analysis.depth, None);
    /// assert_eq!(analysis.moves[0].text, "wins in 1 move");
    /// ```
    fn analyze(record: &Record<Slide>, settings: AnalysisSettings) -> Analysis {
        let root = record.current();
        if root.status().to_move().is_none() {
            return Analysis::default();
        }
        let variant = root.slide_variant();
        if is_solvable(variant) {
            if let Some(mut solver) = SlideSolver::new(variant) {
                let moves = solver
                    .move_values(root)
                    .into_iter()
                    .map(|(mv, value)| MoveValue {
                        notation: mv.to_string(),
                        score: value.rank() as i32,
                        exact: true,
                        depth: None,
                        text: slide_text(value),
                    })
                    .collect();
                return sorted(moves);
            }
        }
        let n = root.size();
        let key = |p: &Slide| (p.tiles(super::Side::Blue), p.tiles(super::Side::Orange));
        let s = (0..8).min_by_key(|&s| key(&image(s, root))).unwrap_or(0);
        let canonical = image(s, root);
        // The history under the same symmetry, for the search's repetition rule.
        let mut history: Vec<u64> = record.positions().iter().map(|p| image(s, p).hash()).collect();
        history.pop();
        history.push(canonical.hash());
        let mut moves = Vec::new();
        canonical.legal_moves(&mut moves);
        let depth = search_depth(settings, moves.len() as u32);
        let mut search = Search::new(SlideEvaluation, NoOrdering, Options::default());
        let mut out = Vec::with_capacity(moves.len());
        // The move of the position whose image is `mv` (the inverse of symmetry `s`).
        let back = |q: u8| -> u8 {
            (0..n * n).find(|&o| {
                let (r, c) = map_square(s, o / n, o % n, n);
                r * n + c == q as usize
            }).unwrap_or(0) as u8
        };
        for &mv in &moves {
            let mut child = canonical;
            child.play_unchecked(mv);
            let original = match mv {
                SlideMove::Place(q) => SlideMove::Place(back(q)),
                SlideMove::Slide { from, to } => SlideMove::Slide { from: back(from), to: back(to) },
            };
            let child_depth = depth.saturating_sub(1).max(1);
            out.push(search_one(&mut search, &child, &history, child_depth, original.to_string(), |v, d| {
                format!("{v:+} (open lines, depth {d})")
            }));
        }
        sorted(out)
    }
}

/// A Slide value in words, with the right plural.
fn slide_text(value: SlideValue) -> String {
    match value {
        SlideValue::Win(d) => crate::value::wins_in(crate::value::own_moves(d)),
        SlideValue::Draw => "draw".to_string(),
        SlideValue::Loss(d) => crate::value::loses_in(crate::value::own_moves(d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::playout;
    use crate::games::slide::SlideVariant;

    #[test]
    fn slide_exact_values_match_the_solver() {
        let variant = SlideVariant::new(3, 1).unwrap();
        let mut solver = SlideSolver::new(variant).unwrap();
        let mut seed = 11;
        for plies in [0, 2, 5, 8, 12, 20] {
            let p = playout(Slide::start(&variant), plies, &mut seed);
            let analysis = Slide::analyze(&Record::new(p), AnalysisSettings::default());
            if p.status().to_move().is_none() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None);
            let mut expected: Vec<(String, i32)> =
                solver.move_values(&p).into_iter().map(|(m, v)| (m.to_string(), v.rank() as i32)).collect();
            expected.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
            let got: Vec<(String, i32)> = analysis.moves.iter().map(|m| (m.notation.clone(), m.score)).collect();
            assert_eq!(got, expected, "{}", p.notation());
        }
    }

    #[test]
    fn slide_4x4_is_exact() {
        let variant = SlideVariant::new(4, 2).unwrap();
        let record = Record::new(playout(Slide::start(&variant), 5, &mut 5));
        let analysis = Slide::analyze(&record, AnalysisSettings::default());
        assert_eq!(analysis.moves.len(), 16 - 5);
        assert!(analysis.open.is_empty());
    }

    #[test]
    fn symmetric_images_get_the_same_values() {
        let variant = SlideVariant::new(5, 2).unwrap();
        let mut seed = 3;
        for plies in [2, 5, 9] {
            let p = playout(Slide::start(&variant), plies, &mut seed);
            let settings = AnalysisSettings::depth(3);
            let a = Slide::analyze(&Record::new(p), settings);
            assert_eq!(a.depth, Some(3));
            let values = |a: &Analysis, s: usize| {
                let n = 5;
                let map = |q: usize| {
                    let (r, c) = map_square(s, (q - 1) / n, (q - 1) % n, n);
                    (r * n + c + 1).to_string()
                };
                let mut v: Vec<(String, i32)> = a
                    .moves
                    .iter()
                    .map(|m| {
                        let name = match m.notation.split_once('-') {
                            Some((f, t)) => format!("{}-{}", map(f.parse().unwrap()), map(t.parse().unwrap())),
                            None => map(m.notation.parse().unwrap()),
                        };
                        (name, m.score)
                    })
                    .collect();
                v.sort();
                v
            };
            for s in 1..8 {
                let b = Slide::analyze(&Record::new(image(s, &p)), settings);
                assert_eq!(values(&a, s), values(&b, 0), "plies {plies}, symmetry {s}");
            }
        }
    }

    #[test]
    fn slide_large_boards_use_the_search_at_one_depth() {
        let variant = SlideVariant::new(6, 2).unwrap();
        let record = Record::new(playout(Slide::start(&variant), 6, &mut 3));
        let analysis = Slide::analyze(&record, AnalysisSettings::depth(2));
        assert_eq!(analysis.moves.len(), 36 - 6);
        assert_eq!(analysis.depth, Some(2));
        assert!(analysis.moves.iter().all(|m| m.exact || m.depth == Some(2)));
    }

    /// Measures the generic search's cost by depth on Slide (see [`SEARCH_BASE`]); release build.
    #[test]
    #[ignore]
    fn slide_calibration() {
        use std::time::Instant;
        let mut seed = 17;
        for (size, empty, plies) in [(5, 2, 4), (5, 2, 12), (6, 2, 6), (6, 3, 20), (8, 3, 10)] {
            let variant = SlideVariant::new(size, empty).unwrap();
            for depth in 1..=7u32 {
                let p = playout(Slide::start(&variant), plies, &mut seed);
                if p.status().to_move().is_none() {
                    continue;
                }
                let mut moves = Vec::new();
                p.legal_moves(&mut moves);
                let t = Instant::now();
                Slide::analyze(&Record::new(p), AnalysisSettings::depth(depth));
                let per_move = t.elapsed().as_secs_f64() / moves.len() as f64;
                println!("slide {size}x{size} ply {plies} depth {depth}: {} moves, per move {per_move:.6}", moves.len());
                if per_move > 0.2 {
                    break;
                }
            }
        }
    }
}
