//! Limits on play, far above a person's pace, counted by account where there is one and by
//! address where not:
//!
//! - [`Limits::check`]: how fast one mover may move (moves and takebacks, across all its
//!   games), start games (create, join, open an invitation), propose (takebacks, ending a game,
//!   rematches) and seek (open games in the lobby, quick pairing). Each is a token bucket in the
//!   database ([`crate::store::limits`]): every process sharing a PostgreSQL database takes from
//!   the same one, and a new game brings no new allowance.
//! - [`OpenGames`]: how many open games one address may keep in the lobby at once (this
//!   process's count; the shared seek rate bounds the total).
//!
//! Hints and analyses (the engine workers), event streams and connections are this process's
//! own resources: their limits stay in its memory (`server`, `connection`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use crate::config::ServeConfig;
use crate::error::ApiError;
use crate::ratings::SeatAccount;
use crate::store::Store;

/// What is limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitKind {
    /// A move or takeback (`--move-rate`, `--move-burst`), by the seat's account, else the
    /// mover's address: across all games.
    Move,
    /// A game started: created, joined, or an invitation opened (`--create-rate`).
    Create,
    /// A proposal: a takeback between people, ending the game, a rematch (`--proposal-rate`).
    Proposal,
    /// A seek: a game with an open seat put in the lobby, an entry in a quick-pairing pool
    /// (`--seek-rate`).
    Seek,
}

impl LimitKind {
    /// Its name in the bucket's key.
    fn name(self) -> &'static str {
        match self {
            LimitKind::Move => "move",
            LimitKind::Create => "create",
            LimitKind::Proposal => "proposal",
            LimitKind::Seek => "seek",
        }
    }

    /// Its rate under `config`: (actions a minute, burst).
    pub fn rate(self, config: &ServeConfig) -> (u32, u32) {
        match self {
            LimitKind::Move => (config.move_rate, config.move_burst),
            // A tenth of a minute's worth at once, as the per-address limiter before it.
            LimitKind::Create => (config.create_rate, config.create_rate / 6),
            LimitKind::Proposal => (config.proposal_rate, PROPOSAL_BURST),
            LimitKind::Seek => (config.seek_rate, config.seek_rate / 2),
        }
    }

    /// What its 429 says (`rate` a minute, `burst` at once).
    fn refusal(self, who: &Who, rate: u32, burst: u32) -> String {
        let by = who.described();
        match self {
            LimitKind::Move => format!(
                "moves come faster than this server allows for {by}: {rate} a minute across all games, {burst} at once"
            ),
            LimitKind::Create => format!("too many games started by {by}: {rate} a minute, {burst} at once"),
            LimitKind::Proposal => {
                format!("proposals come faster than this server allows for {by} ({rate} a minute); wait for the answer")
            }
            LimitKind::Seek => format!("too many seeks by {by}: {rate} a minute, {burst} at once"),
        }
    }
}

/// Proposals one mover may make at once before the proposal rate holds them back.
pub const PROPOSAL_BURST: u32 = 3;

/// Whose allowance an action takes: an account's (wherever it connects from), else a client
/// address's (an IPv6 address's /64, which one client may hold whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Who {
    /// A logged-in person, or a seat linked to an account: the account's id.
    Account(String),
    /// Anyone else: the client address (behind `--behind-proxy`, the proxy's
    /// `X-Forwarded-For`).
    Address(IpAddr),
}

impl Who {
    /// The account's if there is one, else the address's.
    pub fn of(account: Option<&SeatAccount>, client: IpAddr) -> Who {
        match account {
            Some(account) => Who::Account(account.id.clone()),
            None => Who::Address(client),
        }
    }

    /// The bucket's name for it (hashed before it is stored).
    fn key(&self) -> String {
        match self {
            Who::Account(id) => format!("account:{id}"),
            Who::Address(ip) => format!("address:{}", address_key(*ip)),
        }
    }

    /// Whom a refusal names (never the address itself: the client knows it).
    fn described(&self) -> &'static str {
        match self {
            Who::Account(_) => "one account",
            Who::Address(_) => "one address",
        }
    }
}

/// The client address as the limits count it (the login limits too): an IPv4 address, or an
/// IPv6 address's /64 (a client may hold a whole /64).
pub fn address_key(client: IpAddr) -> String {
    match client {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// The shared rate limits (see the module's documentation); from [`super::AppState::limits`].
pub struct Limits<'a> {
    /// The database holding the buckets.
    pub(crate) store: &'a Store,
    /// The rates.
    pub(crate) config: &'a ServeConfig,
}

impl Limits<'_> {
    /// Takes one `kind` action from `who`'s allowance, or answers 429 (`ApiError::TooMany`, with
    /// the whole seconds until the next one is allowed, at least 1).
    pub async fn check(&self, kind: LimitKind, who: &Who) -> Result<(), ApiError> {
        let (rate, burst) = kind.rate(self.config);
        let (rate, burst) = (rate.max(1), burst.max(1));
        let period_us = i64::try_from(60_000_000 / u64::from(rate)).unwrap_or(i64::MAX).max(1);
        let key = crate::store::hash_token(&format!("{}:{}", kind.name(), who.key()));
        let now_us = i64::try_from(crate::clocks::now_ms()).unwrap_or(i64::MAX / 1000).saturating_mul(1000);
        match self.store.take_from_bucket(&key, period_us, i64::from(burst), now_us).await? {
            None => Ok(()),
            Some(wait_us) => {
                let retry_after = u64::try_from(wait_us).unwrap_or(1).div_ceil(1_000_000).max(1);
                Err(ApiError::TooMany { what: kind.refusal(who, rate, burst), retry_after })
            }
        }
    }
}

/// How often full buckets are forgotten.
pub const FORGET_FULL_EVERY: Duration = Duration::from_secs(60);

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
