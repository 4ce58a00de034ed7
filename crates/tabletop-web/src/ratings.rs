//! Rated games: Glicko-2 ([`tabletop::rating`], lichess's settings) per game type and speed
//! category, updated once when a rated game between accounts ends.
//!
//! - A game is rated when its creator asks (`"rated": true`) and it has a limited clock (real
//!   time or correspondence) and no computer seat; every seat is then an account's, each a
//!   different account.
//! - The speed category is the clock's ([`tabletop::clock::TimeControl::speed`]): lichess's
//!   estimate `base + 40 x increment` (byo-yomi: one period per move) below 30 s ultrabullet,
//!   3 min bullet, 8 min blitz, 25 min rapid, else classical; days per move correspondence.
//! - At the end (by the rules, a resignation, a flag, a claim; an aborted game is not rated)
//!   each seat plays every other once in one rating period: 1 against a seat that did not win
//!   when it won, 0 the other way, 0.5 otherwise (a draw, or two winners). A rating unused for
//!   a while first grows its deviation ([`Glicko2::after_idle`]).
//! - The store applies it in one transaction with a version bump of the game
//!   ([`crate::store::Store::rate_game`]), so that it happens once, whichever process ends it.

use serde::{Deserialize, Serialize};
use tabletop::rating::{Glicko2, Rating};

/// The rating system: lichess's (1500 / 500 / 0.09, tau 0.75, deviation 45..500, provisional
/// from 110).
pub const SYSTEM: Glicko2 = Glicko2::LICHESS;

/// The account holding a seat, as a game shows it (the id is never shown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatAccount {
    /// The account's id.
    pub id: String,
    /// Its name (public).
    pub name: String,
    /// Is it a bot account (marked on the page and in the API)?
    pub bot: bool,
}

/// What a rated game's end asks the store to rate.
#[derive(Clone, Debug)]
pub struct RatingJob {
    /// The game type (the registry's name).
    pub game: String,
    /// The speed category (`blitz`, ...).
    pub speed: String,
    /// Each seat's account id.
    pub seats: Vec<(usize, String)>,
    /// The seats that won (empty: a draw).
    pub winners: Vec<usize>,
    /// When, seconds since the Unix epoch.
    pub at: i64,
}

/// An account's rating in one game type and speed as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredRating {
    /// Rating, deviation, volatility.
    pub rating: Rating,
    /// Rated games played.
    pub games: i64,
    /// The last rated game's end, seconds since the Unix epoch.
    pub updated: i64,
}

/// One seat's rating change in one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The seat.
    pub seat: usize,
    /// The account (`None` once it was deleted).
    #[serde(skip)]
    pub account_id: Option<String>,
    /// The game type.
    pub game: String,
    /// The speed category.
    pub speed: String,
    /// The seat's score against the others (1 win, 0.5 draw, 0 loss; averaged with more seats).
    pub score: f64,
    /// Before the game (after the idle growth of its deviation).
    pub before: Rating,
    /// After it.
    pub after: Rating,
    /// When, seconds since the Unix epoch.
    pub at: i64,
}

impl RatingChange {
    /// As a game's JSON shows it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "seat": self.seat,
            "game": self.game,
            "speed": self.speed,
            "score": self.score,
            "before": self.before.rating.round() as i64,
            "after": self.after.rating.round() as i64,
            "change": (self.after.rating.round() - self.before.rating.round()) as i64,
            "rd_before": round2(self.before.deviation),
            "rd_after": round2(self.after.deviation),
            "rating_before": self.before.rating,
            "rating_after": self.after.rating,
            "volatility_after": self.after.volatility,
            "provisional": SYSTEM.is_provisional(&self.after),
        })
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// `seat`'s score against `other`: 1 when it won and the other did not, 0 the other way, 0.5
/// otherwise.
pub fn score(winners: &[usize], seat: usize, other: usize) -> f64 {
    match (winners.contains(&seat), winners.contains(&other)) {
        (true, false) => 1.0,
        (false, true) => 0.0,
        _ => 0.5,
    }
}

/// A rating as it stands at `at` (a new player's when none is stored; an unused one's
/// deviation grown for the days since its last game).
pub fn current(stored: Option<&StoredRating>, at: i64) -> Rating {
    match stored {
        None => SYSTEM.initial,
        Some(s) => SYSTEM.after_idle(s.rating, (at - s.updated).max(0) as f64 / 86_400.0),
    }
}

/// Every seat's change: `stored[i]` is the stored rating of `job.seats[i]`'s account.
pub fn compute(job: &RatingJob, stored: &[Option<StoredRating>]) -> Vec<(RatingChange, StoredRating)> {
    let before: Vec<Rating> = stored.iter().map(|s| current(s.as_ref(), job.at)).collect();
    job.seats
        .iter()
        .enumerate()
        .map(|(i, (seat, account))| {
            let games: Vec<(Rating, f64)> = job
                .seats
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(j, (other, _))| (before[j], score(&job.winners, *seat, *other)))
                .collect();
            let after = SYSTEM.update(before[i], &games);
            let mean = games.iter().map(|(_, s)| s).sum::<f64>() / games.len().max(1) as f64;
            let played = stored[i].map_or(0, |s| s.games) + 1;
            (
                RatingChange {
                    seat: *seat,
                    account_id: Some(account.clone()),
                    game: job.game.clone(),
                    speed: job.speed.clone(),
                    score: mean,
                    before: before[i],
                    after,
                    at: job.at,
                },
                StoredRating { rating: after, games: played, updated: job.at },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_win_between_new_players_moves_both_the_same_way_round() {
        let job = RatingJob {
            game: "g".into(),
            speed: "blitz".into(),
            seats: vec![(0, "a".into()), (1, "b".into())],
            winners: vec![0],
            at: 1000,
        };
        let out = compute(&job, &[None, None]);
        let (a, b) = (&out[0].0, &out[1].0);
        assert!(a.after.rating > 1500.0 && b.after.rating < 1500.0);
        assert!((a.after.rating - 1500.0 + b.after.rating - 1500.0).abs() < 1e-6);
        assert_eq!(a.after, SYSTEM.update(SYSTEM.initial, &[(SYSTEM.initial, 1.0)]));
        assert_eq!(out[0].1.games, 1);
    }
}
