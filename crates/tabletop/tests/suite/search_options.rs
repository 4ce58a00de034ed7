//! Every search option gives the same root value as plain negamax (the minimax-rs discipline),
//! on random positions; limits and the principal variation behave.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop::games::slide::players::SlideEvaluation;
use tabletop::games::slide::solver::SlideSolver;
use tabletop::games::slide::{Slide, SlideMove, SlideVariant};
use tabletop::search::{verdict, Limits, MoveOrder, NoEvaluation, NoOrdering, Options, Search, Verdict};
use tabletop::Game;

/// Searches moves in reverse order, to show ordering changes nothing but speed.
struct Reversed;

impl MoveOrder<Slide> for Reversed {
    fn order(&self, _: &Slide, moves: &mut [SlideMove]) {
        moves.reverse();
    }
}

fn random_positions(variant: SlideVariant, plies: std::ops::Range<usize>, count: usize, seed: u64) -> Vec<Slide> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut moves = Vec::new();
    (0..count)
        .filter_map(|_| {
            let mut position = Slide::start(&variant);
            for _ in 0..rng.gen_range(plies.clone()) {
                position.legal_moves(&mut moves);
                if moves.is_empty() {
                    return None;
                }
                position.play(moves[rng.gen_range(0..moves.len())]).unwrap();
            }
            position.status().to_move().map(|_| position)
        })
        .collect()
}

fn variants_of_options(exact: bool) -> Vec<Options> {
    let mut all = Vec::new();
    for alpha_beta in [false, true] {
        for pvs in [false, true] {
            for tt_bits in [None, Some(16)] {
                for iterative_deepening in [false, true] {
                    if pvs && !alpha_beta {
                        continue;
                    }
                    all.push(Options { alpha_beta, pvs, tt_bits, iterative_deepening, exact });
                }
            }
        }
    }
    all
}

#[test]
fn exact_mode_agrees_with_plain_negamax_and_the_solver() {
    let variant = SlideVariant::new(3, 0).unwrap();
    let positions = random_positions(variant, 1..5, 25, 7);
    assert!(positions.len() >= 20);
    let mut solver = SlideSolver::new(variant).unwrap();
    for position in &positions {
        let plain_options = Options { exact: true, ..Options::plain() };
        let plain = Search::new(NoEvaluation, NoOrdering, plain_options).search(position, &[], Limits::default());
        assert!(plain.exact);
        // The generic search's distances agree with the dedicated solver.
        let expected = match solver.value(position) {
            tabletop::games::slide::solver::SlideValue::Win(d) => Verdict::Win(d),
            tabletop::games::slide::solver::SlideValue::Loss(d) => Verdict::Loss(d),
            tabletop::games::slide::solver::SlideValue::Draw => Verdict::Score(0),
        };
        assert_eq!(verdict(plain.value), expected, "{}", position.notation());
        for options in variants_of_options(true) {
            let value = Search::new(NoEvaluation, NoOrdering, options).search(position, &[], Limits::default()).value;
            assert_eq!(value, plain.value, "{options:?} at {}", position.notation());
            let value = Search::new(NoEvaluation, Reversed, options).search(position, &[], Limits::default()).value;
            assert_eq!(value, plain.value, "{options:?} reversed at {}", position.notation());
        }
    }
}

#[test]
fn fixed_depth_agrees_with_plain_negamax_with_an_evaluation() {
    // Placement positions only: every transposition sits at the same remaining depth, so a
    // transposition table cannot change fixed-depth values.
    let variant = SlideVariant::new(4, 0).unwrap();
    let positions = random_positions(variant, 0..8, 12, 11);
    for position in &positions {
        let plain = Search::new(SlideEvaluation, NoOrdering, Options::plain()).search(position, &[], Limits::depth(3));
        for options in variants_of_options(false) {
            let result = Search::new(SlideEvaluation, Reversed, options).search(position, &[], Limits::depth(3));
            assert_eq!(result.value, plain.value, "{options:?} at {}", position.notation());
            assert_eq!(result.depth, 3);
        }
    }
}

#[test]
fn principal_variation_is_a_legal_line_starting_with_the_best_move() {
    let variant = SlideVariant::new(4, 2).unwrap();
    for position in random_positions(variant, 2..10, 10, 3) {
        let result =
            Search::new(SlideEvaluation, NoOrdering, Options::default()).search(&position, &[], Limits::depth(5));
        assert_eq!(result.pv.first().copied(), result.best_move);
        let mut walk = position;
        for mv in &result.pv {
            walk.play(*mv).unwrap_or_else(|e| panic!("pv move {mv} illegal: {e}"));
        }
        assert!(!result.pv.is_empty());
    }
}

#[test]
fn node_and_time_limits_stop_the_search_with_a_legal_move() {
    let start = Slide::start(&SlideVariant::new(6, 0).unwrap());
    let mut search = Search::new(SlideEvaluation, NoOrdering, Options::default());
    let result = search.search(&start, &[], Limits { nodes: Some(500), ..Limits::default() });
    assert!(result.nodes <= 501, "{} nodes", result.nodes);
    assert!(start.is_legal(result.best_move.unwrap()));
    let result = search.search(&start, &[], Limits::time(std::time::Duration::from_millis(30)));
    assert!(result.complete && result.depth >= 1 && start.is_legal(result.best_move.unwrap()));
    let result = search.search(&start, &[], Limits::depth(2));
    assert_eq!(result.depth, 2);
}
