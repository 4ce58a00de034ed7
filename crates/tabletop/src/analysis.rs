//! The value of every legal move of a position, for hints, the `analyze` command and the web
//! page's analysis.
//!
//! [`Analyze::analyze`] answers within a time budget: exactly where a solver can (Connect-N
//! always tries its solver and book; Slide 3x3 and 4x4; Reversi near the end), otherwise with
//! the engine's evaluation and the depth it reached. Scores are from the side to move's point
//! of view, higher is better, and comparable within one analysis: their unit depends on the
//! game and on whether the analysis is exact ([`Analysis::depth`] is `None`):
//!
//! | game | exact | otherwise |
//! |---|---|---|
//! | Connect-N | the solver's score (Pons' convention, see [`connect::solver`]) | the heuristic search's value |
//! | Slide | [`SlideValue::rank`] (a million minus plies for a win) | the generic search's value |
//! | Reversi | the final disc difference | hundredths of a disc (the engine's evaluation) |
//! | Mathable | - | points: the placement's, plus what the rest of the turn adds greedily |
//!
//! A finished game has no moves: its analysis is empty. Each game's `impl Analyze` lives in its
//! own folder (`games/<game>/analysis.rs`); this module holds the types and the helpers they share.
//!
//! ```
//! use std::time::Duration;
//! use tabletop::games::connect::{Connect, ConnectVariant};
//! use tabletop::{Analyze, Game, Record};
//! let v = ConnectVariant::connect3();
//! let record = Record::new(Connect::from_notation(&v, "1122").unwrap());
//! let analysis = Connect::analyze(&record, Duration::from_secs(1));
//! assert_eq!(analysis.depth, None); // solved
//! assert_eq!(analysis.moves[0].notation, "3"); // the win at once comes first
//! assert_eq!(analysis.moves[0].text, "wins in 1 move");
//! assert!(analysis.moves.iter().all(|m| m.exact));
//! ```
//!
//! [`connect::solver`]: crate::games::connect::solver
//! [`SlideValue::rank`]: crate::games::slide::solver::SlideValue::rank

use std::time::{Duration, Instant};

use crate::game::{Game, TwoPlayer};
use crate::record::Record;
use crate::search::{verdict, Evaluator, Limits, MoveOrder, Search, Verdict};

/// The value of one legal move. In JSON: `{"move", "score", "exact", "value"}` (the notation
/// and the words are `move` and `value`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MoveValue {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// Its value for the side to move, higher is better (units: see the module documentation).
    pub score: i32,
    /// True when the value is exact (proved by a solver or an exhaustive search).
    pub exact: bool,
    /// The value in words: "+4 discs (exact)", "wins in 4 moves", "12 points".
    #[serde(rename = "value")]
    pub text: String,
}

/// The values of the legal moves of a position. In JSON: `{"moves": [...], "depth"}`.
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::{Analyze, Record};
/// let record = Record::new(Connect::new(ConnectVariant::connect3()));
/// let json = serde_json::to_value(Connect::analyze(&record, Duration::from_millis(200))).unwrap();
/// assert_eq!(json["moves"].as_array().unwrap().len(), 4);
/// assert!(json["moves"][0]["move"].is_string() && json["moves"][0]["value"].is_string());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Serialize)]
pub struct Analysis {
    /// The moves, best first (equal scores keep the game's move order).
    pub moves: Vec<MoveValue>,
    /// The search depth (plies) the values rest on, `None` when every value is exact or no
    /// search was needed.
    pub depth: Option<u32>,
}

/// Games whose moves can be valued.
pub trait Analyze: Game {
    /// The value of every legal move of the record's current position within `budget` (a
    /// little more on tiny budgets: every move gets at least one search iteration). Empty for a
    /// finished game.
    fn analyze(record: &Record<Self>, budget: Duration) -> Analysis;
}

/// `n ply` or `n plies`.
///
/// ```
/// assert_eq!(tabletop::analysis::plies(1), "1 ply");
/// ```
pub fn plies(n: u32) -> String {
    crate::value::count(n.into(), "ply", "plies")
}

/// Sorts best first, stable for equal scores; `depth` as in [`Analysis::depth`].
pub fn sorted(mut moves: Vec<MoveValue>, depth: Option<u32>) -> Analysis {
    moves.sort_by_key(|m| std::cmp::Reverse(m.score));
    Analysis { moves, depth }
}

/// Values every legal move with the generic search: each child searched for an equal share of
/// the time left before `deadline` (at least one iteration), from the root's side. The generic analysis of games valued by [`Search`].
pub fn search_moves<G, E, O>(
    search: &mut Search<G, E, O>,
    record: &Record<G>,
    deadline: Instant,
    describe: impl Fn(i32) -> String,
) -> Analysis
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
    let mut out = Vec::with_capacity(moves.len());
    let mut depth = u32::MAX;
    let mut all_exact = true;
    for (i, &mv) in moves.iter().enumerate() {
        let mut child = root.clone();
        child.play_unchecked(mv);
        let share = deadline.saturating_duration_since(Instant::now()) / (moves.len() - i) as u32;
        let result = search.search(&child, &history, Limits { depth: None, time: Some(share), nodes: None });
        let result = if result.complete {
            result
        } else {
            // Out of time before the first iteration: one ply, whatever it costs.
            search.search(&child, &history, Limits::depth(1))
        };
        // Values count plies from the child: one more from the root.
        let value = match verdict(result.value) {
            Verdict::Win(p) => -(crate::search::WIN - p as i32 - 1),
            Verdict::Loss(p) => crate::search::WIN - p as i32 - 1,
            Verdict::Score(s) => -s,
        };
        let exact = result.exact || !matches!(verdict(value), Verdict::Score(_));
        all_exact &= exact;
        if !result.exact {
            depth = depth.min(result.depth + 1);
        }
        let text = match verdict(value) {
            Verdict::Score(_) if exact => "draw (exact)".to_string(),
            Verdict::Score(s) => describe(s),
            forced => crate::value::forced_result(forced).unwrap_or_default(),
        };
        out.push(MoveValue { notation: mv.to_string(), score: value, exact, text });
    }
    sorted(out, if all_exact || depth == u32::MAX { None } else { Some(depth) })
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
