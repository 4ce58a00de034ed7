//! The load benchmark behind `tabletop bench serve`: many games played at once over loopback by
//! clients in the same process, bounded in count and time, then a check that every acknowledged
//! move is in the database.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::store::{Store, StoreError};

/// What the load benchmark measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LoadReport {
    /// Games played concurrently.
    pub games: usize,
    /// Moves acknowledged by the server.
    pub moves: usize,
    /// Wall-clock seconds of the playing phase.
    pub seconds: f64,
    /// Acknowledged moves per second.
    pub moves_per_second: f64,
    /// Median latency of a move request, milliseconds.
    pub p50_ms: f64,
    /// 99th-percentile latency of a move request, milliseconds.
    pub p99_ms: f64,
    /// Acknowledged moves missing from the database afterwards (must be 0).
    pub lost: usize,
}

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Networking failed.
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    /// The server answered something unexpected.
    #[error("unexpected answer: {0}")]
    Protocol(String),
}

async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> Result<(u16, Value), BenchError> {
    let mut stream = TcpStream::connect(addr).await?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await?;
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| BenchError::Protocol(text.chars().take(80).collect()))?;
    let payload = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let json = match (payload.find('{'), payload.rfind('}')) {
        (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    Ok((status, json))
}

/// Plays one Slide game between two people's seats with random legal moves; returns the
/// game id, the acknowledged moves and each move request's latency.
async fn play_one(
    addr: SocketAddr,
    seed: u64,
    deadline: Instant,
    max_moves: usize,
    think: Duration,
) -> Result<(String, Vec<String>, Vec<Duration>), BenchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let create = json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "human"]}).to_string();
    let (status, created) = request(addr, "POST", "/api/games", &create).await?;
    if status != 200 {
        return Err(BenchError::Protocol(format!("create answered {status}: {created}")));
    }
    let id = created["id"].as_str().unwrap_or_default().to_string();
    let tokens: Vec<String> =
        created["tokens"].as_array().into_iter().flatten().filter_map(|t| t.as_str().map(String::from)).collect();
    let mut state = created["state"].clone();
    let mut acknowledged = Vec::new();
    let mut latencies = Vec::new();
    while acknowledged.len() < max_moves && Instant::now() < deadline {
        let Some(seat) = state["status"]["to_move"].as_u64() else { break };
        let legal: Vec<String> =
            state["legal"].as_array().into_iter().flatten().filter_map(|m| m.as_str().map(String::from)).collect();
        let Some(mv) = legal.choose(&mut rng) else { break };
        // People do not move in step: each wait is drawn from half to one and a half times `think`.
        tokio::time::sleep(think.mul_f64(rng.gen_range(0.5..1.5))).await;
        let body = json!({"move": mv, "token": tokens[seat as usize], "ply": acknowledged.len()}).to_string();
        let started = Instant::now();
        let (status, next) = request(addr, "POST", &format!("/api/games/{id}/moves"), &body).await?;
        latencies.push(started.elapsed());
        if status != 200 {
            return Err(BenchError::Protocol(format!("move answered {status}: {next}")));
        }
        acknowledged.push(mv.clone());
        state = next;
    }
    Ok((id, acknowledged, latencies))
}

/// How hard the load benchmark pushes.
#[derive(Clone, Copy, Debug)]
pub struct LoadSettings {
    /// Games played at once.
    pub games: usize,
    /// Moves per game at most.
    pub max_moves: usize,
    /// Time for the playing phase at most.
    pub max_time: Duration,
    /// What each client waits before each move on average, as a person would (zero: back to back).
    pub think: Duration,
}

/// Plays [`LoadSettings::games`] games at once against a server on a free loopback port using
/// the database file `db`, then checks that the database holds every acknowledged move.
pub async fn load_benchmark(settings: LoadSettings, db: &Path) -> Result<LoadReport, BenchError> {
    let LoadSettings { games, max_moves, max_time, think } = settings;
    // One client creates every game: lift the per-client limits for the benchmark.
    let config = crate::ServeConfig {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.to_path_buf(),
        create_rate: 1_000_000,
        hint_rate: 1_000_000,
        ..crate::ServeConfig::default()
    };
    let server = crate::start(config).await.map_err(|e| BenchError::Protocol(e.to_string()))?;
    let addr = server.addr;
    let started = Instant::now();
    let deadline = started + max_time;
    let clients: Vec<_> =
        (0..games).map(|i| tokio::spawn(play_one(addr, i as u64, deadline, max_moves, think))).collect();
    let mut played = Vec::new();
    let mut latencies = Vec::new();
    for client in clients {
        let (id, moves, times) = client.await.map_err(|e| BenchError::Protocol(e.to_string()))??;
        latencies.extend(times);
        played.push((id, moves));
    }
    let seconds = started.elapsed().as_secs_f64();
    server.shutdown().await;
    // Every acknowledged move must be in the database, read back through a fresh connection.
    let store = Store::open(db)?;
    let mut lost = 0;
    for (id, moves) in &played {
        let stored = store.load(id)?.map(|(_, m)| m).unwrap_or_default();
        lost +=
            moves.iter().zip(stored.iter().chain(std::iter::repeat(&String::new()))).filter(|(a, b)| a != b).count();
    }
    latencies.sort();
    let percentile = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let moves = latencies.len();
    Ok(LoadReport {
        games,
        moves,
        seconds,
        moves_per_second: moves as f64 / seconds,
        p50_ms: percentile(0.50),
        p99_ms: percentile(0.99),
        lost,
    })
}

/// Runs [`load_benchmark`] on a new multi-threaded runtime (for the command line).
pub fn load_benchmark_blocking(settings: LoadSettings, db: &Path) -> Result<LoadReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(load_benchmark(settings, db))
}
