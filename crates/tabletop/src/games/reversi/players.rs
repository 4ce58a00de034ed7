//! The players Reversi offers, by name: `engine` (default), `engine-v1`, `classic`, `random` ([`PLAYERS`],
//! [`make_player`]: safe for any front end), and `nboard` (an external NBoard engine run as a
//! process: [`LOCAL_PLAYERS`], [`make_local_player`], for the terminal front end only, never for
//! requests from the network, like the `external` player every game offers there, see
//! [`external`](crate::external)).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::classic::ClassicPlayer;
use super::engine::{Clock, EnginePlayer, MAX_THREADS};
use super::levels;
use super::nboard::NboardPlayer;
use super::rules::Reversi;
use crate::players::Player;
use crate::player_spec::{parse_duration, PlayerKind, PlayerSpec, SpecError};
use crate::players::RandomPlayer;

/// The computer players and their settings.
pub const PLAYERS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "depth", "level", "seed", "clock", "threads", "book"],
        help: "iterative-deepening PVS with a pattern evaluation, Multi-ProbCut and an exact endgame solve (default time=1s a move; \
               clock=5m+2s: a game clock, time for the whole game plus an increment per move; threads=N: search on N threads, \
               by default every core in play and analyze, one in match and on the server); \
               or level=1..10 by number or name: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, 6 advanced, \
               7 expert, 8 master, 9 grandmaster, 10 maximum (seed= varies the low levels); \
               book=off: no opening book (by default the engine and levels 7-10 play the book's moves near the start)",
    },
    PlayerKind {
        name: "engine-v1",
        settings: &["time", "depth", "threads"],
        help: "the engine with its former ten-feature evaluation, for comparison (default time=1s)",
    },
    PlayerKind {
        name: "classic",
        settings: &["depth"],
        help: "a classic fixed-depth minimax on square weights (default depth=6)",
    },
    PlayerKind { name: "random", settings: &["seed"], help: "a uniformly random legal move" },
];

/// [`PLAYERS`] and `nboard`, which starts a process: for local front ends (the terminal), which
/// also offer every game's `external` player ([`make_local_player`]).
pub const LOCAL_PLAYERS: &[PlayerKind] = &[
    PLAYERS[0],
    PLAYERS[1],
    PLAYERS[2],
    PLAYERS[3],
    PlayerKind {
        name: "nboard",
        settings: &["cmd", "depth", "timeout"],
        help: "an external NBoard engine: cmd=\"COMMAND\" (run by sh -c), depth=N (default 8), timeout per move (default 60s)",
    },
];

// Every player of PLAYERS is also a local one (adding one to PLAYERS must add it here).
const _: () = assert!(LOCAL_PLAYERS.len() == PLAYERS.len() + 1);

/// Builds any player of [`LOCAL_PLAYERS`] (those of [`make_player`], and `nboard`) or the
/// `external` player of [`crate::external`].
///
/// ```
/// use tabletop::games::reversi::players::{make_local_player, make_player};
/// let spec = r#"nboard:cmd="tabletop nboard",depth=4"#.parse().unwrap();
/// assert_eq!(make_local_player(&spec, 1).unwrap().describe(), r#"nboard:cmd="tabletop nboard",depth=4"#);
/// assert!(make_player(&spec, 1).is_err());
/// assert!(make_local_player(&"nboard:depth=4".parse().unwrap(), 1).is_err());
/// ```
pub fn make_local_player(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<Reversi>>, SpecError> {
    crate::external::make_local_player(spec, |spec| make_local_or_nboard(spec, seed))
}

/// A player of [`LOCAL_PLAYERS`].
fn make_local_or_nboard(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<Reversi>>, SpecError> {
    let kind = spec.check(LOCAL_PLAYERS)?;
    if kind.name != "nboard" {
        return make_player(spec, seed);
    }
    let command = spec.settings.get("cmd").ok_or_else(|| SpecError::BadValue {
        key: "cmd".to_string(),
        value: String::new(),
        expected: "the engine's command, e.g. nboard:cmd=\"edax -q\"".to_string(),
    })?;
    let depth = spec.get_in_range("depth", 1..=60)?.unwrap_or(8) as u32;
    let timeout = spec.get_duration("timeout")?.unwrap_or(Duration::from_secs(60));
    Ok(Box::new(NboardPlayer::new(command, depth, timeout)))
}

/// The threads of an engine whose spec sets no `threads=`: 1 unless the front end said more
/// ([`set_default_threads`]).
static DEFAULT_THREADS: AtomicUsize = AtomicUsize::new(1);

/// Sets the threads of the engines whose spec sets no `threads=` (clamped to
/// 1..=[`MAX_THREADS`]): `play` and `analyze` give every core ([`all_cores`]); `match`, the
/// server and everything else keep one, so that two engines of a match do not share the cores
/// and a server's games do not take each other's.
pub fn set_default_threads(threads: usize) {
    DEFAULT_THREADS.store(threads.clamp(1, MAX_THREADS), Ordering::Relaxed);
}

/// The threads of an engine whose spec sets no `threads=` ([`set_default_threads`]).
pub fn default_threads() -> usize {
    DEFAULT_THREADS.load(Ordering::Relaxed)
}

/// The machine's cores (`std::thread::available_parallelism`; 1 when unknown), at most
/// [`MAX_THREADS`].
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
}

/// The `threads` setting of an engine spec: 1 to [`MAX_THREADS`], or [`default_threads`].
///
/// ```
/// use tabletop::games::reversi::players::{make_player, threads_setting};
/// assert_eq!(threads_setting(&"engine:threads=2".parse().unwrap()).unwrap(), 2);
/// assert_eq!(threads_setting(&"engine".parse().unwrap()).unwrap(), 1);
/// let error = make_player(&"engine:threads=0".parse().unwrap(), 1).err().unwrap().to_string();
/// assert!(error.contains("threads") && error.contains("1 to 64"), "{error}");
/// assert!(make_player(&"engine:threads=65".parse().unwrap(), 1).is_err());
/// assert!(make_player(&"engine:threads=two".parse().unwrap(), 1).is_err());
/// assert!(make_player(&"classic:threads=2".parse().unwrap(), 1).is_err());
/// ```
pub fn threads_setting(spec: &PlayerSpec) -> Result<usize, SpecError> {
    Ok(spec.get_in_range("threads", 1..=MAX_THREADS as u64)?.map_or_else(default_threads, |t| t as usize))
}

/// Builds the player a spec names (only [`PLAYERS`]: never one that starts a process); `seed` seeds random players that set no seed themselves.
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
        "engine" if spec.settings.contains_key("level") || spec.settings.contains_key("seed") => {
            let level = levels::level_from_spec(spec)?;
            let seed = spec.get_u64("seed")?.unwrap_or(seed);
            let threads = threads_setting(spec)?;
            let player = levels::LevelPlayer::try_new(level, seed, levels::describe_spec(spec, level))?;
            Box::new(player.with_threads(threads)?.with_book(book_setting(spec)?))
        }
        "engine" if spec.settings.contains_key("clock") => {
            if spec.settings.contains_key("time") {
                return Err(SpecError::BadValue {
                    key: "clock".to_string(),
                    value: spec.settings["clock"].clone(),
                    expected: "either clock= or time=, not both".to_string(),
                });
            }
            let clock = clock_setting(spec)?;
            let depth = spec.get_in_range("depth", 1..=60)?.map(|d| d as u32);
            let mut player = EnginePlayer::try_new(None, depth, spec.to_string())?.with_clock(clock);
            player.engine().set_threads(threads_setting(spec)?)?;
            player.engine().book = engine_book(spec)?;
            Box::new(player)
        }
        "engine" | "engine-v1" => {
            let time = spec.get_duration("time")?;
            let depth = spec.get_in_range("depth", 1..=60)?.map(|d| d as u32);
            let threads = threads_setting(spec)?;
            let desc = if spec.settings.is_empty() { format!("{}:time=1s", kind.name) } else { spec.to_string() };
            let mut player = if kind.name == "engine" {
                EnginePlayer::try_new(time, depth, desc)?
            } else {
                EnginePlayer::try_new_v1(time, depth, desc)?
            };
            player.engine().set_threads(threads)?;
            if kind.name == "engine" {
                player.engine().book = engine_book(spec)?;
            }
            Box::new(player)
        }
        "classic" => Box::new(ClassicPlayer { depth: spec.get_in_range("depth", 1..=20)?.unwrap_or(6) as u32 }),
        _ => Box::new(RandomPlayer::new(spec.get_u64("seed")?.unwrap_or(seed))),
    })
}

/// The `book` setting of an engine spec: `on` (the default) or `off`.
///
/// ```
/// use tabletop::games::reversi::players::{book_setting, make_player};
/// assert!(book_setting(&"engine".parse().unwrap()).unwrap());
/// assert!(!book_setting(&"engine:book=off".parse().unwrap()).unwrap());
/// assert!(make_player(&"engine:book=maybe".parse().unwrap(), 1).is_err());
/// assert!(make_player(&"engine-v1:book=off".parse().unwrap(), 1).is_err());
/// ```
pub fn book_setting(spec: &PlayerSpec) -> Result<bool, SpecError> {
    match spec.settings.get("book").map(String::as_str) {
        None | Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => Err(SpecError::BadValue {
            key: "book".to_string(),
            value: other.to_string(),
            expected: "on or off".to_string(),
        }),
    }
}

/// The opening book of an `engine` spec: the built-in one unless `book=off`.
fn engine_book(spec: &PlayerSpec) -> Result<Option<&'static dyn super::engine::BookMoves>, SpecError> {
    Ok(book_setting(spec)?.then(|| super::book::Book::standard() as &dyn super::engine::BookMoves))
}

/// The `clock` setting: `5m` (time for the whole game) or `5m+2s` (plus an increment per move).
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::reversi::players::{clock_setting, make_player};
/// let clock = clock_setting(&"engine:clock=5m+2s".parse().unwrap()).unwrap();
/// assert_eq!((clock.remaining, clock.increment), (Duration::from_secs(300), Duration::from_secs(2)));
/// assert!(clock_setting(&"engine:clock=5m+".parse().unwrap()).is_err());
/// assert!(make_player(&"engine:clock=1s,time=1s".parse().unwrap(), 1).is_err());
/// assert_eq!(make_player(&"engine:clock=30s".parse().unwrap(), 1).unwrap().describe(), "engine:clock=30s");
/// ```
pub fn clock_setting(spec: &PlayerSpec) -> Result<Clock, SpecError> {
    let text = spec.settings.get("clock").map(String::as_str).unwrap_or("");
    let bad = || SpecError::BadValue {
        key: "clock".to_string(),
        value: text.to_string(),
        expected: "the game's time and an optional increment per move, such as 5m, 90s or 5m+2s".to_string(),
    };
    let (main, increment) = text.split_once('+').unwrap_or((text, "0ms"));
    let remaining = parse_duration(main).filter(|d| !d.is_zero()).ok_or_else(bad)?;
    let increment = parse_duration(increment).ok_or_else(bad)?;
    Ok(Clock { remaining, increment })
}

impl crate::players::Players for Reversi {
    const PLAYER_KINDS: &'static [PlayerKind] = PLAYERS;

    fn make_player(spec: &PlayerSpec, _start: &Reversi, seed: u64) -> Result<Box<dyn Player<Reversi>>, SpecError> {
        make_player(spec, seed)
    }
}
