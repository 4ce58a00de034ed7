//! The people measured against the computer: each plays a quick computer (`engine:time=100ms`)
//! from its own address and times its replies, while the attacks load the engine pool.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{AbuseReport, Clients, Statuses};
use crate::bench::{client_ip, percentile, request_from};
use crate::scenarios;

/// Starts `people` clients (addresses `127.5.x.y`) playing from `start` to `deadline`.
pub(super) fn start(
    addr: SocketAddr,
    people: usize,
    start: Instant,
    deadline: Instant,
) -> Clients<(Vec<Duration>, Option<Duration>)> {
    let tasks = (0..people).map(|i| tokio::spawn(versus_computer(addr, client_ip(5, i), start, deadline))).collect();
    Clients { tasks, statuses: Arc::new(Mutex::new(Statuses::new())) }
}

/// Reports the computer's replies: how many, their delay, and those still awaited at the end
/// (counted in the slowest with their wait so far).
pub(super) async fn finish(people: Clients<(Vec<Duration>, Option<Duration>)>, report: &mut AbuseReport) {
    let mut replies = Vec::new();
    for (times, awaited) in people.join().await.0 {
        replies.extend(times);
        if let Some(waited) = awaited {
            report.computer_replies_awaited = report.computer_replies_awaited.saturating_add(1);
            report.computer_reply_max_ms = report.computer_reply_max_ms.max(waited.as_secs_f64() * 1000.0);
        }
    }
    replies.sort();
    report.computer_replies = replies.len();
    report.computer_reply_p50_ms = percentile(&replies, 0.5);
    report.computer_reply_p99_ms = percentile(&replies, 0.99);
    if let Some(slowest) = replies.last() {
        report.computer_reply_max_ms = report.computer_reply_max_ms.max(slowest.as_secs_f64() * 1000.0);
    }
}

/// An ordinary person against a quick computer (`engine:time=100ms`): moves, then polls the
/// state every 50 ms until the computer has replied. Returns each reply's delay, and the wait so
/// far of a reply still awaited at `deadline`.
async fn versus_computer(
    addr: SocketAddr,
    from: Ipv4Addr,
    start: Instant,
    deadline: Instant,
) -> (Vec<Duration>, Option<Duration>) {
    let limit = Duration::from_secs(10);
    let mut replies = Vec::new();
    let create = scenarios::versus_quick_computer().to_string();
    let mut game: Option<(String, Value)> = None;
    tokio::time::sleep(start.saturating_duration_since(Instant::now())).await;
    while Instant::now() < deadline {
        let (id, token) = match game.take() {
            Some(g) => g,
            None => match request_from(addr, Some(from), "POST", "/api/games", &create, limit).await {
                Ok((200, created)) => {
                    (created["id"].as_str().unwrap_or_default().to_string(), created["tokens"][0].clone())
                }
                _ => {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            },
        };
        let path = format!("/api/games/{id}");
        let Ok((200, state)) = request_from(addr, Some(from), "GET", &path, "", limit).await else { continue };
        if state["status"]["to_move"] != json!(0) {
            continue; // over: a new game
        }
        let Some(mv) = state["legal"].get(0).cloned() else { continue };
        let ply = state["moves"].as_array().map_or(0, Vec::len);
        let body = json!({"move": mv, "token": token, "ply": ply}).to_string();
        let Ok((200, _)) = request_from(addr, Some(from), "POST", &format!("{path}/moves"), &body, limit).await else {
            continue;
        };
        let moved = Instant::now();
        loop {
            if Instant::now() >= deadline {
                return (replies, Some(moved.elapsed()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            let Ok((200, now)) = request_from(addr, Some(from), "GET", &path, "", limit).await else { continue };
            if now["status"]["to_move"] != json!(1) {
                replies.push(moved.elapsed());
                break;
            }
        }
        game = Some((id, token));
    }
    (replies, None)
}
