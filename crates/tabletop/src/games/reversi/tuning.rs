//! Fitting the evaluation's weights to positions the project generates and solves itself.
//!
//! 1. **Self-play.** Games start from a seeded random opening; then the engine at a fixed depth
//!    plays both sides, with an occasional seeded random move for variety. Every position where
//!    the side to move has a move is kept.
//! 2. **Labels.** When a game reaches [`SelfPlay::solve_empties`] empties, that position is
//!    solved exactly; the score labels it and, with the sign of the side to move, every earlier
//!    position of the game (the self-play outcome). Every later position is solved exactly
//!    too. Labels are final disc differences for the side to move.
//! 3. **Fit.** For each phase (a range of empties) a ridge least-squares fit of the labels on
//!    the [`features`], over the samples of that phase and its neighbours (so that weights
//!    change smoothly from phase to phase).
//!
//! `tabletop tune reversi` runs all three and writes the weight file; the build includes it.

use std::ops::RangeInclusive;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::bitboard::moves;
use super::engine::Engine;
use super::probcut::{
    probcut_shallow, CutParams, ProbCut, END_SHALLOW_MAX, PROBCUT_MAX_DEPTH, PROBCUT_MIN_DEPTH, PROBCUT_STAGE,
};
use super::eval::{features, Weights, WeightsError, FEATURES, FEATURE_COUNT};
use super::patterns::{Layout, PatternWeights, PHASES, PHASE_WIDTH};
use super::rules::{Reversi, ReversiMove};
use super::solver::{cut_value, Solver, CUT_MIN};
use crate::game::Game;

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Empty squares.
    pub empties: u8,
    /// The [`features`] for the side to move.
    pub features: [i32; FEATURE_COUNT],
    /// The label: the final disc difference for the side to move.
    pub score: i8,
}

/// One labelled position as the pattern fit stores it: the discs of the side to move (`p`)
/// and of the opponent (`o`), and the final disc difference for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// Discs of the side to move.
    pub p: u64,
    /// Discs of the opponent.
    pub o: u64,
    /// The label: the final disc difference for the side to move.
    pub score: i8,
}

impl Labelled {
    /// Empty squares.
    pub fn empties(&self) -> u32 {
        64 - (self.p | self.o).count_ones()
    }
}

/// How to generate the self-play samples.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// Games to play.
    pub games: u64,
    /// Seed of the openings and random moves (game `i` uses `seed + i`).
    pub seed: u64,
    /// Depth of the engine that plays the games.
    pub depth: u32,
    /// From this many empties on, positions are solved exactly.
    pub solve_empties: u32,
    /// Plies of the random opening.
    pub opening: RangeInclusive<u32>,
    /// Chance of a random move at any later ply before the solve, in percent.
    pub random_percent: u32,
    /// The weights of the engine that plays the games (each tuning round plays with the
    /// previous round's weights).
    pub weights: &'static Weights,
    /// The pattern weights of the engine that plays the games; `None` (the default) plays
    /// with the ten-feature evaluation of `weights`.
    pub patterns: Option<&'static PatternWeights>,
    /// How much of the label of a position before the solve point comes from the playing
    /// engine's own search of it (its value at `depth`), in percent; the rest is the game's
    /// outcome. 0 (the default) labels by the outcome alone. A search value is far less noisy
    /// than the outcome of a game played on at low depth with random moves.
    pub search_label_percent: u32,
    /// The depth of the search that labels the positions (with `search_label_percent`):
    /// `None` labels with the playing engine's own search at `depth`; a depth here labels with
    /// a separate, deeper search with Multi-ProbCut, while the games are still played at
    /// `depth`, full width.
    pub label_depth: Option<u32>,
}

impl Default for SelfPlay {
    fn default() -> Self {
        SelfPlay {
            games: 3000,
            seed: 1,
            depth: 4,
            solve_empties: 16,
            opening: 2..=16,
            random_percent: 5,
            weights: Weights::builtin(),
            patterns: None,
            search_label_percent: 0,
            label_depth: None,
        }
    }
}

impl SelfPlay {
    /// Plays and labels the games, on every core; `on_game` is called after each game. The
    /// samples come in game order, so the result does not depend on the number of threads.
    ///
    /// ```
    /// use tabletop::games::reversi::tuning::SelfPlay;
    /// let settings = SelfPlay { games: 2, solve_empties: 10, ..SelfPlay::default() };
    /// let samples = settings.generate(&|| {});
    /// assert!(samples.len() > 60);
    /// assert!(samples.iter().all(|s| s.score.abs() <= 64 && s.empties >= 1));
    /// ```
    pub fn generate(&self, on_game: &(dyn Fn() + Sync)) -> Vec<Sample> {
        self.generate_positions(on_game)
            .into_iter()
            .map(|l| Sample { empties: l.empties() as u8, features: features(l.p, l.o), score: l.score })
            .collect()
    }

    /// Plays and labels the games as [`SelfPlay::generate`], keeping the positions themselves
    /// (what the pattern fit needs).
    ///
    /// ```
    /// use tabletop::games::reversi::tuning::SelfPlay;
    /// let settings = SelfPlay { games: 1, solve_empties: 10, ..SelfPlay::default() };
    /// let positions = settings.generate_positions(&|| {});
    /// assert!(positions.iter().all(|l| l.p & l.o == 0 && l.score % 2 == 0));
    /// ```
    pub fn generate_positions(&self, on_game: &(dyn Fn() + Sync)) -> Vec<Labelled> {
        (0..self.games)
            .into_par_iter()
            .map_init(
                || SelfPlayTables::new(self),
                |tables, game| {
                    let samples = self.play_one(tables, self.seed.wrapping_add(game));
                    on_game();
                    samples
                },
            )
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect()
    }

    fn play_one(&self, tables: &mut SelfPlayTables, seed: u64) -> Vec<Labelled> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Each game starts from empty tables, so that it does not depend on which games the
        // same thread played before (the solver's table can stay: its scores are exact).
        let SelfPlayTables { solver, engine, labeller } = tables;
        engine.clear();
        if let Some(l) = labeller.as_mut() {
            l.clear();
        }
        let mut position = Reversi::new();
        let mut moves = Vec::new();
        let opening = rng.gen_range(self.opening.clone());
        let mut ply = 0;
        // Positions before the solve, with their side to move and the search's value (hundredths
        // of a disc, for the side to move), waiting for the game's label.
        let mut pending = Vec::new();
        let mut samples = Vec::new();
        let search_percent = self.search_label_percent.min(100) as i32;
        let label = |side, outcome_side, outcome: i32, searched: i32| {
            let outcome = if side == outcome_side { outcome } else { -outcome };
            // Both in hundredths, then rounded to whole discs.
            let mixed = search_percent * searched + (100 - search_percent) * outcome * 100;
            ((mixed as f64 / 10_000.0).round() as i32).clamp(-64, 64) as i8
        };
        while !position.is_over() {
            let empties = position.open_squares();
            let (p, o) = position.player_opponent();
            let can_move = position.placements() != 0;
            let mut searched = None;
            if empties <= self.solve_empties {
                let score = solver.solve(&position).score;
                // The first solved position labels the whole game so far.
                for (side, sample, value) in pending.drain(..) {
                    samples.push(Labelled { score: label(side, position.side_to_move(), score, value), ..sample });
                }
                if can_move {
                    samples.push(Labelled { p, o, score: score as i8 });
                }
            } else if can_move && ply >= opening {
                let value = if search_percent > 0 {
                    let analysis = match labeller.as_mut() {
                        Some(l) => l.analyse(&position),
                        None => {
                            let analysis = engine.analyse(&position);
                            searched = Some(analysis.best);
                            analysis
                        }
                    };
                    if analysis.exact {
                        analysis.value * 100
                    } else {
                        analysis.value
                    }
                } else {
                    0
                };
                pending.push((position.side_to_move(), Labelled { p, o, score: 0 }, value));
            }
            position.legal_moves(&mut moves);
            let random = ply < opening || (empties > self.solve_empties && rng.gen_range(0..100) < self.random_percent);
            let chosen = if random || moves.len() == 1 {
                moves[rng.gen_range(0..moves.len())]
            } else if let Some(best) = searched {
                best
            } else {
                engine.analyse(&position).best
            };
            debug_assert!(chosen == ReversiMove::Pass || moves.contains(&chosen));
            position.play_unchecked(chosen);
            ply += 1;
        }
        if !pending.is_empty() {
            // The game ended before the solve point: its final score labels it.
            let black = position.final_score(super::rules::Color::Black);
            for (side, sample, value) in pending {
                samples.push(Labelled { score: label(side, super::rules::Color::Black, black, value), ..sample });
            }
        }
        samples
    }
}

/// The tables of one self-play thread, kept from game to game ([`Engine::clear`] empties
/// them between games): allocating them anew for every game made the process grow by about
/// 15 MB a game (`tests/self_play_memory.rs`).
struct SelfPlayTables {
    solver: Solver,
    /// The engine that plays the games: full width, so that the games stay those of the
    /// shipped runs whatever ProbCut's parameters are.
    engine: Engine,
    /// The deeper labelling search, if any, searching as that evaluation's engine does in
    /// play: the pattern engine with Multi-ProbCut, `engine-v1` full width (the ProbCut file
    /// is fitted to the pattern evaluation).
    labeller: Option<Engine>,
}

impl SelfPlayTables {
    fn new(settings: &SelfPlay) -> SelfPlayTables {
        let mut engine = Engine::new(None, Some(settings.depth));
        engine.weights = settings.weights;
        engine.patterns = settings.patterns;
        engine.probcut = None;
        let labeller = settings.label_depth.map(|d| {
            let mut e = match settings.patterns {
                Some(_) => Engine::new(None, Some(d)),
                None => Engine::try_new_v1(None, Some(d)).unwrap_or_else(|e| panic!("{e}")),
            };
            e.weights = settings.weights;
            e.patterns = settings.patterns;
            e
        });
        SelfPlayTables { solver: Solver::new(18), engine, labeller }
    }
}

/// Fits one row of weights per phase of `width` empties (the last phase ends at 60), each on
/// the samples within `width / 2` empties of the phase, with ridge penalty `ridge` (relative to
/// the number of samples; `0.0` is plain least squares).
///
/// ```
/// use tabletop::games::reversi::tuning::{fit, Sample};
/// // A label that is exactly 3 x the mobility difference is recovered (300 hundredths).
/// let samples: Vec<Sample> = (0..200)
///     .map(|i| {
///         let mut features = [0; 10];
///         features[0] = i % 7 - 3;
///         features[9] = i % 5 - 2;
///         Sample { empties: (i % 60 + 1) as u8, features, score: (3 * (i % 7 - 3)) as i8 }
///     })
///     .collect();
/// let rows = fit(&samples, 30, 0.0);
/// assert_eq!(rows.len(), 2);
/// assert_eq!(rows[0].1[0], 300);
/// ```
pub fn fit(samples: &[Sample], width: usize, ridge: f64) -> Vec<((usize, usize), [i32; FEATURE_COUNT])> {
    let width = width.clamp(1, 61);
    let mut rows = Vec::new();
    let mut from = 0;
    while from <= 60 {
        let to = if from + 2 * width > 61 { 60 } else { from + width - 1 };
        let lo = from.saturating_sub(width / 2);
        let hi = to + width / 2;
        let mut a = [[0.0f64; FEATURE_COUNT]; FEATURE_COUNT];
        let mut b = [0.0f64; FEATURE_COUNT];
        let mut n = 0usize;
        for s in samples.iter().filter(|s| (lo..=hi).contains(&(s.empties as usize))) {
            let y = s.score as f64 * 100.0;
            for ((a_row, b_i), &xi) in a.iter_mut().zip(b.iter_mut()).zip(&s.features) {
                let xi = xi as f64;
                *b_i += xi * y;
                for (a_ij, &xj) in a_row.iter_mut().zip(&s.features) {
                    *a_ij += xi * xj as f64;
                }
            }
            n += 1;
        }
        for (i, row) in a.iter_mut().enumerate() {
            // The ridge keeps features that never vary in a phase (no corner yet: no stable
            // discs) at zero instead of making the system singular.
            row[i] += ridge * n as f64 + 1e-6;
        }
        let w = solve_linear(a, b);
        let mut row = [0i32; FEATURE_COUNT];
        for (r, w) in row.iter_mut().zip(w) {
            *r = w.round() as i32;
        }
        rows.push(((from, to), row));
        from = to + 1;
    }
    rows
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting (`a` symmetric positive
/// definite here, thanks to the ridge).
fn solve_linear(mut a: [[f64; FEATURE_COUNT]; FEATURE_COUNT], mut b: [f64; FEATURE_COUNT]) -> [f64; FEATURE_COUNT] {
    for col in 0..FEATURE_COUNT {
        let pivot = (col..FEATURE_COUNT).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let d = a[col][col];
        if d.abs() < 1e-12 {
            continue;
        }
        let (upper, lower) = a.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for (offset, row) in lower.iter_mut().enumerate() {
            let factor = row[col] / d;
            for (value, pivot_value) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *value -= factor * pivot_value;
            }
            b[col + 1 + offset] -= factor * b[col];
        }
    }
    let mut x = [0.0; FEATURE_COUNT];
    for row in (0..FEATURE_COUNT).rev() {
        let rest: f64 = (row + 1..FEATURE_COUNT).map(|k| a[row][k] * x[k]).sum();
        x[row] = if a[row][row].abs() < 1e-12 { 0.0 } else { (b[row] - rest) / a[row][row] };
    }
    x
}

/// The mean squared error of `weights` on `samples`, in discs squared.
pub fn mean_squared_error(weights: &Weights, samples: &[Sample]) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let predicted: i32 = s.features.iter().zip(weights.row(s.empties as usize)).map(|(f, w)| f * w).sum();
            let error = predicted as f64 / 100.0 - s.score as f64;
            error * error
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// The weight file for `rows`, with `comment` lines on top.
pub fn weights_text(rows: &[((usize, usize), [i32; FEATURE_COUNT])], comment: &[String]) -> String {
    let mut text = String::new();
    for line in comment {
        text += &format!("# {line}\n");
    }
    text += &format!("empties {}\n", FEATURES.join(" "));
    for ((from, to), row) in rows {
        let values: Vec<String> = row.iter().map(|w| format!("{w:>6}")).collect();
        text += &format!("{:<6}{}\n", format!("{from}-{to}"), values.join(" "));
    }
    text
}

/// What [`tune`] produced: the weight file and how it does on the held-out samples.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The weight file (checked: it parses).
    pub text: String,
    /// Samples fitted on.
    pub train: usize,
    /// Samples held out.
    pub test: usize,
    /// The built-in weights' mean squared error on the held-out samples (discs squared).
    pub builtin_error: f64,
    /// The fitted weights' mean squared error on them.
    pub fitted_error: f64,
}

/// Step 3 and the check: holds out every tenth slice of `samples` (in game order), fits the
/// rest with phases `width` empties wide and the `ridge` penalty, writes the weight file with
/// `comment` on top (and a line counting the samples) and measures both weight sets on the
/// held-out samples.
pub fn tune(samples: &[Sample], width: usize, ridge: f64, comment: &[String]) -> Result<Tuned, WeightsError> {
    let chunk = (samples.len() / 10).max(1);
    let (train, test): (Vec<_>, Vec<_>) = samples.chunks(chunk).enumerate().partition(|(i, _)| i % 10 != 9);
    let train: Vec<Sample> = train.into_iter().flat_map(|(_, c)| c.iter().copied()).collect();
    let test: Vec<Sample> = test.into_iter().flat_map(|(_, c)| c.iter().copied()).collect();
    let mut comment = comment.to_vec();
    comment.push(format!("{} training and {} held-out positions.", train.len(), test.len()));
    let text = weights_text(&fit(&train, width, ridge), &comment);
    let fitted = Weights::parse(&text)?;
    Ok(Tuned {
        builtin_error: mean_squared_error(Weights::builtin(), &test),
        fitted_error: mean_squared_error(&fitted, &test),
        train: train.len(),
        test: test.len(),
        text,
    })
}

/// How to fit the pattern weights ([`fit_patterns`]).
#[derive(Clone, Debug)]
pub struct PatternFit {
    /// The L2 penalty on each weight, in discs squared per unit of weight squared (as if each
    /// weight had this many extra samples pulling it to zero).
    pub l2: f64,
    /// Conjugate-gradient iterations per phase.
    pub iterations: usize,
    /// Each phase is fitted on the positions within this many empties beyond its own (so that
    /// neighbouring phases agree).
    pub window: u32,
    /// Weights to refine: the fit learns the change from these (the L2 penalty pulls each
    /// weight toward its value here instead of toward zero), so that a smaller set of better
    /// labelled positions improves on weights fitted to a larger one. `None`: fit from zero.
    pub prior: Option<&'static PatternWeights>,
}

impl Default for PatternFit {
    fn default() -> Self {
        PatternFit { l2: 10.0, iterations: 40, window: 2, prior: None }
    }
}

/// How the fitted weights do in one phase.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseReport {
    /// The empties of the phase.
    pub empties: RangeInclusive<u32>,
    /// Positions fitted on (the phase and its window).
    pub fitted: usize,
    /// Training positions of the phase itself.
    pub train: usize,
    /// Held-out positions of the phase.
    pub test: usize,
    /// Root-mean-square error on the phase's training positions, in discs.
    pub train_rms: f64,
    /// Root-mean-square error on its held-out positions, in discs.
    pub test_rms: f64,
    /// The same for the ten-feature evaluation of `engine-v1` (built-in weights), for
    /// comparison.
    pub v1_test_rms: f64,
    /// The same for the shipped pattern weights (those built in), for comparison: the fitted
    /// weights should do better on the same held-out positions.
    pub shipped_test_rms: f64,
}

/// Is position `i` (in game order) held out? Every tenth block of 1,000.
fn held_out(i: usize) -> bool {
    i / 1000 % 10 == 9
}

/// The empties of phase `ph` (the last phase takes 60 too).
fn phase_empties(ph: usize) -> RangeInclusive<u32> {
    let lo = (ph * PHASE_WIDTH) as u32;
    let hi = if ph + 1 == PHASES { 60 } else { lo + PHASE_WIDTH as u32 - 1 };
    lo..=hi
}

/// Fits the pattern weights to `positions` (in game order; every tenth block of 1,000 is
/// held out): for each phase, a ridge least-squares fit by conjugate gradient (with the
/// diagonal as preconditioner), the phases in parallel. `on_phase` is called after each
/// phase. The result does not depend on the number of threads.
///
/// ```
/// use tabletop::games::reversi::tuning::{fit_patterns, PatternFit, SelfPlay};
/// let positions = SelfPlay { games: 4, solve_empties: 10, ..SelfPlay::default() }.generate_positions(&|| {});
/// let (weights, report) = fit_patterns(&positions, &PatternFit { iterations: 5, ..PatternFit::default() }, &|| {});
/// assert_eq!(report.len(), tabletop::games::reversi::patterns::PHASES);
/// assert!(report.iter().all(|r| r.train_rms.is_finite()));
/// ```
pub fn fit_patterns(
    positions: &[Labelled],
    settings: &PatternFit,
    on_phase: &(dyn Fn() + Sync),
) -> (PatternWeights, Vec<PhaseReport>) {
    let layout = Layout::get();
    let phases: Vec<Vec<i16>> = (0..PHASES)
        .into_par_iter()
        .map(|ph| {
            let own = phase_empties(ph);
            let lo = own.start().saturating_sub(settings.window);
            let hi = own.end() + settings.window;
            let chosen: Vec<&Labelled> = positions
                .iter()
                .enumerate()
                .filter(|(i, l)| !held_out(*i) && (lo..=hi).contains(&l.empties()))
                .map(|(_, l)| l)
                .collect();
            let w = fit_phase(layout, &chosen, settings, settings.prior.map(|p| p.phase(ph)));
            on_phase();
            w.iter().map(|x| (x * 100.0).round().clamp(-32000.0, 32000.0) as i16).collect()
        })
        .collect();
    let weights = PatternWeights::from_phases(&phases).expect("one vector of the layout's size per phase");
    let report = (0..PHASES)
        .map(|ph| {
            let own = phase_empties(ph);
            let (mut train, mut test, mut v1) = ((0usize, 0.0f64), (0usize, 0.0f64), (0usize, 0.0f64));
            let mut shipped = (0usize, 0.0f64);
            for (i, l) in positions.iter().enumerate() {
                if own.contains(&l.empties()) {
                    let e = weights.evaluate(l.p, l.o) as f64 / 100.0 - l.score as f64;
                    let acc = if held_out(i) { &mut test } else { &mut train };
                    acc.0 += 1;
                    acc.1 += e * e;
                    if held_out(i) {
                        let e = Weights::builtin().evaluate(l.p, l.o) as f64 / 100.0 - l.score as f64;
                        v1.0 += 1;
                        v1.1 += e * e;
                        let e = PatternWeights::builtin().evaluate(l.p, l.o) as f64 / 100.0 - l.score as f64;
                        shipped.0 += 1;
                        shipped.1 += e * e;
                    }
                }
            }
            let rms = |(n, sum): (usize, f64)| (sum / n.max(1) as f64).sqrt();
            PhaseReport {
                fitted: positions
                    .iter()
                    .enumerate()
                    .filter(|(i, l)| {
                        !held_out(*i)
                            && (own.start().saturating_sub(settings.window)..=own.end() + settings.window)
                                .contains(&l.empties())
                    })
                    .count(),
                train: train.0,
                test: test.0,
                train_rms: rms(train),
                test_rms: rms(test),
                v1_test_rms: rms(v1),
                shipped_test_rms: rms(shipped),
                empties: own,
            }
        })
        .collect();
    (weights, report)
}

/// One phase's ridge fit: minimises the squared error plus `l2` times the squared weights by
/// preconditioned conjugate gradient on the normal equations. Returns weights in discs.
fn fit_phase(layout: &Layout, positions: &[&Labelled], settings: &PatternFit, prior: Option<&[i16]>) -> Vec<f64> {
    let n = layout.size();
    let per = layout.instances() + 3;
    let mut x = Vec::with_capacity(positions.len() * per);
    let mut buf = Vec::with_capacity(per);
    for l in positions {
        layout.features(l.p, l.o, true, &mut buf);
        x.extend_from_slice(&buf);
    }
    // With a prior the fit is of the change from it: its weights (in discs; equal on every
    // configuration of a canonical class, as a fit leaves them) are taken off each label.
    let prior: Vec<f64> = match prior {
        Some(w) => w.iter().map(|&v| v as f64 / 100.0).collect(),
        None => vec![0.0; n],
    };
    let y: Vec<f64> = x
        .chunks_exact(per)
        .zip(positions)
        .map(|(row, l)| l.score as f64 - row.iter().map(|&j| prior[j as usize]).sum::<f64>())
        .collect();
    let l2 = settings.l2.max(1e-6);
    let mut diag = vec![l2; n];
    let mut r = vec![0.0f64; n];
    for (row, &yi) in x.chunks_exact(per).zip(&y) {
        for &j in row {
            diag[j as usize] += 1.0;
            r[j as usize] += yi;
        }
    }
    let mut w = vec![0.0f64; n];
    let mut z: Vec<f64> = r.iter().zip(&diag).map(|(r, d)| r / d).collect();
    let mut dir = z.clone();
    let mut rz: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
    let mut ad = vec![0.0f64; n];
    for _ in 0..settings.iterations {
        if rz <= 1e-18 {
            break;
        }
        // ad = (X^T X + l2) dir
        for (a, d) in ad.iter_mut().zip(&dir) {
            *a = l2 * d;
        }
        for row in x.chunks_exact(per) {
            let v: f64 = row.iter().map(|&j| dir[j as usize]).sum();
            for &j in row {
                ad[j as usize] += v;
            }
        }
        let dad: f64 = dir.iter().zip(&ad).map(|(a, b)| a * b).sum();
        if dad <= 0.0 {
            break;
        }
        let alpha = rz / dad;
        for i in 0..n {
            w[i] += alpha * dir[i];
            r[i] -= alpha * ad[i];
            z[i] = r[i] / diag[i];
        }
        let rz_new: f64 = r.iter().zip(&z).map(|(a, b)| a * b).sum();
        let beta = rz_new / rz;
        rz = rz_new;
        for (d, zi) in dir.iter_mut().zip(&z) {
            *d = zi + beta * *d;
        }
    }
    layout.spread_canonical(&mut w);
    for (w, p) in w.iter_mut().zip(&prior) {
        *w += p;
    }
    w
}

/// Fits Multi-ProbCut's parameters ([`ProbCut`]): searches `count` held-out positions of at
/// least 12 empties (spread evenly over `positions`) at every depth up to
/// [`PROBCUT_MAX_DEPTH`] with the pattern weights `patterns` and no selectivity, then, for
/// each stage and depth, fits `deep ~ a * shallow + b` by least squares and measures the
/// residual's standard deviation. Positions are searched in parallel; the result does not
/// depend on the number of threads.
///
/// ```
/// use tabletop::games::reversi::patterns::PatternWeights;
/// use tabletop::games::reversi::tuning::{fit_probcut, SelfPlay};
/// let positions = SelfPlay { games: 2, solve_empties: 10, ..SelfPlay::default() }.generate_positions(&|| {});
/// let cut = fit_probcut(&positions, 4, PatternWeights::builtin(), &|| {});
/// assert!(cut.to_text(&[]).starts_with('#'));
/// ```
pub fn fit_probcut(
    positions: &[Labelled],
    count: usize,
    patterns: &'static PatternWeights,
    on_position: &(dyn Fn() + Sync),
) -> ProbCut {
    let candidates: Vec<&Labelled> = positions
        .iter()
        .enumerate()
        .filter(|(i, l)| (held_out(*i) || positions.len() < 10_000) && l.empties() >= 12 && moves(l.p, l.o) != 0)
        .map(|(_, l)| l)
        .collect();
    let step = (candidates.len() / count.max(1)).max(1);
    let chosen: Vec<&Labelled> = candidates.iter().step_by(step).take(count).copied().collect();
    let max = PROBCUT_MAX_DEPTH as usize;
    let values: Vec<(u32, Vec<i32>)> = chosen
        .par_iter()
        .map_init(
            || {
                let mut engine = Engine::new(None, Some(1));
                engine.patterns = Some(patterns);
                engine.probcut = None;
                engine
            },
            |engine, l| {
                let v = (0..=max).map(|d| engine.search_value(l.p, l.o, d.max(1) as u32)).collect();
                on_position();
                (l.empties(), v)
            },
        )
        .collect();
    let mut cut = ProbCut::default();
    for stage in 0..=(60 / PROBCUT_STAGE) as usize {
        for depth in PROBCUT_MIN_DEPTH..=PROBCUT_MAX_DEPTH {
            let shallow = probcut_shallow(depth);
            let pairs: Vec<(f64, f64)> = values
                .iter()
                .filter(|(e, _)| (*e / PROBCUT_STAGE) as usize == stage && *e >= depth)
                .map(|(_, v)| (v[shallow as usize] as f64, v[depth as usize] as f64))
                .filter(|(s, d)| s.abs() < 6000.0 && d.abs() < 6000.0)
                .collect();
            let Some((a, b, sigma)) = fit_line(&pairs) else {
                continue;
            };
            cut.set(stage, depth, CutParams { shallow, a: a as f32, b: b as f32, sigma: sigma.min(4999.0) as f32 });
        }
    }
    cut
}

/// The most empties the endgame ProbCut is fitted at; the solver uses this row beyond.
pub const END_FIT_MAX: u32 = 22;

/// Least squares `y ~ a * x + b` over `pairs` and the residual's standard deviation, or `None`
/// with fewer than 30 pairs or no spread in `x`.
fn fit_line(pairs: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    if pairs.len() < 30 {
        return None;
    }
    let n = pairs.len() as f64;
    let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let a = (sxy / sxx).clamp(0.25, 4.0);
    let b = my - a * mx;
    let sigma = (pairs.iter().map(|p| (p.1 - a * p.0 - b).powi(2)).sum::<f64>() / n).sqrt();
    Some((a, b, sigma))
}

/// Fits the endgame solver's ProbCut ([`ProbCut::get_end`]) into `cut`: `count` held-out
/// positions with [`CUT_MIN`] to [`END_FIT_MAX`] empties (spread evenly over `positions`) are
/// solved exactly and searched on `patterns` at every shallow depth up to
/// [`END_SHALLOW_MAX`] ([`cut_value`]); for each number of empties and depth the exact score
/// is regressed on the shallow value. Parallel; the result does not depend on the number of
/// threads.
///
/// ```
/// use tabletop::games::reversi::probcut::ProbCut;
/// use tabletop::games::reversi::patterns::PatternWeights;
/// use tabletop::games::reversi::tuning::{fit_endcut, SelfPlay};
/// let positions = SelfPlay { games: 4, solve_empties: 10, ..SelfPlay::default() }.generate_positions(&|| {});
/// let mut cut = ProbCut::default();
/// fit_endcut(&mut cut, &positions, 20, PatternWeights::builtin(), &|| {});
/// ```
pub fn fit_endcut(
    cut: &mut ProbCut,
    positions: &[Labelled],
    count: usize,
    patterns: &PatternWeights,
    on_position: &(dyn Fn() + Sync),
) {
    let candidates: Vec<&Labelled> = positions
        .iter()
        .enumerate()
        .filter(|(i, l)| {
            (held_out(*i) || positions.len() < 10_000)
                && (CUT_MIN..=END_FIT_MAX).contains(&l.empties())
                && moves(l.p, l.o) != 0
        })
        .map(|(_, l)| l)
        .collect();
    let step = (candidates.len() / count.max(1)).max(1);
    let chosen: Vec<&Labelled> = candidates.iter().step_by(step).take(count).copied().collect();
    // One solver per chunk of positions (a solver's table is 24 MB).
    let chunk = chosen.len().div_ceil(4 * rayon::current_num_threads()).max(1);
    let values: Vec<(u32, i32, Vec<i32>)> = chosen
        .par_chunks(chunk)
        .flat_map_iter(|part| {
            let mut solver = Solver::new(20);
            solver.set_selective_from(61);
            part.iter()
                .map(|l| {
                    let position = Reversi::from_bitboards(l.p, l.o, super::rules::Color::Black);
                    let exact = solver.solve(&position).score * 100;
                    let shallow =
                        (0..=END_SHALLOW_MAX.min(l.empties() - 1)).map(|d| cut_value(patterns, l.p, l.o, d)).collect();
                    on_position();
                    (l.empties(), exact, shallow)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for empties in CUT_MIN..=END_FIT_MAX {
        for shallow in 0..=END_SHALLOW_MAX {
            let pairs: Vec<(f64, f64)> = values
                .iter()
                .filter(|(e, _, v)| *e == empties && v.len() > shallow as usize)
                .map(|(_, exact, v)| (v[shallow as usize] as f64, *exact as f64))
                .collect();
            if let Some((a, b, sigma)) = fit_line(&pairs) {
                let params = CutParams { shallow, a: a as f32, b: b as f32, sigma: sigma.min(4999.0) as f32 };
                cut.set_end(empties, params);
            }
        }
    }
}

/// The first bytes of a positions file ([`positions_bytes`]).
pub const POSITIONS_MAGIC: &[u8; 8] = b"TTRVPOS1";

/// What is wrong with a positions file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionsError {
    /// The file does not start with [`POSITIONS_MAGIC`] and a count.
    #[error("not a positions file (it must start with {:?})", std::str::from_utf8(POSITIONS_MAGIC).unwrap_or(""))]
    Magic,
    /// The length does not match the count in the header.
    #[error("the file holds {found} bytes of positions, its header announces {expected}")]
    Length {
        /// Bytes announced.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// A record is not a position (overlapping discs) or its label is beyond 64.
    #[error("record {index} is not a valid labelled position")]
    Record {
        /// 0-based index of the record.
        index: usize,
    },
}

const RECORD_BYTES: usize = 17;

/// Labelled positions as a file: [`POSITIONS_MAGIC`], the count (u64, little-endian), then
/// 17 bytes per position (`p`, `o` as u64 little-endian, the label as i8).
///
/// ```
/// use tabletop::games::reversi::tuning::{parse_positions, positions_bytes, Labelled};
/// let positions = vec![Labelled { p: 1, o: 2, score: -4 }];
/// assert_eq!(parse_positions(&positions_bytes(&positions)).unwrap(), positions);
/// assert!(parse_positions(b"nonsense").is_err());
/// ```
pub fn positions_bytes(positions: &[Labelled]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + positions.len() * RECORD_BYTES);
    out.extend_from_slice(POSITIONS_MAGIC);
    out.extend_from_slice(&(positions.len() as u64).to_le_bytes());
    for l in positions {
        out.extend_from_slice(&l.p.to_le_bytes());
        out.extend_from_slice(&l.o.to_le_bytes());
        out.push(l.score as u8);
    }
    out
}

/// Reads a positions file written by [`positions_bytes`], checking every record.
pub fn parse_positions(bytes: &[u8]) -> Result<Vec<Labelled>, PositionsError> {
    if bytes.len() < 16 || &bytes[..8] != POSITIONS_MAGIC {
        return Err(PositionsError::Magic);
    }
    let mut count = [0u8; 8];
    count.copy_from_slice(&bytes[8..16]);
    let count = u64::from_le_bytes(count);
    let body = &bytes[16..];
    let expected = count.saturating_mul(RECORD_BYTES as u64);
    if expected != body.len() as u64 {
        return Err(PositionsError::Length { expected, found: body.len() as u64 });
    }
    body.chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(index, r)| {
            let word = |at: usize| {
                let mut w = [0u8; 8];
                w.copy_from_slice(&r[at..at + 8]);
                u64::from_le_bytes(w)
            };
            let l = Labelled { p: word(0), o: word(8), score: r[16] as i8 };
            if l.p & l.o != 0 || l.score.unsigned_abs() > 64 {
                return Err(PositionsError::Record { index });
            }
            Ok(l)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endgame_cut_fit_predicts_exact_scores() {
        // 40 positions each at 12 and 14 empties, from seeded random games.
        let positions: Vec<Labelled> = [12, 14]
            .into_iter()
            .flat_map(|empties| super::super::accuracy::positions(40, 3, empties..=empties).expect("positions"))
            .map(|position| {
                let (p, o) = position.player_opponent();
                Labelled { p, o, score: 0 }
            })
            .collect();
        let mut cut = ProbCut::default();
        fit_endcut(&mut cut, &positions, positions.len(), PatternWeights::builtin(), &|| {});
        let mut solver = Solver::new(16);
        for empties in [12, 14] {
            for shallow in 0..=END_SHALLOW_MAX {
                let c = cut.get_end(empties, shallow).expect("fitted");
                assert!((0.25..=4.0).contains(&c.a) && c.sigma > 0.0, "{c:?}");
                // sigma is the residuals' root mean square over the fitted positions.
                let residuals: Vec<f64> = positions
                    .iter()
                    .filter(|l| l.empties() == empties)
                    .map(|l| {
                        let exact = solver.solve(&Reversi::from_bitboards(l.p, l.o, super::super::rules::Color::Black));
                        let predicted =
                            c.a as f64 * cut_value(PatternWeights::builtin(), l.p, l.o, shallow) as f64 + c.b as f64;
                        exact.score as f64 * 100.0 - predicted
                    })
                    .collect();
                let rms = (residuals.iter().map(|r| r * r).sum::<f64>() / residuals.len() as f64).sqrt();
                assert!((rms - c.sigma as f64).abs() < 1.0, "{empties} {shallow}: {rms} vs {}", c.sigma);
            }
        }
        // 13 empties had no positions: it falls back to the 12 row.
        assert_eq!(cut.get_end(13, 2), cut.get_end(12, 2));
    }

    #[test]
    fn self_play_is_reproducible_and_labels_are_exact() {
        let settings = SelfPlay { games: 3, solve_empties: 12, ..SelfPlay::default() };
        let a = settings.generate(&|| {});
        assert_eq!(a, settings.generate(&|| {}));
        // Exact final disc differences (empties to the winner) are always even.
        assert!(a.iter().all(|s| s.score % 2 == 0));
        assert!(a.iter().any(|s| s.empties > 12) && a.iter().any(|s| s.empties <= 12));
    }

    #[test]
    fn the_fit_writes_a_valid_weight_file() {
        let samples = SelfPlay { games: 4, solve_empties: 12, ..SelfPlay::default() }.generate(&|| {});
        let rows = fit(&samples, 4, 0.01);
        let text = weights_text(&rows, &["test".to_string()]);
        let weights = Weights::parse(&text).expect("valid");
        assert!(mean_squared_error(&weights, &samples).is_finite());
        let tuned = tune(&samples, 4, 0.01, &["test".to_string()]).expect("valid");
        assert_eq!(tuned.train + tuned.test, samples.len());
        assert!(tuned.test > 0 && tuned.fitted_error.is_finite() && tuned.text.starts_with("# test\n"));
    }

    #[test]
    fn search_labels_are_the_playing_engines_values() {
        let outcome = SelfPlay { games: 2, solve_empties: 12, patterns: Some(PatternWeights::builtin()), depth: 2, ..SelfPlay::default() };
        let searched = SelfPlay { search_label_percent: 100, ..outcome.clone() };
        let (a, b) = (outcome.generate_positions(&|| {}), searched.generate_positions(&|| {}));
        // The same games (the search picks the move it would have picked), other labels before
        // the solve point and the same exact ones after it.
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(&b).all(|(x, y)| (x.p, x.o) == (y.p, y.o)));
        assert!(a.iter().zip(&b).filter(|(x, _)| x.empties() <= 12).all(|(x, y)| x.score == y.score));
        let mut engine = Engine::new(None, Some(2));
        engine.patterns = Some(PatternWeights::builtin());
        engine.probcut = None;
        let mut checked = 0;
        for (x, y) in a.iter().zip(&b).filter(|(x, _)| x.empties() > 12) {
            let value = engine.analyse(&Reversi::from_bitboards(x.p, x.o, super::super::rules::Color::Black)).value;
            assert_eq!(y.score as i32, (value as f64 / 100.0).round() as i32, "{x:?}");
            checked += 1;
        }
        assert!(checked > 20 && a.iter().zip(&b).any(|(x, y)| x.score != y.score));
    }

    #[test]
    fn deeper_labels_come_from_a_separate_selective_search() {
        // One game: the labelling engine keeps its table (its moves order later searches)
        // through a game, and so does the engine that checks it here.
        let base = SelfPlay {
            games: 1,
            solve_empties: 12,
            patterns: Some(PatternWeights::builtin()),
            depth: 2,
            search_label_percent: 100,
            ..SelfPlay::default()
        };
        let deeper = SelfPlay { label_depth: Some(4), ..base.clone() };
        let (a, b) = (base.generate_positions(&|| {}), deeper.generate_positions(&|| {}));
        // The same games (still played at depth 2), the same exact labels, and before the solve
        // point the values of a depth-4 search with Multi-ProbCut.
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(&b).all(|(x, y)| (x.p, x.o) == (y.p, y.o)));
        assert!(a.iter().zip(&b).filter(|(x, _)| x.empties() <= 12).all(|(x, y)| x.score == y.score));
        let mut engine = Engine::new(None, Some(4));
        assert!(engine.probcut.is_some());
        let mut checked = 0;
        for y in b.iter().filter(|y| y.empties() > 12) {
            let value = engine.analyse(&Reversi::from_bitboards(y.p, y.o, super::super::rules::Color::Black)).value;
            assert_eq!(y.score as i32, (value as f64 / 100.0).round() as i32, "{y:?}");
            checked += 1;
        }
        assert!(checked > 15 && a.iter().zip(&b).any(|(x, y)| x.score != y.score));
    }

    #[test]
    fn refining_starts_from_the_prior() {
        let positions = SelfPlay { games: 3, solve_empties: 12, ..SelfPlay::default() }.generate_positions(&|| {});
        // An overwhelming penalty keeps every weight at the prior's value, to the hundredth.
        let settings = PatternFit { iterations: 10, l2: 1e12, prior: Some(PatternWeights::builtin()), ..PatternFit::default() };
        let (refined, _) = fit_patterns(&positions, &settings, &|| {});
        assert_eq!(&refined, PatternWeights::builtin());
        // A weak one moves the weights toward the labels: the training error falls below the prior's.
        let settings = PatternFit { iterations: 30, l2: 0.5, ..settings };
        let (_, report) = fit_patterns(&positions, &settings, &|| {});
        let fitted: Vec<&PhaseReport> = report.iter().filter(|r| r.train > 5).collect();
        assert!(!fitted.is_empty() && fitted.iter().all(|r| r.train_rms < 5.0), "{report:?}");
    }

    #[test]
    fn the_pattern_fit_is_deterministic_and_learns_the_labels() {
        let positions = SelfPlay { games: 6, solve_empties: 12, ..SelfPlay::default() }.generate_positions(&|| {});
        let settings = PatternFit { iterations: 30, l2: 0.5, ..PatternFit::default() };
        let (a, report) = fit_patterns(&positions, &settings, &|| {});
        let (b, _) = fit_patterns(&positions, &settings, &|| {});
        assert_eq!(a, b);
        assert_eq!(PatternWeights::parse(&a.to_bytes()), Ok(a));
        // With far more weights than positions, the training positions are fitted closely.
        let fitted: Vec<&PhaseReport> = report.iter().filter(|r| r.train > 5).collect();
        assert!(!fitted.is_empty());
        assert!(fitted.iter().all(|r| r.train_rms < 5.0), "{report:?}");
    }

    #[test]
    fn damaged_positions_files_are_refused() {
        let positions = vec![Labelled { p: 1, o: 2, score: 10 }, Labelled { p: 4, o: 8, score: -64 }];
        let bytes = positions_bytes(&positions);
        assert_eq!(parse_positions(&bytes), Ok(positions));
        assert_eq!(parse_positions(&bytes[..bytes.len() - 1]), Err(PositionsError::Length { expected: 34, found: 33 }));
        let mut overlapping = bytes.clone();
        overlapping[16 + 8] = 1; // the first record's o = p
        assert_eq!(parse_positions(&overlapping), Err(PositionsError::Record { index: 0 }));
        let mut huge = bytes;
        huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(parse_positions(&huge), Err(PositionsError::Length { .. })));
    }
}
