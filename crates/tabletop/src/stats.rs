//! Match statistics for every game: Elo from results with a 95% interval, the likelihood of
//! superiority, pentanomial counts of game pairs, the sequential probability ratio test (SPRT)
//! that decides an engine change, and a Bradley-Terry fit of many players' ratings with error
//! bars. Nothing here names a game; `tabletop match` and tournaments report through it.
//!
//! Formulas and sources (docs/TOURNAMENTS.md has the derivations):
//! - Elo from a mean score `s`: `-400 log10(1/s - 1)` (the logistic model).
//! - The interval: the score's standard error from the results' own variance (trinomial for
//!   single games, pentanomial for pairs of games on one opening with the seats swapped), the
//!   normal quantile 1.96, mapped through the Elo formula (as cutechess-cli and fastchess do).
//! - LOS: `Phi((W - L) / sqrt(W + L))`.
//! - SPRT: the generalized SPRT's normal approximation (Van den Bergh, used by fishtest,
//!   cutechess and fastchess): `LLR = N (s1 - s0) (2 x - s0 - s1) / (2 var)` over `N` pairs with
//!   mean `x` and variance `var`, bounds `ln(beta / (1 - alpha))` and `ln((1 - beta) / alpha)`.
//! - Bradley-Terry: ratings maximizing the likelihood of all games (a draw is half a win each
//!   way), by Hunter's minorization-maximization; the covariance is the pseudo-inverse of the
//!   Fisher information (ratings centred on 0), scaled by the results' observed dispersion.
//!
//! ```
//! use tabletop::stats::Wdl;
//! let result = Wdl { wins: 60, draws: 20, losses: 20 };
//! assert_eq!(result.score(), 0.7);
//! let (low, elo, high) = result.elo_interval();
//! assert!((elo - 147.2).abs() < 0.1 && low < elo && elo < high && low > 0.0);
//! ```

use serde::Serialize;

/// Pairs added to every pentanomial class for the SPRT's variance (see [`Sprt::llr`]).
const VARIANCE_PRIOR: f64 = 0.5;

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Elo from a mean score in (0, 1), clamped to +-2000 at the ends.
///
/// ```
/// assert_eq!(tabletop::stats::elo_from_score(0.5), 0.0);
/// assert!((tabletop::stats::elo_from_score(0.75) - 190.85).abs() < 0.01);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    const LIMIT: f64 = 2000.0;
    if score <= 0.0 {
        return -LIMIT;
    }
    if score >= 1.0 {
        return LIMIT;
    }
    (-400.0 * (1.0 / score - 1.0).log10()).clamp(-LIMIT, LIMIT)
}

/// The expected score of a player `elo` points stronger.
///
/// ```
/// assert!((tabletop::stats::score_from_elo(190.85) - 0.75).abs() < 1e-4);
/// ```
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The standard normal distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit, relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Wins, draws and losses of one player against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The mean score (a draw is half a point); 0.5 before any game.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n as f64
    }

    /// Elo with its 95% interval, `(low, elo, high)`, from the trinomial variance of the
    /// games' scores.
    pub fn elo_interval(&self) -> (f64, f64, f64) {
        let n = self.games() as f64;
        let s = self.score();
        if n == 0.0 {
            return (-2000.0, 0.0, 2000.0);
        }
        let variance = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        interval(s, (variance / n).sqrt())
    }

    /// The likelihood of superiority: the probability that the player is the stronger,
    /// `Phi((W - L) / sqrt(W + L))` (0.5 with no decisive game).
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        normal_cdf((self.wins as f64 - self.losses as f64) / decisive.sqrt())
    }
}

/// `(low, elo, high)` for a mean score and its standard error.
fn interval(score: f64, error: f64) -> (f64, f64, f64) {
    (elo_from_score(score - Z95 * error), elo_from_score(score), elo_from_score(score + Z95 * error))
}

/// Counts of game pairs (one opening played twice, the seats swapped) by the points the first
/// player took from the pair: `counts[k]` pairs scored `k / 2` points out of 2 (0, 0.5, 1,
/// 1.5, 2). Pairs cancel most of the openings' bias, so their variance is smaller than that of
/// single games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial {
    /// Pairs by half points won: LL, LD, DD or WL, WD, WW.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Adds a pair from the first player's two scores (each 0, 0.5 or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.counts[half_points] += 1;
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The mean score per game and the variance of a pair's mean score (pairs scored 0, 1/4,
    /// 1/2, 3/4 or 1), `None` without pairs.
    pub fn mean_and_variance(&self) -> Option<(f64, f64)> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        let value = |k: usize| k as f64 / 4.0;
        let mean = (0..5).map(|k| self.counts[k] as f64 * value(k)).sum::<f64>() / n;
        let variance = (0..5).map(|k| self.counts[k] as f64 * (value(k) - mean).powi(2)).sum::<f64>() / n;
        Some((mean, variance))
    }

    /// Elo with its 95% interval from the pairs, `(low, elo, high)`.
    pub fn elo_interval(&self) -> (f64, f64, f64) {
        match self.mean_and_variance() {
            None => (-2000.0, 0.0, 2000.0),
            Some((mean, variance)) => interval(mean, (variance / self.pairs() as f64).sqrt()),
        }
    }
}

/// An SPRT's hypotheses and error rates: H0 "the change is worth `elo0`", H1 "it is worth
/// `elo1`" (logistic Elo), with the chances `alpha` of accepting H1 when H0 holds and `beta`
/// of accepting H0 when H1 holds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// The false positive rate.
    pub alpha: f64,
    /// The false negative rate.
    pub beta: f64,
}

/// What an SPRT says after some pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// The log-likelihood ratio crossed the upper bound: the change is worth `elo1`.
    H1,
    /// It crossed the lower bound: the change is worth `elo0` (or less).
    H0,
    /// Neither yet: play on.
    Continue,
}

/// Why an SPRT's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SprtError {
    /// A part is not `key=value` with a known key and a number.
    #[error("{0:?}: expected elo0=N,elo1=N,alpha=P,beta=P (e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05)")]
    Syntax(String),
    /// The values do not make a test.
    #[error("{0}")]
    Range(String),
}

impl std::str::FromStr for Sprt {
    type Err = SprtError;

    /// Reads `elo0=0,elo1=5,alpha=0.05,beta=0.05` (alpha and beta default to 0.05).
    ///
    /// ```
    /// let sprt: tabletop::stats::Sprt = "elo0=0,elo1=5".parse().unwrap();
    /// assert_eq!((sprt.elo1, sprt.alpha), (5.0, 0.05));
    /// assert!("elo0=5,elo1=0".parse::<tabletop::stats::Sprt>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut sprt = Sprt { elo0: f64::NAN, elo1: f64::NAN, alpha: 0.05, beta: 0.05 };
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let syntax = || SprtError::Syntax(part.to_string());
            let (key, value) = part.split_once('=').ok_or_else(syntax)?;
            let value: f64 = value.trim().parse().map_err(|_| syntax())?;
            if !value.is_finite() {
                return Err(syntax());
            }
            match key.trim() {
                "elo0" => sprt.elo0 = value,
                "elo1" => sprt.elo1 = value,
                "alpha" => sprt.alpha = value,
                "beta" => sprt.beta = value,
                _ => return Err(syntax()),
            }
        }
        if sprt.elo0.is_nan() || sprt.elo1.is_nan() {
            return Err(SprtError::Range("an SPRT needs elo0 and elo1".into()));
        }
        if sprt.elo0 >= sprt.elo1 || sprt.elo0.abs() > 1000.0 || sprt.elo1.abs() > 1000.0 {
            return Err(SprtError::Range("elo0 must be below elo1 (both within +-1000)".into()));
        }
        for (name, p) in [("alpha", sprt.alpha), ("beta", sprt.beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(SprtError::Range(format!("{name} must be between 0 and 0.5")));
            }
        }
        Ok(sprt)
    }
}

impl std::fmt::Display for Sprt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "elo0={},elo1={},alpha={},beta={}", self.elo0, self.elo1, self.alpha, self.beta)
    }
}

impl Sprt {
    /// The bounds of the log-likelihood ratio, `(lower, upper)`.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after the pairs counted (0 before two pairs).
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        self.llr_with(pairs, VARIANCE_PRIOR)
    }

    fn llr_with(&self, pairs: &Pentanomial, prior: f64) -> f64 {
        let Some((mean, _)) = pairs.mean_and_variance() else { return 0.0 };
        // The variance from the counts plus `prior` pairs in every class: with few pairs the
        // sample variance is often far too small (two drawn pairs have none at all), and the
        // ratio would cross a bound at once; the prior's weight fades as pairs come in.
        let counts: Vec<f64> = pairs.counts.iter().map(|&c| c as f64 + prior).collect();
        let n: f64 = counts.iter().sum();
        let variance = (0..5).map(|k| counts[k] * (k as f64 / 4.0 - mean).powi(2)).sum::<f64>() / n;
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        pairs.pairs() as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance)
    }

    /// The decision after the pairs counted.
    pub fn decide(&self, pairs: &Pentanomial) -> SprtDecision {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        }
    }
}

/// One player's rating from a [`bradley_terry`] fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Elo, the players' mean being 0.
    pub elo: f64,
    /// Half the width of its 95% interval.
    pub error: f64,
}

/// One game's result between two players by index: `score` is player `a`'s (1, 0.5 or 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// The first player.
    pub a: usize,
    /// The second player.
    pub b: usize,
    /// The first player's score.
    pub score: f64,
}

/// The log-likelihood of `games` under ratings `elo` (Elo units): what [`bradley_terry`]
/// maximizes.
pub fn log_likelihood(elo: &[f64], games: &[Game]) -> f64 {
    games
        .iter()
        .map(|g| {
            let p = score_from_elo(elo[g.a] - elo[g.b]).clamp(1e-12, 1.0 - 1e-12);
            g.score * p.ln() + (1.0 - g.score) * (1.0 - p).ln()
        })
        .sum()
}

/// The maximum-likelihood ratings of `players` players from their games (a draw half a win
/// each way), centred on a mean of 0, with 95% error bars. A player who won or lost every game
/// has no finite estimate: its rating is capped at +-2000 from the mean with an error of 2000.
pub fn bradley_terry(players: usize, games: &[Game]) -> Vec<Rating> {
    if players == 0 {
        return Vec::new();
    }
    // Scores and game counts per pair.
    let mut score = vec![0.0f64; players];
    let mut count = vec![vec![0.0f64; players]; players];
    for g in games.iter().filter(|g| g.a < players && g.b < players && g.a != g.b) {
        score[g.a] += g.score;
        score[g.b] += 1.0 - g.score;
        count[g.a][g.b] += 1.0;
        count[g.b][g.a] += 1.0;
    }
    let played: Vec<f64> = count.iter().map(|row| row.iter().sum()).collect();
    // Strengths gamma = 10^(elo / 400), by Hunter's MM: gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j).
    // A small pseudo-score keeps perfect and zero scores finite during the iteration.
    let eps = 1e-6;
    let mut gamma = vec![1.0f64; players];
    for _ in 0..10_000 {
        let mut change = 0.0f64;
        for i in 0..players {
            if played[i] == 0.0 {
                continue;
            }
            let denominator: f64 =
                (0..players).filter(|&j| count[i][j] > 0.0).map(|j| count[i][j] / (gamma[i] + gamma[j])).sum();
            let next = ((score[i] + eps) / denominator).max(1e-300);
            change = change.max((next.ln() - gamma[i].ln()).abs());
            gamma[i] = next;
        }
        // Centre (geometric mean 1) so the values stay in range.
        let mean_log = gamma.iter().map(|g| g.ln()).sum::<f64>() / players as f64;
        for g in &mut gamma {
            *g = (g.ln() - mean_log).exp();
        }
        if change < 1e-10 {
            break;
        }
    }
    let scale = 400.0 / std::f64::consts::LN_10;
    let mut elo: Vec<f64> = gamma.iter().map(|g| (g.ln() * scale).clamp(-2000.0, 2000.0)).collect();
    let mean = elo.iter().sum::<f64>() / players as f64;
    for e in &mut elo {
        *e -= mean;
    }
    let unbounded = |i: usize| played[i] == 0.0 || score[i] <= 0.0 || score[i] >= played[i];
    // The others' error bars come from their games among themselves: a player at +-2000 would
    // make the information matrix singular and every error bar infinite.
    let bounded: Vec<usize> = (0..players).filter(|&i| !unbounded(i)).collect();
    let sub_elo: Vec<f64> = bounded.iter().map(|&i| elo[i]).collect();
    let sub_count: Vec<Vec<f64>> = bounded.iter().map(|&i| bounded.iter().map(|&j| count[i][j]).collect()).collect();
    let position = |p: usize| bounded.iter().position(|&i| i == p);
    let sub_games: Vec<Game> =
        games.iter().filter_map(|g| Some(Game { a: position(g.a)?, b: position(g.b)?, score: g.score })).collect();
    let sub_errors = rating_errors(&sub_elo, &sub_count, &sub_games);
    (0..players).map(|i| Rating { elo: elo[i], error: position(i).map_or(2000.0, |k| sub_errors[k]) }).collect()
}

/// Half-widths of the 95% intervals: the pseudo-inverse of the Fisher information (in natural
/// log-strength units, rows summing to 0), scaled by the observed dispersion of the results
/// (draws make scores less variable than wins and losses alone).
fn rating_errors(elo: &[f64], count: &[Vec<f64>], games: &[Game]) -> Vec<f64> {
    let n = elo.len();
    let scale = 400.0 / std::f64::consts::LN_10;
    let p = |i: usize, j: usize| score_from_elo(elo[i] - elo[j]);
    let mut info = vec![vec![0.0f64; n]; n];
    for i in 0..n {
        for j in 0..n {
            if i != j && count[i][j] > 0.0 {
                let w = count[i][j] * p(i, j) * (1.0 - p(i, j));
                info[i][j] -= w;
                info[i][i] += w;
            }
        }
    }
    // Dispersion: observed squared residuals over those the model expects.
    let (mut observed, mut expected) = (0.0, 0.0);
    for g in games.iter().filter(|g| g.a < n && g.b < n && g.a != g.b) {
        let q = p(g.a, g.b);
        observed += (g.score - q).powi(2);
        expected += q * (1.0 - q);
    }
    let dispersion = if expected > 0.0 { (observed / expected).clamp(0.05, 20.0) } else { 1.0 };
    // pinv(I) = (I + J/n)^-1 - J/n, J the all-ones matrix, when the games connect everyone.
    let shift = 1.0 / n as f64;
    let mut a: Vec<Vec<f64>> = info.iter().map(|row| row.iter().map(|x| x + shift).collect()).collect();
    let Some(inverse) = invert(&mut a) else { return vec![2000.0; n] };
    (0..n)
        .map(|i| {
            let variance = (inverse[i][i] - shift) * dispersion;
            if variance.is_finite() && variance > 0.0 {
                (Z95 * variance.sqrt() * scale).min(2000.0)
            } else {
                2000.0
            }
        })
        .collect()
}

/// The inverse of a square matrix by Gauss-Jordan elimination with partial pivoting, `None`
/// when it is singular.
fn invert(a: &mut [Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inverse: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect();
    for column in 0..n {
        let pivot = (column..n).max_by(|&x, &y| a[x][column].abs().total_cmp(&a[y][column].abs()))?;
        if a[pivot][column].abs() < 1e-12 {
            return None;
        }
        a.swap(column, pivot);
        inverse.swap(column, pivot);
        let divisor = a[column][column];
        for j in 0..n {
            a[column][j] /= divisor;
            inverse[column][j] /= divisor;
        }
        for row in 0..n {
            if row != column {
                let factor = a[row][column];
                if factor != 0.0 {
                    for j in 0..n {
                        a[row][j] -= factor * a[column][j];
                        inverse[row][j] -= factor * inverse[column][j];
                    }
                }
            }
        }
    }
    Some(inverse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// One game's score for a player `elo` stronger, with draws at `draw_rate` when even.
    fn play(rng: &mut ChaCha8Rng, elo: f64, draw_rate: f64) -> f64 {
        // A simple trinomial model whose expected score is score_from_elo(elo).
        let s = score_from_elo(elo);
        let draw = draw_rate * (1.0 - (2.0 * s - 1.0).abs());
        let win = s - draw / 2.0;
        let x: f64 = rng.r#gen();
        if x < win {
            1.0
        } else if x < win + draw {
            0.5
        } else {
            0.0
        }
    }

    #[test]
    fn elo_and_score_are_inverse() {
        for elo in [-800.0, -100.0, 0.0, 35.5, 400.0] {
            assert!((elo_from_score(score_from_elo(elo)) - elo).abs() < 1e-9);
        }
        assert_eq!(elo_from_score(1.0), 2000.0);
        assert!((normal_cdf(1.96) - 0.975).abs() < 1e-4);
        assert!((normal_cdf(-1.0) - 0.158_655).abs() < 1e-5);
    }

    #[test]
    fn single_game_intervals_hold_the_truth_about_95_percent_of_the_time() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for (truth, draw_rate) in [(0.0, 0.3), (50.0, 0.0), (-120.0, 0.5)] {
            let runs = 600;
            let mut held = 0;
            for _ in 0..runs {
                let mut wdl = Wdl::default();
                for _ in 0..400 {
                    match play(&mut rng, truth, draw_rate) {
                        1.0 => wdl.wins += 1,
                        0.5 => wdl.draws += 1,
                        _ => wdl.losses += 1,
                    }
                }
                let (low, _, high) = wdl.elo_interval();
                held += usize::from(low <= truth && truth <= high);
            }
            let rate = held as f64 / runs as f64;
            // 95% with a binomial standard error of 0.9% over 600 runs.
            assert!((0.925..=0.975).contains(&rate), "truth {truth}: held {rate}");
        }
    }

    #[test]
    fn pentanomial_counts_match_the_games_and_their_intervals_hold() {
        let mut pairs = Pentanomial::default();
        for (a, b) in [(1.0, 1.0), (1.0, 0.0), (0.5, 0.5), (0.5, 1.0), (0.0, 0.0), (0.0, 0.5)] {
            pairs.add_pair(a, b);
        }
        assert_eq!(pairs.counts, [1, 1, 2, 1, 1]);
        let (mean, _) = pairs.mean_and_variance().unwrap();
        assert!((mean - 0.5).abs() < 1e-12);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let (truth, runs) = (30.0, 500);
        let mut held = 0;
        for _ in 0..runs {
            let mut pairs = Pentanomial::default();
            for _ in 0..200 {
                // An opening's bias shifts both games of a pair the same way for the first player's seat.
                let bias = rng.gen_range(-150.0..150.0);
                pairs.add_pair(play(&mut rng, truth + bias, 0.3), play(&mut rng, truth - bias, 0.3));
            }
            let (low, _, high) = pairs.elo_interval();
            held += usize::from(low <= truth && truth <= high);
        }
        let rate = held as f64 / runs as f64;
        assert!((0.92..=0.98).contains(&rate), "held {rate}");
    }

    #[test]
    fn los_is_one_half_when_even_and_grows_with_the_margin() {
        assert!((Wdl { wins: 10, draws: 5, losses: 10 }.los() - 0.5).abs() < 1e-7);
        let los = Wdl { wins: 60, draws: 0, losses: 40 }.los();
        assert!((los - normal_cdf(2.0)).abs() < 1e-12 && los > 0.97);
    }

    /// Runs one SPRT to a decision: the decision and the pairs it took.
    fn run_sprt(sprt: &Sprt, truth: f64, rng: &mut ChaCha8Rng) -> (SprtDecision, u64) {
        let mut pairs = Pentanomial::default();
        loop {
            pairs.add_pair(play(rng, truth, 0.4), play(rng, truth, 0.4));
            match sprt.decide(&pairs) {
                SprtDecision::Continue if pairs.pairs() < 200_000 => {}
                decision => return (decision, pairs.pairs()),
            }
        }
    }

    #[test]
    fn sprt_error_rates_are_at_most_alpha_and_beta() {
        let sprt: Sprt = "elo0=0,elo1=20,alpha=0.05,beta=0.05".parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let runs = 300;
        let (mut false_positives, mut false_negatives, mut length, mut length_h1) = (0, 0, 0, 0);
        for _ in 0..runs {
            let (decision, pairs) = run_sprt(&sprt, 0.0, &mut rng);
            false_positives += usize::from(decision == SprtDecision::H1);
            length += pairs;
            let (decision, pairs) = run_sprt(&sprt, 20.0, &mut rng);
            false_negatives += usize::from(decision == SprtDecision::H0);
            length_h1 += pairs;
        }
        let (fp, fn_) = (false_positives as f64 / runs as f64, false_negatives as f64 / runs as f64);
        // The average length, reported (docs/TOURNAMENTS.md quotes it): `cargo test -p tabletop
        // --lib sprt_error_rates -- --nocapture`.
        println!(
            "SPRT {sprt}, draw rate 0.4: false positives {fp:.3}, false negatives {fn_:.3}; mean length {} pairs when elo0 holds, {} when elo1 holds ({runs} runs each)",
            length / runs as u64,
            length_h1 / runs as u64
        );
        // alpha = beta = 0.05, plus three standard errors of the simulation (0.038 over 300 runs).
        assert!(fp <= 0.05 + 0.038 && fn_ <= 0.05 + 0.038, "false positives {fp}, false negatives {fn_}");
        assert!(length / runs as u64 > 50, "an SPRT of 20 Elo takes hundreds of pairs");
    }

    #[test]
    fn sprt_text_reads_back_and_refuses_nonsense() {
        let sprt: Sprt = "elo0=0,elo1=5,alpha=0.05,beta=0.1".parse().unwrap();
        assert_eq!(sprt.to_string().parse::<Sprt>().unwrap(), sprt);
        for bad in
            ["", "elo0=0", "elo0=0,elo1=5,gamma=1", "elo0=a,elo1=5", "elo0=0,elo1=5,alpha=0.7", "elo0=0,elo1=inf"]
        {
            assert!(bad.parse::<Sprt>().is_err(), "{bad:?}");
        }
        let (lower, upper) = sprt.bounds();
        assert!((lower - (0.1f64 / 0.95).ln()).abs() < 1e-12 && (upper - (0.9f64 / 0.05).ln()).abs() < 1e-12);
    }

    #[test]
    fn bradley_terry_equals_a_brute_force_maximiser_on_a_small_case() {
        let games: Vec<Game> =
            [(0, 1, 1.0), (0, 1, 0.5), (1, 0, 1.0), (1, 2, 1.0), (2, 1, 0.5), (0, 2, 1.0), (2, 0, 1.0), (0, 2, 1.0)]
                .iter()
                .map(|&(a, b, score)| Game { a, b, score })
                .collect();
        let fit = bradley_terry(3, &games);
        let elo: Vec<f64> = fit.iter().map(|r| r.elo).collect();
        assert!(elo.iter().sum::<f64>().abs() < 1e-6, "centred: {elo:?}");
        // A grid search over ratings with a mean of 0, 1 Elo apart.
        let mut best = (f64::NEG_INFINITY, 0.0, 0.0);
        for x in -400..=400 {
            for y in -400..=400 {
                let candidate = [f64::from(x), f64::from(y), -f64::from(x + y)];
                let l = log_likelihood(&candidate, &games);
                if l > best.0 {
                    best = (l, candidate[0], candidate[1]);
                }
            }
        }
        assert!((elo[0] - best.1).abs() <= 1.0 && (elo[1] - best.2).abs() <= 1.0, "{elo:?} vs {best:?}");
        assert!(log_likelihood(&elo, &games) >= best.0 - 1e-9);
    }

    #[test]
    fn bradley_terry_intervals_hold_the_truth() {
        let truth = [0.0, 100.0, -60.0, 200.0];
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (runs, mut held, mut total) = (200, 0, 0);
        for _ in 0..runs {
            let mut games = Vec::new();
            for a in 0..4 {
                for b in 0..4 {
                    if a != b {
                        for _ in 0..60 {
                            games.push(Game { a, b, score: play(&mut rng, truth[a] - truth[b], 0.3) });
                        }
                    }
                }
            }
            let fit = bradley_terry(4, &games);
            let mean = truth.iter().sum::<f64>() / 4.0;
            for (rating, t) in fit.iter().zip(truth) {
                total += 1;
                held += usize::from((rating.elo - (t - mean)).abs() <= rating.error);
            }
        }
        let rate = held as f64 / total as f64;
        assert!((0.92..=0.98).contains(&rate), "held {rate}");
    }

    #[test]
    fn a_player_who_won_everything_is_capped_not_infinite() {
        let games: Vec<Game> = (0..10).map(|_| Game { a: 0, b: 1, score: 1.0 }).collect();
        let fit = bradley_terry(2, &games);
        assert!(fit[0].elo > 300.0 && fit[0].elo <= 2000.0 && fit[0].error == 2000.0, "{fit:?}");
        assert!(fit.iter().all(|r| r.elo.is_finite()));
        assert_eq!(bradley_terry(0, &[]), Vec::new());
        // A player who lost everything leaves the others' error bars finite.
        let mut games: Vec<Game> = (0..3)
            .flat_map(|a| (0..3).map(move |b| (a, b)))
            .filter(|(a, b)| a != b)
            .flat_map(|(a, b)| [Game { a, b, score: 1.0 }, Game { a, b, score: 0.5 }, Game { a, b, score: 0.0 }])
            .collect();
        games.extend((0..3).map(|a| Game { a, b: 3, score: 1.0 }));
        let fit = bradley_terry(4, &games);
        assert_eq!(fit[3].error, 2000.0);
        assert!(fit[..3].iter().all(|r| r.error < 500.0), "{fit:?}");
    }
}
