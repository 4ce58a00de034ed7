//! One player vocabulary for every game (issue 25): every game's `engine` takes `level=1..10`
//! by number or name, `random` plays everywhere, the documents' classic players share one
//! spelling (`classic:depth=N`) with the older ones still read, and a level refuses `time=` and
//! `depth=`. Checked through the registry, as the server checks a seat's spec.

use std::time::Duration;

use serde_json::{json, Value};
use tabletop::levels::{parse_level, DEFAULT_COMPUTER, LEVEL_NAMES};
use tabletop::players::Players;
use tabletop::registry::GAMES;
use tabletop::session::{Caps, EngineSlot, Session};
use tabletop::PlayerSpec;

const CAPS: Caps = Caps { max_think: Duration::from_secs(10), engine_memory: 64 << 20 };

/// A new game of `game` with its default options.
fn session(game: &tabletop::registry::GameEntry) -> Box<dyn Session> {
    let mut secret = json!({});
    game.session.complete_secret(&mut secret);
    game.session
        .new_session(&Value::Object(Default::default()), &secret)
        .unwrap_or_else(|e| panic!("{}: {e}", game.name))
}

fn spec(text: &str) -> PlayerSpec {
    text.parse().unwrap()
}

#[test]
fn every_game_takes_every_level_by_number_and_by_name() {
    for game in GAMES {
        let s = session(game);
        for (i, name) in LEVEL_NAMES.iter().enumerate() {
            for text in [
                format!("engine:level={}", i + 1),
                format!("engine:level={name}"),
                format!("engine:level={}", name.to_uppercase()),
            ] {
                s.check_spec(&spec(&text), &CAPS).unwrap_or_else(|e| panic!("{}: {text}: {e}", game.name));
            }
        }
        for text in ["engine", "random", "engine:level=club,seed=3", DEFAULT_COMPUTER] {
            s.check_spec(&spec(text), &CAPS).unwrap_or_else(|e| panic!("{}: {text}: {e}", game.name));
        }
        for (text, says) in [
            ("engine:level=11", "1 beginner"),
            ("engine:level=0", "1 beginner"),
            ("engine:level=champion", "10 maximum"),
            ("engine:level=3,time=1s", "a level sets its own"),
        ] {
            let error = s.check_spec(&spec(text), &CAPS).expect_err(text).to_string();
            assert!(error.contains(says), "{}: {text}: {error}", game.name);
        }
        let engine = game.player_kinds.iter().find(|k| k.name == "engine").expect("every game has an engine");
        assert!(
            engine.help.contains("level=1..10") && engine.help.contains("10 maximum"),
            "{}: {}",
            game.name,
            engine.help
        );
    }
}

#[test]
fn every_game_plays_a_legal_move_at_the_lowest_middle_and_a_high_level() {
    for game in GAMES {
        let s = session(game);
        let mut slot: EngineSlot = None;
        for level in ["beginner", "4", "expert"] {
            let text = format!("engine:level={level},seed=5");
            let mv = s
                .computer_move(&spec(&text), &mut slot, &CAPS)
                .unwrap_or_else(|e| panic!("{}: {text}: {e}", game.name));
            s.check_move(&mv).unwrap_or_else(|e| panic!("{}: {text} chose {mv}: {e}", game.name));
        }
    }
}

#[test]
fn the_documents_classic_players_are_classic_depth_and_the_older_spellings_are_read() {
    use tabletop::games::{connect, reversi, slide};
    let slide_start = slide::Slide::new(3, 1).unwrap();
    let slide_player = |t: &str| slide::Slide::make_player(&spec(t), &slide_start, 1).map(|p| p.describe());
    assert_eq!(slide_player("classic:depth=5").unwrap(), "classic:depth=5");
    assert_eq!(slide_player("classic:levels=4").unwrap(), "classic:depth=5", "levels=N is max_levels: depth N+1");
    assert!(slide_player("classic:depth=5,levels=4").is_err());
    assert_eq!(slide_player("engine:level=Casual").unwrap(), "engine:level=3");
    let reversi_player = |t: &str| reversi::players::make_player(&spec(t), 1).map(|p| p.describe());
    assert_eq!(reversi_player("classic:depth=4").unwrap(), "classic:depth=4");
    let connect_start = connect::Connect::new(connect::ConnectVariant::connect3());
    let connect_player = |t: &str| connect::Connect::make_player(&spec(t), &connect_start, 1).map(|p| p.describe());
    assert_eq!(connect_player("connect:level=3,seed=1").unwrap(), "engine:level=3,seed=1");
    assert_eq!(connect_player("engine:level=3,seed=1").unwrap(), "engine:level=3,seed=1");
    assert_eq!(connect_player("engine:level=master").unwrap(), "engine:level=8");
    // Every level's word is the same in every game.
    for (i, name) in LEVEL_NAMES.iter().enumerate() {
        assert_eq!(parse_level(name).unwrap() as usize, i + 1);
    }
}
