//! The bulk-creation attack: one client creating games (against the default computer) as fast
//! as it is answered, 16 requests at a time.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{count, AbuseReport, Clients, Statuses};
use crate::bench::request_from;
use crate::scenarios;

/// Starts creating `creations` games from `127.0.0.2`, until they are sent or `deadline`.
pub(super) fn start(addr: SocketAddr, creations: usize, deadline: Instant) -> Clients<()> {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let next = Arc::new(AtomicUsize::new(0));
    let tasks = (0..16)
        .map(|_| {
            let (statuses, next) = (statuses.clone(), next.clone());
            tokio::spawn(async move {
                let body = scenarios::versus_default_computer().to_string();
                while Instant::now() < deadline && next.fetch_add(1, Ordering::SeqCst) < creations {
                    let from = Some(Ipv4Addr::new(127, 0, 0, 2));
                    let outcome = request_from(addr, from, "POST", "/api/games", &body, Duration::from_secs(10)).await;
                    count(&statuses, &outcome);
                }
            })
        })
        .collect();
    Clients { tasks, statuses }
}

/// Reports what the creations were answered.
pub(super) async fn finish(creators: Clients<()>, report: &mut AbuseReport) {
    report.create_statuses = creators.join().await.1;
}
