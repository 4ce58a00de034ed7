//! The NBoard protocol (Chris Welty's, version 2), spoken by Othello GUIs such as NBoard to
//! their engines over standard input and output: one command per line.
//!
//! **Engine side** ([`serve`]): what `tabletop nboard` runs. Commands read and the exact
//! answers written (each answer is one line, flushed at once):
//!
//! | command | answer |
//! | --- | --- |
//! | `nboard 2` | `set myname tabletop` (another version is noted on the error stream, and served as 2) |
//! | `set depth N` | none; the engine searches N plies (1-60), capped by [`Settings::max_time`] |
//! | `set game GGF` | none; the game's last position is the one to think about (see [`ggf`](super::ggf)); with a time control (`TI`), `go` plays on that clock ([`time_control`]: the time left is `TI` less the times written after the side's moves, shared as [`Clock::budget`] says, never past [`Settings::max_time`]) |
//! | `set contempt N`, any other `set` | none (ignored) |
//! | `move F5[/eval[/time]]` (or a bare `F5`) | none; the move is played (`PA` is a pass) |
//! | `go` | `nodestats NODES SECONDS` then `=== F5/EVAL/SECONDS` (`=== PA` for a forced pass) |
//! | `hint N` | `status thinking`, then for each of the best N moves `search F5 EVAL 0 DEPTH` (best first), then `status` |
//! | `ping N` | `pong N` (all earlier commands are finished: commands are handled in order) |
//! | `learn` | `learned` |
//! | `analyze` | `status analyze is not supported` |
//! | `quit` | none; [`serve`] returns |
//!
//! `EVAL` is from the side to move's point of view, in discs with two decimals (`+1.25`,
//! `-4.00`); exact endgame values are whole discs. A refused game or move, a `go` or `hint`
//! when the game is over, and unknown commands are written to the error stream and, for the
//! first three, also as a `status` line; they never end the session.
//!
//! **GUI side** ([`NboardPlayer`]): a [`Player`] that runs any NBoard engine as a child process
//! (`sh -c CMD`), sends `nboard 2` and `set depth D` once, then for each move `set game` (the
//! whole game so far as GGF), `ping N`, waits for `pong N`, sends `go` and reads `=== MOVE`
//! (`MOVE/eval/time` and `MOVE eval time` are both read). Every wait has a timeout.
//!
//! ```
//! use tabletop::games::reversi::nboard::{serve, Settings};
//! let script = "nboard 2\nset depth 2\nping 1\ngo\nlearn\n";
//! let mut out = Vec::new();
//! serve(script.as_bytes(), &mut out, std::io::sink(), &Settings::default()).unwrap();
//! let out = String::from_utf8(out).unwrap();
//! assert!(out.contains("pong 1\n"));
//! assert!(out.lines().any(|l| ["=== D3/", "=== C4/", "=== F5/", "=== E6/"].iter().any(|m| l.starts_with(m))));
//! assert!(out.ends_with("learned\n"));
//! ```

use std::io::{self, BufRead, Write};
use std::time::{Duration, Instant};

use super::engine::{Analysis, Clock, Engine, WON};
use super::ggf::{ggf_time_control, move_text, GgfGame};
use super::patterns::PatternWeights;
use super::probcut::ProbCut;
use super::rules::{Color, Reversi, ReversiMove};
use crate::external::{BotProcess, ReadError};
use crate::game::{Game, Status};
use crate::players::{Player, TimeLeft};
use crate::record::Record;

/// How the engine side behaves.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The most time one `go` (or one `hint`) may take, whatever the depth.
    pub max_time: Duration,
    /// The depth used before the GUI sends `set depth`.
    pub default_depth: u32,
    /// The pattern weights to evaluate with; `None`: the built-in ones. (Other weights are
    /// for comparing trained evaluations in matches, each engine its own process.)
    pub patterns: Option<&'static PatternWeights>,
    /// The Multi-ProbCut parameters to search with; `None`: the built-in ones.
    pub probcut: Option<&'static ProbCut>,
}

impl Default for Settings {
    /// 5 seconds per move at most, depth 8 until told otherwise, the built-in evaluation.
    fn default() -> Self {
        Settings { max_time: Duration::from_secs(5), default_depth: 8, patterns: None, probcut: None }
    }
}

/// A position's value for its side to move, in discs, and the depth it was found at; passes
/// are played through and finished games scored exactly.
fn side_value(engine: &mut Engine, position: &Reversi) -> (f64, u32, bool) {
    if let Status::Over(_) = position.status() {
        return (f64::from(position.final_score(position.side_to_move())), 0, true);
    }
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    if moves == [ReversiMove::Pass] {
        let mut next = *position;
        next.play_unchecked(ReversiMove::Pass);
        let (v, d, exact) = side_value(engine, &next);
        return (-v, d, exact);
    }
    let analysis = engine.analyse(position);
    (discs(&analysis), analysis.depth, analysis.exact || analysis.value.abs() >= WON)
}

/// An analysis's value in discs for the side to move.
fn discs(a: &Analysis) -> f64 {
    if a.exact {
        f64::from(a.value)
    } else if a.value.abs() >= WON {
        f64::from(a.value.signum() * (a.value.abs() - WON))
    } else {
        f64::from(a.value) / 100.0
    }
}

/// A GGF time control (`TI`): the time for a whole game and the increment per move, from
/// `15:00`, `5:00//2:00` or `05:00/0:02/02:00` (main time, increment, extension; each field
/// seconds, `m:s` or `h:m:s`; an empty increment is none). `None` if the main time is not
/// readable or zero.
///
/// ```
/// use std::time::Duration;
/// use tabletop::games::reversi::nboard::time_control;
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

/// The engine side's state between commands.
struct Session<E: Write> {
    record: Record<Reversi>,
    /// The game's time control (`TI` of `set game`) and the seconds each colour (black,
    /// white) has used by the times written after its moves.
    clock: Option<(Duration, Duration)>,
    used: [f64; 2],
    engine: Engine,
    depth: u32,
    settings: Settings,
    errors: E,
}

impl<E: Write> Session<E> {
    /// Notes a problem on the error stream (failures to write it are ignored: the protocol
    /// goes on).
    fn note(&mut self, text: &str) {
        let _ = writeln!(self.errors, "nboard: {text}");
        let _ = self.errors.flush();
    }

    fn set_limits(&mut self, depth: u32, time: Duration) {
        self.engine.depth = Some(depth.clamp(1, 60));
        self.engine.time = Some(time);
    }

    fn go(&mut self, out: &mut impl Write) -> io::Result<()> {
        let position = *self.record.current();
        if position.is_over() {
            self.note("go: the game is over");
            return writeln!(out, "status the game is over");
        }
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        if moves == [ReversiMove::Pass] {
            return writeln!(out, "=== PA");
        }
        self.set_limits(self.depth, self.settings.max_time);
        let analysis = match self.clock {
            Some((main, increment)) => {
                // The GUI's clock: the time left for the side to move, shared over its moves;
                // the depth the GUI set and --max-time still cap the search.
                let used = self.used[usize::from(position.side_to_move() == Color::White)];
                let remaining = main.saturating_sub(Duration::from_secs_f64(used.clamp(0.0, 1e7)));
                let clock = Clock { remaining, increment };
                let mut budget = clock.budget(&position);
                budget.target = budget.target.min(self.settings.max_time);
                budget.limit = budget.limit.min(self.settings.max_time);
                if position.legal_placements().len() == 1 {
                    self.engine.analyse_clock(&position, &clock)
                } else {
                    self.engine.analyse_within(&position, Some(budget))
                }
            }
            None => self.engine.analyse(&position),
        };
        let seconds = analysis.elapsed.as_secs_f64();
        writeln!(out, "nodestats {} {seconds:.2}", analysis.nodes)?;
        writeln!(out, "=== {}/{:+.2}/{seconds:.2}", move_text(analysis.best), discs(&analysis))
    }

    fn hint(&mut self, count: usize, out: &mut impl Write) -> io::Result<()> {
        let position = *self.record.current();
        if position.is_over() {
            self.note("hint: the game is over");
            return writeln!(out, "status the game is over");
        }
        writeln!(out, "status thinking")?;
        out.flush()?;
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut lines: Vec<(f64, String)> = Vec::new();
        if count <= 1 || moves.len() == 1 {
            // The best move alone: one search of the position.
            self.set_limits(self.depth, self.settings.max_time);
            if moves == [ReversiMove::Pass] {
                let (v, d, _) = side_value(&mut self.engine, &position);
                lines.push((v, format!("search PA {v:+.2} 0 {d}")));
            } else {
                let a = self.engine.analyse(&position);
                lines.push((0.0, format!("search {} {:+.2} 0 {}", move_text(a.best), discs(&a), a.depth)));
            }
        } else {
            // Every move searched to the same depth (at most the GUI's) within the time cap,
            // so that their values compare (and symmetric moves get the same one).
            let deadline = Instant::now() + self.settings.max_time;
            let (values, depth) = self.engine.move_values_until(&position, deadline, self.depth);
            for (mv, v) in values {
                let v = if v.abs() >= WON { f64::from(v.signum() * (v.abs() - WON)) } else { f64::from(v) / 100.0 };
                lines.push((v, format!("search {} {v:+.2} 0 {depth}", move_text(mv))));
            }
            lines.sort_by(|a, b| b.0.total_cmp(&a.0));
            lines.truncate(count);
        }
        for (_, line) in lines {
            writeln!(out, "{line}")?;
        }
        writeln!(out, "status")
    }

    fn set_game(&mut self, text: &str, out: &mut impl Write) -> io::Result<()> {
        match text.parse::<GgfGame>().and_then(|g| g.to_record()) {
            Ok(record) => {
                self.record = record;
                // A game without a readable time control is played with --max-time per move.
                let game = text.parse::<GgfGame>().ok();
                self.clock = game.as_ref().and_then(|g| g.time.as_deref()).and_then(time_control);
                self.used = [0.0; 2];
                for m in game.iter().flat_map(|g| &g.moves) {
                    self.used[usize::from(m.color == Color::White)] += m.time.unwrap_or(0.0).max(0.0);
                }
            }
            Err(e) => {
                self.note(&format!("set game: {e}"));
                writeln!(out, "status cannot read the game: {e}")?;
            }
        }
        Ok(())
    }

    fn play(&mut self, text: &str, out: &mut impl Write) -> io::Result<()> {
        let mut parts = text.split('/');
        let move_part = parts.next().unwrap_or("").trim();
        // `F5/eval/time`: the time counts against the clock of the side that moved.
        let time = parts.nth(1).and_then(|t| t.trim().parse::<f64>().ok()).filter(|t| t.is_finite() && *t >= 0.0);
        let mover = usize::from(self.record.current().side_to_move() == Color::White);
        let result = self.record.current().parse_move(move_part).map_err(|e| e.to_string()).and_then(|mv| {
            let mut record = self.record.clone();
            record.play(mv).map_err(|e| e.to_string())?;
            self.record = record;
            Ok(())
        });
        if result.is_ok() {
            self.used[mover] += time.unwrap_or(0.0);
        }
        if let Err(e) = result {
            self.note(&format!("move {text}: {e}"));
            writeln!(out, "status move {text} refused: {e}")?;
        }
        Ok(())
    }
}

/// Serves the NBoard protocol: reads commands from `input` until `quit` or its end, writes the
/// answers to `output` (flushed after every command) and problems to `errors`. Returns an
/// error only when reading or writing fails, or when the engine's tables cannot be allocated;
/// bad commands are answered (see the [module documentation](self)).
pub fn serve(input: impl BufRead, mut output: impl Write, errors: impl Write, settings: &Settings) -> io::Result<()> {
    let mut engine = Engine::try_new(Some(settings.max_time), Some(settings.default_depth.clamp(1, 60)))
        .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))?;
    if let Some(patterns) = settings.patterns {
        engine.patterns = Some(patterns);
    }
    if let Some(probcut) = settings.probcut {
        engine.probcut = Some(probcut);
    }
    let mut session = Session {
        record: Record::new(Reversi::new()),
        clock: None,
        used: [0.0; 2],
        engine,
        depth: settings.default_depth.clamp(1, 60),
        settings: settings.clone(),
        errors,
    };
    for line in input.lines() {
        let line = line?;
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        match command {
            "" => {}
            "nboard" => {
                if rest != "2" {
                    session.note(&format!("nboard {rest}: version 2 is spoken"));
                }
                writeln!(output, "set myname tabletop")?;
            }
            "set" => {
                let (what, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                match what {
                    "depth" => match value.trim().parse::<u32>() {
                        Ok(d) if (1..=60).contains(&d) => session.depth = d,
                        _ => {
                            session.note(&format!("set depth {value}: expected 1 to 60"));
                            writeln!(output, "status set depth {value}: expected a depth from 1 to 60")?;
                        }
                    },
                    "game" => session.set_game(value, &mut output)?,
                    _ => {}
                }
            }
            "move" => session.play(rest, &mut output)?,
            "go" => session.go(&mut output)?,
            "hint" => {
                let count = rest.parse::<usize>().unwrap_or(1).clamp(1, 64);
                session.hint(count, &mut output)?;
            }
            "ping" => writeln!(output, "pong {rest}")?,
            "learn" => writeln!(output, "learned")?,
            "analyze" => writeln!(output, "status analyze is not supported")?,
            "quit" => return Ok(()),
            // NBoard 1.1 sent bare moves ("F5").
            _ if rest.is_empty() && command.parse::<ReversiMove>().is_ok() => session.play(command, &mut output)?,
            _ => session.note(&format!("unknown command ignored: {line}")),
        }
        output.flush()?;
    }
    Ok(())
}

/// Why talking to an external NBoard engine failed.
#[derive(Debug, thiserror::Error)]
pub enum NboardError {
    /// The command could not be started.
    #[error("cannot start the NBoard engine {command:?}: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// Why.
        source: io::Error,
    },
    /// Writing to it failed (it has probably exited).
    #[error("the NBoard engine {0:?} stopped reading its input (has it exited?)")]
    Write(String),
    /// Its output ended.
    #[error("the NBoard engine {0:?} exited")]
    Exited(String),
    /// No answer in time.
    #[error("the NBoard engine {command:?} sent no {expected} within {timeout:?}")]
    Timeout {
        /// The command.
        command: String,
        /// What was awaited.
        expected: String,
        /// How long was waited.
        timeout: Duration,
    },
    /// Its move cannot be read or is illegal.
    #[error("the NBoard engine {command:?} answered {answer:?}: {reason}")]
    BadMove {
        /// The command.
        command: String,
        /// The line it sent.
        answer: String,
        /// Why it was refused.
        reason: String,
    },
}

/// A [`Player`] that asks an external NBoard engine (`sh -c COMMAND`) for its moves.
///
/// The [`Player`] trait has no way to report failure, so when the engine cannot be started,
/// exits, times out or answers an illegal move, the player says why on standard error and plays
/// the first legal move instead (never a panic); a failed engine is restarted for the next move.
/// A process using it should not die of `SIGPIPE` when the engine exits (Rust programs ignore
/// it unless told otherwise; `tabletop` keeps it ignored when an `nboard` player is in play).
///
/// ```no_run
/// use std::time::Duration;
/// use tabletop::games::reversi::nboard::NboardPlayer;
/// let player = NboardPlayer::new("tabletop nboard", 4, Duration::from_secs(60));
/// ```
pub struct NboardPlayer {
    command: String,
    depth: u32,
    timeout: Duration,
    /// The engine's process (started, written to and ended as every external program is).
    running: Option<BotProcess>,
    pings: u64,
    /// The last failure, for tests and callers that hold the concrete type.
    pub last_error: Option<String>,
    /// The game clock, when the front end keeps one: sent as the game's `TI` with every move's
    /// time, so that the engine manages its own clock as it does under a GUI.
    clock: Option<TimeLeft>,
}

impl NboardPlayer {
    /// A player running `command` at `depth` plies, waiting at most `timeout` for each answer.
    /// The engine is started when the first move is asked for.
    pub fn new(command: &str, depth: u32, timeout: Duration) -> Self {
        NboardPlayer {
            command: command.to_string(),
            depth,
            timeout,
            running: None,
            pings: 0,
            last_error: None,
            clock: None,
        }
    }

    fn start(&mut self) -> Result<(), NboardError> {
        if self.running.is_some() {
            return Ok(());
        }
        let process =
            BotProcess::spawn(&self.command).map_err(|source| NboardError::Spawn { command: self.command.clone(), source })?;
        self.running = Some(process);
        self.send(&format!("nboard 2\nset depth {}", self.depth))
    }

    fn send(&mut self, text: &str) -> Result<(), NboardError> {
        let running = self.running.as_mut().ok_or_else(|| NboardError::Exited(self.command.clone()))?;
        running.send(text).map_err(|_| NboardError::Write(self.command.clone()))
    }

    /// Reads lines until one satisfies `wanted`; returns it.
    fn wait_for(&mut self, expected: &str, wanted: impl Fn(&str) -> bool) -> Result<String, NboardError> {
        let running = self.running.as_mut().ok_or_else(|| NboardError::Exited(self.command.clone()))?;
        // Under a clock the engine has as long as its clock lasts (the front end judges it).
        let wait = self.clock.as_ref().map_or(self.timeout, |c| c.own + Duration::from_secs(1));
        let deadline = Instant::now() + wait;
        loop {
            match running.next_line(deadline) {
                Ok(line) if wanted(line.trim()) => return Ok(line.trim().to_string()),
                Ok(_) => {}
                Err(ReadError::Timeout(_)) => {
                    return Err(NboardError::Timeout {
                        command: self.command.clone(),
                        expected: expected.to_string(),
                        timeout: self.timeout,
                    });
                }
                Err(ReadError::Closed) => return Err(NboardError::Exited(self.command.clone())),
            }
        }
    }

    /// Asks the engine for its move in the last position of `record`.
    pub fn ask(&mut self, record: &Record<Reversi>) -> Result<ReversiMove, NboardError> {
        self.start()?;
        let mut game = GgfGame::from_record(record, "black", "white");
        if let Some(clock) = &self.clock {
            // The control as GGF says it, and each move's seconds: the engine counts its time
            // left as the GUI's TI less its own moves' times.
            game.time = ggf_time_control(&clock.control);
            for (mv, used) in game.moves.iter_mut().zip(&clock.move_times) {
                mv.time = used.map(|t| t.as_secs_f64());
            }
        }
        self.pings += 1;
        let ping = self.pings;
        self.send(&format!("set game {game}\nping {ping}"))?;
        let pong = format!("pong {ping}");
        self.wait_for(&pong, |l| l == pong)?;
        self.send("go")?;
        let answer = self.wait_for("=== MOVE", |l| l.starts_with("==="))?;
        let word = answer.trim_start_matches('=').split_whitespace().next().unwrap_or("");
        let text = word.split('/').next().unwrap_or("");
        let bad =
            |reason: String| NboardError::BadMove { command: self.command.clone(), answer: answer.clone(), reason };
        let mv = record.current().parse_move(text).map_err(|e| bad(e.to_string()))?;
        if let Some(reason) = record.current().illegal_reason(mv) {
            return Err(bad(reason.to_string()));
        }
        Ok(mv)
    }
}

impl Drop for NboardPlayer {
    fn drop(&mut self) {
        // NBoard's way to end an engine; dropping the process then closes its input, gives it a
        // moment and ends it if it is still there.
        if let Some(process) = self.running.as_mut() {
            let _ = process.send("quit");
        }
    }
}

impl Player<Reversi> for NboardPlayer {
    fn describe(&self) -> String {
        format!("nboard:cmd={:?},depth={}", self.command, self.depth)
    }

    fn choose_move(&mut self, record: &Record<Reversi>) -> ReversiMove {
        let mut moves = Vec::new();
        record.current().legal_moves(&mut moves);
        if moves == [ReversiMove::Pass] {
            return ReversiMove::Pass;
        }
        match self.ask(record) {
            Ok(mv) => mv,
            Err(e) => {
                let fallback = moves.first().copied().unwrap_or(ReversiMove::Pass);
                eprintln!("{e}; playing {fallback} instead");
                self.last_error = Some(e.to_string());
                if !matches!(e, NboardError::BadMove { .. }) {
                    // Out of step or gone: start afresh next time.
                    self.running = None;
                }
                fallback
            }
        }
    }

    /// Starts the engine before a game, and waits until it answers a ping: a match times each
    /// move, and the start of the program (NTest reads its coefficient files then) is no move's
    /// thinking time.
    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock = time.cloned();
    }

    fn reset(&mut self) {
        if self.running.is_some() {
            return;
        }
        let started = self.start().and_then(|()| {
            self.pings += 1;
            let pong = format!("pong {}", self.pings);
            self.send(&format!("ping {}", self.pings))?;
            self.wait_for(&pong, |l| l == pong).map(|_| ())
        });
        if let Err(e) = started {
            // The first move starts it again and reports the failure as a move would.
            self.last_error = Some(e.to_string());
            self.running = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(script: &str) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let settings = Settings { max_time: Duration::from_secs(2), default_depth: 2, ..Settings::default() };
        serve(script.as_bytes(), &mut out, &mut err, &settings).unwrap();
        (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    }

    const GAME: &str = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)";

    /// The position after the game above.
    fn after_game() -> Reversi {
        *GAME.parse::<GgfGame>().unwrap().to_record().unwrap().current()
    }

    #[test]
    fn the_guis_clock_is_honoured() {
        // Depth 60 would take the whole --max-time of 2 s; 3 s for the game, of which black
        // has used 2.5 s (the times after its moves), leave a fraction of a second for a move.
        let game = "(;GM[Othello]PC[NBoard]TI[0:03]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5//1.5]W[F6]B[E6//1.0]W[F4];)";
        let started = Instant::now();
        let (out, err) = run(&format!("nboard 2\nset depth 60\nset game {game}\ngo\n"));
        let took = started.elapsed();
        assert!(out.lines().any(|l| l.starts_with("=== ")), "{out}");
        assert_eq!(err, "");
        assert!(took < Duration::from_millis(1000), "{took:?}");
        // Without a time control the move is answered all the same, within --max-time (how
        // much of it a search uses is measured by `tabletop bench reversi --time-use`, not here:
        // on a busy machine the time manager may rightly stop early).
        let (out, err) = run("nboard 2\nset depth 60\nmove F5\nmove F6/0.5/0.1\ngo\n");
        assert!(out.lines().any(|l| l.starts_with("=== ")), "{out}");
        assert_eq!(err, "");
    }

    #[test]
    fn go_answers_a_legal_move_with_eval_and_time() {
        let (out, err) = run(&format!("nboard 2\nset game {GAME}\nset depth 3\nping 1\ngo\n"));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "set myname tabletop");
        assert_eq!(lines[1], "pong 1");
        assert!(lines[2].starts_with("nodestats "));
        let answer = lines[3].strip_prefix("=== ").unwrap();
        let parts: Vec<&str> = answer.split('/').collect();
        assert_eq!(parts.len(), 3);
        let mv: ReversiMove = parts[0].parse().unwrap();
        assert!(after_game().is_legal(mv));
        assert!(parts[1].parse::<f64>().is_ok() && parts[2].parse::<f64>().is_ok());
        assert_eq!(err, "");
    }

    #[test]
    fn hint_lists_the_best_moves_best_first_then_status() {
        let (out, _) = run(&format!("set game {GAME}\nhint 3\nping 7\n"));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "status thinking");
        let searches: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("search ")).collect();
        assert_eq!(searches.len(), 3);
        let mut evals = Vec::new();
        for s in &searches {
            let words: Vec<&str> = s.split_whitespace().collect();
            assert!(after_game().is_legal(words[1].parse().unwrap()));
            assert_eq!(words[3], "0");
            evals.push(words[2].parse::<f64>().unwrap());
        }
        assert!(evals.windows(2).all(|w| w[0] >= w[1]), "{evals:?}");
        assert_eq!(&lines[lines.len() - 2..], ["status", "pong 7"]);
    }

    #[test]
    fn moves_are_played_and_bad_input_is_answered_not_fatal() {
        let script =
            "nboard 1\nmove f5/0.5/1\nF6\nmove z9\nmove a1\nset game (;GM[Chess];)\nset depth x\nfrobnicate 3\n\
                      set contempt 100\nanalyze\nlearn\nping 2\ngo\n";
        let (out, err) = run(script);
        assert!(out.contains("status move z9 refused"), "{out}");
        assert!(out.contains("status move a1 refused"), "{out}");
        assert!(out.contains("status cannot read the game: the game is \"Chess\", not Othello"), "{out}");
        assert!(out.contains("status analyze is not supported\nlearned\npong 2\n"), "{out}");
        assert!(err.contains("unknown command ignored: frobnicate 3"), "{err}");
        assert!(err.contains("nboard 1: version 2 is spoken"), "{err}");
        // After f5 and f6 it is black's move: the answer is one of black's moves there.
        let mut position = Reversi::new();
        position.play("f5".parse().unwrap()).unwrap();
        position.play("f6".parse().unwrap()).unwrap();
        let line = out.lines().find(|l| l.starts_with("=== ")).unwrap();
        let mv: ReversiMove = line[4..].split('/').next().unwrap().parse().unwrap();
        assert!(position.is_legal(mv), "{line}");
    }

    #[test]
    fn forced_passes_are_pa_and_finished_games_say_so() {
        // The first position of a seeded random game where the side to move must pass.
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut moves = Vec::new();
        let position = 'search: loop {
            let mut position = Reversi::new();
            while !position.is_over() {
                position.legal_moves(&mut moves);
                if moves == [ReversiMove::Pass] {
                    break 'search position;
                }
                position.play_unchecked(*moves.choose(&mut rng).unwrap());
            }
        };
        let game = GgfGame::from_record(&Record::new(position), "a", "b");
        let (out, _) = run(&format!("set game {game}\ngo\nhint 2\n"));
        assert!(out.starts_with("=== PA\nstatus thinking\nsearch PA "), "{out}");
        let over = GgfGame::from_record(&Record::new(format!("{} X", "X".repeat(64)).parse().unwrap()), "a", "b");
        let (out, _) = run(&format!("set game {over}\ngo\n"));
        assert_eq!(out, "status the game is over\n");
    }

    #[test]
    fn a_missing_engine_or_one_that_exits_gives_a_legal_fallback() {
        let record = Record::new(Reversi::new());
        let mut player = NboardPlayer::new("exit 3", 2, Duration::from_secs(5));
        let mv = player.choose_move(&record);
        assert!(record.current().is_legal(mv));
        assert!(player.last_error.as_deref().unwrap().contains("exited"), "{:?}", player.last_error);
        // An engine that answers an illegal move.
        let mut player = NboardPlayer::new(
            "while read l; do case $l in ping*) echo pong ${l#ping };; go) echo '=== A1';; esac; done",
            2,
            Duration::from_secs(5),
        );
        let mv = player.choose_move(&record);
        assert!(record.current().is_legal(mv));
        assert!(player.last_error.as_deref().unwrap().contains("answered \"=== A1\""), "{:?}", player.last_error);
        // One that never answers.
        let mut player = NboardPlayer::new("sleep 5", 2, Duration::from_millis(200));
        let mv = player.choose_move(&record);
        assert!(record.current().is_legal(mv));
        assert!(player.last_error.as_deref().unwrap().contains("sent no pong 1"), "{:?}", player.last_error);
    }

    #[test]
    fn a_scripted_engine_is_followed() {
        // A fake engine that always answers D3 (legal at the start) in Edax's spaced format.
        let mut player = NboardPlayer::new("while read l; do case $l in ping*) echo pong ${l#ping };; go) echo 'status x'; echo '=== d3 -1.00 0.0';; esac; done", 2, Duration::from_secs(5));
        let record = Record::new(Reversi::new());
        assert_eq!(player.choose_move(&record).to_string(), "d3");
        assert_eq!(player.choose_move(&record).to_string(), "d3");
        assert_eq!(player.last_error, None);
    }

    #[test]
    fn the_engines_start_is_not_the_first_moves_time() {
        // An engine that takes 2 s to start (as NTest reading its coefficients, slower) and
        // then answers at once: after `reset`, as a match calls it before each game, the first
        // move is only the move (a 1.5 s margin for a busy machine).
        let mut player = NboardPlayer::new(
            "sleep 2; while read l; do case $l in ping*) echo pong ${l#ping };; go) echo '=== D3';; esac; done",
            2,
            Duration::from_secs(10),
        );
        player.reset();
        let started = Instant::now();
        assert_eq!(player.choose_move(&Record::new(Reversi::new())).to_string(), "d3");
        let took = started.elapsed();
        assert!(took < Duration::from_millis(1500), "{took:?}");
        assert_eq!(player.last_error, None);
    }
}
