//! Who plays whom, in which seat and with which opening: a tournament's [`Settings`] and its
//! [`schedule`](Settings::schedule).

use serde::Serialize;

use crate::stats::Sprt;

/// How players are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Everyone against everyone.
    RoundRobin,
    /// The first player against each of the others (the others do not meet).
    Gauntlet,
}

impl std::str::FromStr for Format {
    type Err = String;

    /// `round-robin` or `gauntlet`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "round-robin" | "roundrobin" | "rr" => Ok(Format::RoundRobin),
            "gauntlet" => Ok(Format::Gauntlet),
            _ => Err(format!("{text:?}: expected round-robin or gauntlet")),
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
        })
    }
}

/// One player of a tournament: its unique name and its spec as given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Entrant {
    /// The name in tables and files.
    pub name: String,
    /// The player spec (`engine:level=3`, `external:cmd="..."`).
    pub spec: String,
}

/// Everything that decides a tournament's games and results (the number of threads does not):
/// a results file records it and is resumed only with equal settings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settings {
    /// The game's name.
    pub game: String,
    /// The variant and start position, in words (e.g. the Debug form of the variant).
    pub variant: String,
    /// The players, in the order given.
    pub players: Vec<Entrant>,
    /// Round-robin or gauntlet.
    pub format: Format,
    /// How many times every pairing is played.
    pub rounds: usize,
    /// Games per pairing per round, an even number (each opening twice, the seats swapped).
    pub games_per_pairing: usize,
    /// The seed of the openings and of the players' seeds.
    pub seed: u64,
    /// Where the openings come from, in words (random plies, or a file's positions' hash).
    pub openings: String,
    /// Stop a two-player match when this test decides.
    pub sprt: Option<Sprt>,
    /// A player that forfeits this many games in a row is withdrawn (0: never).
    pub max_failures: usize,
    /// The tournament's time control (`--tc`), if any; a player's own `clock=` is in its spec.
    pub tc: Option<String>,
}

/// Why [`Settings::check`] refused settings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// Fewer than two players.
    #[error("a tournament needs at least two players (--player NAME=SPEC, twice or more)")]
    TooFewPlayers,
    /// Two players share a name.
    #[error("two players are called {0:?}: names must be unique")]
    DuplicateName(String),
    /// A name is empty or not printable in a table.
    #[error("player name {0:?}: use letters, digits and - _ . (at most 40)")]
    BadName(String),
    /// An odd or zero number of games per pairing.
    #[error("--games-per-pairing {0}: give an even number (each opening is played twice, the seats swapped)")]
    OddGames(usize),
    /// No rounds.
    #[error("--rounds must be at least 1")]
    NoRounds,
    /// An SPRT between other than two players.
    #[error("--sprt compares exactly two players ({0} given)")]
    SprtPlayers(usize),
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScheduledGame {
    /// Its number from 0, in the order results are committed.
    pub index: usize,
    /// The round, from 0.
    pub round: usize,
    /// The opening slot: games with the same slot start from the same opening.
    pub opening: usize,
    /// The players by index in seat order: `seats[0]` moves first.
    pub seats: [usize; 2],
}

impl Settings {
    /// Checks the settings (see [`SettingsError`]).
    pub fn check(&self) -> Result<(), SettingsError> {
        if self.players.len() < 2 {
            return Err(SettingsError::TooFewPlayers);
        }
        for (i, p) in self.players.iter().enumerate() {
            let fine = |c: char| c.is_alphanumeric() || "-_.+".contains(c);
            if p.name.is_empty() || p.name.chars().count() > 40 || !p.name.chars().all(fine) {
                return Err(SettingsError::BadName(p.name.clone()));
            }
            if self.players[..i].iter().any(|q| q.name == p.name) {
                return Err(SettingsError::DuplicateName(p.name.clone()));
            }
        }
        if self.games_per_pairing == 0 || self.games_per_pairing % 2 == 1 {
            return Err(SettingsError::OddGames(self.games_per_pairing));
        }
        if self.rounds == 0 {
            return Err(SettingsError::NoRounds);
        }
        if self.sprt.is_some() && self.players.len() != 2 {
            return Err(SettingsError::SprtPlayers(self.players.len()));
        }
        Ok(())
    }

    /// The pairings, each `(a, b)` with `a < b` by the players' order.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.players.len();
        match self.format {
            Format::RoundRobin => (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).collect(),
            Format::Gauntlet => (1..n).map(|b| (0, b)).collect(),
        }
    }

    /// Every game in order: round by round, then opening by opening (opening slot `k` of
    /// round `r` is `r * games_per_pairing / 2 + k`, the same for every pairing so that all of
    /// them play the same suite), then pairing by pairing, the two games of an opening next to
    /// each other (the first player of the pairing first in seat 1, then in seat 2).
    ///
    /// ```
    /// use tabletop::tournament::schedule::{Entrant, Format, Settings};
    /// let entrant = |name: &str| Entrant { name: name.into(), spec: "random".into() };
    /// let settings = Settings {
    ///     game: "connect".into(), variant: String::new(), players: vec![entrant("a"), entrant("b"), entrant("c")],
    ///     format: Format::RoundRobin, rounds: 2, games_per_pairing: 4, seed: 1, openings: String::new(),
    ///     sprt: None, max_failures: 3, tc: None,
    /// };
    /// let games = settings.schedule();
    /// assert_eq!(games.len(), 3 * 4 * 2);
    /// assert_eq!((games[0].seats, games[1].seats, games[2].seats), ([0, 1], [1, 0], [0, 2]));
    /// assert_eq!((games[5].opening, games[6].opening, games[12].opening), (0, 1, 2));
    /// ```
    pub fn schedule(&self) -> Vec<ScheduledGame> {
        let pairings = self.pairings();
        let pairs_per_round = self.games_per_pairing / 2;
        let mut games = Vec::with_capacity(self.rounds * pairs_per_round * pairings.len() * 2);
        for round in 0..self.rounds {
            for k in 0..pairs_per_round {
                let opening = round * pairs_per_round + k;
                for &(a, b) in &pairings {
                    for seats in [[a, b], [b, a]] {
                        games.push(ScheduledGame { index: games.len(), round, opening, seats });
                    }
                }
            }
        }
        games
    }
}
