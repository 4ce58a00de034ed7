//! The watchers benchmark (`tabletop bench serve --watchers N`): what many watchers of one long
//! game cost the server. One person holding both seats plays a long game (the moves are chosen
//! with the library's rules so that the game goes on: no win, no third repetition), then
//! `watchers` event streams watch it while more moves are played; the report gives the server's
//! CPU time and the bytes it sent for those moves, how late the last move reached the watchers,
//! and how the lobby answered another client meanwhile.
//!
//! The server runs as a child process (`--server-exe`, this program by default), so the same
//! benchmark measures an older build too.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde_json::{json, Value};

use crate::bench::BenchError;
use crate::client::{events_path, exchange, request, request_bytes_as, EventStream};

/// How the watchers benchmark runs.
#[derive(Clone, Debug)]
pub struct WatchersSettings {
    /// Event streams watching the game.
    pub watchers: usize,
    /// Moves played before the watchers connect.
    pub moves_before: usize,
    /// Moves played while they watch (the ones measured).
    pub moves_watched: usize,
    /// The server program (`tabletop`), run as `EXE serve ...`.
    pub server_exe: PathBuf,
    /// A folder for the server's database and log.
    pub dir: PathBuf,
    /// The seed of the moves' choice.
    pub seed: u64,
}

/// What the watchers benchmark measured.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct WatchersReport {
    /// Event streams the server accepted (it may cap them per game).
    pub watchers_accepted: usize,
    /// Streams it refused.
    pub watchers_refused: usize,
    /// Moves in the game when the measured moves began.
    pub moves_before: usize,
    /// The moves measured.
    pub moves_watched: usize,
    /// The server's CPU time (user + system) over the measured moves, seconds.
    pub server_cpu_seconds: f64,
    /// Bytes of event data the watchers received over the measured moves.
    pub bytes_sent: u64,
    /// The median size of one event's data over the measured moves, bytes.
    pub event_bytes_median: usize,
    /// From the last measured move's answer to the last watcher seeing it, milliseconds.
    pub last_move_delivery_ms: f64,
    /// The lobby's answer times meanwhile (another client asking every 20 ms): p99 and max, ms.
    pub lobby_p99_ms: f64,
    /// See `lobby_p99_ms`.
    pub lobby_max_ms: f64,
    /// The server's peak resident memory, MiB.
    pub server_peak_rss_mib: f64,
}

fn server_cpu_seconds(pid: u32) -> f64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces, hence the last ')').
    let rest = text.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of the whole line: 11 and 12 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

fn peak_rss_mib(pid: u32) -> f64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn start_server(exe: &Path, dir: &Path) -> Result<(std::process::Child, SocketAddr), BenchError> {
    use std::io::BufRead;
    std::fs::create_dir_all(dir)?;
    let db = dir.join("watchers.db");
    let _ = std::fs::remove_file(&db);
    let log = std::fs::File::create(dir.join("watchers-server.log"))?;
    let mut child = std::process::Command::new(exe)
        .args(["serve", "--addr", "127.0.0.1:0", "--log-level", "warn", "--db"])
        .arg(&db)
        .stdout(std::process::Stdio::piped())
        .stderr(log)
        .spawn()?;
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        std::io::BufReader::new(stdout).read_line(&mut line)?;
    }
    match line.split("http://").nth(1).and_then(|rest| rest.split('/').next()).and_then(|a| a.parse().ok()) {
        Some(addr) => Ok((child, addr)),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            Err(BenchError::Protocol(format!("the server did not start: {line:?}")))
        }
    }
}

/// A move that keeps the game going (chosen at random among those), by the library's rules.
fn a_move_that_goes_on(
    session: &mut Box<dyn tabletop_web::sessions::Session>,
    legal: &[String],
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Option<String> {
    let mut candidates: Vec<&String> = legal.iter().collect();
    candidates.shuffle(rng);
    for mv in candidates {
        if session.play(mv).is_ok() {
            let goes_on = session.to_move().is_some();
            session.undo();
            if goes_on {
                return Some(mv.clone());
            }
        }
    }
    None
}

/// Plays `count` moves for whoever is to move; answers the time the last answer came.
async fn play_moves(
    addr: SocketAddr,
    id: &str,
    tokens: &[String],
    session: &mut Box<dyn tabletop_web::sessions::Session>,
    count: usize,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> Result<Instant, BenchError> {
    let limit = Duration::from_secs(30);
    let mut last = Instant::now();
    for _ in 0..count {
        let seat = session.to_move().ok_or_else(|| BenchError::Protocol("the game ended".into()))?;
        let token = tokens.get(seat).ok_or_else(|| BenchError::Protocol("no token for the seat to move".into()))?;
        let view =
            exchange(addr, None, &request_bytes_as(addr, "GET", &format!("/api/games/{id}"), "", Some(token)), limit)
                .await?;
        let legal: Vec<String> = view.body["legal"]
            .as_array()
            .map(|l| l.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        let mv = a_move_that_goes_on(session, &legal, rng)
            .ok_or_else(|| BenchError::Protocol("no move keeps the game going".into()))?;
        let body = json!({"move": mv, "token": token}).to_string();
        let answer = request(addr, None, "POST", &format!("/api/games/{id}/moves"), &body, limit).await?;
        if answer.status != 200 {
            return Err(BenchError::Protocol(format!("move {mv}: {} {}", answer.status, answer.text)));
        }
        session.play(&mv).map_err(|e| BenchError::Protocol(e.to_string()))?;
        last = Instant::now();
    }
    Ok(last)
}

/// Runs the watchers benchmark against a fresh server (see the module's doc).
pub async fn watchers_benchmark(settings: WatchersSettings) -> Result<WatchersReport, BenchError> {
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let (mut child, addr) = start_server(&settings.server_exe, &settings.dir)?;
    let outcome = measure(&settings, addr, child.id()).await;
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

async fn measure(settings: &WatchersSettings, addr: SocketAddr, pid: u32) -> Result<WatchersReport, BenchError> {
    let limit = Duration::from_secs(30);
    let create = crate::scenarios::watched_game();
    let created = request(addr, None, "POST", "/api/games", &create.to_string(), limit).await?;
    if created.status != 200 {
        return Err(BenchError::Protocol(format!("create: {} {}", created.status, created.text)));
    }
    let id = created.body["id"].as_str().unwrap_or_default().to_string();
    let tokens: Vec<String> = created.body["tokens"]
        .as_array()
        .map(|t| t.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let name = create["game"].as_str().unwrap_or_default();
    let mut session = tabletop_web::sessions::new_session(name, &create["options"], &json!({}))
        .map_err(|e| BenchError::Protocol(e.to_string()))?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed);
    play_moves(addr, &id, &tokens, &mut session, settings.moves_before, &mut rng).await?;
    let target = session.ply() + settings.moves_watched;

    // The watchers, from many loopback addresses (a server may cap streams per address).
    let received = Arc::new(AtomicU64::new(0));
    let sizes = Arc::new(std::sync::Mutex::new(Vec::new()));
    let done = Arc::new(AtomicUsize::new(0));
    let last_seen = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let mut accepted = 0;
    let mut refused = 0;
    let mut tasks = Vec::new();
    for index in 0..settings.watchers {
        // Twenty streams per address: 127.0.2.1, 127.0.2.2, ...
        let group = index / 20;
        let from = Ipv4Addr::new(127, 0, 2 + (group / 250 % 200) as u8, 1 + (group % 250) as u8);
        let path = events_path(addr, Some(from), &id, None, limit).await?;
        let mut stream = EventStream::open(addr, Some(from), &path).await?;
        match tokio::time::timeout(limit, stream.next()).await {
            Ok(Ok(_first)) => accepted += 1,
            _ => {
                refused += 1;
                continue;
            }
        }
        let (received, sizes, done, last_seen) = (received.clone(), sizes.clone(), done.clone(), last_seen.clone());
        tasks.push(tokio::spawn(async move {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
            while let Ok(Ok(event)) = tokio::time::timeout_at(deadline, stream.next()).await {
                received.fetch_add(event.size as u64, Ordering::Relaxed);
                if let Ok(mut sizes) = sizes.lock() {
                    sizes.push(event.size);
                }
                if event.data["moves"].as_array().map_or(0, Vec::len) >= target {
                    if let Ok(mut seen) = last_seen.lock() {
                        *seen = Some(seen.map_or(event.at, |s: Instant| s.max(event.at)));
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                    return;
                }
            }
        }));
    }

    // Another client asks for the lobby meanwhile.
    let probing = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let prober = {
        let probing = probing.clone();
        tokio::spawn(async move {
            let mut times = Vec::new();
            while probing.load(Ordering::SeqCst) {
                let start = Instant::now();
                let _ = request(addr, Some(Ipv4Addr::new(127, 0, 9, 9)), "GET", "/api/lobby", "", limit).await;
                times.push(start.elapsed());
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            times
        })
    };

    let cpu_before = server_cpu_seconds(pid);
    received.store(0, Ordering::SeqCst);
    if let Ok(mut sizes) = sizes.lock() {
        sizes.clear();
    }
    let moves_before = session.ply();
    let last_answer = play_moves(addr, &id, &tokens, &mut session, settings.moves_watched, &mut rng).await?;
    let wait_until = Instant::now() + Duration::from_secs(120);
    while done.load(Ordering::SeqCst) < accepted && Instant::now() < wait_until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cpu_after = server_cpu_seconds(pid);
    probing.store(false, Ordering::SeqCst);
    let mut lobby = prober.await.unwrap_or_default();
    lobby.sort();
    for task in tasks {
        task.abort();
    }
    let mut sizes = sizes.lock().map(|s| s.clone()).unwrap_or_default();
    sizes.sort_unstable();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let last = last_seen.lock().ok().and_then(|s| *s);
    Ok(WatchersReport {
        watchers_accepted: accepted,
        watchers_refused: refused,
        moves_before,
        moves_watched: settings.moves_watched,
        server_cpu_seconds: cpu_after - cpu_before,
        bytes_sent: received.load(Ordering::SeqCst),
        event_bytes_median: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        last_move_delivery_ms: last.map_or(f64::NAN, |l| ms(l.saturating_duration_since(last_answer))),
        lobby_p99_ms: lobby.get(lobby.len() * 99 / 100).map_or(0.0, |d| ms(*d)),
        lobby_max_ms: lobby.last().map_or(0.0, |d| ms(*d)),
        server_peak_rss_mib: peak_rss_mib(pid),
    })
}

/// Runs [`watchers_benchmark`] on a new multi-threaded runtime (for the command line).
pub fn watchers_benchmark_blocking(settings: WatchersSettings) -> Result<WatchersReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(watchers_benchmark(settings))
}
