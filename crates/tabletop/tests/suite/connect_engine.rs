//! Connect-N players: exact choices on small boards, levels, the book, the acceptance matches.

use std::time::Duration;

use tabletop::games::connect::book::{canonical_key, complete_plies, Book};
use tabletop::games::connect::engine::{describe_score, first_player_match, make_player, Engine, LevelPlayer};
use tabletop::games::connect::solver::Solver;
use tabletop::games::connect::{Column, Connect, ConnectVariant};
use tabletop::players::RandomPlayer;
use tabletop::{Game, Player, Record};

fn record(v: ConnectVariant, seq: &str) -> Record<Connect> {
    Record::new(Connect::from_notation(&v, seq).unwrap())
}

#[test]
fn engine_takes_the_quickest_win() {
    let v = ConnectVariant::connect4();
    // X has 1,2,3 on the bottom row (O on 7,7,6 high up): playing 4 wins at once.
    let mut engine = Engine::new(v, Duration::from_secs(1));
    let r = record(v, "172737");
    assert_eq!(engine.choose_move(&r), Column(3));
    assert!(engine.last_note().contains("wins in 1 move"), "{}", engine.last_note());
}

#[test]
fn engine_is_perfect_on_small_boards() {
    let v = ConnectVariant::connect3();
    let mut engine = Engine::new(v, Duration::from_secs(1));
    let mut solver = Solver::new(v, 1 << 16);
    let start = Connect::new(v);
    let best = solver.solve(&start);
    assert!(best > 0);
    let mv = engine.choose_move(&Record::new(start.clone()));
    assert_eq!(solver.column_score(&start, mv.0 as usize), Some(best));
    assert!(engine.last_note().starts_with("perfect: wins"));
}

#[test]
fn six_by_four_every_first_move_loses() {
    let v = ConnectVariant::connect4_6x4();
    let mut solver = Solver::new(v, 1 << 20);
    let scores = solver.solve_moves(&Connect::new(v));
    assert!(scores.iter().all(|s| s.unwrap() < 0), "{scores:?}");
}

#[test]
fn levels_take_wins_and_block_losses() {
    let v = ConnectVariant::connect4();
    for level in 2..=5 {
        let mut p = LevelPlayer::new(level, 7);
        // X to move with 1,2,3 on the bottom row: wins with 4.
        assert_eq!(p.choose_move(&record(v, "172737")), Column(3), "level {level} win");
        // O to move; X threatens 4 on the bottom row: O must block.
        assert_eq!(p.choose_move(&record(v, "17273")), Column(3), "level {level} block");
    }
}

#[test]
fn score_descriptions() {
    let v = ConnectVariant::connect4();
    let mut solver = Solver::new(v, 1 << 16);
    let p = Connect::from_notation(&v, "172737").unwrap();
    assert_eq!(describe_score(&p, solver.solve(&p)), "wins in 1 move");
    // O to move against X's open three on the bottom row (2, 3, 4): lost at X's next move.
    let q = Connect::from_notation(&v, "27374").unwrap();
    assert_eq!(solver.solve(&q), -18);
    assert_eq!(describe_score(&q, -18), "loses in 1 move");
    assert_eq!(describe_score(&q, 0), "draw");
}

#[test]
fn shipped_book_is_consistent() {
    let book = Book::standard();
    let v = ConnectVariant::connect4();
    assert_eq!(book.variant(), v);
    // Every proven entry agrees with the solver on a sample of deep positions.
    let mut solver = Solver::new(v, 1 << 22);
    let mut checked = 0;
    let mut stack = vec![Connect::new(v)];
    while let Some(p) = stack.pop() {
        if let Some((col, score)) = book.lookup(&p) {
            if let (Some(score), true) = (score, p.moves_played() >= 8 && checked < 5) {
                assert_eq!(solver.column_score(&p, col.0 as usize), Some(score), "{}", p.notation());
                checked += 1;
            }
            let mut after = p.clone();
            after.play_unchecked(col);
            let mut moves = Vec::new();
            after.legal_moves(&mut moves);
            for m in moves {
                let mut c = after.clone();
                c.play_unchecked(m);
                stack.push(c);
            }
        }
    }
}

/// The shipped book holds every position of up to eight stones, whoever is to move, with its
/// exact score and a best move (issue 27): every score is the best of its moves' scores (a win
/// at once scoring the quickest win, the other moves the negated scores of the book's
/// children), the stored move reaches it, and a seeded sample of the eight-stone positions
/// agrees with the solver.
#[test]
fn the_book_holds_every_early_position_exactly() {
    use rand::{Rng, SeedableRng};
    let v = ConnectVariant::connect4();
    let book = Book::standard();
    let plies = complete_plies(&book);
    assert!(plies >= 9, "every position proven only below ply {plies}");
    let cells = v.cells() as i32;
    let mut level = vec![Connect::new(v)];
    for ply in 0..plies - 1 {
        let mut next = Vec::new();
        for p in &level {
            let (best, score) = book.lookup(p).expect("in the book");
            let score = score.expect("proven");
            let mut best_value = i32::MIN;
            for c in 0..v.width() {
                if !p.can_play(c) {
                    continue;
                }
                let value = if p.is_winning_move(c) {
                    (cells + 1 - ply as i32) / 2
                } else {
                    let mut child = p.clone();
                    child.play_unchecked(Column(c as u8));
                    let child_score = book.lookup(&child).and_then(|e| e.1).expect("child proven");
                    next.push(child);
                    -child_score
                };
                if c == best.0 as usize {
                    assert_eq!(value, score, "{}: the stored move {c}", p.notation());
                }
                best_value = best_value.max(value);
            }
            assert_eq!(best_value, score, "{}", p.notation());
        }
        let mut seen = std::collections::HashSet::new();
        next.retain(|p| seen.insert(canonical_key(p).0));
        level = next;
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(27);
    let mut solver = Solver::new(v, 1 << 22);
    for _ in 0..4 {
        let p = &level[rng.gen_range(0..level.len())];
        assert_eq!(Some(solver.solve(p)), book.lookup(p).and_then(|e| e.1), "{}", p.notation());
    }
}

/// The analysis of an early position off the first player's lines is exact for every move
/// (issue 27: `analyze connect --position 4453` gave heuristic values ranking losing columns
/// first; the exact values of columns 3 and 4 are -2 and -3).
#[test]
fn the_analysis_of_an_early_position_is_exact() {
    use tabletop::{AnalysisSettings, Analyze};
    let v = ConnectVariant::connect4();
    let analysis = Connect::analyze(&record(v, "4453"), AnalysisSettings::default());
    assert!(analysis.open.is_empty() && analysis.moves.iter().all(|m| m.exact), "{analysis:?}");
    let value = |col: &str| analysis.moves.iter().find(|m| m.notation == col).map(|m| m.score);
    assert_eq!((value("3"), value("4")), (Some(-2), Some(-3)));
}

/// Every position of seven stones is analysed exactly from the book alone, with no time for
/// the solver: the book holds every child (eight stones) with its exact score. A seeded sample
/// of 30 random positions (with the book of seven stones the first of them already had open
/// moves).
#[test]
fn seven_stone_positions_are_analysed_from_the_book_alone() {
    use tabletop::games::connect::bench::random_position;
    use tabletop::{AnalysisSettings, Analyze};
    let v = ConnectVariant::connect4();
    let no_time = AnalysisSettings { depth: Some(1), time: Duration::ZERO };
    for seed in 0..30 {
        let p = random_position(v, 7, seed).expect("a seven-stone position");
        let analysis = Connect::analyze(&Record::new(p.clone()), no_time);
        assert!(analysis.open.is_empty() && analysis.moves.iter().all(|m| m.exact), "{}: {analysis:?}", p.notation());
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        assert_eq!(analysis.moves.len(), moves.len(), "{}", p.notation());
    }
}

/// Acceptance: the engine as X wins 50 games against random and 20 against level 3, each
/// move within 1 s (the book reaches ply 12, so the live solves are short: the slowest move
/// takes about 20 ms; `tabletop bench connect --matches` prints the figures).
#[test]
fn engine_wins_as_first_player() {
    let v = ConnectVariant::connect4();
    let mut engine = Engine::new(v, Duration::from_secs(1));
    let mut random = RandomPlayer::new(2024);
    let r = first_player_match(&mut engine, &mut random, 50);
    assert_eq!(r.wins, 50, "{r:?}");
    let mut level3 = LevelPlayer::new(3, 2024);
    let r2 = first_player_match(&mut engine, &mut level3, 20);
    assert_eq!(r2.wins, 20, "{r2:?}");
    assert!(r.slowest.max(r2.slowest) < Duration::from_millis(1100), "{r:?} {r2:?}");
}

/// One game of `a` (X) against `b` from `opening`, as its notation.
fn play_out(a: &mut dyn Player<Connect>, b: &mut dyn Player<Connect>, v: ConnectVariant, opening: &str) -> String {
    let mut r = record(v, opening);
    while let tabletop::Status::ToMove(seat) = r.status() {
        let mv = if seat.0 == 0 { a.choose_move(&r) } else { b.choose_move(&r) };
        r.play(mv).expect("a legal move");
    }
    r.current().notation()
}

/// Level 9 searches by a node budget, not the clock: the same game on an idle machine and
/// with both cores kept busy by two spinning threads (level 8's search has no clock either).
#[test]
fn level_nine_plays_the_same_game_on_a_busy_machine() {
    let v = ConnectVariant::connect4();
    let game = |busy: bool| {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinners: Vec<_> = (0..if busy { 2 } else { 0 })
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        let mut nine = make_player(&"engine:level=9".parse().unwrap(), v, 0).unwrap();
        let mut eight = make_player(&"engine:level=8".parse().unwrap(), v, 1).unwrap();
        let moves = play_out(nine.as_mut(), eight.as_mut(), v, "4");
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinners.into_iter().for_each(|s| s.join().unwrap());
        moves
    };
    let idle = game(false);
    assert!(idle.len() > 8, "{idle}");
    assert_eq!(game(true), idle);
}

/// Under a node budget the engine solves what fits and falls back to the depth-limited search
/// otherwise; without the book it does not answer from it.
#[test]
fn the_node_budget_engine_solves_what_fits_and_searches_the_rest() {
    let v = ConnectVariant::connect4();
    let mut engine = Engine::with_table(v, Duration::ZERO, 1 << 16).with_node_budget(1_000, 4).without_book();
    assert_eq!(engine.choose_move(&record(v, "172737")), Column(3));
    assert!(engine.last_note().starts_with("perfect: wins in 1 move"), "{}", engine.last_note());
    // The empty board needs far more than 1,000 nodes, and the book is not asked.
    engine.choose_move(&record(v, ""));
    assert!(engine.last_note().starts_with("heuristic"), "{}", engine.last_note());
    // With the book, the empty board is answered from it.
    let mut booked = Engine::with_table(v, Duration::ZERO, 1 << 16).with_node_budget(1_000, 4);
    assert_eq!(booked.choose_move(&record(v, "")), Column(3));
    assert!(booked.last_note().starts_with("book"), "{}", booked.last_note());
    assert_eq!(booked.describe(), "engine:nodes=1000,depth=4");
}
