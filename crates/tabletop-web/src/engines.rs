//! The engine workers: a fixed number of threads that run every computer move, hint and
//! analysis, so that the server's CPU and memory for thinking are bounded whatever is asked.
//!
//! Each worker keeps one engine per game in a slot ([`EngineSlot`]) and reuses its tables
//! across moves and games. Computer moves wait for a worker; hints and analyses are refused
//! (503) when more than `queue` of them already wait. Every job runs under a
//! [`CancelFlag`], raised when its game is resigned, undone, ended or evicted, and by a
//! watchdog at the longest thinking time (with a margin), so no job outlives its purpose.
//!
//! Each lane is shared fairly between clients ([`JobKey`]: the address of the person whose
//! action asked for the thinking): jobs wait per client and clients take turns, so one client's
//! many games cannot push another client's computer move back by more than one job.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
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

/// Whose job it is, for sharing the workers fairly: the client address of the person whose
/// action led to it, or the game when nobody asked (a computer resumed at start).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum JobKey {
    /// A client, by address.
    Address(IpAddr),
    /// A game nobody is known to have asked for, by id.
    Game(Arc<str>),
}

impl JobKey {
    /// The key of a game nobody is known to have asked for.
    pub fn game(id: &str) -> Self {
        JobKey::Game(id.into())
    }
}

/// One lane: jobs wait per key, FIFO within a key, and keys take turns. A key that had nothing
/// waiting goes ahead of the keys already served (a client with one move waits behind at most
/// one job of each busy client, not behind their queues), then joins the back of the turns;
/// but after [`FRESH_STREAK`] such jobs in a row the turns get one, so a crowd of clients with
/// one job each cannot starve a busy one (many people behind one address) either.
#[derive(Default)]
struct FairLane {
    waiting: HashMap<JobKey, VecDeque<Job>>,
    /// Keys that had nothing waiting when their job came, in arrival order: served first.
    fresh: VecDeque<JobKey>,
    /// Keys served at least once that still have jobs waiting, in turn order.
    turns: VecDeque<JobKey>,
    /// Jobs taken from `fresh` in a row while `turns` waited.
    streak: usize,
    len: usize,
}

/// Fresh keys served in a row at most while the turns wait.
const FRESH_STREAK: usize = 4;

impl FairLane {
    fn push(&mut self, key: JobKey, job: Job) {
        match self.waiting.get_mut(&key) {
            Some(jobs) => jobs.push_back(job),
            None => {
                self.waiting.insert(key.clone(), VecDeque::from([job]));
                self.fresh.push_back(key);
            }
        }
        self.len += 1;
    }

    /// The next key's oldest job; the key goes to the back of the turns if it has more.
    fn pop(&mut self) -> Option<Job> {
        let fresh_first = self.turns.is_empty() || self.streak < FRESH_STREAK;
        let key = if fresh_first { self.fresh.pop_front() } else { None };
        let key = match key {
            Some(key) => {
                self.streak = if self.turns.is_empty() { 0 } else { self.streak.saturating_add(1) };
                key
            }
            None => {
                self.streak = 0;
                self.turns.pop_front().or_else(|| self.fresh.pop_front())?
            }
        };
        let jobs = self.waiting.get_mut(&key)?;
        let job = jobs.pop_front();
        if jobs.is_empty() {
            self.waiting.remove(&key);
        } else {
            self.turns.push_back(key);
        }
        if job.is_some() {
            self.len = self.len.saturating_sub(1);
        }
        job
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

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
/// at most all workers but one, so the others never wait behind a queue of long ones. Each lane
/// is shared fairly between clients ([`FairLane`]).
#[derive(Default)]
struct Lanes {
    moves: FairLane,
    optional: FairLane,
    long: FairLane,
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

    /// Runs `work` for `key` on a worker under `flag` and waits for its answer. `optional` jobs
    /// are refused with [`PoolError::Busy`] when the queue is full; the others always wait their
    /// turn, taking turns with other keys' jobs.
    pub async fn run<R: Send + 'static>(
        self: &Arc<Self>,
        key: JobKey,
        optional: bool,
        flag: CancelFlag,
        work: impl FnOnce(&mut Slots) -> R + Send + 'static,
    ) -> Result<R, PoolError> {
        self.run_in_lane(key, false, optional, flag, work).await
    }

    /// [`EnginePool::run`] for a long computer move (more than a second of thinking): it waits
    /// in the long lane, which never holds every worker.
    pub async fn run_long<R: Send + 'static>(
        self: &Arc<Self>,
        key: JobKey,
        flag: CancelFlag,
        work: impl FnOnce(&mut Slots) -> R + Send + 'static,
    ) -> Result<R, PoolError> {
        self.run_in_lane(key, true, false, flag, work).await
    }

    /// [`EnginePool::run`] for a long optional job (a refinement of an analysis, more than a
    /// hint's time): it waits in the long lane, which never holds every worker, and is refused
    /// like any optional job ([`PoolError::Busy`] when the queue is full or it waited too long).
    pub async fn run_long_optional<R: Send + 'static>(
        self: &Arc<Self>,
        key: JobKey,
        flag: CancelFlag,
        work: impl FnOnce(&mut Slots) -> R + Send + 'static,
    ) -> Result<R, PoolError> {
        self.run_in_lane(key, true, true, flag, work).await
    }

    async fn run_in_lane<R: Send + 'static>(
        self: &Arc<Self>,
        key: JobKey,
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
                lanes.long.push(key, job);
            } else if optional {
                lanes.optional.push(key, job);
            } else {
                lanes.moves.push(key, job);
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
                if let Some(job) = lanes.moves.pop().or_else(|| lanes.optional.pop()) {
                    break (job, false);
                }
                if lanes.long_running < jobs.long_slots {
                    if let Some(job) = lanes.long.pop() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn address(last: u8) -> JobKey {
        JobKey::Address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)))
    }

    /// Queues `keys`' jobs, in order, behind a job that holds the only worker until they are all
    /// queued, and answers the order they ran in.
    async fn order_of(
        lane: impl Fn(&Arc<EnginePool>, JobKey, Box<dyn FnOnce() + Send>) -> Waiting,
        keys: &[JobKey],
    ) -> Vec<usize> {
        let pool = EnginePool::new(1, 100, Duration::from_secs(30));
        let (release, hold) = std::sync::mpsc::channel::<()>();
        let mut blocker = Box::pin(pool.run(address(9), false, CancelFlag::new(), move |_| {
            let _ = hold.recv();
        }));
        assert!(futures_util::poll!(blocker.as_mut()).is_pending());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let mut waiting = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            let ran = ran.clone();
            let mut job = lane(&pool, key.clone(), Box::new(move || ran.lock().unwrap().push(i)));
            // Polled once, the job is queued (it waits for its answer after that).
            assert!(futures_util::poll!(job.as_mut()).is_pending());
            waiting.push(job);
        }
        release.send(()).unwrap();
        blocker.await.unwrap();
        for job in waiting {
            job.await.unwrap();
        }
        let order = ran.lock().unwrap().clone();
        order
    }

    type Waiting = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), PoolError>> + Send>>;

    fn moves(pool: &Arc<EnginePool>, key: JobKey, job: Box<dyn FnOnce() + Send>) -> Waiting {
        let pool = pool.clone();
        Box::pin(async move { pool.run(key, false, CancelFlag::new(), move |_| job()).await })
    }

    fn optional(pool: &Arc<EnginePool>, key: JobKey, job: Box<dyn FnOnce() + Send>) -> Waiting {
        let pool = pool.clone();
        Box::pin(async move { pool.run(key, true, CancelFlag::new(), move |_| job()).await })
    }

    fn long(pool: &Arc<EnginePool>, key: JobKey, job: Box<dyn FnOnce() + Send>) -> Waiting {
        let pool = pool.clone();
        Box::pin(async move { pool.run_long(key, CancelFlag::new(), move |_| job()).await })
    }

    /// 20 jobs of one client then one of another, with one worker: the other's runs second, in
    /// every lane (FIFO it would run 21st).
    #[tokio::test]
    async fn a_client_with_one_job_waits_behind_one_job_of_a_busy_client() {
        let mut keys = vec![address(1); 20];
        keys.push(address(2));
        for lane in [moves, optional, long] {
            let order = order_of(lane, &keys).await;
            assert_eq!(order.len(), 21);
            let position = order.iter().position(|&i| i == 20).unwrap();
            assert!(position <= 1, "the second client's job ran at position {position}: {order:?}");
            // The busy client's own jobs keep their order.
            let own: Vec<usize> = order.iter().copied().filter(|&i| i < 20).collect();
            assert_eq!(own, (0..20).collect::<Vec<_>>());
        }
    }

    /// A crowd of clients with one job each cannot starve a busy client: it gets a turn after
    /// every few of theirs.
    #[tokio::test]
    async fn a_crowd_of_one_job_clients_cannot_starve_a_busy_one() {
        let mut keys = vec![address(1); 3];
        keys.extend((10..20).map(address));
        let order = order_of(moves, &keys).await;
        let busy: Vec<usize> = order.iter().enumerate().filter(|(_, &i)| i < 3).map(|(at, _)| at).collect();
        assert_eq!(busy.len(), 3);
        for pair in busy.windows(2) {
            // At most FRESH_STREAK (4) others between two of its jobs; without the streak's bound, 10.
            assert!(pair[1] - pair[0] <= 5, "the busy client waited too long: {order:?}");
        }
    }

    /// Three busy clients take turns one job each, and a game's key is a client like another.
    #[tokio::test]
    async fn busy_clients_take_turns() {
        let (a, b, c) = (address(1), address(2), JobKey::game("0123"));
        let keys = [a.clone(), a.clone(), a.clone(), b.clone(), b.clone(), b, c.clone(), c];
        let order = order_of(moves, &keys).await;
        assert_eq!(order, vec![0, 3, 6, 1, 4, 7, 2, 5]);
    }
}
