//! The health probe: `GET /api/lobby` every 100 ms, each on a task of its own, timed; whether
//! the server kept answering through the attacks.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::AbuseReport;
use crate::bench::{percentile, request_from};

/// When each probe's answer came, and how long it took (`None`: not a 200).
type ProbeLog = Arc<Mutex<Vec<(Instant, Option<Duration>)>>>;

/// The probe under way: the task sending probes (it returns how many it sent) and their log.
pub(super) struct Probe {
    /// Sends a probe every 100 ms until the deadline.
    sender: tokio::task::JoinHandle<u64>,
    /// The probes' answers.
    log: ProbeLog,
}

/// Starts probing `addr` every 100 ms until `deadline`.
pub(super) fn start(addr: SocketAddr, deadline: Instant) -> Probe {
    let log = ProbeLog::default();
    let sender = {
        let probe_log = log.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            let mut sent = 0u64;
            while Instant::now() < deadline {
                tick.tick().await;
                sent = sent.saturating_add(1);
                let probe_log = probe_log.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let outcome = request_from(addr, None, "GET", "/api/lobby", "", Duration::from_secs(5)).await;
                    let took = matches!(outcome, Ok((200, _))).then(|| started.elapsed());
                    probe_log.lock().unwrap_or_else(|e| e.into_inner()).push((Instant::now(), took));
                });
            }
            sent
        })
    };
    Probe { sender, log }
}

/// Reports the probes: how many were sent and answered, the slowest and the 99th percentile,
/// and the longest time without an answer between `start` and `deadline`.
pub(super) async fn finish(probe: Probe, start: Instant, deadline: Instant, report: &mut AbuseReport) {
    report.probes = probe.sender.await.unwrap_or_default();
    let mut probes = probe.log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    probes.sort_by_key(|(at, _)| *at);
    let mut answered: Vec<Duration> = probes.iter().filter_map(|(_, took)| *took).collect();
    answered.sort();
    report.probe_p99_ms = percentile(&answered, 0.99);
    let mut last_ok = start;
    let mut max_gap = Duration::ZERO;
    for (at, took) in &probes {
        if let Some(took) = took {
            report.probes_ok = report.probes_ok.saturating_add(1);
            report.probe_max_ms = report.probe_max_ms.max(took.as_secs_f64() * 1000.0);
            max_gap = max_gap.max(at.saturating_duration_since(last_ok));
            last_ok = *at;
        }
    }
    max_gap = max_gap.max(deadline.saturating_duration_since(last_ok));
    report.probe_max_gap_ms = max_gap.as_secs_f64() * 1000.0;
}
