//! The engine's player: it beats greedy, and it never looks at hidden information.

use tabletop::arena::play_game;
use tabletop::games::mathable::{EnginePlayer, GreedyPlayer, Mathable, Preset, SaveState, Settings};
use tabletop::{Game, Outcome, Player, Record, Seat, Status};

#[test]
fn engine_beats_greedy_in_a_short_match() {
    let (mut wins, mut points) = (0, [0i64; 2]);
    for game in 0..8u64 {
        let start = Mathable::new(&Settings::preset(Preset::Classic).with_seed(100 + game / 2)).unwrap();
        let mut engine = EnginePlayer::new(game);
        let mut greedy = GreedyPlayer;
        let engine_seat = (game % 2) as usize;
        let record = if engine_seat == 0 {
            play_game(&start, &[], &mut [&mut engine, &mut greedy], |_, _, _| {})
        } else {
            play_game(&start, &[], &mut [&mut greedy, &mut engine], |_, _, _| {})
        };
        let end = record.current();
        if end.status() == Status::Over(Outcome::Win(Seat(engine_seat as u8))) {
            wins += 1;
        }
        points[0] += end.score(Seat(engine_seat as u8)) as i64;
        points[1] += end.score(Seat(1 - engine_seat as u8)) as i64;
    }
    assert!(wins >= 5, "engine won only {wins} of 8");
    assert!(points[0] as f64 >= 1.15 * points[1] as f64, "{points:?}");
}

#[test]
fn engine_decisions_do_not_depend_on_hidden_racks_or_the_bag_order() {
    let mut game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(4)).unwrap();
    for _ in 0..12 {
        let mv = tabletop::games::mathable::players::greedy_move(&game);
        game.play(mv).unwrap();
    }
    let mut save = SaveState::from_game(&game, &[]);
    let me = save.to_move as usize;
    let other = 1 - me;
    // Swap the opponent's rack with other unseen tokens and change the generator's state.
    let mut bag = save.bag.take().unwrap();
    let opp = std::mem::take(&mut save.racks[other]);
    let n = opp.len();
    let new_opp: Vec<u8> = bag.drain(bag.len() - n..).collect();
    bag.extend(opp);
    save.racks[other] = new_opp;
    save.bag = Some(bag);
    save.rng_word_pos = "12345".to_string();
    let changed = save.to_game().unwrap();
    assert_ne!(changed, game);
    let a = EnginePlayer::new(9).choose_move(&Record::new(game.clone()));
    let b = EnginePlayer::new(9).choose_move(&Record::new(changed));
    assert_eq!(a, b);
}
