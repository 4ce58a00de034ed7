//! The value of every legal move of a position: the one analysis of each game, used by the
//! terminal's hint, the page's hint and analysis, and `tabletop analyze` (the hint is always
//! the analysis' best move).
//!
//! [`Analyze::analyze`] takes [`AnalysisSettings`]: a `time` the analysis is meant to take and
//! an optional fixed `depth`. Everything the search does is decided from the position and the
//! settings *before* searching, through each game's calibration (a table of the cost by depth
//! measured on the development machine, see the game's `analysis` module): the depth of the
//! estimates, and whether and how far the exact solvers run (a node budget for Connect-N, an
//! empties threshold for Reversi). The clock is never read to stop a search, so the same
//! position analysed with the same settings gets the same values on an idle or a busy machine
//! (a busy one just takes longer). Positions are analysed through a canonical image under the
//! board's symmetries (Reversi's and Slide's 8, Connect-N's mirror), so a position and its
//! images get identical values on mapped moves.
//!
//! Each [`MoveValue`] is exact (proved by a solver or an exhaustive search) or an estimate
//! with its search depth; every estimate of one analysis has the same depth. Scores are from the
//! side to move's point of view, higher is better; their unit depends on the game and on
//! whether the value is exact:
//!
//! | game | exact | estimate |
//! |---|---|---|
//! | Connect-N | the solver's score (Pons' convention, see [`connect::solver`]) | the heuristic search's value |
//! | Slide | [`SlideValue::rank`] (a million minus plies for a win) | the generic search's value |
//! | Reversi | the final disc difference | hundredths of a disc (the engine's evaluation) |
//! | Gomoku | won or lost lines (the search's win values) | the engine's evaluation |
//! | Mathable | - | points: the placement's, plus what the rest of the turn adds greedily |
//!
//! Exact and estimated values are never ranked as if they were the same kind (see
//! [`rank_key`]): a proved win comes before every estimate, a proved loss after every estimate,
//! and an exact draw ranks as an estimate of 0 (even). [`Analysis::open`] names the moves
//! whose value is not exact.
//!
//! A finished game has no moves: its analysis is empty. Each game's `impl Analyze` lives in its
//! own folder (`games/<game>/analysis.rs`); this module holds the types and the helpers they share.
//!
//! ```
//! use tabletop::games::connect::{Connect, ConnectVariant};
//! use tabletop::{AnalysisSettings, Analyze, Game, Record};
//! let v = ConnectVariant::connect3();
//! let record = Record::new(Connect::from_notation(&v, "1122").unwrap());
//! let analysis = Connect::analyze(&record, AnalysisSettings::default());
//! assert_eq!(analysis.depth, None); // solved
//! assert!(analysis.open.is_empty());
//! assert_eq!(analysis.moves[0].notation, "3"); // the win at once comes first
//! assert_eq!(analysis.moves[0].text, "wins in 1 move");
//! assert!(analysis.moves.iter().all(|m| m.exact && m.depth.is_none()));
//! ```
//!
//! [`connect::solver`]: crate::games::connect::solver
//! [`SlideValue::rank`]: crate::games::slide::solver::SlideValue::rank

use std::time::Duration;

use crate::game::{Game, TwoPlayer};
use crate::record::Record;
use crate::search::{verdict, Evaluator, Limits, MoveOrder, Search, Verdict};

/// How much an analysis may search. Both fields are read before searching (never the clock
/// during it), so equal settings give equal values.
///
/// ```
/// use std::time::Duration;
/// use tabletop::AnalysisSettings;
/// let s = AnalysisSettings::default();
/// assert_eq!((s.depth, s.time), (None, Duration::from_secs(2)));
/// assert_eq!(AnalysisSettings::from(Duration::from_millis(500)).time, Duration::from_millis(500));
/// assert_eq!(AnalysisSettings::depth(6).depth, Some(6));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AnalysisSettings {
    /// The depth of the estimates in plies from the position, fixed (`--depth`); `None`: the
    /// game's calibration picks it from `time` and the position.
    pub depth: Option<u32>,
    /// The time the analysis is meant to take on the calibration machine (`--time`): it picks
    /// the depth when `depth` is `None`, and the exact solvers' budgets (node budgets, empties
    /// thresholds) always.
    pub time: Duration,
}

impl Default for AnalysisSettings {
    /// Two seconds, the depth from the calibration.
    fn default() -> Self {
        AnalysisSettings { depth: None, time: Duration::from_secs(2) }
    }
}

impl From<Duration> for AnalysisSettings {
    /// `time`, the depth from the calibration.
    fn from(time: Duration) -> Self {
        AnalysisSettings { depth: None, time }
    }
}

impl AnalysisSettings {
    /// The default time with the estimates' depth fixed to `depth` plies.
    pub fn depth(depth: u32) -> Self {
        AnalysisSettings { depth: Some(depth), ..AnalysisSettings::default() }
    }

    /// `time` with the depth from the calibration.
    pub fn time(time: Duration) -> Self {
        AnalysisSettings { depth: None, time }
    }

    /// The time the calibrations plan with, in seconds: [`AnalysisSettings::time`], times
    /// [`BUILD_SPEED`] (a build with debug assertions, the unoptimised one the browser tests
    /// serve, plans for a twentieth of the work so that it answers in about the same time).
    pub fn planning_seconds(&self) -> f64 {
        self.time.as_secs_f64() * BUILD_SPEED
    }

    /// The estimates' depth: the fixed one, else the deepest `d` in `1..=max` whose predicted
    /// cost `cost(d)` (seconds on the calibration machine) fits [`AnalysisSettings::time`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::AnalysisSettings;
    /// let cost = |d: u32| 0.001 * 4f64.powi(d as i32); // 4 ms, 16 ms, 64 ms, ...
    /// let time = Duration::from_secs_f64(0.1 / tabletop::analysis::BUILD_SPEED);
    /// assert_eq!(AnalysisSettings::time(time).pick_depth(10, cost), 3);
    /// assert_eq!(AnalysisSettings::time(Duration::ZERO).pick_depth(10, cost), 1);
    /// assert_eq!(AnalysisSettings::depth(7).pick_depth(10, cost), 7);
    /// ```
    pub fn pick_depth(&self, max: u32, cost: impl Fn(u32) -> f64) -> u32 {
        if let Some(d) = self.depth {
            return d.clamp(1, max.max(1));
        }
        let budget = self.planning_seconds();
        (1..=max.max(1)).take_while(|&d| d == 1 || cost(d) <= budget).last().unwrap_or(1)
    }
}

/// How much of a release build's work the calibrations plan for in this build: 1, or 1/20 with
/// debug assertions (the debug build runs the searches roughly 20 times slower). Values are
/// reproducible within one build; a debug and a release build may differ.
pub const BUILD_SPEED: f64 = if cfg!(debug_assertions) { 0.05 } else { 1.0 };

/// The value of one legal move. In JSON: `{"move", "score", "exact", "depth", "value"}` (the
/// notation and the words are `move` and `value`; `depth` is `null` for an exact value).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MoveValue {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// Its value for the side to move, higher is better (units: see the module documentation).
    pub score: i32,
    /// True when the value is exact (proved by a solver or an exhaustive search).
    pub exact: bool,
    /// The search depth (plies from the analysed position) of an estimate; `None` when exact
    /// (or for values no search gives, Mathable's points).
    pub depth: Option<u32>,
    /// The value in words: "+4 discs (exact)", "wins in 4 moves", "+0.50 discs (depth 8)".
    #[serde(rename = "value")]
    pub text: String,
}

/// The values of the legal moves of a position. In JSON: `{"moves": [...], "depth", "open"}`.
///
/// ```
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::{AnalysisSettings, Analyze, Record};
/// let record = Record::new(Connect::new(ConnectVariant::connect3()));
/// let json = serde_json::to_value(Connect::analyze(&record, AnalysisSettings::depth(2))).unwrap();
/// assert_eq!(json["moves"].as_array().unwrap().len(), 4);
/// assert!(json["moves"][0]["move"].is_string() && json["moves"][0]["value"].is_string());
/// assert!(json["open"].is_array());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct Analysis {
    /// The moves, best first by [`rank_key`] (equal keys keep the game's move order).
    pub moves: Vec<MoveValue>,
    /// The depth (plies) of the estimates, the same for all of them; `None` when every value
    /// is exact or no search was needed.
    pub depth: Option<u32>,
    /// The moves whose value is not exact (in the order of `moves`): still open for a longer
    /// analysis. Empty when everything is exact; every move for games without a solver.
    pub open: Vec<String>,
}

impl Analysis {
    /// The best move (the hint), if the game is not over.
    pub fn best(&self) -> Option<&MoveValue> {
        self.moves.first()
    }

    /// Maps every move's notation (from an analysed symmetric image back to the position).
    pub fn map_moves(mut self, mut f: impl FnMut(&str) -> String) -> Analysis {
        for m in &mut self.moves {
            m.notation = f(&m.notation);
        }
        for o in &mut self.open {
            *o = f(o);
        }
        self
    }
}

/// Games whose moves can be valued.
pub trait Analyze: Game {
    /// The value of every legal move of the record's current position with `settings` (see
    /// the module documentation); empty for a finished game.
    fn analyze(record: &Record<Self>, settings: AnalysisSettings) -> Analysis;
}

/// `n ply` or `n plies`.
///
/// ```
/// assert_eq!(tabletop::analysis::plies(1), "1 ply");
/// ```
pub fn plies(n: u32) -> String {
    crate::value::count(n.into(), "ply", "plies")
}

/// The order of an analysis, higher first: a proved win (exact, score above 0) above every
/// estimate, then the estimates and exact draws (an exact draw counts as an estimate of 0),
/// then proved losses (exact, score below 0); within each kind by score.
///
/// ```
/// use tabletop::analysis::{rank_key, MoveValue};
/// let m = |score, exact| MoveValue { notation: String::new(), score, exact, depth: None, text: String::new() };
/// assert!(rank_key(&m(1, true)) > rank_key(&m(900, false))); // a win beats any estimate
/// assert!(rank_key(&m(-900, false)) > rank_key(&m(-1, true))); // any estimate beats a loss
/// assert!(rank_key(&m(5, false)) > rank_key(&m(0, true))); // a draw is an estimate of 0
/// ```
pub fn rank_key(m: &MoveValue) -> (i8, i32) {
    match (m.exact, m.score.signum()) {
        (true, 1) => (2, m.score),
        (true, -1) => (0, m.score),
        _ => (1, m.score),
    }
}

/// Sorts best first by [`rank_key`], stable for equal keys; fills [`Analysis::depth`] (the
/// estimates' depth) and [`Analysis::open`].
pub fn sorted(mut moves: Vec<MoveValue>) -> Analysis {
    moves.sort_by_key(|m| std::cmp::Reverse(rank_key(m)));
    let depth = moves.iter().filter(|m| !m.exact).find_map(|m| m.depth);
    let open = moves.iter().filter(|m| !m.exact).map(|m| m.notation.clone()).collect();
    Analysis { moves, depth, open }
}

/// Values every legal move with the generic search, each child searched to `depth - 1` plies
/// (at least 1) without a clock, from the root's side. The generic analysis of games valued
/// by [`Search`]; the depth is the caller's, decided before searching.
pub fn search_moves<G, E, O>(
    search: &mut Search<G, E, O>,
    record: &Record<G>,
    depth: u32,
    describe: impl Fn(i32, u32) -> String,
) -> Vec<MoveValue>
where
    G: TwoPlayer,
    E: Evaluator<G>,
    O: MoveOrder<G>,
{
    let root = record.current();
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    let mut history = record.earlier_hashes();
    history.push(root.hash());
    let child_depth = depth.saturating_sub(1).max(1);
    let mut out = Vec::with_capacity(moves.len());
    for &mv in &moves {
        let mut child = root.clone();
        child.play_unchecked(mv);
        out.push(search_one(search, &child, &history, child_depth, mv.to_string(), &describe));
    }
    out
}

/// One child's value by the generic search to `child_depth` plies, from the parent's side.
pub fn search_one<G, E, O>(
    search: &mut Search<G, E, O>,
    child: &G,
    history: &[u64],
    child_depth: u32,
    notation: String,
    describe: impl Fn(i32, u32) -> String,
) -> MoveValue
where
    G: TwoPlayer,
    E: Evaluator<G>,
    O: MoveOrder<G>,
{
    let result = search.search(child, history, Limits::depth(child_depth));
    // Values count plies from the child: one more from the root.
    let value = match verdict(result.value) {
        Verdict::Win(p) => -(crate::search::WIN - p as i32 - 1),
        Verdict::Loss(p) => crate::search::WIN - p as i32 - 1,
        Verdict::Score(s) => -s,
    };
    let exact = result.exact || !matches!(verdict(value), Verdict::Score(_));
    let depth = child_depth + 1;
    let text = match verdict(value) {
        Verdict::Score(_) if exact => "draw (exact)".to_string(),
        Verdict::Score(s) => describe(s, depth),
        forced => crate::value::forced_result(forced).unwrap_or_default(),
    };
    MoveValue { notation, score: value, exact, depth: (!exact).then_some(depth), text }
}

/// Random playouts for the games' analysis tests.
#[cfg(test)]
pub(crate) mod test_support {
    use crate::game::Game;

    /// The deterministic xorshift step for the tests' random playouts.
    pub(crate) fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// `plies` random moves from `position` (fewer if the game ends).
    pub(crate) fn playout<G: Game>(mut position: G, plies: usize, seed: &mut u64) -> G {
        let mut moves = Vec::new();
        for _ in 0..plies {
            position.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[(next(seed) % moves.len() as u64) as usize];
            position.play_unchecked(mv);
        }
        position
    }
}
