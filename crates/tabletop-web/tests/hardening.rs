//! Defences of `tabletop serve` that the API tests do not reach: how the engine workers share
//! the machine with the threads that answer requests, and how the listener takes a burst of
//! connections.

/// Engine workers think at a lower priority than the request threads, so that with every core
/// thinking (20 seats asking for 10 s each) ordinary moves are still answered in milliseconds:
/// measured by `tabletop bench serve --abuse`, the ordinary moves' p99 went from 77-152 ms to
/// 35-40 ms.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn engine_workers_run_at_a_lower_priority_than_requests() {
    use std::time::Duration;
    use tabletop::cancel::CancelFlag;
    use tabletop_web::engines::{EnginePool, JobKey};

    // SAFETY: getpriority only reads its arguments (0: the calling thread on Linux).
    let here = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let pool = EnginePool::new(1, 1, Duration::from_secs(5));
    let there = pool
        .run(JobKey::game("test"), false, CancelFlag::new(), |_| unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) })
        .await
        .expect("the job runs");
    assert_eq!(there, here.saturating_add(10).min(19), "a worker's nice value, from {here}");
    // The thread that asked keeps its own priority.
    assert_eq!(unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }, here);
}

/// A burst of connections (2,000 idle connections opened at once, as `bench serve --abuse`
/// does) waits in the listen queue rather than being dropped: with tokio's default backlog
/// (1,024) the rest were dropped and retried by the clients a second later (ordinary moves took
/// over 1 s, some failed). Here the server cannot accept for 3 s, and 1,500 clients connect.
#[cfg(target_os = "linux")]
#[test]
fn a_burst_of_connections_waits_in_the_listen_queue() {
    use std::net::SocketAddr;
    use std::time::{Duration, Instant};

    let somaxconn: u32 =
        std::fs::read_to_string("/proc/sys/net/core/somaxconn").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
    if somaxconn < 2048 {
        eprintln!("skipped: net.core.somaxconn is {somaxconn}, the kernel caps every listen queue below the burst");
        return;
    }
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (started, addr) = std::sync::mpsc::channel::<SocketAddr>();
    let server = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async move {
            let config = tabletop_web::ServeConfig {
                addr: SocketAddr::from(([127, 0, 0, 1], 0)),
                db: ":memory:".into(),
                ..tabletop_web::ServeConfig::default()
            };
            let server = tabletop_web::start(config).await.unwrap();
            started.send(server.addr).unwrap();
            // The only thread of this runtime is busy: nothing is accepted for 3 s.
            std::thread::sleep(Duration::from_secs(3));
            server.shutdown().await;
        });
    });
    let addr = addr.recv().unwrap();
    let clients = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let connected = clients.block_on(async move {
        let began = Instant::now();
        let attempts: Vec<_> = (0..1500)
            .map(|_| {
                tokio::spawn(async move {
                    tokio::time::timeout(Duration::from_millis(900), tokio::net::TcpStream::connect(addr)).await
                })
            })
            .collect();
        let mut streams = Vec::new();
        for attempt in attempts {
            if let Ok(Ok(Ok(stream))) = attempt.await {
                streams.push(stream);
            }
        }
        assert!(began.elapsed() < Duration::from_millis(2500), "the burst was measured while the server was stalled");
        streams.len()
    });
    server.join().unwrap();
    assert_eq!(connected, 1500, "connections completed within 0.9 s while the server could not accept");
}

/// A hint or analysis queued behind long computer moves gets 503 (`Busy`) after a bounded
/// wait instead of hanging (under `bench serve --abuse`, queued hints waited over 30 s), and
/// its job is skipped when a worker reaches it, so abandoned hints cost no thinking.
#[tokio::test]
async fn a_queued_hint_gives_up_after_a_bounded_wait_and_is_skipped() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    use tabletop::cancel::CancelFlag;
    use tabletop_web::engines::{EnginePool, JobKey, PoolError};

    let pool = EnginePool::with_optional_wait(1, 4, Duration::from_secs(30), Duration::from_millis(300));
    // A long computer move holds the only worker.
    let busy = {
        let pool = pool.clone();
        tokio::spawn(async move {
            pool.run(JobKey::game("test"), false, CancelFlag::new(), |_| {
                std::thread::sleep(Duration::from_millis(1500))
            })
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let ran = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let hint = {
        let ran = ran.clone();
        pool.run(JobKey::game("test"), true, CancelFlag::new(), move |_| ran.store(true, Ordering::SeqCst)).await
    };
    assert!(matches!(hint, Err(PoolError::Busy)), "the hint is refused: {hint:?}");
    assert!(started.elapsed() < Duration::from_millis(1000), "after the bounded wait: {:?}", started.elapsed());
    busy.await.expect("the computer move ends").expect("and is answered");
    // The worker reached the abandoned hint: it was skipped, and the pool still works.
    let answer = pool.run(JobKey::game("test"), true, CancelFlag::new(), |_| 42).await;
    assert_eq!(answer.expect("a later hint is answered"), 42);
    assert!(!ran.load(Ordering::SeqCst), "an abandoned hint does not think");
}

/// Long thinking never holds every worker: with two workers and a queue of long computer moves
/// (seats asking for many seconds each), a short job (a 100 ms computer, a hint) is answered at
/// once. Before the lanes, `bench serve --abuse` saw people against `engine:time=100ms` wait 37 s
/// for a reply behind 20 seats of `engine:time=10s`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_thinking_never_holds_every_worker() {
    use std::time::{Duration, Instant};
    use tabletop::cancel::CancelFlag;
    use tabletop_web::engines::{EnginePool, JobKey};

    let pool = EnginePool::new(2, 4, Duration::from_secs(30));
    let long: Vec<_> = (0..4)
        .map(|_| {
            let pool = pool.clone();
            tokio::spawn(async move {
                pool.run_long(JobKey::game("test"), CancelFlag::new(), |_| {
                    std::thread::sleep(Duration::from_millis(1500))
                })
                .await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let asked = Instant::now();
    let answer = pool.run(JobKey::game("test"), false, CancelFlag::new(), |_| 7).await.expect("the short job runs");
    assert_eq!(answer, 7);
    assert!(asked.elapsed() < Duration::from_millis(800), "a short job waited {:?}", asked.elapsed());
    for job in long {
        job.await.expect("joined").expect("the long job runs");
    }
}

/// A database file removed under the server is noticed by the very next write (a stat before
/// each), not only by the watcher every few seconds: no move is acknowledged into a lost file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_database_refuses_the_very_next_write() {
    use std::time::Duration;
    let dir = std::env::temp_dir().join(format!("tabletop-hardening-removed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("games.db");
    let config = tabletop_web::ServeConfig {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.clone(),
        storage_check: Duration::from_secs(3600), // the watcher would not see it in time
        ..tabletop_web::ServeConfig::default()
    };
    let server = tabletop_web::start(config).await.unwrap();
    assert!(server.state.check_writable().is_ok());
    std::fs::remove_file(&db).unwrap();
    assert!(server.state.check_writable().is_err(), "the next write is refused at once");
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A computer move people wait for goes before queued hints and analyses: with 150 clients
/// asking for hints, people against `engine:time=100ms` waited 5.4 s for each reply (bench serve
/// --abuse) before moves had their own lane; 0.2 s after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn computer_moves_go_before_queued_hints() {
    use std::time::{Duration, Instant};
    use tabletop::cancel::CancelFlag;
    use tabletop_web::engines::{EnginePool, JobKey};

    let pool = EnginePool::new(1, 8, Duration::from_secs(30));
    let busy = {
        let pool = pool.clone();
        tokio::spawn(async move {
            pool.run(JobKey::game("test"), false, CancelFlag::new(), |_| std::thread::sleep(Duration::from_millis(500)))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let hints: Vec<_> = (0..5)
        .map(|_| {
            let pool = pool.clone();
            tokio::spawn(async move {
                pool.run(JobKey::game("test"), true, CancelFlag::new(), |_| {
                    std::thread::sleep(Duration::from_millis(300))
                })
                .await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let asked = Instant::now();
    pool.run(JobKey::game("test"), false, CancelFlag::new(), |_| ()).await.expect("the move is chosen");
    assert!(asked.elapsed() < Duration::from_millis(1000), "the computer move waited {:?}", asked.elapsed());
    busy.await.expect("joined").expect("ran");
    for hint in hints {
        hint.await.expect("joined").expect("the hints still run");
    }
}
