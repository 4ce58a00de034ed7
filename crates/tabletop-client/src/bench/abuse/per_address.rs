//! The per-address attack: one address opening every event stream it can on one game of its
//! own, one after the other, and holding those accepted.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::{create_patiently, open_unread_stream, tally, AbuseReport, Clients, Statuses};

/// Starts the attacker (from `127.0.0.9`), trying up to `streams` streams until `deadline`.
pub(super) fn start(addr: SocketAddr, streams: usize, deadline: Instant) -> Clients<()> {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let from = Ipv4Addr::new(127, 0, 0, 9);
    let tasks = vec![tokio::spawn(per_address_attacker(addr, from, streams, deadline, statuses.clone()))];
    Clients { tasks, statuses }
}

/// Reports what the streams were answered.
pub(super) async fn finish(attacker: Clients<()>, report: &mut AbuseReport) {
    report.per_address_statuses = attacker.join().await.1;
}

/// One address opening up to `count` event streams on one game of its own, one after the
/// other, and holding those accepted until `deadline`.
async fn per_address_attacker(
    addr: SocketAddr,
    from: Ipv4Addr,
    count: usize,
    deadline: Instant,
    statuses: Arc<Mutex<Statuses>>,
) {
    let creations = Mutex::new(Statuses::new());
    let body = crate::scenarios::streams_game().to_string();
    let Some(created) = create_patiently(addr, from, &body, deadline, &creations).await else { return };
    let path = format!("/api/games/{}/events", created["id"].as_str().unwrap_or_default());
    let mut held = Vec::new();
    for _ in 0..count {
        if Instant::now() >= deadline {
            break;
        }
        let (status, stream) = open_unread_stream(addr, from, &path, None).await;
        tally(&statuses, &status);
        held.extend(stream);
    }
    tokio::time::sleep(deadline.saturating_duration_since(Instant::now())).await;
}
