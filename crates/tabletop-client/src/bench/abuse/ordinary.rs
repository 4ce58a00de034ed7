//! The people measured: ordinary person-vs-person games, each played back to back by its own
//! client from its own address; every move's latency and answer.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use super::{count, AbuseReport, Clients, Statuses};
use crate::bench::{client_ip, percentile, request_from, strings};
use crate::scenarios;

/// Starts `players` ordinary clients (addresses `127.1.x.y`), whose games are created at once and
/// whose moves begin at `start`.
pub(super) fn start(
    addr: SocketAddr,
    players: usize,
    think: Duration,
    start: Instant,
    deadline: Instant,
) -> Clients<Vec<Duration>> {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let tasks = (0..players)
        .map(|i| {
            let statuses = statuses.clone();
            tokio::spawn(ordinary_player(addr, client_ip(1, i), i as u64, start, deadline, think, statuses))
        })
        .collect();
    Clients { tasks, statuses }
}

/// Reports the ordinary moves: how many, their latency and their answers.
pub(super) async fn finish(players: Clients<Vec<Duration>>, report: &mut AbuseReport) {
    let (latencies, statuses) = players.join().await;
    let mut latencies: Vec<Duration> = latencies.into_iter().flatten().collect();
    latencies.sort();
    report.moves = latencies.len();
    report.move_p50_ms = percentile(&latencies, 0.50);
    report.move_p99_ms = percentile(&latencies, 0.99);
    report.move_max_ms = latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    report.move_statuses = statuses;
}

/// An ordinary person-vs-person Slide game played back to back by one client (a new game when
/// one ends) until `deadline`: the latency and status of every move.
async fn ordinary_player(
    addr: SocketAddr,
    from: Ipv4Addr,
    seed: u64,
    start: Instant,
    deadline: Instant,
    think: Duration,
    statuses: Arc<Mutex<Statuses>>,
) -> Vec<Duration> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut latencies = Vec::new();
    let limit = Duration::from_secs(10);
    let create = scenarios::ordinary_game().to_string();
    let mut game: Option<(String, Vec<String>, Value)> = None;
    let mut waited_for_start = false;
    while Instant::now() < deadline {
        let (id, tokens, state) = match game.take() {
            Some(g) => g,
            None => match request_from(addr, Some(from), "POST", "/api/games", &create, limit).await {
                Ok((200, created)) => {
                    let id = created["id"].as_str().unwrap_or_default().to_string();
                    (id, strings(&created["tokens"]), created["state"].clone())
                }
                _ => {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            },
        };
        if !waited_for_start {
            // Games are ready before the attacks begin; moves are measured during them.
            tokio::time::sleep(start.saturating_duration_since(Instant::now())).await;
            waited_for_start = true;
        }
        let seat = state["status"]["to_move"].as_u64().and_then(|s| usize::try_from(s).ok());
        let legal = strings(&state["legal"]);
        let (Some(seat), Some(mv)) = (seat, legal.choose(&mut rng)) else { continue }; // over: a new game
        let Some(token) = tokens.get(seat) else { continue };
        tokio::time::sleep(think.mul_f64(rng.gen_range(0.5..1.5))).await;
        let ply = state["moves"].as_array().map_or(0, Vec::len);
        let body = json!({"move": mv, "token": token, "ply": ply}).to_string();
        let started = Instant::now();
        let outcome = request_from(addr, Some(from), "POST", &format!("/api/games/{id}/moves"), &body, limit).await;
        latencies.push(started.elapsed());
        count(&statuses, &outcome);
        match outcome {
            Ok((200, next)) => game = Some((id, tokens, next)),
            _ => {
                // Read the state again and go on.
                if let Ok((200, current)) =
                    request_from(addr, Some(from), "GET", &format!("/api/games/{id}"), "", limit).await
                {
                    game = Some((id, tokens, current));
                }
            }
        }
    }
    latencies
}
