//! The native part of the `tabletop` Python package (`tabletop._tabletop`): every game of the
//! registry through [`tabletop::environment`], with OpenSpiel's method names, a vector of games
//! stepped in one call with numpy arrays, and the games' engines and solvers.
//!
//! Nothing here names a game: games come from the registry by name.

use std::time::Duration;

use numpy::{AllowTypeChange, PyArray1, PyArray2, PyArrayLike1, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};
use serde_json::{Map, Value};
use tabletop::environment::{EnvError, EnvState, Environment, VecEnvironment};
use tabletop::registry;
use tabletop::session::{Caps, EngineSlot};
use tabletop::PlayerSpec;

/// OpenSpiel's player id of a finished game (`pyspiel.PlayerId.TERMINAL`).
const TERMINAL: i64 = -4;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn env_error(e: EnvError) -> PyErr {
    match e {
        EnvError::Player { .. } => PyIndexError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// Python keyword options as a JSON object (whole numbers, text, booleans, numbers).
fn options_json(options: Option<&Bound<'_, PyDict>>) -> PyResult<Value> {
    let mut map = Map::new();
    if let Some(options) = options {
        for (key, value) in options.iter() {
            let key: String = key.extract()?;
            let json = if value.is_none() {
                Value::Null
            } else if value.is_instance_of::<PyBool>() {
                Value::Bool(value.extract()?)
            } else if value.is_instance_of::<PyInt>() {
                match value.extract::<u64>() {
                    Ok(n) => Value::from(n),
                    Err(_) => Value::from(
                        value.extract::<i64>().map_err(|_| value_error(format!("option {key:?} is too large")))?,
                    ),
                }
            } else if value.is_instance_of::<PyFloat>() {
                Value::from(value.extract::<f64>()?)
            } else if value.is_instance_of::<PyString>() {
                Value::String(value.extract()?)
            } else {
                return Err(value_error(format!("option {key:?} must be a number, a string or a boolean")));
            };
            map.insert(key, json);
        }
    }
    Ok(Value::Object(map))
}

/// The registry's games that are environments (a game without an action numbering is not).
fn environment_names() -> Vec<&'static str> {
    registry::GAMES.iter().filter(|g| g.environment.is_some()).map(|g| g.name).collect()
}

/// The environment factory of the registry's game `name`.
fn environment(name: &str) -> PyResult<&'static dyn tabletop::environment::EnvironmentFactory> {
    registry::find(name).and_then(|entry| entry.environment).ok_or_else(|| {
        value_error(format!("no game {name:?}; the games are: {}", environment_names().join(", ")))
    })
}

/// The environment of the registry's game `name` with `options`.
fn load(name: &str, options: &Value) -> PyResult<Box<dyn Environment>> {
    environment(name)?.load(options).map_err(env_error)
}

/// A game with its options, as OpenSpiel's `pyspiel.Game`: made by `load_game`.
#[pyclass(module = "tabletop", frozen)]
struct Game {
    env: Box<dyn Environment>,
    options: Value,
}

#[pymethods]
impl Game {
    /// The game's registry name.
    #[getter]
    fn name(&self) -> &'static str {
        self.env.name()
    }

    /// The options the game was loaded with (a dict).
    fn options(&self) -> String {
        self.options.to_string()
    }

    /// The number of players.
    fn num_players(&self) -> usize {
        self.env.num_players()
    }

    /// Action ids run from 0 to this, exclusive.
    fn num_distinct_actions(&self) -> usize {
        self.env.num_distinct_actions()
    }

    /// The shape of a state's `observation_tensor`.
    fn observation_tensor_shape(&self) -> Vec<usize> {
        self.env.observation_shape()
    }

    /// The number of values of a state's `observation_tensor`.
    fn observation_tensor_size(&self) -> usize {
        self.env.observation_size()
    }

    /// The first state. `seed` replaces the game's `seed` option (only games with chance,
    /// Mathable's bag, depend on it).
    #[pyo3(signature = (seed=None))]
    fn new_initial_state(&self, seed: Option<u64>) -> State {
        State {
            inner: self.env.new_initial_state(seed),
            game: self.env.name(),
            players: self.env.num_players(),
            obs_size: self.env.observation_size(),
        }
    }

    fn __repr__(&self) -> String {
        format!("load_game({:?}, {})", self.env.name(), self.options)
    }
}

/// A state of a game, with OpenSpiel's method names and meanings.
#[pyclass(module = "tabletop")]
struct State {
    inner: Box<dyn EnvState>,
    game: &'static str,
    players: usize,
    obs_size: usize,
}

impl State {
    /// `(player, x)` or `(x)` as OpenSpiel accepts both for `action_to_string`/`string_to_action`.
    fn last_argument<'py>(&self, args: &Bound<'py, pyo3::types::PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        match args.len() {
            1 => args.get_item(0),
            2 => args.get_item(1),
            n => Err(value_error(format!("expected (action) or (player, action), got {n} arguments"))),
        }
    }
}

#[pymethods]
impl State {
    /// The game's registry name.
    #[getter]
    fn game_name(&self) -> &'static str {
        self.game
    }

    /// The player to move, or -4 (OpenSpiel's TERMINAL) when the game is over.
    fn current_player(&self) -> i64 {
        self.inner.current_player().map_or(TERMINAL, |p| p as i64)
    }

    /// The legal action ids, ascending; empty when the game is over or `player` is not to move.
    #[pyo3(signature = (player=None))]
    fn legal_actions(&self, player: Option<i64>) -> Vec<usize> {
        match player {
            Some(p) if self.inner.current_player().map(|c| c as i64) != Some(p) => Vec::new(),
            _ => self.inner.legal_actions(),
        }
    }

    /// A mask of the legal actions (1 legal, 0 not) over every action id.
    fn legal_actions_mask(&self, num_actions: Option<usize>) -> Vec<u8> {
        let legal = self.inner.legal_actions();
        let n = num_actions.unwrap_or_else(|| legal.last().map_or(0, |&a| a + 1));
        let mut mask = vec![0u8; n];
        for a in legal {
            if a < n {
                mask[a] = 1;
            }
        }
        mask
    }

    /// Plays a legal action (ValueError for an illegal one; the state is then unchanged).
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        let action = usize::try_from(action).map_err(|_| value_error(format!("action {action} is negative")))?;
        self.inner.apply_action(action).map_err(env_error)
    }

    /// Is the game over?
    fn is_terminal(&self) -> bool {
        self.inner.is_terminal()
    }

    /// Each player's result: 1 win, -1 loss, 0 draw or shared win, 0 while the game goes on.
    fn returns(&self) -> Vec<f64> {
        self.inner.returns()
    }

    /// Each player's reward for the last action: the returns when it ended the game, else 0.
    fn rewards(&self) -> Vec<f64> {
        self.inner.returns()
    }

    /// Always false: chance (Mathable's bag) is resolved inside moves from the seed.
    fn is_chance_node(&self) -> bool {
        false
    }

    /// The number of players.
    fn num_players(&self) -> usize {
        self.players
    }

    /// An independent copy.
    fn clone(&self) -> State {
        State { inner: self.inner.clone_state(), game: self.game, players: self.players, obs_size: self.obs_size }
    }

    fn __copy__(&self) -> State {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        self.clone()
    }

    /// The action in the game's notation: `action_to_string(action)` or
    /// `action_to_string(player, action)`.
    #[pyo3(signature = (*args))]
    fn action_to_string(&self, args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<String> {
        let action: i64 = self.last_argument(args)?.extract()?;
        let action = usize::try_from(action).map_err(|_| value_error(format!("action {action} is negative")))?;
        self.inner.action_to_string(action).map_err(env_error)
    }

    /// The action id of a move in the game's notation: `string_to_action(text)` or
    /// `string_to_action(player, text)`.
    #[pyo3(signature = (*args))]
    fn string_to_action(&self, args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<usize> {
        let text: String = self.last_argument(args)?.extract()?;
        self.inner.string_to_action(&text).map_err(env_error)
    }

    /// What `player` (default: the player to move, else 0) may see, as a flat float32 array.
    #[pyo3(signature = (player=None))]
    fn observation_tensor<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let player = player.unwrap_or_else(|| self.inner.current_player().map_or(0, |p| p as i64));
        let player =
            usize::try_from(player).map_err(|_| PyIndexError::new_err(format!("player {player} does not exist")))?;
        let mut out = vec![0.0f32; self.obs_size];
        self.inner.observation_tensor(player, &mut out).map_err(env_error)?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// The actions played so far.
    fn history(&self) -> Vec<usize> {
        self.inner.history()
    }

    /// The number of actions played so far.
    fn move_number(&self) -> usize {
        self.inner.history().len()
    }

    /// The position in the game's notation, or None for a game with hidden information.
    fn notation(&self) -> Option<String> {
        self.inner.notation()
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        format!("<tabletop.State {} after {} actions>", self.game, self.inner.history().len())
    }
}

/// A computer player of a game (`engine:level=5`, `random`, ...) choosing moves for states; its
/// tables are kept between moves.
#[pyclass(module = "tabletop", unsendable)]
struct Engine {
    game: &'static str,
    spec: PlayerSpec,
    slot: EngineSlot,
}

/// What a Python engine may use: far beyond the server's caps, which protect a shared machine.
const CAPS: Caps = Caps { max_think: Duration::from_secs(3600), engine_memory: 1 << 30 };

#[pymethods]
impl Engine {
    /// The player `spec` (the command line's `--player` text) for game `name`.
    #[new]
    #[pyo3(signature = (name, spec="engine"))]
    fn new(name: &str, spec: &str) -> PyResult<Engine> {
        let entry = registry::find(name)
            .ok_or_else(|| value_error(format!("no game {name:?}; the games are: {}", registry::names())))?;
        let spec: PlayerSpec = spec.parse().map_err(value_error)?;
        spec.check(entry.player_kinds).map_err(value_error)?;
        Ok(Engine { game: entry.name, spec, slot: None })
    }

    /// The action the player chooses in `state` (ValueError when the game is over).
    fn choose(&mut self, state: &State) -> PyResult<usize> {
        if state.game != self.game {
            return Err(value_error(format!("this engine plays {}, not {}", self.game, state.game)));
        }
        state.inner.computer_action(&self.spec, &mut self.slot, &CAPS).map_err(env_error)
    }

    /// Same as `choose`.
    fn step(&mut self, state: &State) -> PyResult<usize> {
        self.choose(state)
    }

    fn __repr__(&self) -> String {
        format!("Engine({:?}, {:?})", self.game, self.spec.to_string())
    }
}

/// Every legal action's value within `time` seconds: a list of dicts, best first, with
/// `action`, `move` (notation), `score` (for the player to move), `exact` and `value` (words).
#[pyfunction]
#[pyo3(signature = (state, time=1.0))]
fn analyze<'py>(py: Python<'py>, state: &State, time: f64) -> PyResult<Vec<Bound<'py, PyDict>>> {
    if !(time.is_finite() && time > 0.0) {
        return Err(value_error("time must be a positive number of seconds"));
    }
    let budget = Duration::from_secs_f64(time.min(3600.0));
    // The analysis runs without the GIL: other Python threads go on meanwhile.
    let inner = &state.inner;
    let moves = py.detach(|| inner.analyze(budget));
    moves
        .into_iter()
        .map(|(action, m)| {
            let d = PyDict::new(py);
            d.set_item("action", action)?;
            d.set_item("move", m.notation)?;
            d.set_item("score", m.score)?;
            d.set_item("exact", m.exact)?;
            d.set_item("value", m.text)?;
            Ok(d)
        })
        .collect()
}

/// Every legal action's exact value (a dict action -> score for the player to move, in the
/// units of `analyze`) where the game's solver answers within `time` seconds; ValueError when
/// some move could not be solved. An empty dict for a finished game.
#[pyfunction]
#[pyo3(signature = (state, time=10.0))]
fn solve(py: Python<'_>, state: &State, time: f64) -> PyResult<std::collections::BTreeMap<usize, i32>> {
    if !(time.is_finite() && time > 0.0) {
        return Err(value_error("time must be a positive number of seconds"));
    }
    let budget = Duration::from_secs_f64(time.min(3600.0));
    let inner = &state.inner;
    let moves = py.detach(|| inner.analyze(budget));
    if let Some(unsolved) = moves.iter().find(|(_, m)| !m.exact) {
        return Err(value_error(format!(
            "no exact value for {} within {time} s (the solver does not answer here; analyze gives estimates)",
            unsolved.1.notation
        )));
    }
    Ok(moves.into_iter().map(|(a, m)| (a, m.score)).collect())
}

/// Many games of one kind stepped together in Rust; finished games start again at once.
#[pyclass(module = "tabletop")]
struct VecEnv {
    inner: Box<dyn VecEnvironment>,
    shape: Vec<usize>,
    game: &'static str,
}

#[pymethods]
impl VecEnv {
    /// `num_envs` games of `name` (with the game's `options`), seeded from `seed`.
    #[new]
    #[pyo3(signature = (name, num_envs, seed=0, **options))]
    fn new(name: &str, num_envs: usize, seed: u64, options: Option<&Bound<'_, PyDict>>) -> PyResult<VecEnv> {
        if num_envs == 0 || num_envs > 1 << 20 {
            return Err(value_error("num_envs must be 1 to 1048576"));
        }
        let env = load(name, &options_json(options)?)?;
        Ok(VecEnv { inner: env.new_vector(num_envs, seed), shape: env.observation_shape(), game: env.name() })
    }

    /// The game's registry name.
    #[getter]
    fn name(&self) -> &'static str {
        self.game
    }

    /// The number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.inner.num_envs()
    }

    /// Action ids run from 0 to this, exclusive.
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.inner.num_distinct_actions()
    }

    /// The number of players.
    #[getter]
    fn num_players(&self) -> usize {
        self.inner.num_players()
    }

    /// The shape of one game's observation.
    #[getter]
    fn observation_shape(&self) -> Vec<usize> {
        self.shape.clone()
    }

    /// The legal actions: a bool array `(num_envs, num_distinct_actions)`.
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<bool>>> {
        let array = PyArray2::<bool>::zeros(py, [self.inner.num_envs(), self.inner.num_distinct_actions()], false);
        {
            let mut view = array.readwrite();
            let out = view.as_slice_mut().map_err(value_error)?;
            self.inner.legal_mask(out).map_err(env_error)?;
        }
        Ok(array)
    }

    /// Every game's observation from its player to move: float32 `(num_envs, *observation_shape)`.
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let array = PyArray2::<f32>::zeros(py, [self.inner.num_envs(), self.inner.observation_size()], false);
        {
            let mut view = array.readwrite();
            let out = view.as_slice_mut().map_err(value_error)?;
            self.inner.observation(out).map_err(env_error)?;
        }
        let mut shape = vec![self.inner.num_envs()];
        shape.extend(&self.shape);
        array.reshape(shape).map(|a| a.into_any()).map_err(value_error)
    }

    /// Each game's player to move: int64 `(num_envs,)`.
    fn current_player<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let mut out = vec![0i64; self.inner.num_envs()];
        self.inner.current_players(&mut out).map_err(env_error)?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// The seeds the current games started from: uint64 `(num_envs,)`. A state made with
    /// `load_game(name).new_initial_state(seed=s)` is the same game.
    fn episode_seeds<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u64>> {
        PyArray1::from_vec(py, self.inner.episode_seeds())
    }

    /// Plays one action in every game (int array `(num_envs,)`): returns `(rewards, terminations)`,
    /// float32 `(num_envs, num_players)` (each player's result in games that just ended, else 0)
    /// and bool `(num_envs,)`. Ended games start again. An illegal action raises ValueError and
    /// plays nothing.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyArrayLike1<'py, i64, AllowTypeChange>,
    ) -> PyResult<(Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<bool>>)> {
        let n = self.inner.num_envs();
        let players = self.inner.num_players();
        let actions = actions.as_slice().map_err(value_error)?;
        let rewards = PyArray2::<f32>::zeros(py, [n, players], false);
        let terminated = PyArray1::<bool>::zeros(py, [n], false);
        {
            let mut r = rewards.readwrite();
            let mut t = terminated.readwrite();
            let r = r.as_slice_mut().map_err(value_error)?;
            let t = t.as_slice_mut().map_err(value_error)?;
            self.inner.step(actions, r, t).map_err(env_error)?;
        }
        Ok((rewards, terminated))
    }

    /// Starts every game again from new seeds.
    #[pyo3(signature = (seed=0))]
    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed);
    }

    fn __len__(&self) -> usize {
        self.inner.num_envs()
    }

    fn __repr__(&self) -> String {
        format!("VecEnv({:?}, {})", self.game, self.inner.num_envs())
    }
}

/// Loads game `name` of `GAMES` with its options (keyword arguments; `seed` seeds chance).
#[pyfunction]
#[pyo3(signature = (name, **options))]
fn load_game(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Game> {
    let options = options_json(options)?;
    Ok(Game { env: load(name, &options)?, options })
}

/// The options game `name` accepts.
#[pyfunction]
fn game_options(name: &str) -> PyResult<Vec<&'static str>> {
    Ok(environment(name)?.option_keys())
}

/// The computer players game `name` offers, as (name, help) pairs.
#[pyfunction]
fn player_kinds(name: &str) -> PyResult<Vec<(&'static str, &'static str)>> {
    let entry = registry::find(name)
        .ok_or_else(|| value_error(format!("no game {name:?}; the games are: {}", registry::names())))?;
    Ok(entry.player_kinds.iter().map(|k| (k.name, k.help)).collect())
}

/// The native module.
#[pymodule]
fn _tabletop(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("GAMES", environment_names())?;
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<Engine>()?;
    m.add_class::<VecEnv>()?;
    m.add_function(wrap_pyfunction!(load_game, m)?)?;
    m.add_function(wrap_pyfunction!(game_options, m)?)?;
    m.add_function(wrap_pyfunction!(player_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    Ok(())
}
