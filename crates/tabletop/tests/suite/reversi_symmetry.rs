//! Symmetry: the evaluation of a position equals that of each of its 8 images under the
//! rotations and reflections of the board, and the analysis values symmetric moves alike.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop::games::reversi::eval::Weights;
use tabletop::games::reversi::patterns::PatternWeights;
use tabletop::games::reversi::symmetry::transform;
use tabletop::games::reversi::Color;
use tabletop::games::reversi::Reversi;
use tabletop::{AnalysisSettings, Analyze, Game, Record};

/// Seeded random positions along random games, every ply of each game.
fn positions(seed: u64, games: usize) -> Vec<(u64, u64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut position = Reversi::new();
        while !position.is_over() {
            out.push(position.player_opponent());
            position.legal_moves(&mut moves);
            position.play_unchecked(moves[rng.gen_range(0..moves.len())]);
        }
    }
    out
}

#[test]
fn the_evaluation_of_every_image_is_the_same() {
    let patterns = PatternWeights::builtin();
    let v1 = Weights::builtin();
    let all = positions(23, 80);
    assert!(all.len() > 4000, "{} positions", all.len());
    for (i, &(p, o)) in all.iter().enumerate() {
        let (value, value_v1) = (patterns.evaluate(p, o), v1.evaluate(p, o));
        for s in 1..8 {
            let (tp, to) = (transform(p, s), transform(o, s));
            assert_eq!(patterns.evaluate(tp, to), value, "position {i} ({p:#x}, {o:#x}), image {s}");
            assert_eq!(v1.evaluate(tp, to), value_v1, "engine-v1, position {i}, image {s}");
        }
    }
}

#[test]
fn the_four_first_moves_get_the_same_value_and_depth() {
    // The default settings: the depth the calibration picks for two seconds.
    let analysis = Reversi::analyze(&Record::new(Reversi::new()), AnalysisSettings::default());
    assert_eq!(analysis.moves.len(), 4);
    assert!(analysis.depth.is_some_and(|d| d >= 6), "{analysis:?}");
    let first = &analysis.moves[0];
    for m in &analysis.moves {
        assert_eq!((m.score, &m.text, m.depth), (first.score, &first.text, first.depth), "{analysis:?}");
    }
}

/// The image of a move's name under symmetry `s` ("pass" stays).
fn image_name(name: &str, s: usize) -> String {
    let Ok(tabletop::games::reversi::ReversiMove::Place(sq)) = name.parse() else { return name.to_string() };
    let bit = transform(sq.bit(), s);
    tabletop::games::reversi::Square::from_index(bit.trailing_zeros() as usize).unwrap().to_string()
}

/// (move, score, exact, depth) sorted by move: an analysis to compare across images.
fn values(analysis: &tabletop::Analysis, s: usize) -> Vec<(String, i32, bool, Option<u32>)> {
    let mut v: Vec<_> =
        analysis.moves.iter().map(|m| (image_name(&m.notation, s), m.score, m.exact, m.depth)).collect();
    v.sort();
    v
}

#[test]
fn symmetric_images_get_the_same_analysis() {
    let all = positions(31, 3);
    let mut checked = 0;
    for (i, &(p, o)) in all.iter().enumerate().filter(|(i, _)| i % 7 == 3) {
        let side = if i % 2 == 0 { Color::Black } else { Color::White };
        let make = |p: u64, o: u64| match side {
            Color::Black => Reversi::from_bitboards(p, o, side),
            Color::White => Reversi::from_bitboards(o, p, side),
        };
        let position = make(p, o);
        if position.is_over() {
            continue;
        }
        // Shallow estimates, and exact solves near the end (the default threshold).
        let settings = AnalysisSettings { depth: Some(4), time: std::time::Duration::from_millis(200) };
        let base = Reversi::analyze(&Record::new(position), settings);
        for s in 1..8 {
            let image = make(transform(p, s), transform(o, s));
            let analysis = Reversi::analyze(&Record::new(image), settings);
            assert_eq!(values(&base, s), values(&analysis, 0), "position {i}, image {s}");
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked}");
}
