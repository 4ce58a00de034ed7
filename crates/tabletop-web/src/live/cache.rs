//! The cache of games in memory over the database: loading a game on demand (its moves replayed
//! by the rules), evicting idle and least recently used games, noticing when the database file
//! was replaced, and the background tasks that do it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::processes::start_sharing;
use super::*;
use crate::config::ServeConfig;
use crate::connection::PerAddress;
use crate::engines::EnginePool;
use crate::error::ApiError;
use crate::sessions::{new_session, Session};
use crate::store::DatabaseTarget;
use crate::store::{GameRow, Store, StoreError, StoredGame};

/// A game untouched this long leaves memory.
pub const IDLE_EVICTION: Duration = Duration::from_secs(600);

impl AppState {
    /// State over an opened store.
    pub fn new(store: Store, config: ServeConfig) -> Shared {
        let owner: Arc<str> = Arc::from(random_hex().get(..12).unwrap_or("process"));
        let publisher = match &store {
            Store::Postgres(_) => {
                let (sender, receiver) = mpsc::unbounded_channel();
                Some((sender, receiver))
            }
            Store::Sqlite(_) => None,
        };
        let (publisher, published) = match publisher {
            Some((sender, receiver)) => (Some(sender), Some(receiver)),
            None => (None, None),
        };
        // The watchdog stops any job at the longest thinking time (a search stopped there still
        // answers its best move so far): a fixed depth is held to it as a time is. The small
        // margin lets a search given exactly that time stop by itself.
        let watchdog = config.max_think + Duration::from_millis(250);
        let db_identity = match config.database() {
            DatabaseTarget::Sqlite(path) if path.as_os_str() != ":memory:" => file_identity(&path),
            _ => None,
        };
        let config_workers = config.workers;
        Arc::new(AppState {
            pool: EnginePool::new(config.workers, config.queue, watchdog),
            streams_by_address: PerAddress::new(config.max_streams_per_address),
            streams_by_game: PerAddress::new(config.max_streams_per_game),
            tickets: Mutex::new(HashMap::new()),
            open_games: Mutex::new(OpenGames::default()),
            config,
            store,
            owner,
            publisher,
            published: Mutex::new(published),
            games: Mutex::new(HashMap::new()),
            thinking: AtomicUsize::new(0),
            writable: AtomicBool::new(true),
            started: Instant::now(),
            touches: AtomicU64::new(0),
            games_created: AtomicU64::new(0),
            db_identity,
            next_sweep: AtomicU64::new(0),
            timer: Arc::new(tokio::sync::Notify::new()),
            passwords: crate::passwords::Passwords::new(config_workers),
        })
    }

    /// With `--game-seed`: the next game's seed, from the seed and the order of creation
    /// (splitmix64; 53 bits, as the random seeds).
    pub fn next_game_seed(&self, seed: u64) -> u64 {
        let n = self.games_created.fetch_add(1, Ordering::SeqCst);
        let mut z = seed.wrapping_add(n.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) >> 11
    }

    /// The lobby's count of open games per address.
    pub fn open_games(&self) -> std::sync::MutexGuard<'_, OpenGames> {
        self.open_games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The rate limits shared through the database (see [`super::limits`]).
    pub fn limits(&self) -> super::Limits<'_> {
        super::Limits { store: &self.store, config: &self.config }
    }

    /// The caps on what one engine may ask for.
    pub fn caps(&self) -> crate::sessions::Caps {
        crate::sessions::Caps { max_think: self.config.max_think, engine_memory: self.config.engine_memory }
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// 503 when the database cannot be trusted with writes.
    pub fn check_writable(&self) -> Result<(), ApiError> {
        // Checked before every write too (a stat), not only by the watcher every few seconds,
        // so no move is acknowledged into a file that is gone.
        if self.db_identity.is_some() && file_identity(&self.config.db) != self.db_identity {
            self.storage_lost(file_identity(&self.config.db).is_none());
        }
        if self.writable.load(Ordering::SeqCst) {
            Ok(())
        } else {
            tracing::warn!("refused a write: the database file is gone or replaced");
            Err(ApiError::Unavailable)
        }
    }

    /// The database file is gone (`removed`) or another one: refuse writes from now on.
    pub(super) fn storage_lost(&self, removed: bool) {
        if self.writable.swap(false, Ordering::SeqCst) {
            tracing::error!(
                "the database file {} was {}: refusing writes until the server is restarted",
                self.config.db.display(),
                if removed { "removed" } else { "replaced" }
            );
        }
    }

    /// A failed write: logged, and 503 for the client.
    pub fn write_failed(&self, err: StoreError) -> ApiError {
        // Another request (another copy of the game, another process) wrote first: the
        // version or the move's key refused this one, which lost the race.
        if matches!(err, StoreError::Stale) {
            return ApiError::Conflict("the game has moved on: another request moved first".into());
        }
        // Another process holding SQLite's lock is no fault of this one: a warning.
        if matches!(err, StoreError::Busy) {
            tracing::warn!("storage: a write was refused: {err}");
        } else {
            tracing::error!("storage: a write failed: {err}");
        }
        ApiError::Unavailable
    }

    /// The number of games in memory.
    pub fn cached_games(&self) -> usize {
        self.games.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub(super) fn millis(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub(super) fn cached(&self, id: &str) -> Option<Arc<tokio::sync::Mutex<LiveGame>>> {
        let games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let cached = games.get(id)?;
        cached.last_used.store(self.millis(), Ordering::Relaxed);
        cached.touched.store(self.touches.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
        Some(cached.game.clone())
    }

    /// Marks these games' copies in memory for a reload at their next use (changed in the
    /// database outside a versioned write of this process: an account deleted).
    pub async fn reload_later(&self, ids: &[String]) {
        for id in ids {
            if let Some(live) = self.cached(id) {
                live.lock().await.stored_version = -1;
            }
        }
    }

    /// Puts a new game in the database and in memory.
    pub async fn insert_new(
        &self,
        row: GameRow,
        session: Box<dyn Session>,
    ) -> Result<Arc<tokio::sync::Mutex<LiveGame>>, ApiError> {
        self.check_writable()?;
        let id = row.id.clone();
        let stored =
            StoredGame { row, moves: Vec::new(), times: Vec::new(), version: 0, proposal: None, leased: false };
        let game = LiveGame::new(stored, session, self);
        // A computer that moves first must be found again after a restart, like one to move later.
        let due = game.row.timing.as_ref().and_then(|t| game.due_with(t));
        let deadline = due.map(|(at, _)| at as i64);
        self.store()
            .insert_game(&game.row, game.computer_to_move(), deadline)
            .await
            .map_err(|e| self.write_failed(e))?;
        if let Some((at, _)) = due {
            self.wake_timer(at);
        }
        let live = Arc::new(tokio::sync::Mutex::new(game));
        self.remember(&id, live.clone());
        Ok(live)
    }

    pub(super) fn remember(
        &self,
        id: &str,
        live: Arc<tokio::sync::Mutex<LiveGame>>,
    ) -> Arc<tokio::sync::Mutex<LiveGame>> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let kept = games
            .entry(id.to_string())
            .or_insert_with(|| Cached {
                game: live,
                last_used: AtomicU64::new(self.millis()),
                touched: AtomicU64::new(self.touches.fetch_add(1, Ordering::Relaxed)),
            })
            .game
            .clone();
        if games.len() > self.config.cache_games {
            self.evict(&mut games, |_| true, self.config.cache_games);
        }
        kept
    }

    /// Drops the least recently used games that nobody watches and no computer thinks for,
    /// among those `eligible`, until at most `keep` remain.
    pub(super) fn evict(&self, games: &mut HashMap<String, Cached>, eligible: impl Fn(u64) -> bool, keep: usize) {
        let mut candidates: Vec<(u64, String)> = games
            .iter()
            .filter(|(_, c)| eligible(c.last_used.load(Ordering::Relaxed)))
            .map(|(id, c)| (c.touched.load(Ordering::Relaxed), id.clone()))
            .collect();
        candidates.sort_unstable();
        for (_, id) in candidates {
            if games.len() <= keep {
                break;
            }
            let Some(cached) = games.get(&id) else { continue };
            let Ok(mut game) = cached.game.try_lock() else { continue };
            if game.thinking || game.events.receiver_count() > 0 {
                continue;
            }
            game.cancel_thinking();
            drop(game);
            games.remove(&id);
        }
    }

    /// The game, from memory or loaded from the database (its moves replayed); a computer
    /// that is to move starts thinking.
    pub async fn game(self: &Arc<Self>, id: &str) -> Result<Arc<tokio::sync::Mutex<LiveGame>>, ApiError> {
        if let Some(live) = self.cached(id) {
            {
                let mut game = live.lock().await;
                self.revalidate(&mut game).await?;
                schedule(self, &mut game).await;
            }
            return Ok(live);
        }
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ApiError::NotFound(id.chars().take(64).collect()));
        }
        let stored = self.store().load(id).await?.ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let session = replay(&stored)?;
        if let Some(publisher) = &self.publisher {
            let _ = publisher.send(format!("{} {id} 0 {PRESENCE_ASK} -", self.owner));
        }
        let live = self.remember(id, Arc::new(tokio::sync::Mutex::new(LiveGame::new(stored, session, self))));
        {
            let mut game = live.lock().await;
            // A rated game whose end was stored but not its rating (its process stopped in
            // between) is rated now, once (the versioned write decides between processes).
            game.rate_if_over(self).await;
            schedule(self, &mut game).await;
        }
        Ok(live)
    }

    /// Brings a cached game up to date with the database when another process may have
    /// written it (Postgres), or when a write of this copy lost a race.
    pub(super) async fn revalidate(&self, game: &mut LiveGame) -> Result<(), ApiError> {
        if !self.store().is_shared() && game.stored_version >= 0 {
            return Ok(());
        }
        let id = game.row.id.clone();
        let version = self.store().version(&id).await?.ok_or_else(|| ApiError::NotFound(id.clone()))?;
        if version != game.stored_version {
            let stored = self.store().load(&id).await?.ok_or_else(|| ApiError::NotFound(id.clone()))?;
            game.replace_with(stored)?;
        }
        Ok(())
    }

    /// The game locked for a change by the seat `token` holds (404 or 403 otherwise).
    pub async fn seated(
        self: &Arc<Self>,
        id: &str,
        token: &str,
    ) -> Result<(tokio::sync::OwnedMutexGuard<LiveGame>, usize), ApiError> {
        let game = self.game(id).await?.lock_owned().await;
        let seat = game.require_seat(token)?;
        Ok((game, seat))
    }
}

/// The game a stored row and its moves describe (every move replayed by the rules).
pub(super) fn replay(stored: &StoredGame) -> Result<Box<dyn Session>, ApiError> {
    let row = &stored.row;
    let id = &row.id;
    let mut session = new_session(&row.game, &row.options, &row.secret)
        .map_err(|e| ApiError::Internal(format!("game {id}: stored options refused: {e}")))?;
    for (ply, notation) in stored.moves.iter().enumerate() {
        session
            .play(notation)
            .map_err(|e| ApiError::Internal(format!("game {id}: stored move {ply} ({notation:?}) refused: {e}")))?;
    }
    Ok(session)
}

#[cfg(unix)]
pub(super) fn file_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
pub(super) fn file_identity(path: &std::path::Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.len().min(1), 0))
}

/// Starts the background work: evicting idle games, and watching the database file; with a
/// shared database, telling other processes about changes, hearing theirs, and taking over
/// computer moves whose process stopped renewing its lease.
pub fn start_background(state: &Shared) {
    if let Store::Postgres(_) = state.store() {
        start_sharing(state);
    }
    super::start_timer(state);
    // Full rate-limit buckets say nothing: forget them, so that the table holds only the
    // accounts and addresses active lately.
    let weak = Arc::downgrade(state);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(super::limits::FORGET_FULL_EVERY).await;
            let Some(state) = weak.upgrade() else { return };
            let now_us = i64::try_from(crate::clocks::now_ms()).unwrap_or(i64::MAX / 1000).saturating_mul(1000);
            if let Err(err) = state.store().forget_full_limits(now_us).await {
                tracing::warn!("could not forget full rate-limit buckets: {err}");
            }
        }
    });
    let weak = Arc::downgrade(state);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(30)).await;
            let Some(state) = weak.upgrade() else { return };
            let cutoff = state.millis().saturating_sub(IDLE_EVICTION.as_millis() as u64);
            let mut games = state.games.lock().unwrap_or_else(|e| e.into_inner());
            state.evict(&mut games, |used| used < cutoff, 0);
        }
    });
    let Some(identity) = state.db_identity else { return };
    let weak = Arc::downgrade(state);
    let every = state.config.storage_check;
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(every).await;
            let Some(state) = weak.upgrade() else { return };
            let now = file_identity(&state.config.db);
            if now != Some(identity) {
                state.storage_lost(now.is_none());
            }
        }
    });
}
