//! Mathable matches between two computer players: pairs of games share a bag seed with the
//! seats swapped, and each side's wins, points and thinking time are tallied.
//!
//! ```
//! use tabletop::games::mathable::matches::play_match;
//! use tabletop::games::mathable::players::{GreedyPlayer, MathableRandomPlayer};
//! use tabletop::games::mathable::{Preset, Settings};
//! let settings = Settings::preset(Preset::Simple).with_seed(5);
//! let (mut greedy, mut random) = (GreedyPlayer, MathableRandomPlayer::new(1));
//! let report = play_match(&settings, 2, &mut greedy, &mut random, |_| {}).unwrap();
//! assert_eq!(report.sides[0].wins + report.sides[1].wins + report.draws, 2);
//! assert!(report.average_points(0) > report.average_points(1));
//! ```

use std::time::{Duration, Instant};

use super::rules::{Mathable, MathableMove};
use super::settings::{Settings, SettingsError};
use crate::clock::TimeControl;
use crate::players::Player;
use crate::game::{Outcome, Seat};
use crate::record::Record;

/// One side's tally.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SideTally {
    /// Games won.
    pub wins: u64,
    /// Points scored in all games.
    pub points: i64,
    /// Seconds spent choosing moves.
    pub think: f64,
    /// The longest time one move took, in seconds.
    pub max_think: f64,
    /// Moves chosen.
    pub moves: u64,
    /// Games lost by forfeit (an external bot that crashed, timed out or played an illegal move).
    pub forfeits: u64,
    /// Games lost on time (under a clock).
    pub time_losses: u64,
    /// The share of its clock used, summed over the games that had one (see
    /// [`crate::arena::Finished::clock_share`]), and their number.
    pub clock_share: (f64, u64),
}

/// A finished match.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MatchReport {
    /// Games played.
    pub games: u64,
    /// Player A's tally, then player B's.
    pub sides: [SideTally; 2],
    /// Games drawn.
    pub draws: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl MatchReport {
    /// A side's points per game.
    pub fn average_points(&self, side: usize) -> f64 {
        self.sides[side].points as f64 / self.games.max(1) as f64
    }

    /// A's points per B's point (NaN when B scored nothing).
    pub fn points_ratio(&self) -> f64 {
        if self.average_points(1) > 0.0 {
            self.average_points(0) / self.average_points(1)
        } else {
            f64::NAN
        }
    }

    /// A side's milliseconds per move.
    pub fn average_move_ms(&self, side: usize) -> f64 {
        1000.0 * self.sides[side].think / self.sides[side].moves.max(1) as f64
    }
}

/// One game of a match, as [`play_match`] reports it.
#[derive(Clone, Debug)]
pub struct GameSummary {
    /// The game's number, from 0.
    pub number: usize,
    /// The seed of its bag.
    pub seed: u64,
    /// Player A's seat (0 or 1).
    pub a_seat: usize,
    /// The final position.
    pub end: Mathable,
    /// The seat that forfeited the game and why, if one did (its opponent won).
    pub forfeit: Option<(Seat, crate::players::Forfeit)>,
}

/// The match's bound on a game: after this many turns in a row without a placement the game is
/// terminated (scores as they stand, no deductions). The rules end a game once no token off the
/// board fits anywhere, and every computer player places when it can and exchanges when it
/// cannot, so turns without a placement only go on while the tokens that fit are in the bag and
/// exchanges have not drawn them yet: each exchange draws one of them with a chance of at least
/// one in the bag's size (106 at most), so 1,000 such turns in a row are practically impossible,
/// and the bound guarantees that every match ends.
pub const MAX_TURNS_WITHOUT_PLACEMENT: usize = 1000;

/// Turns (ended or exchanged) since the last placement.
fn turns_without_placement(record: &Record<Mathable>) -> usize {
    record
        .moves()
        .iter()
        .rev()
        .take_while(|m| !matches!(m, MathableMove::Place { .. }))
        .filter(|m| matches!(m, MathableMove::EndTurn | MathableMove::Exchange(_)))
        .count()
}

/// A player wrapper that measures thinking time and applies [`MAX_TURNS_WITHOUT_PLACEMENT`].
struct Timed<'a> {
    inner: &'a mut dyn Player<Mathable>,
    time: Duration,
    max: Duration,
    calls: u64,
}

impl Player<Mathable> for Timed<'_> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        if turns_without_placement(record) >= MAX_TURNS_WITHOUT_PLACEMENT {
            return MathableMove::Terminate;
        }
        let t = Instant::now();
        let mv = self.inner.choose_move(record);
        self.count(t.elapsed());
        mv
    }
    fn choose_move_or_forfeit(&mut self, record: &Record<Mathable>) -> Result<MathableMove, crate::players::Forfeit> {
        if turns_without_placement(record) >= MAX_TURNS_WITHOUT_PLACEMENT {
            return Ok(MathableMove::Terminate);
        }
        let t = Instant::now();
        let mv = self.inner.choose_move_or_forfeit(record);
        self.count(t.elapsed());
        mv
    }
    fn game_over(&mut self, record: &Record<Mathable>, outcome: Outcome, reason: &str) {
        self.inner.game_over(record, outcome, reason);
    }
    fn reset(&mut self) {
        self.inner.reset();
    }
    fn set_clock(&mut self, time: Option<&crate::players::TimeLeft>) {
        self.inner.set_clock(time);
    }
}

/// A computer player held to [`MAX_TURNS_WITHOUT_PLACEMENT`] (it terminates the game at the
/// bound), for tournaments, whose players are owned rather than borrowed as in [`play_match`].
pub struct Bounded(pub Box<dyn Player<Mathable>>);

impl Player<Mathable> for Bounded {
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        if turns_without_placement(record) >= MAX_TURNS_WITHOUT_PLACEMENT {
            return MathableMove::Terminate;
        }
        self.0.choose_move(record)
    }
    fn choose_move_or_forfeit(&mut self, record: &Record<Mathable>) -> Result<MathableMove, crate::players::Forfeit> {
        if turns_without_placement(record) >= MAX_TURNS_WITHOUT_PLACEMENT {
            return Ok(MathableMove::Terminate);
        }
        self.0.choose_move_or_forfeit(record)
    }
    fn game_over(&mut self, record: &Record<Mathable>, outcome: Outcome, reason: &str) {
        self.0.game_over(record, outcome, reason);
    }
    fn reset(&mut self) {
        self.0.reset();
    }
    fn set_clock(&mut self, time: Option<&crate::players::TimeLeft>) {
        self.0.set_clock(time);
    }
}

impl Timed<'_> {
    /// Counts one move's thinking time.
    fn count(&mut self, elapsed: Duration) {
        self.time += elapsed;
        self.max = self.max.max(elapsed);
        self.calls += 1;
    }
}

/// Plays `games` two-player games of `base` (game `2i` and `2i + 1` with the bag seed
/// `base.seed + i`, A sitting first in the even games), calling `each` after every game. Every
/// game ends: see [`MAX_TURNS_WITHOUT_PLACEMENT`].
pub fn play_match(
    base: &Settings,
    games: usize,
    a: &mut dyn Player<Mathable>,
    b: &mut dyn Player<Mathable>,
    each: impl FnMut(&GameSummary),
) -> Result<MatchReport, SettingsError> {
    play_timed_match(base, games, a, b, [TimeControl::Unlimited; 2], each)
}

/// [`play_match`] on game clocks: A's control then B's (see [`crate::arena::play_timed`]).
pub fn play_timed_match(
    base: &Settings,
    games: usize,
    a: &mut dyn Player<Mathable>,
    b: &mut dyn Player<Mathable>,
    [a_control, b_control]: [TimeControl; 2],
    mut each: impl FnMut(&GameSummary),
) -> Result<MatchReport, SettingsError> {
    let mut report = MatchReport { games: games as u64, ..MatchReport::default() };
    let started = Instant::now();
    for number in 0..games {
        let settings = base.with_seed(base.seed.wrapping_add((number / 2) as u64));
        let start = Mathable::new(&settings)?;
        let a_seat = number % 2;
        let mut ta = Timed { inner: &mut *a, time: Duration::ZERO, max: Duration::ZERO, calls: 0 };
        let mut tb = Timed { inner: &mut *b, time: Duration::ZERO, max: Duration::ZERO, calls: 0 };
        let finished = if a_seat == 0 {
            crate::arena::play_timed(&start, &[], &mut [&mut ta, &mut tb], &[a_control, b_control], |_, _, _| {})
        } else {
            crate::arena::play_timed(&start, &[], &mut [&mut tb, &mut ta], &[b_control, a_control], |_, _, _| {})
        };
        let end = finished.record.current().clone();
        for (p, t) in [(0, &ta), (1, &tb)] {
            let side = &mut report.sides[p];
            side.points += end.score(Seat(if p == 0 { a_seat } else { 1 - a_seat } as u8)) as i64;
            side.think += t.time.as_secs_f64();
            side.max_think = side.max_think.max(t.max.as_secs_f64());
            side.moves += t.calls;
            let seat = if p == 0 { a_seat } else { 1 - a_seat };
            if let Some(share) = finished.clock_share(seat) {
                side.clock_share.0 += share;
                side.clock_share.1 += 1;
            }
        }
        if let Some(seat) = finished.out_of_time {
            report.sides[usize::from(seat.index() != a_seat)].time_losses += 1;
        }
        match finished.outcome {
            Outcome::Win(w) => report.sides[usize::from(w.index() != a_seat)].wins += 1,
            _ => report.draws += 1,
        }
        if let Some((seat, _)) = &finished.forfeit {
            report.sides[usize::from(seat.index() != a_seat)].forfeits += 1;
        }
        each(&GameSummary { number, seed: settings.seed, a_seat, end, forfeit: finished.forfeit });
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::mathable::{EndCause, Preset};

    /// Ends every turn without placing: passing never ends a game, so only the match's bound does.
    struct Passer;

    impl Player<Mathable> for Passer {
        fn describe(&self) -> String {
            "passer".to_string()
        }
        fn choose_move(&mut self, _record: &Record<Mathable>) -> MathableMove {
            MathableMove::EndTurn
        }
    }

    #[test]
    fn a_game_of_players_who_never_place_ends_at_the_bound() {
        let mut ends = Vec::new();
        let settings = Settings::preset(Preset::Simple);
        let report = play_match(&settings, 1, &mut Passer, &mut Passer, |g| ends.push(g.end.clone())).unwrap();
        assert_eq!((report.games, report.draws), (1, 1));
        assert_eq!(ends[0].end_cause(), Some(EndCause::Terminated));
        assert_eq!(report.sides[0].moves + report.sides[1].moves, MAX_TURNS_WITHOUT_PLACEMENT as u64);
    }
}
