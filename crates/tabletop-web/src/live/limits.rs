//! Limits on play, far above a person's pace: how fast a seat may move (moves and takebacks) and
//! propose, and how many open games one address may keep in the lobby. They live in each
//! process's memory: with several processes on one database each counts its own.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use crate::error::ApiError;

/// A token bucket: `burst` actions at once, then one every `every`.
#[derive(Clone, Debug)]
pub struct Pace {
    /// Actions available now (fractions accrue between actions).
    available: f64,
    at: Instant,
    burst: f64,
    every: Duration,
}

impl Pace {
    /// A full bucket of `burst` actions, refilled at one per `every`.
    pub fn new(burst: u32, every: Duration) -> Self {
        let burst = f64::from(burst.max(1));
        Pace { available: burst, at: Instant::now(), burst, every: every.max(Duration::from_micros(1)) }
    }

    /// Takes one action, or says in how many whole seconds (at least 1) the next one is allowed.
    pub fn take(&mut self, now: Instant) -> Result<(), u64> {
        let earned = now.saturating_duration_since(self.at).as_secs_f64() / self.every.as_secs_f64();
        self.available = (self.available + earned).min(self.burst);
        self.at = now;
        if self.available >= 1.0 {
            self.available -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - self.available) * self.every.as_secs_f64();
            Err((wait.ceil() as u64).max(1))
        }
    }
}

/// How fast one seat may play: moves and takebacks, and proposals.
#[derive(Clone, Debug)]
pub struct SeatPaces {
    actions: Pace,
    proposals: Pace,
}

impl SeatPaces {
    /// Paces from the server's limits: `moves_per_minute` with a burst of as many, and
    /// `proposals_per_minute` with a burst of 3.
    pub fn new(moves_per_minute: u32, proposals_per_minute: u32) -> Self {
        let per = |n: u32| Duration::from_secs(60) / n.max(1);
        SeatPaces {
            actions: Pace::new(moves_per_minute, per(moves_per_minute)),
            proposals: Pace::new(3, per(proposals_per_minute)),
        }
    }

    /// Counts a move or takeback (429 when the seat goes faster than the limit).
    pub fn act(&mut self) -> Result<(), ApiError> {
        self.actions.take(Instant::now()).map_err(|retry_after| ApiError::TooMany {
            what: "moves come faster than this server allows for one seat".into(),
            retry_after,
        })
    }

    /// Counts a proposal (429 when the seat proposes faster than the limit).
    pub fn propose(&mut self) -> Result<(), ApiError> {
        self.proposals.take(Instant::now()).map_err(|retry_after| ApiError::TooMany {
            what: "proposals come faster than this server allows; wait for the answer".into(),
            retry_after,
        })
    }
}

/// The open games each address created that may still wait in the lobby.
#[derive(Default)]
pub struct OpenGames {
    by_address: HashMap<IpAddr, Vec<(String, Instant)>>,
}

impl OpenGames {
    /// May `address` open another game? Games older than `lobby_life` no longer count (the
    /// lobby no longer shows them). The answer's `retry_after` is when the oldest stops counting.
    pub fn check(&mut self, address: IpAddr, cap: usize, lobby_life: Duration) -> Result<(), ApiError> {
        let now = Instant::now();
        self.by_address.retain(|_, games| {
            games.retain(|(_, at)| now.saturating_duration_since(*at) < lobby_life);
            !games.is_empty()
        });
        let games = self.by_address.get(&address).map_or(&[][..], Vec::as_slice);
        if games.len() < cap {
            return Ok(());
        }
        let oldest = games.iter().map(|(_, at)| *at).min().unwrap_or(now);
        let retry_after = lobby_life.saturating_sub(now.saturating_duration_since(oldest)).as_secs().max(1);
        Err(ApiError::TooMany {
            what: format!("this address has {cap} open games waiting for players already"),
            retry_after,
        })
    }

    /// Counts a new open game of `address`.
    pub fn opened(&mut self, address: IpAddr, id: &str) {
        self.by_address.entry(address).or_default().push((id.to_string(), Instant::now()));
    }

    /// The game's open seats were all taken (or it ended): it leaves the count.
    pub fn closed(&mut self, id: &str) {
        for games in self.by_address.values_mut() {
            games.retain(|(game, _)| game != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pace_allows_its_burst_then_one_per_period() {
        let start = Instant::now();
        let mut pace = Pace::new(3, Duration::from_secs(2));
        for _ in 0..3 {
            assert_eq!(pace.take(start), Ok(()));
        }
        assert_eq!(pace.take(start), Err(2));
        assert_eq!(pace.take(start + Duration::from_millis(1500)), Err(1));
        assert_eq!(pace.take(start + Duration::from_secs(2)), Ok(()));
        // Idle time never stores more than the burst.
        let later = start + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(pace.take(later), Ok(()));
        }
        assert!(pace.take(later).is_err());
    }

    #[test]
    fn open_games_are_counted_per_address_until_taken_or_old() {
        let a: IpAddr = [10, 0, 0, 1].into();
        let b: IpAddr = [10, 0, 0, 2].into();
        let mut open = OpenGames::default();
        let life = Duration::from_secs(600);
        for i in 0..2 {
            open.check(a, 2, life).unwrap();
            open.opened(a, &format!("g{i}"));
        }
        let refused = open.check(a, 2, life).unwrap_err();
        assert!(matches!(refused, ApiError::TooMany { retry_after, .. } if retry_after >= 590));
        open.check(b, 2, life).unwrap();
        open.closed("g0");
        open.check(a, 2, life).unwrap();
        // Once the lobby forgets them they stop counting.
        open.opened(a, "g2");
        assert!(open.check(a, 2, Duration::ZERO).is_ok());
    }
}
