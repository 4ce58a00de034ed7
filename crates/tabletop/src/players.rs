//! [`Player`], anything that chooses moves (a person at the keyboard, a computer player), and the
//! computer players that work for every game.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use std::time::Duration;

use crate::clock::{think_budget, TimeControl};
use crate::game::{Game, Outcome};
use crate::record::Record;

/// Why a player gave up a game instead of moving: an external bot that crashed, timed out or
/// answered a move that is not legal. The game is lost by forfeit (see
/// [`arena::forfeit_outcome`](crate::arena::forfeit_outcome)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Forfeit {
    /// Why, in words: `the bot timed out after 5s`.
    pub reason: String,
}

/// One player of a game: a person at the keyboard or a computer player.
pub trait Player<G: Game>: Send {
    /// A short description, e.g. `engine:time=1s`.
    fn describe(&self) -> String;
    /// Chooses a move for the side to move in the last position of `record`.
    fn choose_move(&mut self, record: &Record<G>) -> G::Move;
    /// Chooses a move, or forfeits the game when the player cannot (an external program that
    /// crashed, timed out or answered nonsense). Matches and the terminal call this; the default
    /// never forfeits.
    fn choose_move_or_forfeit(&mut self, record: &Record<G>) -> Result<G::Move, Forfeit> {
        Ok(self.choose_move(record))
    }
    /// Told that the game it played in is over: the final record, the outcome (which may be a
    /// forfeit, so not necessarily the record's status) and the reason in words.
    fn game_over(&mut self, _record: &Record<G>, _outcome: Outcome, _reason: &str) {}
    /// Forgets anything remembered from an earlier game (called before each new game).
    fn reset(&mut self) {}
    /// Told the game clock before each of its moves (`None` in a game without one). A player
    /// that thinks for a budget (an engine) keeps its next move within [`TimeLeft::budget`]
    /// and plays a forced move at once; the default ignores the clock.
    fn set_clock(&mut self, _time: Option<&TimeLeft>) {}
}

/// What a player under a game clock is told before it chooses a move: its own time, the
/// others', the control, and how many moves the game expects of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeLeft {
    /// The time control.
    pub control: TimeControl,
    /// The mover's main time left (the running period's time once in byo-yomi periods).
    pub own: Duration,
    /// The mover's byo-yomi periods left (0 otherwise).
    pub periods: u32,
    /// Every seat's main time left, in seat order (the mover's included).
    pub seats: Vec<Duration>,
    /// The moves the mover expects to make still ([`Game::expected_moves_left`]).
    pub moves_left: u32,
    /// The time each move of the record took (`None` for moves played before the clocks ran,
    /// such as a match's opening), for programs that keep their own clock from a game record.
    pub move_times: Vec<Option<Duration>>,
}

impl TimeLeft {
    /// How long the mover may think for this move ([`think_budget`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::players::TimeLeft;
    /// let control = "1+0".parse().unwrap();
    /// let s = Duration::from_secs;
    /// let time = TimeLeft { control, own: s(60), periods: 0, seats: vec![s(60), s(60)], moves_left: 28, move_times: vec![] };
    /// assert_eq!(time.budget(), Duration::from_millis(1990)); // (60 s - 0.3 s margin) / (28 + 2) moves
    /// ```
    pub fn budget(&self) -> Duration {
        think_budget(&self.control, self.own, self.periods, self.moves_left).unwrap_or(Duration::MAX)
    }

    /// The budget of a player given `own` (its own per-move time, if any) under `clock`: the
    /// shorter of the two; the clock's budget alone when the player has none of its own.
    pub fn cap(clock: Option<&TimeLeft>, own: Option<Duration>) -> Option<Duration> {
        match (clock.map(TimeLeft::budget), own) {
            (Some(budget), Some(own)) => Some(budget.min(own)),
            (budget, own) => budget.or(own),
        }
    }
}

/// The only legal move of the position to move, if there is exactly one: a player under a
/// clock plays it without thinking.
pub fn forced_move<G: Game>(position: &G) -> Option<G::Move> {
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    match moves.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// The computer players a game offers: one table and one constructor with the same signature
/// for every game, so that front ends, matches and the server build players alike.
///
/// ```
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::players::Players;
/// let start = Connect::new(ConnectVariant::connect3());
/// assert!(Connect::PLAYER_KINDS.iter().any(|k| k.name == "random"));
/// let player = Connect::make_player(&"random".parse().unwrap(), &start, 7).unwrap();
/// assert!(player.describe().starts_with("random")); // "random:seed=7"
/// assert!(Connect::make_player(&"chess-engine".parse().unwrap(), &start, 7).is_err());
/// ```
pub trait Players: Game {
    /// The players: their names, settings and one line of help each (`human` is not among them:
    /// a person plays at the front end).
    const PLAYER_KINDS: &'static [crate::player_spec::PlayerKind];
    /// Builds the player `spec` names for games from `start` (its variant: board size, rules),
    /// seeding its random choices from `seed` unless the spec sets its own.
    fn make_player(
        spec: &crate::player_spec::PlayerSpec,
        start: &Self,
        seed: u64,
    ) -> Result<Box<dyn Player<Self>>, crate::player_spec::SpecError>;
}

/// Plays a uniformly random legal move, from a seeded generator.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: ChaCha8Rng,
    seed: u64,
}

impl RandomPlayer {
    /// A random player seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed), seed }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn describe(&self) -> String {
        format!("random:seed={}", self.seed)
    }

    fn choose_move(&mut self, record: &Record<G>) -> G::Move {
        let mut moves = Vec::new();
        record.current().legal_moves(&mut moves);
        *moves.choose(&mut self.rng).expect("choose_move is only called while the game goes on")
    }
}
