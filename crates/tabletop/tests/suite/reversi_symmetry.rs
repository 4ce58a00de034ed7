//! Symmetry: the evaluation of a position equals that of each of its 8 images under the
//! rotations and reflections of the board, and the analysis values symmetric moves alike.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop::games::reversi::eval::Weights;
use tabletop::games::reversi::patterns::PatternWeights;
use tabletop::games::reversi::symmetry::transform;
use tabletop::games::reversi::Reversi;
use tabletop::{Analyze, Game, Record};

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
    let analysis = Reversi::analyze(&Record::new(Reversi::new()), Duration::from_millis(300));
    assert_eq!(analysis.moves.len(), 4);
    assert!(analysis.depth.is_some_and(|d| d >= 1), "{analysis:?}");
    let first = &analysis.moves[0];
    for m in &analysis.moves {
        assert_eq!((m.score, &m.text), (first.score, &first.text), "{analysis:?}");
    }
}
