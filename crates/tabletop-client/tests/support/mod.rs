//! The harness shared by `people.rs` and `threats.rs`: servers on a free loopback port with a
//! temporary database, over this crate's raw HTTP/1.1 and event-stream client (one request per
//! connection, raw bytes, so that headers and half-sent requests can be tested).

#![allow(dead_code)]

pub mod pg;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[allow(unused_imports)] // threats.rs parses raw answers; people.rs does not
pub use tabletop_client::client::{parse_answer, Answer};

/// The `error` of a JSON error answer (panics if the answer is not one).
pub trait ErrorText {
    fn error(&self) -> String;
}

impl ErrorText for Answer {
    fn error(&self) -> String {
        self.body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("not a JSON error: {} {}", self.status, self.text))
            .to_string()
    }
}

/// Sends raw bytes and reads the whole answer (the request should say `Connection: close`).
pub async fn raw(addr: SocketAddr, bytes: &[u8]) -> Answer {
    tabletop_client::client::exchange(addr, None, bytes, Duration::from_secs(20))
        .await
        .expect("the server answers within 20 s")
}

/// One request with a JSON body (or none).
pub async fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Answer {
    raw(addr, &tabletop_client::client::request_bytes(addr, method, path, body.unwrap_or(""))).await
}

pub async fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, None).await
}

pub async fn post(addr: SocketAddr, path: &str, body: Value) -> Answer {
    request(addr, "POST", path, Some(&body.to_string())).await
}

/// A server for one test (kept alive by the value; its database in a fresh temporary directory).
pub struct Server {
    pub running: tabletop_web::RunningServer,
    pub addr: SocketAddr,
    pub db: PathBuf,
}

impl Server {
    pub fn state(&self) -> &tabletop_web::AppState {
        &self.running.state
    }
}

/// Do these tests run against PostgreSQL (`TABLETOP_TEST_BACKEND=postgres`, as the second pass
/// of `scripts/test` does) rather than SQLite?
pub fn on_postgres() -> bool {
    std::env::var("TABLETOP_TEST_BACKEND").is_ok_and(|b| b == "postgres")
}

/// For tests of SQLite's own file (snapshots, removal, old schemas): says so and answers
/// `true` when the suite runs against PostgreSQL, where they do not apply.
pub fn skip_unless_sqlite(test: &str) -> bool {
    if on_postgres() {
        eprintln!("{test}: about SQLite's file, not run against PostgreSQL");
    }
    on_postgres()
}

/// A fresh database of the backend under test: a new SQLite file, or a new Postgres database.
pub fn fresh_db() -> PathBuf {
    if on_postgres() {
        PathBuf::from(pg::fresh_database())
    } else {
        tempdir().join("games.db")
    }
}

/// The test configuration: port 0, a fresh database, rates and caps high enough never to matter.
pub fn config() -> tabletop_web::ServeConfig {
    tabletop_web::ServeConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: fresh_db(),
        create_rate: 100_000,
        hint_rate: 100_000,
        move_rate: 100_000,
        move_burst: 100_000,
        proposal_rate: 100_000,
        seek_rate: 100_000,
        max_open_games_per_address: 100_000,
        ..tabletop_web::ServeConfig::default()
    }
}

pub async fn start_with(config: tabletop_web::ServeConfig) -> Server {
    let db = config.db.clone();
    let running = tabletop_web::start(config).await.unwrap();
    let addr = running.addr;
    Server { running, addr, db }
}

pub async fn start() -> Server {
    start_with(config()).await
}

pub fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tabletop-web-t-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A created game: its id, the tokens (`None` for computer and open seats) and the whole answer.
pub struct Created {
    pub id: String,
    pub tokens: Vec<Option<String>>,
    pub answer: Value,
}

impl Created {
    pub fn token(&self, seat: usize) -> &str {
        self.tokens[seat].as_deref().unwrap_or_else(|| panic!("seat {seat} has no token"))
    }
}

/// Creates a game (must succeed). A Mathable game is dealt again (up to 20 times) until the
/// first seat, when it is a person's, has a placement to play: a random rack may have none.
pub async fn create(addr: SocketAddr, body: Value) -> Created {
    let mut answer = post(addr, "/api/games", body.clone()).await;
    for _ in 0..20 {
        let state = &answer.body["state"];
        let placeable = state["legal"].as_array().is_some_and(|legal| {
            legal.iter().filter_map(Value::as_str).any(|m| m.contains('=') && !m.starts_with("swap"))
        });
        if answer.status != 200 || body["game"] != "mathable" || state["your_seat"] != 0 || placeable {
            break;
        }
        answer = post(addr, "/api/games", body.clone()).await;
    }
    assert_eq!(answer.status, 200, "create {body}: {}", answer.text);
    let tokens = answer.body["tokens"].as_array().unwrap().iter().map(|t| t.as_str().map(str::to_string)).collect();
    Created { id: answer.body["id"].as_str().unwrap().to_string(), tokens, answer: answer.body }
}

pub async fn state(addr: SocketAddr, id: &str, token: Option<&str>) -> Value {
    let answer = tabletop_client::client::state_as(addr, None, id, token, Duration::from_secs(20)).await.unwrap();
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

pub async fn play(addr: SocketAddr, id: &str, token: &str, mv: &str) -> Answer {
    post(addr, &format!("/api/games/{id}/moves"), json!({"move": mv, "token": token})).await
}

/// Plays a move that must be accepted; answers the new state.
pub async fn play_ok(addr: SocketAddr, id: &str, token: &str, mv: &str) -> Value {
    let answer = play(addr, id, token, mv).await;
    assert_eq!(answer.status, 200, "move {mv}: {}", answer.text);
    answer.body
}

pub async fn act(addr: SocketAddr, id: &str, what: &str, body: Value) -> Answer {
    post(addr, &format!("/api/games/{id}/{what}"), body).await
}

/// Polls the state until `done` holds (at most `limit`).
pub async fn wait_for(
    addr: SocketAddr,
    id: &str,
    token: Option<&str>,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let start = Instant::now();
    loop {
        let now = state(addr, id, token).await;
        if done(&now) || start.elapsed() > limit {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A Mathable placement the mover may play (`G7=12`), from its own view.
pub fn a_placement(view: &Value) -> String {
    view["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|m| m.contains('=') && !m.starts_with("swap"))
        .unwrap_or_else(|| panic!("no placement in {}", view["legal"]))
        .to_string()
}

/// An open event stream (the shared client's), read for its `state` events.
pub struct Events {
    stream: tabletop_client::client::EventStream,
    pub head: String,
}

impl Events {
    pub async fn open(addr: SocketAddr, id: &str, token: Option<&str>) -> Events {
        let path = tabletop_client::client::events_path(addr, None, id, token, Duration::from_secs(20)).await.unwrap();
        let stream = tabletop_client::client::EventStream::open(addr, None, &path).await.unwrap();
        Events { stream, head: String::new() }
    }

    /// The next `state` event's data within `limit`, or `None`.
    pub async fn next(&mut self, limit: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let event = tokio::time::timeout_at(deadline, self.stream.next()).await;
            self.head.clone_from(&self.stream.head);
            match event {
                Ok(Ok(event)) if event.name == "state" => return Some(event.data),
                Ok(Ok(_)) => continue,
                Ok(Err(_)) | Err(_) => return None,
            }
        }
    }

    /// Skips events until one of `kind` (within `limit` overall); panics if none comes.
    pub async fn until(&mut self, kind: &str, limit: Duration) -> Value {
        let deadline = Instant::now() + limit;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.next(left).await {
                Some(event) if event["event"]["kind"] == kind => return event,
                Some(event) => seen.push(event["event"]["kind"].as_str().unwrap_or("?").to_string()),
                None => break,
            }
        }
        panic!("no {kind:?} event within {limit:?}; saw {seen:?}");
    }

    /// Every event that comes within `limit`.
    pub async fn drain(&mut self, limit: Duration) -> Vec<Value> {
        let deadline = Instant::now() + limit;
        let mut out = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.next(left).await {
                Some(event) => out.push(event),
                None => break,
            }
        }
        out
    }
}

pub const SHORT: Duration = Duration::from_secs(3);
