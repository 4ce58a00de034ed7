//! Reversi's levels of play (`engine:level=1..10`): parsing by number and name, refusals,
//! descriptions that round-trip, seeded determinism, draws only among near-equal moves at the
//! low levels, and the engine's own best move at the levels without a margin.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tabletop::games::reversi::engine::Engine;
use tabletop::games::reversi::levels::{choose, Level, LevelPlayer, LEVELS};
use tabletop::games::reversi::players::make_player;
use tabletop::games::reversi::solver::Solver;
use tabletop::games::reversi::{Reversi, ReversiMove};
use tabletop::{Player, PlayerSpec, Record, SpecError};

/// A midgame position (40 empties): the tiger opening, then the depth-3 engine for both sides.
fn midgame() -> Record<Reversi> {
    let mut record = Record::new(Reversi::new());
    for mv in ["f5", "d6", "c3", "d3", "c4", "f4"] {
        record.play(mv.parse().unwrap()).unwrap();
    }
    let mut engine = Engine::new(None, Some(3));
    while record.current().open_squares() > 40 {
        let mv = engine.analyse(record.current()).best;
        record.play(mv).unwrap();
    }
    record
}

fn spec(text: &str) -> PlayerSpec {
    text.parse().unwrap()
}

#[test]
fn levels_are_numbered_one_to_ten_and_get_stronger() {
    for (i, level) in LEVELS.iter().enumerate() {
        assert_eq!(level.number as usize, i + 1);
        assert_eq!(Level::parse(&level.number.to_string()).unwrap(), level);
        assert_eq!(Level::parse(level.name).unwrap(), level);
        assert_eq!(Level::parse(&level.name.to_ascii_uppercase()).unwrap(), level);
    }
    for pair in LEVELS.windows(2) {
        // A deeper level may draw among more moves (level 3), but never sees less.
        assert!(pair[1].depth >= pair[0].depth && pair[1].solve_empties >= pair[0].solve_empties);
    }
    assert_eq!(LEVELS[9].margin, 0, "the top level never draws among moves");
    let names: Vec<&str> = LEVELS.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            "beginner",
            "novice",
            "casual",
            "intermediate",
            "club",
            "advanced",
            "expert",
            "master",
            "grandmaster",
            "maximum"
        ]
    );
    assert_eq!(LEVELS[0].label(), "Beginner (level 1)");
    assert_eq!(LEVELS[9].label(), "Maximum (level 10)");
}

#[test]
fn level_specs_by_number_and_name_describe_themselves_canonically() {
    for (text, described) in [
        ("engine:level=1", "engine:level=1"),
        ("engine:level=club", "engine:level=5"),
        ("ENGINE:LEVEL=Grandmaster", "engine:level=9"),
        ("engine:level=10", "engine:level=10"),
        ("engine:seed=42,level=novice", "engine:level=2,seed=42"),
    ] {
        let player = make_player(&spec(text), 1).unwrap();
        assert_eq!(player.describe(), described, "{text}");
        // The description is a spec that builds the same player.
        assert_eq!(make_player(&spec(&player.describe()), 1).unwrap().describe(), described);
    }
    // The other engine settings are unchanged.
    assert_eq!(make_player(&spec("engine:time=100ms,depth=3"), 1).unwrap().describe(), "engine:depth=3,time=100ms");
    assert_eq!(make_player(&spec("engine"), 1).unwrap().describe(), "engine:time=1s");
}

#[test]
fn bad_levels_are_refused_with_the_valid_values() {
    for bad in ["0", "11", "-1", "clubs", "1.5", "99999999999999999999999"] {
        let err = make_player(&spec(&format!("engine:level={bad}")), 1).err().expect(bad);
        assert!(matches!(err, SpecError::BadValue { ref key, .. } if key == "level"), "{bad}: {err}");
        let text = err.to_string();
        assert!(text.contains("a level from 1 to 10 or its name: 1 beginner, 2 novice"), "{text}");
        assert!(text.contains("10 maximum"), "{text}");
    }
    let err = make_player(&spec("engine:level=3,time=1s"), 1).err().unwrap().to_string();
    assert!(err.contains("a level sets its own depth and time"), "{err}");
    let err = make_player(&spec("engine:level=3,depth=4"), 1).err().unwrap().to_string();
    assert!(err.contains("bad value \"4\" for depth"), "{err}");
    let err = make_player(&spec("engine:seed=3"), 1).err().unwrap().to_string();
    assert!(err.contains("a seed only with a level"), "{err}");
    let err = make_player(&spec("engine:level=2,seed=x"), 1).err().unwrap().to_string();
    assert!(err.contains("a whole number"), "{err}");
    let err = make_player(&spec("engine:levels=2"), 1).err().unwrap().to_string();
    assert!(err.contains("valid settings: time, depth, level, seed, clock"), "{err}");
}

/// The moves a player makes from `record`, playing both sides for `plies` plies.
fn self_play(spec_text: &str, seed: u64, plies: usize) -> Vec<ReversiMove> {
    let mut player = make_player(&spec(spec_text), seed).unwrap();
    let mut record = midgame();
    let mut moves = Vec::new();
    for _ in 0..plies {
        if record.current().is_over() {
            break;
        }
        let mv = player.choose_move(&record);
        record.play(mv).unwrap();
        moves.push(mv);
    }
    moves
}

#[test]
fn a_seed_gives_the_same_game_and_reset_starts_it_again() {
    for level in ["1", "2", "3", "4"] {
        let a = self_play(&format!("engine:level={level}"), 7, 16);
        assert_eq!(a, self_play(&format!("engine:level={level}"), 7, 16), "level {level}");
        assert_eq!(a, self_play(&format!("engine:level={level},seed=7"), 99, 16), "seed= wins over the default");
    }
    let level = Level::parse("beginner").unwrap();
    let mut player = LevelPlayer::try_new(level, 3, "engine:level=1".into()).unwrap();
    let record = midgame();
    let first: Vec<ReversiMove> = (0..5).map(|_| player.choose_move(&record)).collect();
    tabletop::Player::reset(&mut player);
    let again: Vec<ReversiMove> = (0..5).map(|_| player.choose_move(&record)).collect();
    assert_eq!(first, again);
}

#[test]
fn low_levels_vary_with_the_seed_but_only_among_near_equal_moves() {
    // The positions of a game played on from the midgame by the depth-3 engine.
    let mut record = midgame();
    let mut positions = vec![*record.current()];
    let mut engine = Engine::new(None, Some(3));
    while record.current().open_squares() > 20 {
        record.play(engine.analyse(record.current()).best).unwrap();
        positions.push(*record.current());
    }
    for level in &LEVELS[..4] {
        assert!(level.margin > 0 && 20 > level.solve_empties);
        // The first position with at least two moves within the margin and one outside it.
        let found = positions.iter().find_map(|position| {
            let values = engine.move_values(position, level.depth);
            let best = values.iter().map(|v| v.1).max()?;
            let near: Vec<ReversiMove> = values.iter().filter(|v| v.1 >= best - level.margin).map(|v| v.0).collect();
            (near.len() >= 2 && near.len() < values.len()).then_some((position, near))
        });
        let (position, near) =
            found.unwrap_or_else(|| panic!("level {}: no position tells near from far", level.number));
        let mut chosen = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let mv = choose(&mut engine, level, position, &mut ChaCha8Rng::seed_from_u64(seed));
            assert!(near.contains(&mv), "level {} seed {seed}: {mv} is not within the margin", level.number);
            chosen.insert(mv.to_string());
        }
        assert!(chosen.len() >= 2, "level {}: one move for every seed: {chosen:?}", level.number);
    }
}

#[test]
fn levels_without_a_margin_play_the_engines_best_move() {
    let record = midgame();
    let position = record.current();
    for level in &LEVELS[4..7] {
        let best = Engine::new(None, Some(level.depth)).analyse(position).best;
        for seed in [1, 2] {
            let mut player = LevelPlayer::try_new(level, seed, String::new()).unwrap();
            assert_eq!(player.choose_move(&record), best, "level {}", level.number);
        }
    }
}

#[test]
fn the_top_levels_play_a_perfect_endgame() {
    // The midgame played on by the depth-2 engine to 14 empties: within the exact solve of
    // every level from level 7.
    let mut record = midgame();
    let mut engine = Engine::new(None, Some(2));
    while record.current().open_squares() > 14 || record.current().legal_placements().is_empty() {
        let mv = engine.analyse(record.current()).best;
        record.play(mv).unwrap();
    }
    let position = *record.current();
    assert!(position.open_squares() <= 14 && position.open_squares() > LEVELS[5].solve_empties);
    let scores = Solver::new(16).solve_all(&position);
    let best = scores.iter().map(|s| s.1).max().unwrap();
    assert!(scores.iter().any(|s| s.1 < best), "a position where some moves lose discs");
    for level in &LEVELS[6..] {
        let mv = LevelPlayer::try_new(level, 1, String::new()).unwrap().choose_move(&record);
        let score = scores.iter().find(|s| s.0 == mv).map(|s| s.1);
        assert_eq!(score, Some(best), "level {} played {mv}", level.number);
    }
}
