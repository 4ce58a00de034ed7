//! The registry of games: every front end (the `tabletop` command, the server, the page and the
//! generic test suites) finds the games here and names none of them itself.
//!
//! A game is its own folder under `games/` with a `pub static ENTRY: GameEntry`; the one line
//! that adds it to [`GAMES`] is in `games/mod.rs`.
//!
//! ```
//! let names: Vec<&str> = tabletop::registry::GAMES.iter().map(|g| g.name).collect();
//! assert!(names.contains(&"connect"));
//! assert!(tabletop::registry::find("chess").is_none());
//! ```

pub use crate::games::GAMES;

/// One game, as the front ends see it.
pub struct GameEntry {
    /// The short name on the command line and in the API (`slide`, `reversi`, ...).
    pub name: &'static str,
    /// The name people read (`Reversi / Othello`).
    pub title: &'static str,
    /// One line about the game.
    pub about: &'static str,
    /// The computer players it offers ([`Players::PLAYER_KINDS`](crate::players::Players)).
    pub player_kinds: &'static [crate::player_spec::PlayerKind],
    /// Starts the game's sessions for the server (`tabletop serve`).
    pub session: &'static dyn crate::session::SessionFactory,
    /// Loads the game as a learning [environment](crate::environment) (integer actions,
    /// observations, vectors of games): the Python package's way in. `None` for a game without
    /// an action numbering (the Python package does not list it); a grid game whose moves are
    /// cells gets one from [`grid::CellActions`](crate::grid::CellActions).
    pub environment: Option<&'static dyn crate::environment::EnvironmentFactory>,
    /// Runs the [conformance suite](crate::conformance) on the game's usual variants with
    /// seeded random playouts (panics on the first disagreement), for the generic test.
    pub conformance: fn(seed: u64) -> crate::conformance::Report,
    /// The game's commands for the `tabletop` binary.
    #[cfg(feature = "cli")]
    pub commands: &'static dyn crate::tools::GameCommands,
    /// The games the server's load and abuse benchmarks may play of this game, by role: the
    /// body of `POST /api/games` without its `game` key (JSON). The benchmarks take, for each
    /// role, the first game in the registry that offers it.
    pub load_tests: &'static [(LoadRole, &'static str)],
}

/// What a game is played for in the server's benchmarks (`tabletop bench serve`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadRole {
    /// Between two people, long enough that a client keeps one game going for 40 moves.
    LongBetweenPeople,
    /// Between two people, longer still (the ordinary players during the attacks).
    LongerBetweenPeople,
    /// Between two people, hundreds of plies of random moves with a growing state (slow readers).
    HundredsOfPlies,
    /// Between two people, any game (one address's own event streams).
    BetweenPeople,
    /// A person against a computer answering in 100 ms.
    QuickComputer,
    /// A person against the computer with its default settings.
    DefaultComputer,
    /// The computer moving first at a second a move.
    SecondAMoveFirst,
    /// The longest thinking a seat may ask for (10 s), the computer moving first.
    LongestThinkingFirst,
    /// The longest thinking a seat may ask for (10 s), the computer moving second.
    LongestThinkingSecond,
}

impl std::fmt::Debug for GameEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameEntry").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The game named `name` (case-insensitive), if there is one.
pub fn find(name: &str) -> Option<&'static GameEntry> {
    GAMES.iter().copied().find(|g| g.name.eq_ignore_ascii_case(name))
}

/// The games' names, comma-separated, for error messages.
///
/// ```
/// assert!(tabletop::registry::names().contains("reversi"));
/// ```
pub fn names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_lowercase_words() {
        let mut seen = std::collections::HashSet::new();
        for game in GAMES {
            assert!(seen.insert(game.name), "{} twice", game.name);
            assert!(game.name.chars().all(|c| c.is_ascii_lowercase()), "{}", game.name);
            assert!(!game.title.is_empty() && !game.about.is_empty(), "{}", game.name);
            // Every game offers the engine and a random player under those names.
            for name in ["engine", "random"] {
                assert!(game.player_kinds.iter().any(|k| k.name == name), "{}: no {name} player", game.name);
            }
        }
    }
}
