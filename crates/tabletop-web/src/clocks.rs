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
