//! Game review: every move of a game record valued against the best move of its position, with
//! inaccuracies, mistakes and blunders marked, and the value over the game for a graph.
//!
//! [`review`] analyses every position of a record through the game's one analysis
//! ([`analyze_position`], the only call into [`Analyze`]) and asks the game's [`Review`]
//! implementation how much the move played lost against the analysis' best move and which
//! [`Mark`] that earns. Each game's thresholds, units and words live in its own folder
//! (`games/<game>/review.rs`); this module names no game.
//!
//! The loss is exact where the analysis is exact (a solver answered for both moves); where
//! the game can only be judged on exact values (solved games: a win thrown away), moves valued
//! by estimates get a loss only when the game's rules for estimates allow it, and no mark
//! otherwise. Values are from the mover's point of view; the series [`GameReview::values`] is
//! from the first seat's point of view, one point per position (after 0, 1, ... n moves).
//!
//! ```
//! use std::time::Duration;
//! use tabletop::games::connect::{Connect, ConnectVariant};
//! use tabletop::review::{review, Mark, ReviewSettings};
//! use tabletop::{Game, Record};
//! let v = ConnectVariant::connect3();
//! let mut record = Record::new(Connect::new(v));
//! for col in ["1", "1", "2", "2"] {
//!     record.play(record.current().parse_move(col).unwrap()).unwrap();
//! }
//! // X could win at once in column 3 but plays 4; O may now block.
//! record.play(record.current().parse_move("4").unwrap()).unwrap();
//! let r = review(&record, ReviewSettings::time(Duration::from_secs(1)), &mut |_, _| {});
//! assert_eq!(r.moves.len(), 5);
//! assert_eq!(r.moves[4].best.as_deref(), Some("3"));
//! assert!(r.moves[4].mark.is_some());
//! assert_eq!(r.values.len(), 6);
//! ```

use std::time::Duration;

use crate::analysis::{Analysis, AnalysisSettings, Analyze, MoveValue};
use crate::game::Seat;
use crate::record::Record;

/// How much the analysis of each position may search: a time and an optional fixed depth
/// (`tabletop review --time --depth`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReviewSettings {
    /// The time each position's analysis may take.
    pub time: Duration,
    /// The depth of the estimates, fixed; `None`: the analysis picks it from `time`.
    pub depth: Option<u32>,
}

impl ReviewSettings {
    /// `time` per position, the depth the analysis picks.
    pub fn time(time: Duration) -> Self {
        ReviewSettings { time, depth: None }
    }
}

impl Default for ReviewSettings {
    /// Half a second per position.
    fn default() -> Self {
        ReviewSettings::time(Duration::from_millis(500))
    }
}

/// The one call into the game's analysis: every legal move of the record's current position
/// valued with `settings` (the depth decided before searching, so a review is reproducible).
pub fn analyze_position<G: Analyze>(record: &Record<G>, settings: ReviewSettings) -> Analysis {
    G::analyze(record, AnalysisSettings { depth: settings.depth, time: settings.time })
}

/// How bad a move was, from the mildest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// A small loss: `?!`.
    Inaccuracy,
    /// A clear loss: `?`.
    Mistake,
    /// A loss that changes the game: `??`.
    Blunder,
}

impl Mark {
    /// The annotation symbol: `?!`, `?` or `??`.
    ///
    /// ```
    /// assert_eq!(tabletop::review::Mark::Blunder.symbol(), "??");
    /// ```
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    /// The word: `inaccuracy`, `mistake`, `blunder`.
    pub fn word(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }

    /// The mark for a loss `loss` against thresholds `[inaccuracy, mistake, blunder]` (each
    /// the smallest loss that earns it).
    ///
    /// ```
    /// use tabletop::review::Mark;
    /// assert_eq!(Mark::by_amount(1.0, [2.0, 6.0, 12.0]), None);
    /// assert_eq!(Mark::by_amount(6.0, [2.0, 6.0, 12.0]), Some(Mark::Mistake));
    /// assert_eq!(Mark::by_amount(40.0, [2.0, 6.0, 12.0]), Some(Mark::Blunder));
    /// ```
    pub fn by_amount(loss: f64, thresholds: [f64; 3]) -> Option<Mark> {
        let [inaccuracy, mistake, blunder] = thresholds;
        if loss >= blunder {
            Some(Mark::Blunder)
        } else if loss >= mistake {
            Some(Mark::Mistake)
        } else if loss >= inaccuracy {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }
}

/// What a game says about a move against the best one.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The loss in the game's unit ([`Review::UNIT`]), 0 or more.
    pub loss: f64,
    /// The loss in words (`-4 discs`, `win -> draw`).
    pub text: String,
    /// The mark the loss earns.
    pub mark: Option<Mark>,
}

/// A game's rules for reviews: its thresholds, units and words. Implemented in each game's
/// folder (`games/<game>/review.rs`). The defaults judge on proved results only (forced wins
/// and losses, see [`judge_proved`]), which every game's [`Analyze`] can tell: a game without
/// thresholds of its own gets a review from `impl Review for G {}`.
pub trait Review: Analyze {
    /// The unit of losses and of the graph's values (`discs`, `points`, ...).
    const UNIT: &'static str = "plies";
    /// The thresholds in words, shown under a review and in the docs.
    const THRESHOLDS: &'static str = PROVED_THRESHOLDS;
    /// The loss of `played` against `best` (both from one analysis, the mover's point of view)
    /// and its mark; `None` when the two values cannot be compared (an estimate where the game
    /// is judged on exact values only). Default: [`judge_proved`].
    fn judge(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
        judge_proved(best, played)
    }
    /// A move's value in [`Review::UNIT`] from the mover's point of view, for the graph;
    /// `None` when it has none (an estimate in a game graphed on exact values). Default: +1 a
    /// proved win, -1 a proved loss, 0 otherwise.
    fn graph_value(value: &MoveValue) -> Option<f64> {
        Some(f64::from(proved(value)))
    }
    /// The graph's point for the position `after` a move valued `played` (if the analysis
    /// valued it) made by `mover`, from the first seat's point of view. By default the move's
    /// [`graph_value`](Review::graph_value), negated when the second of two seats moved.
    fn graph_point(after: &Self, played: Option<&MoveValue>, mover: Seat) -> Option<f64> {
        let v = Self::graph_value(played?)?;
        match (mover.index(), after.num_seats()) {
            (0, _) => Some(v),
            (1, 2) => Some(-v),
            _ => None,
        }
    }
}

/// The review of one move.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReviewedMove {
    /// Moves played before it (0 for the first move).
    pub ply: usize,
    /// The seat that played it, from 0.
    pub mover: usize,
    /// The move played, in the game's notation.
    #[serde(rename = "move")]
    pub played: String,
    /// The analysis' best move (`None` where the analysis had none).
    pub best: Option<String>,
    /// The position's value before the move (the best move's), in words.
    pub value_before: Option<String>,
    /// The value of the move played, in words.
    pub value_after: Option<String>,
    /// The best move's score in the analysis (its units, the mover's point of view).
    pub score_before: Option<i32>,
    /// The move played's score in the analysis.
    pub score_after: Option<i32>,
    /// Are both values exact?
    pub exact: bool,
    /// The loss in the game's unit (`None`: not comparable, or the move was not valued).
    pub loss: Option<f64>,
    /// The loss in words.
    pub loss_text: Option<String>,
    /// Inaccuracy, mistake or blunder.
    pub mark: Option<Mark>,
}

/// The review of a game. In JSON: `{"unit", "thresholds", "moves": [...], "values": [...]}`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameReview {
    /// The unit of losses and values.
    pub unit: String,
    /// The game's thresholds in words.
    pub thresholds: String,
    /// Every move, in order.
    pub moves: Vec<ReviewedMove>,
    /// The value of every position from the first seat's point of view, for a graph: entry
    /// `k` is the position after `k` moves (`None` where unknown). One more than the moves.
    pub values: Vec<Option<f64>>,
}

impl GameReview {
    /// How many moves of `seat` earned `mark`.
    pub fn count(&self, seat: usize, mark: Mark) -> usize {
        self.moves.iter().filter(|m| m.mover == seat && m.mark == Some(mark)).count()
    }
}

/// Reviews every move of `record` (from its start), analysing each position with `settings`;
/// `progress(done, total)` is called after each position.
pub fn review<G: Review>(
    record: &Record<G>,
    settings: ReviewSettings,
    progress: &mut dyn FnMut(usize, usize),
) -> GameReview {
    review_range(record, 0, record.moves().len(), settings, progress)
}

/// Reviews the moves `from..to` of `record` (clamped to its moves): a part of [`review`], so
/// that a server can spread a long review over several jobs. Its `values` are the points after
/// each of these moves, preceded by the start's when `from` is 0; the parts of `0..a`, `a..b`,
/// ... `..n` appended in order (moves and values) are the review of the whole game.
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::review::{review, review_range, ReviewSettings};
/// use tabletop::{Game, Record};
/// let v = ConnectVariant::connect3();
/// let record = tabletop::Record::<Connect>::from_text(&v, "tabletop connect\nposition \nmoves 1 2 2 3 4\n").unwrap();
/// let s = ReviewSettings::time(Duration::from_millis(200));
/// let whole = review(&record, s, &mut |_, _| {});
/// let mut parts = review_range(&record, 0, 2, s, &mut |_, _| {});
/// let rest = review_range(&record, 2, 99, s, &mut |_, _| {});
/// parts.moves.extend(rest.moves);
/// parts.values.extend(rest.values);
/// assert_eq!(parts, whole);
/// ```
pub fn review_range<G: Review>(
    record: &Record<G>,
    from: usize,
    to: usize,
    settings: ReviewSettings,
    progress: &mut dyn FnMut(usize, usize),
) -> GameReview {
    let moves = record.moves();
    let to = to.min(moves.len());
    let from = from.min(to);
    let total = to - from;
    let mut replay = Record::new(record.start().clone());
    for &mv in &moves[..from] {
        if replay.play(mv).is_err() {
            break;
        }
    }
    let mut out = Vec::with_capacity(total);
    let mut values = Vec::with_capacity(total + 1);
    for (ply, &mv) in moves.iter().enumerate().take(to).skip(from) {
        let mover = replay.current().status().to_move().unwrap_or(Seat(0));
        let analysis = analyze_position(&replay, settings);
        if ply == 0 {
            // The start's value: its best move's, from the first mover's point of view.
            values.push(G::graph_point(replay.current(), analysis.moves.first(), mover));
        }
        let notation = mv.to_string();
        let best = analysis.moves.first();
        let played = analysis.moves.iter().find(|m| m.notation == notation);
        let judgement = match (best, played) {
            (Some(b), Some(p)) => G::judge(b, p),
            _ => None,
        };
        if replay.play(mv).is_err() {
            break;
        }
        values.push(G::graph_point(replay.current(), played, mover));
        out.push(ReviewedMove {
            ply,
            mover: mover.index(),
            played: notation,
            best: best.map(|b| b.notation.clone()),
            value_before: best.map(|b| b.text.clone()),
            value_after: played.map(|p| p.text.clone()),
            score_before: best.map(|b| b.score),
            score_after: played.map(|p| p.score),
            exact: best.is_some_and(|b| b.exact) && played.is_some_and(|p| p.exact),
            loss: judgement.as_ref().map(|j| j.loss),
            loss_text: judgement.as_ref().map(|j| j.text.clone()),
            mark: judgement.and_then(|j| j.mark),
        });
        progress(ply + 1 - from, total);
    }
    if moves.is_empty() {
        values.push(None);
    }
    GameReview { unit: G::UNIT.to_string(), thresholds: G::THRESHOLDS.to_string(), moves: out, values }
}

/// The result an exact value stands for: 1 a win, 0 a draw, -1 a loss (the sign of the score,
/// for games whose exact scores are positive for a win and 0 for a draw).
pub fn result_of(value: &MoveValue) -> Option<i32> {
    value.exact.then_some(value.score.signum())
}

/// The judgement of solved games, on exact values only (see [`judge_exact`]); `None` unless
/// both values are exact.
pub fn judge_solved(best: &MoveValue, played: &MoveValue, slower: i32) -> Option<Judgement> {
    (best.exact && played.exact).then(|| judge_exact(best.score, played.score, slower))
}

/// The judgement of exact scores of a solved game (positive a win, 0 a draw, negative a
/// loss): a move that turns a win or a draw into a loss is a blunder, a win into a draw a
/// mistake; with the same result, a loss of at least `slower` score units (a slower win or a
/// faster loss) is an inaccuracy. The loss is the difference of the scores.
///
/// ```
/// use tabletop::review::{judge_exact, Mark};
/// assert_eq!(judge_exact(3, -2, 4).mark, Some(Mark::Blunder));
/// assert_eq!(judge_exact(3, -2, 4).text, "win -> loss");
/// assert_eq!(judge_exact(0, -2, 4).mark, Some(Mark::Blunder));
/// assert_eq!(judge_exact(3, 0, 4).mark, Some(Mark::Mistake));
/// assert_eq!(judge_exact(7, 3, 4).mark, Some(Mark::Inaccuracy));
/// assert_eq!(judge_exact(7, 5, 4).mark, None);
/// assert_eq!(judge_exact(-2, -2, 4).loss, 0.0);
/// ```
pub fn judge_exact(best: i32, played: i32, slower: i32) -> Judgement {
    let (b, p) = (best.signum(), played.signum());
    let loss = (best - played).max(0);
    let mark = if p < b && p < 0 {
        Some(Mark::Blunder)
    } else if p < b {
        Some(Mark::Mistake)
    } else if loss >= slower {
        Some(Mark::Inaccuracy)
    } else {
        None
    };
    let text = if p < b {
        format!("{} -> {}", word_of(b), word_of(p))
    } else if loss == 0 {
        "best".into()
    } else {
        format!("{} {}", word_of(p), if p < 0 { "sooner" } else { "later" })
    };
    Judgement { loss: loss as f64, text, mark }
}

/// The thresholds of [`judge_proved`], in words.
pub const PROVED_THRESHOLDS: &str = "proved results: ?? walking into a forced loss, ? missing a forced win, \
?! the same forced result 4 or more plies later (a win) or sooner (a loss)";

/// The smallest loss in plies that is an inaccuracy with the same proved result.
pub const PROVED_SLOWER: i32 = 4;

/// The proved result of a value: 1, -1, or 0 for an estimate (or an exact draw).
pub fn proved(value: &MoveValue) -> i32 {
    if value.exact {
        value.score.signum()
    } else {
        0
    }
}

/// The judgement on proved results (forced wins and losses the analysis found): a blunder
/// `??` walks into a proved loss where the best move did not lose; a mistake `?` misses a
/// forced win; an inaccuracy `?!` reaches the same proved result [`PROVED_SLOWER`] or more
/// plies later (a win) or sooner (a loss). Between estimates: no loss, no mark.
///
/// ```
/// use tabletop::analysis::MoveValue;
/// use tabletop::review::{judge_proved, Mark};
/// let m = |score, exact| MoveValue { notation: String::new(), score, exact, depth: None, text: String::new() };
/// assert_eq!(judge_proved(&m(999_990, true), &m(-999_990, true)).unwrap().mark, Some(Mark::Blunder));
/// assert_eq!(judge_proved(&m(999_990, true), &m(12, false)).unwrap().mark, Some(Mark::Mistake));
/// assert_eq!(judge_proved(&m(30, false), &m(12, false)), None);
/// ```
pub fn judge_proved(best: &MoveValue, played: &MoveValue) -> Option<Judgement> {
    let (b, p) = (proved(best), proved(played));
    if best.exact && played.exact && b == p {
        return Some(judge_exact(best.score, played.score, PROVED_SLOWER));
    }
    if p >= b {
        return None;
    }
    let mark = if p < 0 { Mark::Blunder } else { Mark::Mistake };
    let after = if p == 0 { "no forced result" } else { word_of(p) };
    Some(Judgement { loss: 0.0, text: format!("forced {} -> {after}", word_of(b)), mark: Some(mark) })
}

/// `win`, `draw` or `loss` for a result from [`result_of`].
pub fn word_of(result: i32) -> &'static str {
    match result.signum() {
        1 => "win",
        0 => "draw",
        _ => "loss",
    }
}
