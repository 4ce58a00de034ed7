//! The players Reversi offers, by name: `engine` (default), `engine-v1`, `classic`, `random`.

use super::classic::ClassicPlayer;
use super::engine::EnginePlayer;
use super::rules::Reversi;
use crate::game::Player;
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::players::RandomPlayer;

/// The computer players and their settings.
pub const PLAYERS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "depth"],
        help: "iterative-deepening PVS with a pattern evaluation and an exact endgame solve (default time=1s)",
    },
    PlayerKind {
        name: "engine-v1",
        settings: &["time", "depth"],
        help: "the engine with its former ten-feature evaluation, for comparison (default time=1s)",
    },
    PlayerKind {
        name: "classic",
        settings: &["depth"],
        help: "a classic fixed-depth minimax on square weights (default depth=6)",
    },
    PlayerKind { name: "random", settings: &["seed"], help: "a uniformly random legal move" },
];

/// Builds the player a spec names; `seed` seeds random players that set no seed themselves.
///
/// ```
/// use tabletop::games::reversi::players::make_player;
/// let player = make_player(&"classic:depth=4".parse().unwrap(), 1).unwrap();
/// assert_eq!(player.describe(), "classic:depth=4");
/// assert!(make_player(&"classic:time=1s".parse().unwrap(), 1).is_err());
/// ```
pub fn make_player(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<Reversi>>, SpecError> {
    let kind = spec.check(PLAYERS)?;
    Ok(match kind.name {
        "engine" | "engine-v1" => {
            let time = spec.get_duration("time")?;
            let depth = spec.get_in_range("depth", 1..=60)?.map(|d| d as u32);
            let desc = if spec.settings.is_empty() { format!("{}:time=1s", kind.name) } else { spec.to_string() };
            if kind.name == "engine" {
                Box::new(EnginePlayer::try_new(time, depth, desc)?)
            } else {
                Box::new(EnginePlayer::try_new_v1(time, depth, desc)?)
            }
        }
        "classic" => Box::new(ClassicPlayer { depth: spec.get_in_range("depth", 1..=20)?.unwrap_or(6) as u32 }),
        _ => Box::new(RandomPlayer::new(spec.get_u64("seed")?.unwrap_or(seed))),
    })
}
