//! Game clocks as the server keeps them: what is stored with a game ([`Timing`]: the library's
//! [`Clock`] and when each turn began), when a game ends by itself ([`deadline`]: a flag, or an
//! abort when a first move is not made in time), the control a new game gets ([`control_for`])
//! and the clock's JSON for the page ([`clock_json`]). The clock's rules (Fischer, byo-yomi,
//! correspondence, lag quota, flags) are the library's (`tabletop::clock`); nothing here
//! re-implements them.
//!
//! Time is the system's wall clock in milliseconds since the Unix epoch
//! ([`tabletop::clock::SystemTime`]), so a stored clock means the same after a restart and in
//! every process sharing a database.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tabletop::clock::{Clock, MoveTime, OutOfTime, SystemTime, TimeControl, TimeSource, DAY};

/// The control of a game made for the lobby without one.
pub const LOBBY_DEFAULT: &str = "5+3";

/// The most lag a client may report for one move (its own measure); the seat's lag quota then
/// caps what is given back.
pub const MAX_REPORTED_LAG: Duration = Duration::from_secs(1);

/// How often a seat's event stream is pinged to measure its lag (the first ping follows the
/// stream's first state at once).
pub const PING_INTERVAL: Duration = Duration::from_secs(5);

/// What the server's measure adds to the lag it credits, for the jitter between its pings and a
/// move's own trip.
pub const LAG_MARGIN: Duration = Duration::from_millis(100);

/// The weight of a new sample in the measured lag (an exponentially weighted moving average).
pub const LAG_SMOOTHING: f64 = 0.25;

/// Pings waiting for their answer, at most, per seat (the oldest is forgotten beyond).
pub const PINGS_PENDING: usize = 4;

/// How long a ping may wait for its answer; a later answer is refused and measures nothing.
pub const PING_LIFE: Duration = Duration::from_secs(30);

/// A seat's network lag as the server measures it: its event stream is sent pings (random ids),
/// the page answers each, and half of each round trip (at most [`MAX_REPORTED_LAG`]) is one
/// sample of the lag; the measure is their exponentially weighted moving average
/// ([`LAG_SMOOTHING`]). Kept in memory by the process that serves the stream, per seat.
///
/// The lag a move is credited ([`LagMeter::credited`]) is what the client reports bounded by this
/// measure plus [`LAG_MARGIN`]: answering pings late only raises the seat's own measure, which
/// never gives more than the client reports (at most [`MAX_REPORTED_LAG`]) and the seat's lag
/// quota allow.
#[derive(Clone, Debug, Default)]
pub struct LagMeter {
    /// Pings sent and not yet answered: id and when sent.
    pending: std::collections::VecDeque<(String, std::time::Instant)>,
    /// The smoothed one-way lag in milliseconds, once a ping was answered.
    smoothed_ms: Option<f64>,
    /// How many pings were answered.
    samples: u64,
}

/// Why a ping's answer measured nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PongError {
    /// No such ping is waiting for this seat (never sent to it, answered already, forgotten, or
    /// older than [`PING_LIFE`]).
    #[error("no such ping is waiting for this seat (answered already, too old, or not this seat's)")]
    Unknown,
}

impl LagMeter {
    /// A ping `id` was sent to the seat's stream at `now`.
    pub fn sent(&mut self, id: String, now: std::time::Instant) {
        self.pending.retain(|(_, at)| now.saturating_duration_since(*at) <= PING_LIFE);
        while self.pending.len() >= PINGS_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((id, now));
    }

    /// The answer to ping `id` arrived at `now`: one more sample. Answers the new measure.
    pub fn answered(&mut self, id: &str, now: std::time::Instant) -> Result<Duration, PongError> {
        let at = self.pending.iter().position(|(sent, _)| sent == id).ok_or(PongError::Unknown)?;
        let (_, sent) = self.pending.remove(at).ok_or(PongError::Unknown)?;
        let round_trip = now.saturating_duration_since(sent);
        if round_trip > PING_LIFE {
            return Err(PongError::Unknown);
        }
        let sample = (round_trip / 2).min(MAX_REPORTED_LAG).as_secs_f64() * 1000.0;
        let smoothed = match self.smoothed_ms {
            None => sample,
            Some(before) => before + LAG_SMOOTHING * (sample - before),
        };
        self.smoothed_ms = Some(smoothed);
        self.samples += 1;
        Ok(self.measured().unwrap_or_default())
    }

    /// The measured lag (whole milliseconds, rounded up), `None` before any answer.
    pub fn measured(&self) -> Option<Duration> {
        self.smoothed_ms.map(|ms| Duration::from_millis(ms.ceil() as u64).min(MAX_REPORTED_LAG))
    }

    /// How many pings were answered.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The lag credited to a move whose client reported `reported` (already at most
    /// [`MAX_REPORTED_LAG`]): the report bounded by the measure plus [`LAG_MARGIN`]; the measure
    /// when nothing is reported; the report as it is when nothing was measured (no stream
    /// here); nothing without either. Never more than [`MAX_REPORTED_LAG`]. The seat's lag
    /// quota then caps what is given back.
    pub fn credited(&self, reported: Option<Duration>) -> Duration {
        let credited = match (reported, self.measured()) {
            (Some(reported), Some(measured)) => reported.min(measured + LAG_MARGIN),
            (None, Some(measured)) => measured,
            (Some(reported), None) => reported,
            (None, None) => Duration::ZERO,
        };
        credited.min(MAX_REPORTED_LAG)
    }
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime.now().as_millis() as u64
}

/// What is stored with a game about its time (the `clock` column, JSON). Games stored before
/// clocks have none: they are unlimited.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// Every seat's clock and which one runs (since when, ms since the Unix epoch). The clocks
    /// start once every seat has moved once (lichess's rule): until then nothing runs.
    pub clock: Clock,
    /// When the turn of the seat to move began (the last move, or the game's creation), ms
    /// since the Unix epoch.
    pub turn_since: u64,
    /// Per seat: when a person took it (ms since the Unix epoch); `None` while an open seat or an
    /// invitation waits for its person (no first-move deadline runs for that seat then).
    pub seated: Vec<Option<u64>>,
    /// How the game ended by time or absence, if it did: `flag`, `aborted` or `claimed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<String>,
}

/// Why a game ends by itself at its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// The seat's time ran out (grace included).
    Flag(usize),
    /// The seat did not make its first move in time: the game is aborted, not scored.
    Abort(usize),
}

impl Timing {
    /// A new game's timing at `now`: stopped clocks; `seated` says which seats have their
    /// person (or computer) already.
    pub fn new(control: TimeControl, seated: &[bool], now: u64) -> Timing {
        Timing {
            clock: Clock::new(control, seated.len()),
            turn_since: now,
            seated: seated.iter().map(|&s| s.then_some(now)).collect(),
            ended_by: None,
        }
    }

    /// The control.
    pub fn control(&self) -> TimeControl {
        self.clock.control
    }

    /// Is the time limited (not `none`)?
    pub fn is_limited(&self) -> bool {
        self.clock.control.is_limited()
    }

    /// After a move at `now` by the seat to move, with `lag` (the mover's network lag, given back
    /// from its quota) and `next` to move (`None`: the game is over): charges the mover if the
    /// clocks run, or starts them when `everyone_moved` (each seat has moved once). Answers the
    /// timing after it and the move's time; [`OutOfTime`] when the mover's time ran out.
    pub fn after_move(
        &self,
        now: u64,
        lag: Duration,
        next: Option<usize>,
        everyone_moved: bool,
    ) -> Result<(Timing, MoveTime), OutOfTime> {
        let mut after = self.clone();
        let at = Duration::from_millis(now);
        let thought = now.saturating_sub(self.turn_since);
        after.turn_since = now;
        let running = self.clock.running_seat();
        let time = if let (Some(seat), true) = (running, next.is_some() && next == running) {
            // The same seat moves again (a turn of several moves, as in Mathable): its clock
            // keeps running, with no increment until its turn ends.
            if self.clock.flagged(at).is_some() {
                return Err(OutOfTime { seat });
            }
            after.turn_since = self.turn_since;
            let showing = self.clock.showing(seat, at);
            MoveTime {
                used_ms: thought,
                compensated_ms: 0,
                remaining_ms: showing.map(|s| s.time.as_millis() as u64),
                periods: showing.map_or(0, |s| s.periods),
            }
        } else if running.is_some() {
            after.clock.press(at, lag, next)?
        } else {
            // Before the clocks start (or without a clock) nothing is charged: the move's time
            // is kept for the record.
            if self.is_limited() && everyone_moved {
                if let Some(next) = next {
                    after.clock.start(next, at);
                }
            }
            MoveTime { used_ms: thought, compensated_ms: 0, remaining_ms: None, periods: 0 }
        };
        Ok((after, time))
    }

    /// After moves were taken back at `now`, with `next` to move: the running seat keeps the
    /// time it has left (what it used is not given back, nor is an increment added), and
    /// `next`'s clock runs, if every seat has still moved once (`everyone_moved`); before that
    /// the clocks stand again.
    pub fn taken_back(&self, now: u64, next: Option<usize>, everyone_moved: bool) -> Timing {
        let mut after = self.clone();
        let at = Duration::from_millis(now);
        if let Some(seat) = self.clock.running_seat() {
            if let (Some(showing), Some(clock)) = (self.clock.showing(seat, at), after.clock.seats.get_mut(seat)) {
                clock.remaining_ms = if showing.in_periods { 0 } else { showing.time.as_millis() as u64 };
                clock.periods = showing.periods;
            }
        }
        after.clock.stop();
        after.turn_since = now;
        if let (Some(next), true) = (next, everyone_moved && self.is_limited()) {
            after.clock.start(next, at);
        }
        after
    }

    /// The same timing with its clocks stopped (the game ended) and why, if by time or absence.
    pub fn ended(&self, by: Option<&str>) -> Timing {
        let mut after = self.clone();
        after.clock.stop();
        after.ended_by = by.map(str::to_string).or(after.ended_by);
        after
    }
}

/// How long a seat has for its first move before the game is aborted: 30 s in one sitting, the
/// control's days by correspondence.
pub fn first_move_time(control: &TimeControl, real_time: Duration) -> Duration {
    match *control {
        TimeControl::Correspondence { days } => DAY * days,
        _ => real_time,
    }
}

/// When the game ends by itself if nobody moves, and why: the running seat's flag, or, before
/// the clocks start, the abort of a game whose seat to move (`to_move`, a person's seat:
/// `person_to_move`) has not made its first move within [`first_move_time`] of its turn (or of
/// the last person taking their seat, if later). `None` without a clock, when the game is over
/// (`to_move` is `None`), or while a seat waits for its person (an open seat in the lobby, an
/// invitation not yet used): the game has not started for everyone.
pub fn deadline(
    timing: &Timing,
    to_move: Option<usize>,
    person_to_move: bool,
    first_move: Duration,
) -> Option<(u64, Due)> {
    let to_move = to_move?;
    if !timing.is_limited() {
        return None;
    }
    if let (Some(at), Some(seat)) = (timing.clock.flag_at(), timing.clock.running_seat()) {
        return Some((at.as_millis() as u64, Due::Flag(seat)));
    }
    if !person_to_move {
        return None;
    }
    let mut since = timing.turn_since;
    for seated in &timing.seated {
        since = since.max((*seated)?);
    }
    let allowed = first_move_time(&timing.control(), first_move).as_millis() as u64;
    Some((since + allowed, Due::Abort(to_move)))
}

/// Why a requested control was refused: the library's parser's reason, or the server's rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// The library could not read it (its reason).
    #[error("clock: {0}")]
    Unreadable(#[from] tabletop::clock::TimeControlError),
    /// A lobby game must have a clock.
    #[error("clock: a game in the lobby (an open seat) needs a clock, such as 5+3 or 3d; \"none\" is for games with friends and against the computer")]
    LobbyUnlimited,
}

/// The control a new game gets from the request's `clock` text: a lobby game (`lobby`: it has
/// an open seat) always has one ([`LOBBY_DEFAULT`] when none is asked); other games are
/// unlimited unless asked.
pub fn control_for(asked: Option<&str>, lobby: bool) -> Result<TimeControl, ControlError> {
    let control = match asked {
        Some(text) => text.parse::<TimeControl>()?,
        None if lobby => LOBBY_DEFAULT.parse::<TimeControl>()?,
        None => TimeControl::Unlimited,
    };
    if lobby && !control.is_limited() {
        return Err(ControlError::LobbyUnlimited);
    }
    Ok(control)
}

/// The clock as the page shows it at `now`: the control, its speed, every seat's time (main
/// time, or the running period's once in byo-yomi) and periods, the running seat, the server's
/// time (so the page counts down from the state's own moment), whether the clocks have started,
/// and the deadline (a flag or an abort) with its kind. `null` for games without timing.
pub fn clock_json(timing: Option<&Timing>, now: u64, due: Option<(u64, Due)>) -> Value {
    let Some(timing) = timing else { return Value::Null };
    let at = Duration::from_millis(now);
    let seats: Vec<Value> = (0..timing.clock.seats.len())
        .map(|seat| match timing.clock.showing(seat, at) {
            Some(showing) => json!({
                "ms": showing.time.as_millis() as u64,
                "periods": showing.periods,
                "in_periods": showing.in_periods,
            }),
            None => json!({"ms": null, "periods": 0, "in_periods": false}),
        })
        .collect();
    let control = timing.control();
    let (deadline, kind) = match due {
        Some((at, Due::Flag(_))) => (json!(at), json!("flag")),
        Some((at, Due::Abort(_))) => (json!(at), json!("abort")),
        None => (Value::Null, Value::Null),
    };
    json!({
        "control": control.to_string(),
        "speed": control.speed().to_string(),
        "limited": control.is_limited(),
        "increment_ms": control.increment().as_millis() as u64,
        "seats": seats,
        "running": timing.clock.running_seat(),
        "started": timing.clock.running.is_some(),
        "server_now": now,
        "deadline": deadline,
        "deadline_kind": kind,
        "ended_by": timing.ended_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lobby_games_always_have_a_clock() {
        assert_eq!(control_for(None, true).unwrap().to_string(), "5+3");
        assert_eq!(control_for(None, false).unwrap(), TimeControl::Unlimited);
        assert_eq!(control_for(Some("none"), true), Err(ControlError::LobbyUnlimited));
        assert_eq!(control_for(Some("3d"), true).unwrap().to_string(), "3d");
        for bad in ["999999+999999", "100000d", "garbage", "", "1e9+0"] {
            let error = control_for(Some(bad), false).unwrap_err();
            assert!(matches!(error, ControlError::Unreadable(_)), "{bad}: {error}");
        }
    }

    #[test]
    fn clocks_start_once_each_seat_has_moved_and_then_flag() {
        let control: TimeControl = "0:10+0".parse().unwrap();
        let first = Duration::from_secs(30);
        let timing = Timing::new(control, &[true, true], 1_000);
        // Nothing runs: the first mover has 30 s, then the game is aborted.
        assert_eq!(deadline(&timing, Some(0), true, first), Some((31_000, Due::Abort(0))));
        let (timing, time) = timing.after_move(5_000, Duration::ZERO, Some(1), false).unwrap();
        assert_eq!((time.used_ms, timing.clock.running), (4_000, None));
        assert_eq!(deadline(&timing, Some(1), true, first), Some((35_000, Due::Abort(1))));
        // A computer's first move has no deadline.
        assert_eq!(deadline(&timing, Some(1), false, first), None);
        // The second seat's first move starts the first seat's clock.
        let (timing, _) = timing.after_move(6_000, Duration::ZERO, Some(0), true).unwrap();
        assert_eq!(timing.clock.running, Some((0, 6_000)));
        let grace = timing.clock.seats[0].lag.grace().as_millis() as u64;
        assert_eq!(deadline(&timing, Some(0), true, first), Some((16_001 + grace, Due::Flag(0))));
        // Charged from now on; a move after the flag is refused.
        assert!(timing.after_move(16_002 + grace, Duration::ZERO, Some(1), true).is_err());
        let (after, time) = timing.after_move(9_000, Duration::ZERO, Some(1), true).unwrap();
        assert_eq!((time.used_ms, time.remaining_ms), (3_000, Some(7_000)));
        assert_eq!(after.clock.running, Some((1, 9_000)));
        // Over: nothing is due.
        assert_eq!(deadline(&after.ended(Some("flag")), None, true, first), None);
    }

    #[test]
    fn a_turn_of_several_moves_is_charged_once() {
        let control: TimeControl = "1+5".parse().unwrap();
        let mut timing = Timing::new(control, &[true, true], 0);
        timing.clock.start(0, Duration::from_millis(1_000));
        timing.turn_since = 1_000;
        // Seat 0 places twice, then ends its turn: one charge of 3 s, one increment.
        let (timing, _) = timing.after_move(2_000, Duration::ZERO, Some(0), true).unwrap();
        assert_eq!(timing.clock.running, Some((0, 1_000)), "still running from the turn's start");
        let (timing, _) = timing.after_move(3_000, Duration::ZERO, Some(0), true).unwrap();
        let (timing, time) = timing.after_move(4_000, Duration::ZERO, Some(1), true).unwrap();
        assert_eq!((time.used_ms, time.remaining_ms), (3_000, Some(62_000)));
        assert_eq!(timing.clock.running, Some((1, 4_000)));
    }

    #[test]
    fn a_game_waiting_for_a_person_has_no_deadline_and_unlimited_games_none() {
        let control: TimeControl = "1d".parse().unwrap();
        let timing = Timing::new(control, &[true, false], 0);
        // Nobody's first move is due while a seat waits for its person (the creator's neither).
        assert_eq!(deadline(&timing, Some(0), true, Duration::from_secs(30)), None);
        let (timing, _) = timing.after_move(10, Duration::ZERO, Some(1), false).unwrap();
        assert_eq!(deadline(&timing, Some(1), true, Duration::from_secs(30)), None);
        let mut seated = timing.clone();
        seated.seated[1] = Some(100);
        let day = DAY.as_millis() as u64;
        assert_eq!(deadline(&seated, Some(1), true, Duration::from_secs(30)), Some((100 + day, Due::Abort(1))));
        let unlimited = Timing::new(TimeControl::Unlimited, &[true, true], 0);
        assert_eq!(deadline(&unlimited, Some(0), true, Duration::from_secs(30)), None);
    }

    #[test]
    fn the_measured_lag_is_half_the_round_trip_smoothed_and_capped() {
        let start = std::time::Instant::now();
        let ms = Duration::from_millis;
        let mut meter = LagMeter::default();
        assert_eq!((meter.measured(), meter.samples()), (None, 0));
        // Nothing measured: the report stands (today's behaviour), nothing without one.
        assert_eq!(meter.credited(Some(ms(400))), ms(400));
        assert_eq!(meter.credited(None), Duration::ZERO);
        // A first answer after 200 ms: 100 ms of lag.
        meter.sent("a".into(), start);
        assert_eq!(meter.answered("a", start + ms(200)), Ok(ms(100)));
        // Answered once only; an id never sent measures nothing.
        assert_eq!(meter.answered("a", start + ms(300)), Err(PongError::Unknown));
        assert_eq!(meter.answered("zz", start + ms(300)), Err(PongError::Unknown));
        assert_eq!(meter.samples(), 1);
        // The next sample (300 ms one way) moves the measure a quarter of the way: 150 ms.
        meter.sent("b".into(), start + ms(1_000));
        assert_eq!(meter.answered("b", start + ms(1_600)), Ok(ms(150)));
        // Credited: the report bounded by the measure plus the margin (100 ms).
        assert_eq!(meter.credited(Some(ms(1_000))), ms(250));
        assert_eq!(meter.credited(Some(ms(40))), ms(40));
        assert_eq!(meter.credited(None), ms(150));
        // A very late answer counts at most 1 s; the measure never passes it.
        for n in 0..40 {
            let sent = start + Duration::from_secs(2 + n);
            meter.sent(format!("late{n}"), sent);
            assert!(meter.answered(&format!("late{n}"), sent + Duration::from_secs(20)).is_ok());
        }
        assert_eq!(meter.measured(), Some(MAX_REPORTED_LAG));
        assert_eq!(meter.credited(Some(Duration::from_secs(50))), MAX_REPORTED_LAG);
        // Older than its life: refused, measures nothing.
        meter.sent("old".into(), start);
        assert_eq!(meter.answered("old", start + PING_LIFE + ms(1)), Err(PongError::Unknown));
    }

    #[test]
    fn only_the_latest_pings_wait_for_their_answer() {
        let start = std::time::Instant::now();
        let mut meter = LagMeter::default();
        for n in 0..PINGS_PENDING + 2 {
            meter.sent(n.to_string(), start);
        }
        assert_eq!(meter.answered("0", start), Err(PongError::Unknown), "forgotten");
        assert_eq!(meter.answered("1", start), Err(PongError::Unknown), "forgotten");
        assert_eq!(meter.answered("2", start), Ok(Duration::ZERO));
        assert_eq!(meter.answered(&(PINGS_PENDING + 1).to_string(), start), Ok(Duration::ZERO));
    }

    #[test]
    fn the_page_gets_every_seats_time_and_the_running_seat() {
        let control: TimeControl = "1+0".parse().unwrap();
        let mut timing = Timing::new(control, &[true, true], 0);
        timing.clock.start(1, Duration::from_millis(1_000));
        let json = clock_json(Some(&timing), 4_000, None);
        assert_eq!(json["seats"][0]["ms"], 60_000);
        assert_eq!(json["seats"][1]["ms"], 57_000);
        assert_eq!(json["running"], 1);
        assert_eq!(json["control"], "1+0");
        assert_eq!(json["server_now"], 4_000);
        assert_eq!(clock_json(None, 0, None), Value::Null);
    }
}
