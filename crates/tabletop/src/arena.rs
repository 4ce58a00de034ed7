//! Computer-vs-computer matches: seeded random openings, both seats alternated, tallies.

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::clock::{Clock, MoveTime, TimeControl};
use crate::game::{Game, Outcome, Seat, SeatSet, Status};
use crate::players::{Forfeit, Player, TimeLeft};
use crate::record::{ClockLog, Record};

/// How a match is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchSettings {
    /// Number of games; games come in pairs that share an opening with the seats swapped.
    pub games: usize,
    /// Seed for the openings (and nothing else: players seed themselves).
    pub seed: u64,
    /// The number of random first plies of each opening, chosen uniformly in this range.
    pub opening_plies: std::ops::RangeInclusive<usize>,
    /// Player A's and player B's time controls (unlimited by default: each plays by its own
    /// per-move settings).
    pub controls: [TimeControl; 2],
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
        Ok(MatchSettings { games, seed, opening_plies: min..=max, controls: [TimeControl::Unlimited; 2] })
    }

    /// The same settings with player A's and player B's time controls.
    pub fn with_controls(self, controls: [TimeControl; 2]) -> Self {
        MatchSettings { controls, ..self }
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
    /// Games player A and player B lost on time (counted among the other's wins, or the
    /// draws where the game's rule says so).
    pub time_losses: [u64; 2],
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
    /// The seat that ran out of time, if one did (the record then stops before the end; the
    /// outcome is the game's [`Game::out_of_time`]).
    pub out_of_time: Option<Seat>,
    /// The time each seat took to choose its moves (`times[i]` for seat `i`).
    pub times: Vec<MoveTimes>,
    /// Each seat's time control (`TimeControl::Unlimited` in an untimed game).
    pub controls: Vec<TimeControl>,
    /// Every move's time and its mover's clock after it, in the record's order (`None` for the
    /// opening's moves, which no clock timed).
    pub move_clocks: Vec<Option<MoveTime>>,
    /// How the game ended, in words (`seat 2 ran out of time`, `no legal move`).
    pub reason: String,
}

impl<G: Game> Finished<G> {
    /// The game's clocks for its saved text ([`Record::to_text_timed`]): one control when
    /// every seat had the same.
    pub fn clock_log(&self) -> ClockLog {
        let same = self.controls.windows(2).all(|w| w[0] == w[1]);
        let controls = if same { self.controls.iter().take(1).copied().collect() } else { self.controls.clone() };
        ClockLog { controls, moves: self.move_clocks.clone() }
    }

    /// The saved-game text of the game with its clocks and result
    /// ([`Record::to_text_timed`]).
    pub fn to_text(&self) -> String {
        self.record.to_text_timed(&self.clock_log(), Some((self.outcome, &self.reason)))
    }

    /// The share of its clock seat `seat` used: the time its moves took over the time it had
    /// (the initial time plus every increment received); `None` without a clock or moves.
    ///
    /// ```
    /// use tabletop::arena::play_timed;
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::players::RandomPlayer;
    /// let start = Connect::new(ConnectVariant::connect3());
    /// let (mut a, mut b) = (RandomPlayer::new(1), RandomPlayer::new(2));
    /// let control = "1+0".parse().unwrap();
    /// let game = play_timed(&start, &[], &mut [&mut a, &mut b], &[control], |_, _, _| {});
    /// assert!(game.out_of_time.is_none());
    /// let share = game.clock_share(0).unwrap();
    /// assert!((0.0..0.5).contains(&share), "{share}");
    /// assert!(game.move_clocks.iter().all(Option::is_some));
    /// ```
    pub fn clock_share(&self, seat: usize) -> Option<f64> {
        let control = self.controls.get(seat)?;
        let initial = control.initial()?;
        let mine = self.record.positions().iter().zip(&self.move_clocks).filter_map(|(before, clock)| {
            (before.status().to_move().map(Seat::index) == Some(seat)).then_some(clock.as_ref()?.used_ms)
        });
        let (moves, used) = mine.fold((0u32, 0u64), |(n, total), ms| (n + 1, total.saturating_add(ms)));
        let lost = u64::from(self.out_of_time.map(Seat::index) == Some(seat));
        let available = initial + control.increment() * moves.saturating_sub(1);
        (moves + lost as u32 > 0).then(|| {
            let used = if lost == 1 { available.as_millis() as u64 } else { used };
            used as f64 / available.as_millis().max(1) as f64
        })
    }
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
/// Every player is told the result ([`Player::game_over`]). No clock: see [`play_timed`].
pub fn play_to_end<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: &mut [&mut dyn Player<G>],
    observe: impl FnMut(&Record<G>, Seat, G::Move),
) -> Finished<G> {
    play_timed(start, opening, players, &[], observe)
}

/// [`play_to_end`] under game clocks: `controls` gives each seat's time control (one for
/// every seat, or one each; none at all for an untimed game). The clocks start after the
/// opening; each player is told its clock before each move ([`Player::set_clock`]) and its
/// wall time to answer is charged (an increment added after each move). A player whose time
/// runs out loses on time ([`Game::out_of_time`] decides the outcome), even when it answered
/// a move after all.
pub fn play_timed<G: Game>(
    start: &G,
    opening: &[G::Move],
    players: &mut [&mut dyn Player<G>],
    controls: &[TimeControl],
    mut observe: impl FnMut(&Record<G>, Seat, G::Move),
) -> Finished<G> {
    let mut record = Record::new(start.clone());
    for &mv in opening {
        if record.play(mv).is_err() {
            break;
        }
    }
    let mut move_clocks: Vec<Option<MoveTime>> = vec![None; record.moves().len()];
    let seats = players.len();
    let controls: Vec<TimeControl> = (0..seats)
        .map(|seat| match controls {
            [] => TimeControl::Unlimited,
            [all] => *all,
            each => each.get(seat).copied().unwrap_or(TimeControl::Unlimited),
        })
        .collect();
    // One clock a seat (controls may differ), each reading the same wall time since the start.
    let mut clocks: Vec<Clock> = controls.iter().map(|&control| Clock::new(control, 1)).collect();
    let epoch = Instant::now();
    for player in players.iter_mut() {
        player.reset();
    }
    let mut times = vec![MoveTimes::default(); seats];
    let mut out_of_time = None;
    let (outcome, forfeit) = loop {
        let seat = match record.status() {
            Status::Over(outcome) => break (outcome, None),
            Status::ToMove(seat) => seat,
        };
        let started = Instant::now();
        clocks[seat.index()].start(0, started - epoch);
        let clock = &clocks[seat.index()];
        let time_left = clock.control.is_limited().then(|| {
            let now = started - epoch;
            TimeLeft {
                control: clock.control,
                own: clock.remaining(0, now).unwrap_or_default(),
                periods: clock.showing(0, now).map_or(0, |s| s.periods),
                seats: (0..seats).map(|s| Duration::from_millis(clocks_remaining(&clocks, s))).collect(),
                moves_left: record.current().expected_moves_left(),
                move_times: move_clocks.iter().map(|m| m.map(|m| Duration::from_millis(m.used_ms))).collect(),
            }
        });
        let player = &mut players[seat.index()];
        player.set_clock(time_left.as_ref());
        let chosen = player.choose_move_or_forfeit(&record);
        let answered = Instant::now();
        times[seat.index()].add(answered - started);
        let pressed = clocks[seat.index()].press(answered - epoch, Duration::ZERO, None);
        let Ok(move_clock) = pressed else {
            // Out of time, whatever it answered: the game's own rule says who wins.
            out_of_time = Some(seat);
            break (record.current().out_of_time(seat), None);
        };
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
                    Ok(()) => {
                        move_clocks.push(controls[seat.index()].is_limited().then_some(move_clock));
                        continue;
                    }
                    Err(err) => Forfeit { reason: format!("the move {mv} was refused: {err}") },
                }
            }
            Err(forfeit) => forfeit,
        };
        break (forfeit_outcome(seat, record.current().num_seats()), Some((seat, refused)));
    };
    let reason = match (&forfeit, out_of_time) {
        (Some((seat, why)), _) => format!("seat {} forfeits: {why}", seat.index() + 1),
        (None, Some(seat)) => format!("seat {} ran out of time", seat.index() + 1),
        (None, None) => record.current().end_reason().unwrap_or_default(),
    };
    for player in players.iter_mut() {
        player.set_clock(None);
        player.game_over(&record, outcome, &reason);
    }
    Finished { record, outcome, forfeit, out_of_time, times, controls, move_clocks, reason }
}

/// A seat's main time left on its own (stopped) clock, in milliseconds.
fn clocks_remaining(clocks: &[Clock], seat: usize) -> u64 {
    clocks.get(seat).and_then(|c| c.seats.first()).map_or(0, |s| s.remaining_ms)
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
        let [a_control, b_control] = settings.controls;
        let finished = if a_seat == Seat(0) {
            play_timed(start, &opening, &mut [&mut *a, &mut *b], &[a_control, b_control], |_, _, _| {})
        } else {
            play_timed(start, &opening, &mut [&mut *b, &mut *a], &[b_control, a_control], |_, _, _| {})
        };
        match finished.outcome {
            Outcome::Win(seat) if seat == a_seat => tally.wins[0] += 1,
            Outcome::Win(_) => tally.wins[1] += 1,
            _ => tally.draws += 1,
        }
        if let Some((seat, _)) = &finished.forfeit {
            tally.forfeits[usize::from(*seat != a_seat)] += 1;
        }
        if let Some(seat) = finished.out_of_time {
            tally.time_losses[usize::from(seat != a_seat)] += 1;
        }
        after_game(&finished, &tally);
    }
    tally
}
