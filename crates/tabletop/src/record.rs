//! A game being played: the positions so far, undo, and draw by repetition.

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

    /// Reads a game written by [`Record::to_text`], on a board of `variant` (lines after the
    /// first that start with `#` are comments, e.g. a tournament's notes on the game).
    pub fn from_text(variant: &G::Variant, text: &str) -> Result<Self, RecordTextError> {
        let mut lines = text.lines();
        if lines.next().map(str::trim) != Some(&format!("tabletop {}", G::NAME)) {
            return Err(RecordTextError::OtherGame(G::NAME));
        }
        let (mut start, mut moves) = (None, "");
        for (i, line) in lines.enumerate() {
            match line.split_once(' ').unwrap_or((line, "")) {
                ("position", p) => {
                    start = Some(
                        G::from_notation(variant, p.trim()).map_err(|e| RecordTextError::Position(e.to_string()))?,
                    )
                }
                ("moves", m) => moves = m,
                // Comments: what a tournament writes about a game (players, result, times).
                _ if line.starts_with('#') => {}
                ("", _) => {}
                _ => return Err(RecordTextError::Line(i + 2)),
            }
        }
        let mut record = Record::new(start.ok_or(RecordTextError::NoPosition)?);
        for (i, text) in moves.split_whitespace().enumerate() {
            let bad = |e: &dyn std::fmt::Display| RecordTextError::Move(i + 1, text.to_string(), e.to_string());
            let mv = record.current().parse_move(text).map_err(|e| bad(&e))?;
            record.play(mv).map_err(|e| bad(&e))?;
        }
        Ok(record)
    }
}
