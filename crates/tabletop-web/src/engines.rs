//! The engine workers: a fixed number of threads that run every computer move, hint and
//! analysis, so that the server's CPU and memory for thinking are bounded whatever is asked.
//!
//! Each worker keeps one engine per game in a slot ([`EngineSlot`]) and reuses its tables
//! across moves and games. Computer moves wait for a worker; hints and analyses are refused
//! (503) when more than `queue` of them already wait. Every job runs under a
//! [`CancelFlag`], raised when its game is resigned, undone, ended or evicted, and by a
//! watchdog at the longest thinking time (with a margin), so no job outlives its purpose.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tabletop::cancel::{run_cancellable, CancelFlag};

use crate::sessions::EngineSlot;

/// A worker's engines, one slot per game.
#[derive(Default)]
pub struct Slots(HashMap<&'static str, EngineSlot>);

impl Slots {
    /// The slot of one game.
    pub fn slot(&mut self, game: &'static str) -> &mut EngineSlot {
        self.0.entry(game).or_default()
    }
}

type Job = Box<dyn FnOnce(&mut Slots) + Send>;

/// Why a job was not taken.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// Too many hints and analyses already wait.
    #[error("the engines are all busy; try again in a few seconds")]
    Busy,
    /// The job panicked or the pool is gone.
    #[error("the engine failed")]
    Failed,
}

/// The jobs waiting for a worker, in three lanes, taken in this order: computer moves of a
/// second or less (people wait for them), then hints and analyses (optional: refused when too
/// many wait), then long thinking (a computer seat asking for more than a second), which may hold
/// at most all workers but one, so the others never wait behind a queue of long ones.
#[derive(Default)]
struct Lanes {
    moves: VecDeque<Job>,
    optional: VecDeque<Job>,
    long: VecDeque<Job>,
    long_running: usize,
    /// The pool is gone: workers finish what is queued, then end.
    closed: bool,
}

struct Queue {
    lanes: Mutex<Lanes>,
    ready: Condvar,
    /// Long jobs that may run at once.
    long_slots: usize,
}

/// The pool of engine workers.
pub struct EnginePool {
    queue_of_jobs: Arc<Queue>,
    /// Optional jobs (hints, analyses) queued or running.
    optional: AtomicUsize,
    workers: usize,
    queue: usize,
    watchdog: Duration,
    optional_wait: Duration,
}

/// The longest a hint or analysis waits for its answer before it gets 503 (its job is then
/// skipped when a worker reaches it): behind long computer moves, a queued hint could otherwise
/// wait for minutes.
pub const OPTIONAL_WAIT: Duration = Duration::from_secs(5);

impl EnginePool {
    /// Starts `workers` threads; at most `queue` optional jobs may wait; every job is cancelled
    /// after `watchdog`.
    pub fn new(workers: usize, queue: usize, watchdog: Duration) -> Arc<Self> {
        Self::with_optional_wait(workers, queue, watchdog, OPTIONAL_WAIT)
    }

    /// [`EnginePool::new`], with optional jobs answered [`PoolError::Busy`] after `optional_wait`.
    pub fn with_optional_wait(workers: usize, queue: usize, watchdog: Duration, optional_wait: Duration) -> Arc<Self> {
        let workers = workers.max(1);
        let jobs = Arc::new(Queue {
            lanes: Mutex::new(Lanes::default()),
            ready: Condvar::new(),
            long_slots: workers.saturating_sub(1).max(1),
        });
        for i in 0..workers {
            let jobs = jobs.clone();
            let spawned = std::thread::Builder::new().name(format!("engine-{i}")).spawn(move || worker(&jobs));
            if let Err(err) = spawned {
                tracing::error!("cannot start engine worker {i}: {err}");
            }
        }
        Arc::new(EnginePool {
            queue_of_jobs: jobs,
            optional: AtomicUsize::new(0),
            workers,
            queue,
            watchdog,
            optional_wait,
        })
    }

    /// Runs `work` on a worker under `flag` and waits for its answer. `optional` jobs are
    /// refused with [`PoolError::Busy`] when the queue is full; the others always wait their turn.
    pub async fn run<R: Send + 'static>(
        self: &Arc<Self>,
        optional: bool,
        flag: CancelFlag,
        work: impl FnOnce(&mut Slots) -> R + Send + 'static,
    ) -> Result<R, PoolError> {
        self.run_in_lane(false, optional, flag, work).await
    }

    /// [`EnginePool::run`] for a long computer move (more than a second of thinking): it waits
    /// in the long lane, which never holds every worker.
    pub async fn run_long<R: Send + 'static>(
        self: &Arc<Self>,
        flag: CancelFlag,
        work: impl FnOnce(&mut Slots) -> R + Send + 'static,
    ) -> Result<R, PoolError> {
        self.run_in_lane(true, false, flag, work).await
    }

    async fn run_in_lane<R: Send + 'static>(
        self: &Arc<Self>,
        long: bool,
        optional: bool,
        flag: CancelFlag,
        work: impl FnOnce(&mut Slots) -> R + Send + 'static,
    ) -> Result<R, PoolError> {
        struct Release(Option<Arc<EnginePool>>);
        impl Drop for Release {
            fn drop(&mut self) {
                if let Some(pool) = self.0.take() {
                    pool.optional.fetch_sub(1, Ordering::SeqCst);
                }
            }
        }
        let release = if optional {
            let before = self.optional.fetch_add(1, Ordering::SeqCst);
            if before >= self.workers + self.queue {
                self.optional.fetch_sub(1, Ordering::SeqCst);
                return Err(PoolError::Busy);
            }
            Release(Some(self.clone()))
        } else {
            Release(None)
        };
        let (answer, receive) = tokio::sync::oneshot::channel();
        let watchdog = self.watchdog;
        let job: Job = Box::new(move |slots: &mut Slots| {
            // The release travels with the job: it is counted until the worker is done with it.
            let _release = release;
            // Cancelled, or nobody waits for the answer any more (gave up, or disconnected).
            if flag.is_cancelled() || answer.is_closed() {
                return;
            }
            let timer = flag.clone();
            let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let finished = done.clone();
            std::thread::spawn(move || {
                let step = Duration::from_millis(50);
                let mut waited = Duration::ZERO;
                while waited < watchdog && !finished.load(Ordering::Relaxed) {
                    std::thread::sleep(step);
                    waited += step;
                }
                if !finished.load(Ordering::Relaxed) {
                    timer.cancel();
                }
            });
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_cancellable(&flag, || work(slots))));
            done.store(true, Ordering::Relaxed);
            match result {
                Ok(value) => {
                    let _ = answer.send(value);
                }
                Err(_) => {
                    // A panicking engine may have left its tables half-written: start afresh.
                    *slots = Slots::default();
                    tracing::error!("an engine job panicked");
                }
            }
        });
        {
            let mut lanes = self.queue_of_jobs.lanes.lock().unwrap_or_else(|e| e.into_inner());
            if long {
                lanes.long.push_back(job);
            } else if optional {
                lanes.optional.push_back(job);
            } else {
                lanes.moves.push_back(job);
            }
        }
        self.queue_of_jobs.ready.notify_one();
        if !optional {
            return receive.await.map_err(|_| PoolError::Failed);
        }
        match tokio::time::timeout(self.optional_wait, receive).await {
            Ok(answer) => answer.map_err(|_| PoolError::Failed),
            Err(_) => {
                tracing::warn!("refused work: a hint or analysis waited {:?} for a worker", self.optional_wait);
                Err(PoolError::Busy)
            }
        }
    }
}

impl Drop for EnginePool {
    fn drop(&mut self) {
        self.queue_of_jobs.lanes.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
        self.queue_of_jobs.ready.notify_all();
    }
}

/// Engine workers run at a lower priority than the threads that answer requests: with every
/// core thinking, moves, states and events must still be answered at once.
#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: getpriority and setpriority only read their arguments; on Linux, PRIO_PROCESS
    // with 0 is the calling thread (the nice value is per thread).
    let current = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let result = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, current.saturating_add(10).min(19)) };
    if result != 0 {
        tracing::warn!("cannot lower an engine worker's priority: {}", std::io::Error::last_os_error());
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

fn worker(jobs: &Queue) {
    lower_priority();
    let mut slots = Slots::default();
    loop {
        let (job, long) = {
            let mut lanes = jobs.lanes.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(job) = lanes.moves.pop_front().or_else(|| lanes.optional.pop_front()) {
                    break (job, false);
                }
                if lanes.long_running < jobs.long_slots {
                    if let Some(job) = lanes.long.pop_front() {
                        lanes.long_running += 1;
                        break (job, true);
                    }
                }
                if lanes.closed && lanes.moves.is_empty() && lanes.optional.is_empty() && lanes.long.is_empty() {
                    return;
                }
                lanes = jobs.ready.wait(lanes).unwrap_or_else(|e| e.into_inner());
            }
        };
        job(&mut slots);
        if long {
            jobs.lanes.lock().unwrap_or_else(|e| e.into_inner()).long_running -= 1;
            // A long slot is free: a worker waiting only for long work may take it.
            jobs.ready.notify_all();
        }
    }
}
