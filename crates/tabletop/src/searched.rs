//! The standard computer players and analysis of a two-player game valued by the generic
//! [`Search`]: what a game gets by giving only a small evaluation ([`Searched`]).
//!
//! - [`PLAYER_KINDS`] and [`make_player`]: `engine` (the search, `time=`/`depth=`, or the ten
//!   levels through [`levels`](crate::levels): the search at a depth mixed with random moves,
//!   seeded) and `random`; a game's `impl Players` forwards to them.
//! - [`analyze`]: every legal move's value by the search, all to one depth decided before
//!   searching from a cost model of the position's branching (never the clock); lines that end
//!   before the horizon are exact, so small games are solved.
//!
//! ```
//! use tabletop::games::mnk::{Mnk, MnkVariant};
//! use tabletop::searched::{make_player, PLAYER_KINDS};
//! use tabletop::{Game, Record};
//! assert!(PLAYER_KINDS.iter().any(|k| k.name == "engine" && k.help.contains("10 maximum")));
//! let record = Record::new(Mnk::from_notation(&MnkVariant::default(), "xx./oo./... x").unwrap());
//! let mut top = make_player::<Mnk>(&"engine:level=10".parse().unwrap(), 1).unwrap();
//! assert_eq!(top.choose_move(&record).to_string(), "c3"); // the win at once
//! assert!(make_player::<Mnk>(&"engine:seed=3".parse().unwrap(), 1).is_err()); // a seed only with a level
//! ```

use std::time::Duration;

use crate::analysis::{search_moves, sorted, Analysis, AnalysisSettings, MoveValue};
use crate::game::{Status, TwoPlayer};
use crate::levels::{describe_level, level_setting, seed_without_level, MixedPlayer};
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::players::{forced_move, Player, RandomPlayer, TimeLeft};
use crate::record::Record;
use crate::search::{verdict, Limits, NoOrdering, Options, Search, Verdict};

/// A game the generic search plays with the game's own evaluation.
pub trait Searched: TwoPlayer {
    /// The static value of the position for the side to move, well inside the decisive range
    /// (default: 0, so the search alone finds wins and losses).
    fn evaluate(&self) -> i32 {
        0
    }
    /// What one node of the search costs in seconds on the calibration machine (a release
    /// build), for [`analyze`]'s plan: 1 µs by default; a game whose evaluation reads the whole
    /// board says more.
    fn node_seconds(&self) -> f64 {
        1e-6
    }
}

/// The players of a [`Searched`] game.
pub const PLAYER_KINDS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "depth", "level", "seed"],
        help: "alpha-beta search with the game's evaluation, to `depth` plies or for `time` (default 1s); \
               or level=1..10 by number or name: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, \
               6 advanced, 7 expert, 8 master, 9 grandmaster, 10 maximum (seed= varies the levels' choices)",
    },
    PlayerKind { name: "random", settings: &["seed"], help: "uniformly random legal moves" },
];

/// The ten levels: (the search's depth, its share of the moves in percent; random moves the
/// others). Fixed depths and a node budget ([`LEVEL_NODES`]), no clock: a level plays the same
/// moves on any machine, and a large board cannot keep it thinking.
const LEVELS: [(u32, u32); 10] =
    [(1, 0), (1, 15), (1, 30), (2, 45), (2, 60), (3, 70), (3, 80), (4, 90), (4, 100), (8, 100)];

/// The most nodes a level's search may visit for one move (it then plays the best move of its
/// last complete iteration).
pub const LEVEL_NODES: u64 = 100_000;

/// The transposition table's size (2^16 entries: the standard engine serves small boards).
const TABLE_BITS: u32 = 16;

type Engine<G> = Search<G, fn(&G) -> i32, NoOrdering>;

fn engine<G: Searched>() -> Engine<G> {
    Search::new(G::evaluate as fn(&G) -> i32, NoOrdering, Options { tt_bits: Some(TABLE_BITS), ..Options::default() })
}

/// The `engine` player: the generic search under fixed limits.
pub struct EnginePlayer<G: Searched> {
    search: Engine<G>,
    limits: Limits,
    describe: String,
    /// The game clock, when the front end keeps one.
    clock: Option<TimeLeft>,
    /// The `time=` given, which caps the clock's budget (without one it plays by the clock).
    own_time: Option<Duration>,
}

impl<G: Searched> EnginePlayer<G> {
    /// The search under `limits`, described as `describe`.
    pub fn new(limits: Limits, describe: String) -> Self {
        EnginePlayer { search: engine(), limits, describe, clock: None, own_time: limits.time }
    }
}

impl<G: Searched> Player<G> for EnginePlayer<G> {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn choose_move(&mut self, record: &Record<G>) -> G::Move {
        let mut limits = self.limits;
        if self.clock.is_some() {
            if let Some(only) = forced_move(record.current()) {
                return only;
            }
            limits.time = TimeLeft::cap(self.clock.as_ref(), self.own_time);
        }
        let found = self.search.search(record.current(), &record.earlier_hashes(), limits);
        found.best_move.expect("choose_move is only called while the game goes on")
    }

    fn reset(&mut self) {
        self.search.clear();
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock = time.cloned();
    }
}

/// Builds the player a spec of [`PLAYER_KINDS`] names; `seed` seeds random choices unless the
/// spec sets its own.
pub fn make_player<G: Searched>(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<G>>, SpecError> {
    let kind = spec.check(PLAYER_KINDS)?;
    let seed = spec.get_u64("seed")?.unwrap_or(seed);
    if kind.name == "random" {
        return Ok(Box::new(RandomPlayer::new(seed)));
    }
    if let Some(level) = level_setting(spec)? {
        let (depth, percent) = LEVELS[level as usize - 1];
        let limits = Limits { depth: Some(depth), time: None, nodes: Some(LEVEL_NODES) };
        let strong = Box::new(EnginePlayer::new(limits, format!("engine:depth={depth}")));
        let weak = Box::new(RandomPlayer::new(seed.wrapping_add(1)));
        return Ok(Box::new(MixedPlayer::new(strong, weak, percent, seed, describe_level(spec, level))));
    }
    if spec.settings.contains_key("seed") {
        return Err(seed_without_level(spec));
    }
    let depth = spec.get_in_range("depth", 1..=64)?.map(|d| d as u32);
    let time = spec.get_duration("time")?.or(depth.is_none().then_some(Duration::from_secs(1)));
    let describe = if spec.settings.is_empty() { "engine:time=1s".to_string() } else { spec.to_string() };
    let mut player = EnginePlayer::new(Limits { depth, time, nodes: None }, describe);
    player.own_time = spec.get_duration("time")?;
    Ok(Box::new(player))
}

/// Every legal move's value by the search, each to one depth: the fixed one, else the deepest
/// whose predicted cost fits the settings' time. The plan counts every child of the root and
/// all of their children (a search one ply deep evaluates them all; a plan of one ply evaluates
/// the children only), then `(moves left)^0.6`
/// a ply below, at [`Searched::node_seconds`] a node. Lines ending before the horizon are
/// exact, so small games are solved.
pub fn analyze<G: Searched>(record: &Record<G>, settings: AnalysisSettings) -> Analysis {
    let mut moves = Vec::new();
    record.current().legal_moves(&mut moves);
    let (branching, node) = (moves.len(), record.current().node_seconds());
    let cost = |d: u32| {
        let width = |i: usize| branching.saturating_sub(i).max(1) as f64;
        (0..d as usize).map(|i| if i < 2 { width(i) } else { width(i).powf(0.6) }).product::<f64>() * node
    };
    let depth = settings.pick_depth(branching.max(1) as u32, cost);
    if depth > 1 {
        return sorted(search_moves(&mut engine(), record, depth, |score, depth| format!("{score:+} (depth {depth})")));
    }
    // One ply: each child's own evaluation, or its end (`search_moves` searches two at least).
    let values = moves.into_iter().map(|mv| {
        let mut child = record.current().clone();
        child.play_unchecked(mv);
        let (score, exact) = match child.status() {
            Status::Over(outcome) => (-child.terminal_value(outcome, 1), true),
            Status::ToMove(_) => (-child.evaluate(), false),
        };
        let text = match verdict(score) {
            Verdict::Score(_) if exact => "draw (exact)".to_string(),
            Verdict::Score(score) => format!("{score:+} (depth 1)"),
            forced => crate::value::forced_result(forced).unwrap_or_default(),
        };
        MoveValue { notation: mv.to_string(), score, exact, depth: (!exact).then_some(1), text }
    });
    sorted(values.collect())
}

/// Gives a [`Searched`] game the standard parts: `impl Players` ([`PLAYER_KINDS`],
/// [`make_player`]), `impl Analyze` ([`analyze`]) and `impl Review` (the defaults, on proved
/// results). In the game's folder: `crate::searched::standard_game!(MyGame);`.
macro_rules! standard_game {
    ($game:ty) => {
        impl $crate::players::Players for $game {
            const PLAYER_KINDS: &'static [$crate::PlayerKind] = $crate::searched::PLAYER_KINDS;

            fn make_player(
                spec: &$crate::PlayerSpec,
                _start: &Self,
                seed: u64,
            ) -> Result<Box<dyn $crate::Player<Self>>, $crate::SpecError> {
                $crate::searched::make_player(spec, seed)
            }
        }

        impl $crate::Analyze for $game {
            fn analyze(record: &$crate::Record<Self>, settings: $crate::AnalysisSettings) -> $crate::Analysis {
                $crate::searched::analyze(record, settings)
            }
        }

        impl $crate::review::Review for $game {}
    };
}
pub(crate) use standard_game;
