//! The m,n,k-game: k in a row on a board of m columns and n rows, tic-tac-toe (3,3,3) by default.
//! The sixth game, and the smallest: its rules ([`rules`]), a naive reference for the
//! conformance suite ([`conformance`]), and this file, which gives it the library's standard
//! parts: the generic search's players and analysis ([`crate::searched`]), the review on proved
//! results, the grid's board JSON, terminal and environment ([`crate::grid`]), and the standard
//! commands ([`crate::tools::standard`]).
//!
//! Under a game clock a side whose time runs out loses, unless every line of k cells holds
//! one of its pieces (the other side could never win): a draw ([`crate::grid::out_of_time_by_lines`]).

pub mod conformance;
pub mod rules;

use serde_json::Value;

pub use rules::{Mnk, MnkVariant};

use crate::environment::Environments;
use crate::grid::{board_json, CellActions};
use crate::record::Record;
use crate::session::{option_usize, Adapter, OptionField, OptionKind, ReviewRange, Served, SessionError};
use crate::Game;

/// The m,n,k-game on the server: the options m, n and k, the grid's board JSON.
pub struct MnkAdapter;

/// An option from 1 to 15 with its default.
const fn side(key: &'static str, label: &'static str, default: i64) -> OptionField {
    OptionField { key, label, kind: OptionKind::Integer { min: 1, max: rules::MAX_SIDE as i64, default } }
}

impl Adapter<Mnk> for MnkAdapter {
    const NAME: &'static str = "mnk";
    const OPTION_FIELDS: &'static [OptionField] =
        &[side("m", "Columns (m)", 3), side("n", "Rows (n)", 3), side("k", "In a row (k)", 3)];
    const REVIEW: Option<ReviewRange<Mnk>> = Some(crate::review::review_range);

    fn start(options: &Value, _secret: &Value) -> Result<Mnk, SessionError> {
        let [m, n, k] = ["m", "n", "k"].map(|key| option_usize(options, key, 3));
        Ok(Mnk::start(&MnkVariant::new(m?, n?, k?).map_err(SessionError::options)?))
    }

    fn board(record: &Record<Mnk>, _viewer: Option<usize>) -> Value {
        board_json(record)
    }

    fn seat_name(seat: usize) -> String {
        ["X", "O"].get(seat).unwrap_or(&"?").to_string()
    }
}

/// The m,n,k-game in the [registry](crate::registry).
pub static ENTRY: crate::registry::GameEntry = crate::registry::GameEntry {
    name: "mnk",
    title: "m,n,k-game",
    about: "k in a row on an m x n board: tic-tac-toe (3,3,3) by default",
    player_kinds: crate::searched::PLAYER_KINDS,
    session: &Served::<Mnk, MnkAdapter>::new(),
    environment: Some(&Environments::<Mnk, MnkAdapter, CellActions>::new()),
    conformance: conformance::check,
    #[cfg(feature = "cli")]
    commands: &crate::tools::standard::StandardCommands::<Mnk, MnkAdapter>::new(
        "m,n,k-game",
        &[crate::tools::commands::PlayExample { args: &["--player", "o=random"], first_move: "b2" }],
    ),
    load_tests: &[],
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::Players;
    use crate::session::SessionFactory;
    use crate::{AnalysisSettings, Analyze};

    #[test]
    fn tic_tac_toe_is_a_draw_with_every_move_exact() {
        let analysis = Mnk::analyze(&Record::new(Mnk::start(&MnkVariant::default())), AnalysisSettings::depth(9));
        assert_eq!(analysis.moves.len(), 9);
        assert!(analysis.moves.iter().all(|m| m.exact), "{analysis:?}");
        // Every first move draws with perfect play, the best one too.
        assert!(analysis.moves.iter().all(|m| m.score == 0 && m.text == "draw (exact)"), "{analysis:?}");
        let served = Served::<Mnk, MnkAdapter>::new();
        assert!(served.new_session(&serde_json::json!({"m": 3, "k": 4}), &Value::Null).is_err());
    }

    #[test]
    fn a_win_in_one_is_found_and_played() {
        let p = Mnk::from_notation(&MnkVariant::default(), "xx./oo./... x").unwrap();
        for time in [0, 50].map(std::time::Duration::from_millis) {
            // One ply (no time) and a search to the end.
            let best = Mnk::analyze(&Record::new(p), AnalysisSettings::time(time)).moves[0].clone();
            assert_eq!((best.notation.as_str(), best.text.as_str(), best.exact), ("c3", "wins in 1 move", true));
        }
        let mut engine = Mnk::make_player(&"engine:depth=2".parse().unwrap(), &p, 1).unwrap();
        assert_eq!(engine.choose_move(&Record::new(p)).to_string(), "c3");
    }
}
