//! Glicko-2 ratings of people and bots, per game and speed: what a server keeps for each
//! account. Nothing here names a game.
//!
//! The system is Glickman's ("Example of the Glicko-2 system", 2013): a rating `r`, a rating
//! deviation `RD` (how unsure the rating is) and a volatility `sigma` (how erratic the player
//! is). After a rating period's games, [`Glicko2::update`] computes the new three from the
//! opponents' ratings and deviations and the scores (1 a win, 0.5 a draw, 0 a loss), on the
//! Glicko-2 scale (`mu = (r - 1500) / 173.7178`, `phi = RD / 173.7178`):
//!
//! - `g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)`, `E = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))`
//! - `v = 1 / sum(g^2 E (1 - E))`, `delta = v sum(g (s - E))`
//! - the new volatility by the Illinois algorithm on Glickman's `f(x)` (tolerance 1e-6),
//! - `phi* = sqrt(phi^2 + sigma'^2)`, `phi' = 1 / sqrt(1 / phi*^2 + 1 / v)`,
//!   `mu' = mu + phi'^2 sum(g (s - E))`.
//!
//! As lichess plays it ([`Glicko2::LICHESS`]): every game is its own rating period, a new
//! player is 1500 / 500 / 0.09 with `tau = 0.75`, the deviation stays between 45 and 500, a
//! rating is provisional ("?") while its deviation is 110 or more, and the deviation grows
//! with the time since the last game ([`Glicko2::after_idle`]) so that a typical 60 becomes
//! 110 in a year.
//!
//! ```
//! use tabletop::rating::{Glicko2, Rating};
//! // Glickman's worked example (tau 0.5): 1464.06 / 151.52 / 0.05999.
//! let system = Glicko2 { tau: 0.5, ..Glicko2::LICHESS };
//! let player = Rating { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
//! let games = [
//!     (Rating { rating: 1400.0, deviation: 30.0, volatility: 0.06 }, 1.0),
//!     (Rating { rating: 1550.0, deviation: 100.0, volatility: 0.06 }, 0.0),
//!     (Rating { rating: 1700.0, deviation: 300.0, volatility: 0.06 }, 0.0),
//! ];
//! let after = system.update(player, &games);
//! assert!((after.rating - 1464.06).abs() < 0.01, "{after:?}");
//! assert!((after.deviation - 151.52).abs() < 0.01, "{after:?}");
//! assert!((after.volatility - 0.05999).abs() < 0.00001, "{after:?}");
//! ```

use serde::{Deserialize, Serialize};

/// The factor between the Glicko scale and the Glicko-2 scale.
const SCALE: f64 = 173.7178;

/// The volatility iteration's tolerance (Glickman's epsilon).
const TOLERANCE: f64 = 1e-6;

/// A player's rating, deviation and volatility (on the Glicko scale: 1500 is a new player).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The rating.
    pub rating: f64,
    /// The rating deviation: how unsure the rating is.
    pub deviation: f64,
    /// The volatility: how much the player's strength varies.
    pub volatility: f64,
}

/// The settings of a Glicko-2 system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko2 {
    /// The system constant `tau`: how fast the volatility may change.
    pub tau: f64,
    /// A new player's rating.
    pub initial: Rating,
    /// The smallest deviation (a rating never becomes certain).
    pub min_deviation: f64,
    /// The largest deviation (a new player's).
    pub max_deviation: f64,
    /// A rating whose deviation is at least this is provisional (shown with "?").
    pub provisional_deviation: f64,
    /// The length of a rating period in days, for [`Glicko2::after_idle`].
    pub period_days: f64,
}

impl Glicko2 {
    /// lichess's settings: 1500 / 500 / 0.09, `tau` 0.75, deviation 45 to 500, provisional from
    /// 110, and a period such that a deviation of 60 with the new player's volatility grows to
    /// 110 in a year of no games.
    pub const LICHESS: Glicko2 = Glicko2 {
        tau: 0.75,
        initial: Rating { rating: 1500.0, deviation: 500.0, volatility: 0.09 },
        min_deviation: 45.0,
        max_deviation: 500.0,
        provisional_deviation: 110.0,
        // (110^2 - 60^2) / (0.09 x 173.7178)^2 = 34.6 periods in 365 days.
        period_days: 365.0 * (0.09 * SCALE) * (0.09 * SCALE) / (110.0 * 110.0 - 60.0 * 60.0),
    };

    /// Is `rating` provisional (deviation at least [`Glicko2::provisional_deviation`])?
    pub fn is_provisional(&self, rating: &Rating) -> bool {
        rating.deviation >= self.provisional_deviation
    }

    /// `rating` after `days` without games: its deviation grows as `sqrt(phi^2 + n sigma^2)`
    /// over `n = days / period_days` periods (within the bounds); nothing else changes.
    ///
    /// ```
    /// use tabletop::rating::{Glicko2, Rating};
    /// let settled = Rating { rating: 1800.0, deviation: 60.0, volatility: 0.09 };
    /// let year = Glicko2::LICHESS.after_idle(settled, 365.0);
    /// assert!((year.deviation - 110.0).abs() < 0.01 && year.rating == 1800.0);
    /// ```
    pub fn after_idle(&self, rating: Rating, days: f64) -> Rating {
        let periods = if days.is_finite() && days > 0.0 { days / self.period_days } else { 0.0 };
        let phi = rating.deviation / SCALE;
        let grown = (phi * phi + periods * rating.volatility * rating.volatility).sqrt() * SCALE;
        Rating { deviation: self.bounded(grown), ..rating }
    }

    /// The deviation kept within the bounds.
    fn bounded(&self, deviation: f64) -> f64 {
        if deviation.is_nan() {
            return self.max_deviation;
        }
        deviation.clamp(self.min_deviation, self.max_deviation)
    }

    /// The player's rating after one rating period with `games`: each opponent's rating before
    /// the period and the player's score against it (1, 0.5 or 0; other values are clamped to
    /// 0..1). Without games only the deviation grows (one period's worth).
    pub fn update(&self, player: Rating, games: &[(Rating, f64)]) -> Rating {
        let mu = (player.rating - 1500.0) / SCALE;
        let phi = player.deviation / SCALE;
        let sigma = player.volatility;
        if games.is_empty() {
            let grown = (phi * phi + sigma * sigma).sqrt() * SCALE;
            return Rating { deviation: self.bounded(grown), ..player };
        }
        let (mut information, mut improvement) = (0.0, 0.0);
        for (opponent, score) in games {
            let mu_j = (opponent.rating - 1500.0) / SCALE;
            let g = g(opponent.deviation / SCALE);
            let expected = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
            information += g * g * expected * (1.0 - expected);
            improvement += g * (score.clamp(0.0, 1.0) - expected);
        }
        let v = 1.0 / information;
        let delta = v * improvement;
        let sigma_new = self.new_volatility(phi, sigma, v, delta);
        let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * improvement;
        Rating { rating: mu_new * SCALE + 1500.0, deviation: self.bounded(phi_new * SCALE), volatility: sigma_new }
    }

    /// Glickman's step 5: the new volatility, the root of `f` by the Illinois algorithm.
    fn new_volatility(&self, phi: f64, sigma: f64, v: f64, delta: f64) -> f64 {
        let a = (sigma * sigma).ln();
        let tau2 = self.tau * self.tau;
        let f = |x: f64| {
            let ex = x.exp();
            let d = phi * phi + v + ex;
            ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / tau2
        };
        let mut big_a = a;
        let mut big_b = if delta * delta > phi * phi + v {
            (delta * delta - phi * phi - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * self.tau) < 0.0 && k < 1000.0 {
                k += 1.0;
            }
            a - k * self.tau
        };
        let (mut f_a, mut f_b) = (f(big_a), f(big_b));
        // Bounded: the interval halves at least every other step, so this ends in far fewer.
        for _ in 0..200 {
            if (big_b - big_a).abs() <= TOLERANCE {
                break;
            }
            let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(c);
            if f_c * f_b <= 0.0 {
                big_a = big_b;
                f_a = f_b;
            } else {
                f_a /= 2.0;
            }
            big_b = c;
            f_b = f_c;
        }
        let volatility = (big_a / 2.0).exp();
        if volatility.is_finite() && volatility > 0.0 {
            volatility
        } else {
            sigma
        }
    }
}

/// Glicko-2's `g(phi)`: how much a game against an opponent of deviation `phi` counts.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rating(r: f64, rd: f64) -> Rating {
        Rating { rating: r, deviation: rd, volatility: 0.06 }
    }

    #[test]
    fn a_new_player_is_provisional_until_it_has_played_enough() {
        let system = Glicko2::LICHESS;
        let mut player = system.initial;
        assert!(system.is_provisional(&player));
        let opponent = rating(1500.0, 60.0);
        let mut games = 0;
        while system.is_provisional(&player) {
            player = system.update(player, &[(opponent, if games % 2 == 0 { 1.0 } else { 0.0 })]);
            games += 1;
            assert!(games < 100, "still provisional after 100 games: {player:?}");
        }
        // lichess: a dozen or so games make a rating established.
        assert!((5..30).contains(&games), "{games} games");
        assert!(player.deviation >= system.min_deviation);
    }

    #[test]
    fn a_period_without_games_widens_the_deviation_only() {
        let system = Glicko2::LICHESS;
        let player = rating(1700.0, 50.0);
        let after = system.update(player, &[]);
        assert_eq!((after.rating, after.volatility), (1700.0, 0.06));
        assert!(after.deviation > 50.0);
        // Never past the largest deviation.
        assert_eq!(system.update(system.initial, &[]).deviation, 500.0);
    }

    proptest! {
        #[test]
        fn a_win_never_lowers_a_rating_and_a_loss_never_raises_it(
            r in 600.0f64..2800.0, rd in 45.0f64..500.0, vol in 0.03f64..0.12,
            opp in 600.0f64..2800.0, opp_rd in 45.0f64..500.0,
        ) {
            let system = Glicko2::LICHESS;
            let player = Rating { rating: r, deviation: rd, volatility: vol };
            let opponent = rating(opp, opp_rd);
            let won = system.update(player, &[(opponent, 1.0)]);
            let lost = system.update(player, &[(opponent, 0.0)]);
            prop_assert!(won.rating >= r - 1e-9 && lost.rating <= r + 1e-9, "{won:?} {lost:?}");
            prop_assert!(won.deviation >= system.min_deviation && won.deviation <= system.max_deviation);
            prop_assert!(won.rating.is_finite() && won.volatility.is_finite() && won.volatility > 0.0);
        }

        #[test]
        fn two_equal_players_gain_and_lose_the_same(r in 800.0f64..2600.0, rd in 45.0f64..500.0) {
            let system = Glicko2::LICHESS;
            let player = rating(r, rd);
            let winner = system.update(player, &[(player, 1.0)]);
            let loser = system.update(player, &[(player, 0.0)]);
            prop_assert!(((winner.rating - r) + (loser.rating - r)).abs() < 1e-6, "{winner:?} {loser:?}");
            prop_assert!((winner.deviation - loser.deviation).abs() < 1e-9);
            let drawn = system.update(player, &[(player, 0.5)]);
            prop_assert!((drawn.rating - r).abs() < 1e-6);
        }
    }
}
