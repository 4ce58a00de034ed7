//! Connect-N's analysis: exact from the book and the solver within a node budget, the
//! heuristic search at one depth for the moves still open; reproducibly.
//!
//! The plan follows from the position and the [`AnalysisSettings`] alone: each move that does
//! not win at once is looked up in the book (7x6), else solved with a node budget
//! ([`solver_nodes`]: a share of the settings' time at the calibrated solver speed) that a
//! single-threaded solve counts identically on any machine. The moves left unsolved are valued
//! by the heuristic search to one depth ([`heuristic_depth`]). A position is analysed through
//! the lesser of itself and its mirror image (by Pons' key), so mirror images get identical
//! values on mirrored columns.

use super::book::{canonical_key, Book};
use super::engine::{describe_score, heuristic_search};
use super::solver::Solver as ConnectSolver;
use super::{Column, Connect, ConnectVariant};
use crate::analysis::{search_one, sorted, Analysis, AnalysisSettings, Analyze, MoveValue};
use crate::game::Game;
use crate::record::Record;

/// The solver's speed used to turn time into nodes, on one thread of the 2-core development
/// machine: about 19 M nodes a second idle (the empty 7x6 board: 283 M nodes in 15 s), 3.3 M
/// under the load of three other builds (`connect_calibration`: `4453`'s seven moves, 33 M
/// nodes in 9.95 s, 2026-11-27); 8 M between the two.
pub const SOLVER_NODES_PER_SECOND: f64 = 8.0e6;

/// The share of the settings' time given to the exact solves.
const SOLVER_SHARE: f64 = 0.7;

/// The node budget of the exact solves of one analysis with `settings`: 70% of the time at
/// [`SOLVER_NODES_PER_SECOND`] (see [`AnalysisSettings::planning_seconds`]). The moves the book does not answer are solved in column order,
/// each with an equal share of what the earlier ones left.
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::connect::analysis::solver_nodes;
/// use tabletop::AnalysisSettings;
/// let second = solver_nodes(AnalysisSettings::time(Duration::from_secs(1)));
/// assert_eq!(second as f64, 5_600_000.0 * tabletop::analysis::BUILD_SPEED); // 70% of 8 M
/// assert_eq!(solver_nodes(AnalysisSettings::time(Duration::from_secs(2))), 2 * second);
/// ```
pub fn solver_nodes(settings: AnalysisSettings) -> u64 {
    (settings.planning_seconds() * SOLVER_SHARE * SOLVER_NODES_PER_SECOND) as u64
}

/// The calibration of the heuristic search (`cargo test --release -p tabletop --lib
/// connect_calibration -- --ignored --nocapture`, the development machine under load,
/// 2026-11-27): seconds per move at depth 0, and the growth per ply. Measured per move at ply 4
/// (the costliest): 1.9 ms at depth 8, 10 ms at 10, 36 ms at 12, 0.20 s at 14.
const HEURISTIC_BASE: f64 = 4.0e-6;
/// See [`HEURISTIC_BASE`].
const HEURISTIC_GROWTH: f64 = 2.2;

/// The depth of the heuristic estimates with `settings` for a position with `moves` legal
/// moves and `empty` empty cells: the fixed depth, or the deepest whose predicted cost fits
/// 30% of the time.
pub fn heuristic_depth(settings: AnalysisSettings, moves: u32, empty: u32) -> u32 {
    let share = AnalysisSettings { time: settings.time.mul_f64(1.0 - SOLVER_SHARE), ..settings };
    share.pick_depth(empty.max(1), |d| HEURISTIC_BASE * HEURISTIC_GROWTH.powi(d as i32) * moves.max(1) as f64)
}

impl Analyze for Connect {
    /// Exact where the book or the solver (within [`solver_nodes`]) answers; the other moves by
    /// the heuristic search at one depth, listed in [`Analysis::open`].
    ///
    /// ```
    /// use tabletop::games::connect::{solver::Solver, Connect, ConnectVariant};
    /// use tabletop::{AnalysisSettings, Analyze, Game, Record};
    /// let v = ConnectVariant::connect4();
    /// let p = Connect::from_notation(&v, "2252576253462244111563365343671351441").unwrap();
    /// let analysis = Connect::analyze(&Record::new(p.clone()), AnalysisSettings::default());
    /// assert_eq!(analysis.depth, None);
    /// let mut solver = Solver::new(v, 1 << 20);
    /// assert_eq!(analysis.moves[0].score, solver.solve(&p)); // the best move is the position's value
    /// ```
    fn analyze(record: &Record<Connect>, settings: AnalysisSettings) -> Analysis {
        let root = record.current();
        if root.status().to_move().is_none() {
            return Analysis::default();
        }
        let (_, mirrored) = canonical_key(root);
        if !mirrored {
            return analyze_canonical(root, settings);
        }
        let width = root.connect_variant().width();
        let mut image = Connect::new(root.connect_variant());
        for c in root.history() {
            match c {
                Some(Column(c)) => image.play_unchecked(Column((width - 1 - c as usize) as u8)),
                None => {
                    image.forfeit_turn();
                }
            }
        }
        analyze_canonical(&image, settings).map_moves(|n| match n.parse::<usize>() {
            Ok(c) if (1..=width).contains(&c) => (width + 1 - c).to_string(),
            _ => n.to_string(),
        })
    }
}

/// The analysis of `root` itself (see the module documentation).
fn analyze_canonical(root: &Connect, settings: AnalysisSettings) -> Analysis {
    let v = root.connect_variant();
    let book = (v == ConnectVariant::connect4()).then(Book::standard);
    let mut moves = Vec::new();
    root.legal_moves(&mut moves);
    let cells = v.cells() as i32;
    // Exact values first: wins at once, the book, then the solver for the rest.
    let mut exact: Vec<Option<i32>> = vec![None; moves.len()];
    let mut to_solve = Vec::new();
    for (i, &col) in moves.iter().enumerate() {
        if root.is_winning_move(col.0 as usize) {
            exact[i] = Some((cells + 1 - root.moves_played() as i32) / 2);
            continue;
        }
        let mut child = root.clone();
        child.play_unchecked(col);
        if let Some((_, Some(score))) = book.as_ref().and_then(|b| b.lookup(&child)) {
            exact[i] = Some(-score);
            continue;
        }
        to_solve.push((i, child));
    }
    if !to_solve.is_empty() {
        if let Ok(mut solver) = ConnectSolver::try_new(v, 1 << 21) {
            let mut left = solver_nodes(settings);
            for (k, (i, child)) in to_solve.iter().enumerate() {
                let share = left / (to_solve.len() - k) as u64;
                solver.reset_nodes();
                solver.set_node_limit(Some(share));
                exact[*i] = solver.try_solve(child, false).ok().map(|s| -s);
                left -= solver.nodes().min(share);
            }
        }
    }
    let open = exact.iter().filter(|e| e.is_none()).count() as u32;
    let empty = (cells - root.moves_played() as i32).max(1) as u32;
    let depth = heuristic_depth(settings, open, empty);
    let mut search = heuristic_search();
    let history = vec![root.hash()];
    let mut out = Vec::with_capacity(moves.len());
    for (&col, value) in moves.iter().zip(exact) {
        match value {
            Some(score) => out.push(MoveValue {
                notation: col.to_string(),
                score,
                exact: true,
                depth: None,
                text: describe_score(root, score),
            }),
            None => {
                let mut child = root.clone();
                child.play_unchecked(col);
                let child_depth = depth.saturating_sub(1).max(1);
                let m = search_one(&mut search, &child, &history, child_depth, col.to_string(), |s, d| {
                    format!("{s:+} (heuristic, depth {d})")
                });
                out.push(m);
            }
        }
    }
    sorted(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_support::playout;
    use std::time::Duration;

    #[test]
    fn connect_scores_are_the_solvers() {
        let v = ConnectVariant::new(5, 4, 4).unwrap();
        let mut solver = ConnectSolver::new(v, 1 << 18);
        let mut seed = 7;
        for plies in [0, 3, 6, 9, 12] {
            let p = playout(Connect::new(v), plies, &mut seed);
            let analysis = Connect::analyze(&Record::new(p.clone()), AnalysisSettings::default());
            if p.status().to_move().is_none() {
                assert!(analysis.moves.is_empty());
                continue;
            }
            assert_eq!(analysis.depth, None, "{}", p.notation());
            assert!(analysis.open.is_empty());
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
    fn the_issue_position_is_exact_with_a_budget_that_covers_it() {
        // `4453`: the heuristic once ranked losing columns first. With enough nodes every
        // column is exact and equal to the solver's value.
        let v = ConnectVariant::connect4();
        let p = Connect::from_notation(&v, "4453").unwrap();
        let analysis = Connect::analyze(&Record::new(p.clone()), AnalysisSettings::time(Duration::from_secs(600)));
        assert!(analysis.open.is_empty(), "{analysis:?}");
        let mut solver = ConnectSolver::new(v, 1 << 22);
        let by_solver = solver.solve_moves(&p);
        for m in &analysis.moves {
            let col: usize = m.notation.parse::<usize>().unwrap() - 1;
            assert_eq!(Some(m.score), by_solver[col], "column {}", m.notation);
        }
        assert_eq!(analysis.moves[0].score, solver.solve(&p));
    }

    #[test]
    fn connect_open_moves_get_the_heuristic_at_one_depth() {
        let v = ConnectVariant::connect4();
        // Ply 8, random and off the book: no child is solved with a budget of no nodes.
        let p = playout(Connect::new(v), 8, &mut 13);
        assert!(p.status().to_move().is_some());
        let settings = AnalysisSettings { depth: Some(4), time: Duration::ZERO };
        let analysis = Connect::analyze(&Record::new(p.clone()), settings);
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        assert_eq!(analysis.moves.len(), moves.len());
        let estimates: Vec<_> = analysis.moves.iter().filter(|m| !m.exact).collect();
        assert!(!estimates.is_empty());
        assert!(estimates.iter().all(|m| m.depth == Some(4)), "{:?}", analysis.moves);
        assert_eq!(analysis.depth, Some(4));
        assert_eq!(analysis.open.len(), estimates.len());
        // The same settings, the same answer.
        assert_eq!(Connect::analyze(&Record::new(p), settings), analysis);
    }

    #[test]
    fn mirror_images_get_mirrored_values() {
        let v = ConnectVariant::connect4();
        let mut seed = 21;
        for plies in [3, 6, 9, 12] {
            let p = playout(Connect::new(v), plies, &mut seed);
            if p.status().to_move().is_none() {
                continue;
            }
            let mirror: String = p.notation().chars().map(|c| c.to_digit(10).map_or(c, |d| char::from(b'0' + (8 - d) as u8))).collect();
            let q = Connect::from_notation(&v, &mirror).unwrap();
            let settings = AnalysisSettings { depth: Some(5), time: Duration::from_millis(20) };
            let a = Connect::analyze(&Record::new(p.clone()), settings);
            let b = Connect::analyze(&Record::new(q), settings);
            let mapped = b.map_moves(|n| (8 - n.parse::<u32>().unwrap()).to_string());
            let key = |a: &Analysis| {
                let mut m: Vec<_> = a.moves.iter().map(|m| (m.notation.clone(), m.score, m.exact, m.depth)).collect();
                m.sort();
                m
            };
            assert_eq!(key(&a), key(&mapped), "{}", p.notation());
        }
    }

    #[test]
    fn exact_wins_and_losses_rank_around_the_estimates() {
        let v = ConnectVariant::connect4();
        let p = playout(Connect::new(v), 14, &mut 5);
        let analysis = Connect::analyze(&Record::new(p), AnalysisSettings { depth: Some(3), time: Duration::from_millis(5) });
        let keys: Vec<_> = analysis.moves.iter().map(crate::analysis::rank_key).collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{:?}", analysis.moves);
    }

    #[test]
    fn finished_games_have_no_moves() {
        let v = ConnectVariant::connect3();
        let won = Connect::from_notation(&v, "12121").unwrap();
        assert!(won.status().to_move().is_none());
        assert_eq!(Connect::analyze(&Record::new(won), AnalysisSettings::default()), Analysis::default());
    }

    /// Measures the heuristic search's cost by depth (see [`HEURISTIC_BASE`]) and the solver's
    /// speed (see [`SOLVER_NODES_PER_SECOND`]); release build.
    #[test]
    #[ignore]
    fn connect_calibration() {
        use std::time::Instant;
        let v = ConnectVariant::connect4();
        let mut seed = 99;
        for plies in [4usize, 10, 16, 22] {
            for depth in [4u32, 6, 8, 10, 12, 14] {
                let mut per_move = Vec::new();
                for _ in 0..6 {
                    let p = playout(Connect::new(v), plies, &mut seed);
                    if p.status().to_move().is_none() {
                        continue;
                    }
                    let mut moves = Vec::new();
                    p.legal_moves(&mut moves);
                    let mut search = heuristic_search();
                    let t = Instant::now();
                    for &col in &moves {
                        let mut child = p.clone();
                        child.play_unchecked(col);
                        search_one(&mut search, &child, &[p.hash()], depth - 1, String::new(), |_, _| String::new());
                    }
                    per_move.push(t.elapsed().as_secs_f64() / moves.len() as f64);
                }
                per_move.sort_by(f64::total_cmp);
                let p90 = per_move.get(per_move.len() * 9 / 10).or(per_move.last()).copied().unwrap_or(0.0);
                println!("heuristic ply {plies} depth {depth}: per move p50 {:.6} p90 {p90:.6}", per_move[per_move.len() / 2]);
            }
        }
        let mut solver = ConnectSolver::new(v, 1 << 21);
        let p = Connect::from_notation(&v, "4453").unwrap();
        let t = Instant::now();
        solver.solve_moves(&p);
        println!("solver: {} nodes in {:.2} s", solver.nodes(), t.elapsed().as_secs_f64());
    }
}
