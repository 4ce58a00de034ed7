//! The slow-reader attack: event streams with small receive buffers, each from its own address,
//! that never read while one client plays the moves of the game they watch.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use tokio::io::AsyncReadExt;
use tokio::task::JoinHandle;

use super::{create_patiently, open_unread_stream, tally, AbuseReport, Clients, Statuses};
use crate::bench::{client_ip, request_from, strings};
use crate::scenarios;

/// The attack under way: the readers, and the client moving on their game (`None`: the game
/// could not be created, or there are no readers).
pub(super) struct SlowReaders {
    /// One task per reader; each answers whether the server had closed its stream.
    readers: Clients<bool>,
    /// The moves played on the readers' game.
    mover: Option<JoinHandle<u64>>,
}

/// Creates the long game (from `127.7.0.1`, waiting out refusals) and starts `readers` readers on
/// it (addresses `127.6.x.y`) and its mover, whose moves begin at `start`.
pub(super) async fn start(addr: SocketAddr, readers: usize, start: Instant, deadline: Instant) -> SlowReaders {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let (tasks, mover) = if readers > 0 {
        let from = client_ip(7, 0);
        let body = scenarios::long_game().to_string();
        match create_patiently(addr, from, &body, deadline, &Mutex::new(Statuses::new())).await {
            Some(created) => {
                let id = created["id"].as_str().unwrap_or_default().to_string();
                let path = format!("/api/games/{id}/events");
                let tasks: Vec<_> = (0..readers)
                    .map(|i| tokio::spawn(slow_reader(addr, client_ip(6, i), path.clone(), deadline, statuses.clone())))
                    .collect();
                let tokens = strings(&created["tokens"]);
                let pace = Duration::from_millis(100);
                let mover = tokio::spawn(long_game_mover(addr, from, id, tokens, start, deadline, pace));
                (tasks, Some(mover))
            }
            None => (Vec::new(), None),
        }
    } else {
        (Vec::new(), None)
    };
    SlowReaders { readers: Clients { tasks, statuses }, mover }
}

/// Reports what the readers' streams were answered, how many the server had closed by the
/// end, and the moves played on their game.
pub(super) async fn finish(attack: SlowReaders, report: &mut AbuseReport) {
    let (closed, statuses) = attack.readers.join().await;
    let closed = closed.into_iter().filter(|&closed| closed).count() as u64;
    report.slow_readers_closed_by_server = report.slow_readers_closed_by_server.saturating_add(closed);
    if let Some(mover) = attack.mover {
        report.slow_game_moves = mover.await.unwrap_or_default();
    }
    report.slow_reader_statuses = statuses;
}

/// A slow reader: an event stream with a 4 KiB receive buffer that reads nothing after the
/// answer's head until `deadline`; then it reads what is left for up to 3 s. Answers whether
/// the server had closed it (the end of the stream came within those seconds).
async fn slow_reader(
    addr: SocketAddr,
    from: Ipv4Addr,
    path: String,
    deadline: Instant,
    statuses: Arc<Mutex<Statuses>>,
) -> bool {
    let (status, stream) = open_unread_stream(addr, from, &path, Some(4096)).await;
    tally(&statuses, &status);
    let Some(mut stream) = stream else { return false };
    tokio::time::sleep(deadline.saturating_duration_since(Instant::now())).await;
    let mut buffer = vec![0u8; 64 * 1024];
    let drain = async {
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => return true,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(3), drain).await.unwrap_or(false)
}

/// The slow readers' game: a person-vs-person game whose moves one client plays for both seats
/// every `pace` until `deadline` (or the game's end). Answers the moves played.
async fn long_game_mover(
    addr: SocketAddr,
    from: Ipv4Addr,
    id: String,
    tokens: Vec<String>,
    start: Instant,
    deadline: Instant,
    pace: Duration,
) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let limit = Duration::from_secs(10);
    let path = format!("/api/games/{id}");
    let mut moves = 0u64;
    tokio::time::sleep(start.saturating_duration_since(Instant::now())).await;
    while Instant::now() < deadline {
        tokio::time::sleep(pace).await;
        let Ok((200, state)) = request_from(addr, Some(from), "GET", &path, "", limit).await else { continue };
        let seat = state["status"]["to_move"].as_u64().and_then(|s| usize::try_from(s).ok());
        let legal = strings(&state["legal"]);
        let (Some(seat), Some(mv)) = (seat, legal.choose(&mut rng)) else { break }; // over
        let Some(token) = tokens.get(seat) else { break };
        let ply = state["moves"].as_array().map_or(0, Vec::len);
        let body = json!({"move": mv, "token": token, "ply": ply}).to_string();
        if let Ok((200, _)) = request_from(addr, Some(from), "POST", &format!("{path}/moves"), &body, limit).await {
            moves = moves.saturating_add(1);
        }
    }
    moves
}
