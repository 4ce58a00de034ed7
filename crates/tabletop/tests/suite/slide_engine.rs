//! The engine's Slide player never does worse than the game-theoretic value of any position it
//! moves from, against the classic player at every level, in either seat (acceptance check,
//! move by move). Also: it never misses a win in one on boards too large to solve.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabletop::arena::{play_game, random_opening};
use tabletop::games::slide::players::{ClassicPlayer, EnginePlayer};
use tabletop::games::slide::solver::{SlideSolver, SlideValue};
use tabletop::games::slide::{Slide, SlideVariant};
use tabletop::{Game, Outcome, Player, Record, Seat, Status};

fn class(value: SlideValue) -> u8 {
    match value {
        SlideValue::Loss(_) => 0,
        SlideValue::Draw => 1,
        SlideValue::Win(_) => 2,
    }
}

/// Plays engine vs classic at every level in both seats; returns (engine wins, draws, losses).
fn check_variant(size: usize, empty: usize) -> (u32, u32, u32) {
    let variant = SlideVariant::new(size, empty).unwrap();
    let start = Slide::start(&variant);
    let mut checker = SlideSolver::new(variant).unwrap();
    let mut engine = EnginePlayer::new(None, None);
    let mut rng = ChaCha8Rng::seed_from_u64((size * 10 + empty) as u64);
    let mut tally = (0, 0, 0);
    for levels in 1..=6 {
        let mut classic = ClassicPlayer::new(levels);
        let opening = random_opening(&start, (levels as usize) % 3, &mut rng);
        for engine_seat in [Seat(0), Seat(1)] {
            let mut first_value = None;
            let mut observe = |record: &Record<Slide>, seat: Seat, mv| {
                if seat != engine_seat {
                    return;
                }
                let before = checker.value(record.current());
                first_value.get_or_insert(before);
                let mut child = *record.current();
                child.play(mv).unwrap();
                let after = checker.value(&child).for_parent();
                let context =
                    format!("{size}x{size} k={empty} levels={levels} at {}: {mv}", record.current().notation());
                assert!(class(after) >= class(before), "{context}: {before} -> {after}");
                if let SlideValue::Win(_) = before {
                    assert_eq!(after, before, "{context}: not the quickest win");
                }
            };
            let players: &mut [&mut dyn Player<Slide>] = if engine_seat == Seat(0) {
                &mut [&mut engine, &mut classic]
            } else {
                &mut [&mut classic, &mut engine]
            };
            let record = play_game(&start, &opening, players, &mut observe);
            let Status::Over(outcome) = record.status() else { panic!("game unfinished") };
            let result = outcome.result_for(engine_seat);
            if let Some(value) = first_value {
                assert!(
                    result + 1 >= class(value) as i32,
                    "{size}x{size} k={empty} levels={levels}: {value} but {outcome:?}"
                );
            }
            match outcome {
                Outcome::Win(s) if s == engine_seat => tally.0 += 1,
                Outcome::Win(_) => tally.2 += 1,
                _ => tally.1 += 1,
            }
        }
    }
    tally
}

#[test]
fn engine_plays_perfectly_on_3x3_against_every_classic_level() {
    for empty in 0..=3 {
        let (wins, draws, losses) = check_variant(3, empty);
        println!("3x3 k={empty}: engine {wins} wins, {draws} draws, {losses} losses");
    }
}

#[test]
fn engine_plays_perfectly_on_4x4_against_every_classic_level() {
    for empty in 0..=3 {
        let (wins, draws, losses) = check_variant(4, empty);
        println!("4x4 k={empty}: engine {wins} wins, {draws} draws, {losses} losses");
    }
}

#[test]
fn engine_takes_a_win_in_one_and_blocks_a_loss_in_one_on_large_boards() {
    let variant = SlideVariant::new(6, 0).unwrap();
    let mut engine = EnginePlayer::new(Some(std::time::Duration::from_millis(50)), None);
    // Blue to move with five in the top row: it completes the row on square 6.
    let rows = ["bbbbbg", "oooogg", "gggggg", "gggggg", "gggggg", "oggggg"];
    let win = Slide::from_notation(&variant, &column_major(6, &rows)).unwrap();
    assert_eq!(engine.choose_move(&Record::new(win)).to_string(), "6");
    // Orange to move, cannot win at once, and blue threatens square 6: orange blocks it.
    let rows = ["bbbbbg", "oooogg", "gggggg", "gggggg", "gggggg", "bggggo"];
    let threat = Slide::from_notation(&variant, &column_major(6, &rows)).unwrap();
    assert_eq!(threat.side_to_move().letter(), 'o');
    assert_eq!(engine.choose_move(&Record::new(threat)).to_string(), "6");
}

fn column_major(n: usize, rows: &[&str]) -> String {
    let rows: Vec<Vec<char>> = rows.iter().map(|r| r.chars().collect()).collect();
    (0..n).flat_map(|c| rows.iter().map(move |r| r[c])).collect()
}
