//! Games as learning environments: integer actions, observation tensors, returns, and many games
//! stepped at once, for the Python package (OpenSpiel's and PettingZoo's interfaces) and anyone
//! training or testing players without naming a game.
//!
//! - [`EnvironmentFactory`] (the registry's [`GameEntry::environment`](crate::registry::GameEntry))
//!   loads a game from options (JSON, the server's option keys plus `seed`) as an [`Environment`].
//! - [`Environment`]: the number of players and of distinct actions, the observation shape, new
//!   states ([`EnvState`]) and vectors of games ([`VecEnvironment`]).
//! - [`EnvState`]: OpenSpiel's state: the current player, legal action ids, applying one, the
//!   returns, the game's own notation for actions, what one player may see; and the game's engine
//!   and analysis on it.
//!
//! A game gives only an [`Encoding`] (its action ids and observation) in its own folder,
//! `games/<game>/environment.rs`; [`Environments`] builds everything else from it, the game's
//! session [`Adapter`] (options, computer players) and [`Analyze`].
//!
//! Chance (Mathable's bag) comes from the `seed` option, so a state is reproducible from its seed
//! and its actions.
//!
//! ```
//! use tabletop::registry;
//! let game = registry::find("connect").unwrap().environment.unwrap().load(&serde_json::json!({})).unwrap();
//! let mut state = game.new_initial_state(None);
//! assert_eq!((game.num_players(), game.num_distinct_actions()), (2, 7));
//! let four = state.string_to_action("4").unwrap();
//! state.apply_action(four).unwrap();
//! assert_eq!(state.current_player(), Some(1));
//! assert!(state.apply_action(99).is_err());
//! ```

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::analysis::{Analysis, Analyze};
use crate::game::{Game, Outcome, Status};
use crate::player_spec::PlayerSpec;
use crate::players::Players;
use crate::record::Record;
use crate::session::{Adapter, Caps, EngineSlot};

/// Why an environment refused something; the message is the one people read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// An option is unknown or has a bad value.
    #[error("{0}")]
    Options(String),
    /// An action id is out of range or not legal here, or a move's text is not understood.
    #[error("{0}")]
    Action(String),
    /// A player number is out of range.
    #[error("player {player} does not exist: the game has {players} players")]
    Player {
        /// The number asked for.
        player: usize,
        /// How many players there are.
        players: usize,
    },
    /// A computer player could not be made or could not move (a bad spec, the game is over).
    #[error("{0}")]
    Engine(String),
    /// A buffer or array has the wrong length.
    #[error("{0}")]
    Shape(String),
}

/// Loads one game of the registry as an [`Environment`].
pub trait EnvironmentFactory: Sync {
    /// The option keys `load` accepts (the game's own, then `seed`).
    fn option_keys(&self) -> Vec<&'static str>;
    /// The game with these options (a JSON object; unknown keys refused). `seed` (a whole
    /// number, default 0) seeds whatever chance the game has.
    fn load(&self, options: &Value) -> Result<Box<dyn Environment>, EnvError>;
}

/// One game with fixed options: what OpenSpiel calls a game.
pub trait Environment: Send + Sync {
    /// The game's registry name.
    fn name(&self) -> &'static str;
    /// The number of players.
    fn num_players(&self) -> usize;
    /// Action ids run from 0 to this, exclusive.
    fn num_distinct_actions(&self) -> usize;
    /// The shape of [`EnvState::observation_tensor`].
    fn observation_shape(&self) -> Vec<usize>;
    /// The number of values in an observation (the product of the shape).
    fn observation_size(&self) -> usize {
        self.observation_shape().iter().product()
    }
    /// The first state; `seed` replaces the game's `seed` option (only games with chance differ).
    fn new_initial_state(&self, seed: Option<u64>) -> Box<dyn EnvState>;
    /// `num_envs` games stepped together, the `k`-th game of slot `i` seeded from `seed`, `i`
    /// and `k` (see [`VecEnvironment::episode_seeds`]).
    fn new_vector(&self, num_envs: usize, seed: u64) -> Box<dyn VecEnvironment>;
}

/// One state of a game, with OpenSpiel's meanings. `Display` shows the board.
pub trait EnvState: Send + Sync + fmt::Display {
    /// The player to move, `None` when the game is over.
    fn current_player(&self) -> Option<usize>;
    /// The legal action ids, ascending; empty when the game is over.
    fn legal_actions(&self) -> Vec<usize>;
    /// Plays a legal action; an illegal one (or any after the end) is refused and changes nothing.
    fn apply_action(&mut self, action: usize) -> Result<(), EnvError>;
    /// Is the game over (by its rules or, where the game has it, by repetition)?
    fn is_terminal(&self) -> bool;
    /// Each player's result: 1 for a win, -1 for a loss, 0 for a draw, a shared win and while the
    /// game goes on.
    fn returns(&self) -> Vec<f64>;
    /// An independent copy.
    fn clone_state(&self) -> Box<dyn EnvState>;
    /// The action in the game's notation (`d3`, `4`, `G9=12`).
    fn action_to_string(&self, action: usize) -> Result<String, EnvError>;
    /// The action a move in the game's notation is, in this state.
    fn string_to_action(&self, text: &str) -> Result<usize, EnvError>;
    /// What `player` may see, written into `out` ([`Environment::observation_size`] values):
    /// every public thing and that player's own hidden ones (Mathable: the board, the scores, the
    /// bag's size and the player's own rack, not the others' racks nor the bag's tokens).
    fn observation_tensor(&self, player: usize, out: &mut [f32]) -> Result<(), EnvError>;
    /// The actions played so far.
    fn history(&self) -> Vec<usize>;
    /// The position in the game's notation, `None` for a game with hidden information (its
    /// notation would show everything).
    fn notation(&self) -> Option<String>;
    /// The move the computer player `spec` (`engine:level=5`) chooses here, its tables kept in
    /// `slot` between calls.
    fn computer_action(&self, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<usize, EnvError>;
    /// The value of every legal action within `budget` (see [`Analyze`]), best first, each with
    /// its action id.
    fn analyze(&self, budget: Duration) -> Vec<(usize, crate::analysis::MoveValue)>;
}

/// Many games of one kind stepped together; finished games start again at once.
pub trait VecEnvironment: Send + Sync {
    /// The number of games.
    fn num_envs(&self) -> usize;
    /// Action ids run from 0 to this, exclusive.
    fn num_distinct_actions(&self) -> usize;
    /// The values in one game's observation.
    fn observation_size(&self) -> usize;
    /// The number of players.
    fn num_players(&self) -> usize;
    /// Writes the legal actions as a `num_envs x num_distinct_actions` row-major mask.
    fn legal_mask(&self, out: &mut [bool]) -> Result<(), EnvError>;
    /// Writes every game's observation from its current player's point of view
    /// (`num_envs x observation_size`).
    fn observation(&self, out: &mut [f32]) -> Result<(), EnvError>;
    /// Each game's player to move.
    fn current_players(&self, out: &mut [i64]) -> Result<(), EnvError>;
    /// The seeds the current games started from.
    fn episode_seeds(&self) -> Vec<u64>;
    /// Plays one action in every game. `rewards` (`num_envs x num_players`) receive the returns
    /// of games that ended with this action (0 elsewhere) and `terminated` which ended; those
    /// games start again. An illegal action refuses the whole step before anything is played.
    fn step(&mut self, actions: &[i64], rewards: &mut [f32], terminated: &mut [bool]) -> Result<(), EnvError>;
    /// Starts every game again, with new seeds from `seed`.
    fn reset(&mut self, seed: u64);
}

/// What a game gives to be an environment: its action ids and its observation. It lives in the
/// game's folder (`games/<game>/environment.rs`).
pub trait Encoding<G: Game>: Send + Sync + 'static {
    /// The number of distinct action ids for games starting at `start`.
    fn num_actions(start: &G) -> usize;
    /// The id of `mv` in `position`, `None` if the move has none there (Mathable: an exchange of
    /// tokens not on the rack).
    fn encode(position: &G, mv: G::Move) -> Option<usize>;
    /// The move an id stands for in `position` (legal or not), `None` when it stands for none.
    fn decode(position: &G, action: usize) -> Option<G::Move>;
    /// The observation's shape for games starting at `start`.
    fn observation_shape(start: &G) -> Vec<usize>;
    /// Writes what `player` may see of `position` into `out` (zeroed, of the shape's size).
    fn observe(position: &G, player: usize, out: &mut [f32]);

    /// Marks the ids of the legal moves of `position`, a game going on, in `row` (all false on
    /// entry; `moves` is scratch space). The default encodes [`Game::legal_moves`]; a game may
    /// write its mask straight from its own representation, the vectors' hot path.
    fn mark_legal(position: &G, moves: &mut Vec<G::Move>, row: &mut [bool]) {
        position.legal_moves(moves);
        for &mv in moves.iter() {
            if let Some(id) = Self::encode(position, mv) {
                row[id] = true;
            }
        }
    }
}

/// The [`EnvironmentFactory`] of game `G` through its session adapter `A` and encoding `E`.
pub struct Environments<G, A, E>(Marker<G, A, E>);

/// Ties a type to a game, its adapter and its encoding without holding any of them (and stays
/// `Send + Sync` whatever they are).
type Marker<G, A, E> = PhantomData<fn() -> (G, A, E)>;

impl<G, A, E> Environments<G, A, E> {
    /// The factory (a constant, for a game's `ENTRY`).
    pub const fn new() -> Self {
        Environments(PhantomData)
    }
}

impl<G, A, E> Default for Environments<G, A, E> {
    fn default() -> Self {
        Environments::new()
    }
}

/// Mixes a seed with a slot and an episode number (SplitMix64), so that episodes differ.
///
/// ```
/// use tabletop::environment::episode_seed;
/// assert_ne!(episode_seed(1, 0, 0), episode_seed(1, 1, 0));
/// assert_eq!(episode_seed(1, 2, 3), episode_seed(1, 2, 3));
/// ```
pub fn episode_seed(seed: u64, slot: u64, episode: u64) -> u64 {
    let mut z = seed
        .wrapping_add(slot.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(episode.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    // Seeds stay below 2^53 so that they survive JSON and Python floats unchanged.
    (z ^ (z >> 31)) >> 11
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> EnvironmentFactory for Environments<G, A, E> {
    fn option_keys(&self) -> Vec<&'static str> {
        crate::session::option_keys::<G, A>().into_iter().chain(["seed"]).collect()
    }

    fn load(&self, options: &Value) -> Result<Box<dyn Environment>, EnvError> {
        let Some(map) = options.as_object() else {
            return Err(EnvError::Options("options must be a JSON object".into()));
        };
        if let Some(key) = map.keys().find(|k| !self.option_keys().contains(&k.as_str())) {
            return Err(EnvError::Options(format!(
                "{} has no option {key:?}; valid options: {}",
                A::NAME,
                self.option_keys().join(", ")
            )));
        }
        let seed = match map.get("seed") {
            None | Some(Value::Null) => 0,
            Some(v) => v.as_u64().ok_or_else(|| EnvError::Options("option \"seed\" must be a whole number".into()))?,
        };
        let mut options = options.clone();
        if let Some(map) = options.as_object_mut() {
            map.remove("seed");
        }
        let start =
            |seed: u64| A::start(&options, &json!({ "seed": seed })).map_err(|e| EnvError::Options(e.to_string()));
        let first = start(seed)?;
        // A game whose start does not depend on the seed is cloned instead of rebuilt.
        let seeded = start(seed ^ 1)? != first;
        let game = LoadedGame::<G, A, E> {
            num_actions: E::num_actions(&first),
            shape: E::observation_shape(&first),
            num_players: first.num_seats(),
            first: Arc::new(first),
            options,
            seed,
            seeded,
            marker: PhantomData,
        };
        Ok(Box::new(game))
    }
}

/// A loaded game: its options and first position.
struct LoadedGame<G: Game, A, E> {
    first: Arc<G>,
    options: Value,
    seed: u64,
    seeded: bool,
    num_actions: usize,
    num_players: usize,
    shape: Vec<usize>,
    marker: PhantomData<fn() -> (A, E)>,
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> LoadedGame<G, A, E> {
    /// The first position of a game seeded with `seed`.
    fn start(&self, seed: u64) -> G {
        if !self.seeded || seed == self.seed {
            return (*self.first).clone();
        }
        // The options were accepted at load, and a seed changes no option's validity.
        A::start(&self.options, &json!({ "seed": seed })).unwrap_or_else(|_| (*self.first).clone())
    }
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> Environment for LoadedGame<G, A, E> {
    fn name(&self) -> &'static str {
        A::NAME
    }

    fn num_players(&self) -> usize {
        self.num_players
    }

    fn num_distinct_actions(&self) -> usize {
        self.num_actions
    }

    fn observation_shape(&self) -> Vec<usize> {
        self.shape.clone()
    }

    fn new_initial_state(&self, seed: Option<u64>) -> Box<dyn EnvState> {
        let start = self.start(seed.unwrap_or(self.seed));
        Box::new(StateOf::<G, A, E> {
            record: Record::new(start),
            actions: Vec::new(),
            num_actions: self.num_actions,
            obs_size: self.observation_size(),
            marker: PhantomData,
        })
    }

    fn new_vector(&self, num_envs: usize, seed: u64) -> Box<dyn VecEnvironment> {
        let mut vector = VectorOf::<G, A, E> {
            games: Vec::with_capacity(num_envs),
            mask: vec![false; num_envs * self.num_actions],
            num_envs,
            seed,
            num_actions: self.num_actions,
            obs_size: self.observation_size(),
            num_players: self.num_players,
            first: Arc::clone(&self.first),
            options: self.options.clone(),
            seeded: self.seeded,
            moves: Vec::new(),
            marker: PhantomData,
        };
        vector.reset(seed);
        Box::new(vector)
    }
}

/// The returns of a status for `players` players.
fn returns_of(status: Status, players: usize) -> impl Iterator<Item = f64> {
    let outcome: Option<Outcome> = status.outcome();
    (0..players).map(move |p| outcome.map_or(0.0, |o| o.result_for(crate::Seat(p as u8)) as f64))
}

/// One state: the game's record (for repetition, the engines and the analysis) and the actions.
struct StateOf<G: Game, A, E> {
    record: Record<G>,
    actions: Vec<usize>,
    num_actions: usize,
    obs_size: usize,
    marker: PhantomData<fn() -> (A, E)>,
}

impl<G: Game, A, E> Clone for StateOf<G, A, E> {
    fn clone(&self) -> Self {
        StateOf {
            record: self.record.clone(),
            actions: self.actions.clone(),
            num_actions: self.num_actions,
            obs_size: self.obs_size,
            marker: PhantomData,
        }
    }
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> StateOf<G, A, E> {
    /// The legal moves with their ids, ascending by id.
    fn legal(&self) -> Vec<(usize, G::Move)> {
        if self.record.status().to_move().is_none() {
            return Vec::new();
        }
        let mut moves = Vec::new();
        let position = self.record.current();
        position.legal_moves(&mut moves);
        let mut out: Vec<(usize, G::Move)> =
            moves.into_iter().filter_map(|mv| E::encode(position, mv).map(|id| (id, mv))).collect();
        out.sort_unstable_by_key(|&(id, _)| id);
        out
    }

    /// The id of a move given in notation.
    fn id_of(&self, mv: G::Move) -> Result<usize, EnvError> {
        E::encode(self.record.current(), mv)
            .ok_or_else(|| EnvError::Action(format!("{mv} has no action id in this position")))
    }
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> fmt::Display for StateOf<G, A, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = crate::session::status_json(&self.record, A::describe_reason);
        if A::HIDDEN_INFORMATION {
            // The notation would show every rack: the board as a spectator sees it instead.
            let board = A::board(&self.record, None);
            write!(f, "{}", json!({"board": board, "status": status}))
        } else {
            write!(f, "{}\n{}", self.record.current().notation(), status)
        }
    }
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> EnvState for StateOf<G, A, E> {
    fn current_player(&self) -> Option<usize> {
        self.record.status().to_move().map(|s| s.index())
    }

    fn legal_actions(&self) -> Vec<usize> {
        self.legal().into_iter().map(|(id, _)| id).collect()
    }

    fn apply_action(&mut self, action: usize) -> Result<(), EnvError> {
        if self.record.status().to_move().is_none() {
            return Err(EnvError::Action("the game is over".into()));
        }
        let legal = self.legal();
        let Some(&(_, mv)) = legal.iter().find(|&&(id, _)| id == action) else {
            return Err(EnvError::Action(match E::decode(self.record.current(), action) {
                Some(mv) if action < self.num_actions => format!("action {action} ({mv}) is not legal here"),
                _ => format!("action {action} is not legal here (actions run from 0 to {})", self.num_actions - 1),
            }));
        };
        self.record.play(mv).map_err(|e| EnvError::Action(e.to_string()))?;
        self.actions.push(action);
        Ok(())
    }

    fn is_terminal(&self) -> bool {
        self.record.status().to_move().is_none()
    }

    fn returns(&self) -> Vec<f64> {
        returns_of(self.record.status(), self.record.current().num_seats()).collect()
    }

    fn clone_state(&self) -> Box<dyn EnvState> {
        Box::new(self.clone())
    }

    fn action_to_string(&self, action: usize) -> Result<String, EnvError> {
        if action >= self.num_actions {
            return Err(EnvError::Action(format!(
                "action {action} is out of range: actions run from 0 to {}",
                self.num_actions - 1
            )));
        }
        E::decode(self.record.current(), action)
            .map(|mv| mv.to_string())
            .ok_or_else(|| EnvError::Action(format!("action {action} stands for no move in this position")))
    }

    fn string_to_action(&self, text: &str) -> Result<usize, EnvError> {
        let mv = self.record.current().parse_move(text).map_err(|e| EnvError::Action(e.to_string()))?;
        self.id_of(mv)
    }

    fn observation_tensor(&self, player: usize, out: &mut [f32]) -> Result<(), EnvError> {
        let players = self.record.current().num_seats();
        if player >= players {
            return Err(EnvError::Player { player, players });
        }
        if out.len() != self.obs_size {
            return Err(EnvError::Shape(format!("an observation has {} values, not {}", self.obs_size, out.len())));
        }
        out.fill(0.0);
        E::observe(self.record.current(), player, out);
        Ok(())
    }

    fn history(&self) -> Vec<usize> {
        self.actions.clone()
    }

    fn notation(&self) -> Option<String> {
        (!A::HIDDEN_INFORMATION).then(|| self.record.current().notation())
    }

    fn computer_action(&self, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<usize, EnvError> {
        if self.is_terminal() {
            return Err(EnvError::Engine("the game is over: there is no move to choose".into()));
        }
        spec.check(A::player_kinds()).map_err(|e| EnvError::Engine(e.to_string()))?;
        A::check_spec(&self.record, spec, caps).map_err(|e| EnvError::Engine(e.to_string()))?;
        let mv = A::choose(&self.record, spec, slot, caps).map_err(|e| EnvError::Engine(e.to_string()))?;
        self.id_of(mv)
    }

    fn analyze(&self, budget: Duration) -> Vec<(usize, crate::analysis::MoveValue)> {
        let Analysis { moves, .. } = G::analyze(&self.record, budget.into());
        let position = self.record.current();
        moves
            .into_iter()
            .filter_map(|m| {
                let mv = position.parse_move(&m.notation).ok()?;
                Some((E::encode(position, mv)?, m))
            })
            .collect()
    }
}

/// One game of a vector: the position, and the earlier positions where the game counts
/// repetitions (the same rule as [`Record::status`]).
struct Slot<G: Game> {
    position: G,
    earlier: Vec<G>,
    seed: u64,
    episode: u64,
}

impl<G: Game> Slot<G> {
    fn status(&self) -> Status {
        let status = self.position.status();
        if let (Status::ToMove(_), Some(limit)) = (status, G::repetition_limit()) {
            let hash = self.position.hash();
            let seen = 1 + self.earlier.iter().filter(|p| p.hash() == hash && **p == self.position).count();
            if seen >= limit {
                return Status::Over(Outcome::Draw);
            }
        }
        status
    }
}

/// Many games of `G`.
struct VectorOf<G: Game, A, E> {
    games: Vec<Slot<G>>,
    /// The legal actions of every game, row by row, kept up to date as games move (a row is
    /// what the game's legal moves encode to), so reading the mask is one copy.
    mask: Vec<bool>,
    num_envs: usize,
    seed: u64,
    num_actions: usize,
    obs_size: usize,
    num_players: usize,
    first: Arc<G>,
    options: Value,
    seeded: bool,
    moves: Vec<G::Move>,
    marker: PhantomData<fn() -> (A, E)>,
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> VectorOf<G, A, E> {
    /// Starts slot `i`'s episode `episode` (reusing the slot's buffers).
    fn start_slot(&mut self, i: usize, episode: u64) {
        let seed = episode_seed(self.seed, i as u64, episode);
        let position = if self.seeded {
            A::start(&self.options, &json!({ "seed": seed })).unwrap_or_else(|_| (*self.first).clone())
        } else {
            (*self.first).clone()
        };
        if i == self.games.len() {
            self.games.push(Slot { position, earlier: Vec::new(), seed, episode });
        } else {
            let slot = &mut self.games[i];
            slot.position = position;
            slot.earlier.clear();
            slot.seed = seed;
            slot.episode = episode;
        }
        let status = self.games[i].status();
        self.refresh_legal(i, status);
    }

    /// Recomputes slot `i`'s legal moves, its status being `status`.
    fn refresh_legal(&mut self, i: usize, status: Status) {
        let row = &mut self.mask[i * self.num_actions..(i + 1) * self.num_actions];
        row.fill(false);
        if status.to_move().is_none() {
            return;
        }
        E::mark_legal(&self.games[i].position, &mut self.moves, row);
    }

    fn check_len(what: &str, len: usize, want: usize) -> Result<(), EnvError> {
        if len == want {
            Ok(())
        } else {
            Err(EnvError::Shape(format!("{what} needs {want} values, not {len}")))
        }
    }
}

impl<G: Analyze + Players, A: Adapter<G>, E: Encoding<G>> VecEnvironment for VectorOf<G, A, E> {
    fn num_envs(&self) -> usize {
        self.games.len()
    }

    fn num_distinct_actions(&self) -> usize {
        self.num_actions
    }

    fn observation_size(&self) -> usize {
        self.obs_size
    }

    fn num_players(&self) -> usize {
        self.num_players
    }

    fn legal_mask(&self, out: &mut [bool]) -> Result<(), EnvError> {
        Self::check_len("the legal mask", out.len(), self.mask.len())?;
        out.copy_from_slice(&self.mask);
        Ok(())
    }

    fn observation(&self, out: &mut [f32]) -> Result<(), EnvError> {
        Self::check_len("the observations", out.len(), self.games.len() * self.obs_size)?;
        out.fill(0.0);
        if self.obs_size == 0 {
            return Ok(());
        }
        for (row, slot) in out.chunks_exact_mut(self.obs_size).zip(&self.games) {
            let player = slot.status().to_move().map_or(0, |s| s.index());
            E::observe(&slot.position, player, row);
        }
        Ok(())
    }

    fn current_players(&self, out: &mut [i64]) -> Result<(), EnvError> {
        Self::check_len("the current players", out.len(), self.games.len())?;
        for (o, slot) in out.iter_mut().zip(&self.games) {
            *o = slot.status().to_move().map_or(-1, |s| s.index() as i64);
        }
        Ok(())
    }

    fn episode_seeds(&self) -> Vec<u64> {
        self.games.iter().map(|s| s.seed).collect()
    }

    fn step(&mut self, actions: &[i64], rewards: &mut [f32], terminated: &mut [bool]) -> Result<(), EnvError> {
        let n = self.games.len();
        Self::check_len("the actions", actions.len(), n)?;
        Self::check_len("the rewards", rewards.len(), n * self.num_players)?;
        Self::check_len("the terminations", terminated.len(), n)?;
        // Every action is checked before any is played, so a refused step changes nothing.
        // Every action is checked before any is played, so a refused step changes nothing.
        for (i, &action) in actions.iter().enumerate() {
            let legal =
                usize::try_from(action).is_ok_and(|a| a < self.num_actions && self.mask[i * self.num_actions + a]);
            if !legal {
                return Err(EnvError::Action(format!("action {action} is not legal in game {i}")));
            }
        }
        rewards.fill(0.0);
        for (i, &action) in actions.iter().enumerate() {
            let slot = &mut self.games[i];
            // The mask holds only ids the game's own moves encode to, so the id decodes.
            let Some(mv) = E::decode(&slot.position, action as usize) else {
                return Err(EnvError::Action(format!(
                    "game {i}: action {action} stands for no move (an encoding fault)"
                )));
            };
            if G::repetition_limit().is_some() {
                slot.earlier.push(slot.position.clone());
            }
            slot.position.play_unchecked(mv);
            let status = slot.status();
            terminated[i] = status.to_move().is_none();
            if terminated[i] {
                for (r, value) in rewards[i * self.num_players..(i + 1) * self.num_players]
                    .iter_mut()
                    .zip(returns_of(status, self.num_players))
                {
                    *r = value as f32;
                }
                let episode = slot.episode + 1;
                self.start_slot(i, episode);
            } else {
                self.refresh_legal(i, status);
            }
        }
        Ok(())
    }

    fn reset(&mut self, seed: u64) {
        self.seed = seed;
        for i in 0..self.num_envs {
            self.start_slot(i, 0);
        }
    }
}

/// Writes a two-player board as three `rows x cols` planes: `player`'s pieces, the other
/// player's, the empty cells (`owner` gives the seat owning a cell, row-major). The observation
/// of the games played on a grid.
pub fn board_planes(
    out: &mut [f32],
    rows: usize,
    cols: usize,
    player: usize,
    owner: impl Fn(usize, usize) -> Option<usize>,
) {
    let plane = rows * cols;
    for r in 0..rows {
        for c in 0..cols {
            let at = r * cols + c;
            match owner(r, c) {
                Some(seat) if seat == player => out[at] = 1.0,
                Some(_) => out[plane + at] = 1.0,
                None => out[2 * plane + at] = 1.0,
            }
        }
    }
}

/// Plays `games` seeded random games of every kind `factory` loads from `options` to the end,
/// checking the environment's invariants (panics on the first failure, naming it): legal ids in
/// range, ascending and playable, the notation's round trip, returns, independent clones, the
/// observation's size, illegal actions refused, and the vector environment agreeing with states
/// stepped one by one. For the registry's test and each game's own.
pub fn check_environment(factory: &dyn EnvironmentFactory, options: &Value, games: usize, seed: u64) {
    use rand::{Rng, SeedableRng};
    let game = factory.load(options).unwrap_or_else(|e| panic!("loading {options}: {e}"));
    let name = game.name();
    let actions = game.num_distinct_actions();
    let players = game.num_players();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut obs = vec![0.0; game.observation_size()];
    let mut vector = game.new_vector(2, seed);
    let mut mask = vec![false; 2 * actions];
    let mut states: Vec<Box<dyn EnvState>> =
        vector.episode_seeds().iter().map(|&s| game.new_initial_state(Some(s))).collect();
    for g in 0..games {
        let mut state = game.new_initial_state(Some(seed.wrapping_add(g as u64)));
        let mut plies = 0;
        while !state.is_terminal() {
            let legal = state.legal_actions();
            assert!(!legal.is_empty(), "{name}: no legal action in a game going on");
            assert!(legal.windows(2).all(|w| w[0] < w[1]), "{name}: legal actions not ascending");
            assert!(state.current_player().is_some_and(|p| p < players), "{name}: current player");
            assert!(state.returns().iter().all(|&r| r == 0.0), "{name}: returns before the end");
            for &a in &legal {
                assert!(a < actions, "{name}: action {a} out of range");
                let text = state.action_to_string(a).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(state.string_to_action(&text), Ok(a), "{name}: {text} does not read back");
            }
            for p in 0..players {
                state.observation_tensor(p, &mut obs).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(obs.iter().all(|v| v.is_finite()), "{name}: observation");
            }
            assert!(state.observation_tensor(players, &mut obs).is_err(), "{name}: a player too many");
            let illegal = (0..actions).find(|a| !legal.contains(a));
            if let Some(bad) = illegal {
                let before = state.history();
                assert!(state.apply_action(bad).is_err(), "{name}: illegal action {bad} accepted");
                assert_eq!(state.history(), before, "{name}: a refused action changed the state");
            }
            assert!(state.apply_action(actions).is_err(), "{name}: out-of-range action accepted");
            let a = legal[rng.gen_range(0..legal.len())];
            let copy = state.clone_state();
            let copy_text = copy.to_string();
            state.apply_action(a).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(copy.to_string(), copy_text, "{name}: a clone changed with its original");
            assert_eq!(copy.history().len() + 1, state.history().len(), "{name}: clone history");
            plies += 1;
            assert!(plies < 100_000, "{name}: a random game that does not end");
        }
        assert!(state.legal_actions().is_empty() && state.current_player().is_none(), "{name}: terminal");
        let returns = state.returns();
        assert_eq!(returns.len(), players, "{name}: returns");
        assert!(returns.iter().all(|r| [-1.0, 0.0, 1.0].contains(r)), "{name}: returns {returns:?}");
        if players == 2 {
            assert_eq!(returns[0] + returns[1], 0.0, "{name}: two players' returns sum to 0");
        }
        assert!(returns.iter().filter(|&&r| r == 1.0).count() <= 1, "{name}: two winners alone");
        assert!(state.apply_action(0).is_err(), "{name}: an action after the end");
    }
    // The vector against states stepped one by one, through a few episodes.
    let mut rewards = vec![0.0; 2 * players];
    let mut done = vec![false; 2];
    let mut finished = 0;
    let mut steps = 0;
    while finished < games.max(2) && steps < 100_000 {
        vector.legal_mask(&mut mask).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut chosen = Vec::new();
        for (i, state) in states.iter().enumerate() {
            let legal: Vec<usize> = (0..actions).filter(|&a| mask[i * actions + a]).collect();
            assert_eq!(legal, state.legal_actions(), "{name}: the vector's mask differs from the state's");
            chosen.push(legal[rng.gen_range(0..legal.len())] as i64);
        }
        vector.step(&chosen, &mut rewards, &mut done).unwrap_or_else(|e| panic!("{name}: {e}"));
        steps += 1;
        let seeds = vector.episode_seeds();
        for i in 0..2 {
            states[i].apply_action(chosen[i] as usize).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(done[i], states[i].is_terminal(), "{name}: termination differs");
            if done[i] {
                let want: Vec<f32> = states[i].returns().iter().map(|&r| r as f32).collect();
                assert_eq!(&rewards[i * players..(i + 1) * players], &want[..], "{name}: rewards differ");
                states[i] = game.new_initial_state(Some(seeds[i]));
                finished += 1;
            }
        }
    }
    assert!(
        vector.step(&[actions as i64, 0], &mut rewards, &mut done).is_err(),
        "{name}: the vector took an illegal action"
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn every_game_is_an_environment_that_keeps_its_invariants() {
        for environment in crate::registry::GAMES.iter().filter_map(|entry| entry.environment) {
            crate::environment::check_environment(environment, &json!({}), 3, 7);
        }
    }

    #[test]
    fn options_are_checked() {
        for entry in crate::registry::GAMES {
            let Some(environment) = entry.environment else { continue };
            assert!(environment.load(&json!({"no such option": 1})).is_err(), "{}", entry.name);
            assert!(environment.load(&json!({"seed": "x"})).is_err(), "{}", entry.name);
            assert!(environment.load(&json!([])).is_err(), "{}", entry.name);
        }
    }

    #[test]
    fn seeds_make_chance_reproducible() {
        for entry in crate::registry::GAMES {
            let Some(environment) = entry.environment else { continue };
            let game = environment.load(&json!({"seed": 5})).unwrap();
            let a = game.new_initial_state(None);
            let b = game.new_initial_state(Some(5));
            assert_eq!(a.to_string(), b.to_string(), "{}", entry.name);
            assert_eq!(a.legal_actions(), b.legal_actions(), "{}", entry.name);
        }
    }
}

#[cfg(test)]
mod speed {
    /// `cargo test --release -p tabletop --lib environment::speed -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn vector_steps_per_second() {
        for entry in crate::registry::GAMES {
            let name = entry.name;
            let Some(environment) = entry.environment else { continue };
            let game = environment.load(&serde_json::json!({})).unwrap();
            let a = game.num_distinct_actions();
            // Fewer games where the mask is wide (Mathable), so that it stays a few MiB.
            let n = 4096.min((1 << 22) / a).max(1);
            let mut v = game.new_vector(n, 1);
            let mut mask = vec![false; n * a];
            let mut actions = vec![0i64; n];
            let mut rewards = vec![0.0; n * game.num_players()];
            let mut done = vec![false; n];
            let mut seed = 88172645463325252u64;
            let start = std::time::Instant::now();
            let mut stepping = std::time::Duration::ZERO;
            let rounds = 300;
            for _ in 0..rounds {
                v.legal_mask(&mut mask).unwrap();
                for (i, row) in mask.chunks(a).enumerate() {
                    let legal: Vec<usize> = (0..a).filter(|&j| row[j]).collect();
                    actions[i] =
                        legal[(crate::analysis::test_support::next(&mut seed) % legal.len() as u64) as usize] as i64;
                }
                let t = std::time::Instant::now();
                v.step(&actions, &mut rewards, &mut done).unwrap();
                stepping += t.elapsed();
            }
            let total = start.elapsed();
            println!(
                "{name}: step {:.1} ns/env, all {:.1} ns/env",
                stepping.as_nanos() as f64 / (rounds * n) as f64,
                total.as_nanos() as f64 / (rounds * n) as f64
            );
        }
    }
}
