//! The longest-thinking attack: seats, each from its own address, in games where the computer
//! thinks as long as the server allows (`engine:time=10s`) and the person moves at once, so the
//! computer always thinks again. [`long_thinker`] also plays the scheduling attack's games.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{create_patiently, AbuseReport, Clients, Statuses};
use crate::bench::{client_ip, request_from};
use crate::scenarios;

/// Starts `seats` long thinkers (addresses `127.4.x.y`) until `deadline`.
pub(super) fn start(addr: SocketAddr, seats: usize, deadline: Instant) -> Clients<u64> {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let tasks = (0..seats)
        .map(|i| {
            let create = scenarios::longest_thinking(i);
            tokio::spawn(long_thinker(addr, client_ip(4, i), create, deadline, statuses.clone()))
        })
        .collect();
    Clients { tasks, statuses }
}

/// Reports what creating the games was answered and the computer moves seen.
pub(super) async fn finish(thinkers: Clients<u64>, report: &mut AbuseReport) {
    let (moves, statuses) = thinkers.join().await;
    report.long_think_computer_moves = moves.into_iter().fold(0, u64::saturating_add);
    report.long_think_create_statuses = statuses;
}

/// A seat asking for long thinking: a game (`create`, the person at seat `person`) where the
/// computer (`engine:time=10s` for the longest) moves first; whenever the person is to move it
/// moves at once, so the computer thinks again. A refused creation is tried again a second
/// later. Returns the computer moves seen.
pub(super) async fn long_thinker(
    addr: SocketAddr,
    from: Ipv4Addr,
    (create, person): (Value, usize),
    deadline: Instant,
    statuses: Arc<Mutex<Statuses>>,
) -> u64 {
    let limit = Duration::from_secs(10);
    let Some(created) = create_patiently(addr, from, &create.to_string(), deadline, &statuses).await else { return 0 };
    let id = created["id"].as_str().unwrap_or_default().to_string();
    let token = created["tokens"][person].clone();
    let mut computer_moves = 0u64;
    while Instant::now() < deadline {
        let Ok((200, state)) = request_from(addr, Some(from), "GET", &format!("/api/games/{id}"), "", limit).await
        else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        let history = state["history"].as_array().cloned().unwrap_or_default();
        computer_moves = history.iter().filter(|h| h["seat"] != json!(person)).count() as u64;
        if state["status"]["to_move"] != json!(person) {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        }
        let ply = state["moves"].as_array().map_or(0, Vec::len);
        let Some(mv) = state["legal"].get(0).cloned() else { continue };
        let body = json!({"move": mv, "token": token, "ply": ply}).to_string();
        let _ = request_from(addr, Some(from), "POST", &format!("/api/games/{id}/moves"), &body, limit).await;
    }
    computer_moves
}
