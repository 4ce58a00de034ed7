//! Computer seats: when a computer is to move its thinking is scheduled on the engine pool (the
//! long lane for long thinkers), resigned seats' turns are passed, and games waiting for a
//! computer are resumed at start and taken over from processes that stopped. The thinking is
//! queued under the client address of whoever acted last on the game (the game's id when nobody
//! did), so the pool shares its workers fairly between clients.

use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{json, Value};
use tabletop::cancel::CancelFlag;
use tabletop::PlayerSpec;

use super::*;
use crate::engines::JobKey;
use crate::sessions::new_session;

/// What plays a seat, from its stored spec: `human`, `open` (a person yet to come) or `computer`.
pub(super) fn seat_kind(spec: &str) -> &'static str {
    match spec {
        "human" => "human",
        "open" => "open",
        _ => "computer",
    }
}

/// The players of a stored game for the lobby (no tokens).
pub fn public_players(game: &str, seats: &[String]) -> Value {
    let names: Vec<String> = match new_session(game, &json!({}), &json!({})) {
        Ok(session) => session.seat_names(),
        Err(_) => Vec::new(),
    };
    seats
        .iter()
        .enumerate()
        .map(|(seat, spec)| {
            let kind = seat_kind(spec);
            let name = names.get(seat).cloned().unwrap_or_else(|| format!("Player {}", seat + 1));
            json!({"seat": seat, "name": name, "kind": kind, "spec": spec})
        })
        .collect()
}

/// Does a computer player ask for more than a second per move (a longer time, or a deep fixed
/// depth whose time nobody can tell)? Its moves then wait in the pool's long lane.
pub(super) fn thinks_long(spec: &PlayerSpec) -> bool {
    let longer = spec.get_duration("time").ok().flatten().is_some_and(|t| t > Duration::from_secs(1));
    let deep = ["depth", "levels"].iter().any(|key| spec.get_u64(key).ok().flatten().is_some_and(|d| d > 6));
    // The top level thinks up to two seconds a move in some games.
    let top_level =
        spec.settings.get("level").and_then(|l| tabletop::levels::parse_level(l).ok()).is_some_and(|n| n >= 10);
    longer || deep || top_level
}

/// [`schedule`] after an action of the client at `client`: the computer's thinking (now and
/// for the computer moves that follow) is that client's turn in the engine pool.
pub async fn schedule_for(state: &Shared, game: &mut LiveGame, client: IpAddr) {
    game.acted_by = Some(client);
    schedule(state, game).await;
}

/// Passes the turns of seats that resigned, then starts the computer's thinking if one is to
/// move (and is not already thinking, here or in another process holding the lease), queued
/// under the client who acted last (see [`schedule_for`]) or else the game.
pub async fn schedule(state: &Shared, game: &mut LiveGame) {
    while let Some(seat) = game.to_move().filter(|s| game.row.resigned.contains(s)) {
        let Some(pass) = game.session.pass_move() else { break };
        let ply = game.session.ply();
        if game.session.play(&pass).is_err() || game.store_move(state, ply, &pass, Duration::ZERO).await.is_err() {
            break;
        }
        game.changed(Change::Move, Some(seat));
    }
    let Some(seat) = game.to_move() else { return };
    if !game.is_computer(seat) || game.thinking || game.stored_version < 0 {
        return;
    }
    let Ok(spec) = game.row.seats[seat].parse::<PlayerSpec>() else {
        tracing::error!(game = %game.row.id, "stored player spec {:?} is unreadable", game.row.seats[seat]);
        return;
    };
    // One process thinks for a computer move: the one holding the game's lease.
    let version = game.stored_version;
    // (A lease shorter than a few round trips to the database could not be renewed in time.)
    let lease = state.config.computer_lease.max(Duration::from_millis(300));
    match state.store().take_lease(&game.row.id, version, &state.owner, lease).await {
        Ok(true) => game.thinking_elsewhere = false,
        Ok(false) => {
            game.thinking_elsewhere = true;
            return;
        }
        Err(err) => {
            tracing::warn!(game = %game.row.id, "cannot take the computer's lease: {err}");
            return;
        }
    }
    let long = thinks_long(&spec);
    game.thinking = true;
    state.thinking.fetch_add(1, Ordering::SeqCst);
    game.changed(Change::Thinking, Some(seat));
    let ply = game.session.ply();
    let snapshot = game.session.boxed_clone();
    let flag = game.cancel.clone();
    let (state, id) = (state.clone(), game.row.id.clone());
    let mut caps = state.caps();
    // Under a running clock the engine plays by it: its thinking is capped at its share of the
    // time left (the library's time management), and stopped there (its best move so far stands).
    let budget = clock_budget(game, seat);
    if let Some(budget) = budget {
        caps.max_think = caps.max_think.min(budget);
    }
    let key = game.acted_by.map_or_else(|| JobKey::game(&game.row.id), JobKey::Address);
    tokio::spawn(async move {
        let name = snapshot.game();
        let think = move |slots: &mut crate::engines::Slots| snapshot.computer_move(&spec, slots.slot(name), &caps);
        let thinking = async {
            if long {
                state.pool.run_long(key, flag.clone(), think).await
            } else {
                state.pool.run(key, false, flag.clone(), think).await
            }
        };
        tokio::pin!(thinking);
        // Renew the lease while thinking; losing it (the game moved on) stops the search.
        let mut renew = tokio::time::interval(lease / 3);
        renew.tick().await;
        let out_of_budget = tokio::time::sleep(budget.unwrap_or(Duration::from_secs(86_400 * 365)));
        tokio::pin!(out_of_budget);
        let mut stopped = false;
        let chosen = loop {
            tokio::select! {
                chosen = &mut thinking => break chosen,
                _ = &mut out_of_budget, if !stopped => {
                    stopped = true;
                    flag.cancel();
                }
                _ = renew.tick() => {
                    if !matches!(state.store().take_lease(&id, version, &state.owner, lease).await, Ok(true)) {
                        flag.cancel();
                    }
                }
            }
        };
        state.thinking.fetch_sub(1, Ordering::SeqCst);
        let Some(live) = state.cached(&id) else { return };
        let mut game = live.lock().await;
        if !game.cancel.is_same(&flag) {
            return; // cancelled by a resignation, an undo or an eviction: whoever did it decides what next
        }
        if flag.is_cancelled() {
            // The watchdog stopped a search at the longest thinking time: its move stands.
            game.cancel = CancelFlag::new();
        }
        game.thinking = false;
        if game.session.ply() != ply || game.to_move() != Some(seat) || game.stored_version != version {
            reschedule(&state, &id);
            return;
        }
        let legal_fallback =
            |game: &LiveGame| game.session.view(Some(seat))["legal"].get(0).and_then(Value::as_str).map(str::to_string);
        let notation = match chosen {
            Ok(Ok(notation)) => Some(notation),
            other => {
                tracing::warn!(game = %id, "computer move failed ({other:?}); playing the first legal move");
                legal_fallback(&game)
            }
        };
        let played = notation.and_then(|n| game.session.play(&n).ok()).or_else(|| {
            let fallback = legal_fallback(&game)?;
            game.session.play(&fallback).ok()
        });
        let Some(notation) = played else {
            tracing::error!(game = %id, "the computer found no move to play");
            return;
        };
        if let Err(err) = game.store_move(&state, ply, &notation, Duration::ZERO).await {
            // Another process moved this game on (a resignation, an undo): its state wins.
            tracing::info!(game = %id, "the computer's move was not stored: {err}");
            reschedule(&state, &id);
            return;
        }
        game.changed(Change::Move, Some(seat));
        reschedule(&state, &id);
    });
}

/// The longest the computer at `seat` may think under the game's running clock
/// (`tabletop::clock::think_budget` from its time left, its periods and the game's expected
/// moves left), `None` when its clock does not run.
fn clock_budget(game: &LiveGame, seat: usize) -> Option<Duration> {
    let timing = game.row.timing.as_ref()?;
    if timing.clock.running_seat() != Some(seat) {
        return None;
    }
    let now = Duration::from_millis(crate::clocks::now_ms());
    let showing = timing.clock.showing(seat, now)?;
    let moves_left = game.session.expected_moves_left();
    // In its byo-yomi periods the main time is gone (what shows is the running period's).
    let main = if showing.in_periods { Duration::ZERO } else { showing.time };
    tabletop::clock::think_budget(&timing.clock.control, main, showing.periods, moves_left)
}

/// Schedules the game again from a task of its own (after a computer move: the next may be
/// another computer's).
pub(super) fn reschedule(state: &Shared, id: &str) {
    let (state, id) = (state.clone(), id.to_string());
    tokio::spawn(async move {
        if let Err(err) = state.game(&id).await {
            tracing::warn!(game = %id, "cannot continue: {err}");
        }
    });
}

/// Loads every game whose computer is to move, so that it resumes thinking.
pub async fn resume_computers(state: &Shared) {
    let ids = match state.store().computer_to_move().await {
        Ok(ids) => ids,
        Err(err) => {
            tracing::error!("cannot list the games waiting for a computer: {err}");
            return;
        }
    };
    if !ids.is_empty() {
        tracing::info!("resuming {} game(s) whose computer is to move", ids.len());
    }
    for id in ids {
        if let Err(err) = state.game(&id).await {
            tracing::error!(game = %id, "cannot resume: {err}");
        }
    }
}
