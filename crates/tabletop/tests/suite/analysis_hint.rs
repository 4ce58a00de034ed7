//! The hint is the analysis' best move, for every game in the registry: the server's session
//! hint and analysis with one budget (reproducible settings, so two separate analyses agree).

use std::time::Duration;

use serde_json::json;
use tabletop::registry::GAMES;

#[test]
fn the_hint_is_the_analysis_best_move_in_every_game() {
    for game in GAMES {
        let mut session = game.session.new_session(&json!({}), &json!({"seed": 7})).unwrap();
        // A few moves in, so that the position is not only the start.
        for ply in 0..4 {
            let legal = session.view(Some(ply % 2))["legal"].clone();
            let Some(first) = legal.as_array().and_then(|l| l.iter().find(|m| m.as_str() != Some("terminate"))) else {
                break;
            };
            if session.play(first.as_str().unwrap()).is_err() {
                break;
            }
        }
        let budget = Duration::from_millis(150);
        let caps = tabletop::session::Caps { max_think: Duration::from_secs(2), engine_memory: 1 << 30 };
        let hint = session.hint(&mut None, budget, &caps).expect("a move to suggest");
        let analysis = session.analyze(None, budget).unwrap();
        let best = &analysis["moves"][0];
        assert_eq!(hint["move"], best["move"], "{}: {hint} vs {analysis}", game.name);
        assert_eq!(hint["value"], best["value"], "{}", game.name);
        // Every estimate at one depth; the open moves are exactly the estimates.
        let moves = analysis["moves"].as_array().unwrap();
        let open: Vec<_> = moves.iter().filter(|m| m["exact"] == false).map(|m| m["move"].clone()).collect();
        assert_eq!(analysis["open"].as_array().unwrap(), &open, "{}", game.name);
        let depths: std::collections::BTreeSet<String> = moves
            .iter()
            .filter(|m| m["exact"] == false && !m["depth"].is_null())
            .map(|m| m["depth"].to_string())
            .collect();
        assert!(depths.len() <= 1, "{}: {depths:?}", game.name);
    }
}
