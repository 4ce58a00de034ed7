//! The accounts benchmark ([`accounts_benchmark`]): logged-in people, as a server with its
//! default limits sees them. Every simulated person connects from a loopback address of its
//! own (`127.7.x.y`), so the server's per-address limits (sign-ups among them) hold for each
//! person as they would on the Internet, and nothing in the server is loosened for the
//! benchmark: it runs `ServeConfig::default()` but for its port and database.
//!
//! 1. Every person signs up, then logs in (all at once: the password hashing is the cost; a
//!    503 from a server whose hashing is full is retried after its `Retry-After`, as a page
//!    would, and the latency counts from the first attempt).
//! 2. People pair off: one creates a rated game with a clock and an open seat, the other joins
//!    it; both hold their seat's event stream.
//! 3. Each game is played with random legal moves, each person waiting about `think` before a
//!    move, until it ends, its moves run out or the time does; a game still going is resigned,
//!    so that every game ends and its ratings change.
//! 4. Every game is read back: it must be over, rated, with its rating changes stored.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use super::{client_ip, percentile, raise_file_limit, strings, BenchError};
use crate::scenarios;

/// How the accounts benchmark runs.
#[derive(Clone, Debug)]
pub struct AccountsSettings {
    /// People (accounts) at once; they play in pairs (an odd one out sits out).
    pub accounts: usize,
    /// Moves per game at most.
    pub max_moves: usize,
    /// Time for the playing phase at most.
    pub max_time: Duration,
    /// What each person waits before a move on average.
    pub think: Duration,
    /// The games' time control (rated games need one).
    pub clock: String,
}

/// What the accounts benchmark measured.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AccountsReport {
    /// Accounts made and logged in.
    pub accounts: usize,
    /// Rated games played at once.
    pub games: usize,
    /// Sign-ups: median and 99th-percentile latency, milliseconds (all at once).
    pub signup_p50_ms: f64,
    /// See `signup_p50_ms`.
    pub signup_p99_ms: f64,
    /// Logins: median and 99th-percentile latency, milliseconds (all at once).
    pub login_p50_ms: f64,
    /// See `login_p50_ms`.
    pub login_p99_ms: f64,
    /// Seconds from the first sign-up to the last login.
    pub login_phase_seconds: f64,
    /// Moves acknowledged.
    pub moves: usize,
    /// Wall-clock seconds of the playing phase (up to the last acknowledged move).
    pub seconds: f64,
    /// Acknowledged moves per second.
    pub moves_per_second: f64,
    /// Median latency of a move request, milliseconds.
    pub p50_ms: f64,
    /// 99th-percentile latency of a move request, milliseconds.
    pub p99_ms: f64,
    /// Games read back over, rated, with both rating changes stored.
    pub rated_games_ended: usize,
    /// Requests refused with 429 (must be 0: people at a person's pace stay within the limits).
    pub limited: usize,
    /// Games or people stopped by another failure.
    pub errors: usize,
    /// The first failure, for diagnosis.
    pub first_error: Option<String>,
}

/// One request from `from` with the login cookie `login`, as the page sends it: the status,
/// the JSON body, and the login cookie the answer sets (if it sets one).
async fn page_request(
    addr: SocketAddr,
    from: Ipv4Addr,
    method: &str,
    path: &str,
    body: &str,
    login: Option<&str>,
) -> Result<(u16, Value, Option<String>), BenchError> {
    let cookie = login.map_or_else(String::new, |t| format!("Cookie: tabletop_session={t}\r\n"));
    let bytes = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nOrigin: http://{addr}\r\nSec-Fetch-Site: same-origin\r\n{cookie}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let answer = crate::client::exchange(addr, Some(from), bytes.as_bytes(), Duration::from_secs(120)).await?;
    if answer.status == 0 {
        return Err(BenchError::Protocol(answer.head.chars().take(80).collect()));
    }
    let set = answer
        .header("set-cookie")
        .and_then(|c| c.split_once('=').map(|(_, rest)| rest.split(';').next().unwrap_or("").to_string()));
    Ok((answer.status, answer.body, set))
}

/// A person: the address it connects from and its login cookie.
#[derive(Clone)]
struct Person {
    from: Ipv4Addr,
    login: String,
}

/// An account request that a busy server may shed (503 while its password hashing is full, as
/// at 400 logins at once): retried after `Retry-After` (2 s) with a little jitter, as a page
/// would, until `RETRIES` answers came back busy. The latency is from the first attempt.
async fn with_retries(
    addr: SocketAddr,
    from: Ipv4Addr,
    path: &str,
    body: &str,
    index: usize,
) -> Result<(u16, Value, Option<String>, Duration), BenchError> {
    const RETRIES: usize = 100;
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(index as u64);
    for _ in 0..RETRIES {
        let (status, body, login) = page_request(addr, from, "POST", path, body, None).await?;
        if status != 503 {
            return Ok((status, body, login, started.elapsed()));
        }
        tokio::time::sleep(Duration::from_millis(2000 + rng.gen_range(0..1000))).await;
    }
    Err(BenchError::Protocol(format!("{path}: still busy after {RETRIES} attempts")))
}

/// Signs person `index` up, then logs it in: the person, and both latencies.
async fn sign_up_and_log_in(
    addr: SocketAddr,
    index: usize,
    run: &str,
) -> Result<(Person, Duration, Duration), BenchError> {
    let from = client_ip(7, index);
    let credentials =
        json!({"name": format!("b{run}{index}"), "password": format!("bench password {index}")}).to_string();
    let (status, body, _, signup) = with_retries(addr, from, "/api/account/signup", &credentials, index).await?;
    if status != 200 {
        return Err(BenchError::Protocol(format!("sign-up answered {status}: {body}")));
    }
    let (status, body, login, logged) = with_retries(addr, from, "/api/account/login", &credentials, index).await?;
    match (status, login) {
        (200, Some(login)) if !login.is_empty() => Ok((Person { from, login }, signup, logged)),
        _ => Err(BenchError::Protocol(format!("login answered {status}: {body}"))),
    }
}

/// One game's results.
#[derive(Default)]
struct Played {
    id: Option<String>,
    latencies: Vec<Duration>,
    last_ack: Option<Instant>,
    limited: usize,
    error: Option<String>,
}

/// Holds an event stream until `stop` (what a person's page does), reading what comes.
async fn hold_stream(addr: SocketAddr, from: Ipv4Addr, path: String, mut stop: tokio::sync::watch::Receiver<bool>) {
    let Ok(mut stream) = crate::client::EventStream::open(addr, Some(from), &path).await else { return };
    loop {
        tokio::select! {
            next = stream.next() => {
                if next.is_err() {
                    return;
                }
            }
            _ = stop.changed() => return,
        }
    }
}

/// People `pair` play one rated game: the first creates it, the second joins; moves until it
/// ends, the moves or the time run out; a game still going is resigned.
async fn play_pair(
    addr: SocketAddr,
    pair: [Person; 2],
    index: usize,
    settings: Arc<AccountsSettings>,
    deadline: Instant,
) -> Played {
    let mut played = Played::default();
    if let Err(error) = play_into(addr, &pair, index, &settings, deadline, &mut played).await {
        played.error = Some(error.to_string());
    }
    played
}

async fn play_into(
    addr: SocketAddr,
    pair: &[Person; 2],
    index: usize,
    settings: &AccountsSettings,
    deadline: Instant,
    played: &mut Played,
) -> Result<(), BenchError> {
    let mut rng = ChaCha8Rng::seed_from_u64(index as u64);
    let mut body = scenarios::load_game();
    body["seats"] = json!(["human", "open"]);
    body["clock"] = json!(settings.clock);
    body["rated"] = json!(true);
    let [first, second] = pair;
    let (status, created, _) =
        page_request(addr, first.from, "POST", "/api/games", &body.to_string(), Some(&first.login)).await?;
    if status != 200 {
        played.limited += usize::from(status == 429);
        return Err(BenchError::Protocol(format!("create answered {status}: {created}")));
    }
    let id = created["id"].as_str().unwrap_or_default().to_string();
    played.id = Some(id.clone());
    let (status, joined, _) =
        page_request(addr, second.from, "POST", &format!("/api/games/{id}/join"), "{}", Some(&second.login)).await?;
    if status != 200 {
        played.limited += usize::from(status == 429);
        return Err(BenchError::Protocol(format!("join answered {status}: {joined}")));
    }
    let tokens = [
        created["tokens"][0].as_str().unwrap_or_default().to_string(),
        joined["token"].as_str().unwrap_or_default().to_string(),
    ];
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut streams = Vec::new();
    for (seat, person) in pair.iter().enumerate() {
        let path =
            crate::client::events_path(addr, Some(person.from), &id, Some(&tokens[seat]), Duration::from_secs(60))
                .await?;
        streams.push(tokio::spawn(hold_stream(addr, person.from, path, stopped.clone())));
    }
    let mut state = joined["state"].clone();
    let mut moves = 0;
    let mut failure = None;
    while moves < settings.max_moves && Instant::now() < deadline {
        let Some(seat) = state["status"]["to_move"].as_u64().and_then(|s| usize::try_from(s).ok()) else { break };
        let (Some(person), Some(token)) = (pair.get(seat), tokens.get(seat)) else { break };
        // The state answered is the other seat's view after a move: ask for the mover's legal moves.
        let view = crate::client::state_as(addr, Some(person.from), &id, Some(token), Duration::from_secs(60)).await?;
        let legal = strings(&view.body["legal"]);
        let Some(mv) = legal.choose(&mut rng) else { break };
        tokio::time::sleep(settings.think.mul_f64(rng.gen_range(0.5..1.5))).await;
        let body = json!({"move": mv, "token": token, "ply": moves}).to_string();
        let started = Instant::now();
        let answer = page_request(addr, person.from, "POST", &format!("/api/games/{id}/moves"), &body, None).await;
        let now = Instant::now();
        match answer {
            Ok((200, next, _)) => {
                played.latencies.push(now.duration_since(started));
                played.last_ack = Some(now);
                moves += 1;
                state = next;
            }
            Ok((status, answer, _)) => {
                played.limited += usize::from(status == 429);
                failure = Some(format!("move {moves} answered {status}: {answer}"));
                break;
            }
            Err(error) => {
                failure = Some(format!("move {moves}: {error}"));
                break;
            }
        }
    }
    if failure.is_none() && !state["status"]["over"].as_bool().unwrap_or(false) {
        let token = json!({"token": tokens[1]}).to_string();
        let (status, answer, _) =
            page_request(addr, second.from, "POST", &format!("/api/games/{id}/resign"), &token, None).await?;
        if status != 200 {
            failure = Some(format!("resign answered {status}: {answer}"));
        }
    }
    let _ = stop.send(true);
    for stream in streams {
        let _ = stream.await;
    }
    match failure {
        Some(failure) => Err(BenchError::Protocol(failure)),
        None => Ok(()),
    }
}

/// Signs up and logs in [`AccountsSettings::accounts`] people against a server started in this
/// process with its default limits (on `db`: a SQLite file or a PostgreSQL URL), pairs them
/// into rated games with a clock, plays them, and reads every game back.
pub async fn accounts_benchmark(settings: AccountsSettings, db: &Path) -> Result<AccountsReport, BenchError> {
    raise_file_limit();
    let config = tabletop_web::ServeConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: db.to_path_buf(),
        ..tabletop_web::ServeConfig::default()
    };
    let server = tabletop_web::start(config).await.map_err(|e| BenchError::Protocol(e.to_string()))?;
    let addr = server.addr;
    let run = format!("{:x}", std::process::id() % 0xffff);
    let mut report = AccountsReport {
        accounts: 0,
        games: 0,
        signup_p50_ms: 0.0,
        signup_p99_ms: 0.0,
        login_p50_ms: 0.0,
        login_p99_ms: 0.0,
        login_phase_seconds: 0.0,
        moves: 0,
        seconds: 0.0,
        moves_per_second: 0.0,
        p50_ms: 0.0,
        p99_ms: 0.0,
        rated_games_ended: 0,
        limited: 0,
        errors: 0,
        first_error: None,
    };
    let started = Instant::now();
    let joins: Vec<_> = (0..settings.accounts)
        .map(|index| {
            let run = run.clone();
            tokio::spawn(async move { sign_up_and_log_in(addr, index, &run).await })
        })
        .collect();
    let (mut people, mut signups, mut logins) = (Vec::new(), Vec::new(), Vec::new());
    for join in joins {
        match join.await.map_err(|e| BenchError::Protocol(e.to_string())).and_then(|r| r) {
            Ok((person, signup, login)) => {
                people.push(person);
                signups.push(signup);
                logins.push(login);
            }
            Err(error) => {
                report.errors += 1;
                report.first_error.get_or_insert(error.to_string());
            }
        }
    }
    report.login_phase_seconds = started.elapsed().as_secs_f64();
    signups.sort();
    logins.sort();
    report.accounts = people.len();
    report.signup_p50_ms = percentile(&signups, 0.50);
    report.signup_p99_ms = percentile(&signups, 0.99);
    report.login_p50_ms = percentile(&logins, 0.50);
    report.login_p99_ms = percentile(&logins, 0.99);

    let settings = Arc::new(settings);
    let started = Instant::now();
    let deadline = started + settings.max_time;
    let games: Vec<_> = people
        .chunks_exact(2)
        .enumerate()
        .map(|(index, pair)| {
            let pair = [pair[0].clone(), pair[1].clone()];
            tokio::spawn(play_pair(addr, pair, index, settings.clone(), deadline))
        })
        .collect();
    report.games = games.len();
    let mut latencies = Vec::new();
    let mut ids = Vec::new();
    let mut last_ack = started;
    for game in games {
        let game = game.await.unwrap_or_else(|e| Played { error: Some(e.to_string()), ..Played::default() });
        latencies.extend(game.latencies.iter().copied());
        last_ack = last_ack.max(game.last_ack.unwrap_or(started));
        report.limited += game.limited;
        if let Some(error) = game.error {
            report.errors += 1;
            report.first_error.get_or_insert(error);
        }
        ids.extend(game.id);
    }
    report.seconds = last_ack.saturating_duration_since(started).as_secs_f64();
    latencies.sort();
    report.moves = latencies.len();
    report.moves_per_second = report.moves as f64 / report.seconds.max(f64::MIN_POSITIVE);
    report.p50_ms = percentile(&latencies, 0.50);
    report.p99_ms = percentile(&latencies, 0.99);
    // Every game is over, rated, and its end changed both ratings (written after the answer
    // that ended it: waited for a while).
    for id in ids {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let answer = crate::client::state_as(addr, None, &id, None, Duration::from_secs(60)).await?;
            let state = answer.body;
            let rated = state["status"]["over"] == true
                && state["rated"] == true
                && state["rating_changes"].as_array().is_some_and(|c| c.len() == 2);
            if rated {
                report.rated_games_ended += 1;
                break;
            }
            if Instant::now() > until {
                report.errors += 1;
                report.first_error.get_or_insert(format!("game {id} read back without its rating changes: {state}"));
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    server.shutdown().await;
    Ok(report)
}

/// Runs [`accounts_benchmark`] on a new multi-threaded runtime (for the command line).
pub fn accounts_benchmark_blocking(settings: AccountsSettings, db: &Path) -> Result<AccountsReport, BenchError> {
    tokio::runtime::Runtime::new()?.block_on(accounts_benchmark(settings, db))
}
