//! What server processes sharing one database tell each other: every change (so cached copies
//! reload and their streams hear it), who is connected to a game (presence), and the computer
//! moves whose lease expired.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::store::DatabaseTarget;
use crate::store::Store;

/// How often a process looks for computer moves nobody thinks for (their lease expired).
pub(super) const TAKEOVER_CHECK: Duration = Duration::from_secs(1);

pub(super) fn start_sharing(state: &Shared) {
    // Publisher: one task sends every change, in order.
    if let Some(mut published) = state.published.lock().unwrap_or_else(|e| e.into_inner()).take() {
        let weak = Arc::downgrade(state);
        tokio::spawn(async move {
            let mut batch = Vec::new();
            // What queued while the last batch was sent goes in one round trip.
            while published.recv_many(&mut batch, 256).await > 0 {
                let Some(state) = weak.upgrade() else { return };
                if let Store::Postgres(pg) = state.store() {
                    if let Err(err) = pg.notify_all(&batch).await {
                        tracing::warn!("cannot tell other processes about {} change(s): {err}", batch.len());
                    }
                }
                batch.clear();
            }
        });
    }
    // Listener: changes made by other processes reach this one's event streams.
    if let DatabaseTarget::Postgres(url) = state.config.database() {
        match crate::store::postgres::listen(&url) {
            Ok(mut heard) => {
                let weak = Arc::downgrade(state);
                tokio::spawn(async move {
                    while let Some(message) = heard.recv().await {
                        let Some(state) = weak.upgrade() else { return };
                        // Each in a task of its own: one game's reload never holds up another's
                        // (a game's lock orders those of one game; a reload fetches the latest).
                        tokio::spawn(async move {
                            match message {
                                crate::store::postgres::Heard::Payload(payload) => state.heard(&payload).await,
                                crate::store::postgres::Heard::Connected => state.resync_all().await,
                            }
                        });
                    }
                });
            }
            Err(err) => tracing::error!("cannot listen for other processes' changes: {err}"),
        }
    }
    // Presence: repeat who is connected here, for the games someone watches.
    let weak = Arc::downgrade(state);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(PRESENCE_REPEAT).await;
            let Some(state) = weak.upgrade() else { return };
            let Some(publisher) = state.publisher.clone() else { return };
            let games = state.games.lock().unwrap_or_else(|e| e.into_inner());
            for (id, cached) in games.iter() {
                let Ok(game) = cached.game.try_lock() else { continue };
                if game.presence.iter().any(|c| c.load(Ordering::SeqCst) > 0) {
                    let _ = publisher.send(presence_payload(&state.owner, id, 0, &game.presence));
                }
            }
        }
    });
    // Takeover: computer moves whose lease expired (their process died) are thought here.
    let weak = Arc::downgrade(state);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(TAKEOVER_CHECK).await;
            let Some(state) = weak.upgrade() else { return };
            resume_computers(&state).await;
        }
    });
}

impl AppState {
    /// A change another process announced: a cached copy reloads and tells its streams.
    pub(super) async fn heard(self: &Arc<Self>, payload: &str) {
        let mut parts = payload.split(' ');
        let (Some(owner), Some(id), Some(version), Some(change), Some(seat)) =
            (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
        else {
            tracing::warn!("unreadable change notification {payload:?}");
            return;
        };
        if owner == &*self.owner {
            return;
        }
        let Some(live) = self.cached(id) else { return };
        if change == PRESENCE_ASK {
            // Another process just loaded the game: tell it who is connected here.
            let game = live.lock().await;
            if let Some(publisher) =
                game.publisher.as_ref().filter(|_| game.presence.iter().any(|c| c.load(Ordering::SeqCst) > 0))
            {
                let _ = publisher.send(presence_payload(&self.owner, id, 0, &game.presence));
            }
            return;
        }
        let Some(change) = Change::from_name(change) else { return };
        let seat = seat.parse::<usize>().ok();
        let version = version.parse::<i64>().unwrap_or(i64::MAX);
        let mut game = live.lock().await;
        if change == Change::Presence {
            let counts: Vec<usize> = parts.next().unwrap_or("").split(',').map(|c| c.parse().unwrap_or(0)).collect();
            game.seen_elsewhere(&counts);
            let before = game.presence_elsewhere.insert(owner.to_string(), (counts.clone(), Instant::now()));
            // A repeat that changes nothing is not news.
            if before.is_none_or(|(was, when)| was != counts || when.elapsed() >= PRESENCE_TRUSTED) {
                game.changed_here(change, seat);
            }
            return;
        }
        // The next move, as the other process played it: applied here as it is (the rules
        // check it again); anything else, or a gap, reloads the game from the database.
        let mut applied = false;
        // (A game with a clock reloads: the clock after the move is in the database.)
        let clocked = game.row.timing.as_ref().is_some_and(Timing::is_limited);
        if change == Change::Move && version == game.stored_version + 1 && !clocked {
            let ply = parts.next().and_then(|p| p.parse::<usize>().ok());
            if let (Some(notation), true) = (parts.next(), ply == Some(game.session.ply())) {
                if game.session.play(notation).is_ok() {
                    if game.thinking {
                        game.cancel_thinking();
                    }
                    game.stored_version = version;
                    game.proposal = None;
                    game.thinking_elsewhere = false;
                    applied = true;
                }
            }
        }
        if !applied && version > game.stored_version {
            match self.store().load(id).await {
                Ok(Some(stored)) => {
                    if let Err(err) = game.replace_with(stored) {
                        tracing::error!(game = %id, "cannot reload: {err:?}");
                        return;
                    }
                }
                Ok(None) => return,
                Err(err) => {
                    // The next request revalidates it.
                    game.stored_version = -1;
                    tracing::warn!(game = %id, "cannot reload after another process's change: {err}");
                    return;
                }
            }
        }
        if change == Change::Thinking {
            game.thinking_elsewhere = true;
        }
        game.changed_here(change, seat);
        schedule(self, &mut game).await;
    }

    /// After the listening connection was (re)made: changes may have been missed, so every
    /// cached game is brought up to date and its streams get the current state.
    pub(super) async fn resync_all(self: &Arc<Self>) {
        let cached: Vec<_> = {
            let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
            games.values().map(|c| c.game.clone()).collect()
        };
        for live in cached {
            let mut game = live.lock().await;
            if self.revalidate(&mut game).await.is_ok() {
                game.changed_here(Change::Connected, None);
            }
        }
    }
}

/// How long another process's report of who is connected counts without being repeated (it
/// repeats them every [`PRESENCE_REPEAT`]; a process that died stops).
pub(super) const PRESENCE_TRUSTED: Duration = Duration::from_secs(25);

/// How often a process repeats who is connected to it, for games someone watches.
pub(super) const PRESENCE_REPEAT: Duration = Duration::from_secs(10);

/// The notification of a process that loaded a game: who is connected to it elsewhere?
pub(super) const PRESENCE_ASK: &str = "presence_ask";

/// The notification of this process's connections to a game: one count per seat.
pub(super) fn presence_payload(owner: &str, id: &str, seat: usize, presence: &[AtomicUsize]) -> String {
    let counts: Vec<String> = presence.iter().map(|c| c.load(Ordering::SeqCst).to_string()).collect();
    format!("{owner} {id} 0 presence {seat} {}", counts.join(","))
}
