//! External players (`tabletop::external`) and forfeits in matches (`arena::play_to_end`,
//! `run_match`), on Connect Three.

use std::time::Duration;

use tabletop::arena::{play_to_end, run_match, MatchSettings};
use tabletop::external::ExternalPlayer;
use tabletop::games::connect::{Column, Connect, ConnectVariant};
use tabletop::players::{Forfeit, RandomPlayer};
use tabletop::{Outcome, Player, Record, Seat};

/// Forfeits on its `after`-th move (from 1), and plays the first legal move before.
struct Quitter {
    after: usize,
    moves: usize,
}

impl Player<Connect> for Quitter {
    fn describe(&self) -> String {
        "quitter".to_string()
    }
    fn choose_move(&mut self, _record: &Record<Connect>) -> Column {
        unreachable!("matches ask choose_move_or_forfeit")
    }
    fn choose_move_or_forfeit(&mut self, record: &Record<Connect>) -> Result<Column, Forfeit> {
        self.moves += 1;
        if self.moves >= self.after {
            return Err(Forfeit { reason: "gave up".to_string() });
        }
        let mut moves = Vec::new();
        tabletop::Game::legal_moves(record.current(), &mut moves);
        Ok(moves[0])
    }
    fn reset(&mut self) {
        self.moves = 0;
    }
}

/// Always plays column 1, full or not.
struct Stubborn;

impl Player<Connect> for Stubborn {
    fn describe(&self) -> String {
        "stubborn".to_string()
    }
    fn choose_move(&mut self, _record: &Record<Connect>) -> Column {
        Column(0)
    }
}

fn start() -> Connect {
    Connect::new(ConnectVariant::connect3())
}

#[test]
fn a_forfeit_ends_the_game_as_a_loss_for_that_seat() {
    let mut quitter = Quitter { after: 2, moves: 0 };
    let mut random = RandomPlayer::new(1);
    let finished = play_to_end(&start(), &[], &mut [&mut random, &mut quitter], |_, _, _| {});
    let (seat, why) = finished.forfeit.expect("a forfeit");
    assert_eq!((seat, why.reason.as_str()), (Seat(1), "gave up"));
    assert_eq!(finished.outcome, Outcome::Win(Seat(0)));
    // Seat 1 moved once, then gave up on its second move (seat 0 had moved twice).
    assert_eq!(finished.record.moves().len(), 3);
}

#[test]
fn an_illegal_move_is_a_forfeit_not_a_crash() {
    let (mut a, mut b) = (Stubborn, Stubborn);
    let finished = play_to_end(&start(), &[], &mut [&mut a, &mut b], |_, _, _| {});
    let (seat, why) = finished.forfeit.expect("a forfeit");
    // Connect Three is 3 high: column 1 is full after 3 plies, and seat 1 is the first to find it so.
    assert!(why.reason.contains("stubborn chose an illegal move 1"), "{why}");
    assert_eq!((seat, finished.record.moves().len()), (Seat(1), 3));
    assert_eq!(finished.outcome, Outcome::Win(Seat(0)));
}

#[test]
fn a_match_counts_forfeits_and_goes_on() {
    let settings = MatchSettings::new(4, 1, Some(0), Some(0), 0..=0).unwrap();
    let mut quitter = Quitter { after: 1, moves: 0 };
    let mut random = RandomPlayer::new(3);
    let mut seen = Vec::new();
    let tally = run_match(&start(), &mut quitter, &mut random, &settings, |f, _| seen.push(f.forfeit.is_some()));
    assert_eq!(seen, [true; 4]);
    assert_eq!((tally.wins, tally.forfeits, tally.draws), ([0, 4], [4, 0], 0));
}

#[test]
fn external_settings_are_checked() {
    let bad = |text: &str| ExternalPlayer::<Connect>::from_spec(&text.parse().unwrap()).err();
    assert!(bad("external:timeout=1s").is_some_and(|e| e.to_string().contains("cmd")));
    assert!(bad(r#"external:cmd=" ",timeout=1s"#).is_some());
    assert!(bad("external:cmd=bot,timeout=0s").is_some_and(|e| e.to_string().contains("above zero")));
    assert!(bad("external:cmd=bot,timeout=1s,time=2s").is_some_and(|e| e.to_string().contains("at most")));
    assert!(bad("external:cmd=bot,depth=3").is_some_and(|e| e.to_string().contains("no setting")));
    assert!(bad("external:cmd=bot,timeout=2s,time=1s").is_none());
}

#[test]
fn a_bot_that_cannot_start_or_answers_badly_forfeits_with_the_reason() {
    let record = Record::new(start());
    let second = Duration::from_secs(5);
    let reason = |command: &str| {
        let mut player = ExternalPlayer::<Connect>::new(command, second, second);
        player.choose_move_or_forfeit(&record).unwrap_err().reason
    };
    assert_eq!(reason("exit 7"), "the bot exited before answering (exit status 7)");
    // A shell bot: reads until `go`, answers, and so on.
    let answering = |answer: &str| format!("while read l; do [ \"$l\" = go ] && echo '{answer}'; done");
    assert_eq!(
        reason(&answering("move 9")),
        "the bot's move \"9\" cannot be read: column 9 is off the board: choose 1 to 4"
    );
    assert_eq!(reason(&answering("pass")), "the bot answered \"pass\", not \"move MOVE\"");
    let mut player = ExternalPlayer::<Connect>::new(&answering("move 2"), second, second);
    assert_eq!(player.choose_move_or_forfeit(&record), Ok(Column(1)));
    assert_eq!(player.choose_move_or_forfeit(&record), Ok(Column(1)), "the same process answers again");
    let mut player = ExternalPlayer::<Connect>::new("sleep 60", Duration::from_millis(100), Duration::from_millis(100));
    assert_eq!(player.choose_move_or_forfeit(&record).unwrap_err().reason, "the bot timed out after 100ms");
}
