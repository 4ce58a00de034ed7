//! The tournament library (`tabletop::tournament`) on random players: results that do not
//! depend on the concurrency, resuming from committed games, and withdrawals of a player that
//! cannot be built (the command's own tests, with real engines, bots and `kill -9`, are in
//! `crates/tabletop-cli/tests/cli/tournament.rs`).

use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::players::RandomPlayer;
use tabletop::tournament::run::{play_tournament, write_saved_game, Event, Played, Tournament};
use tabletop::tournament::schedule::{Entrant, Format, Settings};
use tabletop::tournament::{GameResult, Openings};
use tabletop::Player;

fn settings(players: usize, max_failures: usize) -> Settings {
    Settings {
        game: "connect".into(),
        variant: String::new(),
        players: (0..players).map(|i| Entrant { name: format!("p{i}"), spec: "random".into() }).collect(),
        format: Format::RoundRobin,
        rounds: 2,
        games_per_pairing: 4,
        seed: 9,
        openings: String::new(),
        sprt: None,
        max_failures,
        tc: None,
    }
}

/// A tournament of random players.
fn play(settings: &Settings, concurrency: usize, done: Vec<GameResult>) -> Played {
    let openings = Openings::Random { start: Connect::new(ConnectVariant::connect4()), plies: 0..=2 };
    let make =
        |_: usize, seed: u64| -> Result<Box<dyn Player<Connect>>, String> { Ok(Box::new(RandomPlayer::new(seed))) };
    let tournament =
        Tournament { settings, openings: &openings, make: &make, write: &write_saved_game, concurrency, controls: &[] };
    play_tournament(&tournament, done, &mut |_| Ok(())).unwrap()
}

fn outcomes(played: &Played) -> Vec<(usize, [usize; 2], String, String)> {
    played.results.iter().map(|r| (r.index, r.seats, r.result_text().to_string(), r.reason.clone())).collect()
}

#[test]
fn results_do_not_depend_on_the_concurrency() {
    let s = settings(4, 3);
    let one = play(&s, 1, Vec::new());
    let three = play(&s, 3, Vec::new());
    assert_eq!(one.results.len(), 2 * 4 * 6);
    assert_eq!(outcomes(&one), outcomes(&three));
    // Each opening slot is the same for every pairing, and the two games of a pair share it.
    let slot_openings: std::collections::HashMap<usize, &str> =
        one.results.iter().map(|r| (r.opening, r.opening_text.as_str())).collect();
    assert!(one.results.iter().all(|r| slot_openings[&r.opening] == r.opening_text));
}

#[test]
fn a_resumed_tournament_plays_only_the_rest_and_refuses_other_games() {
    let s = settings(3, 3);
    let whole = play(&s, 2, Vec::new());
    let resumed = play(&s, 2, whole.results[..7].to_vec());
    assert_eq!(outcomes(&resumed), outcomes(&whole));
    let openings = Openings::Random { start: Connect::new(ConnectVariant::connect4()), plies: 0..=2 };
    let make =
        |_: usize, seed: u64| -> Result<Box<dyn Player<Connect>>, String> { Ok(Box::new(RandomPlayer::new(seed))) };
    let tournament = Tournament {
        settings: &s,
        openings: &openings,
        make: &make,
        write: &write_saved_game,
        concurrency: 1,
        controls: &[],
    };
    let mut gap = whole.results[..7].to_vec();
    gap.remove(3);
    let err = play_tournament(&tournament, gap, &mut |_| Ok(())).unwrap_err();
    assert_eq!(err.to_string(), "the results file does not fit this tournament: game 4 is missing");
}

#[test]
fn a_player_that_cannot_be_built_forfeits_and_is_withdrawn_after_max_failures() {
    let s = settings(3, 2);
    let openings = Openings::Random { start: Connect::new(ConnectVariant::connect4()), plies: 0..=2 };
    let make = |p: usize, seed: u64| -> Result<Box<dyn Player<Connect>>, String> {
        if p == 1 {
            Err("no such program".into())
        } else {
            Ok(Box::new(RandomPlayer::new(seed)))
        }
    };
    let mut events = Vec::new();
    for concurrency in [1, 3] {
        let tournament = Tournament {
            settings: &s,
            openings: &openings,
            make: &make,
            write: &write_saved_game,
            concurrency,
            controls: &[],
        };
        let played = play_tournament(&tournament, Vec::new(), &mut |e| {
            if let Event::Withdrawn { player, reason } = e {
                events.push((player, reason.to_string()));
            }
            Ok(())
        })
        .unwrap();
        let with_p1: Vec<&GameResult> = played.results.iter().filter(|r| r.seats.contains(&1)).collect();
        assert_eq!(with_p1.len(), 2, "withdrawn after two forfeits in a row");
        assert!(with_p1.iter().all(|r| r.forfeiter() == Some(1) && r.reason == "p1 forfeits: no such program"));
        assert!(played.withdrawn[1].as_deref().unwrap().starts_with("p1 withdrawn after forfeiting 2 games in a row"));
        // p0 against p2 is played in full: 2 rounds of 4 games.
        assert_eq!(played.results.len(), 2 + 8);
    }
    assert_eq!(events.len(), 2);
    assert_eq!(events[0], events[1]);
}

#[test]
fn deals_give_each_pair_its_own_start_whatever_the_concurrency() {
    use tabletop::games::mathable::matches::Bounded;
    use tabletop::games::mathable::openings::deal;
    use tabletop::games::mathable::{GreedyPlayer, Mathable, MathableRandomPlayer, Preset, Settings as Deal};
    let s = Settings { game: "mathable".into(), ..settings(2, 3) };
    let start = Mathable::new(&Deal::preset(Preset::Junior)).unwrap();
    let openings = Openings::Deals { start, deal };
    let make = |p: usize, seed: u64| -> Result<Box<dyn Player<Mathable>>, String> {
        let inner: Box<dyn Player<Mathable>> =
            if p == 0 { Box::new(GreedyPlayer) } else { Box::new(MathableRandomPlayer::new(seed)) };
        Ok(Box::new(Bounded(inner)))
    };
    let play = |concurrency| {
        let tournament = Tournament {
            settings: &s,
            openings: &openings,
            make: &make,
            write: &write_saved_game,
            concurrency,
            controls: &[],
        };
        play_tournament(&tournament, Vec::new(), &mut |_| Ok(())).unwrap()
    };
    let (one, two) = (play(1), play(2));
    assert_eq!(one.results.len(), 8);
    assert_eq!(outcomes(&one), outcomes(&two));
    for pair in one.results.chunks(2) {
        assert_eq!(pair[0].opening_text, pair[1].opening_text, "a pair plays one deal");
        assert_eq!(pair[0].seats, [pair[1].seats[1], pair[1].seats[0]], "with the seats swapped");
    }
    let deals: std::collections::HashSet<&str> = one.results.iter().map(|r| r.opening_text.as_str()).collect();
    assert_eq!(deals.len(), 4, "each opening slot its own deal");
    // Greedy play beats random play on most deals.
    let greedy: f64 = one.results.iter().map(|r| r.points_of(0).unwrap()).sum();
    assert!(greedy >= 5.0, "{greedy} of 8");
}
