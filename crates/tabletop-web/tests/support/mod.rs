//! The harness shared by `people.rs` and `threats.rs`: servers on a free loopback port with a
//! temporary database, a minimal HTTP/1.1 client (one request per connection, raw bytes, so that
//! headers and half-sent requests can be tested), and a reader of the raw Server-Sent Events stream.

#![allow(dead_code)]

pub mod pg;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An answer: status, raw head (lower-cased header lines), and the JSON body (`Null` if none).
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: Value,
    pub text: String,
}

impl Answer {
    /// A header's value (name in lower case).
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim().eq_ignore_ascii_case(name)).then(|| value.trim().to_string())
        })
    }

    /// The `error` of a JSON error answer (panics if the answer is not one).
    pub fn error(&self) -> String {
        self.body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("not a JSON error: {} {}", self.status, self.text))
            .to_string()
    }
}

/// Decodes an HTTP/1.1 body (chunked or not) from the bytes after the head.
fn decode_body(head: &str, raw: &[u8]) -> Vec<u8> {
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return raw.to_vec();
    }
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..end]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16) else { break };
        rest = &rest[end + 2..];
        if size == 0 || rest.len() < size {
            out.extend_from_slice(&rest[..size.min(rest.len())]);
            break;
        }
        out.extend_from_slice(&rest[..size]);
        rest = rest.get(size + 2..).unwrap_or(&[]);
    }
    out
}

/// Sends raw bytes and reads the whole answer (the request should say `Connection: close`).
pub async fn raw(addr: SocketAddr, bytes: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
        .await
        .expect("the server answers within 20 s")
        .ok();
    parse_answer(&raw)
}

pub fn parse_answer(raw: &[u8]) -> Answer {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(raw.len());
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = decode_body(&head, raw.get(split + 4..).unwrap_or(&[]));
    let text = String::from_utf8_lossy(&body).to_string();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Answer { status, head, body, text }
}

/// One request with a JSON body (or none).
pub async fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Answer {
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    raw(addr, format!("{head}{body}").as_bytes()).await
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

/// The test configuration: port 0, a fresh database, rates high enough never to matter.
pub fn config() -> tabletop_web::ServeConfig {
    tabletop_web::ServeConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: fresh_db(),
        create_rate: 100_000,
        hint_rate: 100_000,
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
    let path = match token {
        Some(t) => format!("/api/games/{id}?token={t}"),
        None => format!("/api/games/{id}"),
    };
    let answer = get(addr, &path).await;
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

/// An open event stream, read raw: `event: state` / `data: {json}` blocks.
pub struct Events {
    stream: TcpStream,
    /// Bytes read and not yet decoded (chunked framing).
    raw: Vec<u8>,
    /// Decoded body text not yet split into events.
    text: String,
    head_done: bool,
    chunked: bool,
    pub head: String,
}

impl Events {
    pub async fn open(addr: SocketAddr, id: &str, token: Option<&str>) -> Events {
        let path = match token {
            Some(t) => format!("/api/games/{id}/events?token={t}"),
            None => format!("/api/games/{id}/events"),
        };
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        Events { stream, raw: Vec::new(), text: String::new(), head_done: false, chunked: false, head: String::new() }
    }

    /// Moves complete chunks from `raw` to `text`.
    fn decode(&mut self) {
        if !self.head_done {
            let Some(split) = self.raw.windows(4).position(|w| w == b"\r\n\r\n") else { return };
            self.head = String::from_utf8_lossy(&self.raw[..split]).to_string();
            self.chunked = self.head.to_ascii_lowercase().contains("transfer-encoding: chunked");
            self.raw.drain(..split + 4);
            self.head_done = true;
        }
        if !self.chunked {
            self.text.push_str(&String::from_utf8_lossy(&self.raw));
            self.raw.clear();
            return;
        }
        loop {
            let Some(end) = self.raw.windows(2).position(|w| w == b"\r\n") else { return };
            let size_text = String::from_utf8_lossy(&self.raw[..end]).to_string();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16).unwrap_or(0);
            if self.raw.len() < end + 2 + size + 2 {
                return;
            }
            let chunk = self.raw[end + 2..end + 2 + size].to_vec();
            self.text.push_str(&String::from_utf8_lossy(&chunk));
            self.raw.drain(..end + 2 + size + 2);
        }
    }

    /// The next `state` event's data within `limit`, or `None`.
    pub async fn next(&mut self, limit: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            self.decode();
            while let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                let data: Vec<&str> =
                    block.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
                if block.lines().any(|l| l == "event: state") && !data.is_empty() {
                    return Some(serde_json::from_str(&data.join("\n")).expect("event data is JSON"));
                }
            }
            let mut buf = [0u8; 16384];
            let read = tokio::time::timeout_at(deadline, self.stream.read(&mut buf)).await;
            match read {
                Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return None,
                Ok(Ok(n)) => self.raw.extend_from_slice(&buf[..n]),
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
