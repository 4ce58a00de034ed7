//! Computer-vs-computer matches: seeded random openings, both seats alternated, tallies.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::game::{Game, Outcome, Seat, SeatSet, Status};
use crate::players::{Forfeit, Player};
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
    /// Games player A and player B lost by forfeit (counted among the other's wins too).
    pub forfeits: [u64; 2],
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

/// The wall time a player took to choose its moves (what a game clock would count).
///
/// ```
/// use std::time::Duration;
/// use tabletop::arena::MoveTimes;
/// let mut times = MoveTimes::default();
/// times.add(Duration::from_millis(30));
/// times.add(Duration::from_millis(10));
/// assert_eq!((times.moves, times.max, times.mean()), (2, Duration::from_millis(30), Duration::from_millis(20)));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveTimes {
    /// Moves chosen.
    pub moves: u64,
    /// Their time in all.
    pub total: Duration,
    /// The longest.
    pub max: Duration,
}

impl MoveTimes {
    /// Counts one move that took `time`.
    pub fn add(&mut self, time: Duration) {
        self.moves += 1;
        self.total += time;
        self.max = self.max.max(time);
    }

    /// Counts the moves of `other` too.
    pub fn merge(&mut self, other: &MoveTimes) {
        self.moves += other.moves;
        self.total += other.total;
        self.max = self.max.max(other.max);
    }

    /// The mean time per move (zero without moves).
    pub fn mean(&self) -> Duration {
        match u32::try_from(self.moves) {
            Ok(0) => Duration::ZERO,
            Ok(moves) => self.total / moves,
            Err(_) => Duration::from_secs_f64(self.total.as_secs_f64() / self.moves as f64),
        }
    }
}

/// A finished game: its record and how it ended.
#[derive(Clone, Debug)]
pub struct Finished<G: Game> {
    /// Every position of the game.
    pub record: Record<G>,
    /// How it ended: the record's outcome, or the others' win when a seat forfeited.
    pub outcome: Outcome,
    /// The seat that forfeited and why, if one did (the record then stops before the end).
    pub forfeit: Option<(Seat, Forfeit)>,
    /// The time each seat took to choose its moves (`times[i]` for seat `i`).
    pub times: Vec<MoveTimes>,
}

/// The outcome when `seat` forfeits a game of `seats` seats: the other seat wins (the others
/// share the win when there are several).
///
/// ```
/// use tabletop::arena::forfeit_outcome;
/// use tabletop::{Outcome, Seat};
/// assert_eq!(forfeit_outcome(Seat(0), 2), Outcome::Win(Seat(1)));
/// assert_eq!(forfeit_outcome(Seat(1), 3).result_for(Seat(2)), 0);
/// assert_eq!(forfeit_outcome(Seat(1), 3).result_for(Seat(1)), -1);
/// ```
pub fn forfeit_outcome(seat: Seat, seats: usize) -> Outcome {
    let others: Vec<Seat> = (0..seats as u8).map(Seat).filter(|&s| s != seat).collect();
    match others.as_slice() {
        [winner] => Outcome::Win(*winner),
        [] => Outcome::Draw,
        _ => Outcome::SharedWin(SeatSet::from_seats(others)),
    }
}

/// Plays one game from `start`: the opening moves, then the players in seat order
/// (`players[i]` sits in seat `i`). `observe` sees the record before each player's move, the
/// seat and the chosen move. Returns the finished record (see [`play_to_end`] for forfeits:
/// here a forfeited game's record simply stops).
pub fn play_game<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: &mut [&mut dyn Player<G>],
    observe: impl FnMut(&Record<G>, Seat, G::Move),
) -> Record<G> {
    play_to_end(start, opening, players, observe).record
}

/// [`play_game`], with forfeits: a player that cannot choose a move
/// ([`Player::choose_move_or_forfeit`]) or chooses an illegal one loses the game by forfeit.
/// Every player is told the result ([`Player::game_over`]).
pub fn play_to_end<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: &mut [&mut dyn Player<G>],
    mut observe: impl FnMut(&Record<G>, Seat, G::Move),
) -> Finished<G> {
    let mut record = Record::new(start.clone());
    for &mv in opening {
        if record.play(mv).is_err() {
            break;
        }
    }
    for player in players.iter_mut() {
        player.reset();
    }
    let mut times = vec![MoveTimes::default(); players.len()];
    let (outcome, forfeit) = loop {
        let seat = match record.status() {
            Status::Over(outcome) => break (outcome, None),
            Status::ToMove(seat) => seat,
        };
        let player = &mut players[seat.index()];
        let started = Instant::now();
        let chosen = player.choose_move_or_forfeit(&record);
        times[seat.index()].add(started.elapsed());
        let chosen = chosen.and_then(|mv| {
            // An illegal move from a player is a forfeit, not a crash of the whole match.
            match record.current().illegal_reason(mv) {
                Some(err) => {
                    Err(Forfeit { reason: format!("{} chose an illegal move {mv}: {err}", player.describe()) })
                }
                None => Ok(mv),
            }
        });
        let refused = match chosen {
            Ok(mv) => {
                observe(&record, seat, mv);
                // Legal in the position, so only a record's own refusal could stop it.
                match record.play(mv) {
                    Ok(()) => continue,
                    Err(err) => Forfeit { reason: format!("the move {mv} was refused: {err}") },
                }
            }
            Err(forfeit) => forfeit,
        };
        break (forfeit_outcome(seat, record.current().num_seats()), Some((seat, refused)));
    };
    let reason = match &forfeit {
        Some((seat, why)) => format!("seat {} forfeits: {why}", seat.index() + 1),
        None => record.current().end_reason().unwrap_or_default(),
    };
    for player in players.iter_mut() {
        player.game_over(&record, outcome, &reason);
    }
    Finished { record, outcome, forfeit, times }
}

/// Plays a two-player match between `a` and `b`: game `2i` has A in seat 0, game `2i + 1` the
/// same opening with B in seat 0. A forfeit loses the game (and the match goes on).
/// `after_game` is called with each finished game and the running tally (for progress bars).
pub fn run_match<G: Game>(
    start: &G,
    a: &mut dyn Player<G>,
    b: &mut dyn Player<G>,
    settings: &MatchSettings,
    mut after_game: impl FnMut(&Finished<G>, &Tally),
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
        let finished = if a_seat == Seat(0) {
            play_to_end(start, &opening, &mut [&mut *a, &mut *b], |_, _, _| {})
        } else {
            play_to_end(start, &opening, &mut [&mut *b, &mut *a], |_, _, _| {})
        };
        match finished.outcome {
            Outcome::Win(seat) if seat == a_seat => tally.wins[0] += 1,
            Outcome::Win(_) => tally.wins[1] += 1,
            _ => tally.draws += 1,
        }
        if let Some((seat, _)) = &finished.forfeit {
            tally.forfeits[usize::from(*seat != a_seat)] += 1;
        }
        after_game(&finished, &tally);
    }
    tally
}
