//! GGF (Generic Game Format) records of Othello games, as written by GGS and read by NBoard.
//!
//! A game is `(;` then tags `NAME[value]` then `;)`, e.g.
//! `(;GM[Othello]PC[NBoard]DT[2014-02-21]PB[Edax]PW[chris]RE[+4.00]TI[15:00]TY[8]
//! BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6/-1.5/2.1];)`.
//!
//! Tags read: `PB`/`PW` (players), `PC` (place), `DT` (date), `RE` (result for black), `TI`
//! (time), `TY` (board type: 8x8 only; letters such as `8r` or `s8` are accepted), `GM` (must
//! name Othello when present), `BO[8 <64 squares> <side>]` (the start position, `*` or `X`
//! black, `O` white, `-` empty, a1 b1 .. h8; spaces between squares allowed) and the moves
//! `B[move]` / `W[move]`, each `square[/eval[/time]]` (squares in any case, passes `PA` or
//! `pass`). Every other tag is ignored. A value may contain `]` or `\` escaped with a backslash
//! (as in SGF); [`GgfGame`]'s `Display` writes such escapes, so text values round-trip.
//!
//! Passes: written as `PA`. When read, a move of the colour not to move is accepted if the
//! side to move had to pass (the pass is inserted), since some files omit passes.
//!
//! ```
//! use tabletop::games::reversi::ggf::GgfGame;
//! let game: GgfGame = "(;GM[Othello]PB[a]PW[b]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[f5]W[F6//1.5];)".parse().unwrap();
//! assert_eq!(game.black.as_deref(), Some("a"));
//! let record = game.to_record().unwrap();
//! assert_eq!(record.moves().len(), 2);
//! let again: GgfGame = game.to_string().parse().unwrap();
//! assert_eq!(again, game);
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::rules::{Color, Reversi, ReversiMove, ReversiPositionError};
use crate::arena::Finished;
use crate::clock::{MoveTime, TimeControl};
use crate::record::ClockLog;
use crate::game::{Game, Outcome, Status};
use crate::record::Record;

/// One move of a GGF game: the colour that played it, the move, and the optional evaluation
/// and time (seconds) written after it.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfMove {
    /// Who played it (the tag: `B` or `W`).
    pub color: Color,
    /// The move (a pass is `PA` in the text).
    pub mv: ReversiMove,
    /// The evaluation written with the move, if any.
    pub eval: Option<f64>,
    /// The time taken in seconds, if written.
    pub time: Option<f64>,
}

/// An Othello game in GGF: its header tags, start position and moves.
#[derive(Clone, Debug, PartialEq)]
pub struct GgfGame {
    /// Black's name (`PB`).
    pub black: Option<String>,
    /// White's name (`PW`).
    pub white: Option<String>,
    /// Where it was played (`PC`).
    pub place: Option<String>,
    /// When (`DT`), as written.
    pub date: Option<String>,
    /// The result for black (`RE`), as written, e.g. `+12.00` or `?`.
    pub result: Option<String>,
    /// The time control (`TI`), as written.
    pub time: Option<String>,
    /// The start position (`BO`; the usual start when absent).
    pub start: Reversi,
    /// The moves (`B`/`W`) in order.
    pub moves: Vec<GgfMove>,
}

/// Why a GGF text could not be read, or its moves not replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfError {
    /// No `(;` in the text.
    #[error("no GGF game: a game starts with \"(;\"")]
    NoGame,
    /// The text ended inside the game.
    #[error("the GGF game is not finished: it must end with \";)\"")]
    Unterminated,
    /// Something other than a tag where one was expected.
    #[error("character {at} of the GGF text is {found:?}; expected a tag such as PB[name] or the end \";)\"")]
    Syntax {
        /// The character offset.
        at: usize,
        /// The character found.
        found: char,
    },
    /// `GM` names another game.
    #[error("the game is {0:?}, not Othello")]
    NotOthello(String),
    /// `TY` or `BO` is not an 8x8 board.
    #[error("board type {0:?}: only 8x8 Othello is supported")]
    BoardSize(String),
    /// `BO` is not a position.
    #[error("the start position BO: {0}")]
    Board(#[from] ReversiPositionError),
    /// A move that cannot be read or played.
    #[error("move {number} ({text}): {reason}")]
    Move {
        /// The move's number, from 1.
        number: usize,
        /// The tag as written, e.g. `B[z9]`.
        text: String,
        /// Why it was refused.
        reason: String,
    },
}

impl GgfGame {
    /// A GGF game from a record: its start position and moves, the players' names, and the
    /// result when the game is over.
    ///
    /// ```
    /// use tabletop::games::reversi::{ggf::GgfGame, Reversi};
    /// use tabletop::Record;
    /// let mut record = Record::new(Reversi::new());
    /// record.play("f5".parse().unwrap()).unwrap();
    /// let game = GgfGame::from_record(&record, "me", "you");
    /// assert!(game.to_string().contains("PB[me]PW[you]"));
    /// assert!(game.to_string().contains("B[F5]"));
    /// ```
    pub fn from_record(record: &Record<Reversi>, black: &str, white: &str) -> GgfGame {
        let moves = record
            .positions()
            .iter()
            .zip(record.moves())
            .map(|(before, &mv)| GgfMove { color: before.side_to_move(), mv, eval: None, time: None })
            .collect();
        let end = record.current();
        let result = end.is_over().then(|| format!("{:+}.00", end.final_score(Color::Black)));
        GgfGame {
            black: Some(black.to_string()),
            white: Some(white.to_string()),
            place: Some("tabletop".to_string()),
            date: None,
            result,
            time: None,
            start: *record.start(),
            moves,
        }
    }

    /// A finished game of a match as GGF: [`GgfGame::from_record`] with the clock (`TI`, when
    /// black's control is Fischer: `main/increment/`), each timed move's seconds
    /// (`B[F5//1.25]`), and a game lost on time or by forfeit marked as GGS marks it
    /// (`RE[+64.00:t]`, `RE[-64.00:r]`: the full margin to the winner).
    pub fn from_finished(finished: &Finished<Reversi>, black: &str, white: &str) -> GgfGame {
        let mut game = GgfGame::from_record(&finished.record, black, white);
        for (mv, clock) in game.moves.iter_mut().zip(&finished.move_clocks) {
            mv.time = clock.map(|c| c.used_ms as f64 / 1000.0);
        }
        game.time = finished.controls.first().and_then(ggf_time_control);
        let mark = if finished.out_of_time.is_some() { Some("t") } else { finished.forfeit.as_ref().map(|_| "r") };
        if let (Some(mark), Outcome::Win(seat)) = (mark, finished.outcome) {
            let sign = if seat.index() == 0 { '+' } else { '-' };
            game.result = Some(format!("{sign}64.00:{mark}"));
        }
        game
    }

    /// The game's clocks for a review: its `TI` (when `tabletop` can read it as a control) and
    /// each move's seconds; `None` when no move has a time. A file that omits passes gets no
    /// times (they could not be matched to the record's moves).
    pub fn clock_log(&self) -> Option<ClockLog> {
        if self.moves.iter().all(|m| m.time.is_none()) {
            return None;
        }
        let record = self.to_record().ok()?;
        if record.moves().len() != self.moves.len() {
            return None;
        }
        let control = self.time.as_deref().and_then(time_control).and_then(|(main, increment)| {
            TimeControl::Fischer { base: main, increment }.to_string().parse().ok()
        });
        let moves = self
            .moves
            .iter()
            .map(|m| {
                m.time.filter(|t| t.is_finite() && *t >= 0.0 && *t < 1e7).map(|t| MoveTime {
                    used_ms: (t * 1000.0).round() as u64,
                    compensated_ms: 0,
                    remaining_ms: None,
                    periods: 0,
                })
            })
            .collect();
        Some(ClockLog { controls: control.into_iter().collect(), moves })
    }

    /// Replays the game: a record from the start position with every move played (passes the
    /// file omits are inserted; a pass after the end is ignored).
    pub fn to_record(&self) -> Result<Record<Reversi>, GgfError> {
        let mut record = Record::new(self.start);
        let mut legal = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let fail = |reason: String| GgfError::Move { number: i + 1, text: m.tag_text(), reason };
            if let Status::Over(_) = record.status() {
                if m.mv == ReversiMove::Pass {
                    continue;
                }
                return Err(fail("the game is already over".to_string()));
            }
            if m.color != record.current().side_to_move() {
                record.current().legal_moves(&mut legal);
                if legal == [ReversiMove::Pass] {
                    record.play(ReversiMove::Pass).map_err(|e| fail(e.to_string()))?;
                } else {
                    return Err(fail(format!("{} is to move", record.current().side_to_move().name())));
                }
            }
            record.play(m.mv).map_err(|e| fail(e.to_string()))?;
        }
        Ok(record)
    }

    /// Reads every game in `text` (for example a file of one game per line).
    ///
    /// ```
    /// use tabletop::games::reversi::ggf::GgfGame;
    /// let games = GgfGame::parse_all("(;GM[Othello]B[f5];)\n(;GM[Othello];)\n").unwrap();
    /// assert_eq!(games.len(), 2);
    /// ```
    pub fn parse_all(text: &str) -> Result<Vec<GgfGame>, GgfError> {
        let mut games = Vec::new();
        let mut offset = 0;
        while let Some(found) = text[offset..].find("(;") {
            let (game, used) = parse_game(text, offset + found)?;
            games.push(game);
            offset = used;
        }
        if games.is_empty() {
            return Err(GgfError::NoGame);
        }
        Ok(games)
    }
}

impl GgfMove {
    /// The move's tag as GGF text, e.g. `B[F5/1.5]`.
    fn tag_text(&self) -> String {
        let mut text = format!("{}[{}", if self.color == Color::Black { 'B' } else { 'W' }, move_text(self.mv));
        match (self.eval, self.time) {
            (None, None) => {}
            (Some(e), None) => text.push_str(&format!("/{e}")),
            (e, Some(t)) => {
                // Milliseconds at most: a time summed in floating point (1.3900000000000001)
                // is written as a clock shows it (1.39).
                let t = format!("{t:.3}");
                let t = t.trim_end_matches('0').trim_end_matches('.');
                text.push_str(&format!("/{}/{t}", e.map(|e| e.to_string()).unwrap_or_default()))
            }
        }
        text.push(']');
        text
    }
}

/// A move as GGF writes it: `F5`, or `PA` for a pass.
pub fn move_text(mv: ReversiMove) -> String {
    match mv {
        ReversiMove::Pass => "PA".to_string(),
        ReversiMove::Place(sq) => sq.to_string().to_ascii_uppercase(),
    }
}

/// Escapes `]` and `\` in a tag value.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ']' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl fmt::Display for GgfGame {
    /// One line: `(;GM[Othello]...TY[8]BO[8 ... *]B[F5]...;)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(;GM[Othello]")?;
        for (tag, value) in [
            ("PC", &self.place),
            ("DT", &self.date),
            ("PB", &self.black),
            ("PW", &self.white),
            ("RE", &self.result),
            ("TI", &self.time),
        ] {
            if let Some(v) = value {
                write!(f, "{tag}[{}]", escape(v))?;
            }
        }
        let board: String = self.start.to_string().chars().map(|c| if c == 'X' { '*' } else { c }).collect();
        write!(f, "TY[8]BO[8 {board}]")?;
        for m in &self.moves {
            f.write_str(&m.tag_text())?;
        }
        f.write_str(";)")
    }
}

impl FromStr for GgfGame {
    type Err = GgfError;

    /// Reads the first game in `text`.
    fn from_str(text: &str) -> Result<GgfGame, GgfError> {
        let start = text.find("(;").ok_or(GgfError::NoGame)?;
        parse_game(text, start).map(|(game, _)| game)
    }
}

/// A GGF time control (`TI`): the time for a whole game and the increment per move, from
/// `15:00`, `5:00//2:00` or `05:00/0:02/02:00` (main time, increment, extension; each field
/// seconds, `m:s` or `h:m:s`; an empty increment is none). `None` if the main time is not
/// readable or zero.
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::reversi::ggf::time_control;
/// assert_eq!(time_control("15:00"), Some((Duration::from_secs(900), Duration::ZERO)));
/// assert_eq!(time_control("1:00:00/0:02/"), Some((Duration::from_secs(3600), Duration::from_secs(2))));
/// assert_eq!(time_control("5:00//2:00"), Some((Duration::from_secs(300), Duration::ZERO)));
/// assert_eq!(time_control("soon"), None);
/// ```
pub fn time_control(text: &str) -> Option<(Duration, Duration)> {
    let seconds = |field: &str| -> Option<f64> {
        let mut total = 0.0;
        for part in field.trim().split(':') {
            let v: f64 = part.trim().parse().ok()?;
            if !v.is_finite() || v < 0.0 {
                return None;
            }
            total = total * 60.0 + v;
        }
        (total <= 1e6).then_some(total)
    };
    let mut fields = text.split('/');
    let main = seconds(fields.next()?).filter(|&s| s > 0.0)?;
    let increment = match fields.next().map(str::trim) {
        None | Some("") => 0.0,
        Some(f) => seconds(f)?,
    };
    Some((Duration::from_secs_f64(main), Duration::from_secs_f64(increment)))
}

/// A Fischer control as GGF's `TI` (`5:00/2/`: main time, increment, no extension); `None`
/// for the others, which GGF cannot say.
///
/// ```
/// use tabletop::games::reversi::ggf::ggf_time_control;
/// assert_eq!(ggf_time_control(&"5+2".parse().unwrap()).as_deref(), Some("5:00/2/"));
/// assert_eq!(ggf_time_control(&"0:30+0.25".parse().unwrap()).as_deref(), Some("0:30/0.25/"));
/// assert_eq!(ggf_time_control(&"3d".parse().unwrap()), None);
/// ```
pub fn ggf_time_control(control: &TimeControl) -> Option<String> {
    let TimeControl::Fischer { base, increment } = *control else { return None };
    let minutes_seconds = |d: Duration| {
        let ms = d.as_millis();
        let seconds = format!("{}.{:03}", ms / 1000 % 60, ms % 1000);
        let seconds = seconds.trim_end_matches('0').trim_end_matches('.');
        format!("{}:{:0>2}", ms / 60_000, seconds)
    };
    let increment = format!("{:.3}", increment.as_secs_f64());
    let increment = increment.trim_end_matches('0').trim_end_matches('.');
    Some(format!("{}/{increment}/", minutes_seconds(base)))
}

/// Reads the game whose `(;` is at byte `start` of `text`; returns it and the byte offset
/// just after its `;)`.
fn parse_game(text: &str, start: usize) -> Result<(GgfGame, usize), GgfError> {
    let mut game = GgfGame {
        black: None,
        white: None,
        place: None,
        date: None,
        result: None,
        time: None,
        start: Reversi::new(),
        moves: Vec::new(),
    };
    let mut chars = text[start + 2..].char_indices().map(|(i, c)| (i + start + 2, c)).peekable();
    loop {
        let Some((at, c)) = chars.next() else { return Err(GgfError::Unterminated) };
        if c.is_whitespace() {
            continue;
        }
        if c == ';' {
            return match chars.next() {
                Some((end, ')')) => Ok((game, end + 1)),
                Some((at, found)) => Err(GgfError::Syntax { at, found }),
                None => Err(GgfError::Unterminated),
            };
        }
        if !c.is_ascii_alphabetic() {
            return Err(GgfError::Syntax { at, found: c });
        }
        let mut name = String::from(c);
        let mut value = String::new();
        loop {
            match chars.next() {
                Some((_, '[')) => break,
                Some((_, c)) if c.is_ascii_alphabetic() && name.len() < 16 => name.push(c),
                Some((at, found)) => return Err(GgfError::Syntax { at, found }),
                None => return Err(GgfError::Unterminated),
            }
        }
        loop {
            match chars.next() {
                Some((_, ']')) => break,
                Some((_, '\\')) => match chars.next() {
                    Some((_, c)) => value.push(c),
                    None => return Err(GgfError::Unterminated),
                },
                Some((_, c)) => value.push(c),
                None => return Err(GgfError::Unterminated),
            }
        }
        apply_tag(&mut game, &name.to_ascii_uppercase(), value)?;
    }
}

/// Stores one tag's value in `game`.
fn apply_tag(game: &mut GgfGame, name: &str, value: String) -> Result<(), GgfError> {
    match name {
        "PB" => game.black = Some(value),
        "PW" => game.white = Some(value),
        "PC" => game.place = Some(value),
        "DT" => game.date = Some(value),
        "RE" => game.result = Some(value),
        "TI" => game.time = Some(value),
        "GM" if !value.trim().eq_ignore_ascii_case("othello") => return Err(GgfError::NotOthello(value)),
        "TY" => {
            let size: String = value.chars().filter(|c| c.is_ascii_digit()).collect();
            if size != "8" {
                return Err(GgfError::BoardSize(value));
            }
        }
        "BO" => {
            let squares: Vec<char> = value.chars().filter(|c| !c.is_whitespace()).collect();
            match squares.split_first() {
                Some(('8', rest)) if rest.len() == 65 => {
                    let board: String = rest[..64].iter().collect();
                    game.start = format!("{board} {}", rest[64]).parse()?;
                }
                Some(('8', rest)) => {
                    return Err(GgfError::Board(ReversiPositionError::Length(rest.len().saturating_sub(1))))
                }
                _ => return Err(GgfError::BoardSize(value)),
            }
        }
        "B" | "W" => {
            let color = if name == "B" { Color::Black } else { Color::White };
            let number = game.moves.len() + 1;
            let mut parts = value.split('/');
            let move_part = parts.next().unwrap_or("").trim();
            let mv = move_part.parse::<ReversiMove>().map_err(|e| GgfError::Move {
                number,
                text: format!("{name}[{value}]"),
                reason: e.to_string(),
            })?;
            // Evaluations and times that are empty or unreadable are dropped, not refused.
            let number_of = |p: Option<&str>| p.and_then(|t| t.trim().parse::<f64>().ok()).filter(|v| v.is_finite());
            let eval = number_of(parts.next());
            let time = number_of(parts.next());
            game.moves.push(GgfMove { color, mv, eval, time });
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const START: &str = "BO[8 ---------------------------O*------*O--------------------------- *]";

    /// A seeded random game of `plies` moves (or until it ends).
    fn random_record(seed: u64, plies: usize) -> Record<Reversi> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut record = Record::new(Reversi::new());
        let mut moves = Vec::new();
        for _ in 0..plies {
            if record.status().to_move().is_none() {
                break;
            }
            record.current().legal_moves(&mut moves);
            let mv = *moves.choose(&mut rng).unwrap();
            record.play(mv).unwrap();
        }
        record
    }

    #[test]
    fn reads_an_nboard_game() {
        let text = format!(
            "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]{START}B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"
        );
        let game: GgfGame = text.parse().unwrap();
        assert_eq!(game.black.as_deref(), Some("./mEdax"));
        assert_eq!(game.white.as_deref(), Some("chris"));
        assert_eq!(game.result.as_deref(), Some("?"));
        assert_eq!(game.start, Reversi::new());
        let record = game.to_record().unwrap();
        assert_eq!(Reversi::transcript(record.moves()), "f5f6d3c5e6f7e7f4");
    }

    #[test]
    fn reads_ggs_evals_times_lower_case_and_unknown_tags() {
        let text = format!(
            "junk (;GM[othello]PC[GGS/os]RB[1800.5]XX[what]TY[8r]{START}B[d3//1.01]W[c5/-2.50/0.5]B[f6/3];) more"
        );
        let game: GgfGame = text.parse().unwrap();
        let m = &game.moves;
        assert_eq!((m[0].eval, m[0].time), (None, Some(1.01)));
        assert_eq!((m[1].eval, m[1].time), (Some(-2.5), Some(0.5)));
        assert_eq!((m[2].eval, m[2].time), (Some(3.0), None));
        assert_eq!(Reversi::transcript(game.to_record().unwrap().moves()), "d3c5f6");
    }

    #[test]
    fn passes_are_written_pa_and_omitted_passes_are_inserted() {
        // A position where white (to move) has no placement: black must move twice.
        let pos: Reversi = format!("{}{} O", "X".repeat(62), "-O").parse().unwrap();
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if moves == [ReversiMove::Pass] {
            let mut record = Record::new(pos);
            record.play(ReversiMove::Pass).unwrap();
            let text = GgfGame::from_record(&record, "a", "b").to_string();
            assert!(text.contains("W[PA]"), "{text}");
        }
        // Seeded games with passes: written with PA, and read back without them too.
        let mut found = 0;
        for seed in 0..400 {
            let record = random_record(seed, 70);
            if !record.moves().contains(&ReversiMove::Pass) {
                continue;
            }
            found += 1;
            let game = GgfGame::from_record(&record, "a", "b");
            assert!(game.to_string().contains("[PA]"));
            let mut without = game.clone();
            without.moves.retain(|m| m.mv != ReversiMove::Pass);
            let back = without.to_record().unwrap();
            assert_eq!(back.moves(), record.moves());
        }
        assert!(found > 0);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let bad = |text: &str| text.parse::<GgfGame>().unwrap_err().to_string();
        assert_eq!(bad("no game"), "no GGF game: a game starts with \"(;\"");
        assert!(bad("(;PB[x]").contains("not finished"));
        assert!(bad("(;GM[Chess];)").contains("not Othello"));
        assert!(bad("(;TY[10];)").contains("only 8x8"));
        assert!(bad("(;BO[8 ---];)").contains("BO"));
        assert!(bad("(;B[z9];)").contains("move 1 (B[z9])"));
        assert!(bad("(;1;)").contains("character 2"));
        let illegal: GgfGame = "(;B[a1];)".parse().unwrap();
        assert!(illegal.to_record().unwrap_err().to_string().starts_with("move 1 (B[A1]):"));
        let wrong: GgfGame = "(;W[f5];)".parse().unwrap();
        assert!(wrong.to_record().unwrap_err().to_string().contains("black is to move"));
    }

    #[test]
    fn finished_games_carry_the_result_and_round_trip() {
        for seed in 0..20 {
            let record = random_record(seed, 100);
            let game = GgfGame::from_record(&record, "tabletop", "other ] \\ name");
            let text = game.to_string();
            let back: GgfGame = text.parse().unwrap();
            assert_eq!(back, game);
            let replayed = back.to_record().unwrap();
            assert_eq!(replayed.moves(), record.moves());
            assert_eq!(replayed.current(), record.current());
            let score = record.current().final_score(Color::Black);
            assert_eq!(game.result, Some(format!("{score:+}.00")));
        }
    }

    #[test]
    fn several_games_in_one_text() {
        let text: String =
            (0..3).map(|s| GgfGame::from_record(&random_record(s, 30), "a", "b").to_string() + "\n").collect();
        let games = GgfGame::parse_all(&text).unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!(games[2].to_record().unwrap().moves(), random_record(2, 30).moves());
    }

    proptest! {
        #[test]
        fn parsing_arbitrary_text_never_panics(text in "\\PC{0,200}") {
            let _ = text.parse::<GgfGame>().map(|g| g.to_record());
            let _ = GgfGame::parse_all(&text);
        }

        #[test]
        fn tag_soup_never_panics(tags in proptest::collection::vec(("[A-Za-z]{1,3}", "[^\\]]{0,70}"), 0..12)) {
            let text: String = std::iter::once("(;".to_string())
                .chain(tags.iter().map(|(n, v)| format!("{n}[{v}]")))
                .chain(std::iter::once(";)".to_string()))
                .collect();
            if let Ok(game) = text.parse::<GgfGame>() {
                let _ = game.to_record();
                let _ = game.to_string();
            }
        }

        #[test]
        fn write_then_read_round_trips(
            seed in any::<u64>(),
            plies in 0usize..70,
            black in "\\PC{0,12}",
            white in "\\PC{0,12}",
            evals in proptest::collection::vec(proptest::option::of(-64.0f64..64.0), 70),
            // Times are written to the millisecond.
            times in proptest::collection::vec(proptest::option::of((0u32..1_000_000).prop_map(|ms| f64::from(ms) / 1000.0)), 70),
        ) {
            let record = random_record(seed, plies);
            let mut game = GgfGame::from_record(&record, &black, &white);
            for (i, m) in game.moves.iter_mut().enumerate() {
                m.eval = evals[i];
                m.time = times[i];
            }
            let back: GgfGame = game.to_string().parse().unwrap();
            prop_assert_eq!(&back, &game);
            let replayed = back.to_record().unwrap();
            prop_assert_eq!(replayed.moves(), record.moves());
        }
    }

    #[test]
    fn move_times_are_written_to_the_millisecond() {
        let mv = |time| GgfMove { color: Color::Black, mv: "f5".parse::<ReversiMove>().unwrap(), eval: None, time };
        assert_eq!(mv(Some(1.3900000000000001)).tag_text(), "B[F5//1.39]");
        assert_eq!(mv(Some(2.0)).tag_text(), "B[F5//2]");
        assert_eq!(mv(Some(0.0004)).tag_text(), "B[F5//0]");
        assert_eq!(mv(None).tag_text(), "B[F5]");
    }
}
