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
    use tabletop_web::engines::EnginePool;

    // SAFETY: getpriority only reads its arguments (0: the calling thread on Linux).
    let here = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let pool = EnginePool::new(1, 1, Duration::from_secs(5));
    let there = pool
        .run(false, CancelFlag::new(), |_| unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) })
        .await
        .expect("the job runs");
    assert_eq!(there, here.saturating_add(10).min(19), "a worker's nice value, from {here}");
    // The thread that asked keeps its own priority.
    assert_eq!(unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }, here);
}
