//! The hint attack: clients, each from its own address (so that the engine pool, not only the
//! per-client limit, is what holds), asking for hints as fast as they are answered.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::{count, tally, AbuseReport, Clients, Statuses};
use crate::bench::{client_ip, request_from};
use crate::scenarios;

/// Starts `attackers` hint requesters (addresses `127.2.x.y`) until `deadline`.
pub(super) fn start(addr: SocketAddr, attackers: usize, deadline: Instant) -> Clients<()> {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let tasks = (0..attackers)
        .map(|i| tokio::spawn(hint_attacker(addr, client_ip(2, i), deadline, statuses.clone())))
        .collect();
    Clients { tasks, statuses }
}

/// Reports what the hint requests were answered.
pub(super) async fn finish(attackers: Clients<()>, report: &mut AbuseReport) {
    report.hint_statuses = attackers.join().await.1;
}

/// One attacker: a game against the computer where it holds the seat to move, then hints as
/// fast as they are answered (a short pause after a refusal) until `deadline`.
async fn hint_attacker(addr: SocketAddr, from: Ipv4Addr, deadline: Instant, statuses: Arc<Mutex<Statuses>>) {
    let limit = Duration::from_secs(30);
    let create = scenarios::versus_quick_computer().to_string();
    let Ok((200, created)) = request_from(addr, Some(from), "POST", "/api/games", &create, limit).await else {
        tally(&statuses, "no game");
        return;
    };
    let id = created["id"].as_str().unwrap_or_default().to_string();
    let body = json!({"token": created["tokens"][0]}).to_string();
    let path = format!("/api/games/{id}/hint");
    while Instant::now() < deadline {
        let outcome = request_from(addr, Some(from), "POST", &path, &body, limit).await;
        count(&statuses, &outcome);
        if !matches!(outcome, Ok((200, _))) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
