//! The terminal play loop shared by the games: seats and `--player SEAT=SPEC`, the intro, the
//! same commands everywhere (`help`, `hint`, `undo`, `new`, `save FILE`, `load FILE`, `quit`),
//! computer moves, and one message at the end of input. What differs between games (drawing
//! the board, the prompt, the words for results and hints) is a small [`Presenter`].

use std::time::{Duration, Instant};

use crate::arena::forfeit_outcome;
use crate::clock::{Clock, MoveTime, TimeControl};
use crate::player_spec::{assign_seats, SeatError};
use crate::players::TimeLeft;
use crate::record::ClockLog;
use crate::tools::{bail, tool_error, Context, ToolResult as Result};
use crate::{Analyze, Game, Outcome, Player, PlayerSpec, Record, Seat, Status};

use crate::tools::{read_capped, SAVE_MAX_BYTES};

use crate::tools::common::Input;

/// What a game adds to the shared loop.
pub trait Presenter<G: Analyze> {
    /// The first line of the intro: the game and its variant.
    fn title(&self, start: &G) -> String;
    /// Each seat's name in messages (`Black (X)`, `o (orange)`, `X`).
    fn seat_name(&self, seat: Seat) -> String;
    /// The words that name a seat in `--player SEAT=SPEC`, besides its number (1-based).
    fn seat_words(&self, seat: Seat) -> &'static [&'static str];
    /// Builds a computer player from a spec that is not `human`.
    fn make_player(&self, spec: &PlayerSpec, seat: Seat, seed: u64) -> Result<Box<dyn Player<G>>>;
    /// The board, ending with a newline.
    fn board(&self, record: &Record<G>, color: bool) -> String;
    /// A line under the board while the game goes on (the phase, what to type), if any.
    fn situation(&self, _record: &Record<G>) -> Option<String> {
        None
    }
    /// The prompt for the person to move.
    fn prompt(&self, record: &Record<G>) -> String;
    /// How to type a move, for `help`.
    fn move_help(&self, position: &G) -> String;
    /// The computer players offered, in words, for the intro and `help` (Reversi's levels).
    fn computers(&self) -> Option<String> {
        None
    }
    /// The message for input that is not a legal move.
    fn refusal(&self, _record: &Record<G>, reason: &str) -> String {
        format!("{reason}.")
    }
    /// Under a rule where invalid input forfeits the turn (Connect's origin document): the
    /// position after the forfeit and the message saying so, if any (the document's program
    /// says nothing). Forfeits cannot be undone.
    fn forfeit(&self, _position: &G, _reason: &str) -> Option<(G, Option<String>)> {
        None
    }
    /// A move the side to move must make without being asked (Reversi's pass), with a message.
    fn forced_move(&self, _position: &G) -> Option<(G::Move, String)> {
        None
    }
    /// The result of a finished game, in words.
    fn result(&self, record: &Record<G>) -> String;
    /// A game's own command at the prompt (Mathable's `P`, `S`, `E`, `T`), which may ask
    /// follow-up questions: the moves it stands for, played in order (none: handled without a
    /// move), or `None` when `word` is not one of the game's commands.
    fn command(&mut self, _word: &str, _rest: &str, _record: &Record<G>, _input: &mut Input) -> Option<Vec<G::Move>> {
        None
    }
    /// A question after a person's move (Mathable's extra draw): a move to play next, if any.
    fn follow_up(&mut self, _record: &Record<G>, _input: &mut Input) -> Option<G::Move> {
        None
    }
    /// Before a person is asked for a move (Mathable hides racks between people at one
    /// terminal); false when the input ended.
    fn before_person(&mut self, _record: &Record<G>, _input: &mut Input) -> bool {
        true
    }
    /// The line for a computer's move, in the game's words (default: `NAME (SPEC) plays MOVE`).
    fn announce(&self, _before: &G, _mv: G::Move, _spec: &str) -> Option<String> {
        None
    }
    /// The game's own save format, if it has one (default: `tabletop GAME`, position, moves).
    fn save_text(&self, _record: &Record<G>) -> Option<String> {
        None
    }
    /// The text to save to `file` (a format chosen by its name, e.g. Reversi's `.ggf`); by
    /// default [`Presenter::save_text`].
    fn save_text_for(&self, _file: &str, record: &Record<G>) -> Option<String> {
        self.save_text(record)
    }
    /// Reads the game's own save format (see [`Presenter::save_text`]); `None` when the game
    /// has none.
    fn load_text(&mut self, _text: &str) -> Option<Result<Record<G>>> {
        None
    }
    /// A hint for the side to move: the best move and its value (by default the analysis's
    /// best move within a second).
    fn hint(&mut self, record: &Record<G>) -> String {
        analysis_hint(record, Duration::from_secs(1))
    }
}

/// A seat at the terminal: a person or a computer player with its spec.
pub enum Seated<G: Game> {
    /// A person types the moves.
    Human,
    /// A computer player and the spec it was built from.
    Computer(Box<dyn Player<G>>, String),
}

/// `tabletop play`'s clock flag, the same for every game.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ClockArgs {
    /// Play on game clocks, e.g. `5+3` (5 minutes plus 3 seconds a move), `0:30+0.2`,
    /// `10+30x5` (byo-yomi) or `3d` (days a move): at a terminal both clocks tick on the line
    /// above the prompt (in a transcript they are part of each prompt), computers play by
    /// theirs, and a player out of time loses. A computer's own `clock=`
    /// setting (`--player 2=engine:clock=1+0`) gives it another control.
    #[arg(long, value_name = "CONTROL")]
    pub tc: Option<TimeControl>,
}

/// Takes each seat's `clock=` setting out of its spec ([`PlayerSpec::take_clock`]): each
/// seat's time control, its own or else `tc` (none without either).
pub fn take_seat_clocks(specs: &mut [PlayerSpec], tc: Option<TimeControl>) -> Result<Vec<TimeControl>> {
    specs
        .iter_mut()
        .map(|spec| {
            let own = spec.take_clock().map_err(|e| tool_error!("--player {spec}: {e}"))?;
            Ok(own.or(tc).unwrap_or(TimeControl::Unlimited))
        })
        .collect()
}

/// Reads the `--player` options (see [`assign_seats`]).
pub fn seat_specs<G: Analyze>(
    presenter: &dyn Presenter<G>,
    defaults: &[PlayerSpec],
    options: &[String],
) -> Result<Vec<PlayerSpec>> {
    assign_seats(defaults, options, |s| presenter.seat_words(s)).map_err(|e| match e {
        SeatError::UnknownSeat { .. } => tool_error!("--player {e}"),
        SeatError::Spec(e) => e.into(),
    })
}

/// The seats for `specs`: people for `human`, else the presenter's players (seeded by seat).
pub fn seat_players<G: Analyze>(
    presenter: &dyn Presenter<G>,
    specs: &[PlayerSpec],
    seed: u64,
) -> Result<Vec<Seated<G>>> {
    specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            if spec.name == "human" {
                if !spec.settings.is_empty() {
                    bail!("player \"human\" has no settings");
                }
                Ok(Seated::Human)
            } else {
                let player = presenter.make_player(spec, Seat(i as u8), seed.wrapping_add(i as u64))?;
                Ok(Seated::Computer(player, spec.to_string()))
            }
        })
        .collect()
}

/// How an origin document's program frames its output, beyond what every `--document` mode
/// does (no intro, the program ends with the game): see [`Table::document_program`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DocumentProgram {
    /// The program prints a blank line before every board.
    pub blank_line_before_board: bool,
    /// The program has no commands: `help`, `hint`, `undo`, `quit`, ... and an empty line are
    /// input like any other, read as a move (and refused as one).
    pub no_commands: bool,
}

/// The terminal game: a record played by seats, drawn by a presenter.
pub struct Table<'a, G: Analyze> {
    presenter: &'a mut dyn Presenter<G>,
    seats: Vec<Seated<G>>,
    record: Record<G>,
    start: G,
    color: bool,
    /// An origin document's program: no intro, the program ends with the game and says nothing
    /// more at the end of input.
    document: bool,
    /// The seat that forfeited the game and why (an external bot that crashed, timed out or
    /// answered nonsense): the game is over, lost by that seat.
    forfeit: Option<(Seat, String)>,
    /// Have the computer players been told that the game is over?
    told_over: bool,
    /// The document program's framing (when `document`).
    program: DocumentProgram,
    /// Does the game have a review (`tabletop review GAME`), to suggest after a game?
    review: bool,
    /// The game clocks, when the game is timed (`--tc`).
    clocks: Option<TableClocks>,
}

/// The clocks of a timed game at the terminal: one a seat (controls may differ), read from the
/// wall time since the table opened, and every move's time.
struct TableClocks {
    /// Each seat's clock (a clock of one seat each).
    seats: Vec<Clock>,
    /// When the table opened: every clock reads the time since.
    epoch: Instant,
    /// The number of moves when the clocks were last pressed.
    ply: usize,
    /// Every move's time, in the record's order.
    moves: Vec<Option<MoveTime>>,
    /// The seat whose time ran out, if one did.
    flagged: Option<Seat>,
}

impl TableClocks {
    fn now(&self) -> Duration {
        self.epoch.elapsed()
    }

    /// What `seat` is told of the clocks before it moves.
    fn time_left<G: Game>(&self, seat: Seat, position: &G) -> Option<TimeLeft> {
        let now = self.now();
        let clock = self.seats.get(seat.index())?;
        let showing = clock.showing(0, now)?;
        Some(TimeLeft {
            control: clock.control,
            own: showing.time,
            periods: showing.periods,
            seats: self.seats.iter().map(|c| c.remaining(0, now).unwrap_or_default()).collect(),
            moves_left: position.expected_moves_left(),
            move_times: self.moves.iter().map(|m| m.map(|m| Duration::from_millis(m.used_ms))).collect(),
        })
    }

    /// The clock log of the game for its saved text.
    fn log(&self) -> ClockLog {
        let controls: Vec<TimeControl> = self.seats.iter().map(|c| c.control).collect();
        let same = controls.windows(2).all(|w| w[0] == w[1]);
        ClockLog { controls: if same { controls[..1].to_vec() } else { controls }, moves: self.moves.clone() }
    }
}

/// Every limited clock as the prompt shows it at `now` (the time since the table opened), each
/// seat's clock named by `names`: `[Black 4:58 | White 5:00] `; `None` when no clock is limited.
/// A running clock at zero says so, for the person still typing.
fn clock_line_at(seats: &[Clock], names: &[String], now: Duration) -> Option<String> {
    let shown: Vec<String> = seats
        .iter()
        .zip(names)
        .filter_map(|(clock, name)| {
            let showing = clock.showing(0, now)?;
            let mut text = format!("{name} {}", clock_text(showing.time));
            if showing.in_periods || showing.periods > 0 {
                let plural = if showing.periods == 1 { "" } else { "s" };
                text.push_str(&format!(" ({} period{plural})", showing.periods));
            }
            if clock.running_seat().is_some() && clock.flagged(now).is_some() {
                text.push_str(" (out of time)");
            }
            Some(text)
        })
        .collect();
    (!shown.is_empty()).then(|| format!("[{}] ", shown.join(" | ")))
}

/// The clocks' line redrawn in place while a person thinks at a terminal, so that both clocks
/// visibly tick: the line stands above the prompt, and a thread rewrites it (saving and restoring
/// the cursor, so what the person is typing stays put) until the person's line is read.
struct LiveClocks {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LiveClocks {
    /// How often the line is redrawn: often enough for the tenths shown under ten seconds.
    const REDRAW: Duration = Duration::from_millis(100);

    /// Prints the clocks' line and starts redrawing it; the prompt follows on the next line.
    fn start(seats: Vec<Clock>, names: Vec<String>, epoch: Instant) -> Option<LiveClocks> {
        use std::io::Write;
        use std::sync::atomic::{AtomicBool, Ordering};
        let line = clock_line_at(&seats, &names, epoch.elapsed())?;
        println!("{}", line.trim_end());
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut shown = line;
            while !stopped.load(Ordering::Acquire) {
                std::thread::sleep(Self::REDRAW);
                let Some(line) = clock_line_at(&seats, &names, epoch.elapsed()) else { break };
                if line == shown {
                    continue;
                }
                let mut out = std::io::stdout().lock();
                // Checked again under the lock: once the person's line is read, the cursor has
                // left the prompt's line and the line above is no longer the clocks'.
                if stopped.load(Ordering::Acquire) {
                    break;
                }
                let _ = out.write_all(redraw_above(line.trim_end()).as_bytes());
                let _ = out.flush();
                shown = line;
            }
        });
        Some(LiveClocks { stop, thread: Some(thread) })
    }
}

impl Drop for LiveClocks {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The terminal codes that rewrite the line above the cursor with `line` and put the cursor
/// back where it was (ANSI/VT100: save the cursor, up one line, clear it, write, restore).
fn redraw_above(line: &str) -> String {
    format!("\x1b7\x1b[1A\r\x1b[2K{line}\x1b8")
}

/// A clock's time for people: `m:ss`, with tenths under ten seconds, hours and days when long.
///
/// ```
/// use std::time::Duration;
/// use tabletop::tools::play::clock_text;
/// assert_eq!(clock_text(Duration::from_millis(298_400)), "4:58");
/// assert_eq!(clock_text(Duration::from_millis(9_450)), "0:09.4");
/// assert_eq!(clock_text(Duration::from_secs(3 * 86_400 + 3_600)), "3d 1:00:00");
/// ```
pub fn clock_text(time: Duration) -> String {
    let ms = time.as_millis() as u64;
    let (days, hours, minutes, seconds) = (ms / 86_400_000, ms / 3_600_000 % 24, ms / 60_000 % 60, ms / 1000 % 60);
    if ms < 10_000 {
        format!("0:{seconds:02}.{}", ms / 100 % 10)
    } else if days > 0 {
        format!("{days}d {hours}:{minutes:02}:{seconds:02}")
    } else if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// What the loop does after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    /// Go on, drawing the board first when `show`.
    Go {
        /// Has the board changed since it was last drawn?
        show: bool,
    },
    /// The table closes.
    Stop,
}

const COMMANDS: &str = "hint (a suggestion), undo (take back your last move), new (start again), \
save FILE, load FILE, help, quit";

impl<'a, G: Game + Analyze> Table<'a, G> {
    /// A table for a game from `start`.
    pub fn new(presenter: &'a mut dyn Presenter<G>, seats: Vec<Seated<G>>, start: G, color: bool) -> Self {
        Table {
            presenter,
            seats,
            record: Record::new(start.clone()),
            start,
            color,
            document: false,
            forfeit: None,
            told_over: false,
            program: DocumentProgram::default(),
            review: true,
            clocks: None,
        }
    }

    /// Plays on game clocks: `controls` gives each seat's control (one for all, or one each;
    /// unlimited seats keep no time). The side to move's time runs from the table's start;
    /// the players see every clock at each prompt, computers are told theirs, and a seat whose
    /// time runs out loses on time (or draws, as the game's rule says).
    pub fn with_clocks(mut self, controls: &[TimeControl]) -> Self {
        let seats = self.seats.len();
        let control = |seat: usize| match controls {
            [all] => *all,
            each => each.get(seat).copied().unwrap_or(TimeControl::Unlimited),
        };
        if (0..seats).any(|seat| control(seat).is_limited()) {
            let clocks = (0..seats).map(|seat| Clock::new(control(seat), 1)).collect();
            self.clocks =
                Some(TableClocks { seats: clocks, epoch: Instant::now(), ply: 0, moves: Vec::new(), flagged: None });
        }
        self
    }

    /// Whether the game has a review to suggest after a game (`tabletop review GAME`; default
    /// true).
    pub fn reviewable(mut self, review: bool) -> Self {
        self.review = review;
        self
    }

    /// Plays as the origin document's program (no intro, the program ends with the game).
    pub fn document_mode(mut self, document: bool) -> Self {
        self.document = document;
        self
    }

    /// The game's status: the record's, or over when a seat forfeited.
    fn status(&self) -> Status {
        match (&self.forfeit, self.flagged()) {
            (Some((seat, _)), _) => Status::Over(forfeit_outcome(*seat, self.seats.len())),
            (None, Some(seat)) => Status::Over(self.record.current().out_of_time(seat)),
            (None, None) => self.record.status(),
        }
    }

    /// The seat whose time ran out, if one did.
    fn flagged(&self) -> Option<Seat> {
        self.clocks.as_ref().and_then(|c| c.flagged)
    }

    /// Keeps the clocks in step with the record: charges the moves made since the clocks were
    /// last pressed to the seat whose time ran (moves made after its time ran out are taken
    /// back: the game ended before them), starts the time of the side to move, and notices a
    /// flag that fell while a person was thinking. After an undo, new game or load, the side to
    /// move's time starts afresh from what it had.
    fn tick(&mut self) {
        let Some(clocks) = self.clocks.as_mut() else { return };
        if clocks.flagged.is_some() || self.forfeit.is_some() {
            return;
        }
        let now = clocks.now();
        let played = self.record.moves().len();
        if played < clocks.ply {
            clocks.moves.truncate(played);
            clocks.ply = played;
            clocks.seats.iter_mut().for_each(Clock::stop);
        }
        let running = clocks.seats.iter().position(|c| c.running_seat().is_some());
        if played > clocks.ply {
            if let Some(seat) = running {
                match clocks.seats[seat].press(now, Duration::ZERO, None) {
                    Ok(time) => {
                        clocks.moves.push(Some(time));
                        // A turn of several moves (Mathable) is timed as its first move.
                        clocks.moves.resize(played, None);
                    }
                    Err(_) => {
                        let late = played - clocks.ply;
                        for _ in 0..late {
                            self.record.undo();
                        }
                        clocks.flagged = Some(Seat(seat as u8));
                        println!("{} ran out of time.", self.presenter.seat_name(Seat(seat as u8)));
                        return;
                    }
                }
            } else {
                clocks.moves.resize(played, None);
            }
            clocks.ply = played;
        }
        if let Some(seat) = running.filter(|&seat| clocks.seats[seat].flagged(now).is_some()) {
            clocks.flagged = Some(Seat(seat as u8));
            println!("{} ran out of time.", self.presenter.seat_name(Seat(seat as u8)));
            return;
        }
        if let Status::ToMove(seat) = self.record.status() {
            let clock = &mut clocks.seats[seat.index()];
            if clock.running_seat().is_none() {
                clocks.seats.iter_mut().for_each(Clock::stop);
                clocks.seats[seat.index()].start(0, now);
            }
        }
    }

    /// Every limited clock as the prompt shows it: `[Black 4:58 | White 5:00] `.
    fn clock_line(&self) -> Option<String> {
        let clocks = self.clocks.as_ref()?;
        clock_line_at(&clocks.seats, &self.seat_names(), clocks.now())
    }

    /// Each seat's name, in seat order.
    fn seat_names(&self) -> Vec<String> {
        (0..self.seats.len() as u8).map(|seat| self.presenter.seat_name(Seat(seat))).collect()
    }

    /// At a terminal (input and output both), a person to move on a timed game sees the clocks
    /// tick on their own line above the prompt ([`LiveClocks`]); a transcript keeps them in the
    /// prompt, read once.
    fn live_clocks(&self, status: Status) -> Option<LiveClocks> {
        use std::io::IsTerminal;
        let clocks = self.clocks.as_ref().filter(|c| c.flagged.is_none())?;
        if status.to_move().is_none() || !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
            return None;
        }
        LiveClocks::start(clocks.seats.clone(), self.seat_names(), clocks.epoch)
    }

    /// Forgets a forfeit and the end of the game (after new, undo, load).
    fn reopen(&mut self) {
        self.forfeit = None;
        self.told_over = false;
        if let Some(clocks) = self.clocks.as_mut() {
            clocks.flagged = None;
        }
    }

    /// Tells the computer players once that the game is over, and how.
    fn tell_game_over(&mut self) {
        if self.told_over {
            return;
        }
        self.told_over = true;
        let Status::Over(outcome) = self.status() else { return };
        let reason = match (&self.forfeit, self.flagged()) {
            (Some((seat, why)), _) => format!("seat {} forfeits: {why}", seat.index() + 1),
            (None, Some(seat)) => format!("seat {} ran out of time", seat.index() + 1),
            (None, None) => self.record.current().end_reason().unwrap_or_default(),
        };
        for seat in &mut self.seats {
            if let Seated::Computer(player, _) = seat {
                player.game_over(&self.record, outcome, &reason);
            }
        }
    }

    /// The result of a game where `seat` ran out of time, in words.
    fn time_result(&self, seat: Seat) -> String {
        let name = self.presenter.seat_name(seat);
        match self.record.current().out_of_time(seat) {
            Outcome::Win(winner) => {
                format!("Game over: {name} ran out of time; {} wins.", self.presenter.seat_name(winner))
            }
            Outcome::SharedWin(set) => {
                let winners: Vec<String> = set.seats().map(|s| self.presenter.seat_name(s)).collect();
                format!("Game over: {name} ran out of time; {} win.", winners.join(" and "))
            }
            Outcome::Draw => format!("Game over: {name} ran out of time, but nobody else could still win: a draw."),
        }
    }

    /// The result of a game lost by forfeit, in words.
    fn forfeit_result(&self, seat: Seat, reason: &str) -> String {
        let winners: Vec<String> =
            (0..self.seats.len() as u8).map(Seat).filter(|&s| s != seat).map(|s| self.presenter.seat_name(s)).collect();
        let verb = if winners.len() == 1 { "wins" } else { "win" };
        format!("Game over: {} forfeits ({reason}); {} {verb}.", self.presenter.seat_name(seat), winners.join(" and "))
    }

    /// Plays as the origin document's program with its own framing (implies
    /// [`Table::document_mode`]).
    pub fn document_program(mut self, program: DocumentProgram) -> Self {
        self.document = true;
        self.program = program;
        self
    }

    fn is_human(&self, seat: Seat) -> bool {
        matches!(self.seats.get(seat.index()), Some(Seated::Human))
    }

    /// The intro: the game, who plays which seat, how to change it and what to type.
    fn intro(&self) -> String {
        let mut text = format!("{}\n", self.presenter.title(&self.start));
        let who: Vec<String> = self
            .seats
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let name = self.presenter.seat_name(Seat(i as u8));
                match s {
                    Seated::Human => format!("{name}: you"),
                    Seated::Computer(_, spec) => format!("{name}: the computer ({spec})"),
                }
            })
            .collect();
        text.push_str(&format!("{}.\n", who.join("; ")));
        let example = self.presenter.seat_words(Seat(1)).first().copied().unwrap_or("2");
        text.push_str(&format!(
            "Change who plays with --player SEAT=SPEC, e.g. --player {example}=human or --player {example}=engine:time=2s.\n"
        ));
        if let Some(computers) = self.presenter.computers() {
            text.push_str(&format!("{computers}\n"));
        }
        text.push_str(&format!("Type {}; or {COMMANDS}.", self.presenter.move_help(&self.start)));
        text
    }

    /// Plays until the game is over with no person at the table, `quit`, or the end of input:
    /// one step after another (the board, a forced or computer move, the end, a line read).
    pub fn run(&mut self, input: &mut Input) -> Result<()> {
        if !self.document {
            println!("{}", self.intro());
        }
        let mut flow = Flow::Go { show: true };
        while let Flow::Go { show } = flow {
            flow = self.step(input, show)?;
        }
        Ok(())
    }

    /// One step of play: the board when it changed, then a forced move, a computer's move, the
    /// end of the game, or a line read from the person and acted on.
    fn step(&mut self, input: &mut Input, show: bool) -> Result<Flow> {
        self.tick();
        let status = self.status();
        let human_to_move = status.to_move().is_some_and(|s| self.is_human(s));
        // Before anything of the person's is shown (Mathable hides racks between people).
        if human_to_move && !self.presenter.before_person(&self.record, input) {
            println!("End of input: the game is left unfinished.");
            return Ok(Flow::Stop);
        }
        if show {
            self.show_board(human_to_move);
        }
        match status {
            Status::ToMove(seat) => {
                if let Some(flow) = self.forced_move()? {
                    return Ok(flow);
                }
                if !self.is_human(seat) {
                    return Ok(self.computer_move(seat));
                }
            }
            Status::Over(_) => {
                if self.finish() {
                    return Ok(Flow::Stop);
                }
            }
        }
        let live = self.live_clocks(status);
        let prompt = if live.is_some() { self.presenter.prompt(&self.record) } else { self.prompt(status) };
        let read = input.ask(&prompt);
        drop(live);
        let Some(line) = read else {
            if status.to_move().is_some() && !self.document {
                println!("End of input: the game is left unfinished.");
            }
            return Ok(Flow::Stop);
        };
        self.act(&line, status, input)
    }

    /// Draws the board, and the presenter's line under it for a person to move.
    fn show_board(&self, human_to_move: bool) {
        if !self.document || self.program.blank_line_before_board {
            println!();
        }
        print!("{}", self.presenter.board(&self.record, self.color));
        if let Some(line) = self.presenter.situation(&self.record).filter(|_| human_to_move) {
            println!("{line}");
        }
    }

    /// Plays the move the side to move must make without being asked, if any.
    fn forced_move(&mut self) -> Result<Option<Flow>> {
        let Some((mv, message)) = self.presenter.forced_move(self.record.current()) else { return Ok(None) };
        println!("{message}");
        self.record.play(mv).map_err(|e| tool_error!("forced move {mv}: {e}"))?;
        Ok(Some(Flow::Go { show: false })) // the board has not changed
    }

    /// The computer at `seat` moves, or forfeits the game.
    fn computer_move(&mut self, seat: Seat) -> Flow {
        let time_left = self.clocks.as_ref().and_then(|c| c.time_left(seat, self.record.current()));
        let Seated::Computer(player, spec) = &mut self.seats[seat.index()] else { return Flow::Go { show: false } };
        player.set_clock(time_left.as_ref());
        let started = Instant::now();
        let chosen = player.choose_move_or_forfeit(&self.record);
        let spec = spec.clone();
        let before = self.record.current().clone();
        let played = chosen.map_err(|f| f.reason).and_then(|mv| {
            self.record.play(mv).map(|()| mv).map_err(|e| format!("{spec} chose an illegal move {mv}: {e}"))
        });
        let mv = match played {
            Ok(mv) => mv,
            Err(reason) => {
                println!("{} ({spec}) forfeits: {reason}.", self.presenter.seat_name(seat));
                self.forfeit = Some((seat, reason));
                return Flow::Go { show: false };
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        let line = self.presenter.announce(&before, mv, &spec);
        println!(
            "{}",
            line.unwrap_or_else(|| format!("{} ({spec}) plays {mv} ({seconds:.2} s).", self.presenter.seat_name(seat)))
        );
        // A computer's turn of several moves is drawn once, at its end.
        Flow::Go { show: self.record.status().to_move() != Some(seat) }
    }

    /// Says how the game ended and tells the computers; true when the table closes (a document
    /// program, or nobody at the table).
    fn finish(&mut self) -> bool {
        match (&self.forfeit, self.flagged()) {
            (Some((seat, reason)), _) => println!("{}", self.forfeit_result(*seat, reason)),
            (None, Some(seat)) => println!("{}", self.time_result(seat)),
            (None, None) => println!("{}", self.presenter.result(&self.record)),
        }
        self.tell_game_over();
        self.document || !self.seats.iter().any(|s| matches!(s, Seated::Human))
    }

    /// The prompt: the presenter's for a move, else what a finished game offers.
    fn prompt(&self, status: Status) -> String {
        match status {
            Status::ToMove(_) => {
                format!("{}{}", self.clock_line().unwrap_or_default(), self.presenter.prompt(&self.record))
            }
            // The one-line way to a review (`tabletop review`) of the game just played.
            Status::Over(_) if self.review => format!(
                "Game over: new, undo, save FILE (then tabletop review {} --load FILE), load FILE or quit> ",
                G::NAME
            ),
            Status::Over(_) => "Game over: new, undo, save FILE, load FILE or quit> ".to_string(),
        }
    }

    /// Acts on a line the person typed: a command of the table's, else a move.
    fn act(&mut self, line: &str, status: Status, input: &mut Input) -> Result<Flow> {
        let (word, rest) = match line.split_once(char::is_whitespace) {
            Some((w, r)) => (w.to_ascii_lowercase(), r.trim()),
            None => (line.to_ascii_lowercase(), ""),
        };
        // A program without commands reads every line (an empty one too) as a move: no arm
        // but the last matches this word.
        let command = if self.document && self.program.no_commands { "(a move)" } else { word.as_str() };
        let show = match command {
            "" => false,
            "help" | "?" => {
                if let Some(computers) = self.presenter.computers() {
                    println!("{computers}");
                }
                println!("Type {}; or {COMMANDS}.", self.presenter.move_help(self.record.current()));
                false
            }
            "quit" | "exit" | "q" => return Ok(self.quit(status, input)),
            "hint" if status.to_move().is_some() => {
                println!("Hint: {}", self.presenter.hint(&self.record));
                false
            }
            "undo" => self.take_back(),
            "new" => self.new_game(),
            "save" | "load" if rest.is_empty() => {
                println!("Type {word} FILE.");
                false
            }
            "save" => {
                match self.save(rest) {
                    Ok(()) => println!("Saved to {rest}."),
                    Err(e) => println!("Could not save: {e:#}"),
                }
                false
            }
            "load" => self.load_file(rest),
            "board" => true,
            _ if status.to_move().is_none() => {
                println!("The game is over: type new, undo, load FILE or quit.");
                false
            }
            _ => return self.person_move(&word, rest, line, input),
        };
        Ok(Flow::Go { show })
    }

    /// `quit`: asks before abandoning a game in progress.
    fn quit(&mut self, status: Status, input: &mut Input) -> Flow {
        if status.to_move().is_some() && !self.record.moves().is_empty() {
            match input.ask("Abandon the game in progress? (y/n) ") {
                Some(a) if a.eq_ignore_ascii_case("n") || a.eq_ignore_ascii_case("no") => {
                    return Flow::Go { show: false };
                }
                _ => {}
            }
            println!("Game abandoned.");
        }
        Flow::Stop
    }

    /// `undo`: true when something was taken back.
    fn take_back(&mut self) -> bool {
        let undone = self.undo();
        if undone {
            self.reopen();
        } else {
            println!("Nothing to undo.");
        }
        undone
    }

    /// `new`: the start again, the computers told to forget the game.
    fn new_game(&mut self) -> bool {
        self.record = Record::new(self.start.clone());
        self.reopen();
        if let Some(clocks) = self.clocks.as_mut() {
            // A new game: every seat's whole time again.
            for clock in &mut clocks.seats {
                *clock = Clock::new(clock.control, 1);
            }
            clocks.moves.clear();
            clocks.ply = 0;
        }
        for s in &mut self.seats {
            if let Seated::Computer(p, _) = s {
                p.reset();
            }
        }
        println!("New game.");
        true
    }

    /// `load FILE`: true when loaded.
    fn load_file(&mut self, file: &str) -> bool {
        match self.load(file) {
            Ok(()) => {
                let n = self.record.moves().len();
                println!("Loaded {file} ({n} move{}).", if n == 1 { "" } else { "s" });
                true
            }
            Err(e) => {
                println!("Could not load: {e:#}");
                false
            }
        }
    }

    /// A person's input that is no table command: the presenter's own command, else a move in
    /// notation (refused with the reason, or forfeiting the turn where the presenter says so).
    fn person_move(&mut self, word: &str, rest: &str, line: &str, input: &mut Input) -> Result<Flow> {
        if let Some(moves) = self.presenter.command(word, rest, &self.record, input) {
            let mut show = false;
            for mv in moves {
                if let Err(e) = self.record.play(mv) {
                    println!("{}", self.presenter.refusal(&self.record, &e.to_string()));
                    break;
                }
                show = true;
            }
            if show {
                self.after_person_move(input)?;
            }
            return Ok(Flow::Go { show });
        }
        let position = self.record.current();
        let refused = match position.parse_move(line) {
            Err(e) => e.to_string(),
            Ok(mv) => match position.illegal_reason(mv) {
                Some(e) => e.to_string(),
                None => {
                    self.record.play(mv).map_err(|e| tool_error!("{mv}: {e}"))?;
                    self.after_person_move(input)?;
                    return Ok(Flow::Go { show: true });
                }
            },
        };
        match self.presenter.forfeit(position, &refused) {
            Some((next, message)) => {
                if let Some(message) = message {
                    println!("{message}");
                }
                self.record = Record::new(next);
                Ok(Flow::Go { show: true })
            }
            None => {
                println!("{}", self.presenter.refusal(&self.record, &refused));
                Ok(Flow::Go { show: false })
            }
        }
    }

    /// The presenter's question after a person's move, and the move it gives.
    fn after_person_move(&mut self, input: &mut Input) -> Result<()> {
        if let Some(mv) = self.presenter.follow_up(&self.record, input) {
            self.record.play(mv).map_err(|e| tool_error!("{mv}: {e}"))?;
        }
        Ok(())
    }

    /// Takes back moves until a person is to move again, having taken back at least one of a
    /// person's moves; false (and nothing changed) when there is none.
    fn undo(&mut self) -> bool {
        let (seats, presenter) = (&self.seats, &self.presenter);
        let person_to_move = |p: &G| match p.status() {
            Status::ToMove(seat) => {
                matches!(seats.get(seat.index()), Some(Seated::Human)) && presenter.forced_move(p).is_none()
            }
            Status::Over(_) => false,
        };
        !self.record.undo_until(person_to_move).is_empty()
    }

    /// Saves the game: the presenter's format or [`Record::to_text`].
    fn save(&self, file: &str) -> Result<()> {
        let text = self.presenter.save_text_for(file, &self.record).unwrap_or_else(|| match &self.clocks {
            Some(clocks) => self.record.to_text_timed(&clocks.log(), None),
            None => self.record.to_text(),
        });
        std::fs::write(file, text).with_context(|| format!("cannot write {file}"))
    }

    /// Loads a game saved by [`Table::save`] (of this game and variant).
    fn load(&mut self, file: &str) -> Result<()> {
        let text = read_capped(std::path::Path::new(file), SAVE_MAX_BYTES)?;
        let record = match self.presenter.load_text(&text) {
            Some(record) => record.with_context(|| format!("cannot load {file}"))?,
            None => {
                let record = Record::<G>::from_text(&self.start.variant(), &text).with_context(|| file.to_string())?;
                self.start = record.start().clone();
                record
            }
        };
        if record.current().num_seats() != self.seats.len() {
            bail!("{file} is a game for {} players, this table has {}", record.current().num_seats(), self.seats.len());
        }
        self.record = record;
        self.reopen();
        Ok(())
    }
}

/// The best move by [`Analyze`] within `budget`, in words: `5 (wins in 2 moves)`.
pub fn analysis_hint<G: Analyze>(record: &Record<G>, budget: Duration) -> String {
    let analysis = G::analyze(record, budget.into());
    match analysis.moves.first() {
        Some(best) => format!("{} ({})", best.notation, best.text),
        None => "no move to suggest".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat_clocks(control: &str) -> Vec<Clock> {
        let control: TimeControl = control.parse().expect("a control");
        vec![Clock::new(control, 1), Clock::new(control, 1)]
    }

    #[test]
    fn the_clock_line_ticks_for_the_running_seat_only() {
        let names = ["Black".to_string(), "White".to_string()];
        let mut seats = seat_clocks("5+3");
        seats[0].start(0, Duration::from_secs(10));
        let line = |now| clock_line_at(&seats, &names, Duration::from_secs(now));
        assert_eq!(line(10).as_deref(), Some("[Black 5:00 | White 5:00] "));
        assert_eq!(line(12).as_deref(), Some("[Black 4:58 | White 5:00] "));
        assert_eq!(line(301).as_deref(), Some("[Black 0:09.0 | White 5:00] "));
        // Past the flag (and its grace) a person still typing is told.
        assert_eq!(line(400).as_deref(), Some("[Black 0:00.0 (out of time) | White 5:00] "));
    }

    #[test]
    fn byo_yomi_periods_are_shown_and_an_unlimited_game_has_no_line() {
        let names = ["Black".to_string(), "White".to_string()];
        let seats = seat_clocks("1+30x3");
        assert_eq!(
            clock_line_at(&seats, &names, Duration::ZERO).as_deref(),
            Some("[Black 1:00 (3 periods) | White 1:00 (3 periods)] ")
        );
        assert_eq!(clock_line_at(&seat_clocks("none"), &names, Duration::ZERO), None);
    }

    #[test]
    fn the_redraw_rewrites_the_line_above_and_restores_the_cursor() {
        assert_eq!(redraw_above("[Black 4:58]"), "\x1b7\x1b[1A\r\x1b[2K[Black 4:58]\x1b8");
    }
}
