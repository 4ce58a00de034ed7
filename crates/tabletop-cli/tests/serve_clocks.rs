//! Game clocks across process deaths and processes (issue 57), with the real binary:
//!
//! - `tabletop serve` killed with SIGKILL mid-game and restarted on the same file: both clocks
//!   are where they should be within a second (the running seat's time counts from the stored
//!   timestamp), and a flag that fell while the server was down is applied at start;
//! - two processes on one PostgreSQL database (`TABLETOP_TEST_PG`, or one the test starts with
//!   `scripts/pg-test-server`) holding the same games: each flag is stored once (one result,
//!   one version bump), and both processes show it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../../tabletop-client/tests/support/pg.rs"]
mod pg;
#[path = "support/serve.rs"]
mod serve;

use serve::spawn_server;

/// A running `tabletop serve` process, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(db: &str) -> Server {
        let (child, addr) = spawn_server(db, &["--create-rate", "100000"]);
        Server { child, addr }
    }

    fn request(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).expect("connects");
        stream.set_read_timeout(Some(Duration::from_secs(20))).expect("a timeout");
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .expect("sends");
        let mut text = String::new();
        stream.read_to_string(&mut text).expect("the server answers");
        let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let payload = text.split("\r\n\r\n").nth(1).unwrap_or("");
        let json = match (payload.find('{'), payload.rfind('}')) {
            (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        (status, json)
    }

    fn state(&self, id: &str) -> Value {
        let (status, state) = self.request("GET", &format!("/api/games/{id}"), "");
        assert_eq!(status, 200, "{state}");
        state
    }

    /// A two-person Slide game with the clock `clock`, both first moves played (so the first
    /// seat's clock runs) and `more` moves after them: the id and the tokens.
    fn game_under_way(&self, clock: &str, more: usize) -> (String, Vec<String>) {
        let body =
            json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "human"], "clock": clock});
        let (status, created) = self.request("POST", "/api/games", &body.to_string());
        assert_eq!(status, 200, "{created}");
        let id = created["id"].as_str().unwrap().to_string();
        let tokens: Vec<String> =
            created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
        for (ply, square) in ["6", "7", "10", "11", "1"].iter().take(2 + more).enumerate() {
            let body = json!({"move": square, "token": tokens[ply % 2], "ply": ply}).to_string();
            let (status, answer) = self.request("POST", &format!("/api/games/{id}/moves"), &body);
            assert_eq!(status, 200, "{answer}");
        }
        (id, tokens)
    }

    fn until_over(&self, id: &str, patience: Duration) -> Value {
        let deadline = Instant::now() + patience;
        loop {
            let state = self.state(id);
            if state["status"]["over"] == true {
                return state;
            }
            assert!(Instant::now() < deadline, "not over within {patience:?}: {state}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL: no chance to finish anything.
    fn kill(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("the server ends");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ms(value: &Value) -> i64 {
    value.as_i64().unwrap_or_else(|| panic!("a number of milliseconds: {value}"))
}

#[test]
fn a_killed_server_keeps_both_clocks_and_applies_the_flags_that_fell_meanwhile() {
    let dir = std::env::temp_dir().join(format!("tabletop-clocks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("games.db");
    let _ = std::fs::remove_file(&db);
    let db = db.to_string_lossy().to_string();
    let server = Server::start(&db);
    // Seat 1's clock runs (three moves played); a second game's seat 0 has 2 s left.
    let (id, _) = server.game_under_way("5+0", 1);
    let (short, _) = server.game_under_way("0:02+0", 0);
    let before = server.state(&id);
    assert_eq!(before["clock"]["running"], 1, "{before}");
    server.kill();
    std::thread::sleep(Duration::from_millis(3500));

    let server = Server::start(&db);
    let after = server.state(&id);
    assert_eq!(after["clock"]["running"], 1, "{after}");
    // The server's own timestamps say how long passed: the running seat lost exactly that
    // (within a second), the other seat nothing.
    let passed = ms(&after["clock"]["server_now"]) - ms(&before["clock"]["server_now"]);
    assert!(passed >= 3500, "{passed}");
    let expected = ms(&before["clock"]["seats"][1]["ms"]) - passed;
    let shown = ms(&after["clock"]["seats"][1]["ms"]);
    assert!((shown - expected).abs() <= 1000, "seat 1 shows {shown} ms where {expected} ms were due");
    assert_eq!(after["clock"]["seats"][0]["ms"], before["clock"]["seats"][0]["ms"], "the stopped clock kept its time");
    // Each move's time and the clock after it came back from the database as they were.
    assert_eq!(after["history"], before["history"], "{after}");
    assert!(after["history"][2]["time"]["remaining_ms"].is_u64(), "{after}");
    // The short game's flag fell while the server was down: applied at start, by the server.
    let over = server.until_over(&short, Duration::from_secs(10));
    assert_eq!(over["result"]["ended_by"], "flag", "{over}");
    assert_eq!(over["result"]["winners"], json!([1]), "{over}");
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The version and result of a game as the database holds them, read with `psql`.
fn stored(url: &str, id: &str) -> (i64, String) {
    let output = Command::new("psql")
        .args(["-X", "-At", "-d", url, "-c", &format!("SELECT version, ended FROM games WHERE id = '{id}'")])
        .output()
        .expect("psql runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let (version, ended) = text.split_once('|').expect("version|ended");
    (version.parse().expect("a version"), ended.to_string())
}

#[test]
fn two_processes_store_one_flag_result() {
    let url = pg::fresh_database();
    let servers = [Server::start(&url), Server::start(&url)];
    let games: Vec<String> = (0..6).map(|i| servers[i % 2].game_under_way("0:01+0", 0).0).collect();
    // Both processes hold every game (as when people watch it on both), so both timers see it due.
    for id in &games {
        for server in &servers {
            assert_eq!(server.state(id)["version"], 2);
        }
    }
    for id in &games {
        let a = servers[0].until_over(id, Duration::from_secs(20));
        let b = servers[1].until_over(id, Duration::from_secs(20));
        assert_eq!(a["result"], b["result"], "both processes show one result");
        assert_eq!(a["result"]["ended_by"], "flag", "{a}");
        assert_eq!(a["version"], 3, "one write ended it: {a}");
        let (version, ended) = stored(&url, id);
        assert_eq!(version, 3, "the flag was stored once");
        assert!(ended.contains("ran out of time"), "{ended}");
    }
}
