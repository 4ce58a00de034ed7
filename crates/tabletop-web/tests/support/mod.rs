//! What the account, rating and rematch tests share: a server in this process on a throw-away
//! database (SQLite, or PostgreSQL with `TABLETOP_TEST_BACKEND=postgres`), raw HTTP requests as
//! the page sends them (Origin, Sec-Fetch-Site, the login cookie), and accounts made for a test.
#![allow(dead_code)] // each test file uses its own part

#[path = "../../../tabletop-client/tests/support/pg.rs"]
pub mod pg;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tabletop_web::{AppState, ServeConfig};

/// A server running on its own runtime thread.
pub struct Server {
    pub addr: SocketAddr,
    /// The server's state, for tests that look inside.
    pub state: Arc<AppState>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// An answer: status, headers (lower-case names) and JSON body.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    pub text: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The token the answer's `Set-Cookie` gives (`None` without one; `Some("")` clears it).
    pub fn cookie(&self) -> Option<String> {
        let set = self.header("set-cookie")?;
        let (_, rest) = set.split_once('=')?;
        Some(rest.split(';').next().unwrap_or("").to_string())
    }
}

pub fn on_postgres() -> bool {
    std::env::var("TABLETOP_TEST_BACKEND").is_ok_and(|b| b == "postgres")
}

impl Server {
    pub fn with(change: impl FnOnce(&mut ServeConfig)) -> Server {
        let db = if on_postgres() {
            pg::fresh_database().into()
        } else {
            let dir = std::env::temp_dir().join(format!(
                "tabletop-web-test-{}-{}",
                std::process::id(),
                tabletop_web::live::random_hex()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            dir.join("games.db")
        };
        let mut config = ServeConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db,
            workers: 2,
            signups_per_address: 1000,
            login_failures_per_address: 1000,
            create_rate: 6000,
            ..ServeConfig::default()
        };
        change(&mut config);
        let (started, started_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            runtime.block_on(async move {
                let server = tabletop_web::start(config).await.expect("the server starts");
                started.send((server.addr, server.state.clone())).unwrap();
                let _ = stopped.await;
                server.shutdown().await;
            });
        });
        let (addr, state) = started_rx.recv().unwrap();
        Server { addr, state, stop: Some(stop), thread: Some(thread) }
    }

    pub fn new() -> Server {
        Server::with(|_| {})
    }

    /// One request with raw extra header lines and a raw body.
    pub fn raw(&self, method: &str, path: &str, extra: &[String], body: &str) -> Answer {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let extra: String = extra.iter().map(|h| format!("{h}\r\n")).collect();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        let (head, payload) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        let body = match (payload.find('{'), payload.rfind('}')) {
            (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        Answer { status, headers, body, text }
    }

    /// A request as the server's own page sends it: with its Origin, and the login cookie
    /// `token` if given.
    pub fn page(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Answer {
        let mut extra = vec![format!("Origin: http://{}", self.addr), "Sec-Fetch-Site: same-origin".to_string()];
        if let Some(token) = token {
            extra.push(format!("Cookie: tabletop_session={token}"));
        }
        self.raw(method, path, &extra, &body.map_or_else(String::new, |b| b.to_string()))
    }

    pub fn signup(&self, name: &str, password: &str) -> Answer {
        self.page("POST", "/api/account/signup", None, Some(json!({"name": name, "password": password})))
    }

    pub fn login(&self, name: &str, password: &str) -> Answer {
        self.page("POST", "/api/account/login", None, Some(json!({"name": name, "password": password})))
    }

    /// Signs up (must succeed) and answers the login token.
    pub fn account(&self, name: &str, password: &str) -> String {
        let answer = self.signup(name, password);
        assert_eq!(answer.status, 200, "sign-up: {}", answer.text);
        answer.cookie().expect("a login cookie")
    }

    pub fn whoami(&self, token: &str) -> Answer {
        self.page("GET", "/api/account", Some(token), None)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

pub const PASSWORD: &str = "correct horse battery";
