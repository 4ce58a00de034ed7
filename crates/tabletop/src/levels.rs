//! The ten levels of play every game offers as `engine:level=N` (1 to 10) or by name
//! (`beginner` .. `maximum`), and the default computer player of every front end.
//!
//! - [`LEVEL_NAMES`], [`parse_level`], [`level_label`]: the levels' numbers and names, the same
//!   in every game, so that "Club (level 5)" means the middle of every game's ladder.
//! - [`level_setting`]: the `level=` of an `engine` spec, refused with `time=`, `depth=` and
//!   the other settings a level fixes itself.
//! - [`MixedPlayer`]: a level built from two of a game's players, the stronger one choosing a
//!   given share of the moves (seeded). Most games build their levels this way; a game may
//!   also have its own table (depths, margins) behind the same names.
//! - [`DEFAULT_COMPUTER`]: the computer a person plays when they choose none, in the terminal
//!   and on the page alike.
//!
//! Each game's levels are calibrated by matches so that each level scores 65-90% against the one
//! below (the tables are in each game's document under docs/, with the commands).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::game::Game;
use crate::player_spec::{PlayerSpec, SpecError};
use crate::players::Player;
use crate::record::Record;

/// The levels' names, weakest first (`LEVEL_NAMES[n - 1]` is level `n`).
pub const LEVEL_NAMES: [&str; 10] =
    ["beginner", "novice", "casual", "intermediate", "club", "advanced", "expert", "master", "grandmaster", "maximum"];

/// The computer player a person meets when they choose none, in every game and every front end
/// (`tabletop play GAME` and the page's start form, whose first choice comes from the server's
/// catalog): the engine at its default thinking time. It is the one word every game gives the
/// same meaning ("the program's best play at a second a move"), the terminal has always
/// defaulted to it, and the documents' programs play their strongest by default too; a person
/// who wants a gentler opponent names a level (`engine:level=casual`), which the page lists
/// next to it.
pub const DEFAULT_COMPUTER: &str = "engine";

/// The level a setting names: its number `1`..`10` or its name, in any case.
///
/// ```
/// use tabletop::levels::parse_level;
/// assert_eq!(parse_level("5").unwrap(), 5);
/// assert_eq!(parse_level(" Club ").unwrap(), 5);
/// assert_eq!(parse_level("MAXIMUM").unwrap(), 10);
/// assert!(parse_level("11").unwrap_err().to_string().contains("1 beginner"));
/// assert!(parse_level("0").is_err());
/// ```
pub fn parse_level(text: &str) -> Result<u8, SpecError> {
    let word = text.trim().to_ascii_lowercase();
    (1..=10u8).find(|&n| LEVEL_NAMES[n as usize - 1] == word || word.parse::<u8>().is_ok_and(|w| w == n)).ok_or_else(
        || SpecError::BadValue {
            key: "level".to_string(),
            value: text.to_string(),
            expected: format!("a level from 1 to 10 or its name: {}", level_names()),
        },
    )
}

/// The levels by number and name: `1 beginner, 2 novice, ..., 10 maximum`.
pub fn level_names() -> String {
    LEVEL_NAMES.iter().enumerate().map(|(i, name)| format!("{} {name}", i + 1)).collect::<Vec<_>>().join(", ")
}

/// The name of level `number` for people: `Club (level 5)`.
///
/// ```
/// assert_eq!(tabletop::levels::level_label(5), "Club (level 5)");
/// ```
pub fn level_label(number: u8) -> String {
    let index = number.clamp(1, 10) as usize - 1;
    let mut name = LEVEL_NAMES[index].to_string();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    format!("{name} (level {})", index + 1)
}

/// The settings a level fixes itself, refused next to `level=`.
const FIXED_BY_A_LEVEL: &[&str] = &["time", "depth", "clock", "samples", "table"];

/// The level an `engine` spec asks for with `level=`, or `None` without one; an error when the
/// level is not one of the ten, or when `time=`, `depth=` (or another setting a level fixes
/// itself) comes with it.
///
/// ```
/// use tabletop::levels::level_setting;
/// assert_eq!(level_setting(&"engine:level=expert".parse().unwrap()).unwrap(), Some(7));
/// assert_eq!(level_setting(&"engine:time=1s".parse().unwrap()).unwrap(), None);
/// assert!(level_setting(&"engine:level=3,depth=2".parse().unwrap()).is_err());
/// ```
pub fn level_setting(spec: &PlayerSpec) -> Result<Option<u8>, SpecError> {
    let Some(text) = spec.settings.get("level") else { return Ok(None) };
    let level = parse_level(text)?;
    if let Some(key) = FIXED_BY_A_LEVEL.iter().find(|k| spec.settings.contains_key(**k)) {
        return Err(SpecError::BadValue {
            key: key.to_string(),
            value: spec.settings[*key].clone(),
            expected: "nothing: a level sets its own depth and time (use level= alone, or time=/depth=)".to_string(),
        });
    }
    Ok(Some(level))
}

/// The error for `engine:seed=S` without a level: only a level's choices take a seed.
///
/// ```
/// use tabletop::levels::seed_without_level;
/// let error = seed_without_level(&"engine:seed=3".parse().unwrap());
/// assert!(error.to_string().contains("a seed only with a level"));
/// ```
pub fn seed_without_level(spec: &PlayerSpec) -> SpecError {
    SpecError::BadValue {
        key: "seed".to_string(),
        value: spec.settings.get("seed").cloned().unwrap_or_default(),
        expected: "a seed only with a level (engine:level=2,seed=7)".to_string(),
    }
}

/// The canonical description of a level: `engine:level=5`, with `,seed=S` when the spec sets a
/// seed.
///
/// ```
/// use tabletop::levels::describe_level;
/// assert_eq!(describe_level(&"engine:seed=4,level=club".parse().unwrap(), 5), "engine:level=5,seed=4");
/// ```
pub fn describe_level(spec: &PlayerSpec, level: u8) -> String {
    match spec.get_u64("seed") {
        Ok(Some(seed)) => format!("engine:level={level},seed={seed}"),
        _ => format!("engine:level={level}"),
    }
}

/// A level made of two players: for each move, the strong one chooses with probability
/// `strong_percent` / 100 and the weak one otherwise, drawn from a generator seeded once. The
/// draws go on from game to game ([`Player::reset`] does not restart them: with few openings,
/// as in small games, restarting would replay the same few games again and again), so a match
/// or a session replays as a whole from its seed.
pub struct MixedPlayer<G: Game> {
    strong: Box<dyn Player<G>>,
    weak: Box<dyn Player<G>>,
    strong_percent: u32,
    rng: ChaCha8Rng,
    description: String,
}

impl<G: Game> MixedPlayer<G> {
    /// The strong player for `strong_percent` of the moves (100: all), the weak one for the
    /// rest, described as `description` (the level's spec).
    pub fn new(
        strong: Box<dyn Player<G>>,
        weak: Box<dyn Player<G>>,
        strong_percent: u32,
        seed: u64,
        description: String,
    ) -> Self {
        MixedPlayer { strong, weak, strong_percent, rng: ChaCha8Rng::seed_from_u64(seed), description }
    }
}

impl<G: Game> Player<G> for MixedPlayer<G> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn choose_move(&mut self, record: &Record<G>) -> G::Move {
        if self.rng.gen_range(0..100) < self.strong_percent {
            self.strong.choose_move(record)
        } else {
            self.weak.choose_move(record)
        }
    }

    fn reset(&mut self) {
        self.strong.reset();
        self.weak.reset();
    }

    fn set_clock(&mut self, time: Option<&crate::players::TimeLeft>) {
        self.strong.set_clock(time);
        self.weak.set_clock(time);
    }
}

/// The computer players a front end offers people for a game whose players are `kinds`, as
/// (spec, label), weakest first: the ten levels when the game's `engine` takes `level=`, then
/// the [`DEFAULT_COMPUTER`] at full strength, then random moves. The page's start form lists
/// these (from the server's catalog), with [`DEFAULT_COMPUTER`] chosen at first.
///
/// ```
/// use tabletop::levels::{offered_computers, DEFAULT_COMPUTER};
/// use tabletop::PlayerKind;
/// const KINDS: &[PlayerKind] = &[
///     PlayerKind { name: "engine", settings: &["time", "level"], help: "" },
///     PlayerKind { name: "random", settings: &["seed"], help: "" },
/// ];
/// let offered = offered_computers(KINDS);
/// assert_eq!(offered[4], ("engine:level=5".to_string(), "Club (level 5)".to_string()));
/// assert_eq!(offered[10].0, DEFAULT_COMPUTER);
/// assert_eq!(offered.len(), 12);
/// ```
pub fn offered_computers(kinds: &[crate::player_spec::PlayerKind]) -> Vec<(String, String)> {
    let has = |name: &str| kinds.iter().find(|k| k.name == name);
    let mut offered = Vec::new();
    if has("engine").is_some_and(|k| k.settings.contains(&"level")) {
        offered.extend((1..=10u8).map(|n| (format!("engine:level={n}"), level_label(n))));
    }
    if has(DEFAULT_COMPUTER).is_some() {
        offered.push((DEFAULT_COMPUTER.to_string(), "Full strength (engine)".to_string()));
    }
    if has("random").is_some() {
        offered.push(("random".to_string(), "Random moves".to_string()));
    }
    offered
}
