//! Computer-vs-computer matches: seeded random openings, both seats alternated, tallies.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::game::{Game, Outcome, Seat, Status};
use crate::players::Player;
use crate::record::Record;

/// How a match is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchSettings {
    /// Number of games; games come in pairs that share an opening with the seats swapped.
    pub games: usize,
    /// Seed for the openings (and nothing else: players seed themselves).
    pub seed: u64,
    /// The number of random first plies of each opening, chosen uniformly in this range.
    pub opening_plies: std::ops::RangeInclusive<usize>,
}

/// Why [`MatchSettings::new`] refused the settings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatchSettingsError {
    /// No games.
    #[error("a match needs at least one game")]
    NoGames,
    /// The fewest opening plies are more than the most.
    #[error("the fewest opening plies ({0}) are more than the most ({1})")]
    Openings(usize, usize),
    /// Openings longer than 1000 plies.
    #[error("openings of {0} plies: at most 1000")]
    TooLong(usize),
}

impl MatchSettings {
    /// Checked settings: at least one game, and opening plies from `min` to `max` (at most
    /// 1000), either of which defaults to the game's `default` range (stretched to contain the
    /// other bound).
    ///
    /// ```
    /// use tabletop::arena::MatchSettings;
    /// let s = MatchSettings::new(10, 1, Some(5), None, 0..=2).unwrap();
    /// assert_eq!(s.opening_plies, 5..=5);
    /// assert_eq!(MatchSettings::new(10, 1, None, Some(1), 4..=8).unwrap().opening_plies, 1..=1);
    /// assert!(MatchSettings::new(10, 1, Some(100), Some(2), 0..=2).is_err());
    /// assert!(MatchSettings::new(0, 1, None, None, 0..=2).is_err());
    /// ```
    pub fn new(
        games: usize,
        seed: u64,
        min: Option<usize>,
        max: Option<usize>,
        default: std::ops::RangeInclusive<usize>,
    ) -> Result<Self, MatchSettingsError> {
        if games == 0 {
            return Err(MatchSettingsError::NoGames);
        }
        let (min, max) = match (min, max) {
            (Some(min), Some(max)) if min > max => return Err(MatchSettingsError::Openings(min, max)),
            (Some(min), None) => (min, (*default.end()).max(min)),
            (None, Some(max)) => ((*default.start()).min(max), max),
            (min, max) => (min.unwrap_or(*default.start()), max.unwrap_or(*default.end())),
        };
        if max > 1000 {
            return Err(MatchSettingsError::TooLong(max));
        }
        Ok(MatchSettings { games, seed, opening_plies: min..=max })
    }
}

/// The result of a match between two players, counted per player (not per seat).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Wins of player A and of player B.
    pub wins: [u64; 2],
    /// Draws (shared wins count as draws).
    pub draws: u64,
}

impl Tally {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins[0] + self.wins[1] + self.draws
    }

    /// Player `p`'s score as a fraction: wins plus half the draws, over games.
    pub fn score(&self, p: usize) -> f64 {
        if self.games() == 0 {
            return 0.0;
        }
        (self.wins[p] as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }
}

/// A random opening of `plies` legal moves from `start` that does not end the game; shorter if
/// every continuation would end it.
pub fn random_opening<G: Game>(start: &G, plies: usize, rng: &mut impl Rng) -> Vec<G::Move> {
    let mut position = start.clone();
    let mut opening = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..plies {
        position.legal_moves(&mut moves);
        // Prefer moves that keep the game going, so the players decide the result.
        let mut live: Vec<G::Move> = moves
            .iter()
            .copied()
            .filter(|&mv| {
                let mut next = position.clone();
                next.play_unchecked(mv);
                matches!(next.status(), Status::ToMove(_))
            })
            .collect();
        if live.is_empty() {
            break;
        }
        let mv = live.swap_remove(rng.gen_range(0..live.len()));
        position.play_unchecked(mv);
        opening.push(mv);
    }
    opening
}

/// Plays one game from `start`: the opening moves, then the players in seat order
/// (`players[i]` sits in seat `i`). `observe` sees the record before each player's move, the
/// seat and the chosen move. Returns the finished record.
pub fn play_game<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: &mut [&mut dyn Player<G>],
    mut observe: impl FnMut(&Record<G>, Seat, G::Move),
) -> Record<G> {
    let mut record = Record::new(start.clone());
    for &mv in opening {
        if record.play(mv).is_err() {
            break;
        }
    }
    for player in players.iter_mut() {
        player.reset();
    }
    while let Status::ToMove(seat) = record.status() {
        let mv = players[seat.index()].choose_move(&record);
        observe(&record, seat, mv);
        if let Err(err) = record.play(mv) {
            panic!("player {} chose an illegal move {mv}: {err}", players[seat.index()].describe());
        }
    }
    record
}

/// Plays a two-player match between `a` and `b`: game `2i` has A in seat 0, game `2i + 1` the
/// same opening with B in seat 0. `after_game` is called with each finished record and the
/// running tally (for progress bars).
pub fn run_match<G: Game>(
    start: &G,
    a: &mut dyn Player<G>,
    b: &mut dyn Player<G>,
    settings: &MatchSettings,
    mut after_game: impl FnMut(&Record<G>, &Tally),
) -> Tally {
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
    let mut tally = Tally::default();
    let mut opening = Vec::new();
    for game in 0..settings.games {
        if game % 2 == 0 {
            let plies = rng.gen_range(settings.opening_plies.clone());
            opening = random_opening(start, plies, &mut rng);
        }
        let a_seat = Seat((game % 2) as u8);
        let record = if a_seat == Seat(0) {
            play_game(start, &opening, &mut [&mut *a, &mut *b], |_, _, _| {})
        } else {
            play_game(start, &opening, &mut [&mut *b, &mut *a], |_, _, _| {})
        };
        match record.status() {
            Status::Over(Outcome::Win(seat)) if seat == a_seat => tally.wins[0] += 1,
            Status::Over(Outcome::Win(_)) => tally.wins[1] += 1,
            _ => tally.draws += 1,
        }
        after_game(&record, &tally);
    }
    tally
}
