//! Game clocks in matches and for players (`arena::play_timed`, `Player::set_clock`), the flag
//! rules of the games, the saved game's clock lines and the external protocol's `time` line.

use std::time::Duration;

use tabletop::arena::play_timed;
use tabletop::clock::TimeControl;
use tabletop::external::ExternalPlayer;
use tabletop::games::connect::{Column, Connect, ConnectVariant};
use tabletop::games::mnk::Mnk;
use tabletop::players::{RandomPlayer, TimeLeft};
use tabletop::record::ClockLog;
use tabletop::{Game, Outcome, Player, Record, Seat};

/// Sleeps `think` before each move, then plays the first legal move.
struct Sleeper {
    think: Duration,
}

impl Player<Connect> for Sleeper {
    fn describe(&self) -> String {
        "sleeper".to_string()
    }
    fn choose_move(&mut self, record: &Record<Connect>) -> Column {
        std::thread::sleep(self.think);
        let mut moves = Vec::new();
        record.current().legal_moves(&mut moves);
        moves[0]
    }
}

fn connect3() -> Connect {
    Connect::new(ConnectVariant::connect3())
}

fn control(text: &str) -> TimeControl {
    text.parse().unwrap()
}

#[test]
fn a_player_slower_than_its_clock_loses_on_time_even_when_it_answers() {
    let mut slow = Sleeper { think: Duration::from_millis(400) };
    let mut random = RandomPlayer::new(1);
    // The random player has a minute; the sleeper a fifth of a second for the whole game.
    let game = play_timed(
        &connect3(),
        &[],
        &mut [&mut random, &mut slow],
        &[control("1+0"), control("0:00.2+0")],
        |_, _, _| {},
    );
    assert_eq!(game.out_of_time, Some(Seat(1)));
    assert_eq!(game.outcome, Outcome::Win(Seat(0)));
    assert_eq!(game.reason, "seat 2 ran out of time");
    assert!(game.forfeit.is_none());
    // Its late move was not played: the record stops after seat 1's first move.
    assert_eq!(game.record.moves().len(), 1);
    assert_eq!(game.clock_share(1), Some(1.0));
}

#[test]
fn an_untimed_game_keeps_no_clock() {
    let (mut a, mut b) = (RandomPlayer::new(1), RandomPlayer::new(2));
    let game = play_timed(&connect3(), &[], &mut [&mut a, &mut b], &[], |_, _, _| {});
    assert!(game.out_of_time.is_none() && game.move_clocks.iter().all(Option::is_none));
    assert_eq!(game.clock_share(0), None);
    assert_eq!(game.to_text(), game.record.to_text() + &format!("result {}\n", result_words(&game)));
}

fn result_words(game: &tabletop::arena::Finished<Connect>) -> String {
    let winners = match game.outcome {
        Outcome::Win(seat) => (seat.index() + 1).to_string(),
        _ => "draw".to_string(),
    };
    format!("{winners} {}", game.reason)
}

#[test]
fn a_timed_game_saves_every_moves_time_and_reads_back() {
    let (mut a, mut b) = (RandomPlayer::new(3), RandomPlayer::new(4));
    let opening = [Column(1)];
    let game = play_timed(&connect3(), &opening, &mut [&mut a, &mut b], &[control("1+0.5")], |_, _, _| {});
    let text = game.to_text();
    assert!(text.contains("\nclock 1+0.5\ntimes - "), "{text}");
    let (record, clocks) = Record::<Connect>::from_text_timed(&ConnectVariant::connect3(), &text).unwrap();
    assert_eq!(record.moves(), game.record.moves());
    let clocks = clocks.expect("the clock lines");
    assert_eq!(clocks.controls, [control("1+0.5")]);
    assert_eq!(clocks.moves.len(), game.move_clocks.len());
    // The opening's move has no time; every other move its time and the clock after it, to the
    // millisecond: each mover had a minute, plus half a second a move, less what it used.
    assert_eq!(clocks.moves[0], None);
    for (read, played) in clocks.moves.iter().zip(&game.move_clocks).skip(1) {
        let (read, played) = (read.unwrap(), played.unwrap());
        assert_eq!((read.used_ms, read.remaining_ms), (played.used_ms, played.remaining_ms));
        assert!(played.remaining_ms.unwrap() > 60_000, "a random mover gains time: {played:?}");
    }
    // A damaged times line is refused with its line number.
    let bad = text.replace("times - ", "times - x ");
    let error = Record::<Connect>::from_text_timed(&ConnectVariant::connect3(), &bad).unwrap_err();
    assert!(error.to_string().starts_with("line 5:"), "{error}");
    let short = text.replace("times - ", "times ");
    assert!(Record::<Connect>::from_text_timed(&ConnectVariant::connect3(), &short).is_err());
    assert_eq!(ClockLog::default().controls.len(), 0);
}

/// Tic-tac-toe after X a1, O b2, X b3, O a2, X c2, O b1, X c1: every line holds an X, and X
/// could still make row 3.
fn blocked_tic_tac_toe() -> Mnk {
    let mut position = Mnk::start(&Default::default());
    for mv in ["a1", "b2", "b3", "a2", "c2", "b1", "c1"] {
        let parsed = position.parse_move(mv).unwrap();
        position.play(parsed).unwrap();
    }
    position
}

#[test]
fn running_out_of_time_draws_when_the_others_could_no_longer_win() {
    let position = blocked_tic_tac_toe();
    assert!(position.status().to_move().is_some());
    // O (seat 2) out of time: X could still fill row 3, so X wins.
    assert_eq!(position.out_of_time(Seat(1)), Outcome::Win(Seat(0)));
    // X out of time: every line holds an X, so O could never win: a draw.
    assert_eq!(position.out_of_time(Seat(0)), Outcome::Draw);
    // At the start, either side out of time loses.
    let start = Mnk::start(&Default::default());
    assert_eq!(start.out_of_time(Seat(0)), Outcome::Win(Seat(1)));
    // Connect: the same rule, on lines of cells without the side's stones.
    assert_eq!(connect3().out_of_time(Seat(0)), Outcome::Win(Seat(1)));
}

#[test]
fn engines_are_told_the_moves_they_may_expect() {
    assert_eq!(Mnk::start(&Default::default()).expected_moves_left(), 5);
    assert_eq!(blocked_tic_tac_toe().expected_moves_left(), 1);
    assert_eq!(connect3().expected_moves_left(), 6);
    assert_eq!(tabletop::games::reversi::Reversi::new().expected_moves_left(), 30);
}

#[test]
fn a_bot_is_told_both_clocks_and_the_increment() {
    let dir = std::env::temp_dir().join(format!("tabletop-clock-bot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let seen = dir.join("seen.txt");
    // Keeps every `time` line it is sent and answers column 2.
    let bot = format!(
        "while read l; do case \"$l\" in time*) echo \"$l\" >> '{}';; go) echo 'move 2';; esac; done",
        seen.display()
    );
    let second = Duration::from_secs(5);
    let mut player = ExternalPlayer::<Connect>::new(&bot, second, second);
    let s = Duration::from_secs;
    let clock = TimeLeft {
        control: control("5+3"),
        own: s(295),
        periods: 0,
        seats: vec![s(295), s(300)],
        moves_left: 6,
        move_times: vec![],
    };
    player.set_clock(Some(&clock));
    let record = Record::new(connect3());
    assert_eq!(player.choose_move_or_forfeit(&record), Ok(Column(1)));
    player.game_over(&record, Outcome::Draw, "test");
    drop(player);
    let lines = std::fs::read_to_string(&seen).unwrap();
    let budget = clock.budget().as_millis();
    assert_eq!(lines.trim(), format!("time {budget} left 295000 300000 increment 3000 control 5+3"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bot_that_hangs_under_a_clock_loses_on_time_not_by_a_timeout() {
    // Its per-move timeout is long; the clock (half a second for the game) decides.
    let mut hanging = ExternalPlayer::<Connect>::new("sleep 30", Duration::from_secs(20), Duration::from_secs(20));
    let mut random = RandomPlayer::new(1);
    let game = play_timed(&connect3(), &[], &mut [&mut random, &mut hanging], &[control("0:00.5+0")], |_, _, _| {});
    assert_eq!((game.out_of_time, game.outcome), (Some(Seat(1)), Outcome::Win(Seat(0))));
    assert!(game.times[1].total < Duration::from_secs(10), "waited {:?}", game.times[1].total);
}
