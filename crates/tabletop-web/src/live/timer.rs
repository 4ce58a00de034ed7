//! Games that end by themselves: a flag, an abort (a first move not made in time), a claim
//! against an opponent who left, and lobby seats taken but never used going back to the lobby.
//!
//! - Every versioned write stores the game's deadline (`crate::clocks::deadline`: when its
//!   running seat flags, or when a first move is overdue). One timer task per process
//!   ([`start_timer`]) sleeps until the soonest deadline it knows (its own writes wake it; the
//!   database's soonest is read again at least every [`TIMER_POLL`], so deadlines written by
//!   other processes, or before a restart, are found too) and ends each due game.
//! - Ending is a versioned write like a move: of two processes ending one game at once, one
//!   write is stored and the other finds the game moved on ([`crate::store::StoreError::Stale`]),
//!   so a flag has exactly one result.
//! - A move that arrives after its mover's time ran out ends the game on time instead.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::*;
use crate::clocks::{now_ms, Due, Timing};

/// The longest the timer sleeps without looking at the database's soonest deadline.
pub const TIMER_POLL: Duration = Duration::from_secs(1);

/// Due games the timer ends in one pass at most.
const DUE_BATCH: usize = 100;

impl AppState {
    /// A deadline at `at` (ms since the Unix epoch) was stored: the timer wakes by then.
    pub fn wake_timer(&self, at: u64) {
        if self.next_sweep.fetch_min(at, Ordering::SeqCst) > at {
            self.timer.notify_one();
        }
    }
}

/// Starts the timer task (see the module's documentation); it stops with the server's state.
pub fn start_timer(state: &Shared) {
    let weak = Arc::downgrade(state);
    let notify = state.timer.clone();
    tokio::spawn(async move {
        loop {
            let wake = {
                let Some(state) = weak.upgrade() else { return };
                let now = now_ms();
                if now >= state.next_sweep.load(Ordering::SeqCst) {
                    // Plan the next look before this one, so that a deadline stored meanwhile
                    // lowers it again.
                    state.next_sweep.store(now + TIMER_POLL.as_millis() as u64, Ordering::SeqCst);
                    sweep(&state, now).await;
                    match state.store().next_deadline().await {
                        Ok(Some(next)) => {
                            state.next_sweep.fetch_min(u64::try_from(next).unwrap_or(0), Ordering::SeqCst);
                        }
                        Ok(None) => {}
                        Err(err) => tracing::warn!("timer: cannot read the next deadline: {err}"),
                    }
                }
                state.next_sweep.load(Ordering::SeqCst)
            };
            let sleep = Duration::from_millis(wake.saturating_sub(now_ms()).min(TIMER_POLL.as_millis() as u64));
            if !sleep.is_zero() {
                tokio::select! {
                    _ = tokio::time::sleep(sleep) => {}
                    _ = notify.notified() => {}
                }
            }
        }
    });
}

/// Ends every game due at `now`.
async fn sweep(state: &Shared, now: u64) {
    let due = match state.store().due(i64::try_from(now).unwrap_or(i64::MAX), DUE_BATCH).await {
        Ok(ids) => ids,
        Err(err) => {
            tracing::warn!("timer: cannot list the games due: {err}");
            return;
        }
    };
    for id in due {
        let live = match state.game(&id).await {
            Ok(live) => live,
            Err(err) => {
                tracing::warn!(game = %id, "timer: cannot load a game due: {err}");
                // Not looked at again and again: its deadline is dropped.
                let _ = state.store().set_deadline(&id, None).await;
                continue;
            }
        };
        let mut game = live.lock().await;
        match game.apply_due(state, now_ms()).await {
            Ok(Some(_)) => {}
            Ok(None) => {
                // The stored deadline is not this game's any more (it moved on): store its own.
                let deadline = game.row.timing.as_ref().and_then(|t| game.due_with(t)).map(|(at, _)| at as i64);
                if deadline.is_none_or(|at| at > i64::try_from(now).unwrap_or(i64::MAX)) {
                    let _ = state.store().set_deadline(&id, deadline).await;
                }
            }
            Err(err) => {
                // Another process ended it first (or moved first): its write stands.
                tracing::info!(game = %id, "timer: the game was not ended here: {err:?}");
            }
        }
    }
}

impl LiveGame {
    /// When the game ends by itself if nobody acts, and why, under `timing` (the stored one or
    /// one about to be stored) and the game as it stands in memory.
    pub(crate) fn due_with(&self, timing: &Timing) -> Option<(u64, Due)> {
        let to_move = self.to_move();
        let person = to_move.is_some_and(|s| !self.is_computer(s) && !self.row.resigned.contains(&s));
        crate::clocks::deadline(timing, to_move, person, self.first_move)
    }

    /// Has every seat (that did not resign) made a move? The clocks start then.
    pub(crate) fn everyone_moved(&self) -> bool {
        let mut moved = vec![false; self.row.seats.len()];
        for ply in 0..self.session.ply() {
            if let Some(seat) = self.session.mover_of(ply).and_then(|s| moved.get_mut(s)) {
                *seat = true;
            }
        }
        moved.iter().enumerate().all(|(seat, &m)| m || self.row.resigned.contains(&seat))
    }

    /// Ends the game if it is due at `now` (a flag or an abort): what ended it, or `None`.
    pub async fn apply_due(&mut self, state: &AppState, now: u64) -> Result<Option<Due>, ApiError> {
        let Some(timing) = self.row.timing.as_ref() else { return Ok(None) };
        let Some((at, due)) = self.due_with(timing) else { return Ok(None) };
        if now < at {
            return Ok(None);
        }
        // A seat taken from the lobby and never used goes back to the lobby instead.
        if let Due::Abort(seat) = due {
            if self.joined_from_lobby(seat) && !self.has_moved(seat) && self.others_waiting(seat) {
                self.release_seat(state, seat).await?;
                return Ok(Some(due));
            }
        }
        self.end_by_time(state, due).await?;
        Ok(Some(due))
    }

    /// Ends the game by time: `Due::Flag(seat)` with the game's own flag rule
    /// (`Session::out_of_time`), `Due::Abort(seat)` without a result (not scored).
    pub(crate) async fn end_by_time(&mut self, state: &AppState, due: Due) -> Result<(), ApiError> {
        let names = self.session.seat_names();
        let (reason, winners, by, seat) = match due {
            Due::Flag(seat) => {
                let outcome = self.session.out_of_time(seat);
                let winners: Vec<usize> = outcome["winners"]
                    .as_array()
                    .map_or_else(Vec::new, |w| w.iter().filter_map(Value::as_u64).map(|s| s as usize).collect());
                let reason = outcome["reason"].as_str().unwrap_or("time ran out").to_string();
                (reason, winners, "flag", seat)
            }
            Due::Abort(seat) => {
                let name = names.get(seat).map_or("a player", String::as_str);
                (format!("aborted: {name} did not make a first move in time"), Vec::new(), "aborted", seat)
            }
        };
        let timing = self.row.timing.as_ref().map(|t| {
            let mut ended = t.ended(Some(by));
            if let (Due::Flag(_), Some(clock)) = (due, ended.clock.seats.get_mut(seat)) {
                // Shown at zero: the seat's time is all gone.
                clock.remaining_ms = 0;
                clock.periods = 0;
            }
            ended
        });
        let resigned = self.row.resigned.clone();
        let write = Write::Resigned { resigned: &resigned, ended: Some((&reason, &winners)) };
        self.write_timed(state, write, false, timing, true).await?;
        self.row.ended = Some(reason);
        self.row.ended_winners = winners;
        self.proposal = None;
        self.cancel_thinking();
        self.rate_if_over(state).await;
        state.open_games().closed(&self.row.id);
        self.changed(Change::Timeout, Some(seat));
        Ok(())
    }

    /// Was `seat` an open seat that someone joined from the lobby (a person's seat without an
    /// invitation)?
    fn joined_from_lobby(&self, seat: usize) -> bool {
        self.row.seats.get(seat).is_some_and(|s| s == "human")
            && self.row.invites.get(seat).is_some_and(Option::is_none)
    }

    /// Has `seat` made a move?
    fn has_moved(&self, seat: usize) -> bool {
        (0..self.session.ply()).any(|ply| self.session.mover_of(ply) == Some(seat))
    }

    /// Is a person other than `seat` still in the game (someone the lobby seat would play)?
    fn others_waiting(&self, seat: usize) -> bool {
        (0..self.row.seats.len()).any(|s| s != seat && self.row.seats[s] == "human" && !self.row.resigned.contains(&s))
    }

    /// Gives a lobby seat that was taken but never used back to the lobby: open again, its
    /// token worth nothing, its first-move deadline waiting for the next person.
    async fn release_seat(&mut self, state: &AppState, seat: usize) -> Result<(), ApiError> {
        let mut seats = self.row.seats.clone();
        seats[seat] = "open".to_string();
        let mut token_hashes = self.row.token_hashes.clone();
        // Nobody holds this hash's token: the seat's old token stops working.
        token_hashes[seat] = crate::store::hash_token(&random_hex());
        let invites = self.row.invites.clone();
        let mut accounts = self.row.accounts.clone();
        if let Some(account) = accounts.get_mut(seat) {
            *account = None;
        }
        let mut timing = self.row.timing.clone();
        if let Some(t) = timing.as_mut() {
            if let Some(seated) = t.seated.get_mut(seat) {
                *seated = None;
            }
        }
        let computer_next = self.computer_to_move();
        let write = Write::Seats { seats: &seats, token_hashes: &token_hashes, invites: &invites, accounts: &accounts };
        self.write_timed(state, write, computer_next, timing, false).await?;
        self.row.seats = seats;
        self.row.token_hashes = token_hashes;
        self.row.accounts = accounts;
        self.changed(Change::SeatReleased, Some(seat));
        Ok(())
    }

    /// `claimer` claims the game against the seat to move, a person who has been away (no
    /// event stream, here or in another process) for `after` at least, in a game that no clock
    /// will end by itself: with fewer than two moves played the game is aborted; otherwise the
    /// absent seat leaves it (with two players, the claimer wins). Refused (409) with the reason
    /// otherwise.
    pub async fn claim_win(&mut self, state: &AppState, claimer: usize, after: Duration) -> Result<(), ApiError> {
        let conflict = |text: String| Err(ApiError::Conflict(text));
        let Some(absent) = self.to_move() else { return conflict("the game is over".into()) };
        if self.row.resigned.contains(&claimer) {
            return Err(ApiError::Forbidden("you have left this game".into()));
        }
        let names = self.session.seat_names();
        let name = names.get(absent).cloned().unwrap_or_else(|| format!("seat {absent}"));
        if absent == claimer {
            return conflict("it is your move: there is nobody to claim against".into());
        }
        if self.is_computer(absent) || self.row.seats[absent] == "open" {
            return conflict(format!("{name} is not a person who left"));
        }
        if let Some((at, due)) = self.row.timing.as_ref().and_then(|t| self.due_with(t)) {
            let what = if matches!(due, Due::Flag(_)) { "flags" } else { "is aborted" };
            let left = at.saturating_sub(now_ms()).div_ceil(1000);
            return conflict(format!("the clock ends this game by itself: {name} {what} in {left} s if no move comes"));
        }
        if self.connected(absent) {
            return conflict(format!("{name} is connected"));
        }
        let seen = self.last_seen.get(absent).map_or(0, |s| s.load(Ordering::SeqCst));
        let away = now_ms().saturating_sub(seen);
        let needed = after.as_millis() as u64;
        if away < needed {
            let wait = (needed - away).div_ceil(1000);
            return Err(ApiError::Conflict(format!(
                "{name} has been away for {} s: you may claim after {} s, in {wait} s",
                away / 1000,
                after.as_secs()
            )));
        }
        if self.session.ply() < 2 {
            let reason = format!("aborted: {name} left before the game was under way");
            let timing = self.row.timing.as_ref().map(|t| t.ended(Some("aborted")));
            let resigned = self.row.resigned.clone();
            let write = Write::Resigned { resigned: &resigned, ended: Some((&reason, &[])) };
            self.write_timed(state, write, false, timing, true).await?;
            self.row.ended = Some(reason);
            self.row.ended_winners = Vec::new();
            self.proposal = None;
            self.cancel_thinking();
        } else {
            self.leave(state, absent, "left the game", Some("claimed")).await?;
        }
        state.open_games().closed(&self.row.id);
        self.changed(Change::Claimed, Some(claimer));
        Ok(())
    }

    /// When a person's seat may be claimed against, for the page: the seat to move if it is
    /// a person away with no clock running for it, and from when (ms since the Unix epoch).
    pub(crate) fn claimable(&self) -> Value {
        let after = self.claim_after;
        let Some(absent) = self.to_move() else { return Value::Null };
        if self.is_computer(absent) || self.row.seats[absent] == "open" || self.connected(absent) {
            return Value::Null;
        }
        if self.row.timing.as_ref().and_then(|t| self.due_with(t)).is_some() {
            return Value::Null;
        }
        let seen = self.last_seen.get(absent).map_or(0, |s| s.load(Ordering::SeqCst));
        let from = seen + after.as_millis() as u64;
        let wait_ms = from.saturating_sub(now_ms());
        json!({"seat": absent, "from": from, "wait_ms": wait_ms, "abort": self.session.ply() < 2})
    }

    /// Another process reported `counts` connections per seat: those seats were present now.
    pub(super) fn seen_elsewhere(&self, counts: &[usize]) {
        let now = now_ms();
        for (seat, &count) in counts.iter().enumerate() {
            if count > 0 {
                if let Some(seen) = self.last_seen.get(seat) {
                    seen.store(now, Ordering::SeqCst);
                }
            }
        }
    }
}
