//! A game being played: the positions so far, undo, and draw by repetition; the saved-game
//! text every game writes unless it has its own format, with the clocks ([`ClockLog`]) of a
//! timed game.

use std::fmt::Write as _;
use std::time::Duration;

use crate::clock::{MoveTime, TimeControl};
use crate::game::{Game, Outcome, Status};

/// Why the game recorded in a [`Record`] ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The rules ended the game (a line, no legal move, a full board); the text says which.
    Rules(String),
    /// The same position with the same side to move occurred too often.
    Repetition,
}

/// Why [`Record::play`] refused a move.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RecordError<E: std::error::Error + 'static> {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// The rules refuse the move.
    #[error(transparent)]
    Illegal(E),
}

/// The history of one game: every position from the start, so undo is exact and repetition is
/// counted. The last position is the current one.
#[derive(Clone, Debug)]
pub struct Record<G: Game> {
    positions: Vec<G>,
    moves: Vec<G::Move>,
}

impl<G: Game> Record<G> {
    /// A record starting at `start`.
    pub fn new(start: G) -> Self {
        Record { positions: vec![start], moves: Vec::new() }
    }

    /// The current position.
    pub fn current(&self) -> &G {
        self.positions.last().expect("a record always holds its start position")
    }

    /// The starting position.
    pub fn start(&self) -> &G {
        &self.positions[0]
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[G::Move] {
        &self.moves
    }

    /// Every position so far, the start first and the current one last.
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// How often the current position (same hash and equal) has occurred, this time included.
    pub fn occurrences(&self) -> usize {
        let now = self.current();
        let hash = now.hash();
        self.positions.iter().filter(|p| p.hash() == hash && *p == now).count()
    }

    /// The status of the game, draw by repetition included.
    pub fn status(&self) -> Status {
        let status = self.current().status();
        if let (Status::ToMove(_), Some(limit)) = (status, G::repetition_limit()) {
            if self.occurrences() >= limit {
                return Status::Over(Outcome::Draw);
            }
        }
        status
    }

    /// Why the game ended, or `None` while it goes on.
    pub fn end_reason(&self) -> Option<EndReason> {
        match (self.current().status(), self.status()) {
            (Status::ToMove(_), Status::Over(_)) => Some(EndReason::Repetition),
            (Status::Over(_), _) => {
                Some(EndReason::Rules(self.current().end_reason().unwrap_or_else(|| "game over".to_string())))
            }
            _ => None,
        }
    }

    /// Plays a checked move. Fails if it is illegal or the game is over (repetition included).
    pub fn play(&mut self, mv: G::Move) -> Result<(), RecordError<G::MoveError>> {
        if let Status::Over(_) = self.status() {
            return Err(RecordError::GameOver);
        }
        let mut next = self.current().clone();
        next.play(mv).map_err(RecordError::Illegal)?;
        self.positions.push(next);
        self.moves.push(mv);
        Ok(())
    }

    /// Takes back the last move; returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<G::Move> {
        if self.moves.is_empty() {
            return None;
        }
        self.positions.pop();
        self.moves.pop()
    }

    /// Takes back moves until `stop` holds for the position reached (at least one move), as
    /// when a person takes back their last move and the computer's replies with it. Returns the
    /// moves taken back, last first; when no earlier position satisfies `stop`, nothing changes
    /// and the list is empty.
    ///
    /// ```
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::{Game, Record};
    /// let mut record = Record::new(Connect::new(ConnectVariant::connect4()));
    /// for col in ["4", "4", "3"] {
    ///     record.play(record.current().parse_move(col).unwrap()).unwrap();
    /// }
    /// // O is to move; back to the previous position with O to move: two moves back.
    /// let o_to_move = |p: &Connect| p.moves_played() % 2 == 1;
    /// assert_eq!(record.undo_until(o_to_move).len(), 2);
    /// assert_eq!(record.moves().len(), 1);
    /// assert!(record.undo_until(|p: &Connect| p.moves_played() == 5).is_empty());
    /// assert_eq!(record.moves().len(), 1);
    /// ```
    pub fn undo_until(&mut self, mut stop: impl FnMut(&G) -> bool) -> Vec<G::Move> {
        let Some(back) = (0..self.moves.len()).rev().find(|&i| stop(&self.positions[i])) else {
            return Vec::new();
        };
        self.positions.truncate(back + 1);
        self.moves.split_off(back).into_iter().rev().collect()
    }

    /// Hashes of the positions before the current one, for search's repetition detection.
    pub fn earlier_hashes(&self) -> Vec<u64> {
        let n = self.positions.len();
        self.positions[..n - 1].iter().map(|p| p.hash()).collect()
    }
}

/// Why [`Record::from_text`] could not read a saved game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordTextError {
    /// The first line is not `tabletop GAME` for this game.
    #[error("not a saved {0} game")]
    OtherGame(&'static str),
    /// A line that is neither `position ...` nor `moves ...` (its number, from 1).
    #[error("line {0}: expected `position ...` or `moves ...`")]
    Line(usize),
    /// No `position` line.
    #[error("no position line")]
    NoPosition,
    /// The position is not valid.
    #[error("{0}")]
    Position(String),
    /// A move that cannot be read or played (its number from 1, the text and why).
    #[error("move {0} ({1}): {2}")]
    Move(usize, String, String),
    /// A `clock` or `times` line that cannot be read (its number, from 1, and why).
    #[error("line {0}: {1}")]
    Clock(usize, String),
}

/// The clocks of a saved game: each seat's time control and every move's time with its
/// mover's clock after it (`None` for moves no clock timed, such as a match's opening).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClockLog {
    /// Each seat's control, in seat order (one for all seats when they share it).
    pub controls: Vec<TimeControl>,
    /// Every move's time, in the record's order.
    pub moves: Vec<Option<MoveTime>>,
}

impl ClockLog {
    /// The `clock ...` and `times ...` lines (none for an untimed game): each move's time as
    /// `USED/LEFT` in seconds (`LEFT` the mover's main time after it, and `xN` its byo-yomi
    /// periods), `-` for a move without.
    fn lines(&self) -> String {
        if self.controls.iter().all(|c| !c.is_limited()) {
            return String::new();
        }
        let controls: Vec<String> = self.controls.iter().map(TimeControl::to_string).collect();
        let mut text = format!("clock {}\ntimes", controls.join(" "));
        for mv in &self.moves {
            match mv {
                None => text.push_str(" -"),
                Some(t) => {
                    let _ = write!(text, " {}", seconds(t.used_ms));
                    if let Some(left) = t.remaining_ms {
                        let _ = write!(text, "/{}", seconds(left));
                    }
                    if t.periods > 0 {
                        let _ = write!(text, "x{}", t.periods);
                    }
                }
            }
        }
        text.push('\n');
        text
    }

    /// Reads one move's time as [`ClockLog::lines`] writes it.
    fn read_move(word: &str) -> Option<Option<MoveTime>> {
        if word == "-" {
            return Some(None);
        }
        let (time, periods) = match word.split_once('x') {
            Some((time, periods)) => (time, periods.parse().ok()?),
            None => (word, 0),
        };
        let (used, left) = match time.split_once('/') {
            Some((used, left)) => (used, Some(millis(left)?)),
            None => (time, None),
        };
        Some(Some(MoveTime { used_ms: millis(used)?, compensated_ms: 0, remaining_ms: left, periods }))
    }

    /// The time move `index` took, if a clock timed it.
    pub fn used(&self, index: usize) -> Option<Duration> {
        self.moves.get(index).copied().flatten().map(|t| Duration::from_millis(t.used_ms))
    }
}

/// Milliseconds as seconds with up to three decimals (`1.5`, `12`, `0.025`).
fn seconds(ms: u64) -> String {
    let text = format!("{}.{:03}", ms / 1000, ms % 1000);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Seconds with up to three decimals as milliseconds (at most a year: what a clock can show).
fn millis(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || fraction.len() > 3 || !(whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit())) {
        return None;
    }
    let whole: u64 = whole.parse().ok().filter(|&w| w <= 366 * 24 * 3600)?;
    let fraction: u64 = format!("{fraction:0<3}").parse().ok()?;
    Some(whole * 1000 + fraction)
}

impl<G: Game> Record<G> {
    /// The game as text, the format every game saves in unless it has its own: `tabletop
    /// GAME`, then `position` and the start's notation, then `moves` and the moves.
    ///
    /// ```
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::{Game, Record};
    /// let v = ConnectVariant::connect4();
    /// let mut record = Record::new(Connect::new(v));
    /// for col in ["4", "4", "3"] {
    ///     record.play(record.current().parse_move(col).unwrap()).unwrap();
    /// }
    /// let text = record.to_text();
    /// assert_eq!(text, "tabletop connect\nposition \nmoves 4 4 3\n");
    /// let back = Record::<Connect>::from_text(&v, &text).unwrap();
    /// assert_eq!(back.current(), record.current());
    /// assert!(Record::<Connect>::from_text(&v, "tabletop reversi\n").is_err());
    /// ```
    pub fn to_text(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        format!("tabletop {}\nposition {}\nmoves {}\n", G::NAME, self.start().notation(), moves.join(" "))
    }

    /// [`Record::to_text`] with the game's clocks and how it ended: `clock CONTROL...` and
    /// `times USED/LEFT ...` (see [`ClockLog`]) when a clock ran, then `result WINNERS REASON`
    /// (`result 2 seat 1 ran out of time`, `result draw ...`; seats from 1).
    ///
    /// ```
    /// use tabletop::clock::MoveTime;
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::record::ClockLog;
    /// use tabletop::{Game, Outcome, Record, Seat};
    /// let v = ConnectVariant::connect4();
    /// let mut record = Record::new(Connect::new(v));
    /// record.play(record.current().parse_move("4").unwrap()).unwrap();
    /// let used = MoveTime { used_ms: 1500, compensated_ms: 0, remaining_ms: Some(58_600), periods: 0 };
    /// let log = ClockLog { controls: vec!["1+0.1".parse().unwrap()], moves: vec![Some(used)] };
    /// let text = record.to_text_timed(&log, Some((Outcome::Win(Seat(0)), "seat 2 ran out of time")));
    /// assert_eq!(text, "tabletop connect\nposition \nmoves 4\nclock 1+0.1\ntimes 1.5/58.6\nresult 1 seat 2 ran out of time\n");
    /// let (back, clocks) = Record::<Connect>::from_text_timed(&v, &text).unwrap();
    /// assert_eq!((back.moves(), clocks), (record.moves(), Some(log)));
    /// ```
    pub fn to_text_timed(&self, clocks: &ClockLog, result: Option<(Outcome, &str)>) -> String {
        let mut text = self.to_text();
        text.push_str(&clocks.lines());
        if let Some((outcome, reason)) = result {
            let winners = match outcome {
                Outcome::Draw => "draw".to_string(),
                Outcome::Win(seat) => (seat.index() + 1).to_string(),
                Outcome::SharedWin(set) => {
                    set.seats().map(|s| (s.index() + 1).to_string()).collect::<Vec<_>>().join(",")
                }
            };
            let _ = writeln!(text, "result {winners} {}", reason.replace(['\n', '\r'], " ").trim());
        }
        text
    }

    /// Reads a game written by [`Record::to_text`] or [`Record::to_text_timed`], on a board of
    /// `variant` (a `result` line and `#` comments are skipped).
    pub fn from_text(variant: &G::Variant, text: &str) -> Result<Self, RecordTextError> {
        Self::from_text_timed(variant, text).map(|(record, _)| record)
    }

    /// [`Record::from_text`], with the game's clocks when it has `clock` and `times` lines.
    pub fn from_text_timed(variant: &G::Variant, text: &str) -> Result<(Self, Option<ClockLog>), RecordTextError> {
        let mut lines = text.lines();
        if lines.next().map(str::trim) != Some(&format!("tabletop {}", G::NAME)) {
            return Err(RecordTextError::OtherGame(G::NAME));
        }
        let (mut start, mut moves, mut clocks) = (None, "", None::<ClockLog>);
        let mut times: Option<(usize, &str)> = None;
        for (i, line) in lines.enumerate() {
            let number = i + 2;
            match line.split_once(' ').unwrap_or((line, "")) {
                ("position", p) => {
                    start = Some(
                        G::from_notation(variant, p.trim()).map_err(|e| RecordTextError::Position(e.to_string()))?,
                    )
                }
                ("moves", m) => moves = m,
                ("clock", c) => {
                    let controls = c.split_whitespace().map(str::parse::<TimeControl>).collect::<Result<Vec<_>, _>>();
                    let controls = controls.map_err(|e| RecordTextError::Clock(number, e.to_string()))?;
                    clocks = Some(ClockLog { controls, moves: Vec::new() });
                }
                ("times", t) => times = Some((number, t)),
                ("result", _) | ("", _) => {}
                (word, _) if word.starts_with('#') => {}
                _ => return Err(RecordTextError::Line(number)),
            }
        }
        let mut record = Record::new(start.ok_or(RecordTextError::NoPosition)?);
        for (i, text) in moves.split_whitespace().enumerate() {
            let bad = |e: &dyn std::fmt::Display| RecordTextError::Move(i + 1, text.to_string(), e.to_string());
            let mv = record.current().parse_move(text).map_err(|e| bad(&e))?;
            record.play(mv).map_err(|e| bad(&e))?;
        }
        if let (Some(log), Some((number, words))) = (clocks.as_mut(), times) {
            for word in words.split_whitespace() {
                let time = ClockLog::read_move(word)
                    .ok_or_else(|| RecordTextError::Clock(number, format!("{word:?} is not a move's time")))?;
                log.moves.push(time);
            }
            if log.moves.len() != record.moves().len() {
                let (times, moves) = (log.moves.len(), record.moves().len());
                return Err(RecordTextError::Clock(number, format!("{times} times for {moves} moves")));
            }
        }
        Ok((record, clocks))
    }
}
