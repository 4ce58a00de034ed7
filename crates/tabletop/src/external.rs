//! External players: a program in any language takes a seat of any game, speaking a small line
//! protocol over its standard input and output (documented in `docs/PROTOCOL.md`).
//!
//! `external:cmd="python3 my_bot.py",timeout=5s` runs `sh -c COMMAND` once per game. tabletop
//! writes (each line ends with a newline):
//!
//! ```text
//! tabletop 1                      the protocol's version
//! game connect                    the game's name in the registry
//! variant ConnectVariant { width: 7, height: 6, line: 4 }
//! seats 2                         how many seats the game has
//! seat 1                          the bot's seat, from 1 (seat 1 moves first)
//! start                           the game's starting position (after any opening), in its notation
//! ```
//!
//! then, each time the bot is to move:
//!
//! ```text
//! position 44                     the position in the game's notation (Game::notation)
//! moves 4 4                       every move since `start`, in the game's move notation
//! legal 1 2 3 4 5 6 7             the legal moves, in the game's move notation
//! time 10000                      the time budget for this move, in milliseconds
//! go
//! ```
//!
//! Under a game clock the `time` line says more: `time 2500 left 295000 300000 increment 3000
//! control 5+3` (the budget, then every seat's time left in seat order, the increment, and
//! the control in `tabletop`'s syntax, all times in milliseconds). The bot is then waited for as
//! long as its clock lasts, and loses on time when it runs out.
//!
//! ```text
//! ```
//!
//! and the bot answers one line, `move TEXT` (`TEXT` one of the legal moves) within the timeout
//! (plus [`STARTUP_ALLOWANCE`] for a game's first answer). Empty lines and lines starting with
//! `#` are ignored. When the game ends: `end win|loss|draw REASON` from the
//! bot's point of view, then its standard input is closed. A bot that exits, answers anything
//! else, answers a move that is not legal or does not answer within the timeout forfeits the
//! game ([`Forfeit`]), and its process is ended.
//!
//! Only local front ends (the terminal's `play` and `match`) offer this player, through
//! [`make_local_player`]: a game's ordinary player table ([`Players`](crate::players::Players),
//! which the server uses) never contains it, so a web request cannot start a process.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use crate::clock::TimeControl;
use crate::game::{Game, Outcome, Seat, Status};
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::players::{Forfeit, Player, TimeLeft};
use crate::record::Record;

/// The version of the line protocol, sent in the first line (`tabletop 1`).
pub const PROTOCOL_VERSION: u32 = 1;

/// The `external` player kind, offered by every game to local front ends only.
pub const EXTERNAL_KIND: PlayerKind = PlayerKind {
    name: "external",
    settings: &["cmd", "timeout", "time"],
    help: "a program speaking tabletop's line protocol (docs/PROTOCOL.md): cmd=\"COMMAND\" (run by sh -c), \
           timeout per move (default 10s; a bot that takes longer forfeits), time=the budget announced to it \
           (default: the timeout)",
};

/// How long a bot may take for a move when its spec sets no `timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Extra time for a game's first answer, for the program to start (an interpreter loading its
/// modules): starting does not count against the first move.
pub const STARTUP_ALLOWANCE: Duration = Duration::from_secs(5);

/// The longest line read from a bot; a longer one is cut (and so is not a valid answer).
const MAX_LINE: u64 = 64 * 1024;

/// What a bot is told of a game: by default everything ([`View::full`]: the variant as the
/// library prints it, [`Game::notation`], every move's notation); a game with hidden
/// information (Mathable's racks and bag) gives its own, which shows a seat only what it may see.
pub struct View<G: Game> {
    /// The `variant` line for a game from this position.
    pub variant: fn(&G) -> String,
    /// The position as `seat` may see it (one line).
    pub position: fn(&G, Seat) -> String,
    /// A move of the history as a seat sees it (`own`: it made the move), without spaces.
    pub history_move: fn(&G::Move, bool) -> String,
}

impl<G: Game> View<G> {
    /// Everything: `{:?}` of the variant, [`Game::notation`] and the moves' notation.
    pub fn full() -> Self {
        View {
            variant: |g| format!("{:?}", g.variant()),
            position: |g, _| g.notation(),
            history_move: |m, _| m.to_string(),
        }
    }
}

/// Builds the player `spec` names for a local front end: `external` (see [`EXTERNAL_KIND`]), or
/// any other through `make` (the game's own players). An unknown name's error lists `external`
/// among the valid ones.
///
/// ```
/// use tabletop::external::make_local_player;
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::players::Players;
/// let start = Connect::new(ConnectVariant::connect3());
/// let make = |spec: &tabletop::PlayerSpec| Connect::make_player(spec, &start, 1);
/// let spec = r#"external:cmd="python3 bot.py",timeout=5s"#.parse().unwrap();
/// assert_eq!(make_local_player(&spec, make).unwrap().describe(), r#"external:cmd=python3 bot.py,timeout=5s"#);
/// assert!(Connect::make_player(&spec, &start, 1).is_err()); // never for the server
/// let unknown = make_local_player(&"chess".parse().unwrap(), make).err().unwrap();
/// assert!(unknown.to_string().ends_with(", external"));
/// assert!(make_local_player(&"external".parse().unwrap(), make).is_err()); // cmd= is needed
/// ```
pub fn make_local_player<G: Game>(
    spec: &PlayerSpec,
    make: impl FnOnce(&PlayerSpec) -> Result<Box<dyn Player<G>>, SpecError>,
) -> Result<Box<dyn Player<G>>, SpecError> {
    make_local_player_with(spec, View::full(), make)
}

/// [`make_local_player`], telling an external player what `view` shows (for games with hidden
/// information).
pub fn make_local_player_with<G: Game>(
    spec: &PlayerSpec,
    view: View<G>,
    make: impl FnOnce(&PlayerSpec) -> Result<Box<dyn Player<G>>, SpecError>,
) -> Result<Box<dyn Player<G>>, SpecError> {
    if spec.name == EXTERNAL_KIND.name {
        return Ok(Box::new(ExternalPlayer::<G>::from_spec(spec)?.with_view(view)));
    }
    make(spec).map_err(|e| match e {
        SpecError::UnknownName { name, valid } => {
            SpecError::UnknownName { name, valid: format!("{valid}, {}", EXTERNAL_KIND.name) }
        }
        other => other,
    })
}

/// `text` for a duration in messages: `5s`, `250ms`, `1.5s`.
///
/// ```
/// use std::time::Duration;
/// use tabletop::external::duration_text;
/// assert_eq!(duration_text(Duration::from_secs(5)), "5s");
/// assert_eq!(duration_text(Duration::from_millis(250)), "250ms");
/// assert_eq!(duration_text(Duration::from_millis(1500)), "1.5s");
/// ```
pub fn duration_text(duration: Duration) -> String {
    let ms = duration.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{}s", ms as f64 / 1000.0)
    }
}

/// Why a line could not be read from a [`BotProcess`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// No line within the time allowed.
    #[error("no answer within {}", duration_text(*.0))]
    Timeout(Duration),
    /// The process closed its output (it has probably exited).
    #[error("the program closed its output")]
    Closed,
}

/// A program run by `sh -c COMMAND` with piped standard input and output (its standard error
/// is tabletop's): lines are written to it, and its lines are read by a thread so that every
/// wait can time out. Dropping it closes its input, gives it a moment to exit and then ends it
/// (with everything it started, on Linux: it runs in its own process group).
pub struct BotProcess {
    command: String,
    child: Child,
    /// Lines for the writer thread, which owns the program's standard input: a program that
    /// stops reading cannot block tabletop (every wait is on its answers, which time out).
    input: Option<Sender<String>>,
    lines: Receiver<String>,
}

impl BotProcess {
    /// Starts `sh -c command`.
    pub fn spawn(command: &str) -> io::Result<BotProcess> {
        let mut builder = Command::new("sh");
        builder.arg("-c").arg(command).stdin(Stdio::piped()).stdout(Stdio::piped());
        #[cfg(target_os = "linux")]
        {
            // Its own process group, so that ending it ends what the shell started too.
            use std::os::unix::process::CommandExt;
            builder.process_group(0);
        }
        let mut child = builder.spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("no pipes to the program"));
        };
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line).trim_end_matches(['\n', '\r']).to_string();
                        if send.send(text).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let (input, to_write) = mpsc::channel::<String>();
        std::thread::spawn(move || write_lines(stdin, to_write));
        Ok(BotProcess { command: command.to_string(), child, input: Some(input), lines })
    }

    /// The command it runs.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Writes `text` and a newline (in the background, in order); an error means that writing
    /// to the program already failed (it has probably exited). A program that exits is also
    /// seen by [`BotProcess::next_line`].
    pub fn send(&mut self, text: &str) -> io::Result<()> {
        let input = self.input.as_ref().ok_or_else(|| io::Error::other("its input is closed"))?;
        input
            .send(format!("{text}\n"))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the program stopped reading"))
    }

    /// The next line it writes, waiting until `deadline` at most.
    pub fn next_line(&mut self, deadline: Instant) -> Result<String, ReadError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(ReadError::Timeout(wait)),
            Err(RecvTimeoutError::Disconnected) => Err(ReadError::Closed),
        }
    }

    /// Closes its standard input (it sees the end of its input).
    pub fn close_input(&mut self) {
        // The writer thread writes what is queued, then closes the pipe.
        self.input = None;
    }

    /// How it ended, in words (`exit status 1`, `signal 9`), waiting for that up to `wait`;
    /// `None` if it is still running.
    pub fn exit_status(&mut self, wait: Duration) -> Option<String> {
        let deadline = Instant::now() + wait;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(describe_status(status)),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// Ends it now (its whole process group on Linux).
    fn kill(&mut self) {
        #[cfg(target_os = "linux")]
        if let Ok(Ok(pid)) = self.child.try_wait().map(|_| i32::try_from(self.child.id())) {
            // SAFETY: kill has no memory effects; the group is the child's own (process_group(0)
            // above), and the child is not reaped yet, so its id names no other process group.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The writer thread: writes each queued text to the program's standard input and flushes,
/// until the queue closes (then the pipe closes: the program sees the end of its input) or a
/// write fails (the program has exited).
fn write_lines(mut stdin: ChildStdin, texts: Receiver<String>) {
    for text in texts {
        if stdin.write_all(text.as_bytes()).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// An exit status in words.
fn describe_status(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => status.to_string(),
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        self.close_input();
        // Give it a moment to finish by itself, then make sure it is gone.
        if self.exit_status(Duration::from_millis(500)).is_none() {
            self.kill();
        }
    }
}

/// A player that runs a program speaking the line protocol (see the [module](self)), one
/// process per game.
///
/// [`Player::choose_move_or_forfeit`] reports a bot that cannot be started, exits, times out or
/// answers something that is not a legal move as a [`Forfeit`]. The infallible
/// [`Player::choose_move`] (used by code that knows no forfeits) says why on standard error and
/// plays the first legal move instead. A process using it should not die of `SIGPIPE` when the
/// bot exits (Rust programs ignore it unless told otherwise; `tabletop` keeps it ignored when a
/// `cmd=` is given).
pub struct ExternalPlayer<G: Game> {
    command: String,
    timeout: Duration,
    time: Duration,
    description: String,
    running: Option<BotProcess>,
    /// The bot's seat in the game it plays (known from its first move).
    seat: Option<Seat>,
    view: View<G>,
    /// The game clock, when the front end keeps one: announced with each move, and the bot
    /// is waited for as long as its clock lasts (the front end judges the time).
    clock: Option<TimeLeft>,
}

impl<G: Game> ExternalPlayer<G> {
    /// A player running `command`, announcing `time` per move and waiting `timeout` at most.
    pub fn new(command: &str, timeout: Duration, time: Duration) -> Self {
        ExternalPlayer {
            command: command.to_string(),
            timeout,
            time,
            description: format!("external:cmd={command:?}"),
            running: None,
            seat: None,
            view: View::full(),
            clock: None,
        }
    }

    /// The same player, telling its bot what `view` shows.
    pub fn with_view(mut self, view: View<G>) -> Self {
        self.view = view;
        self
    }

    /// The player an `external:cmd=...,timeout=...,time=...` spec describes.
    pub fn from_spec(spec: &PlayerSpec) -> Result<Self, SpecError> {
        spec.check(&[EXTERNAL_KIND])?;
        let command = spec.settings.get("cmd").filter(|c| !c.trim().is_empty()).ok_or_else(|| SpecError::BadValue {
            key: "cmd".to_string(),
            value: String::new(),
            expected: "the bot's command, e.g. external:cmd=\"python3 my_bot.py\"".to_string(),
        })?;
        let positive = |key: &str, value: Option<Duration>| match value {
            Some(d) if d.is_zero() => Err(SpecError::BadValue {
                key: key.to_string(),
                value: spec.settings[key].clone(),
                expected: "a duration above zero, such as 500ms or 5s".to_string(),
            }),
            _ => Ok(value),
        };
        let timeout = positive("timeout", spec.get_duration("timeout")?)?.unwrap_or(DEFAULT_TIMEOUT);
        let time = positive("time", spec.get_duration("time")?)?.unwrap_or(timeout);
        if time > timeout {
            return Err(SpecError::BadValue {
                key: "time".to_string(),
                value: spec.settings["time"].clone(),
                expected: format!("at most the timeout ({})", duration_text(timeout)),
            });
        }
        let mut player = ExternalPlayer::new(command, timeout, time);
        player.description = spec.to_string();
        Ok(player)
    }

    /// Starts the bot for the game of `record` (if not running) and sends the greeting.
    fn start(&mut self, record: &Record<G>, seat: usize) -> Result<&mut BotProcess, Forfeit> {
        if self.running.is_none() {
            let mut process = BotProcess::spawn(&self.command)
                .map_err(|e| Forfeit { reason: format!("cannot start the bot {:?}: {e}", self.command) })?;
            let start = record.start();
            let greeting = format!(
                "tabletop {PROTOCOL_VERSION}\ngame {}\nvariant {}\nseats {}\nseat {}\nstart {}",
                G::NAME,
                one_line(&(self.view.variant)(start)),
                start.num_seats(),
                seat + 1,
                one_line(&(self.view.position)(start, Seat(seat as u8))),
            );
            if process.send(&greeting).is_err() {
                return Err(gone(&mut process, "before its first move"));
            }
            self.running = Some(process);
            self.seat = Some(Seat(seat as u8));
        }
        self.running.as_mut().ok_or_else(|| Forfeit { reason: "the bot is not running".to_string() })
    }

    /// Asks the bot for its move in the last position of `record`.
    fn ask(&mut self, record: &Record<G>) -> Result<G::Move, Forfeit> {
        let position = record.current();
        let Status::ToMove(seat) = position.status() else {
            return Err(Forfeit { reason: "asked for a move in a finished game".to_string() });
        };
        let (timeout, time) = match &self.clock {
            // Waited for as long as its clock lasts (all its periods too), and a moment more:
            // the front end's clock decides whether the answer came in time.
            Some(clock) => {
                let periods = match clock.control {
                    TimeControl::ByoYomi { period, .. } => period * clock.periods.saturating_sub(1),
                    _ => Duration::ZERO,
                };
                (clock.own + periods + Duration::from_secs(1), clock.budget())
            }
            None => (self.timeout, self.time),
        };
        // Each move as the bot may see it: the seat to move before it made it.
        let history: Vec<String> = record
            .positions()
            .iter()
            .zip(record.moves())
            .map(|(before, mv)| (self.view.history_move)(mv, before.status().to_move() == Some(seat)))
            .collect();
        let shown = (self.view.position)(position, seat);
        let clock = match &self.clock {
            Some(clock) => format!(
                " left {} increment {} control {}",
                clock.seats.iter().map(|t| t.as_millis().to_string()).collect::<Vec<_>>().join(" "),
                clock.control.increment().as_millis(),
                clock.control,
            ),
            None => String::new(),
        };
        let starting = self.running.is_none();
        let process = self.start(record, seat.index())?;
        let mut legal = Vec::new();
        position.legal_moves(&mut legal);
        let words = |moves: &mut dyn Iterator<Item = String>| moves.collect::<Vec<_>>().join(" ");
        let request = format!(
            "position {}\nmoves {}\nlegal {}\ntime {}{clock}\ngo",
            one_line(&shown),
            history.join(" "),
            words(&mut legal.iter().map(|m| m.to_string())),
            time.as_millis(),
        );
        if process.send(&request).is_err() {
            return Err(gone(process, "before answering"));
        }
        let deadline = Instant::now() + timeout + if starting { STARTUP_ALLOWANCE } else { Duration::ZERO };
        let answer = loop {
            match process.next_line(deadline) {
                Ok(line) if line.trim().is_empty() || line.trim_start().starts_with('#') => {}
                Ok(line) => break line,
                Err(ReadError::Timeout(_)) => {
                    return Err(Forfeit { reason: format!("the bot timed out after {}", duration_text(timeout)) });
                }
                Err(ReadError::Closed) => return Err(gone(process, "before answering")),
            }
        };
        let text = match answer.trim().split_once(char::is_whitespace) {
            Some(("move", text)) if !text.trim().is_empty() => text.trim(),
            _ => return Err(Forfeit { reason: format!("the bot answered {:?}, not \"move MOVE\"", shorten(&answer)) }),
        };
        let mv = position
            .parse_move(text)
            .map_err(|e| Forfeit { reason: format!("the bot's move {:?} cannot be read: {e}", shorten(text)) })?;
        match position.illegal_reason(mv) {
            Some(e) => Err(Forfeit { reason: format!("the bot's move {text} is not legal: {e}") }),
            None => Ok(mv),
        }
    }
}

/// A forfeit for a bot that stopped reading or writing: how it ended, if it did.
fn gone(process: &mut BotProcess, when: &str) -> Forfeit {
    let reason = match process.exit_status(Duration::from_secs(1)) {
        Some(status) => format!("the bot exited {when} ({status})"),
        None => format!("the bot closed its output {when}"),
    };
    Forfeit { reason }
}

/// Text on one line (a notation with a line break would break the protocol's framing).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// At most 80 characters of a bot's text, for messages.
fn shorten(text: &str) -> String {
    let mut short: String = text.chars().take(80).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

impl<G: Game> Player<G> for ExternalPlayer<G> {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn choose_move(&mut self, record: &Record<G>) -> G::Move {
        match self.choose_move_or_forfeit(record) {
            Ok(mv) => mv,
            Err(forfeit) => {
                let mut moves = Vec::new();
                record.current().legal_moves(&mut moves);
                eprintln!("{}: {forfeit}; playing the first legal move instead", self.description);
                // Never called in a finished game: a game going on has a legal move.
                *moves.first().expect("choose_move is only called while the game goes on")
            }
        }
    }

    fn choose_move_or_forfeit(&mut self, record: &Record<G>) -> Result<G::Move, Forfeit> {
        let result = self.ask(record);
        if result.is_err() {
            // Out of step or gone: it is not asked again in this game.
            self.running = None;
        }
        result
    }

    fn game_over(&mut self, _record: &Record<G>, outcome: Outcome, reason: &str) {
        if let Some(mut process) = self.running.take() {
            let result = match self.seat {
                Some(seat) => match outcome.result_for(seat) {
                    1 => "win",
                    -1 => "loss",
                    _ => "draw",
                },
                None => "draw",
            };
            let _ = process.send(format!("end {result} {}", one_line(reason)).trim_end());
            // Dropping it closes its input and waits a moment for it to exit.
        }
    }

    fn reset(&mut self) {
        self.running = None;
        self.seat = None;
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock = time.cloned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Caps;

    #[test]
    fn no_game_offers_external_players_to_the_server() {
        let spec: PlayerSpec = r#"external:cmd="touch external-from-the-web""#.parse().unwrap();
        let caps = Caps { max_think: Duration::from_secs(10), engine_memory: 64 << 20 };
        for entry in crate::registry::GAMES {
            assert!(entry.player_kinds.iter().all(|k| k.name != EXTERNAL_KIND.name), "{}", entry.name);
            let mut secret = serde_json::json!({});
            entry.session.complete_secret(&mut secret);
            let session = entry.session.new_session(&serde_json::json!({}), &secret).unwrap();
            let refused = session.check_spec(&spec, &caps).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(refused.contains("unknown player \"external\""), "{}: {refused:?}", entry.name);
        }
    }
}
