//! The load benchmarks: [`load_benchmark`] (a server in this process, then the database read
//! back) and [`load_benchmark_targets`] (servers already running on one database, events timed
//! across processes, every game read back from every server). Each game is played by its own
//! client ([`play_one`]) while its seats' event streams are held ([`watch_seat`]).

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use tabletop_web::store::Store;

use super::{client_ip, percentile, raise_file_limit, request_from, strings, BenchError};
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
        move_burst: 1_000_000,
        seek_rate: 1_000_000,
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
