//! The conformance suite on Mathable: seeded random games on several settings.

use tabletop::conformance::{check_playouts, check_position, Report};
use tabletop::games::mathable::{
    players::greedy_move, Layout, Mathable, MathableRandomPlayer, Preset, Settings, TokenSet,
};
use tabletop::{Game, Player, Record};

/// Plays games with the random (and greedy) players, which rarely terminate, so games reach
/// the end of the bag, and checks every position with the generic suite.
fn playouts(settings: Settings, games: u64) -> Report {
    let mut report = Report::default();
    let mut moves = Vec::new();
    for g in 0..games {
        let start = Mathable::new(&settings.with_seed(g)).unwrap();
        let mut record = Record::new(start);
        let mut random = MathableRandomPlayer::new(g);
        for ply in 0..2000 {
            let position = record.current().clone();
            check_position(&position, &mut moves, &mut report).unwrap_or_else(|e| panic!("game {g} ply {ply}: {e}"));
            if record.status().to_move().is_none() {
                report.finished_games += 1;
                break;
            }
            let mv = if g % 2 == 0 { random.choose_move(&record) } else { greedy_move(&position) };
            record.play(mv).unwrap();
        }
    }
    report
}

#[test]
fn mathable_small_boards_pass_conformance_to_the_end() {
    let junior = Settings { size: 8, rack: 4, ..Settings::preset(Preset::Junior) };
    let report = playouts(junior, 4);
    assert_eq!(report.finished_games, 4, "{report:?}");
    assert!(report.moves > 1000, "{report:?}");
    let official8 = Settings { size: 8, players: 3, tokens: TokenSet::Junior, ..Settings::preset(Preset::Classic) };
    let report = playouts(official8, 2);
    assert_eq!(report.finished_games, 2, "{report:?}");
}

#[test]
fn mathable_classic_passes_conformance() {
    let classic = Settings::preset(Preset::Classic);
    let report = playouts(classic, 1);
    assert_eq!(report.finished_games, 1, "{report:?}");
    let plain = Settings { size: 10, players: 4, rack: 8, layout: Layout::Plain, ..classic };
    let report = check_playouts(&Mathable::start(&plain), 3, 40, 5);
    assert!(report.positions > 20, "{report:?}");
}
