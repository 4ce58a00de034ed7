//! The benchmarks behind `tabletop bench serve`, over loopback only, bounded in count and time.
//!
//! - [`load_benchmark`]: many games played at once by clients in the same process, each game
//!   watched by both seats' event streams (the delay from a move's acknowledgement to its event
//!   at the other seat), then a check that every acknowledged move is in the database (SQLite
//!   or PostgreSQL).
//! - [`load_benchmark_targets`]: the same against server processes already running on one
//!   shared database, each game's moves alternating between them and its events timed on another
//!   process than the one that took the move; then every game is read back from every process.
//! - [`abuse_benchmark`]: ordinary players move while attackers ask for hints, hold idle
//!   connections, create games in bulk, ask for the longest thinking, open event streams they
//!   never read (slow readers), open every connection one address can, and run many games
//!   against the computer from one address; it measures the server's peak memory, the kernel's
//!   TCP memory, the ordinary moves' latency, the computer's reply delay to ordinary people,
//!   what each attack was answered, and whether the server kept answering.

use std::collections::{BTreeMap, HashMap};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use tabletop_web::store::{Store, StoreError};

use crate::client::{open_connection, ClientError};
use crate::scenarios;

/// What the load benchmark measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LoadReport {
    /// Games played concurrently.
    pub games: usize,
    /// Server processes played against (1: the one in this process).
    pub servers: usize,
    /// Whether the event delays were measured on another process than the one taking the move.
    pub cross_process: bool,
    /// Moves acknowledged by the server.
    pub moves: usize,
    /// Wall-clock seconds of the playing phase (up to the last acknowledged move).
    pub seconds: f64,
    /// Acknowledged moves per second.
    pub moves_per_second: f64,
    /// Median latency of a move request, milliseconds.
    pub p50_ms: f64,
    /// 99th-percentile latency of a move request, milliseconds.
    pub p99_ms: f64,
    /// Acknowledged moves missing from the database afterwards, or different there (must be 0).
    pub lost: usize,
    /// Moves refused with 409, a version conflict (must be 0: each game has one client, which
    /// waits for each answer).
    pub refused: usize,
    /// Games stopped by another failure (an unexpected answer, a network error, an event stream
    /// that failed) or that could not be read back.
    pub errors: usize,
    /// The first of those failures, for diagnosis.
    pub first_error: Option<String>,
    /// Moves whose event reached the observing stream (the other seat's; with several servers,
    /// the one held on the next server).
    pub events: usize,
    /// Acknowledged moves whose event never reached the observing stream (must be 0).
    pub events_missing: usize,
    /// Median delay from a move's acknowledgement to its event at the observing stream,
    /// milliseconds (0 when the event came first).
    pub event_p50_ms: f64,
    /// 99th-percentile of that delay, milliseconds.
    pub event_p99_ms: f64,
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
    /// A target could not be understood or resolved.
    #[error("target {0}")]
    Target(String),
}

impl From<ClientError> for BenchError {
    fn from(err: ClientError) -> Self {
        match err {
            ClientError::Io(io) => BenchError::Io(io),
            ClientError::Protocol(what) => BenchError::Protocol(what),
        }
    }
}

/// One request on its own connection, from `from`, within `limit`: the status and JSON body.
async fn request_from(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    method: &str,
    path: &str,
    body: &str,
    limit: Duration,
) -> Result<(u16, Value), BenchError> {
    let answer = crate::client::request(addr, from, method, path, body, limit).await?;
    if answer.status == 0 {
        return Err(BenchError::Protocol(answer.head.chars().take(80).collect()));
    }
    Ok((answer.status, answer.body))
}

/// The strings of a JSON array.
fn strings(value: &Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(|m| m.as_str().map(String::from)).collect()
}

/// An event stream whose answer must be 200: each event's data with its arrival.
struct EventStream(crate::client::EventStream);

impl EventStream {
    async fn open(addr: SocketAddr, from: Option<Ipv4Addr>, path: &str) -> Result<Self, BenchError> {
        Ok(EventStream(crate::client::EventStream::open(addr, from, path).await?))
    }

    async fn next(&mut self) -> Result<(Value, Instant), BenchError> {
        let event = self.0.next().await;
        if self.0.status() != 200 && !self.0.head.is_empty() {
            return Err(BenchError::Protocol(format!("event stream: {}", self.0.head.lines().next().unwrap_or(""))));
        }
        let event = event?;
        Ok((event.data, event.at))
    }
}

/// Holds the event stream of one seat until `stop`; sends when connected, publishes the most
/// moves shown so far in `shown`, and returns when each move event arrived (by the number of
/// moves after it).
async fn watch_seat(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    path: String,
    ready: tokio::sync::oneshot::Sender<()>,
    shown: tokio::sync::watch::Sender<usize>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Result<HashMap<usize, Instant>, BenchError> {
    let mut stream = EventStream::open(addr, from, &path).await?;
    let mut ready = Some(ready);
    let mut arrivals = HashMap::new();
    loop {
        let next = tokio::select! {
            next = stream.next() => next?,
            _ = stop.changed() => return Ok(arrivals),
        };
        let (data, at) = next;
        if data["event"]["kind"] == "connected" {
            if let Some(ready) = ready.take() {
                let _ = ready.send(());
            }
        }
        if data["event"]["kind"] == "move" {
            let plies = data["moves"].as_array().map_or(0, Vec::len);
            arrivals.entry(plies).or_insert(at);
            shown.send_if_modified(|most| {
                let more = plies > *most;
                *most = (*most).max(plies);
                more
            });
        }
    }
}

/// When a stream first showed at least `plies` moves (another process may send one event for
/// several moves when it catches up).
fn shown_at(arrivals: &HashMap<usize, Instant>, plies: usize) -> Option<Instant> {
    arrivals.iter().filter(|&(&n, _)| n >= plies).map(|(_, &at)| at).min()
}

/// How long after its last move a game's streams may take to show it before the rest counts
/// as missing.
const EVENT_WAIT: Duration = Duration::from_secs(10);

/// One game as a client plays it: where it was created, where each move goes, where its event
/// streams are held.
struct GamePlan {
    /// The servers; the game is created on `targets[index % n]`, move `i` goes to
    /// `targets[i % n]`.
    targets: Arc<Vec<SocketAddr>>,
    /// The game's number (also its random seed).
    index: usize,
    /// The loopback address this game's client connects from (`None`: any).
    from: Option<Ipv4Addr>,
}

impl GamePlan {
    /// The server that move `ply` goes to.
    fn move_target(&self, ply: usize) -> usize {
        ply % self.targets.len().max(1)
    }

    /// Event streams held for the game: one per server, and at least one per seat. Stream `j`
    /// is held on server `j % n` with seat `j % 2`'s token.
    fn streams(&self) -> usize {
        self.targets.len().max(2)
    }

    /// The stream where the event of a move sent to server `target` by `seat` is timed: with
    /// several servers, the one held on the next server (another process); with one, the other
    /// seat's.
    fn observer(&self, target: usize, seat: usize) -> usize {
        let n = self.targets.len();
        if n > 1 {
            target.saturating_add(1) % n
        } else {
            1usize.saturating_sub(seat)
        }
    }
}

/// One game's results.
#[derive(Default)]
struct Played {
    /// The game's id (`None`: it could not be created).
    id: Option<String>,
    /// The acknowledged moves, in order.
    moves: Vec<String>,
    /// Each acknowledged move request's latency.
    latencies: Vec<Duration>,
    /// For each acknowledged move, the delay until its event at the observing stream (`None`:
    /// it never came).
    delays: Vec<Option<Duration>>,
    /// When the last move was acknowledged.
    last_ack: Option<Instant>,
    /// Moves refused with 409 (a version conflict).
    refused: usize,
    /// What went wrong otherwise (the game stopped there).
    error: Option<String>,
}

/// Plays one Slide game between two people's seats with random legal moves while event streams
/// are held on the servers; stops at the first refusal or error (counted, not returned).
async fn play_one(plan: GamePlan, deadline: Instant, max_moves: usize, think: Duration) -> Played {
    let mut played = Played::default();
    if let Err(error) = play_into(&plan, deadline, max_moves, think, &mut played).await {
        played.error = Some(error.to_string());
    }
    played
}

async fn play_into(
    plan: &GamePlan,
    deadline: Instant,
    max_moves: usize,
    think: Duration,
    played: &mut Played,
) -> Result<(), BenchError> {
    let targets = plan.targets.clone();
    let n = targets.len();
    let Some(&home) = targets.get(plan.index % n.max(1)) else {
        return Err(BenchError::Protocol("no server to play on".into()));
    };
    let limit = Duration::from_secs(60);
    let mut rng = ChaCha8Rng::seed_from_u64(plan.index as u64);
    let create = scenarios::load_game().to_string();
    let (status, created) = request_from(home, plan.from, "POST", "/api/games", &create, limit).await?;
    if status != 200 {
        return Err(BenchError::Protocol(format!("create answered {status}: {created}")));
    }
    let id = created["id"].as_str().unwrap_or_default().to_string();
    played.id = Some(id.clone());
    let tokens = strings(&created["tokens"]);
    if tokens.len() != 2 {
        return Err(BenchError::Protocol(format!("expected two tokens: {created}")));
    }
    // The streams, as the people's pages would hold them (here on every server).
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut watchers = Vec::new();
    let mut shown = Vec::new();
    for j in 0..plan.streams() {
        let (ready, connected) = tokio::sync::oneshot::channel();
        let (shows, seen) = tokio::sync::watch::channel(0usize);
        shown.push(seen);
        let token = &tokens[j % 2];
        let addr = targets[j % n];
        // A seat's stream opens with a single-use ticket asked of the server that serves it.
        let path = crate::client::events_path(addr, plan.from, &id, Some(token), limit).await?;
        watchers.push(tokio::spawn(watch_seat(addr, plan.from, path, ready, shows, stopped.clone())));
        if connected.await.is_err() {
            let _ = stop.send(true);
            let why = match watchers.pop() {
                Some(watcher) => match watcher.await {
                    Ok(Err(e)) => e.to_string(),
                    _ => "closed".to_string(),
                },
                None => "closed".to_string(),
            };
            return Err(BenchError::Protocol(format!("an event stream was not opened: {why}")));
        }
    }
    let mut state = created["state"].clone();
    let mut acked_at = Vec::new();
    let mut failure = None;
    while played.moves.len() < max_moves && Instant::now() < deadline {
        let Some(seat) = state["status"]["to_move"].as_u64().and_then(|s| usize::try_from(s).ok()) else { break };
        let legal = strings(&state["legal"]);
        let Some(mv) = legal.choose(&mut rng) else { break };
        let Some(token) = tokens.get(seat) else { break };
        // People do not move in step: each wait is drawn from half to one and a half times `think`.
        tokio::time::sleep(think.mul_f64(rng.gen_range(0.5..1.5))).await;
        let ply = played.moves.len();
        let target = plan.move_target(ply);
        let body = json!({"move": mv, "token": token, "ply": ply}).to_string();
        let started = Instant::now();
        let answer =
            request_from(targets[target], plan.from, "POST", &format!("/api/games/{id}/moves"), &body, limit).await;
        let now = Instant::now();
        match answer {
            Ok((200, next)) => {
                played.latencies.push(now.duration_since(started));
                played.moves.push(mv.clone());
                played.last_ack = Some(now);
                acked_at.push((plan.observer(target, seat), now));
                state = next;
            }
            Ok((409, answer)) => {
                played.refused = played.refused.saturating_add(1);
                failure = Some(format!("move {ply} on server {target} refused with 409: {answer}"));
                break;
            }
            Ok((status, answer)) => {
                failure = Some(format!("move {ply} on server {target} answered {status}: {answer}"));
                break;
            }
            Err(error) => {
                failure = Some(format!("move {ply} on server {target}: {error}"));
                break;
            }
        }
    }
    // Wait until every stream shows the last move (or [`EVENT_WAIT`] passed), then close them.
    let total = played.moves.len();
    let until = tokio::time::Instant::now() + EVENT_WAIT;
    for seen in &mut shown {
        let _ = tokio::time::timeout_at(until, seen.wait_for(|&most| most >= total)).await;
    }
    let _ = stop.send(true);
    let mut arrivals = Vec::new();
    for watcher in watchers {
        match watcher.await {
            Ok(Ok(seen)) => arrivals.push(seen),
            Ok(Err(error)) => {
                failure.get_or_insert_with(|| format!("event stream: {error}"));
                arrivals.push(HashMap::new());
            }
            Err(error) => {
                failure.get_or_insert_with(|| format!("event stream: {error}"));
                arrivals.push(HashMap::new());
            }
        }
    }
    played.delays = acked_at
        .iter()
        .enumerate()
        .map(|(ply, &(observer, at))| {
            let seen = arrivals.get(observer)?;
            shown_at(seen, ply.saturating_add(1)).map(|arrived| arrived.saturating_duration_since(at))
        })
        .collect();
    match failure {
        Some(failure) => Err(BenchError::Protocol(failure)),
        None => Ok(()),
    }
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

/// The value at fraction `p` of sorted `values`, in milliseconds (0 when empty).
fn percentile(values: &[Duration], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let last = values.len().saturating_sub(1);
    let index = ((values.len() as f64 * p) as usize).min(last);
    values[index].as_secs_f64() * 1000.0
}

/// Acknowledged moves of `acknowledged` that `stored` lacks or holds differently.
fn lost_moves(acknowledged: &[String], stored: &[String]) -> usize {
    acknowledged.iter().enumerate().filter(|&(i, mv)| stored.get(i) != Some(mv)).count()
}

/// Plays the games of `settings` on `targets` and sums up what the clients saw (the lost moves
/// are left for the caller to count).
async fn play_all(settings: LoadSettings, targets: Vec<SocketAddr>, own_addresses: bool) -> (Vec<Played>, LoadReport) {
    let LoadSettings { games, max_moves, max_time, think } = settings;
    let targets = Arc::new(targets);
    let started = Instant::now();
    let deadline = started + max_time;
    let clients: Vec<_> = (0..games)
        .map(|index| {
            let from = own_addresses.then(|| client_ip(6, index));
            let plan = GamePlan { targets: targets.clone(), index, from };
            tokio::spawn(play_one(plan, deadline, max_moves, think))
        })
        .collect();
    let mut played = Vec::new();
    let mut report = LoadReport {
        games,
        servers: targets.len(),
        cross_process: targets.len() > 1,
        moves: 0,
        seconds: 0.0,
        moves_per_second: 0.0,
        p50_ms: 0.0,
        p99_ms: 0.0,
        lost: 0,
        refused: 0,
        errors: 0,
        first_error: None,
        events: 0,
        events_missing: 0,
        event_p50_ms: 0.0,
        event_p99_ms: 0.0,
    };
    let mut latencies = Vec::new();
    let mut delays = Vec::new();
    let mut last_ack = started;
    for client in clients {
        let game = match client.await {
            Ok(game) => game,
            Err(error) => Played { error: Some(error.to_string()), ..Played::default() },
        };
        latencies.extend(game.latencies.iter().copied());
        last_ack = last_ack.max(game.last_ack.unwrap_or(started));
        for delay in &game.delays {
            match delay {
                Some(delay) => delays.push(*delay),
                None => report.events_missing = report.events_missing.saturating_add(1),
            }
        }
        report.refused = report.refused.saturating_add(game.refused);
        if let Some(error) = &game.error {
            report.errors = report.errors.saturating_add(1);
            report.first_error.get_or_insert_with(|| error.clone());
        }
        played.push(game);
    }
    // The playing phase ends with the last acknowledged move (not with the wait for its events).
    report.seconds = last_ack.saturating_duration_since(started).as_secs_f64();
    latencies.sort();
    delays.sort();
    report.moves = latencies.len();
    report.moves_per_second = report.moves as f64 / report.seconds.max(f64::MIN_POSITIVE);
    report.p50_ms = percentile(&latencies, 0.50);
    report.p99_ms = percentile(&latencies, 0.99);
    report.events = delays.len();
    report.event_p50_ms = percentile(&delays, 0.50);
    report.event_p99_ms = percentile(&delays, 0.99);
    (played, report)
}

/// Plays [`LoadSettings::games`] games at once against a server started in this process on a
/// free loopback port, then checks that the database holds every acknowledged move.
///
/// `db` is what `tabletop serve --db` takes: a SQLite file (the command line gives a temporary
/// one) or a PostgreSQL URL (`postgres://USER@HOST/DB`), read back through a fresh connection.
pub async fn load_benchmark(settings: LoadSettings, db: &Path) -> Result<LoadReport, BenchError> {
    raise_file_limit();
    // One client creates every game: lift the per-client limits for the benchmark.
    let config = tabletop_web::ServeConfig {
        addr: std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.to_path_buf(),
        create_rate: 1_000_000,
        hint_rate: 1_000_000,
        move_rate: 1_000_000,
        max_open_games_per_address: 1_000_000,
        // Every simulated client comes from this one address: the per-address caps would
        // measure themselves, not the server's throughput.
        max_connections_per_address: 1_000_000,
        max_streams_per_address: 1_000_000,
        ..tabletop_web::ServeConfig::default()
    };
    let database = config.database();
    let server = tabletop_web::start(config).await.map_err(|e| BenchError::Protocol(e.to_string()))?;
    let (played, mut report) = play_all(settings, vec![server.addr], false).await;
    server.shutdown().await;
    // Every acknowledged move must be in the database, read back through a fresh connection.
    let store = Store::open(&database).await?;
    for game in &played {
        let Some(id) = &game.id else { continue };
        let stored = store.load(id).await?.map(|g| g.moves).unwrap_or_default();
        report.lost = report.lost.saturating_add(lost_moves(&game.moves, &stored));
    }
    Ok(report)
}

/// Plays [`LoadSettings::games`] games at once across servers already running (`tabletop
/// serve` processes sharing one database): game `k` is created on `targets[k % n]`, its move
/// `i` goes to `targets[i % n]`, and an event stream is held for it on every server; a move's
/// event is timed on the stream of the next server (`(i + 1) % n`), so with two servers or more
/// every event delay measured crosses processes. Afterwards every game is read back from every
/// server (`GET /api/games/{id}`): an acknowledged move missing or different in any of them
/// counts as lost, and so does every move of a game that could not be read back (counted as an
/// error too).
///
/// On loopback targets each game's client connects from its own address (`127.6.x.y`), so the
/// servers' per-client limits (games created per minute) hold for each game, not for the
/// benchmark as a whole.
pub async fn load_benchmark_targets(settings: LoadSettings, targets: &[SocketAddr]) -> Result<LoadReport, BenchError> {
    if targets.is_empty() {
        return Err(BenchError::Protocol("no target given".into()));
    }
    raise_file_limit();
    let own_addresses = targets.iter().all(|t| t.ip().is_loopback());
    let (played, mut report) = play_all(settings, targets.to_vec(), own_addresses).await;
    let targets = Arc::new(targets.to_vec());
    let checks: Vec<_> = played
        .into_iter()
        .enumerate()
        .filter_map(|(index, game)| {
            let id = game.id?;
            let targets = targets.clone();
            let from = own_addresses.then(|| client_ip(6, index));
            Some(tokio::spawn(async move {
                let mut lost = 0usize;
                let mut error = None;
                for (t, &addr) in targets.iter().enumerate() {
                    let path = format!("/api/games/{id}");
                    match request_from(addr, from, "GET", &path, "", Duration::from_secs(60)).await {
                        Ok((200, state)) => lost = lost.max(lost_moves(&game.moves, &strings(&state["moves"]))),
                        outcome => {
                            lost = game.moves.len();
                            let why = match outcome {
                                Ok((status, answer)) => format!("answered {status}: {answer}"),
                                Err(e) => e.to_string(),
                            };
                            error.get_or_insert(format!("reading back game {id} from server {t}: {why}"));
                        }
                    }
                }
                (lost, error)
            }))
        })
        .collect();
    for check in checks {
        let (lost, error) = check.await.unwrap_or_else(|e| (0, Some(e.to_string())));
        report.lost = report.lost.saturating_add(lost);
        if let Some(error) = error {
            report.errors = report.errors.saturating_add(1);
            report.first_error.get_or_insert(error);
        }
    }
    Ok(report)
}

/// The socket address of a target given as `http://HOST:PORT` (a path after it is ignored) or
/// `HOST:PORT`.
///
/// ```
/// use tabletop_client::bench::target_addr;
/// assert_eq!(target_addr("http://127.0.0.1:8080/").unwrap().port(), 8080);
/// assert_eq!(target_addr("127.0.0.1:9000").unwrap().port(), 9000);
/// assert!(target_addr("https://example.org").is_err());
/// ```
pub fn target_addr(url: &str) -> Result<SocketAddr, BenchError> {
    use std::net::ToSocketAddrs;
    let url = url.trim();
    if url.contains("://") && !url.starts_with("http://") {
        return Err(BenchError::Target(format!("{url}: only http:// targets are supported")));
    }
    let host = url.strip_prefix("http://").unwrap_or(url);
    let host = host.split('/').next().unwrap_or(host);
    host.to_socket_addrs()
        .map_err(|e| BenchError::Target(format!("{url}: {e}")))?
        .next()
        .ok_or_else(|| BenchError::Target(format!("{url}: no address")))
}

/// Runs [`load_benchmark`] on a new multi-threaded runtime (for the command line).
pub fn load_benchmark_blocking(settings: LoadSettings, db: &Path) -> Result<LoadReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(load_benchmark(settings, db))
}

/// Runs [`load_benchmark_targets`] on a new multi-threaded runtime (for the command line).
pub fn load_benchmark_targets_blocking(
    settings: LoadSettings,
    targets: &[SocketAddr],
) -> Result<LoadReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(load_benchmark_targets(settings, targets))
}

/// Many connections need many file descriptors: raise the soft limit to the hard one.
fn raise_file_limit() {
    let _ = rlimit::increase_nofile_limit(u64::MAX);
}

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

fn count(statuses: &Mutex<Statuses>, outcome: &Result<(u16, Value), BenchError>) {
    let key = match outcome {
        Ok((status, _)) => status.to_string(),
        Err(BenchError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => "timeout".to_string(),
        Err(_) => "error".to_string(),
    };
    let mut statuses = statuses.lock().unwrap_or_else(|e| e.into_inner());
    let entry = statuses.entry(key).or_insert(0);
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

/// The kernel's TCP memory, MiB: `/proc/net/sockstat`'s `TCP: ... mem N` (pages of 4 KiB).
fn tcp_memory_mib() -> f64 {
    let text = std::fs::read_to_string("/proc/net/sockstat").unwrap_or_default();
    let pages = text
        .lines()
        .find(|l| l.starts_with("TCP:"))
        .and_then(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.iter().position(|w| *w == "mem").and_then(|i| words.get(i + 1)).and_then(|n| n.parse::<f64>().ok())
        })
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
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

fn tally(statuses: &Mutex<Statuses>, key: &str) {
    let mut statuses = statuses.lock().unwrap_or_else(|e| e.into_inner());
    let entry = statuses.entry(key.to_string()).or_insert(0);
    *entry = entry.saturating_add(1);
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

/// VmHWM and VmRSS of a process, in MiB.
fn memory_of(pid: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// The loopback address `127.b.c.d` of simulated client `index` in group `b`.
fn client_ip(group: u8, index: usize) -> Ipv4Addr {
    let index = index.saturating_add(1);
    Ipv4Addr::new(127, group, (index / 250) as u8, (index % 250) as u8 + 1)
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

/// One attacker: a game against the computer where it holds the seat to move, then hints as
/// fast as they are answered (a short pause after a refusal) until `deadline`.
async fn hint_attacker(addr: SocketAddr, from: Ipv4Addr, deadline: Instant, statuses: Arc<Mutex<Statuses>>) {
    let limit = Duration::from_secs(30);
    let create = scenarios::versus_quick_computer().to_string();
    let Ok((200, created)) = request_from(addr, Some(from), "POST", "/api/games", &create, limit).await else {
        let mut s = statuses.lock().unwrap_or_else(|e| e.into_inner());
        let entry = s.entry("no game".into()).or_insert(0);
        *entry = entry.saturating_add(1);
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

/// Idle connections: opened and held, sending nothing, reopened when the server closes them (a
/// second later when it closed one at once).
/// Returns (opened, closed by the server, failed, how long each closed one was held).
async fn idle_holder(addr: SocketAddr, from: Ipv4Addr, deadline: Instant) -> (u64, u64, u64, Vec<Duration>) {
    let (mut opened, mut closed, mut failed, mut held) = (0u64, 0u64, 0u64, Vec::new());
    while Instant::now() < deadline {
        let Ok(Ok(mut stream)) = tokio::time::timeout(Duration::from_secs(5), open_connection(addr, Some(from))).await
        else {
            failed = failed.saturating_add(1);
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        opened = opened.saturating_add(1);
        let since = Instant::now();
        let mut buffer = [0u8; 512];
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_) => break, // still open at the end
            Ok(_) => {
                closed = closed.saturating_add(1);
                held.push(since.elapsed());
                // Refused at once (a cap per address): without a pause, 2,000 holders reopen
                // some 18,000 connections a second and the benchmark measures its own loop on
                // the cores it shares with the server.
                if since.elapsed() < Duration::from_secs(1) {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
    (opened, closed, failed, held)
}

/// A seat asking for long thinking: a game (`create`, the person at seat `person`) where the
/// computer (`engine:time=10s` for the longest) moves first; whenever the person is to move it
/// moves at once, so the computer thinks again. A refused creation is tried again a second
/// later. Returns the computer moves seen.
async fn long_thinker(
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

/// The server under attack: a child process or one in this process.
enum Target {
    Child(std::process::Child, PathBuf),
    InProcess(tabletop_web::RunningServer),
}

fn start_child(exe: &Path, db: &Path) -> Result<(std::process::Child, SocketAddr, PathBuf), BenchError> {
    use std::io::BufRead;
    let log = db.with_extension("log");
    let log_file = std::fs::File::create(&log)?;
    let mut child = std::process::Command::new(exe)
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db)
        .stdout(std::process::Stdio::piped())
        .stderr(log_file)
        .spawn()?;
    let mut line = String::new();
    if let Some(stdout) = child.stdout.take() {
        std::io::BufReader::new(stdout).read_line(&mut line)?;
    }
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| BenchError::Protocol(format!("the server did not start: {line:?}")));
    match addr {
        Ok(addr) => Ok((child, addr, log)),
        Err(err) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(err)
        }
    }
}

/// Runs every attack at once for [`AbuseSettings::duration`] while ordinary clients play, on
/// loopback only, and reports what the server did.
pub async fn abuse_benchmark(settings: AbuseSettings) -> Result<AbuseReport, BenchError> {
    raise_file_limit();
    let (target, addr) = match &settings.server_exe {
        Some(exe) => {
            let (child, addr, log) = start_child(exe, &settings.db)?;
            (Target::Child(child, log), addr)
        }
        None => {
            // The defaults of `tabletop serve`, on a free port and a temporary database.
            let config = tabletop_web::ServeConfig {
                addr: SocketAddr::from(([127, 0, 0, 1], 0)),
                db: settings.db.clone(),
                ..tabletop_web::ServeConfig::default()
            };
            let server = tabletop_web::start(config).await.map_err(|e| BenchError::Protocol(e.to_string()))?;
            let addr = server.addr;
            (Target::InProcess(server), addr)
        }
    };
    let pid = match &target {
        Target::Child(child, _) => child.id().to_string(),
        Target::InProcess(_) => "self".to_string(),
    };

    // The ordinary players create their games first; the attacks and the clock start together.
    let start = Instant::now() + Duration::from_secs(2);
    let deadline = start + settings.duration;
    let tcp_memory_start = tcp_memory_mib();
    let move_statuses = Arc::new(Mutex::new(Statuses::new()));
    let players: Vec<_> = (0..settings.players)
        .map(|i| {
            let statuses = move_statuses.clone();
            tokio::spawn(ordinary_player(addr, client_ip(1, i), i as u64, start, deadline, settings.think, statuses))
        })
        .collect();
    let victims: Vec<_> = (0..settings.versus_computer)
        .map(|i| tokio::spawn(versus_computer(addr, client_ip(5, i), start, deadline)))
        .collect();
    tokio::time::sleep(start.saturating_duration_since(Instant::now())).await;

    // Health probe: every 100 ms, each probe on its own task.
    let probe_log = Arc::new(Mutex::new(Vec::<(Instant, Option<Duration>)>::new()));
    let probe = {
        let probe_log = probe_log.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            let mut sent = 0u64;
            while Instant::now() < deadline {
                tick.tick().await;
                sent = sent.saturating_add(1);
                let probe_log = probe_log.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let outcome = request_from(addr, None, "GET", "/api/lobby", "", Duration::from_secs(5)).await;
                    let took = matches!(outcome, Ok((200, _))).then(|| started.elapsed());
                    probe_log.lock().unwrap_or_else(|e| e.into_inner()).push((Instant::now(), took));
                });
            }
            sent
        })
    };

    // 20 seats asking for the longest thinking, each from its own address.
    let long_statuses = Arc::new(Mutex::new(Statuses::new()));
    let thinkers: Vec<_> = (0..settings.long_thinkers)
        .map(|i| {
            let create = scenarios::longest_thinking(i);
            tokio::spawn(long_thinker(addr, client_ip(4, i), create, deadline, long_statuses.clone()))
        })
        .collect();

    // 2,000 idle connections from one address.
    let idlers: Vec<_> =
        (0..settings.idle).map(|_| tokio::spawn(idle_holder(addr, Ipv4Addr::new(127, 0, 0, 3), deadline))).collect();

    // 150 hint requesters, each from its own address (so that the engine pool, not only the
    // per-client limit, is what holds).
    let hint_statuses = Arc::new(Mutex::new(Statuses::new()));
    let hinters: Vec<_> = (0..settings.hints)
        .map(|i| tokio::spawn(hint_attacker(addr, client_ip(2, i), deadline, hint_statuses.clone())))
        .collect();

    // 10,000 game creations from one client, 16 at a time.
    let create_statuses = Arc::new(Mutex::new(Statuses::new()));
    let creations = settings.creations;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let creators: Vec<_> = (0..16)
        .map(|_| {
            let (statuses, next) = (create_statuses.clone(), next.clone());
            tokio::spawn(async move {
                let body = scenarios::versus_default_computer().to_string();
                while Instant::now() < deadline && next.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < creations {
                    let from = Some(Ipv4Addr::new(127, 0, 0, 2));
                    let outcome = request_from(addr, from, "POST", "/api/games", &body, Duration::from_secs(10)).await;
                    count(&statuses, &outcome);
                }
            })
        })
        .collect();

    // Slow readers: event streams on one long game, each from its own address, that never read
    // while the game's moves are played.
    let slow_statuses = Arc::new(Mutex::new(Statuses::new()));
    let (slow_readers, slow_mover) = if settings.slow_readers > 0 {
        let from = client_ip(7, 0);
        let body = scenarios::long_game().to_string();
        match create_patiently(addr, from, &body, deadline, &Mutex::new(Statuses::new())).await {
            Some(created) => {
                let id = created["id"].as_str().unwrap_or_default().to_string();
                let path = format!("/api/games/{id}/events");
                let readers: Vec<_> = (0..settings.slow_readers)
                    .map(|i| {
                        tokio::spawn(slow_reader(addr, client_ip(6, i), path.clone(), deadline, slow_statuses.clone()))
                    })
                    .collect();
                let tokens = strings(&created["tokens"]);
                let pace = Duration::from_millis(100);
                let mover = tokio::spawn(long_game_mover(addr, from, id, tokens, start, deadline, pace));
                (readers, Some(mover))
            }
            None => (Vec::new(), None),
        }
    } else {
        (Vec::new(), None)
    };

    // One address opening every event stream it can.
    let per_address_statuses = Arc::new(Mutex::new(Statuses::new()));
    let per_address = tokio::spawn(per_address_attacker(
        addr,
        Ipv4Addr::new(127, 0, 0, 9),
        settings.per_address,
        deadline,
        per_address_statuses.clone(),
    ));

    // One address running many games against a computer thinking a second a move.
    let scheduling_statuses = Arc::new(Mutex::new(Statuses::new()));
    let schedulers: Vec<_> = (0..settings.scheduling_games)
        .map(|_| {
            let from = Ipv4Addr::new(127, 0, 0, 10);
            tokio::spawn(long_thinker(addr, from, scenarios::second_a_move(), deadline, scheduling_statuses.clone()))
        })
        .collect();

    // Memory, sampled while it all runs.
    let mut final_rss = 0.0;
    let mut peak = 0.0f64;
    let mut tcp_peak = tcp_memory_start;
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (hwm, rss) = memory_of(&pid);
        peak = peak.max(hwm);
        final_rss = rss;
        tcp_peak = tcp_peak.max(tcp_memory_mib());
    }

    let mut report = AbuseReport {
        players: settings.players,
        tcp_memory_start_mib: tcp_memory_start,
        tcp_memory_peak_mib: tcp_peak,
        ..AbuseReport::default()
    };
    let mut latencies = Vec::new();
    for player in players {
        latencies.extend(player.await.unwrap_or_default());
    }
    for creator in creators {
        let _ = creator.await;
    }
    let mut replies = Vec::new();
    for victim in victims {
        if let Ok((times, awaited)) = victim.await {
            replies.extend(times);
            if let Some(waited) = awaited {
                report.computer_replies_awaited = report.computer_replies_awaited.saturating_add(1);
                report.computer_reply_max_ms = report.computer_reply_max_ms.max(waited.as_secs_f64() * 1000.0);
            }
        }
    }
    replies.sort();
    report.computer_replies = replies.len();
    report.computer_reply_p50_ms = percentile(&replies, 0.5);
    report.computer_reply_p99_ms = percentile(&replies, 0.99);
    if let Some(slowest) = replies.last() {
        report.computer_reply_max_ms = report.computer_reply_max_ms.max(slowest.as_secs_f64() * 1000.0);
    }
    for hinter in hinters {
        let _ = hinter.await;
    }
    for thinker in thinkers {
        report.long_think_computer_moves =
            report.long_think_computer_moves.saturating_add(thinker.await.unwrap_or_default());
    }
    for scheduler in schedulers {
        report.scheduling_computer_moves =
            report.scheduling_computer_moves.saturating_add(scheduler.await.unwrap_or_default());
    }
    for reader in slow_readers {
        if reader.await.unwrap_or(false) {
            report.slow_readers_closed_by_server = report.slow_readers_closed_by_server.saturating_add(1);
        }
    }
    if let Some(mover) = slow_mover {
        report.slow_game_moves = mover.await.unwrap_or_default();
    }
    let _ = per_address.await;
    let mut held = Vec::new();
    for idler in idlers {
        if let Ok((opened, closed, failed, times)) = idler.await {
            report.idle_opened = report.idle_opened.saturating_add(opened);
            report.idle_closed_by_server = report.idle_closed_by_server.saturating_add(closed);
            report.idle_failed = report.idle_failed.saturating_add(failed);
            held.extend(times);
        }
    }
    report.probes = probe.await.unwrap_or_default();
    tokio::time::sleep(Duration::from_millis(200)).await;
    report.seconds = settings.duration.as_secs_f64();
    let (hwm, rss) = memory_of(&pid);
    report.peak_memory_mib = peak.max(hwm);
    report.final_memory_mib = if rss > 0.0 { rss } else { final_rss };

    latencies.sort();
    held.sort();
    report.moves = latencies.len();
    report.move_p50_ms = percentile(&latencies, 0.50);
    report.move_p99_ms = percentile(&latencies, 0.99);
    report.move_max_ms = latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    report.idle_held_p50_s = percentile(&held, 0.50) / 1000.0;
    let take = |m: &Arc<Mutex<Statuses>>| m.lock().unwrap_or_else(|e| e.into_inner()).clone();
    report.move_statuses = take(&move_statuses);
    report.hint_statuses = take(&hint_statuses);
    report.create_statuses = take(&create_statuses);
    report.long_think_create_statuses = take(&long_statuses);
    report.slow_reader_statuses = take(&slow_statuses);
    report.per_address_statuses = take(&per_address_statuses);
    report.scheduling_create_statuses = take(&scheduling_statuses);

    let mut probes = probe_log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    probes.sort_by_key(|(at, _)| *at);
    let mut answered: Vec<Duration> = probes.iter().filter_map(|(_, took)| *took).collect();
    answered.sort();
    report.probe_p99_ms = percentile(&answered, 0.99);
    let mut last_ok = start;
    let mut max_gap = Duration::ZERO;
    for (at, took) in &probes {
        if let Some(took) = took {
            report.probes_ok = report.probes_ok.saturating_add(1);
            report.probe_max_ms = report.probe_max_ms.max(took.as_secs_f64() * 1000.0);
            max_gap = max_gap.max(at.saturating_duration_since(last_ok));
            last_ok = *at;
        }
    }
    max_gap = max_gap.max(deadline.saturating_duration_since(last_ok));
    report.probe_max_gap_ms = max_gap.as_secs_f64() * 1000.0;

    match target {
        Target::Child(mut child, log) => {
            report.server = format!("child process {pid}");
            report.server_alive = matches!(child.try_wait(), Ok(None));
            let _ = child.kill();
            let _ = child.wait();
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            report.log_errors = text.lines().filter(|l| l.contains("ERROR")).count() as u64;
        }
        Target::InProcess(server) => {
            report.server = "in process (memory of the whole benchmark)".to_string();
            report.server_alive = true;
            server.shutdown().await;
        }
    }
    Ok(report)
}

/// Runs [`abuse_benchmark`] on a new multi-threaded runtime (for the command line).
pub fn abuse_benchmark_blocking(settings: AbuseSettings) -> Result<AbuseReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(abuse_benchmark(settings))
}
