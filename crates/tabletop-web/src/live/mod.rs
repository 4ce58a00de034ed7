//! The games in play: a bounded cache over the database, each game with its event channel,
//! presence, pending proposal and computer thinking. This module holds the types and a game's
//! own state (moves, takebacks, proposals, resignations, its view); the other jobs live apart:
//! `cache` (loading and evicting), `computer` (scheduling computer seats) and `processes`
//! (what processes sharing a database tell each other).
//!
//! - [`AppState::game`] loads a game on demand (replaying its moves) and resumes its computer.
//! - Games idle longer than [`IDLE_EVICTION`], or the least recently used past the cache size,
//!   are dropped from memory (they stay in the database); a game someone watches or a computer
//!   thinks for is kept.
//! - [`schedule`] starts a computer's thinking on the engine pool when one is to move, and
//!   passes the turns of seats that left.
//! - A watcher checks every few seconds that the database file is still the one opened;
//!   if not, writes are refused (503) rather than acknowledged and lost.

mod cache;
mod computer;
pub mod limits;
mod processes;
mod timer;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rand::RngCore;
use serde_json::{json, Value};
use tabletop::cancel::CancelFlag;
use tokio::sync::{broadcast, mpsc};

use crate::clocks::{Due, Timing};
use crate::config::ServeConfig;
use crate::engines::EnginePool;
use crate::error::ApiError;
use crate::ratings::{RatingChange, RatingJob, SeatAccount};
use crate::sessions::Session;
use crate::store::{GameRow, Store, StoreError, StoredGame, StoredInvite, Timed, Write};

use cache::replay;
pub use cache::{start_background, IDLE_EVICTION};
use computer::seat_kind;
pub use computer::{public_players, resume_computers, schedule, schedule_for};
pub use limits::{LimitKind, Limits, OpenGames, Who};
use processes::{presence_payload, PRESENCE_ASK, PRESENCE_TRUSTED};
pub use timer::start_timer;

/// Are two secrets equal? In time that depends on their lengths only, not on where they differ.
///
/// ```
/// use tabletop_web::live::same_secret;
/// assert!(same_secret(b"0123", b"0123"));
/// assert!(!same_secret(b"0123", b"0124"));
/// assert!(!same_secret(b"0123", b"012"));
/// ```
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |differ, (x, y)| differ | (x ^ y)) == 0
}

/// 32 random hex digits from the OS generator (ids and tokens).
pub fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A new seat token and its hash: the token is shown once, to its holder; only the hash is
/// stored.
pub fn new_token() -> (String, String) {
    let token = random_hex();
    let hash = crate::store::hash_token(&token);
    (token, hash)
}

/// Seconds since the Unix epoch.
pub fn now_seconds() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// What changed in a game, as events name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// The stream just opened (or missed events): here is the current state.
    Connected,
    /// A move was played.
    Move,
    /// Moves were taken back.
    Undo,
    /// A takeback was asked for.
    TakebackRequested,
    /// A takeback was refused.
    TakebackDeclined,
    /// One person accepted a proposal that still waits for others.
    ProposalAccepted,
    /// Ending the game was proposed.
    TerminateProposed,
    /// Ending the game was refused.
    TerminateDeclined,
    /// A seat resigned.
    Resign,
    /// A computer started thinking.
    Thinking,
    /// An open seat was taken.
    SeatTaken,
    /// Someone connected or left.
    Presence,
    /// The game ended by time: a flag, or an abort (a first move not made in time).
    Timeout,
    /// A player claimed the game against an opponent who left.
    Claimed,
    /// A seat taken from the lobby but never used went back to the lobby.
    SeatReleased,
    /// A rematch of the ended game was proposed.
    RematchProposed,
    /// A rematch was refused.
    RematchDeclined,
    /// Everyone accepted the rematch: the new game exists (its id is in the state's `rematch`).
    Rematch,
}

impl Change {
    /// The change an event name names.
    pub fn from_name(name: &str) -> Option<Self> {
        [
            Change::Connected,
            Change::Move,
            Change::Undo,
            Change::TakebackRequested,
            Change::TakebackDeclined,
            Change::ProposalAccepted,
            Change::TerminateProposed,
            Change::TerminateDeclined,
            Change::Resign,
            Change::Thinking,
            Change::SeatTaken,
            Change::Presence,
            Change::Timeout,
            Change::Claimed,
            Change::SeatReleased,
            Change::RematchProposed,
            Change::RematchDeclined,
            Change::Rematch,
        ]
        .into_iter()
        .find(|c| c.name() == name)
    }

    /// The name in events.
    pub fn name(self) -> &'static str {
        match self {
            Change::Connected => "connected",
            Change::Move => "move",
            Change::Undo => "undo",
            Change::TakebackRequested => "takeback_requested",
            Change::TakebackDeclined => "takeback_declined",
            Change::ProposalAccepted => "proposal_accepted",
            Change::TerminateProposed => "terminate_proposed",
            Change::TerminateDeclined => "terminate_declined",
            Change::Resign => "resign",
            Change::Thinking => "thinking",
            Change::SeatTaken => "seat_taken",
            Change::Presence => "presence",
            Change::Timeout => "timeout",
            Change::Claimed => "claimed",
            Change::SeatReleased => "seat_released",
            Change::RematchProposed => "rematch_proposed",
            Change::RematchDeclined => "rematch_declined",
            Change::Rematch => "rematch",
        }
    }
}

/// One change, sent to every event stream of the game (each renders the state for its viewer).
#[derive(Clone, Copy, Debug)]
pub struct Note {
    /// What changed.
    pub change: Change,
    /// Who did it.
    pub seat: Option<usize>,
}

/// What a proposal would do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProposalKind {
    /// Take the game back to this many moves.
    Takeback {
        /// The number of moves kept.
        to_ply: usize,
    },
    /// End the game now (Mathable's terminate).
    Terminate,
    /// After the game's end: a new game, same settings, seats rotated by one.
    Rematch,
}

/// A proposal waiting for the other people's answers (stored with the game, so that every
/// server process sees it).
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    kind: ProposalKind,
    by: usize,
    waiting_for: Vec<usize>,
    at_ply: usize,
    /// A rematch everyone accepted: the new game's id (kept, so that a second rematch of the
    /// same game is refused).
    made: Option<String>,
}

impl Proposal {
    fn to_json(&self) -> Value {
        let kind = match self.kind {
            ProposalKind::Takeback { to_ply } => json!({"takeback": to_ply}),
            ProposalKind::Terminate => json!("terminate"),
            ProposalKind::Rematch => json!("rematch"),
        };
        let mut json = json!({"kind": kind, "by": self.by, "waiting_for": self.waiting_for, "at_ply": self.at_ply});
        if let Some(made) = &self.made {
            json["made"] = json!(made);
        }
        json
    }

    fn from_json(value: &Value) -> Option<Self> {
        let kind = match &value["kind"] {
            Value::String(s) if s == "terminate" => ProposalKind::Terminate,
            Value::String(s) if s == "rematch" => ProposalKind::Rematch,
            other => ProposalKind::Takeback { to_ply: usize::try_from(other["takeback"].as_u64()?).ok()? },
        };
        let number = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
        Some(Proposal {
            kind,
            by: number(&value["by"])?,
            waiting_for: value["waiting_for"].as_array()?.iter().map(number).collect::<Option<Vec<_>>>()?,
            at_ply: number(&value["at_ply"])?,
            made: value["made"].as_str().map(str::to_string),
        })
    }
}

/// Seat `s`'s item at `s + 1` (the last one's first): a rematch's seats.
fn rotated<T: Clone>(items: &[T]) -> Vec<T> {
    let mut items = items.to_vec();
    items.rotate_right(1);
    items
}

/// Marks a person connected while their event stream is open.
pub struct PresenceGuard {
    presence: Arc<Vec<AtomicUsize>>,
    /// Per seat: when its person was last seen connected (ms since the Unix epoch).
    last_seen: Arc<Vec<AtomicU64>>,
    notes: Arc<AtomicU64>,
    seat: usize,
    events: broadcast::Sender<Note>,
    /// Where to tell other processes (shared databases): the publisher, this process, the game.
    publish: Option<(mpsc::UnboundedSender<String>, Arc<str>, String)>,
}

impl Drop for PresenceGuard {
    fn drop(&mut self) {
        if let Some(count) = self.presence.get(self.seat) {
            count.fetch_sub(1, Ordering::SeqCst);
        }
        if let Some(seen) = self.last_seen.get(self.seat) {
            seen.store(crate::clocks::now_ms(), Ordering::SeqCst);
        }
        self.notes.fetch_add(1, Ordering::SeqCst);
        let _ = self.events.send(Note { change: Change::Presence, seat: Some(self.seat) });
        if let Some((publisher, owner, id)) = &self.publish {
            let _ = publisher.send(presence_payload(owner, id, self.seat, &self.presence));
        }
    }
}

/// A game in memory.
pub struct LiveGame {
    /// What is stored about it.
    pub row: GameRow,
    /// The rules and the moves so far.
    pub session: Box<dyn Session>,
    /// Is a computer thinking for it?
    pub thinking: bool,
    /// Raised to stop the thinking, hints and analyses of the game's current position; replaced
    /// by a fresh flag once raised.
    pub cancel: CancelFlag,
    /// Every change goes to its event streams.
    pub events: broadcast::Sender<Note>,
    presence: Arc<Vec<AtomicUsize>>,
    /// How long a person has for a first move in one sitting ([`ServeConfig::first_move_time`]).
    first_move: std::time::Duration,
    /// How long an opponent must be away before a claim ([`ServeConfig::claim_after`]).
    claim_after: std::time::Duration,
    /// Per seat: when its person was last seen connected, here or (said) elsewhere, or when
    /// this process loaded the game (ms since the Unix epoch): how long an absent opponent has
    /// been gone, for a claim.
    last_seen: Arc<Vec<AtomicU64>>,
    /// Connections to other processes, per process: per seat, and when they last said so.
    presence_elsewhere: HashMap<String, (Vec<usize>, Instant)>,
    proposal: Option<Proposal>,
    /// The version in the database this copy matches (every write names it); -1 forces a reload.
    stored_version: i64,
    /// Does another server process think for its computer (it holds the lease)?
    thinking_elsewhere: bool,
    /// Changes to tell other server processes about (shared databases only).
    publisher: Option<mpsc::UnboundedSender<String>>,
    /// This process's name in notifications and leases.
    owner: Arc<str>,
    /// The client address of whoever acted on the game last: its computer's thinking is that
    /// client's turn in the engine pool (see `computer::schedule_for`).
    acted_by: Option<std::net::IpAddr>,
    /// Per seat: its network lag as this process measured it on the seat's event streams
    /// (pings), which bounds the lag a move is credited. In memory only (kept across reloads
    /// of the game): a seat never measured here is credited what its client reports.
    pub lag: Vec<crate::clocks::LagMeter>,
    /// Per move: its time and the mover's clock after it, where stored (games with a clock).
    times: Vec<Option<tabletop::clock::MoveTime>>,
    /// Notes sent to the event streams so far (the render cache's clock).
    notes: Arc<AtomicU64>,
    /// Event data rendered since the last note, shared by the streams that ask for the same.
    rendered: Rendered,
    /// The review of the finished game, computed once for all who ask: the moves it is of and
    /// the cell every request waits on.
    pub review: Option<(Vec<String>, Arc<tokio::sync::OnceCell<serde_json::Value>>)>,
}

/// What the event streams of a game were last sent, for reuse: a hundred watchers of one game
/// cost one rendering per change, not a hundred.
#[derive(Default)]
struct Rendered {
    /// What the renders below are of: (notes sent, stored version, thinking here, elsewhere, ply).
    key: Option<(u64, i64, bool, bool, usize)>,
    /// Each viewer's whole state and the fingerprints of its move list.
    views: HashMap<Option<usize>, RenderedView>,
    /// The data of events: by viewer, moves the stream holds, change and seat.
    data: HashMap<EventKey, Arc<str>>,
}

/// A viewer's whole state and the fingerprints of its move list.
type RenderedView = (Arc<Value>, Arc<Vec<u64>>);

/// What an event's data depends on besides the game: the viewer, how many of the moves the
/// stream holds still stand, the change and who made it.
type EventKey = (Option<usize>, Option<usize>, Change, Option<usize>);

/// Renders kept at most per game at once (streams out of step with the others each add one).
const RENDERS_KEPT: usize = 64;

/// A fingerprint of each entry of a state's `history`, to tell which moves a stream already holds.
fn fingerprints(view: &Value) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let fingerprint = |entry: &Value| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        entry.to_string().hash(&mut hasher);
        hasher.finish()
    };
    view["history"].as_array().map_or_else(Vec::new, |h| h.iter().map(fingerprint).collect())
}

impl LiveGame {
    fn new(stored: StoredGame, session: Box<dyn Session>, state: &AppState) -> Self {
        let presence = Arc::new((0..stored.row.seats.len()).map(|_| AtomicUsize::new(0)).collect());
        let loaded = crate::clocks::now_ms();
        let last_seen = Arc::new((0..stored.row.seats.len()).map(|_| AtomicU64::new(loaded)).collect());
        LiveGame {
            lag: vec![crate::clocks::LagMeter::default(); stored.row.seats.len()],
            times: stored.times.clone(),
            notes: Arc::new(AtomicU64::new(0)),
            rendered: Rendered::default(),
            review: None,
            proposal: stored.proposal.as_ref().and_then(Proposal::from_json),
            row: stored.row,
            session,
            thinking: false,
            cancel: CancelFlag::new(),
            events: broadcast::channel(64).0,
            presence,
            first_move: state.config.first_move_time,
            claim_after: state.config.claim_after,
            last_seen,
            presence_elsewhere: HashMap::new(),
            stored_version: stored.version,
            thinking_elsewhere: stored.leased,
            publisher: state.publisher.clone(),
            owner: state.owner.clone(),
            acted_by: None,
        }
    }

    /// The version clients order states by: the stored version, the same in every process and
    /// after every restart. States of one version differ only in what is not stored
    /// (presence, thinking), so clients take a state unless its version is lower.
    pub fn version(&self) -> u64 {
        u64::try_from(self.stored_version).unwrap_or(0)
    }

    /// Replaces this copy by the database's (another request or process changed the game).
    fn replace_with(&mut self, stored: StoredGame) -> Result<(), ApiError> {
        let session = replay(&stored)?;
        // Whatever this process was thinking about is for a position that no longer stands.
        if self.thinking {
            self.cancel_thinking();
        }
        self.session = session;
        self.times = stored.times.clone();
        self.proposal = stored.proposal.as_ref().and_then(Proposal::from_json);
        self.thinking_elsewhere = stored.leased;
        self.row = stored.row;
        self.stored_version = stored.version;
        Ok(())
    }

    /// A write's outcome: the new stored version, or the error for the client (a write that
    /// lost a race marks this copy for a reload).
    fn written(&mut self, state: &AppState, result: Result<i64, StoreError>) -> Result<(), ApiError> {
        match result {
            Ok(version) => {
                self.stored_version = version;
                Ok(())
            }
            Err(err) => {
                if matches!(err, StoreError::Stale) {
                    self.stored_version = -1;
                }
                Err(state.write_failed(err))
            }
        }
    }

    /// Applies a versioned write to the database (503 when storage cannot be trusted), the
    /// game's timing unchanged.
    async fn write(&mut self, state: &AppState, write: Write<'_>, computer_next: bool) -> Result<(), ApiError> {
        let timing = self.row.timing.clone();
        self.write_timed(state, write, computer_next, timing, false).await
    }

    /// Applies a versioned write with the game's `timing` after it (`ends`: the write ends the
    /// game), storing when the game is due to end by itself; the timer is told.
    async fn write_timed(
        &mut self,
        state: &AppState,
        write: Write<'_>,
        computer_next: bool,
        timing: Option<Timing>,
        ends: bool,
    ) -> Result<(), ApiError> {
        state.check_writable()?;
        let due = if ends { None } else { timing.as_ref().and_then(|t| self.due_with(t)) };
        let timed = Timed { deadline: due.map(|(at, _)| at as i64), timing };
        let result = state.store().write(&self.row.id, self.stored_version, write, computer_next, &timed).await;
        self.written(state, result)?;
        self.row.timing = timed.timing;
        if let Some((at, _)) = due {
            state.wake_timer(at);
        }
        Ok(())
    }

    /// Whose allowance an action of `seat`, asked from `client`, takes: the seat's account if
    /// it is linked to one (wherever it plays from), else the client's address.
    pub fn mover(&self, seat: usize, client: std::net::IpAddr) -> Who {
        Who::of(self.row.accounts.get(seat).and_then(Option::as_ref), client)
    }

    /// The seat a token holds (only tokens' hashes are kept: the token's is compared).
    pub fn seat_of(&self, token: Option<&str>) -> Option<usize> {
        let offered = crate::store::hash_token(token?);
        // Every seat's hash is compared, each in time independent of where they differ.
        let mut found = None;
        for (seat, held) in self.row.token_hashes.iter().enumerate() {
            if same_secret(held.as_bytes(), offered.as_bytes()) && found.is_none() {
                found = Some(seat);
            }
        }
        found.filter(|&seat| self.row.seats[seat] != "open")
    }

    /// The seat a request's token holds, or 403.
    fn require_seat(&self, token: &str) -> Result<usize, ApiError> {
        self.seat_of(Some(token)).ok_or_else(|| ApiError::Forbidden("that token holds no seat in this game".into()))
    }

    /// Is the seat played by the computer?
    pub fn is_computer(&self, seat: usize) -> bool {
        self.row.seats.get(seat).is_some_and(|s| s != "human" && s != "open")
    }

    /// Seats played by people (open seats count: a person will take them).
    pub fn people(&self) -> usize {
        (0..self.row.seats.len()).filter(|&s| !self.is_computer(s)).count()
    }

    /// Are hints and analysis allowed for the seat to move?
    pub fn hints_allowed(&self) -> bool {
        self.people() <= 1 || self.row.hints
    }

    /// The seat to move, or `None` when the game is over (by the rules or a resignation).
    pub fn to_move(&self) -> Option<usize> {
        if self.row.ended.is_some() {
            None
        } else {
            self.session.to_move()
        }
    }

    /// Tells every stream of a change, and other server processes if it was stored.
    pub fn changed(&mut self, change: Change, seat: Option<usize>) {
        if let Some(publisher) = &self.publisher {
            if !matches!(change, Change::Presence | Change::Connected) {
                let seat = seat.map_or_else(|| "-".to_string(), |s| s.to_string());
                let mut payload =
                    format!("{} {} {} {} {seat}", self.owner, self.row.id, self.stored_version, change.name());
                // A move carries its notation, so that other processes apply it without a reload.
                let moves = self.session.moves();
                if let (Change::Move, Some(notation)) = (change, moves.last()) {
                    payload = format!("{payload} {} {notation}", moves.len() - 1);
                }
                let _ = publisher.send(payload);
            }
        }
        self.changed_here(change, seat);
    }

    /// Tells this process's streams only.
    fn changed_here(&mut self, change: Change, seat: Option<usize>) {
        self.notes.fetch_add(1, Ordering::SeqCst);
        let _ = self.events.send(Note { change, seat });
    }

    /// Marks `viewer` connected until the guard is dropped.
    pub fn presence_guard(&mut self, viewer: Option<usize>) -> Option<PresenceGuard> {
        let seat = viewer?;
        self.presence.get(seat)?.fetch_add(1, Ordering::SeqCst);
        if let Some(seen) = self.last_seen.get(seat) {
            seen.store(crate::clocks::now_ms(), Ordering::SeqCst);
        }
        self.notes.fetch_add(1, Ordering::SeqCst);
        let _ = self.events.send(Note { change: Change::Presence, seat: Some(seat) });
        let publish = self.publisher.clone().map(|p| (p, self.owner.clone(), self.row.id.clone()));
        if let Some((publisher, owner, id)) = &publish {
            let _ = publisher.send(presence_payload(owner, id, seat, &self.presence));
        }
        Some(PresenceGuard {
            presence: self.presence.clone(),
            last_seen: self.last_seen.clone(),
            notes: self.notes.clone(),
            seat,
            events: self.events.clone(),
            publish,
        })
    }

    /// Is someone connected to `seat`, here or (recently said) in another process?
    pub fn connected(&self, seat: usize) -> bool {
        self.presence.get(seat).is_some_and(|c| c.load(Ordering::SeqCst) > 0)
            || self
                .presence_elsewhere
                .values()
                .any(|(counts, when)| when.elapsed() < PRESENCE_TRUSTED && counts.get(seat).is_some_and(|&c| c > 0))
    }

    /// Stops whatever thinks for this position (computer, hints, analyses).
    pub fn cancel_thinking(&mut self) {
        self.cancel.cancel();
        self.cancel = CancelFlag::new();
        self.thinking = false;
    }

    fn computer_to_move(&self) -> bool {
        self.to_move().is_some_and(|s| self.is_computer(s) || self.row.resigned.contains(&s))
    }

    /// Stores the move just played at `ply` with its time (`lag`: the mover's network lag, given
    /// back from its quota), or takes it back and answers 503. A mover whose time ran out
    /// loses on time instead (409).
    pub async fn store_move(
        &mut self,
        state: &AppState,
        ply: usize,
        notation: &str,
        lag: std::time::Duration,
    ) -> Result<(), ApiError> {
        let computer_next = self.computer_to_move();
        let (timing, record) = match self.row.timing.as_ref() {
            None => (None, None),
            Some(timing) => {
                let everyone_moved = timing.clock.running.is_none() && self.everyone_moved();
                match timing.after_move(crate::clocks::now_ms(), lag, self.to_move(), everyone_moved) {
                    Ok((after, time)) => {
                        let record = json!({"time": time, "clock": after.clock}).to_string();
                        (Some(after), Some(record))
                    }
                    Err(out) => {
                        self.session.undo();
                        self.end_by_time(state, Due::Flag(out.seat)).await?;
                        return Err(ApiError::Conflict("your time ran out before this move arrived".into()));
                    }
                }
            }
        };
        let move_time = record.as_deref().and_then(crate::store::move_time);
        let write = Write::Move { ply, notation, time: record.as_deref() };
        if let Err(err) = self.write_timed(state, write, computer_next, timing, false).await {
            self.session.undo();
            return Err(err);
        }
        self.times.resize(ply, None);
        self.times.push(move_time);
        // Any move ends a pending proposal.
        self.proposal = None;
        // The move is stored whatever follows; an ending that could not be stored is tried
        // again after the next move.
        if let Err(err) = self.end_at_move_limit(state).await {
            tracing::warn!("could not end game {} at its move limit: {err}", self.row.id);
        }
        self.rate_if_over(state).await;
        Ok(())
    }

    /// When a rated game has just ended (not aborted) and was not rated yet: its players'
    /// ratings change, once, in the versioned write that stores the changes (a process that
    /// loses the race reloads the game with the winner's changes). A failure is logged: the
    /// game's end stands.
    pub(crate) async fn rate_if_over(&mut self, state: &AppState) {
        if !self.row.rated || !self.row.rating_changes.is_empty() || self.to_move().is_some() {
            return;
        }
        let Some(timing) = self.row.timing.as_ref() else { return };
        if timing.ended_by.as_deref() == Some("aborted") {
            return;
        }
        let seats: Option<Vec<(usize, String)>> =
            self.row.accounts.iter().enumerate().map(|(seat, a)| a.as_ref().map(|a| (seat, a.id.clone()))).collect();
        let Some(seats) = seats else {
            tracing::warn!(game = %self.row.id, "a rated game ended with a seat without its account: not rated");
            return;
        };
        let result = self.result(&self.session.view(None)["status"]);
        let winners: Vec<usize> = result["winners"]
            .as_array()
            .map_or_else(Vec::new, |w| w.iter().filter_map(Value::as_u64).map(|s| s as usize).collect());
        let job = RatingJob {
            game: self.row.game.clone(),
            speed: timing.control().speed().to_string(),
            seats,
            winners,
            at: now_seconds(),
        };
        match state.store().rate_game(&self.row.id, self.stored_version, &job).await {
            Ok((version, changes)) => {
                self.stored_version = version;
                self.row.rating_changes = changes;
            }
            Err(StoreError::Stale) => {
                tracing::info!(game = %self.row.id, "another write rated or changed the game first; reloading it");
                self.stored_version = -1;
            }
            Err(err) => tracing::warn!(game = %self.row.id, "could not rate the game: {err}"),
        }
    }

    /// Ends the game when it reached the game's move limit (a bound on its record and its
    /// state, far beyond real games): drawn, or won by the best scores where the game keeps them.
    async fn end_at_move_limit(&mut self, state: &AppState) -> Result<(), ApiError> {
        let own = self.session.move_limit();
        let limit = state.config.move_limit.map_or(own, |cap| cap.min(own));
        if self.session.ply() < limit || self.to_move().is_none() {
            return Ok(());
        }
        let remaining: Vec<usize> = (0..self.row.seats.len()).filter(|s| !self.row.resigned.contains(s)).collect();
        let winners: Vec<usize> = match self.session.scores() {
            Some(scores) => {
                let best = remaining.iter().map(|&s| scores[s]).max().unwrap_or(0);
                remaining.iter().copied().filter(|&s| scores[s] == best).collect()
            }
            None => Vec::new(),
        };
        let reason = format!("the game reached this server's limit of {limit} moves");
        let resigned = self.row.resigned.clone();
        let ended = Some((reason.as_str(), winners.as_slice()));
        let timing = self.row.timing.as_ref().map(|t| t.ended(None));
        self.write_timed(state, Write::Resigned { resigned: &resigned, ended }, false, timing, true).await?;
        self.row.ended = Some(reason);
        self.row.ended_winners = winners;
        self.cancel_thinking();
        Ok(())
    }

    /// Takes the game back to `ply` moves, in memory and in the database.
    pub async fn take_back_to(&mut self, state: &AppState, ply: usize) -> Result<(), ApiError> {
        // A takeback does not save a seat whose time ran out.
        if self.apply_due(state, crate::clocks::now_ms()).await?.is_some() {
            return Err(ApiError::Conflict("time ran out: the game is over".into()));
        }
        self.cancel_thinking();
        let mut undone = Vec::new();
        while self.session.ply() > ply {
            undone.push(self.session.moves().last().cloned().unwrap_or_default());
            self.session.undo();
        }
        let computer_next = self.computer_to_move();
        // The time used is not given back: the clocks go on from where they are.
        let timing = self.row.timing.as_ref().map(|t| {
            let everyone_moved = self.everyone_moved();
            t.taken_back(crate::clocks::now_ms(), self.to_move(), everyone_moved)
        });
        if let Err(err) = self.write_timed(state, Write::Truncate { ply }, computer_next, timing, false).await {
            // Put the moves back: the database still has them.
            for notation in undone.iter().rev() {
                let _ = self.session.play(notation);
            }
            return Err(err);
        }
        self.times.truncate(ply);
        self.proposal = None;
        Ok(())
    }

    /// Other people who must answer a proposal by `seat`.
    fn others(&self, seat: usize) -> Vec<usize> {
        (0..self.row.seats.len())
            .filter(|&s| s != seat && !self.is_computer(s) && !self.row.resigned.contains(&s))
            .collect()
    }

    /// Must `seat` ask other people (undo and terminate become proposals)? Not when every
    /// other seat is a computer or a person who resigned: nobody would be left to answer.
    pub fn asks_others(&self, seat: usize) -> bool {
        self.people() > 1 && !self.others(seat).is_empty()
    }

    /// Starts a proposal by `seat` (409 if one is pending), counted against `by`'s proposal
    /// rate (429 beyond; only a proposal that would be made is counted).
    pub async fn propose(
        &mut self,
        state: &AppState,
        kind: ProposalKind,
        seat: usize,
        by: &Who,
    ) -> Result<(), ApiError> {
        if self.proposal.is_some() {
            return Err(ApiError::Conflict("a proposal is already waiting for an answer".into()));
        }
        state.limits().check(LimitKind::Proposal, by).await?;
        // A rematch asks every other seat (the game is over: resigning does not matter then).
        let waiting_for = match kind {
            ProposalKind::Rematch => (0..self.row.seats.len()).filter(|&s| s != seat).collect(),
            _ => self.others(seat),
        };
        let proposal = Proposal { kind, by: seat, waiting_for, at_ply: self.session.ply(), made: None };
        self.store_proposal(state, Some(proposal)).await?;
        let change = match kind {
            ProposalKind::Takeback { .. } => Change::TakebackRequested,
            ProposalKind::Terminate => Change::TerminateProposed,
            ProposalKind::Rematch => Change::RematchProposed,
        };
        self.changed(change, Some(seat));
        Ok(())
    }

    /// `seat` proposes a rematch of the ended game: only between people (every seat a person's,
    /// 422 otherwise), only once the game is over (422), once per game (409 while one is
    /// pending or after one was made).
    pub async fn propose_rematch(&mut self, state: &AppState, seat: usize, by: &Who) -> Result<(), ApiError> {
        if self.to_move().is_some() {
            return Err(ApiError::Illegal("a rematch can be proposed only once the game is over".into()));
        }
        if self.row.seats.iter().any(|s| s != "human") {
            return Err(ApiError::Illegal(
                "a rematch is between people: this game has a computer (or a seat never taken); create a new game"
                    .into(),
            ));
        }
        if self.proposal.as_ref().is_some_and(|p| p.made.is_some()) {
            return Err(ApiError::Conflict("this game's rematch was made already".into()));
        }
        self.propose(state, ProposalKind::Rematch, seat, by).await
    }

    /// Makes the rematch everyone accepted: first the old game records the new game's id (a
    /// versioned write: of two processes, one makes it), then the new game is stored, with the
    /// same game, options, hints, clock and rated flag, and the seats rotated by one (seat `s`
    /// becomes `s + 1`; two players swap). Each seat's token hash and account move with its
    /// person: everyone plays the new game with the token they hold, and no token is shown.
    async fn make_rematch(&mut self, state: &AppState, proposal: Proposal) -> Result<(), ApiError> {
        let id = random_hex();
        let made = Proposal { waiting_for: Vec::new(), made: Some(id.clone()), ..proposal };
        self.store_proposal(state, Some(made)).await?;
        let created = match self.rematch_row(state, id) {
            Ok((row, session)) => state.insert_new(row, session).await.map(drop),
            Err(err) => Err(err),
        };
        if let Err(err) = created {
            // Nothing was made: the proposal is gone, a new one may be made.
            if let Err(undone) = self.store_proposal(state, None).await {
                tracing::warn!(game = %self.row.id, "could not forget a rematch that failed: {undone}");
            }
            return Err(err);
        }
        Ok(())
    }

    /// The rematch game `id` to store (see [`LiveGame::make_rematch`]).
    fn rematch_row(&self, state: &AppState, id: String) -> Result<(GameRow, Box<dyn Session>), ApiError> {
        let row = &self.row;
        let mut secret = json!({});
        if let Some(seed) = state.config.game_seed {
            secret["seed"] = json!(state.next_game_seed(seed));
        }
        crate::sessions::complete_secret(&row.game, &mut secret);
        let session = crate::sessions::new_session(&row.game, &row.options, &secret)
            .map_err(|e| ApiError::Internal(format!("the rematch's options were refused: {e}")))?;
        let seated = vec![true; row.seats.len()];
        let timing = match &row.timing {
            Some(t) => t.control(),
            None => crate::clocks::control_for(None, false).map_err(|e| ApiError::Internal(e.to_string()))?,
        };
        let timing = Timing::new(timing, &seated, crate::clocks::now_ms());
        let new = GameRow {
            id,
            game: row.game.clone(),
            options: row.options.clone(),
            secret,
            token_hashes: rotated(&row.token_hashes),
            seats: rotated(&row.seats),
            invites: vec![None; row.seats.len()],
            hints: row.hints,
            resigned: Vec::new(),
            ended: None,
            ended_winners: Vec::new(),
            created: now_seconds(),
            timing: Some(timing),
            accounts: rotated(&row.accounts),
            rated: row.rated,
            rating_changes: Vec::new(),
            // Every seat is taken: a rematch is no seek.
            rating_range: None,
        };
        Ok((new, session))
    }

    /// A takeback request between people: only the requester's own last move (turn), only
    /// if nobody moved since, and never a move that revealed hidden tokens.
    pub async fn request_takeback(&mut self, state: &AppState, seat: usize, by: &Who) -> Result<(), ApiError> {
        let to_ply = self.takeback_between_people(seat)?;
        self.propose(state, ProposalKind::Takeback { to_ply }, seat, by).await
    }

    /// Where a takeback asked by `seat` between people would go: its own last move (turn),
    /// only if nobody moved since, never across a move that revealed hidden tokens.
    fn takeback_between_people(&self, seat: usize) -> Result<usize, ApiError> {
        let ply = self.session.ply();
        let mut to_ply = ply;
        while to_ply > 0 && self.session.mover_of(to_ply - 1) == Some(seat) {
            to_ply -= 1;
        }
        if to_ply == ply {
            return Err(ApiError::Illegal("only your own last move can be taken back, before anyone moves".into()));
        }
        self.never_across_a_reveal(to_ply)?;
        Ok(to_ply)
    }

    /// Where an undo against the computer (or only people who resigned) goes: back the last full
    /// round, until the person is to move again; never across a move that revealed hidden tokens
    /// (the bag keeps its order: a takeback across a draw would show what comes next, the
    /// computer's draws too).
    pub fn undo_against_the_computer(&self) -> Result<usize, ApiError> {
        let mut target = self.session.ply();
        if target == 0 {
            return Err(ApiError::Illegal("nothing to undo".into()));
        }
        target -= 1;
        while target > 0
            && self.session.mover_of(target).is_some_and(|s| self.is_computer(s) || self.row.resigned.contains(&s))
        {
            target -= 1;
        }
        self.never_across_a_reveal(target)?;
        Ok(target)
    }

    fn never_across_a_reveal(&self, to_ply: usize) -> Result<(), ApiError> {
        if (to_ply..self.session.ply()).any(|p| self.session.reveals(p)) {
            return Err(ApiError::Illegal(
                "draws, exchanges and ended turns reveal tokens: they cannot be taken back".into(),
            ));
        }
        Ok(())
    }

    /// The seats that could take back (or ask to take back) now, for the page's button: the
    /// rules are public, so everyone may know.
    fn takeback_seats(&self) -> Vec<usize> {
        if self.to_move().is_none() || self.proposal.is_some() {
            return Vec::new();
        }
        (0..self.row.seats.len())
            .filter(|&seat| self.row.seats[seat] == "human" && !self.row.resigned.contains(&seat))
            .filter(|&seat| {
                if self.asks_others(seat) {
                    self.takeback_between_people(seat).is_ok()
                } else {
                    self.undo_against_the_computer().is_ok()
                }
            })
            .collect()
    }

    /// Gives the seats (`seat`, an open one, now taken by a person) and stores them, with a
    /// new token for the seat: answers the token (only its hash is stored, so it is shown now
    /// or never).
    pub async fn take_seat(
        &mut self,
        state: &AppState,
        seats: Vec<String>,
        seat: usize,
        account: Option<SeatAccount>,
    ) -> Result<String, ApiError> {
        let invites = self.row.invites.clone();
        self.give_seat(state, seats, invites, seat, account).await
    }

    /// May `account` take a seat in this game? A rated game's seats are for logged-in
    /// accounts (401 without one), each a different one (409 for an account already seated).
    pub fn check_taker(&self, account: Option<&SeatAccount>) -> Result<(), ApiError> {
        if !self.row.rated {
            return Ok(());
        }
        let Some(account) = account else {
            return Err(ApiError::Unauthorized(
                "this game is rated: its seats are for logged-in accounts (log in, then take the seat)".into(),
            ));
        };
        if self.row.accounts.iter().flatten().any(|a| a.id == account.id) {
            return Err(ApiError::Conflict(
                "this game is rated and your account already holds a seat in it: another account must take this one"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Stores `seats` and `invites` with a new token for `seat` (one versioned write: of two
    /// requests for the seat, in this process or another, one stores and the other finds the
    /// game moved on), and answers the token.
    async fn give_seat(
        &mut self,
        state: &AppState,
        seats: Vec<String>,
        invites: Vec<Option<StoredInvite>>,
        seat: usize,
        account: Option<SeatAccount>,
    ) -> Result<String, ApiError> {
        let (token, hash) = new_token();
        let mut accounts = self.row.accounts.clone();
        if let Some(slot) = accounts.get_mut(seat) {
            *slot = account;
        }
        let mut token_hashes = self.row.token_hashes.clone();
        let held = token_hashes.get_mut(seat).ok_or_else(|| ApiError::Internal(format!("no seat {seat}")))?;
        *held = hash;
        let computer_next = self.computer_to_move();
        let write = Write::Seats { seats: &seats, token_hashes: &token_hashes, invites: &invites, accounts: &accounts };
        // The seat's person is here: its first-move deadline may run from now.
        let mut timing = self.row.timing.clone();
        if let Some(seated) = timing.as_mut().and_then(|t| t.seated.get_mut(seat)) {
            *seated = Some(crate::clocks::now_ms());
        }
        self.write_timed(state, write, computer_next, timing, false).await?;
        self.row.seats = seats;
        self.row.token_hashes = token_hashes;
        self.row.invites = invites;
        self.row.accounts = accounts;
        Ok(token)
    }

    /// The seat whose invitation `code` is, used or not (every seat's hash is compared, each in
    /// time independent of where they differ).
    pub fn invited_seat(&self, code: &str) -> Option<usize> {
        let offered = crate::store::hash_token(code);
        let mut found = None;
        for (seat, invite) in self.row.invites.iter().enumerate() {
            let Some(invite) = invite else { continue };
            if same_secret(invite.hash.as_bytes(), offered.as_bytes()) && found.is_none() {
                found = Some(seat);
            }
        }
        found
    }

    /// Has `seat`'s invitation been used?
    pub fn invite_used(&self, seat: usize) -> bool {
        self.row.invites.get(seat).is_some_and(|i| i.as_ref().is_some_and(|i| i.claimed))
    }

    /// Uses `seat`'s invitation: the seat gets a new token (the creator's token for it stops
    /// working) and the invitation is marked used, in one versioned write. Answers the token.
    /// After [`StoreError::Stale`] (another process wrote the game first) the answer is a 409
    /// and [`LiveGame::lost_a_race`] is true: the caller reloads the game and looks again.
    pub async fn use_invite(
        &mut self,
        state: &AppState,
        seat: usize,
        account: Option<SeatAccount>,
    ) -> Result<String, ApiError> {
        let mut invites = self.row.invites.clone();
        match invites.get_mut(seat) {
            Some(Some(invite)) if !invite.claimed => invite.claimed = true,
            _ => return Err(ApiError::Internal(format!("seat {seat} has no unused invitation"))),
        }
        let seats = self.row.seats.clone();
        self.give_seat(state, seats, invites, seat, account).await
    }

    /// Did this copy's last write lose a race with another writer (so it must be reloaded)?
    pub fn lost_a_race(&self) -> bool {
        self.stored_version < 0
    }

    /// Stores a proposal (or its end), then keeps it.
    async fn store_proposal(&mut self, state: &AppState, proposal: Option<Proposal>) -> Result<(), ApiError> {
        let json = proposal.as_ref().map(Proposal::to_json);
        let computer_next = self.computer_to_move();
        self.write(state, Write::Proposal { proposal: json.as_ref() }, computer_next).await?;
        self.proposal = proposal;
        Ok(())
    }

    /// `seat` accepts or declines the pending proposal.
    pub async fn answer_proposal(&mut self, state: &AppState, seat: usize, accept: bool) -> Result<(), ApiError> {
        let Some(proposal) = self.proposal.clone() else {
            return Err(ApiError::Conflict("there is no proposal to answer".into()));
        };
        if proposal.made.is_some() {
            return Err(ApiError::Conflict("the rematch was accepted already: there is no proposal to answer".into()));
        }
        if !proposal.waiting_for.contains(&seat) {
            return Err(ApiError::Forbidden("this proposal is not waiting for your answer".into()));
        }
        let (kind, by, at_ply) = (proposal.kind, proposal.by, proposal.at_ply);
        if !accept {
            self.store_proposal(state, None).await?;
            let change = match kind {
                ProposalKind::Takeback { .. } => Change::TakebackDeclined,
                ProposalKind::Terminate => Change::TerminateDeclined,
                ProposalKind::Rematch => Change::RematchDeclined,
            };
            self.changed(change, Some(seat));
            return Ok(());
        }
        let mut proposal = proposal;
        proposal.waiting_for.retain(|&s| s != seat);
        if !proposal.waiting_for.is_empty() {
            self.store_proposal(state, Some(proposal)).await?;
            self.changed(Change::ProposalAccepted, Some(seat));
            return Ok(());
        }
        if self.session.ply() != at_ply {
            self.store_proposal(state, None).await?;
            return Err(ApiError::Conflict("the game moved on since the proposal".into()));
        }
        match kind {
            ProposalKind::Rematch => {
                self.make_rematch(state, proposal).await?;
                self.changed(Change::Rematch, Some(by));
                return Ok(());
            }
            ProposalKind::Takeback { to_ply } => {
                self.take_back_to(state, to_ply).await?;
                self.changed(Change::Undo, Some(by));
            }
            ProposalKind::Terminate => {
                let agreed =
                    self.session.agreement_move().ok_or_else(|| ApiError::Illegal("nothing to agree on".into()))?;
                let notation = self.session.play(&agreed).map_err(|e| ApiError::Illegal(e.to_string()))?;
                self.store_move(state, at_ply, &notation, std::time::Duration::ZERO).await?;
                self.cancel_thinking();
                self.changed(Change::Move, Some(by));
            }
        }
        self.proposal = None;
        Ok(())
    }

    /// `seat` resigns: with two players it loses; with more, it leaves and ranks last.
    pub async fn resign(&mut self, state: &AppState, seat: usize) -> Result<(), ApiError> {
        self.leave(state, seat, "resigned", None).await?;
        self.changed(Change::Resign, Some(seat));
        Ok(())
    }

    /// `seat` leaves the game (`how`: "resigned", or "left the game" when claimed against,
    /// `by`: the timing's `ended_by` then): with two players it loses; with more, it ranks last.
    async fn leave(&mut self, state: &AppState, seat: usize, how: &str, by: Option<&str>) -> Result<(), ApiError> {
        if self.row.resigned.contains(&seat) {
            return Err(ApiError::Conflict("you have resigned already".into()));
        }
        let mut resigned = self.row.resigned.clone();
        resigned.push(seat);
        let remaining: Vec<usize> = (0..self.row.seats.len()).filter(|s| !resigned.contains(s)).collect();
        let names = self.session.seat_names();
        // The game ends when one player is left, or only computers (they would play on for nobody);
        // then the best scores among those left win.
        let only_computers = remaining.iter().all(|&s| self.is_computer(s));
        let winners = match self.session.scores() {
            Some(scores) if remaining.len() > 1 => {
                let best = remaining.iter().map(|&s| scores[s]).max().unwrap_or(0);
                remaining.iter().copied().filter(|&s| scores[s] == best).collect()
            }
            _ => remaining.clone(),
        };
        let ended = (remaining.len() <= 1 || only_computers)
            .then(|| (format!("{} {how}", names.get(seat).map_or("a player", String::as_str)), winners));
        // Passing for the seat that left may make a computer (or another leaver) next.
        let computer_next = ended.is_none() && {
            let to_move = self.to_move();
            to_move.is_some_and(|s| self.is_computer(s) || resigned.contains(&s))
        };
        let ended_ref = ended.as_ref().map(|(r, w)| (r.as_str(), w.as_slice()));
        let timing = match &ended {
            Some(_) => self.row.timing.as_ref().map(|t| t.ended(by)),
            None => self.row.timing.clone(),
        };
        let write = Write::Resigned { resigned: &resigned, ended: ended_ref };
        self.write_timed(state, write, computer_next, timing, ended.is_some()).await?;
        self.row.resigned = resigned;
        if let Some((reason, winners)) = ended {
            self.row.ended = Some(reason);
            self.row.ended_winners = winners;
            self.cancel_thinking();
        }
        self.proposal = None;
        self.rate_if_over(state).await;
        Ok(())
    }

    /// The data of the event telling `viewer`'s stream of `note`: the state as that viewer may
    /// see it, with only the moves the stream has not been sent (`moves_from` says how many of
    /// those sent still stand; the first state of a stream is whole). `sent` keeps the
    /// fingerprints of the move list this stream holds. Renders are shared between streams.
    pub fn event_data(&mut self, viewer: Option<usize>, note: Note, sent: &mut Option<Arc<Vec<u64>>>) -> Arc<str> {
        let key = (
            self.notes.load(Ordering::SeqCst),
            self.stored_version,
            self.thinking,
            self.thinking_elsewhere,
            self.session.ply(),
        );
        // A stream's first state is always rendered afresh (nothing that changed without a note
        // can linger in it).
        if sent.is_none() || self.rendered.key != Some(key) || self.rendered.data.len() >= RENDERS_KEPT {
            self.rendered = Rendered { key: Some(key), ..Rendered::default() };
        }
        let (view, prints) = match self.rendered.views.get(&viewer) {
            Some((view, prints)) => (view.clone(), prints.clone()),
            None => {
                let view = self.state(viewer);
                let prints = Arc::new(fingerprints(&view));
                let view = Arc::new(view);
                self.rendered.views.insert(viewer, (view.clone(), prints.clone()));
                (view, prints)
            }
        };
        let kept = sent.as_ref().map(|before| before.iter().zip(prints.iter()).take_while(|(a, b)| a == b).count());
        *sent = Some(prints);
        let data_key = (viewer, kept, note.change, note.seat);
        if let Some(data) = self.rendered.data.get(&data_key) {
            return data.clone();
        }
        let mut out = serde_json::Map::new();
        if let Some(fields) = view.as_object() {
            for (name, value) in fields {
                let value = match (name.as_str(), kept, value) {
                    ("moves" | "history", Some(kept), Value::Array(items)) => {
                        Value::Array(items.get(kept..).unwrap_or_default().to_vec())
                    }
                    _ => value.clone(),
                };
                out.insert(name.clone(), value);
            }
        }
        if let Some(kept) = kept {
            out.insert("moves_from".into(), json!(kept));
        }
        out.insert("event".into(), json!({"kind": note.change.name(), "seat": note.seat}));
        let data: Arc<str> = Arc::from(Value::Object(out).to_string());
        self.rendered.data.insert(data_key, data.clone());
        data
    }

    fn players(&self) -> Value {
        let names = self.session.seat_names();
        let players: Vec<Value> = self
            .row
            .seats
            .iter()
            .enumerate()
            .map(|(seat, spec)| {
                let kind = seat_kind(spec);
                let connected = kind == "computer" || self.connected(seat);
                // Whether the seat's invitation is still to be used (public, as who is connected:
                // the creator's page shows the link until then); never the code.
                let invite = match self.row.invites.get(seat) {
                    Some(Some(invite)) => json!(if invite.claimed { "used" } else { "unused" }),
                    _ => Value::Null,
                };
                // The account's name (public) when a logged-in person holds the seat.
                let account = self.row.accounts.get(seat).and_then(|a| a.as_ref());
                let player = account.map(|a| a.name.clone());
                // A bot account's seat is marked; a challenge's seat names the bot it waits for.
                let bot = account.is_some_and(|a| a.bot);
                let reserved_for = match self.row.invites.get(seat) {
                    Some(Some(invite)) if !invite.claimed => invite.reserved.as_ref().map(|r| r.name.clone()),
                    _ => None,
                };
                let rating = self.row.rating_changes.iter().find(|c| c.seat == seat).map(RatingChange::to_json);
                json!({
                    "seat": seat, "name": names.get(seat), "kind": kind, "spec": spec,
                    "connected": connected, "resigned": self.row.resigned.contains(&seat),
                    "invite": invite, "player": player, "bot": bot, "reserved_for": reserved_for,
                    "rating_change": rating,
                })
            })
            .collect();
        Value::Array(players)
    }

    /// The result banner's facts, once the game is over.
    fn result(&self, status: &Value) -> Value {
        if self.to_move().is_some() {
            return Value::Null;
        }
        let names = self.session.seat_names();
        let scores = self.session.scores();
        let mut winners: Vec<usize> = match &self.row.ended {
            Some(_) => self.row.ended_winners.clone(),
            None => status["winners"]
                .as_array()
                .map_or_else(Vec::new, |w| w.iter().filter_map(Value::as_u64).map(|s| s as usize).collect()),
        };
        // Seats that left rank last: the best of the others win.
        if self.row.ended.is_none() && winners.iter().any(|w| self.row.resigned.contains(w)) {
            let remaining: Vec<usize> = (0..names.len()).filter(|s| !self.row.resigned.contains(s)).collect();
            winners = match &scores {
                Some(scores) => {
                    let best = remaining.iter().map(|&s| scores[s]).max().unwrap_or(0);
                    remaining.into_iter().filter(|&s| scores[s] == best).collect()
                }
                None => remaining,
            };
        }
        let who = winners.iter().map(|&s| names[s].clone()).collect::<Vec<_>>().join(" and ");
        // Named, so the order cannot mislead: "Black 30, White 34 discs".
        let listed = scores.as_ref().map_or_else(String::new, |scores| {
            let listed = scores.iter().zip(&names).map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ");
            format!("{listed} {}", self.session.score_unit())
        });
        let reason = match &self.row.ended {
            Some(reason) => reason.clone(),
            None => status["reason"].as_str().unwrap_or("").to_string(),
        };
        // An aborted game has no result to state: it says so.
        let aborted = self.row.timing.as_ref().is_some_and(|t| t.ended_by.as_deref() == Some("aborted"));
        // The library's one sentence shape, as the terminal prints it.
        let text = match winners.len() {
            _ if aborted => format!("Game aborted: {}.", reason.trim_start_matches("aborted: ")),
            0 => tabletop::value::result_sentence(None, &listed, &reason),
            1 => tabletop::value::result_sentence(Some(&who), &listed, &reason),
            _ => tabletop::value::result_sentence(Some(&who), &listed, &reason).replacen(
                &format!("{who} wins"),
                &format!("{who} share the win"),
                1,
            ),
        };
        json!({"winners": winners, "text": text, "scores": scores, "reason": reason})
    }

    /// The game's public record, for a player's page and export: its game, options, clock and
    /// speed, rated or not, players, moves, result (`null` while it is played) and rating
    /// changes.
    pub fn record(&self) -> Value {
        let view = self.session.view(None);
        let mut status = view["status"].clone();
        if let Some(ended) = &self.row.ended {
            status = json!({"over": true, "winners": self.row.ended_winners, "reason": ended});
        }
        let mut result = self.result(&status);
        if let (Some(timing), Some(fields)) = (&self.row.timing, result.as_object_mut()) {
            fields.insert("ended_by".into(), json!(timing.ended_by));
        }
        let names = self.session.seat_names();
        let players: Vec<Value> = (0..self.row.seats.len())
            .map(|seat| {
                let player = self.row.accounts.get(seat).and_then(|a| a.as_ref()).map(|a| a.name.clone());
                json!({"seat": seat, "name": names.get(seat), "kind": seat_kind(&self.row.seats[seat]), "player": player})
            })
            .collect();
        let control = self.row.timing.as_ref().map(Timing::control);
        // While a game hiding information is played, its moves as a watcher sees them (a
        // Mathable exchange's tokens are its player's secret); once it is over, as played.
        let moves = if self.session.hidden_information() && self.to_move().is_some() {
            view["moves"].clone()
        } else {
            json!(self.session.moves())
        };
        json!({
            "id": self.row.id,
            "game": self.row.game,
            "options": self.row.options,
            "created": self.row.created,
            "rated": self.row.rated,
            "clock": control.as_ref().map_or_else(|| "none".to_string(), ToString::to_string),
            "speed": control.as_ref().map_or_else(|| "unlimited".to_string(), |c| c.speed().to_string()),
            "players": players,
            "moves": moves,
            "over": self.to_move().is_none(),
            "result": result,
            "rating_changes": self.row.rating_changes.iter().map(RatingChange::to_json).collect::<Vec<_>>(),
        })
    }

    /// The ended game as its saved-game text (`Session::saved_game`: GGF, or the record's text
    /// with its clocks and result), given its `result` (as [`LiveGame::record`] shows it), each
    /// seat's player, the date and notes; `None` while it is played, and for an aborted game
    /// (it has no result). Only an ended game: the text holds every move as played, hidden
    /// information included.
    pub fn saved_game(&self, result: &Value, players: &[String], date: &str, notes: &[String]) -> Option<String> {
        if self.to_move().is_some() {
            return None;
        }
        let ended_by = self.row.timing.as_ref().and_then(|t| t.ended_by.as_deref());
        let ending = match (ended_by, self.row.resigned.last()) {
            (Some("aborted"), _) => return None,
            // The flag falls on the seat to move.
            (Some("flag"), _) => tabletop::session::Ending::OutOfTime(self.session.to_move().unwrap_or(0)),
            (_, Some(&seat)) if self.row.ended.is_some() => tabletop::session::Ending::Forfeit(seat),
            _ => tabletop::session::Ending::Rules,
        };
        let winners: Vec<usize> = result["winners"].as_array().map_or_else(Vec::new, |w| {
            w.iter().filter_map(Value::as_u64).filter_map(|s| usize::try_from(s).ok()).collect()
        });
        let reason = result["reason"].as_str().unwrap_or("");
        let controls: Vec<_> =
            self.row.timing.as_ref().filter(|t| t.is_limited()).map(Timing::control).into_iter().collect();
        let export = tabletop::session::SavedGame {
            players,
            date,
            winners: &winners,
            reason,
            ending,
            controls: &controls,
            times: &self.times,
            notes,
        };
        Some(self.session.saved_game(&export))
    }

    /// The format of [`LiveGame::saved_game`]'s text (`text`, `ggf`).
    pub fn saved_game_format(&self) -> &'static str {
        self.session.saved_game_format()
    }

    /// The state as `viewer` may see it.
    pub fn state(&self, viewer: Option<usize>) -> Value {
        let mut view = self.session.view(viewer);
        if let Some(ended) = &self.row.ended {
            view["status"] = json!({"over": true, "to_move": null, "winners": self.row.ended_winners, "reason": ended});
            view["legal"] = json!([]);
        }
        let result = self.result(&view["status"]);
        if let Some(winners) = result.get("winners") {
            view["status"]["winners"] = winners.clone();
        }
        let hints = viewer.is_some() && viewer == self.to_move() && self.hints_allowed();
        view["id"] = json!(self.row.id);
        view["version"] = json!(self.version());
        view["seats"] = json!(self.row.seats);
        view["players"] = self.players();
        view["people"] = json!(self.people());
        view["options"] = self.row.options.clone();
        view["hints_allowed"] = json!(self.row.hints);
        view["rated"] = json!(self.row.rated);
        view["rating_changes"] = Value::Array(self.row.rating_changes.iter().map(RatingChange::to_json).collect());
        view["hints"] = json!(hints);
        view["thinking"] = json!(self.thinking || (self.thinking_elsewhere && self.to_move().is_some()));
        view["your_seat"] = json!(viewer);
        view["takeback_seats"] = json!(self.takeback_seats());
        view["result"] = result;
        let now = crate::clocks::now_ms();
        let due = self.row.timing.as_ref().and_then(|t| self.due_with(t));
        view["clock"] = crate::clocks::clock_json(self.row.timing.as_ref(), now, due);
        view["claim"] = self.claimable();
        if let (Some(timing), Some(result)) = (&self.row.timing, view["result"].as_object_mut()) {
            result.insert("ended_by".into(), json!(timing.ended_by));
        }
        view["proposal"] = match &self.proposal {
            None => Value::Null,
            // A rematch made is no longer a proposal: its game is in `rematch`.
            Some(p) if p.made.is_some() => Value::Null,
            Some(p) => {
                let (kind, plies) = match p.kind {
                    ProposalKind::Takeback { to_ply } => ("takeback", p.at_ply - to_ply),
                    ProposalKind::Terminate => ("terminate", 0),
                    ProposalKind::Rematch => ("rematch", 0),
                };
                json!({"kind": kind, "by": p.by, "waiting_for": p.waiting_for, "plies": plies})
            }
        };
        view["rematch"] = match self.proposal.as_ref().and_then(|p| p.made.as_ref()) {
            Some(id) => json!({"id": id, "path": format!("/game/{id}")}),
            None => Value::Null,
        };
        if self.session.shows_resignations() {
            view["board"]["resigned"] = json!(self.row.resigned);
        }
        // Each move's time and the mover's clock after it, where the game kept them, in games
        // with a clock (an unlimited game's entries keep their former shape).
        let limited = self.row.timing.as_ref().is_some_and(crate::clocks::Timing::is_limited);
        if let (Some(history), true) = (view["history"].as_array_mut(), limited) {
            for entry in history {
                let ply = entry["ply"].as_u64().and_then(|p| usize::try_from(p).ok());
                if let (Some(Some(time)), Some(fields)) = (ply.and_then(|p| self.times.get(p)), entry.as_object_mut()) {
                    fields.insert("time".into(), json!(time));
                }
            }
        }
        view
    }
}

struct Cached {
    game: Arc<tokio::sync::Mutex<LiveGame>>,
    /// When it was last used (milliseconds since start), for idle eviction.
    last_used: AtomicU64,
    /// The order of last use (a server-wide counter: no ties), for least-recently-used eviction.
    touched: AtomicU64,
}

/// The server's shared state.
pub struct AppState {
    /// The settings it runs with.
    pub config: ServeConfig,
    store: Store,
    /// This process's name in leases and notifications (random per start).
    pub owner: Arc<str>,
    /// Changes to tell other processes (shared databases only).
    publisher: Option<mpsc::UnboundedSender<String>>,
    games: Mutex<HashMap<String, Cached>>,
    /// The engine workers.
    pub pool: Arc<EnginePool>,
    /// Event streams open per client address.
    pub streams_by_address: Arc<crate::connection::PerAddress<std::net::IpAddr>>,
    /// Event streams open per game.
    pub streams_by_game: Arc<crate::connection::PerAddress<String>>,
    /// Single-use tickets for seats' event streams: ticket -> (game, seat, until when).
    pub tickets: Mutex<HashMap<String, (String, usize, Instant)>>,
    /// Open games per creating address, for the lobby cap.
    pub open_games: Mutex<OpenGames>,
    /// Computer moves being thought about right now.
    pub thinking: AtomicUsize,
    writable: AtomicBool,
    started: Instant,
    touches: AtomicU64,
    /// Games created since start (for `--game-seed`).
    games_created: AtomicU64,
    /// The database file as opened (device, inode); `None` in memory or with Postgres.
    db_identity: Option<(u64, u64)>,
    /// What the publisher task sends (taken when it starts).
    published: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
    /// When the timer looks for due games next (ms since the Unix epoch; see `timer`).
    next_sweep: AtomicU64,
    /// Wakes the timer when a sooner deadline is stored.
    timer: Arc<tokio::sync::Notify>,
    /// Password hashing for accounts (bounded, on blocking threads).
    pub passwords: crate::passwords::Passwords,
}

/// The state as handlers hold it.
pub type Shared = Arc<AppState>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A rematch proposal, pending or made, comes back from its stored JSON as it was (every
    /// process reads the other's).
    #[test]
    fn rematch_proposals_survive_storage() {
        let pending = Proposal { kind: ProposalKind::Rematch, by: 1, waiting_for: vec![0, 2], at_ply: 9, made: None };
        assert_eq!(Proposal::from_json(&pending.to_json()), Some(pending.clone()));
        let made = Proposal { waiting_for: Vec::new(), made: Some("abc".into()), ..pending };
        assert_eq!(Proposal::from_json(&made.to_json()), Some(made));
        let takeback =
            Proposal { kind: ProposalKind::Takeback { to_ply: 3 }, by: 0, waiting_for: vec![1], at_ply: 4, made: None };
        assert_eq!(Proposal::from_json(&takeback.to_json()), Some(takeback));
    }

    /// Seat `s` moves to `s + 1`, the last to 0: two players swap.
    #[test]
    fn rematch_seats_rotate_by_one() {
        assert_eq!(rotated(&["a", "b"]), ["b", "a"]);
        assert_eq!(rotated(&["a", "b", "c"]), ["c", "a", "b"]);
    }
}
