//! Levels of play for people: `engine:level=1` ("beginner") to `engine:level=10` ("maximum").
//!
//! - [`LEVELS`]: the table of ten levels, each a fixed search depth, the empties from which the
//!   endgame is solved exactly, a time cap per move (the top levels stay playable), and for the
//!   lowest levels a margin: the move is drawn (seeded) among the moves whose value is within
//!   the margin of the best one, so a weak level plays near-equal moves, never blunders picked
//!   at random.
//! - [`Level::parse`]: a level by number or name, case-insensitive (`5`, `club`, `Club`).
//! - [`choose`]: one move of a level with a given engine (the web server keeps one engine per
//!   worker); [`LevelPlayer`]: a level as a [`Player`] with its own engine and seed.
//!
//! The levels are built only on the engine's public API ([`Engine::analyse`],
//! [`Engine::move_values`], [`Engine::solve_exact`]), so a new evaluation changes their
//! strength, not their code: re-measure the ladder with `scripts/reversi-ladder`
//! (docs/REVERSI.md, "Levels").

use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::engine::Engine;
use super::rules::{Reversi, ReversiMove};
use crate::players::Player;
use crate::memory::TableAllocError;
use crate::player_spec::{PlayerSpec, SpecError};
use crate::record::Record;

/// One level of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// Its number, 1 (weakest) to 10.
    pub number: u8,
    /// Its name, lower case (`beginner` ... `maximum`).
    pub name: &'static str,
    /// The midgame search depth in plies.
    pub depth: u32,
    /// With this many empty squares or fewer, the move comes from an exact solve (0: never).
    pub solve_empties: u32,
    /// Moves within this many hundredths of a disc of the best are equally likely (0: always
    /// the best move).
    pub margin: i32,
    /// The most thinking time per move (the search stops at the last depth completed in time,
    /// and an exact solve that does not finish in time is dropped).
    pub time_cap: Option<Duration>,
}

const fn level(number: u8, name: &'static str, depth: u32, solve_empties: u32, margin: i32, cap_ms: u64) -> Level {
    Level {
        number,
        name,
        depth,
        solve_empties,
        margin,
        time_cap: if cap_ms == 0 { None } else { Some(Duration::from_millis(cap_ms)) },
    }
}

/// The ten levels, weakest first (`LEVELS[n - 1]` is level `n`). Calibrated with
/// `scripts/reversi-ladder` so that each level scores at least 65% against the one below
/// (docs/REVERSI.md, "Levels").
pub const LEVELS: [Level; 10] = [
    level(1, "beginner", 1, 0, 1200, 0),
    level(2, "novice", 1, 0, 500, 0),
    level(3, "casual", 2, 4, 500, 0),
    level(4, "intermediate", 2, 8, 100, 0),
    level(5, "club", 3, 10, 0, 0),
    level(6, "advanced", 4, 12, 0, 0),
    level(7, "expert", 6, 14, 0, 0),
    level(8, "master", 8, 16, 0, 0),
    level(9, "grandmaster", 10, 18, 0, 1000),
    level(10, "maximum", 20, 20, 0, 1500),
];

impl Level {
    /// The level a setting names: its number `1`..`10` or its name, in any case.
    ///
    /// ```
    /// use tabletop::games::reversi::levels::Level;
    /// assert_eq!(Level::parse("5").unwrap().name, "club");
    /// assert_eq!(Level::parse("Club").unwrap().number, 5);
    /// assert_eq!(Level::parse(" MAXIMUM ").unwrap().number, 10);
    /// assert!(Level::parse("11").unwrap_err().to_string().contains("beginner"));
    /// ```
    pub fn parse(text: &str) -> Result<&'static Level, SpecError> {
        let number = crate::levels::parse_level(text)?;
        Ok(&LEVELS[number as usize - 1])
    }

    /// The levels by number and name: `1 beginner, 2 novice, ..., 10 maximum`.
    ///
    /// ```
    /// use tabletop::games::reversi::levels::Level;
    /// assert!(Level::names().starts_with("1 beginner, 2 novice"));
    /// ```
    pub fn names() -> String {
        crate::levels::level_names()
    }

    /// The name for people: `Club (level 5)`.
    ///
    /// ```
    /// use tabletop::games::reversi::levels::LEVELS;
    /// assert_eq!(LEVELS[4].label(), "Club (level 5)");
    /// ```
    pub fn label(&self) -> String {
        let mut name = self.name.to_string();
        if let Some(first) = name.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        format!("{name} (level {})", self.number)
    }
}

/// One move of `level` in `position`, thought by `engine` (its limits are set for the move;
/// `rng` draws among near-equal moves at the levels with a margin).
///
/// ```
/// use tabletop::games::reversi::{engine::Engine, levels::{choose, LEVELS}, Reversi};
/// use rand::SeedableRng;
/// let mut engine = Engine::new(None, Some(1));
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
/// let mv = choose(&mut engine, &LEVELS[0], &Reversi::new(), &mut rng);
/// assert!(["d3", "c4", "f5", "e6"].contains(&mv.to_string().as_str()));
/// ```
pub fn choose(engine: &mut Engine, level: &Level, position: &Reversi, rng: &mut ChaCha8Rng) -> ReversiMove {
    if level.time_cap.is_none() && engine.threads() > 1 {
        // A level without a time cap replays exactly from its seed: on one thread (several
        // would vary its choices among equally good moves from run to run).
        return engine.on_one_thread(|engine| choose(engine, level, position, rng));
    }
    engine.time = level.time_cap;
    engine.depth = Some(level.depth);
    if position.legal_placements().is_empty() {
        return ReversiMove::Pass;
    }
    if position.open_squares() <= level.solve_empties {
        if let Some((best, _)) = engine.solve_exact(position) {
            return best;
        }
    }
    if level.margin <= 0 {
        return engine.analyse(position).best;
    }
    let values = engine.move_values(position, level.depth);
    let Some(best) = values.iter().map(|v| v.1).max() else {
        return engine.analyse(position).best;
    };
    let near: Vec<ReversiMove> =
        values.iter().filter(|v| v.1 >= best.saturating_sub(level.margin)).map(|v| v.0).collect();
    near[rng.gen_range(0..near.len())]
}

/// The lowest level that plays the opening book's moves (with `book=on`, the default).
pub const BOOK_FROM_LEVEL: u8 = 7;

/// A level as a player: its own engine, and a generator seeded once (so a match or a game
/// replays from its seed).
pub struct LevelPlayer {
    engine: Engine,
    level: &'static Level,
    rng: ChaCha8Rng,
    seed: u64,
    description: String,
}

impl LevelPlayer {
    /// A player of `level`, drawing among near-equal moves from `seed`, described as
    /// `description` (its spec); an error when the engine's tables cannot be allocated.
    ///
    /// ```
    /// use tabletop::games::reversi::levels::{Level, LevelPlayer};
    /// use tabletop::Player;
    /// let player = LevelPlayer::try_new(Level::parse("club").unwrap(), 7, "engine:level=5".into()).unwrap();
    /// assert_eq!(player.describe(), "engine:level=5");
    /// ```
    pub fn try_new(level: &'static Level, seed: u64, description: String) -> Result<Self, TableAllocError> {
        let engine = Engine::try_new(level.time_cap, Some(level.depth))?;
        Ok(LevelPlayer { engine, level, rng: rng(seed), seed, description })
    }

    /// The player with its engine on `threads` threads ([`Engine::set_threads`]), for the
    /// levels with a time cap (9 and 10, whose moves depend on the machine's speed anyway);
    /// the others play on one thread, so that a seed replays the same game.
    pub fn with_threads(mut self, threads: usize) -> Result<Self, TableAllocError> {
        self.engine.set_threads(threads)?;
        Ok(self)
    }

    /// The player with the built-in opening book when `on` and the level is one of those that
    /// play it ([`BOOK_FROM_LEVEL`] and up: the lower levels keep their varied, weaker
    /// openings); its moves then come from the book while the position is in it.
    pub fn with_book(mut self, on: bool) -> Self {
        let plays_book = on && self.level.number >= BOOK_FROM_LEVEL;
        self.engine.book = plays_book.then(|| super::book::Book::standard() as &dyn super::engine::BookMoves);
        self
    }

    /// Does the player consult the opening book?
    pub fn uses_book(&self) -> bool {
        self.engine.book.is_some()
    }

    /// The level played.
    pub fn level(&self) -> &'static Level {
        self.level
    }
}

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

impl Player<Reversi> for LevelPlayer {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn choose_move(&mut self, record: &Record<Reversi>) -> ReversiMove {
        choose(&mut self.engine, self.level, record.current(), &mut self.rng)
    }

    fn reset(&mut self) {
        // Each game of a match draws afresh from the seed, so a game replays on its own.
        self.rng = rng(self.seed);
    }
}

/// The level of an `engine` spec with `level=` (and optionally `seed=`); `time=` and `depth=`
/// cannot be combined with a level, and `seed=` needs one.
///
/// ```
/// use tabletop::games::reversi::levels::level_from_spec;
/// assert_eq!(level_from_spec(&"engine:level=Expert".parse().unwrap()).unwrap().number, 7);
/// assert!(level_from_spec(&"engine:level=3,time=1s".parse().unwrap()).is_err());
/// assert!(level_from_spec(&"engine:seed=3".parse().unwrap()).is_err());
/// ```
pub fn level_from_spec(spec: &PlayerSpec) -> Result<&'static Level, SpecError> {
    let Some(text) = spec.settings.get("level") else {
        return Err(crate::levels::seed_without_level(spec));
    };
    let level = Level::parse(text)?;
    if let Some(key) = ["time", "depth", "clock"].into_iter().find(|k| spec.settings.contains_key(*k)) {
        return Err(SpecError::BadValue {
            key: key.to_string(),
            value: spec.settings[key].clone(),
            expected: "nothing: a level sets its own depth and time (use level= alone, or time=/depth=)".to_string(),
        });
    }
    spec.get_u64("seed")?;
    Ok(level)
}

/// The canonical description of a level spec: `engine:level=5`, with `,seed=S` when given.
///
/// ```
/// use tabletop::games::reversi::levels::{describe_spec, Level};
/// let spec = "engine:seed=4,level=club".parse().unwrap();
/// assert_eq!(describe_spec(&spec, Level::parse("club").unwrap()), "engine:level=5,seed=4");
/// ```
pub fn describe_spec(spec: &PlayerSpec, level: &Level) -> String {
    let mut text = match spec.get_u64("seed") {
        Ok(Some(seed)) => format!("engine:level={},seed={seed}", level.number),
        _ => format!("engine:level={}", level.number),
    };
    if let Some(threads) = spec.settings.get("threads") {
        text += &format!(",threads={threads}");
    }
    if let Some(book) = spec.settings.get("book") {
        text += &format!(",book={book}");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_levels_carry_the_names_every_game_shares() {
        for (i, level) in LEVELS.iter().enumerate() {
            assert_eq!((level.number as usize, level.name), (i + 1, crate::levels::LEVEL_NAMES[i]));
        }
    }
}
