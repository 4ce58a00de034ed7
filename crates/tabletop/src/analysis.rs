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
//! A finished game has no moves: its analysis is empty.
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
use crate::games::connect::book::Book;
use crate::games::connect::engine::{describe_score, heuristic_search};
use crate::games::connect::solver::Solver as ConnectSolver;
use crate::games::connect::{Connect, ConnectVariant};
use crate::games::mathable::engine::greedy_turn_points;
use crate::games::mathable::{EnginePlayer as MathableEngine, Mathable, MathableMove};
use crate::games::reversi::engine::{Engine as ReversiEngine, WON};
use crate::games::reversi::solver::Solver as ReversiSolver;
use crate::games::reversi::{Reversi, ReversiMove};
use crate::games::slide::players::SlideEvaluation;
use crate::games::slide::solver::{is_solvable, SlideSolver, SlideValue};
use crate::games::slide::Slide;
use crate::record::Record;
use crate::search::{verdict, Evaluator, Limits, MoveOrder, NoOrdering, Options, Search, Verdict};

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
    /// The value in words: "+4 discs (exact)", "win in 7 plies", "12 points".
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
fn plies(n: u32) -> String {
    format!("{n} {}", if n == 1 { "ply" } else { "plies" })
}

/// Sorts best first, stable for equal scores.
fn sorted(mut moves: Vec<MoveValue>, depth: Option<u32>) -> Analysis {
    moves.sort_by_key(|m| std::cmp::Reverse(m.score));
    Analysis { moves, depth }
}

/// Values every legal move with the generic search: each child searched for an equal share of
/// the time left before `deadline` (at least one iteration), from the root's side.
fn search_moves<G, E, O>(
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
            Verdict::Win(p) => format!("win in {}", plies(p)),
            Verdict::Loss(p) => format!("loss in {}", plies(p)),
            Verdict::Score(_) if exact => "draw (exact)".to_string(),
            Verdict::Score(s) => describe(s),
        };
        out.push(MoveValue { notation: mv.to_string(), score: value, exact, text });
    }
    sorted(out, if all_exact || depth == u32::MAX { None } else { Some(depth) })
}

impl Analyze for Connect {
    /// Exact: each move's child from the book (7x6) or the solver, within 70% of the budget;
    /// if any move stays unsolved, every move is valued by the heuristic search instead.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::connect::{solver::Solver, Connect, ConnectVariant};
    /// use tabletop::{Analyze, Game, Record};
    /// let v = ConnectVariant::connect4();
    /// let p = Connect::from_notation(&v, "2252576253462244111563365343671351441").unwrap();
    /// let analysis = Connect::analyze(&Record::new(p.clone()), Duration::from_secs(2));
    /// assert_eq!(analysis.depth, None);
    /// let mut solver = Solver::new(v, 1 << 20);
    /// assert_eq!(analysis.moves[0].score, solver.solve(&p)); // the best move is the position's value
    /// ```
    fn analyze(record: &Record<Connect>, budget: Duration) -> Analysis {
        let start = Instant::now();
        let root = record.current();
        if root.status().to_move().is_none() {
            return Analysis::default();
        }
        if let Some(moves) = connect_exact(root, start + budget.mul_f64(0.7)) {
            let moves = moves
                .into_iter()
                .map(|(col, score)| MoveValue {
                    notation: col.to_string(),
                    score,
                    exact: true,
                    text: describe_score(root, score),
                })
                .collect();
            return sorted(moves, None);
        }
        let mut search = heuristic_search();
        search_moves(&mut search, record, start + budget, |s| format!("{s:+} (heuristic)"))
    }
}

/// The exact score of every legal column of `root`, or `None` if the deadline comes first.
fn connect_exact(root: &Connect, deadline: Instant) -> Option<Vec<(crate::games::connect::Column, i32)>> {
    let v = root.connect_variant();
    let book = (v == ConnectVariant::connect4()).then(Book::standard);
    let mut solver: Option<ConnectSolver> = None;
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    let cells = v.cells() as i32;
    let mut out = Vec::with_capacity(moves.len());
    for col in moves {
        if root.is_winning_move(col.0 as usize) {
            out.push((col, (cells + 1 - root.moves_played() as i32) / 2));
            continue;
        }
        let mut child = root.clone();
        child.play_unchecked(col);
        if let Some((_, Some(score))) = book.as_ref().and_then(|b| b.lookup(&child)) {
            out.push((col, -score));
            continue;
        }
        if solver.is_none() {
            solver = Some(ConnectSolver::try_new(v, 1 << 21).ok()?);
        }
        let s = solver.as_mut()?;
        s.set_deadline(Some(deadline));
        let result = s.try_solve(&child, false);
        s.set_deadline(None);
        out.push((col, -result.ok()?));
    }
    Some(out)
}

impl Analyze for Slide {
    /// Exact on 3x3 and 4x4 (the solver, within 70% of the budget), else the generic search
    /// with the engine's evaluation.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::slide::Slide;
    /// use tabletop::{Analyze, Record};
    /// let board = Slide::from_configuration(3, 1, "obbbogbog").unwrap();
    /// let analysis = Slide::analyze(&Record::new(board), Duration::from_secs(1));
    /// assert_eq!(analysis.depth, None);
    /// assert_eq!(analysis.moves[0].text, "win in 1 ply");
    /// ```
    fn analyze(record: &Record<Slide>, budget: Duration) -> Analysis {
        let start = Instant::now();
        let root = record.current();
        if root.status().to_move().is_none() {
            return Analysis::default();
        }
        let variant = root.slide_variant();
        if is_solvable(variant) {
            if let Some(mut solver) = SlideSolver::new(variant) {
                solver.set_deadline(Some(start + budget.mul_f64(0.7)));
                if let Some(values) = solver.try_move_values(root) {
                    let moves = values
                        .into_iter()
                        .map(|(mv, value)| MoveValue {
                            notation: mv.to_string(),
                            score: value.rank() as i32,
                            exact: true,
                            text: slide_text(value),
                        })
                        .collect();
                    return sorted(moves, None);
                }
            }
        }
        let mut search = Search::new(SlideEvaluation, NoOrdering, Options::default());
        search_moves(&mut search, record, start + budget, |s| format!("{s:+} (open lines)"))
    }
}

/// A Slide value in words, with the right plural.
fn slide_text(value: SlideValue) -> String {
    match value {
        SlideValue::Win(d) => format!("win in {}", plies(d)),
        SlideValue::Draw => "draw".to_string(),
        SlideValue::Loss(d) => format!("loss in {}", plies(d)),
    }
}

/// Reversi positions with at most this many empties are solved exactly for every move when the
/// budget allows; above it the engine's evaluation is used at once.
const REVERSI_EXACT_EMPTIES: u32 = 20;

impl Analyze for Reversi {
    /// Exact (the endgame solver, every move, within half the budget) with at most 20 empties;
    /// otherwise the engine's evaluation of each move (hundredths of a disc) with its depth.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::reversi::{solver::Solver, Reversi};
    /// use tabletop::{Analyze, Record};
    /// let pos: Reversi = "XXXXXXXXXXOOOOXXXXOOOOXXXOOOOXXXXOOOXXXXXOOXXXXX--O----X--XXXX-- X".parse().unwrap();
    /// let analysis = Reversi::analyze(&Record::new(pos), Duration::from_secs(1));
    /// assert_eq!(analysis.depth, None);
    /// let best = Solver::new(16).solve(&pos).score;
    /// assert_eq!(analysis.moves[0].score, best);
    /// assert_eq!(analysis.moves[0].text, format!("{best:+} discs (exact)"));
    /// ```
    fn analyze(record: &Record<Reversi>, budget: Duration) -> Analysis {
        let start = Instant::now();
        let root = record.current();
        if root.is_over() {
            return Analysis::default();
        }
        if root.open_squares() <= REVERSI_EXACT_EMPTIES {
            if let Ok(mut solver) = ReversiSolver::try_new(20) {
                solver.set_deadline(Some(start + budget / 2));
                let values = solver.solve_all(root);
                if !solver.stopped() {
                    let moves = values
                        .into_iter()
                        .map(|(mv, score)| MoveValue {
                            notation: mv.to_string(),
                            score,
                            exact: true,
                            text: format!("{} (exact)", discs(score)),
                        })
                        .collect();
                    return sorted(moves, None);
                }
            }
        }
        reversi_engine_moves(root, start + budget)
    }
}

/// `+4 discs`, `-1 disc`.
fn discs(score: i32) -> String {
    format!("{score:+} disc{}", if score.abs() == 1 { "" } else { "s" })
}

/// Every move of `root` valued by the engine, each child with an equal share of the time left.
fn reversi_engine_moves(root: &Reversi, deadline: Instant) -> Analysis {
    let Ok(mut engine) = ReversiEngine::try_new(Some(Duration::from_millis(1)), None) else {
        return Analysis::default();
    };
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    let me = root.side_to_move();
    let mut out = Vec::with_capacity(moves.len());
    let mut depth = u32::MAX;
    for (i, &mv) in moves.iter().enumerate() {
        let share = deadline.saturating_duration_since(Instant::now()) / (moves.len() - i) as u32;
        engine.time = Some(share.max(Duration::from_millis(1)));
        let mut child = *root;
        child.play_unchecked(mv);
        // The engine values positions where a side can move: play a forced pass first.
        let mut sign = -1;
        if !child.is_over() && child.legal_placements().is_empty() {
            child.play_unchecked(ReversiMove::Pass);
            sign = 1;
        }
        let (score, exact, text) = if child.is_over() {
            let s = child.final_score(me);
            (100 * s, true, format!("{} (exact)", discs(s)))
        } else {
            let a = engine.analyse(&child);
            let value = sign * a.value;
            if a.exact {
                (100 * value, true, format!("{} (exact)", discs(value)))
            } else if value.abs() >= WON {
                let d = value.abs() - WON;
                let text = format!(
                    "{} by {d} disc{} (proved)",
                    if value > 0 { "wins" } else { "loses" },
                    if d == 1 { "" } else { "s" }
                );
                (value.signum() * (6500 + d), false, text)
            } else {
                depth = depth.min(a.depth + 1);
                (value, false, format!("{:+.2} discs (depth {})", value as f64 / 100.0, a.depth + 1))
            }
        };
        out.push(MoveValue { notation: mv.to_string(), score, exact, text });
    }
    let all_exact = out.iter().all(|m| m.exact);
    sorted(out, if all_exact || depth == u32::MAX { None } else { Some(depth) })
}

impl Analyze for Mathable {
    /// Every placement with its points plus what the rest of the turn adds greedily, the
    /// extra draw and ending the turn (with the bonus it earns); the engine's planned turn is
    /// named on its first placement. Exchanges and terminating are not valued.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::mathable::{Mathable, Settings};
    /// use tabletop::{Analyze, Game, Record};
    /// let game = Mathable::start(&Settings::default());
    /// let analysis = Mathable::analyze(&Record::new(game.clone()), Duration::from_secs(1));
    /// let placements = game.placements();
    /// assert_eq!(analysis.moves.len(), placements.len() + 1); // and "end"
    /// assert!(analysis.moves.windows(2).all(|w| w[0].score >= w[1].score));
    /// ```
    fn analyze(record: &Record<Mathable>, budget: Duration) -> Analysis {
        let game = record.current();
        if game.status().to_move().is_none() {
            return Analysis::default();
        }
        let mover = game.turn();
        let mut plan = None;
        if budget >= Duration::from_millis(20) {
            let mut engine = MathableEngine::new(game.hash());
            engine.time = budget / 2;
            let p = engine.plan_turn(game);
            if !p.placements.is_empty() {
                plan = Some(p);
            }
        }
        let mut out = Vec::new();
        let mut buf = Vec::new();
        for placement in game.placements() {
            let mut board = game.board().clone();
            board.put(placement.cell, placement.token);
            let mut rack = *game.rack(mover);
            rack.remove(placement.token);
            let more = greedy_turn_points(&board, &rack, &mut buf);
            let points = placement.points + more;
            let mut text = format!("{} point{}", placement.points, if placement.points == 1 { "" } else { "s" });
            if more > 0 {
                text.push_str(&format!(", {points} with the rest of the turn"));
            }
            if let Some(p) = plan.as_ref().filter(|p| p.placements[0] == placement) {
                let cells: Vec<String> = p.placements.iter().map(|q| format!("{}={}", q.cell, q.token)).collect();
                text.push_str(&format!("; the engine plans {} ({} points)", cells.join(" "), p.points + p.bonus));
            }
            let mv = MathableMove::Place { cell: placement.cell, token: placement.token };
            out.push(MoveValue { notation: mv.to_string(), score: points as i32, exact: false, text });
        }
        if game.is_legal(MathableMove::Draw) {
            out.push(MoveValue {
                notation: MathableMove::Draw.to_string(),
                score: 0,
                exact: false,
                text: "take the extra token".to_string(),
            });
        }
        let bonus = game.pending_bonus();
        let text = match (bonus, game.placed_this_turn()) {
            (b, _) if b > 0 => format!("end the turn: {b} bonus points"),
            (_, 0) => "pass".to_string(),
            _ => "end the turn".to_string(),
        };
        out.push(MoveValue { notation: MathableMove::EndTurn.to_string(), score: bonus as i32, exact: false, text });
        sorted(out, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::slide::SlideVariant;

    /// The deterministic xorshift step for the tests' random playouts.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    fn playout<G: Game>(mut position: G, plies: usize, seed: &mut u64) -> G {
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

    #[test]
    fn connect_scores_are_the_solvers() {
        let v = ConnectVariant::new(5, 4, 4).unwrap();
        let mut solver = ConnectSolver::new(v, 1 << 18);
        let mut seed = 7;
        for plies in [0, 3, 6, 9, 12] {
            let p = playout(Connect::new(v), plies, &mut seed);
            let analysis = Connect::analyze(&Record::new(p.clone()), Duration::from_secs(5));
            if p.status().to_move().is_none() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None, "{}", p.notation());
            let by_solver = solver.solve_moves(&p);
            for m in &analysis.moves {
                let col: usize = m.notation.parse::<usize>().unwrap() - 1;
                assert_eq!(Some(m.score), by_solver[col], "{} column {}", p.notation(), m.notation);
                assert_eq!(m.text, describe_score(&p, m.score));
            }
            assert_eq!(analysis.moves.len(), by_solver.iter().flatten().count());
            assert_eq!(analysis.moves[0].score, solver.solve(&p));
        }
    }

    #[test]
    fn connect_falls_back_to_the_heuristic_within_the_budget() {
        let v = ConnectVariant::connect4();
        // Ply 8, random and off the book: its children are not solvable in 35 ms.
        let p = playout(Connect::new(v), 8, &mut 13);
        assert!(p.status().to_move().is_some());
        let start = Instant::now();
        let analysis = Connect::analyze(&Record::new(p.clone()), Duration::from_millis(50));
        assert!(start.elapsed() < Duration::from_millis(500), "{:?}", start.elapsed());
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        assert_eq!(analysis.moves.len(), moves.len());
        assert!(analysis.depth.is_some_and(|d| d >= 1));
    }

    #[test]
    fn slide_exact_values_match_the_solver() {
        let variant = SlideVariant::new(3, 1).unwrap();
        let mut solver = SlideSolver::new(variant).unwrap();
        let mut seed = 11;
        for plies in [0, 2, 5, 8, 12, 20] {
            let p = playout(Slide::start(&variant), plies, &mut seed);
            let analysis = Slide::analyze(&Record::new(p), Duration::from_secs(2));
            if p.status().to_move().is_none() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None);
            let mut expected: Vec<(String, i32)> =
                solver.move_values(&p).into_iter().map(|(m, v)| (m.to_string(), v.rank() as i32)).collect();
            expected.sort_by_key(|(_, s)| std::cmp::Reverse(*s));
            let got: Vec<(String, i32)> = analysis.moves.iter().map(|m| (m.notation.clone(), m.score)).collect();
            assert_eq!(got, expected, "{}", p.notation());
        }
    }

    #[test]
    fn slide_4x4_answers_within_the_budget() {
        for empty in [1, 2] {
            let variant = SlideVariant::new(4, empty).unwrap();
            let record = Record::new(playout(Slide::start(&variant), 3, &mut 5));
            let start = Instant::now();
            let analysis = Slide::analyze(&record, Duration::from_millis(500));
            // The slide-phase table is built once per process (not interruptible) on top.
            assert!(start.elapsed() < Duration::from_millis(3000), "k={empty}: {:?}", start.elapsed());
            assert_eq!(analysis.moves.len(), 16 - 3);
        }
    }

    #[test]
    fn slide_large_boards_use_the_search_within_the_budget() {
        let variant = SlideVariant::new(6, 2).unwrap();
        let record = Record::new(playout(Slide::start(&variant), 6, &mut 3));
        let start = Instant::now();
        let analysis = Slide::analyze(&record, Duration::from_millis(300));
        assert!(start.elapsed() < Duration::from_millis(1500), "{:?}", start.elapsed());
        assert_eq!(analysis.moves.len(), 36 - 6);
        assert!(analysis.depth.is_some_and(|d| d >= 2));
    }

    #[test]
    fn reversi_near_the_end_is_exact_and_agrees_with_the_solver() {
        let mut solver = ReversiSolver::new(16);
        let mut seed = 5;
        for _ in 0..4 {
            let p = playout(Reversi::new(), 48, &mut seed);
            let analysis = Reversi::analyze(&Record::new(p), Duration::from_secs(2));
            if p.is_over() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None);
            let exact = solver.solve_all(&p);
            assert_eq!(analysis.moves.len(), exact.len());
            for m in &analysis.moves {
                let (_, s) = exact.iter().find(|(mv, _)| mv.to_string() == m.notation).unwrap();
                assert_eq!(m.score, *s, "{}", m.notation);
            }
        }
    }

    #[test]
    fn reversi_midgame_uses_the_engine_within_the_budget() {
        let p = playout(Reversi::new(), 12, &mut 9);
        let start = Instant::now();
        let analysis = Reversi::analyze(&Record::new(p), Duration::from_millis(400));
        assert!(start.elapsed() < Duration::from_millis(1200), "{:?}", start.elapsed());
        assert_eq!(analysis.moves.len(), p.legal_placements().len());
        assert!(analysis.depth.is_some_and(|d| d >= 2));
        assert!(analysis.moves.iter().all(|m| m.text.contains("discs")));
    }

    #[test]
    fn finished_games_have_no_moves() {
        let v = ConnectVariant::connect3();
        let won = Connect::from_notation(&v, "12121").unwrap();
        assert!(won.status().to_move().is_none());
        assert_eq!(Connect::analyze(&Record::new(won), Duration::from_millis(10)), Analysis::default());
        let mut game = Mathable::start(&crate::games::mathable::Settings::default());
        game.play(MathableMove::Terminate).unwrap();
        assert_eq!(Mathable::analyze(&Record::new(game), Duration::from_millis(10)), Analysis::default());
        let full: Reversi = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O".parse().unwrap();
        assert_eq!(Reversi::analyze(&Record::new(full), Duration::from_millis(10)), Analysis::default());
    }

    #[test]
    fn mathable_values_are_the_placements_points() {
        let game = Mathable::start(&crate::games::mathable::Settings::default());
        let analysis = Mathable::analyze(&Record::new(game.clone()), Duration::from_millis(200));
        for p in game.placements() {
            let mv = MathableMove::Place { cell: p.cell, token: p.token }.to_string();
            let m = analysis.moves.iter().find(|m| m.notation == mv).unwrap();
            assert!(m.score >= p.points as i32);
            assert!(m.text.starts_with(&format!("{} point", p.points)), "{}", m.text);
        }
        assert!(analysis.moves.iter().any(|m| m.text.contains("the engine plans")));
        assert_eq!(analysis.moves.last().unwrap().notation, "end");
    }
}
