//! Games as a server sees them: a uniform, object-safe [`Session`] over any [`Game`], with a
//! small [`Adapter`] per game (in the game's folder, `games/<game>/session.rs`) for what only that
//! game knows: its options, its board as JSON, its players and hints. The registry's
//! [`GameEntry::session`](crate::registry::GameEntry) starts sessions of a game by name.

use std::any::Any;
use std::time::Duration;

use serde_json::{json, Value};

use crate::analysis::Analyze;
use crate::arena::{Finished, MoveTimes};
use crate::clock::{MoveTime, TimeControl};
use crate::game::{Game, Outcome, Seat, SeatSet, Status};
use crate::player_spec::{PlayerKind, PlayerSpec};
use crate::players::{Forfeit, Player, Players, TimeLeft};
use crate::record::{EndReason, Record};
use crate::review::{GameReview, ReviewSettings};

/// Why a session refused something: the message is the one people read (the library's own
/// reason: a move's, an option's, a player spec's), the variant what kind of refusal it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// A creation option is unknown or has a bad value.
    #[error("{0}")]
    Options(String),
    /// A move is not understood or not legal here, or there is no such position.
    #[error("{0}")]
    Move(String),
    /// A player spec is refused: unknown, a bad value, or over the server's caps.
    #[error("{0}")]
    Player(String),
    /// An engine could not be made (its tables could not be allocated).
    #[error("{0}")]
    Engine(String),
}

impl SessionError {
    /// An [`Options`](SessionError::Options) error from any displayable reason.
    pub fn options(reason: impl std::fmt::Display) -> SessionError {
        SessionError::Options(reason.to_string())
    }
    /// A [`Move`](SessionError::Move) error from any displayable reason.
    pub fn r#move(reason: impl std::fmt::Display) -> SessionError {
        SessionError::Move(reason.to_string())
    }
    /// A [`Player`](SessionError::Player) error from any displayable reason.
    pub fn player(reason: impl std::fmt::Display) -> SessionError {
        SessionError::Player(reason.to_string())
    }
    /// An [`Engine`](SessionError::Engine) error from any displayable reason.
    pub fn engine(reason: impl std::fmt::Display) -> SessionError {
        SessionError::Engine(reason.to_string())
    }
}

/// The per-worker cache of one game's engine (its tables are reused across moves and games);
/// each adapter decides what it keeps there.
pub type EngineSlot = Option<(String, Box<dyn Any>)>;

/// The server's caps on what one computer player may ask for.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// The longest thinking time.
    pub max_think: Duration,
    /// The most memory for one engine's tables, in bytes.
    pub engine_memory: u64,
}

/// A game in progress, whatever the game.
pub trait Session: Send {
    /// The game's name (`slide`, ...).
    fn game(&self) -> &'static str;
    /// Number of seats.
    fn num_seats(&self) -> usize;
    /// The seat to move, or `None` when the game is over.
    fn to_move(&self) -> Option<usize>;
    /// Plays a move given in the game's notation; returns it in canonical notation, or the
    /// same one-line reason the terminal gives.
    fn play(&mut self, text: &str) -> Result<String, SessionError>;
    /// Checks a move given in the game's notation without playing it: its canonical notation, or
    /// the reason it is refused.
    fn check_move(&self, text: &str) -> Result<String, SessionError>;
    /// The move that, between people, ends the game only when the others agree (Mathable's
    /// terminate), in notation; `None` for games without one.
    fn agreement_move(&self) -> Option<String>;
    /// Does the computer at `seat` agree to end the game now by the agreement move (see
    /// [`agreement_move`](Session::agreement_move)), proposed by another seat? `Ok` when it
    /// does, else the sentence saying why not (a [`SessionError::Move`]); the game then goes
    /// on. Games without an agreement move always agree. See [`Adapter::agrees_to_end`].
    fn agrees_to_end(&self, seat: usize) -> Result<(), SessionError>;
    /// The unit of the scores in a result sentence (`discs`, `points`).
    fn score_unit(&self) -> &'static str;
    /// Does the board show which seats resigned (games that go on without them)?
    fn shows_resignations(&self) -> bool;
    /// Takes back the last move; false at the start.
    fn undo(&mut self) -> bool;
    /// The number of moves played.
    fn ply(&self) -> usize;
    /// Every move so far in canonical notation (the server's own record: nothing filtered).
    fn moves(&self) -> Vec<String>;
    /// The seat that played move `ply`.
    fn mover_of(&self, ply: usize) -> Option<usize>;
    /// Does move `ply` reveal hidden information (a Mathable draw or exchange), so that it may
    /// not be taken back between people?
    fn reveals(&self, ply: usize) -> bool;
    /// Does the game hide information from some seats?
    fn hidden_information(&self) -> bool;
    /// Each seat's name as people know it (`Black`, `X`, `Player 2`).
    fn seat_names(&self) -> Vec<String>;
    /// Each seat's score where the game keeps one (Reversi discs, Mathable points).
    fn scores(&self) -> Option<Vec<i64>>;
    /// The board and status as JSON for `viewer` (a seat, or `None` for a spectator), with the
    /// move list as that viewer may see it.
    fn view(&self, viewer: Option<usize>) -> Value;
    /// The public board after `ply` moves (what a watcher saw then), for stepping through a game.
    fn board_at(&self, ply: usize) -> Result<Value, SessionError>;
    /// The hint: the best move of [`Session::analyze`] with the same budget (the analysis with
    /// `AnalysisSettings::time(budget)`), as `{"move", "value"}`; `None` when the game is over.
    fn hint(&self, slot: &mut EngineSlot, budget: Duration, caps: &Caps) -> Option<Value>;
    /// The value of every legal move at `ply` (the current position when `None`): the game's
    /// [`Analyze`] with `AnalysisSettings::time(budget)`, as `{"ply", "moves": [{"move",
    /// "value", "score", "exact", "depth"}], "depth", "open"}` (see [`crate::analysis`]).
    fn analyze(&self, ply: Option<usize>, budget: Duration) -> Result<Value, SessionError>;
    /// Does the game have a review ([`Adapter::REVIEW`])? Without one, [`Session::review`] is
    /// refused.
    fn has_review(&self) -> bool;
    /// The review of the moves `from..to` (see [`crate::review::review_range`]) as JSON: a
    /// [`GameReview`] and the seats' names (`seats`). It values the
    /// position of every move with the movers' hidden information: the server asks it for
    /// finished games only. A game without a review ([`Session::has_review`]) answers
    /// [`SessionError::Move`] saying so.
    fn review(&self, from: usize, to: usize, settings: ReviewSettings) -> Result<Value, SessionError>;
    /// The outcome when `seat` runs out of time in the current position ([`Game::out_of_time`]):
    /// `{"winners": [...], "reason": "..."}` as in [`status_json`].
    fn out_of_time(&self, seat: usize) -> Value;
    /// How many more moves the side to move expects to make ([`Game::expected_moves_left`]),
    /// for the computer's time management under a clock.
    fn expected_moves_left(&self) -> u32;
    /// A computer player's move for the side to move, in notation.
    fn computer_move(&self, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<String, SessionError>;
    /// The move that passes the turn of a seat that left (a resigned Mathable player), if any.
    fn pass_move(&self) -> Option<String>;
    /// Checks a computer player's spec completely (name, settings, values, ranges) and against
    /// the server's caps, with the reason the terminal gives.
    fn check_spec(&self, spec: &PlayerSpec, caps: &Caps) -> Result<(), SessionError>;
    /// The ended game as its saved-game text ([`Adapter::saved_game`]: the format the
    /// game's tournaments write, a [`Record`]'s text with its clocks and result unless the game
    /// has its own), with the people, the date and the end `export` says. It holds every move
    /// as played, hidden information included: a server asks it for ended games only.
    fn saved_game(&self, export: &SavedGame) -> String;
    /// The format of [`Session::saved_game`]'s text: [`Adapter::SAVED_GAME_FORMAT`].
    fn saved_game_format(&self) -> &'static str;
    /// A copy, for thinking off the lock.
    fn boxed_clone(&self) -> Box<dyn Session>;
    /// The most moves a served game may have: a server bound on a game's length (and so on its
    /// record and state), far beyond any real game. See [`Adapter::move_limit`].
    fn move_limit(&self) -> usize;
    /// A player for one seat of this game (from its start) on the client's machine, for
    /// `tabletop bot`: any spec the terminal takes, `external` programs included. The server
    /// never calls it (a web request never starts a process: the web crate's layer test checks
    /// that it never names it). Refused for a game with hidden information, whose moves a seat
    /// cannot replay from what it is shown.
    fn local_player(&self, spec: &PlayerSpec, seed: u64) -> Result<Box<dyn SeatPlayer>, SessionError>;
}

/// One seat's player on the client's machine ([`Session::local_player`]), kept for a whole game
/// (an engine's tables, an external program's process).
pub trait SeatPlayer: Send {
    /// The player, as its spec says.
    fn describe(&self) -> String;
    /// A move for the position after `moves` (every move since the start, in the game's
    /// notation), under the clock `time` if the game has one. `Err` when the player cannot move
    /// (an external program that crashed, hung or answered nonsense), or the moves do not replay.
    fn choose(&mut self, moves: &[String], time: Option<&TimeLeft>) -> Result<String, Forfeit>;
    /// Tells the player the game is over (an external program gets its `end` line and its input
    /// closed): `winners` (seats; empty for a draw) and the reason in words.
    fn game_over(&mut self, moves: &[String], winners: &[usize], reason: &str);
}

/// A [`SeatPlayer`] over a game's [`Player`]: the record is replayed from the moves it is given.
struct LocalSeatPlayer<G: Game> {
    record: Record<G>,
    player: Box<dyn Player<G>>,
}

impl<G: Game> LocalSeatPlayer<G> {
    /// Brings the record to `moves`: the new ones played on top when the record is a prefix,
    /// else replayed from the start (a take-back).
    fn sync(&mut self, moves: &[String]) -> Result<(), Forfeit> {
        let known: Vec<String> = self.record.moves().iter().map(ToString::to_string).collect();
        let prefix = known.len() <= moves.len() && known.iter().zip(moves).all(|(a, b)| a == b);
        if !prefix {
            self.record = Record::new(self.record.start().clone());
        }
        for text in &moves[self.record.moves().len()..] {
            let bad = |e: String| Forfeit { reason: format!("the game's move {text:?} does not replay here: {e}") };
            let mv = self.record.current().parse_move(text).map_err(|e| bad(e.to_string()))?;
            self.record.play(mv).map_err(|e| bad(e.to_string()))?;
        }
        Ok(())
    }
}

impl<G: Game> SeatPlayer for LocalSeatPlayer<G> {
    fn describe(&self) -> String {
        self.player.describe()
    }

    fn choose(&mut self, moves: &[String], time: Option<&TimeLeft>) -> Result<String, Forfeit> {
        self.sync(moves)?;
        if self.record.status().to_move().is_none() {
            return Err(Forfeit { reason: "the game is over".into() });
        }
        self.player.set_clock(time);
        self.player.choose_move_or_forfeit(&self.record).map(|mv| mv.to_string())
    }

    fn game_over(&mut self, moves: &[String], winners: &[usize], reason: &str) {
        let _ = self.sync(moves);
        let outcome = match winners {
            [] => Outcome::Draw,
            [one] => Outcome::Win(crate::game::Seat(u8::try_from(*one).unwrap_or(0))),
            _ => Outcome::Draw,
        };
        self.player.game_over(&self.record, outcome, reason);
    }
}

/// A game's review of a record's moves `from..to` (see [`crate::review::review_range`]).
pub type ReviewRange<G> = fn(&Record<G>, usize, usize, ReviewSettings, &mut dyn FnMut(usize, usize)) -> GameReview;

/// What a game must provide to be served. Its players default to the game's [`Players`]: one
/// made for each move, seeded by the ply (a game whose engines keep tables between moves
/// overrides [`Adapter::choose`] to keep them in the worker's [`EngineSlot`]).
pub trait Adapter<G: Players>: Send + Sync + 'static {
    /// The game's name.
    const NAME: &'static str;
    /// The option keys the game accepts at creation besides those of [`Adapter::OPTION_FIELDS`]
    /// (see [`option_keys`]).
    const OPTION_KEYS: &'static [&'static str] = &[];
    /// The options as form fields for a generic page (default: none described; a game with its
    /// own page module draws its options itself).
    const OPTION_FIELDS: &'static [OptionField] = &[];
    /// The players it offers.
    fn player_kinds() -> &'static [PlayerKind] {
        G::PLAYER_KINDS
    }
    /// The starting position from the public options and the server's secret (validated, with a reason).
    fn start(options: &Value, secret: &Value) -> Result<G, SessionError>;
    /// The board as JSON.
    fn board(record: &Record<G>, viewer: Option<usize>) -> Value;
    /// A move chosen by the player a spec names.
    fn choose(
        record: &Record<G>,
        spec: &PlayerSpec,
        _slot: &mut EngineSlot,
        _caps: &Caps,
    ) -> Result<G::Move, SessionError> {
        let seed = record.moves().len() as u64;
        let mut player = G::make_player(spec, record.start(), seed).map_err(SessionError::player)?;
        Ok(player.choose_move(record))
    }
    /// Checks a spec's values (the library's own constructor where that is cheap) and the caps.
    fn check_spec(record: &Record<G>, spec: &PlayerSpec, _caps: &Caps) -> Result<(), SessionError> {
        G::make_player(spec, record.start(), 0).map(drop).map_err(SessionError::player)
    }
    /// The game's review, if it has one: `Some(crate::review::review_range::<G>)` for a game
    /// implementing [`Review`](crate::review::Review) (whose defaults judge on proved results).
    const REVIEW: Option<ReviewRange<G>> = None;
    /// Each seat's name.
    fn seat_name(seat: usize) -> String;
    /// Does the position hold information some seats must not see (Mathable's racks)? Then the
    /// legal moves and the position notation go only to the seat to move.
    const HIDDEN_INFORMATION: bool = false;
    /// A move as `viewer` may see it (`mover`: did the viewer play it?).
    fn public_move(mv: &G::Move, _mover: bool) -> String {
        mv.to_string()
    }
    /// Does this move reveal hidden information?
    fn reveals(_mv: &G::Move) -> bool {
        false
    }
    /// The scores, where the game keeps them.
    fn scores(_position: &G) -> Option<Vec<i64>> {
        None
    }
    /// The rules' reason for the end, in the page's words (the terminal's names sides by letter).
    fn describe_reason(reason: String) -> String {
        reason
    }
    /// The move that, between people, needs the others' agreement (see [`Session::agreement_move`]).
    fn agreement_move() -> Option<G::Move> {
        None
    }
    /// Does the computer at `seat` agree to end the game now (see [`Session::agrees_to_end`])?
    /// `Err` holds the sentence for the proposer. Default: it agrees (games without an
    /// agreement move never ask).
    fn agrees_to_end(_position: &G, _seat: usize) -> Result<(), String> {
        Ok(())
    }
    /// The unit of the scores (see [`Session::score_unit`]).
    const SCORE_UNIT: &'static str = "points";
    /// Does the board show resignations (see [`Session::shows_resignations`])?
    const SHOWS_RESIGNATIONS: bool = false;
    /// The move that passes a departed seat's turn (default: none).
    fn pass_move(_position: &G) -> Option<G::Move> {
        None
    }
    /// Fills in what the server keeps secret (a random bag seed), before storing.
    fn complete_secret(_secret: &mut Value) {}
    /// The format [`Adapter::saved_game`] writes, as a file's extension would name it: `text`
    /// (the default, [`saved_game_text`]) or the game's own (`ggf`).
    const SAVED_GAME_FORMAT: &'static str = "text";
    /// An ended served game as text (see [`Session::saved_game`]): by default
    /// [`saved_game_text`], the [`Record`]'s text with its clocks, result and `#` notes, as
    /// the game's tournaments write it; a game whose tournaments write another format (Reversi's
    /// GGF) writes that.
    fn saved_game(finished: &Finished<G>, export: &SavedGame) -> String {
        let seats: Vec<String> = (0..finished.record.current().num_seats()).map(Self::seat_name).collect();
        saved_game_text(finished, export, &seats, Self::scores(finished.record.current()).as_deref())
    }
    /// The player a spec names for a local front end (`tabletop bot`): the game's own players
    /// and every game's `external` program (a game with more local players, such as Reversi's
    /// `nboard`, adds them). Never called by the server: see [`Session::local_player`].
    fn local_player(spec: &PlayerSpec, start: &G, seed: u64) -> Result<Box<dyn Player<G>>, String> {
        crate::external::make_local_player(spec, |spec| G::make_player(spec, start, seed)).map_err(|e| e.to_string())
    }
    /// The most moves a served game may have (see [`Session::move_limit`]); a game reaching it
    /// ends there. The default, [`DEFAULT_MOVE_LIMIT`], suits games whose rules bound their
    /// length well below it; a game that can go on forever sets its own.
    fn move_limit(_start: &G) -> usize {
        DEFAULT_MOVE_LIMIT
    }
}

/// Every option key a game accepts at creation: its [`Adapter::OPTION_KEYS`], then the keys of
/// its [`Adapter::OPTION_FIELDS`] not among them.
pub fn option_keys<G: Players, A: Adapter<G>>() -> Vec<&'static str> {
    let fields = A::OPTION_FIELDS.iter().map(|f| f.key).filter(|k| !A::OPTION_KEYS.contains(k));
    A::OPTION_KEYS.iter().copied().chain(fields).collect()
}

/// The default [`Adapter::move_limit`].
pub const DEFAULT_MOVE_LIMIT: usize = 1000;

/// How a served game ended, for its saved-game text ([`Session::saved_game`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules: the record's last position is over (an agreed end included).
    Rules,
    /// The seat lost outside the rules: it resigned, or left and the others claimed the win.
    Forfeit(usize),
    /// The seat ran out of time.
    OutOfTime(usize),
}

/// A served game's people and end, which its record does not hold, for
/// [`Session::saved_game`].
#[derive(Clone, Debug)]
pub struct SavedGame<'a> {
    /// Each seat's player, in seat order (an account's name, `anonymous`, a computer's spec).
    pub players: &'a [String],
    /// When the game was played, as the text shows it (`2026-12-05 06:30:00 UTC`).
    pub date: &'a str,
    /// The seats that won (none: a draw).
    pub winners: &'a [usize],
    /// How it ended, in words.
    pub reason: &'a str,
    /// How it ended, for formats that mark it (GGF's `:t`, `:r`).
    pub ending: Ending,
    /// Each seat's time control, or one for all (empty: no clock).
    pub controls: &'a [TimeControl],
    /// Every move's time and its mover's clock after it, where kept (`None` for the others).
    pub times: &'a [Option<MoveTime>],
    /// More lines for the reader (`#` comments, or the format's comment): the game's link,
    /// rated or casual, rating changes. Each one line.
    pub notes: &'a [String],
}

impl SavedGame<'_> {
    /// The game's end as a [`Finished`] game of `record`: its outcome from
    /// [`SavedGame::winners`], the forfeit or flag from [`SavedGame::ending`], the clocks.
    pub fn finished<G: Game>(&self, record: Record<G>) -> Finished<G> {
        let seats = record.current().num_seats();
        let seat = |s: usize| Seat(s.min(usize::from(u8::MAX)) as u8);
        let outcome = match self.winners {
            [] => Outcome::Draw,
            [one] => Outcome::Win(seat(*one)),
            many => Outcome::SharedWin(SeatSet::from_seats(many.iter().map(|&s| seat(s)))),
        };
        let forfeit = match self.ending {
            Ending::Forfeit(s) => Some((seat(s), Forfeit { reason: self.reason.to_string() })),
            _ => None,
        };
        let out_of_time = match self.ending {
            Ending::OutOfTime(s) => Some(seat(s)),
            _ => None,
        };
        let mut move_clocks = self.times.to_vec();
        move_clocks.resize(record.moves().len(), None);
        let controls = if self.controls.len() == 1 { vec![self.controls[0]; seats] } else { self.controls.to_vec() };
        Finished {
            record,
            outcome,
            forfeit,
            out_of_time,
            times: vec![MoveTimes::default(); seats],
            controls,
            move_clocks,
            reason: self.reason.to_string(),
        }
    }
}

/// A one-line note: line breaks made spaces.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ").trim().to_string()
}

/// The saved-game text of a served game (the default [`Adapter::saved_game`]): what
/// [`Finished::to_text`] writes (the [`Record`]'s text, its `clock` and `times` lines and its
/// `result`), with `#` notes after the first line, which [`Record::from_text`] skips: the
/// players by seat (`seats` the seats' names), the date, the result in words, the scores where
/// the game keeps them, and [`SavedGame::notes`].
///
/// ```
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::session::{saved_game_text, Ending, SavedGame};
/// use tabletop::{Game, Record};
/// let v = ConnectVariant::connect4();
/// let mut record = Record::new(Connect::new(v));
/// record.play(record.current().parse_move("4").unwrap()).unwrap();
/// let export = SavedGame { players: &["ann".into(), "bob".into()], date: "2026-12-05 06:30:00 UTC",
///     winners: &[0], reason: "X resigned", ending: Ending::Forfeit(1), controls: &[], times: &[], notes: &[] };
/// let text = saved_game_text(&export.finished(record.clone()), &export, &["X".into(), "O".into()], None);
/// assert!(text.starts_with("tabletop connect\n# players: ann (X) - bob (O)\n"), "{text}");
/// let (back, _) = Record::<Connect>::from_text_timed(&v, &text).unwrap();
/// assert_eq!(back.moves(), record.moves());
/// ```
pub fn saved_game_text<G: Game>(
    finished: &Finished<G>,
    export: &SavedGame,
    seats: &[String],
    scores: Option<&[i64]>,
) -> String {
    let text = finished.to_text();
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let name = |s: usize| one_line(export.players.get(s).map_or("?", String::as_str));
    let players: Vec<String> = seats.iter().enumerate().map(|(s, seat)| format!("{} ({seat})", name(s))).collect();
    let mut notes = format!("# players: {}\n# date: {}\n", players.join(" - "), one_line(export.date));
    let result = match export.winners {
        [] => "draw".to_string(),
        winners => {
            let names: Vec<String> = winners.iter().map(|&s| name(s)).collect();
            format!("{} won", names.join(" and "))
        }
    };
    notes.push_str(&format!("# result: {result}: {}\n", one_line(export.reason)));
    if let Some(scores) = scores {
        let listed: Vec<String> = scores.iter().enumerate().map(|(s, score)| format!("{} {score}", name(s))).collect();
        notes.push_str(&format!("# scores: {}\n", listed.join(" - ")));
    }
    for note in export.notes {
        notes.push_str(&format!("# {}\n", one_line(note)));
    }
    format!("{first}\n{notes}{rest}")
}

/// A [`Session`] for any game with an [`Adapter`].
pub struct GenericSession<G: Analyze + Players, A: Adapter<G>> {
    record: Record<G>,
    adapter: std::marker::PhantomData<A>,
}

impl<G: Analyze + Players, A: Adapter<G>> GenericSession<G, A> {
    /// The record as it was after `ply` moves.
    fn record_at(&self, ply: usize) -> Result<Record<G>, SessionError> {
        let played = self.record.moves().len();
        if ply > played {
            return Err(SessionError::Move(format!(
                "the game has {played} moves; there is no position after move {ply}"
            )));
        }
        let mut record = Record::new(self.record.start().clone());
        for &mv in &self.record.moves()[..ply] {
            record.play(mv).map_err(SessionError::r#move)?;
        }
        Ok(record)
    }

    /// A new game from the page's options (unknown keys refused) and the server's secret.
    pub fn new(options: &Value, secret: &Value) -> Result<Self, SessionError> {
        let Some(map) = options.as_object() else {
            return Err(SessionError::Options("options must be a JSON object".into()));
        };
        let keys = option_keys::<G, A>();
        if let Some(key) = map.keys().find(|k| !keys.contains(&k.as_str())) {
            let valid = if keys.is_empty() { "none".to_string() } else { keys.join(", ") };
            return Err(SessionError::Options(format!("{} has no option {key:?}; valid options: {valid}", A::NAME)));
        }
        Ok(GenericSession { record: Record::new(A::start(options, secret)?), adapter: std::marker::PhantomData })
    }
}

/// The winning seats of an outcome (none for a draw).
fn outcome_winners(outcome: Outcome) -> Vec<u8> {
    match outcome {
        Outcome::Win(seat) => vec![seat.0],
        Outcome::Draw => vec![],
        Outcome::SharedWin(set) => set.seats().map(|s| s.0).collect(),
    }
}

/// The status as JSON: `{"over", "to_move"}` and, when over, `"winners"` and `"reason"`.
pub fn status_json<G: Game>(record: &Record<G>, describe: impl Fn(String) -> String) -> Value {
    match record.status() {
        Status::ToMove(seat) => json!({"over": false, "to_move": seat.0}),
        Status::Over(outcome) => {
            let reason = match record.end_reason() {
                Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
                Some(EndReason::Rules(text)) => describe(text),
                None => String::new(),
            };
            json!({"over": true, "to_move": null, "winners": outcome_winners(outcome), "reason": reason})
        }
    }
}

impl<G: Analyze + Players, A: Adapter<G>> Session for GenericSession<G, A> {
    fn game(&self) -> &'static str {
        A::NAME
    }

    fn num_seats(&self) -> usize {
        self.record.current().num_seats()
    }

    fn to_move(&self) -> Option<usize> {
        self.record.status().to_move().map(|s| s.index())
    }

    fn play(&mut self, text: &str) -> Result<String, SessionError> {
        let mv = self.record.current().parse_move(text).map_err(SessionError::r#move)?;
        self.record.play(mv).map_err(SessionError::r#move)?;
        Ok(mv.to_string())
    }

    fn undo(&mut self) -> bool {
        self.record.undo().is_some()
    }

    fn ply(&self) -> usize {
        self.record.moves().len()
    }

    fn moves(&self) -> Vec<String> {
        self.record.moves().iter().map(|m| m.to_string()).collect()
    }

    fn mover_of(&self, ply: usize) -> Option<usize> {
        self.record.positions().get(ply)?.status().to_move().map(|s| s.index())
    }

    fn reveals(&self, ply: usize) -> bool {
        self.record.moves().get(ply).is_some_and(A::reveals)
    }

    fn hidden_information(&self) -> bool {
        A::HIDDEN_INFORMATION
    }

    fn seat_names(&self) -> Vec<String> {
        (0..self.num_seats()).map(A::seat_name).collect()
    }

    fn scores(&self) -> Option<Vec<i64>> {
        A::scores(self.record.current())
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        let to_move = self.to_move();
        let may_see = !A::HIDDEN_INFORMATION || (viewer.is_some() && viewer == to_move);
        let mut legal = Vec::new();
        if to_move.is_some() && may_see {
            self.record.current().legal_moves(&mut legal);
        }
        let history: Vec<Value> = self
            .record
            .moves()
            .iter()
            .enumerate()
            .map(|(ply, mv)| {
                let seat = self.mover_of(ply);
                let text = A::public_move(mv, seat.is_some() && seat == viewer);
                json!({"ply": ply, "seat": seat, "move": text})
            })
            .collect();
        let moves: Vec<Value> = history.iter().map(|h| h["move"].clone()).collect();
        json!({
            "game": A::NAME,
            "status": status_json(&self.record, A::describe_reason),
            "board": A::board(&self.record, viewer),
            "legal": legal.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "moves": moves,
            "history": history,
            // A hidden-information notation (Mathable's save state) holds every rack, the bag and
            // its seed: it is for nobody, not even the seat to move.
            "position": if A::HIDDEN_INFORMATION { Value::Null } else { Value::from(self.record.current().notation()) },
        })
    }

    fn hint(&self, _slot: &mut EngineSlot, budget: Duration, _caps: &Caps) -> Option<Value> {
        // The analysis' best move, so that the hint and the analysis never disagree.
        let analysis = G::analyze(&self.record, budget.into());
        let best = analysis.best()?;
        Some(json!({"move": best.notation, "value": best.text}))
    }

    fn board_at(&self, ply: usize) -> Result<Value, SessionError> {
        Ok(A::board(&self.record_at(ply)?, None))
    }

    fn analyze(&self, ply: Option<usize>, budget: Duration) -> Result<Value, SessionError> {
        let ply = ply.unwrap_or(self.record.moves().len());
        let record = self.record_at(ply)?;
        let analysis = G::analyze(&record, budget.into());
        let moves: Vec<Value> = analysis
            .moves
            .iter()
            .map(|m| json!({"move": m.notation, "value": m.text, "score": m.score, "exact": m.exact, "depth": m.depth}))
            .collect();
        Ok(json!({"ply": ply, "moves": moves, "depth": analysis.depth, "open": analysis.open}))
    }

    fn has_review(&self) -> bool {
        A::REVIEW.is_some()
    }

    fn review(&self, from: usize, to: usize, settings: ReviewSettings) -> Result<Value, SessionError> {
        let Some(review_range) = A::REVIEW else {
            return Err(SessionError::Move(format!("{} has no review", A::NAME)));
        };
        let review = review_range(&self.record, from, to, settings, &mut |_, _| {});
        let mut json = serde_json::to_value(&review).map_err(|e| SessionError::Move(e.to_string()))?;
        json["seats"] = self.seat_names().into();
        Ok(json)
    }

    fn out_of_time(&self, seat: usize) -> Value {
        let seat = Seat(seat.min(usize::from(u8::MAX)) as u8);
        let outcome = self.record.current().out_of_time(seat);
        let names = self.seat_names();
        let name = names.get(seat.index()).cloned().unwrap_or_default();
        let reason = match outcome {
            Outcome::Draw => format!("{name} ran out of time, and nobody else could still win"),
            _ => format!("{name} ran out of time"),
        };
        json!({"winners": outcome_winners(outcome), "reason": reason})
    }

    fn expected_moves_left(&self) -> u32 {
        self.record.current().expected_moves_left()
    }

    fn computer_move(&self, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<String, SessionError> {
        A::choose(&self.record, spec, slot, caps).map(|m| m.to_string())
    }

    fn local_player(&self, spec: &PlayerSpec, seed: u64) -> Result<Box<dyn SeatPlayer>, SessionError> {
        if A::HIDDEN_INFORMATION {
            return Err(SessionError::Player(format!(
                "{} hides information from the seats: a client cannot replay its moves, so it has no local players",
                A::NAME
            )));
        }
        let start = self.record.start().clone();
        let player = A::local_player(spec, &start, seed).map_err(SessionError::Player)?;
        Ok(Box::new(LocalSeatPlayer { record: Record::new(start), player }))
    }

    fn pass_move(&self) -> Option<String> {
        A::pass_move(self.record.current()).map(|m| m.to_string())
    }

    fn check_move(&self, text: &str) -> Result<String, SessionError> {
        let position = self.record.current();
        let mv = position.parse_move(text).map_err(SessionError::r#move)?;
        match self.record.status() {
            Status::Over(_) => Err(SessionError::Move("the game is over".to_string())),
            Status::ToMove(_) => match position.illegal_reason(mv) {
                Some(reason) => Err(SessionError::Move(reason.to_string())),
                None => Ok(mv.to_string()),
            },
        }
    }

    fn agreement_move(&self) -> Option<String> {
        A::agreement_move().map(|m| m.to_string())
    }

    fn agrees_to_end(&self, seat: usize) -> Result<(), SessionError> {
        A::agrees_to_end(self.record.current(), seat).map_err(SessionError::Move)
    }

    fn score_unit(&self) -> &'static str {
        A::SCORE_UNIT
    }

    fn shows_resignations(&self) -> bool {
        A::SHOWS_RESIGNATIONS
    }

    fn check_spec(&self, spec: &PlayerSpec, caps: &Caps) -> Result<(), SessionError> {
        spec.check(A::player_kinds()).map_err(|e| SessionError::Player(format!("{e} (or human, open)")))?;
        if let Some(time) = spec.get_duration("time").map_err(SessionError::player)? {
            if time > caps.max_think {
                return Err(SessionError::Player(format!(
                    "time={} is over this server's longest thinking time, {} ms",
                    spec.settings.get("time").map_or("", String::as_str),
                    caps.max_think.as_millis()
                )));
            }
        }
        A::check_spec(&self.record, spec, caps)
    }

    fn saved_game(&self, export: &SavedGame) -> String {
        A::saved_game(&export.finished(self.record.clone()), export)
    }

    fn saved_game_format(&self) -> &'static str {
        A::SAVED_GAME_FORMAT
    }

    fn boxed_clone(&self) -> Box<dyn Session> {
        Box::new(GenericSession::<G, A> { record: self.record.clone(), adapter: std::marker::PhantomData })
    }

    fn move_limit(&self) -> usize {
        A::move_limit(self.record.start())
    }
}

/// The player in a slot when its key matches, else a new one from `make` (the old one is
/// dropped first, so a worker never holds two engines of one game).
pub fn slot_player<P: 'static>(
    slot: &mut EngineSlot,
    key: String,
    make: impl FnOnce() -> Result<P, SessionError>,
) -> Result<&mut P, SessionError> {
    let fits = matches!(slot, Some((k, v)) if *k == key && v.is::<P>());
    if !fits {
        *slot = None;
        *slot = Some((key, Box::new(make()?)));
    }
    slot.as_mut()
        .and_then(|(_, v)| v.downcast_mut::<P>())
        .ok_or_else(|| SessionError::Engine("engine cache".to_string()))
}

/// Starts sessions of one game: what the registry holds for the server.
pub trait SessionFactory: Sync {
    /// A new game from the page's options (unknown keys refused) and the server's secret.
    fn new_session(&self, options: &Value, secret: &Value) -> Result<Box<dyn Session>, SessionError>;
    /// Fills in what the server keeps to itself for a new game (see [`Adapter::complete_secret`]).
    fn complete_secret(&self, secret: &mut Value);
    /// The creation options as form fields (see [`Adapter::OPTION_FIELDS`]), so that a page
    /// with no code of the game's own can offer them.
    fn option_fields(&self) -> &'static [OptionField] {
        &[]
    }
    /// Does the game have a review (see [`Adapter::REVIEW`])?
    fn has_review(&self) -> bool;
}

/// One creation option as a form field: what a generic page needs to offer it (its label, its
/// kind and range, its default). Serialized into the server's catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OptionField {
    /// The option's key in the options object (`"size"`).
    pub key: &'static str,
    /// What the field is called on the page (`"Board size"`).
    pub label: &'static str,
    /// Its kind, range and default.
    pub kind: OptionKind,
}

/// The kind of an [`OptionField`]: a whole number in a range, or one of a few named choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OptionKind {
    /// A whole number from `min` to `max`.
    Integer {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
        /// The value when the option is left out.
        default: i64,
    },
    /// One of `choices`: `(value, label)` pairs.
    Choice {
        /// The values sent and their labels on the page.
        choices: &'static [(&'static str, &'static str)],
        /// The value when the option is left out.
        default: &'static str,
    },
}

/// The [`SessionFactory`] of a game `G` served through the adapter `A`.
pub struct Served<G, A>(std::marker::PhantomData<fn() -> (G, A)>);

impl<G, A> Served<G, A> {
    /// The factory (a constant, for a game's `ENTRY`).
    pub const fn new() -> Self {
        Served(std::marker::PhantomData)
    }
}

impl<G, A> Default for Served<G, A> {
    fn default() -> Self {
        Served::new()
    }
}

impl<G: Analyze + Players, A: Adapter<G>> SessionFactory for Served<G, A> {
    fn new_session(&self, options: &Value, secret: &Value) -> Result<Box<dyn Session>, SessionError> {
        Ok(Box::new(GenericSession::<G, A>::new(options, secret)?))
    }

    fn complete_secret(&self, secret: &mut Value) {
        A::complete_secret(secret)
    }

    fn option_fields(&self) -> &'static [OptionField] {
        A::OPTION_FIELDS
    }

    fn has_review(&self) -> bool {
        A::REVIEW.is_some()
    }
}

/// A whole-number option (at most 65,536), or `default` when absent.
pub fn option_usize(options: &Value, key: &str, default: usize) -> Result<usize, SessionError> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|&n| n <= 1 << 16)
            .map(|n| n as usize)
            .ok_or_else(|| SessionError::Options(format!("option {key:?} must be a whole number"))),
    }
}

/// A string option, or `None` when absent.
pub fn option_str<'a>(options: &'a Value, key: &str) -> Result<Option<&'a str>, SessionError> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(SessionError::Options(format!("option {key:?} must be a string"))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn every_game_starts_from_its_defaults_and_says_how_it_scores() {
        for entry in crate::registry::GAMES {
            let mut secret = json!({});
            entry.session.complete_secret(&mut secret);
            let session = entry.session.new_session(&json!({}), &secret).expect("the defaults are a valid game");
            // A game's agreement move is one of its moves, checked like any other, and checking
            // plays nothing.
            if let Some(mv) = session.agreement_move() {
                assert_eq!(session.check_move(&mv).as_deref(), Ok(mv.as_str()), "{}", entry.name);
            }
            assert!(session.check_move("no such move").is_err(), "{}", entry.name);
            assert_eq!(session.ply(), 0, "{}", entry.name);
            assert!(!session.score_unit().is_empty());
            assert!(entry.session.new_session(&json!({"no such option": 1}), &secret).is_err(), "{}", entry.name);
        }
    }
}
