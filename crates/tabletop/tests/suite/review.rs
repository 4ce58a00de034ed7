//! Game review (`tabletop::review`): the losses of known games equal the exact solvers', the
//! marks follow the documented thresholds, and the review survives a JSON round trip.

use std::time::Duration;

use rand::{Rng, SeedableRng};
use tabletop::games::connect::solver::Solver as ConnectSolver;
use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::games::reversi::solver::Solver as ReversiSolver;
use tabletop::games::reversi::Reversi;
use tabletop::games::slide::solver::SlideSolver;
use tabletop::games::slide::{Slide, SlideVariant};
use tabletop::review::{judge_exact, review, GameReview, Mark, ReviewSettings};
use tabletop::{Game, Record};

/// Plays seeded random moves from `start` to the end of the game.
fn random_game<G: Game>(start: G, seed: u64) -> Record<G> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut record = Record::new(start);
    let mut moves = Vec::new();
    while record.status().to_move().is_some() {
        record.current().legal_moves(&mut moves);
        let mv = moves[rng.gen_range(0..moves.len())];
        record.play(mv).expect("legal");
    }
    record
}

/// A generous time per position: the solvers answer these positions in milliseconds, the
/// margin is for a busy machine (no timing is asserted).
fn settings() -> ReviewSettings {
    ReviewSettings::time(Duration::from_secs(3))
}

#[test]
fn connect_four_review_losses_are_the_solvers() {
    let v = ConnectVariant::connect4();
    // From middle-game positions (ply 16 of seeded random games), random moves to the end:
    // blunders galore.
    let mut solver = ConnectSolver::new(v, 1 << 20);
    let mut blunders = 0;
    for seed in [1, 2] {
        let start = random_game_prefix(Connect::new(v), 16, seed);
        assert!(start.status().to_move().is_some(), "seed {seed}: over before ply 16");
        let record = random_game(start, seed + 100);
        let r = review(&record, settings(), &mut |_, _| {});
        assert_eq!(r.moves.len(), record.moves().len());
        assert_eq!(r.values.len(), record.moves().len() + 1);
        for (m, p) in r.moves.iter().zip(record.positions()) {
            let scores = solver.solve_moves(p);
            let best = scores.iter().flatten().copied().max().expect("a move");
            let col: usize = m.played.parse::<usize>().expect("a column") - 1;
            let played = scores[col].expect("playable");
            assert!(m.exact, "ply {}: not exact", m.ply);
            assert_eq!(m.score_before, Some(best), "ply {}", m.ply);
            assert_eq!(m.score_after, Some(played), "ply {}", m.ply);
            let expected = judge_exact(best, played, tabletop::games::connect::review::SLOWER);
            assert_eq!(m.loss, Some(expected.loss), "ply {}", m.ply);
            assert_eq!(m.mark, expected.mark, "ply {}", m.ply);
            // The graph's point after the move is its exact value from X's point of view.
            let sign = if m.mover == 0 { 1.0 } else { -1.0 };
            assert_eq!(r.values[m.ply + 1], Some(sign * f64::from(played)));
            blunders += usize::from(m.mark == Some(Mark::Blunder));
        }
    }
    assert!(blunders > 0, "random play throws games away");
}

#[test]
fn a_known_connect_three_blunder() {
    let v = ConnectVariant::connect3();
    // X wins at once in column 3 after 1 1 2 2, plays 4 instead, and O does not block.
    let mut record = Record::new(Connect::new(v));
    for col in ["1", "1", "2", "2", "4", "4", "3"] {
        record.play(record.current().parse_move(col).expect("a column")).expect("legal");
    }
    let r = review(&record, settings(), &mut |_, _| {});
    let m = &r.moves[4];
    assert_eq!((m.played.as_str(), m.best.as_deref()), ("4", Some("3")));
    assert!(m.mark.is_some(), "{m:?}");
    // O then lets X win at once: whatever it was, now it is lost.
    assert_eq!(r.moves[5].mark, Some(Mark::Blunder), "{:?}", r.moves[5]);
    assert_eq!(r.moves[6].loss, Some(0.0));
}

#[test]
fn slide_review_losses_are_the_solvers() {
    let v = SlideVariant::new(3, 1).expect("3x3");
    let mut solver = SlideSolver::new(v).expect("solvable");
    for seed in [3, 4] {
        let mut record = random_game(Slide::start(&v), seed);
        // A random slide phase may go on for long: keep the first 30 plies.
        while record.moves().len() > 30 {
            record.undo();
        }
        let r = review(&record, settings(), &mut |_, _| {});
        for (m, p) in r.moves.iter().zip(record.positions()) {
            let values = solver.move_values(p);
            let best = values.iter().map(|(_, v)| v.rank()).max().expect("a move");
            let played = values.iter().find(|(mv, _)| mv.to_string() == m.played).expect("played").1.rank();
            assert_eq!(m.loss, Some((best - played) as f64), "ply {}", m.ply);
            assert_eq!(m.mark, judge_exact(best as i32, played as i32, tabletop::games::slide::review::SLOWER).mark);
        }
    }
}

#[test]
fn reversi_endgame_review_losses_are_the_solvers() {
    // Random play to 12 empties, then review the rest of a random game exactly.
    let start = random_game_prefix(Reversi::new(), 48, 5);
    let record = random_game(start, 6);
    let r = review(&record, settings(), &mut |_, _| {});
    let mut solver = ReversiSolver::new(16);
    for (m, p) in r.moves.iter().zip(record.positions()) {
        let all = solver.solve_all(p);
        let best = all.iter().map(|(_, s)| *s).max().expect("a move");
        let played = all.iter().find(|(mv, _)| mv.to_string() == m.played).expect("played").1;
        assert!(m.exact, "ply {}", m.ply);
        assert_eq!(m.loss, Some(f64::from(best - played)), "ply {}", m.ply);
        assert_eq!(m.mark, reversi_mark(best, played), "ply {}", m.ply);
    }
}

/// Reversi's documented thresholds: 3, 6 and 12 discs; an exact win or draw thrown into a loss
/// is a blunder.
fn reversi_mark(best: i32, played: i32) -> Option<Mark> {
    if played < 0 && played.signum() < best.signum() {
        return Some(Mark::Blunder);
    }
    match best - played {
        12.. => Some(Mark::Blunder),
        6.. => Some(Mark::Mistake),
        3.. => Some(Mark::Inaccuracy),
        _ => None,
    }
}

/// `plies` seeded random moves from `start` (fewer if the game ends).
fn random_game_prefix<G: Game>(start: G, plies: usize, seed: u64) -> G {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut p = start;
    let mut moves = Vec::new();
    for _ in 0..plies {
        p.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        p.play_unchecked(mv);
    }
    p
}

#[test]
fn thresholds_by_amount_and_by_result() {
    assert_eq!(Mark::by_amount(2.99, [3.0, 6.0, 12.0]), None);
    assert_eq!(Mark::by_amount(3.0, [3.0, 6.0, 12.0]), Some(Mark::Inaccuracy));
    assert_eq!(Mark::by_amount(11.0, [3.0, 6.0, 12.0]), Some(Mark::Mistake));
    assert_eq!(Mark::by_amount(12.0, [3.0, 6.0, 12.0]), Some(Mark::Blunder));
    // Solved games: the result decides, then the speed.
    assert_eq!(judge_exact(5, -1, 3).mark, Some(Mark::Blunder)); // win -> loss
    assert_eq!(judge_exact(0, -9, 3).mark, Some(Mark::Blunder)); // draw -> loss
    assert_eq!(judge_exact(1, 0, 3).mark, Some(Mark::Mistake)); // win -> draw
    assert_eq!(judge_exact(9, 6, 3).mark, Some(Mark::Inaccuracy)); // 3 moves slower
    assert_eq!(judge_exact(9, 7, 3).mark, None);
    assert_eq!(judge_exact(-3, -6, 3).mark, Some(Mark::Inaccuracy)); // 3 moves sooner lost
    assert_eq!(judge_exact(-3, -3, 3).loss, 0.0);
    assert_eq!((Mark::Inaccuracy.symbol(), Mark::Mistake.symbol(), Mark::Blunder.symbol()), ("?!", "?", "??"));
}

#[test]
fn review_json_round_trip() {
    let v = ConnectVariant::connect3();
    let text = "tabletop connect\nposition \nmoves 1 1 2 2 4 4 3\n";
    let record = Record::<Connect>::from_text(&v, text).expect("a saved game");
    let r = review(&record, settings(), &mut |_, _| {});
    let text = serde_json::to_string(&r).expect("serialises");
    let back: GameReview = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back, r);
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert!(json["moves"][0]["move"].is_string());
    assert!(json["moves"].as_array().expect("moves").iter().any(|m| m["mark"].is_string()), "{json}");
    assert_eq!(json["values"].as_array().expect("values").len(), record.moves().len() + 1);
}
