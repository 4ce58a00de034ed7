//! Game clocks for every game: time controls, the clock of a game in play, lag compensation and
//! the engines' time management. Nothing here names a game; the front ends and the players keep
//! a [`Clock`] beside a game's record.
//!
//! - [`TimeControl`]: `none`, Fischer `BASE+INC` (`5+3`, `0:30+0.2`, `10m+5s`), byo-yomi
//!   `BASE+PERIODxN` (`10+30x5`) and correspondence `Nd` (days per move), with
//!   `FromStr`/`Display` (the same syntax on the command line, in player specs and in the API),
//!   and its [`Speed`] category.
//! - [`Clock`]: every seat's time, the running seat, pressing the clock after a move, flags.
//!   It never reads the system's time: every call is given `now` (a [`TimeSource`] reads it), so
//!   its tests are exact and a server can keep time across restarts (timestamps since the Unix
//!   epoch from [`SystemTime`]).
//! - [`LagQuota`]: network lag compensation after lichess's scheme (a per-seat quota of time that
//!   may be given back, refilled a little each move).
//! - [`think_budget`]: how long an engine may think for one move under a clock.
//!
//! ```
//! use std::time::Duration;
//! use tabletop::clock::{Clock, TimeControl};
//! let control: TimeControl = "1+2".parse().unwrap();
//! let mut clock = Clock::new(control, 2);
//! let s = Duration::from_secs;
//! clock.start(0, s(0));
//! let after = clock.press(s(10), Duration::ZERO, Some(1)).unwrap(); // 10 s used, 2 s back
//! assert_eq!(after.remaining(), Some(s(52)));
//! assert_eq!(clock.remaining(1, s(70)), Some(Duration::ZERO)); // seat 1 thought a whole minute
//! // ... and flags once its grace (its lag quota, at most 2 s) is over too.
//! assert_eq!(clock.flagged(s(72)), None);
//! assert_eq!(clock.flagged(s(72) + Duration::from_millis(1)), Some(1));
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A day, the unit of correspondence controls.
pub const DAY: Duration = Duration::from_secs(24 * 60 * 60);
/// The longest base time or byo-yomi period a control may give (a day).
pub const MAX_BASE: Duration = DAY;
/// The largest increment (ten minutes).
pub const MAX_INCREMENT: Duration = Duration::from_secs(600);
/// The most days per move of a correspondence control.
pub const MAX_DAYS: u32 = 30;
/// The most byo-yomi periods.
pub const MAX_PERIODS: u32 = 100;
/// The most a flag waits past zero for a move in flight (lichess's grace: the seat's lag quota,
/// at most this).
pub const MAX_FLAG_GRACE: Duration = Duration::from_secs(2);

/// How a game's time is limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum TimeControl {
    /// No clock.
    Unlimited,
    /// `base` for the whole game, plus `increment` after every move.
    Fischer {
        /// The time each seat starts with.
        base: Duration,
        /// The time added after each of the seat's moves.
        increment: Duration,
    },
    /// `base` for the game, then `periods` periods of `period` each: a move made within a
    /// period keeps it; a period used up is gone, and the last one used up loses.
    ByoYomi {
        /// The main time.
        base: Duration,
        /// The length of one period.
        period: Duration,
        /// How many periods.
        periods: u32,
    },
    /// `days` for every move (the clock is set again after each move).
    Correspondence {
        /// Days per move.
        days: u32,
    },
}

/// Why a time control's text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// The text has no form this module reads.
    #[error("{0:?} is not a time control: try none, 5+3 (minutes + seconds), 0:30+0.2, 10m+5s, 10+30x5 (byo-yomi) or 3d (days per move)")]
    Syntax(String),
    /// A number is out of its range.
    #[error("{0}")]
    Range(String),
}

/// The speed category of a control (lichess's, from the estimated game length
/// `base + 40 x increment`): ratings are kept per category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speed {
    /// Under 30 s estimated.
    UltraBullet,
    /// Under 3 minutes.
    Bullet,
    /// Under 8 minutes.
    Blitz,
    /// Under 25 minutes.
    Rapid,
    /// 25 minutes or more.
    Classical,
    /// Days per move.
    Correspondence,
    /// No clock.
    Unlimited,
}

impl fmt::Display for Speed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Speed::UltraBullet => "ultrabullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
            Speed::Unlimited => "unlimited",
        })
    }
}

impl TimeControl {
    /// Does a seat's time run out (not `Unlimited`)?
    pub fn is_limited(&self) -> bool {
        !matches!(self, TimeControl::Unlimited)
    }

    /// Is it played in one sitting (Fischer or byo-yomi), where lag compensation applies?
    pub fn is_real_time(&self) -> bool {
        matches!(self, TimeControl::Fischer { .. } | TimeControl::ByoYomi { .. })
    }

    /// The estimated length of a game of 40 moves a seat: `base + 40 x increment` (byo-yomi
    /// counts one period per move), `None` without a clock or by correspondence.
    pub fn estimate(&self) -> Option<Duration> {
        match *self {
            TimeControl::Fischer { base, increment } => Some(base + increment * 40),
            TimeControl::ByoYomi { base, period, .. } => Some(base + period * 40),
            TimeControl::Unlimited | TimeControl::Correspondence { .. } => None,
        }
    }

    /// Its speed category.
    ///
    /// ```
    /// use tabletop::clock::{Speed, TimeControl};
    /// let speed = |t: &str| t.parse::<TimeControl>().unwrap().speed();
    /// assert_eq!(speed("1+0"), Speed::Bullet);
    /// assert_eq!(speed("3+2"), Speed::Blitz);
    /// assert_eq!(speed("15+10"), Speed::Rapid);
    /// assert_eq!(speed("30+0"), Speed::Classical);
    /// assert_eq!(speed("2d"), Speed::Correspondence);
    /// ```
    pub fn speed(&self) -> Speed {
        match (self, self.estimate()) {
            (TimeControl::Unlimited, _) => Speed::Unlimited,
            (TimeControl::Correspondence { .. }, _) => Speed::Correspondence,
            (_, Some(e)) if e < Duration::from_secs(30) => Speed::UltraBullet,
            (_, Some(e)) if e < Duration::from_secs(180) => Speed::Bullet,
            (_, Some(e)) if e < Duration::from_secs(480) => Speed::Blitz,
            (_, Some(e)) if e < Duration::from_secs(1500) => Speed::Rapid,
            _ => Speed::Classical,
        }
    }

    /// The time each seat has when the game starts (the main time; a day count by
    /// correspondence), `None` without a clock.
    pub fn initial(&self) -> Option<Duration> {
        match *self {
            TimeControl::Unlimited => None,
            TimeControl::Fischer { base, .. } | TimeControl::ByoYomi { base, .. } => Some(base),
            TimeControl::Correspondence { days } => Some(DAY * days),
        }
    }

    /// The time given back after each move (Fischer's increment), else zero.
    pub fn increment(&self) -> Duration {
        match *self {
            TimeControl::Fischer { increment, .. } => increment,
            _ => Duration::ZERO,
        }
    }

    fn checked(self) -> Result<TimeControl, TimeControlError> {
        let range = |what: &str| Err(TimeControlError::Range(what.to_string()));
        match self {
            TimeControl::Fischer { base, increment } => {
                if base > MAX_BASE {
                    return range("the base time is at most a day");
                }
                if increment > MAX_INCREMENT {
                    return range("the increment is at most 10 minutes");
                }
                if base.is_zero() && increment.is_zero() {
                    return range("a clock of 0+0 has no time at all");
                }
            }
            TimeControl::ByoYomi { base, period, periods } => {
                if base > MAX_BASE || period > MAX_BASE {
                    return range("the base time and the period are at most a day");
                }
                if period.is_zero() || !(1..=MAX_PERIODS).contains(&periods) {
                    return range("byo-yomi needs 1 to 100 periods of more than 0 s");
                }
            }
            TimeControl::Correspondence { days } => {
                if !(1..=MAX_DAYS).contains(&days) {
                    return range("days per move are 1 to 30");
                }
            }
            TimeControl::Unlimited => {}
        }
        Ok(self)
    }
}

/// Reads a duration: a number with an optional unit (`h`, `m`, `s`, `ms`; `default_unit` when
/// there is none), or `M:SS`/`H:MM:SS` with optional decimals. Millisecond precision.
fn parse_amount(text: &str, default_unit: Duration) -> Option<Duration> {
    let text = text.trim();
    if text.contains(':') {
        let parts: Vec<&str> = text.split(':').collect();
        if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
            return None;
        }
        let (last, whole) = parts.split_last()?;
        // `M:SS` or `H:MM:SS`: the parts before the seconds count minutes.
        let mut minutes = 0u64;
        for part in whole {
            if !part.bytes().all(|b| b.is_ascii_digit()) || part.len() > 4 {
                return None;
            }
            minutes = minutes.checked_mul(60)?.checked_add(part.parse().ok()?)?;
        }
        let fraction = number_ms(last, 1000)?;
        if fraction >= 60_000 {
            return None;
        }
        return Duration::from_secs(minutes.checked_mul(60)?).checked_add(Duration::from_millis(fraction));
    }
    let units: [(&str, u64); 4] = [("ms", 1), ("h", 3_600_000), ("m", 60_000), ("s", 1000)];
    let (number, unit_ms) = units
        .iter()
        .find_map(|&(suffix, ms)| text.strip_suffix(suffix).map(|n| (n, ms)))
        .unwrap_or((text, default_unit.as_millis() as u64));
    number_ms(number, unit_ms).map(Duration::from_millis)
}

/// `number` (digits with optional decimals) times `unit_ms`, in whole milliseconds.
fn number_ms(number: &str, unit_ms: u64) -> Option<u64> {
    let number = number.trim();
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    if !whole.bytes().all(|b| b.is_ascii_digit()) || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if whole.len() > 9 || fraction.len() > 9 {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let mut ms = whole.checked_mul(unit_ms)?;
    // The fraction in the unit, to the millisecond (rounded down).
    let mut scale = unit_ms;
    for digit in fraction.bytes() {
        ms = ms.checked_add(u64::from(digit - b'0') * scale / 10)?;
        scale /= 10;
        if scale == 0 {
            break;
        }
    }
    Some(ms)
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// Reads `none`, `BASE+INC`, `BASE+PERIODxN`, `Nd` or a bare `BASE` (`5` = `5+0`). A base
    /// without a unit is in minutes, an increment or a period in seconds.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::clock::TimeControl;
    /// let s = Duration::from_secs;
    /// assert_eq!("5+3".parse(), Ok(TimeControl::Fischer { base: s(300), increment: s(3) }));
    /// assert_eq!("0:30+0.2".parse(), Ok(TimeControl::Fischer { base: s(30), increment: Duration::from_millis(200) }));
    /// assert_eq!("10m+5s".parse(), Ok(TimeControl::Fischer { base: s(600), increment: s(5) }));
    /// assert_eq!("10+30x5".parse(), Ok(TimeControl::ByoYomi { base: s(600), period: s(30), periods: 5 }));
    /// assert_eq!("3d".parse(), Ok(TimeControl::Correspondence { days: 3 }));
    /// assert!("5+".parse::<TimeControl>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let syntax = || TimeControlError::Syntax(text.to_string());
        let trimmed = text.trim().to_ascii_lowercase();
        if matches!(trimmed.as_str(), "none" | "unlimited" | "-") {
            return Ok(TimeControl::Unlimited);
        }
        if let Some(days) = trimmed.strip_suffix('d') {
            let days: u32 = days.trim().parse().map_err(|_| syntax())?;
            return TimeControl::Correspondence { days }.checked();
        }
        let (base, rest) = trimmed.split_once('+').unwrap_or((trimmed.as_str(), "0"));
        let minute = Duration::from_secs(60);
        let second = Duration::from_secs(1);
        let base = parse_amount(base, minute).ok_or_else(syntax)?;
        let control = match rest.split_once('x') {
            Some((period, periods)) => TimeControl::ByoYomi {
                base,
                period: parse_amount(period, second).ok_or_else(syntax)?,
                periods: periods.trim().parse().map_err(|_| syntax())?,
            },
            None => TimeControl::Fischer { base, increment: parse_amount(rest, second).ok_or_else(syntax)? },
        };
        control.checked()
    }
}

/// Milliseconds as seconds with the decimals needed (`0.2`, `3`, `1.25`).
fn seconds_text(ms: u128) -> String {
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A base time: whole minutes as a number (`5`), else `M:SS` with decimals (`0:30`, `1:30.5`).
fn base_text(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms.is_multiple_of(60_000) {
        return (ms / 60_000).to_string();
    }
    let seconds = seconds_text(ms % 60_000);
    let pad = if ms % 60_000 < 10_000 { "0" } else { "" };
    format!("{}:{pad}{seconds}", ms / 60_000)
}

impl fmt::Display for TimeControl {
    /// The canonical text, read back to the same control (to the millisecond).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeControl::Unlimited => f.write_str("none"),
            TimeControl::Fischer { base, increment } => {
                write!(f, "{}+{}", base_text(base), seconds_text(increment.as_millis()))
            }
            TimeControl::ByoYomi { base, period, periods } => {
                write!(f, "{}+{}x{periods}", base_text(base), seconds_text(period.as_millis()))
            }
            TimeControl::Correspondence { days } => write!(f, "{days}d"),
        }
    }
}

impl From<TimeControl> for String {
    fn from(control: TimeControl) -> String {
        control.to_string()
    }
}

impl TryFrom<String> for TimeControl {
    type Error = TimeControlError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

/// Where `now` comes from: time since a fixed epoch. A clock is always given `now`, so the
/// source is chosen by whoever drives it: [`SystemTime`] for a server (its timestamps survive a
/// restart), [`ManualTime`] in tests.
pub trait TimeSource: Send + Sync {
    /// The time now, since the source's epoch.
    fn now(&self) -> Duration;
}

/// The system's wall clock, since the Unix epoch.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemTime;

impl TimeSource for SystemTime {
    fn now(&self) -> Duration {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default()
    }
}

/// A time source that moves only when told to: exact tests.
#[derive(Debug, Default)]
pub struct ManualTime(std::sync::atomic::AtomicU64);

impl ManualTime {
    /// A source at `start`.
    pub fn new(start: Duration) -> ManualTime {
        ManualTime(std::sync::atomic::AtomicU64::new(start.as_millis() as u64))
    }
    /// Moves the time on by `by`.
    pub fn advance(&self, by: Duration) {
        self.0.fetch_add(by.as_millis() as u64, std::sync::atomic::Ordering::SeqCst);
    }
}

impl TimeSource for ManualTime {
    fn now(&self) -> Duration {
        Duration::from_millis(self.0.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// Lag compensation after lichess: each seat has a quota of time that may be given back for
/// network lag; each move gives back `min(lag, quota)`, then the quota grows by `gain` up to
/// `max`. The gain is `min(1 s, 0.4 x E + 15)` centiseconds for a game of estimated length `E`
/// seconds ([`TimeControl::estimate`]); the quota starts at 3 gains and is capped at 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagQuota {
    /// Time that may still be given back, in milliseconds.
    pub quota_ms: u64,
    /// What each move adds to it, in milliseconds.
    pub gain_ms: u64,
    /// The most it holds, in milliseconds.
    pub max_ms: u64,
}

impl LagQuota {
    /// The quota a seat starts with under `control` (empty without a real-time clock).
    ///
    /// ```
    /// use tabletop::clock::{LagQuota, TimeControl};
    /// let quota = LagQuota::new(&"1+0".parse::<TimeControl>().unwrap());
    /// assert_eq!((quota.gain_ms, quota.quota_ms, quota.max_ms), (390, 1170, 2730)); // E = 60 s
    /// let quota = LagQuota::new(&"3+2".parse::<TimeControl>().unwrap());
    /// assert_eq!(quota.gain_ms, 1000); // E = 260 s: capped at 1 s
    /// ```
    pub fn new(control: &TimeControl) -> LagQuota {
        let Some(estimate) = control.estimate() else {
            return LagQuota { quota_ms: 0, gain_ms: 0, max_ms: 0 };
        };
        // In centiseconds, as lichess computes it: 0.4 x E(s) + 15, at most 100.
        let centis = (estimate.as_millis() as u64 * 4 / 10_000 + 15).min(100);
        let gain_ms = centis * 10;
        LagQuota { quota_ms: gain_ms * 3, gain_ms, max_ms: gain_ms * 7 }
    }

    /// Gives back what it can of `lag` and refills: the time given back.
    pub fn compensate(&mut self, lag: Duration) -> Duration {
        let given = (lag.as_millis() as u64).min(self.quota_ms);
        self.quota_ms = (self.quota_ms - given + self.gain_ms).min(self.max_ms);
        Duration::from_millis(given)
    }

    /// How long a flag waits past zero for this seat: its quota, at most [`MAX_FLAG_GRACE`].
    pub fn grace(&self) -> Duration {
        Duration::from_millis(self.quota_ms).min(MAX_FLAG_GRACE)
    }
}

/// One seat's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatClock {
    /// Main time left (by correspondence: the time for the current move), in milliseconds.
    pub remaining_ms: u64,
    /// Byo-yomi periods left.
    pub periods: u32,
    /// The lag quota.
    pub lag: LagQuota,
}

/// What a seat's clock shows at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Showing {
    /// Main time left, or the running period's time once the main time is gone.
    pub time: Duration,
    /// Byo-yomi periods left (0 otherwise).
    pub periods: u32,
    /// Is the seat in its byo-yomi periods?
    pub in_periods: bool,
}

/// A move's time, as [`Clock::press`] records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveTime {
    /// The time the move took, after lag compensation, in milliseconds.
    pub used_ms: u64,
    /// The lag given back, in milliseconds.
    pub compensated_ms: u64,
    /// The mover's main time after the move (increment added), `None` without a clock.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub remaining_ms: Option<u64>,
    /// Byo-yomi periods left after the move.
    #[serde(skip_serializing_if = "is_zero", default)]
    pub periods: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl MoveTime {
    /// The mover's time after the move as a duration.
    pub fn remaining(&self) -> Option<Duration> {
        self.remaining_ms.map(Duration::from_millis)
    }
}

/// A seat ran out of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("seat {seat} ran out of time")]
pub struct OutOfTime {
    /// The seat.
    pub seat: usize,
}

/// The clocks of one game: every seat's time and which one runs. Serializable, so a server
/// stores it with each move and rebuilds it after a restart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// The time control.
    pub control: TimeControl,
    /// Each seat's clock.
    pub seats: Vec<SeatClock>,
    /// The seat whose time runs and since when (ms since the time source's epoch).
    pub running: Option<(usize, u64)>,
}

impl Clock {
    /// Stopped clocks for `seats` seats, each with the control's initial time.
    pub fn new(control: TimeControl, seats: usize) -> Clock {
        let periods = match control {
            TimeControl::ByoYomi { periods, .. } => periods,
            _ => 0,
        };
        let remaining_ms = control.initial().map_or(0, |d| d.as_millis() as u64);
        let seat = SeatClock { remaining_ms, periods, lag: LagQuota::new(&control) };
        Clock { control, seats: vec![seat; seats], running: None }
    }

    /// Starts `seat`'s time at `now` (stopping any other).
    pub fn start(&mut self, seat: usize, now: Duration) {
        if seat < self.seats.len() {
            self.running = Some((seat, now.as_millis() as u64));
        }
    }

    /// Stops the clocks, charging nothing (a game over, or paused by agreement).
    pub fn stop(&mut self) {
        self.running = None;
    }

    /// The seat whose time runs.
    pub fn running_seat(&self) -> Option<usize> {
        self.running.map(|(seat, _)| seat)
    }

    /// How long the running seat has been thinking at `now` (a `now` before the start counts
    /// as no time: clocks of two processes may differ slightly).
    fn elapsed(&self, now: Duration) -> Duration {
        self.running.map_or(Duration::ZERO, |(_, since)| now.saturating_sub(Duration::from_millis(since)))
    }

    /// What `seat`'s clock shows at `now`, `None` without a clock or for no such seat.
    pub fn showing(&self, seat: usize, now: Duration) -> Option<Showing> {
        let clock = self.seats.get(seat)?;
        if !self.control.is_limited() {
            return None;
        }
        let elapsed = if self.running_seat() == Some(seat) { self.elapsed(now) } else { Duration::ZERO };
        Some(self.after(clock, elapsed).map_or(
            Showing { time: Duration::ZERO, periods: 0, in_periods: clock.periods > 0 },
            |(time, periods, in_periods)| Showing { time, periods, in_periods },
        ))
    }

    /// The main time (or running period) left to `seat` at `now`; `None` without a clock.
    pub fn remaining(&self, seat: usize, now: Duration) -> Option<Duration> {
        self.showing(seat, now).map(|s| s.time)
    }

    /// A seat's clock after thinking `elapsed`: the time shown, the periods left and whether
    /// it is in its periods; `None` when that much time runs it out.
    fn after(&self, clock: &SeatClock, elapsed: Duration) -> Option<(Duration, u32, bool)> {
        let main = Duration::from_millis(clock.remaining_ms);
        if elapsed <= main {
            let in_periods = main.is_zero() && clock.periods > 0;
            return match self.control {
                TimeControl::ByoYomi { period, .. } if in_periods => Some((period, clock.periods, true)),
                _ => Some((main - elapsed, clock.periods, false)),
            };
        }
        let TimeControl::ByoYomi { period, .. } = self.control else { return None };
        // Past the main time: each whole period over is used up; the one running is shown.
        let over = (elapsed - main).as_millis();
        let period_ms = period.as_millis().max(1);
        // A move at the very end of a period still keeps it.
        let used = (over - 1) / period_ms;
        let left = u128::from(clock.periods).checked_sub(used).filter(|&l| l > 0)?;
        let in_period = Duration::from_millis((period_ms * (used + 1) - over) as u64);
        Some((in_period, left as u32, true))
    }

    /// The running seat, if its time is out at `now` beyond its grace (its lag quota, at most
    /// [`MAX_FLAG_GRACE`]): the seat that loses on time.
    pub fn flagged(&self, now: Duration) -> Option<usize> {
        let (seat, _) = self.running?;
        if !self.control.is_limited() {
            return None;
        }
        let clock = &self.seats[seat];
        let elapsed = self.elapsed(now).saturating_sub(clock.lag.grace());
        self.after(clock, elapsed).is_none().then_some(seat)
    }

    /// When the running seat flags (grace included): the instant a server's timer waits for,
    /// `None` when nothing runs or without a clock.
    pub fn flag_at(&self) -> Option<Duration> {
        let (seat, since) = self.running?;
        let clock = &self.seats[seat];
        let mut budget = Duration::from_millis(clock.remaining_ms);
        if let TimeControl::ByoYomi { period, .. } = self.control {
            budget += period * clock.periods;
        }
        self.control
            .is_limited()
            .then(|| Duration::from_millis(since) + budget + clock.lag.grace() + Duration::from_millis(1))
    }

    /// The running seat moved at `now`, its move having spent `lag` in the network (given back
    /// from its quota in real-time controls): charges its time, adds the increment (or keeps
    /// its period, or sets a new day count), and starts `next`'s time. Refused when the mover's
    /// time ran out (after compensation); nothing changes then.
    pub fn press(&mut self, now: Duration, lag: Duration, next: Option<usize>) -> Result<MoveTime, OutOfTime> {
        let Some((seat, _)) = self.running else {
            // Nobody's time ran (an unlimited game, or before the clocks started): nothing to charge.
            if let Some(next) = next {
                self.start(next, now);
            }
            return Ok(MoveTime { used_ms: 0, compensated_ms: 0, remaining_ms: None, periods: 0 });
        };
        let elapsed = self.elapsed(now);
        let mut clock = self.seats[seat];
        let compensated = if self.control.is_real_time() { clock.lag.compensate(lag) } else { Duration::ZERO };
        let used = elapsed.saturating_sub(compensated);
        let remaining = match self.control {
            TimeControl::Unlimited => None,
            TimeControl::Correspondence { days } => {
                self.after(&clock, used).ok_or(OutOfTime { seat })?;
                Some(DAY * days)
            }
            TimeControl::Fischer { increment, .. } => {
                let (left, _, _) = self.after(&clock, used).ok_or(OutOfTime { seat })?;
                Some(left + increment)
            }
            TimeControl::ByoYomi { .. } => {
                let (left, periods, in_periods) = self.after(&clock, used).ok_or(OutOfTime { seat })?;
                clock.periods = periods;
                Some(if in_periods { Duration::ZERO } else { left })
            }
        };
        clock.remaining_ms = remaining.map_or(0, |d| d.as_millis() as u64);
        self.seats[seat] = clock;
        self.running = None;
        if let Some(next) = next {
            self.start(next, now);
        }
        Ok(MoveTime {
            used_ms: used.as_millis() as u64,
            compensated_ms: compensated.as_millis() as u64,
            remaining_ms: remaining.map(|d| d.as_millis() as u64),
            periods: clock.periods,
        })
    }
}

/// How long an engine may think for one move: a share of the time left spread over the moves
/// it expects to make (`moves_left`, the game's estimate), plus most of the increment, never
/// more than it can afford (a safety margin kept for the answer to travel). In periods, most of
/// one period. `None` without a clock (the engine's own default budget applies).
///
/// ```
/// use std::time::Duration;
/// use tabletop::clock::{think_budget, TimeControl};
/// let control: TimeControl = "1+0".parse().unwrap();
/// let budget = think_budget(&control, Duration::from_secs(60), 0, 30).unwrap();
/// assert!(budget >= Duration::from_millis(1500) && budget <= Duration::from_secs(3));
/// // Almost out of time: a small part of what is left.
/// let budget = think_budget(&control, Duration::from_millis(200), 0, 30).unwrap();
/// assert!(budget < Duration::from_millis(100));
/// ```
pub fn think_budget(control: &TimeControl, remaining: Duration, periods: u32, moves_left: u32) -> Option<Duration> {
    let moves = moves_left.max(1) + 2;
    // Kept back for the answer to reach the referee and for the process to be scheduled.
    let margin = (remaining / 10).min(Duration::from_millis(300)).max(remaining.min(Duration::from_millis(20)));
    let usable = remaining.saturating_sub(margin);
    let budget = match *control {
        TimeControl::Unlimited => return None,
        TimeControl::Fischer { increment, .. } => usable / moves + increment * 3 / 4,
        TimeControl::ByoYomi { period, .. } => {
            let in_periods = remaining.is_zero() && periods > 0;
            if in_periods {
                let period_margin = (period / 10).min(Duration::from_millis(300));
                return Some(period.saturating_sub(period_margin) * 3 / 4);
            }
            usable / moves + if periods > 0 { period / 2 } else { Duration::ZERO }
        }
        TimeControl::Correspondence { .. } => (usable / moves).min(Duration::from_secs(60)),
    };
    // Never more than half of what is usable now: one long think must not lose the game.
    Some(budget.min(usable / 2).max(Duration::from_millis(1)).min(usable.max(Duration::from_millis(1))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(seconds: u64) -> Duration {
        Duration::from_secs(seconds)
    }

    fn ms(millis: u64) -> Duration {
        Duration::from_millis(millis)
    }

    #[test]
    fn controls_read_and_print_back_the_same() {
        for (text, canonical) in [
            ("5+3", "5+3"),
            ("10m+5s", "10+5"),
            ("0:30+0.2", "0:30+0.2"),
            ("90s+0", "1:30+0"),
            ("1h+30", "60+30"),
            ("15+10", "15+10"),
            ("5", "5+0"),
            ("0.5+1", "0:30+1"),
            ("10+30x5", "10+30x5"),
            ("0+1.5x3", "0+1.5x3"),
            ("3d", "3d"),
            ("NONE", "none"),
            ("unlimited", "none"),
            ("0:05.5+0.125", "0:05.5+0.125"),
            ("1:02:03+0", "62:03+0"),
        ] {
            let control: TimeControl = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(control.to_string(), canonical, "{text}");
            assert_eq!(canonical.parse::<TimeControl>(), Ok(control), "{canonical}");
            let json = serde_json::to_string(&control).unwrap();
            assert_eq!(serde_json::from_str::<TimeControl>(&json).unwrap(), control);
        }
    }

    #[test]
    fn bad_controls_say_why() {
        for bad in ["", "+", "5+", "+3", "x", "5+3+1", "abc", "5+-3", "0+0", "0d", "31d", "-1d", "1e9+0", "25h+0"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad:?} was read");
        }
        for bad in ["10+30x0", "10+0x5", "10+30x101", "5+601", "2:60+0", "1:2:3:4+0", "99999999999999+0"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad:?} was read");
        }
        let error = "5+3s3".parse::<TimeControl>().unwrap_err();
        assert!(error.to_string().contains("not a time control"), "{error}");
    }

    #[test]
    fn fischer_charges_the_thinking_and_adds_the_increment() {
        let mut clock = Clock::new("1+2".parse().unwrap(), 2);
        assert_eq!(clock.remaining(0, s(0)), Some(s(60)));
        clock.start(0, s(100));
        assert_eq!(clock.remaining(0, s(103)), Some(s(57)));
        assert_eq!(clock.remaining(1, s(103)), Some(s(60)), "the other clock stands");
        let time = clock.press(s(110), Duration::ZERO, Some(1)).unwrap();
        assert_eq!((time.used_ms, time.remaining()), (10_000, Some(s(52))));
        assert_eq!(clock.running_seat(), Some(1));
        let time = clock.press(s(111) + ms(500), Duration::ZERO, Some(0)).unwrap();
        assert_eq!(time.remaining(), Some(s(60) + ms(500)));
        // Seat 0 has 52 s: at 52 s it may still move, after it (and its grace) it has flagged.
        assert_eq!(clock.flagged(s(111) + ms(500) + s(52)), None);
        let grace = clock.seats[0].lag.grace();
        // 1+2: E = 140 s, a gain of 71 cs, a quota of 2.13 s then 2.84 s: the grace is capped at 2 s.
        assert_eq!(grace, s(2));
        assert_eq!(clock.flagged(s(163) + ms(500) + grace), None);
        assert_eq!(clock.flagged(s(163) + ms(501) + grace), Some(0));
        assert_eq!(clock.flag_at(), Some(s(163) + ms(501) + grace));
        let before = clock.clone();
        assert_eq!(clock.press(s(170), Duration::ZERO, Some(1)), Err(OutOfTime { seat: 0 }));
        assert_eq!(clock, before, "a refused press changes nothing");
    }

    #[test]
    fn lag_is_given_back_from_the_quota_only() {
        // 1+0: E = 60 s, gain 0.4 x 60 + 15 = 39 cs, start 3x = 1.17 s, cap 7x = 2.73 s.
        let control: TimeControl = "1+0".parse().unwrap();
        let mut clock = Clock::new(control, 2);
        clock.start(0, s(0));
        let time = clock.press(s(5), ms(800), Some(1)).unwrap();
        assert_eq!((time.compensated_ms, time.used_ms), (800, 4200));
        assert_eq!(clock.seats[0].lag.quota_ms, 1170 - 800 + 390);
        clock.press(s(6), Duration::ZERO, Some(0)).unwrap();
        // Asking for more than the quota gets the quota.
        let time = clock.press(s(16), s(5), Some(1)).unwrap();
        assert_eq!(time.compensated_ms, 760);
        assert_eq!(clock.seats[0].lag.quota_ms, 390);
        // No lag for many moves: the quota refills to its cap, 7 gains.
        let mut quota = LagQuota::new(&control);
        for _ in 0..10 {
            quota.compensate(Duration::ZERO);
        }
        assert_eq!(quota.quota_ms, 2730);
        // 15+10: E = 900 + 400 = 1300 s, 0.4 x 1300 + 15 = 535 cs, capped at 100 cs.
        assert_eq!(LagQuota::new(&"15+10".parse().unwrap()).gain_ms, 1000);
        // 0:15+0: E = 15 s, 6 + 15 = 21 cs.
        assert_eq!(LagQuota::new(&"0:15+0".parse().unwrap()).gain_ms, 210);
        // No compensation by correspondence.
        let mut clock = Clock::new("1d".parse().unwrap(), 2);
        clock.start(0, s(0));
        assert_eq!(clock.press(s(10), s(1), Some(1)).unwrap().compensated_ms, 0);
    }

    #[test]
    fn byo_yomi_uses_periods_only_when_a_move_overruns_one() {
        // 1 minute, then 3 periods of 10 s.
        let mut clock = Clock::new("1+10x3".parse().unwrap(), 2);
        let grace = clock.seats[0].lag.grace();
        clock.start(0, s(0));
        let time = clock.press(s(65), Duration::ZERO, Some(1)).unwrap();
        // 60 s main + 5 s into the first period: the period is kept.
        assert_eq!((time.remaining(), time.periods), (Some(Duration::ZERO), 3));
        clock.press(s(66), Duration::ZERO, Some(0)).unwrap();
        let showing = clock.showing(0, s(66) + s(4)).unwrap();
        assert_eq!((showing.time, showing.periods, showing.in_periods), (s(6), 3, true));
        // 25 s: two periods used up, the third running.
        let showing = clock.showing(0, s(66) + s(25)).unwrap();
        assert_eq!((showing.time, showing.periods), (s(5), 1));
        let time = clock.press(s(66) + s(25), Duration::ZERO, Some(1)).unwrap();
        assert_eq!(time.periods, 1);
        clock.press(s(100), Duration::ZERO, Some(0)).unwrap();
        assert_eq!(clock.flagged(s(110) + grace), None);
        assert_eq!(clock.flagged(s(110) + grace + ms(1)), Some(0));
        assert_eq!(clock.flag_at(), Some(s(110) + grace + ms(1)));
    }

    #[test]
    fn correspondence_sets_the_days_again_after_each_move() {
        let mut clock = Clock::new("2d".parse().unwrap(), 2);
        clock.start(0, s(0));
        assert_eq!(clock.remaining(0, DAY), Some(DAY));
        let time = clock.press(DAY + s(1), Duration::ZERO, Some(1)).unwrap();
        assert_eq!(time.remaining(), Some(DAY * 2));
        assert_eq!(clock.flagged(DAY + s(1) + DAY * 2), None);
        assert_eq!(clock.flagged(DAY + s(1) + DAY * 2 + ms(1)), Some(1));
    }

    #[test]
    fn an_unlimited_game_never_flags() {
        let mut clock = Clock::new(TimeControl::Unlimited, 2);
        clock.start(0, s(0));
        assert_eq!(clock.remaining(0, DAY * 100), None);
        assert_eq!(clock.flagged(DAY * 100), None);
        assert_eq!(clock.flag_at(), None);
        assert!(clock.press(DAY * 100, Duration::ZERO, Some(1)).is_ok());
    }

    #[test]
    fn a_clock_survives_a_round_trip_through_json() {
        let mut clock = Clock::new("3+2".parse().unwrap(), 2);
        clock.start(0, s(1_700_000_000));
        clock.press(s(1_700_000_004), ms(50), Some(1)).unwrap();
        let json = serde_json::to_string(&clock).unwrap();
        assert_eq!(serde_json::from_str::<Clock>(&json).unwrap(), clock);
    }

    #[test]
    fn a_manual_time_source_drives_a_clock_exactly() {
        let time = ManualTime::new(s(10));
        let mut clock = Clock::new("0:10+0".parse().unwrap(), 2);
        clock.start(1, time.now());
        time.advance(ms(9_999));
        assert_eq!(clock.remaining(1, time.now()), Some(ms(1)));
        time.advance(ms(1));
        assert_eq!(clock.press(time.now(), Duration::ZERO, Some(0)).unwrap().remaining(), Some(Duration::ZERO));
    }

    #[test]
    fn think_budgets_never_spend_what_the_clock_lacks() {
        for control in ["0:15+0", "1+0", "3+2", "10+0.1", "0:10+0.1", "1+5x3", "1d"] {
            let control: TimeControl = control.parse().unwrap();
            for remaining_ms in [0u64, 1, 30, 100, 1_000, 10_000, 60_000, 600_000] {
                for moves_left in [0, 1, 10, 60] {
                    let remaining = ms(remaining_ms);
                    let budget = think_budget(&control, remaining, 0, moves_left).unwrap();
                    if remaining_ms >= 20 {
                        assert!(budget <= remaining / 2 + ms(1), "{control} {remaining_ms} {moves_left}: {budget:?}");
                    }
                }
            }
        }
        // Byo-yomi in its periods thinks most of one period.
        let control: TimeControl = "0+10x3".parse().unwrap();
        let budget = think_budget(&control, Duration::ZERO, 3, 30).unwrap();
        assert!(budget > s(6) && budget < s(9), "{budget:?}");
        assert_eq!(think_budget(&TimeControl::Unlimited, s(1), 0, 1), None);
    }

    #[test]
    fn speeds_follow_the_estimated_length() {
        let speed = |t: &str| t.parse::<TimeControl>().unwrap().speed();
        assert_eq!(speed("0:15+0"), Speed::UltraBullet);
        assert_eq!(speed("2+1"), Speed::Bullet); // 120 + 40 = 160 s
        assert_eq!(speed("3+0"), Speed::Blitz);
        assert_eq!(speed("5+0"), Speed::Blitz);
        assert_eq!(speed("10+0"), Speed::Rapid);
        assert_eq!(speed("none"), Speed::Unlimited);
    }
}
