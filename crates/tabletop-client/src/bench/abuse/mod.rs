//! The abuse benchmark ([`abuse_benchmark`]): every attack at once while ordinary people play,
//! against a server started for it, and what the server did.
//!
//! Where things live: this file holds the settings, the report, the run (which starts each part
//! and gathers what it measured, in a fixed order) and what the attacks share (counting answers,
//! creating a game patiently, opening an event stream without reading it). One file per part:
//!
//! - the server and what is measured of it: `server.rs` (a child process or one in this
//!   process), `memory.rs` (its peak memory and the kernel's TCP memory), `probe.rs` (a health
//!   probe every 100 ms);
//! - the people measured: `ordinary.rs` (person-vs-person games played back to back),
//!   `versus_computer.rs` (people against a quick computer, timing its replies);
//! - the attacks: `hints.rs`, `idle.rs` (idle connections), `creations.rs` (games created in
//!   bulk by one client), `long_thinking.rs` (seats asking for the longest thinking),
//!   `slow_readers.rs` (event streams that never read, on one long game), `per_address.rs` (every
//!   event stream one address can open), `scheduling.rs` (many games against a second a move
//!   from one address).

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use super::{raise_file_limit, request_from, BenchError};

mod creations;
mod hints;
mod idle;
mod long_thinking;
mod memory;
mod ordinary;
mod per_address;
mod probe;
mod scheduling;
mod server;
mod slow_readers;
mod versus_computer;

/// How the abuse benchmark attacks.
#[derive(Clone, Debug)]
pub struct AbuseSettings {
    /// How long the attacks last.
    pub duration: Duration,
    /// The `tabletop` binary to run the server as a child process (its own peak memory is
    /// then measured); `None` runs it in this process (the whole process is measured).
    pub server_exe: Option<PathBuf>,
    /// The database file (in a temporary directory).
    pub db: PathBuf,
    /// Ordinary games between people, each played by its own client.
    pub players: usize,
    /// What an ordinary client waits before each move on average.
    pub think: Duration,
    /// Concurrent hint requesters, each from its own address.
    pub hints: usize,
    /// Idle connections opened and held.
    pub idle: usize,
    /// Games created by one client.
    pub creations: usize,
    /// Seats asking for the longest thinking.
    pub long_thinkers: usize,
    /// Ordinary people playing against a quick computer (`engine:time=100ms`), each timing
    /// the computer's replies.
    pub versus_computer: usize,
    /// Event streams that never read (a 4 KiB receive buffer), each from its own address, on one
    /// long game whose moves are played throughout.
    pub slow_readers: usize,
    /// Event streams one address tries to open and hold.
    pub per_address: usize,
    /// Games against `engine:time=1s` run by one address (it moves at once whenever its turn
    /// comes), so its computer moves queue up while the ordinary people time their replies.
    pub scheduling_games: usize,
}

impl AbuseSettings {
    /// The attacks of issue 13 for `duration`, with the database `db`.
    pub fn new(duration: Duration, db: PathBuf, server_exe: Option<PathBuf>) -> Self {
        AbuseSettings {
            duration,
            server_exe,
            db,
            players: 20,
            think: Duration::from_millis(100),
            hints: 150,
            idle: 2000,
            creations: 10_000,
            long_thinkers: 20,
            versus_computer: 5,
            slow_readers: 300,
            per_address: 1000,
            scheduling_games: 20,
        }
    }
}

/// How many answers of each status (or `timeout`, `error`) an attack got.
pub type Statuses = BTreeMap<String, u64>;

/// Counts an attack's answer: its status, `timeout` or `error`.
fn count(statuses: &Mutex<Statuses>, outcome: &Result<(u16, Value), BenchError>) {
    let key = match outcome {
        Ok((status, _)) => status.to_string(),
        Err(BenchError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => "timeout".to_string(),
        Err(_) => "error".to_string(),
    };
    tally(statuses, &key);
}

/// Counts one more answer `key` (a status, `closed`, `no game`, ...).
fn tally(statuses: &Mutex<Statuses>, key: &str) {
    let mut statuses = statuses.lock().unwrap_or_else(|e| e.into_inner());
    let entry = statuses.entry(key.to_string()).or_insert(0);
    *entry = entry.saturating_add(1);
}

/// What the abuse benchmark measured.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AbuseReport {
    /// Seconds the attacks lasted.
    pub seconds: f64,
    /// `child process` (the server's own memory) or `in process` (the whole benchmark's).
    pub server: String,
    /// Peak resident memory (VmHWM), MiB.
    pub peak_memory_mib: f64,
    /// Resident memory at the end, MiB.
    pub final_memory_mib: f64,
    /// Ordinary moves acknowledged during the attacks.
    pub moves: usize,
    /// Median latency of an ordinary move, milliseconds.
    pub move_p50_ms: f64,
    /// 99th percentile, milliseconds.
    pub move_p99_ms: f64,
    /// The slowest ordinary move, milliseconds.
    pub move_max_ms: f64,
    /// What ordinary moves were answered.
    pub move_statuses: Statuses,
    /// What the hint requests were answered.
    pub hint_statuses: Statuses,
    /// What the bulk creations were answered.
    pub create_statuses: Statuses,
    /// What creating the long thinkers' games was answered.
    pub long_think_create_statuses: Statuses,
    /// Moves the long thinkers' computers made during the attacks.
    pub long_think_computer_moves: u64,
    /// Idle connections opened (reopened when the server closed them).
    pub idle_opened: u64,
    /// Idle connections the server closed.
    pub idle_closed_by_server: u64,
    /// Idle connections that could not be opened.
    pub idle_failed: u64,
    /// Median time the server let an idle connection stay, seconds (0 if it never closed one).
    pub idle_held_p50_s: f64,
    /// Health probes sent (one every 100 ms).
    pub probes: u64,
    /// Health probes answered 200.
    pub probes_ok: u64,
    /// The longest time without a 200 from the health probe, milliseconds.
    pub probe_max_gap_ms: f64,
    /// The slowest health probe answer, milliseconds.
    pub probe_max_ms: f64,
    /// Whether the server process was still running at the end.
    pub server_alive: bool,
    /// Lines at ERROR level in the server's log (child process only).
    pub log_errors: u64,
    /// Ordinary games being played when the attacks began.
    pub players: usize,
    /// Replies of a quick computer (`engine:time=100ms`) to ordinary people during the attacks.
    pub computer_replies: usize,
    /// Median time from a person's move to the quick computer's reply, milliseconds.
    pub computer_reply_p50_ms: f64,
    /// The slowest reply, milliseconds (a reply still awaited at the end counts with its wait so far).
    pub computer_reply_max_ms: f64,
    /// Replies still awaited when the attacks ended.
    pub computer_replies_awaited: usize,
    /// 99th percentile of the quick computer's replies, milliseconds.
    pub computer_reply_p99_ms: f64,
    /// 99th percentile of the health probe's answers, milliseconds.
    pub probe_p99_ms: f64,
    /// The kernel's TCP memory (`/proc/net/sockstat`, every socket on the host) before the
    /// attacks, MiB.
    pub tcp_memory_start_mib: f64,
    /// Its peak during the attacks, MiB.
    pub tcp_memory_peak_mib: f64,
    /// What the slow readers' event streams were answered (`closed`: closed without an answer).
    pub slow_reader_statuses: Statuses,
    /// Slow readers the server had closed by the end (found closed when finally read).
    pub slow_readers_closed_by_server: u64,
    /// Moves played on the slow readers' game.
    pub slow_game_moves: u64,
    /// What one address's event streams were answered (`closed`: closed without an answer).
    pub per_address_statuses: Statuses,
    /// What creating the scheduling attacker's games was answered.
    pub scheduling_create_statuses: Statuses,
    /// Moves its computers made during the attacks.
    pub scheduling_computer_moves: u64,
}

/// Asks for an event stream on a connection of its own and reads only the answer's head (a
/// single read of at most 1 KiB): its status, `closed` when the server closed the connection
/// without answering, or `error`.
async fn open_unread_stream(
    addr: SocketAddr,
    from: Ipv4Addr,
    path: &str,
    receive_buffer: Option<u32>,
) -> (String, Option<TcpStream>) {
    let opening = async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        if let Some(size) = receive_buffer {
            socket.set_recv_buffer_size(size)?;
        }
        socket.bind(SocketAddr::new(from.into(), 0))?;
        let mut stream = socket.connect(addr).await?;
        let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        stream.write_all(head.as_bytes()).await?;
        let mut buffer = [0u8; 1024];
        let n = stream.read(&mut buffer).await?;
        Ok::<_, std::io::Error>((n, buffer, stream))
    };
    match tokio::time::timeout(Duration::from_secs(10), opening).await {
        Ok(Ok((0, _, _))) => ("closed".to_string(), None),
        Ok(Ok((n, buffer, stream))) => {
            let text = String::from_utf8_lossy(buffer.get(..n).unwrap_or_default()).to_string();
            let status = text.split_whitespace().nth(1).unwrap_or("?").to_string();
            let keep = (status == "200").then_some(stream);
            (status, keep)
        }
        Ok(Err(e)) if matches!(e.kind(), std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe) => {
            ("closed".to_string(), None)
        }
        Ok(Err(_)) => ("error".to_string(), None),
        Err(_) => ("timeout".to_string(), None),
    }
}

/// Creates a game from `from`, waiting a second after each refusal (rate limits), until
/// `deadline`: the created game's answer.
async fn create_patiently(
    addr: SocketAddr,
    from: Ipv4Addr,
    body: &str,
    deadline: Instant,
    statuses: &Mutex<Statuses>,
) -> Option<Value> {
    while Instant::now() < deadline {
        let outcome = request_from(addr, Some(from), "POST", "/api/games", body, Duration::from_secs(10)).await;
        count(statuses, &outcome);
        if let Ok((200, created)) = outcome {
            return Some(created);
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    None
}

/// The clients of one part of the benchmark, each on a task of its own, and the answers they got.
struct Clients<T> {
    /// One task per client.
    tasks: Vec<JoinHandle<T>>,
    /// What they were answered.
    statuses: Arc<Mutex<Statuses>>,
}

impl<T> Clients<T> {
    /// Waits for every client: what each returned (a task that failed is left out) and the
    /// answers they got.
    async fn join(self) -> (Vec<T>, Statuses) {
        let mut results = Vec::new();
        for task in self.tasks {
            if let Ok(result) = task.await {
                results.push(result);
            }
        }
        let statuses = self.statuses.lock().unwrap_or_else(|e| e.into_inner()).clone();
        (results, statuses)
    }
}

/// Runs every attack at once for [`AbuseSettings::duration`] while ordinary clients play, on
/// loopback only, and reports what the server did.
pub async fn abuse_benchmark(settings: AbuseSettings) -> Result<AbuseReport, BenchError> {
    raise_file_limit();
    let (target, addr) = server::start(&settings).await?;
    let pid = target.pid();

    // The ordinary players create their games first; the attacks and the clock start together.
    let start = Instant::now() + Duration::from_secs(2);
    let deadline = start + settings.duration;
    let tcp_memory_start = memory::tcp_memory_mib();
    let players = ordinary::start(addr, settings.players, settings.think, start, deadline);
    let victims = versus_computer::start(addr, settings.versus_computer, start, deadline);
    tokio::time::sleep(start.saturating_duration_since(Instant::now())).await;

    let probe = probe::start(addr, deadline);
    let thinkers = long_thinking::start(addr, settings.long_thinkers, deadline);
    let idlers = idle::start(addr, settings.idle, deadline);
    let hinters = hints::start(addr, settings.hints, deadline);
    let creators = creations::start(addr, settings.creations, deadline);
    let slow_readers = slow_readers::start(addr, settings.slow_readers, start, deadline).await;
    let per_address = per_address::start(addr, settings.per_address, deadline);
    let schedulers = scheduling::start(addr, settings.scheduling_games, deadline);

    // Memory, sampled while it all runs.
    let memory = memory::sample_until(&pid, tcp_memory_start, deadline).await;

    let mut report = AbuseReport {
        players: settings.players,
        tcp_memory_start_mib: tcp_memory_start,
        tcp_memory_peak_mib: memory.tcp_peak_mib,
        ..AbuseReport::default()
    };
    ordinary::finish(players, &mut report).await;
    creations::finish(creators, &mut report).await;
    versus_computer::finish(victims, &mut report).await;
    hints::finish(hinters, &mut report).await;
    long_thinking::finish(thinkers, &mut report).await;
    scheduling::finish(schedulers, &mut report).await;
    slow_readers::finish(slow_readers, &mut report).await;
    per_address::finish(per_address, &mut report).await;
    idle::finish(idlers, &mut report).await;
    // Probes sent just before the end may still be on their way.
    tokio::time::sleep(Duration::from_millis(200)).await;
    probe::finish(probe, start, deadline, &mut report).await;
    report.seconds = settings.duration.as_secs_f64();
    let (hwm, rss) = memory::memory_of(&pid);
    report.peak_memory_mib = memory.peak_mib.max(hwm);
    report.final_memory_mib = if rss > 0.0 { rss } else { memory.final_rss_mib };
    target.stop(&mut report).await;
    Ok(report)
}

/// Runs [`abuse_benchmark`] on a new multi-threaded runtime (for the command line).
pub fn abuse_benchmark_blocking(settings: AbuseSettings) -> Result<AbuseReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(abuse_benchmark(settings))
}
