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

use super::engine::Engine;
use super::eval::{features, Weights, WeightsError, FEATURES, FEATURE_COUNT};
use super::rules::{Reversi, ReversiMove};
use super::solver::Solver;
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
        (0..self.games)
            .into_par_iter()
            .map_init(
                || Solver::new(18),
                |solver, game| {
                    let samples = self.play_one(solver, self.seed.wrapping_add(game));
                    on_game();
                    samples
                },
            )
            .collect::<Vec<_>>()
            .into_iter()
            .flatten()
            .collect()
    }

    fn play_one(&self, solver: &mut Solver, seed: u64) -> Vec<Sample> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut engine = Engine::new(None, Some(self.depth));
        engine.weights = self.weights;
        let mut position = Reversi::new();
        let mut moves = Vec::new();
        let opening = rng.gen_range(self.opening.clone());
        let mut ply = 0;
        // Positions before the solve, with their side to move, waiting for the game's label.
        let mut pending = Vec::new();
        let mut samples = Vec::new();
        while !position.is_over() {
            let empties = position.open_squares();
            let (p, o) = position.player_opponent();
            let can_move = position.placements() != 0;
            if empties <= self.solve_empties {
                let score = solver.solve(&position).score;
                // The first solved position labels the whole game so far.
                for (side, sample) in pending.drain(..) {
                    let score = if side == position.side_to_move() { score } else { -score };
                    samples.push(Sample { score: score as i8, ..sample });
                }
                if can_move {
                    samples.push(Sample { empties: empties as u8, features: features(p, o), score: score as i8 });
                }
            } else if can_move && ply >= opening {
                pending.push((
                    position.side_to_move(),
                    Sample { empties: empties as u8, features: features(p, o), score: 0 },
                ));
            }
            position.legal_moves(&mut moves);
            let random = ply < opening || (empties > self.solve_empties && rng.gen_range(0..100) < self.random_percent);
            let chosen = if random || moves.len() == 1 {
                moves[rng.gen_range(0..moves.len())]
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
            for (side, sample) in pending {
                let score = if side == super::rules::Color::Black { black } else { -black };
                samples.push(Sample { score: score as i8, ..sample });
            }
        }
        samples
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
