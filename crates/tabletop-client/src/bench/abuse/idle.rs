//! The idle-connection attack: connections from one address, opened and held without sending
//! anything, reopened when the server closes them.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt;

use super::{AbuseReport, Clients, Statuses};
use crate::bench::percentile;
use crate::client::open_connection;

/// What one holder saw: connections opened, closed by the server, failed, and how long each
/// closed one was held.
type Held = (u64, u64, u64, Vec<Duration>);

/// Starts `connections` holders, all from `127.0.0.3`, until `deadline`.
pub(super) fn start(addr: SocketAddr, connections: usize, deadline: Instant) -> Clients<Held> {
    let tasks =
        (0..connections).map(|_| tokio::spawn(idle_holder(addr, Ipv4Addr::new(127, 0, 0, 3), deadline))).collect();
    Clients { tasks, statuses: Arc::new(Mutex::new(Statuses::new())) }
}

/// Reports the idle connections: opened, closed by the server, failed, and how long the server
/// let one stay at the median.
pub(super) async fn finish(holders: Clients<Held>, report: &mut AbuseReport) {
    let mut held = Vec::new();
    for (opened, closed, failed, times) in holders.join().await.0 {
        report.idle_opened = report.idle_opened.saturating_add(opened);
        report.idle_closed_by_server = report.idle_closed_by_server.saturating_add(closed);
        report.idle_failed = report.idle_failed.saturating_add(failed);
        held.extend(times);
    }
    held.sort();
    report.idle_held_p50_s = percentile(&held, 0.50) / 1000.0;
}

/// Idle connections: opened and held, sending nothing, reopened when the server closes them (a
/// second later when it closed one at once).
/// Returns (opened, closed by the server, failed, how long each closed one was held).
async fn idle_holder(addr: SocketAddr, from: Ipv4Addr, deadline: Instant) -> Held {
    let (mut opened, mut closed, mut failed, mut held) = (0u64, 0u64, 0u64, Vec::new());
    while Instant::now() < deadline {
        let Ok(Ok(mut stream)) = tokio::time::timeout(Duration::from_secs(5), open_connection(addr, Some(from))).await
        else {
            failed = failed.saturating_add(1);
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        opened = opened.saturating_add(1);
        let since = Instant::now();
        let mut buffer = [0u8; 512];
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_) => break, // still open at the end
            Ok(_) => {
                closed = closed.saturating_add(1);
                held.push(since.elapsed());
                // Refused at once (a cap per address): without a pause, 2,000 holders reopen
                // some 18,000 connections a second and the benchmark measures its own loop on
                // the cores it shares with the server.
                if since.elapsed() < Duration::from_secs(1) {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
    (opened, closed, failed, held)
}
