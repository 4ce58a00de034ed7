//! Game clocks in `tabletop serve` (issue 57): the control chosen at creation and its abuse
//! cases, the server ending games by itself (a flag with nobody connected, an abort when a first
//! move is not made in time), the clocks in the state and the event stream, the computer playing
//! by its clock, and claiming a game against an opponent who left (a seat's token only, not too
//! early, not against a connected player).
//!
//! Each test runs a server in this process on a throw-away database and talks HTTP to it. Waits
//! poll the server's state until what it says happens, with generous deadlines (never a fixed
//! sleep guessed to be long enough).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tabletop_web::ServeConfig;

/// A server running on its own runtime thread.
struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start(config: ServeConfig) -> Server {
        let (started, addr) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            runtime.block_on(async move {
                let server = tabletop_web::start(config).await.expect("the server starts");
                started.send(server.addr).unwrap();
                let _ = stopped.await;
                server.shutdown().await;
            });
        });
        Server { addr: addr.recv().unwrap(), stop: Some(stop), thread: Some(thread) }
    }

    fn with(change: impl FnOnce(&mut ServeConfig)) -> Server {
        let mut config = ServeConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: ":memory:".into(),
            create_rate: 100_000,
            workers: 1,
            ..ServeConfig::default()
        };
        change(&mut config);
        Server::start(config)
    }

    fn request(&self, method: &str, path: &str, body: Option<&Value>, token: Option<&str>) -> (u16, Value) {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let body = body.map_or_else(String::new, Value::to_string);
        let auth = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let payload = text.split("\r\n\r\n").nth(1).unwrap_or("");
        let json = match (payload.find('{'), payload.rfind('}')) {
            (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        (status, json)
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.request("POST", path, Some(&body), None)
    }

    fn state(&self, id: &str) -> Value {
        let (status, state) = self.request("GET", &format!("/api/games/{id}"), None, None);
        assert_eq!(status, 200, "{state}");
        state
    }

    /// Creates a game; answers its id and the seats' tokens (null for computers and open seats).
    fn create(&self, body: Value) -> (String, Vec<String>) {
        let (status, created) = self.post("/api/games", body);
        assert_eq!(status, 200, "{created}");
        let tokens =
            created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap_or("").to_string()).collect();
        (created["id"].as_str().unwrap().to_string(), tokens)
    }

    fn play(&self, id: &str, token: &str, ply: usize) -> (u16, Value) {
        let (_, mine) = self.request("GET", &format!("/api/games/{id}"), None, Some(token));
        let legal = mine["legal"][0].as_str().unwrap_or("").to_string();
        self.post(&format!("/api/games/{id}/moves"), json!({"move": legal, "token": token, "ply": ply}))
    }

    /// Polls the state until `done` holds, for `patience` at most.
    fn until(&self, id: &str, patience: Duration, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + patience;
        loop {
            let state = self.state(id);
            if done(&state) {
                return state;
            }
            assert!(Instant::now() < deadline, "{what}: not within {patience:?}: {state}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Opens the game's event stream (a seat's, with `token`); its states arrive on the receiver
    /// while the returned connection stays open.
    fn events(&self, id: &str, token: Option<&str>) -> (std::sync::mpsc::Receiver<Value>, TcpStream) {
        let query = token.map_or_else(String::new, |t| {
            let (status, answer) = self.post(&format!("/api/games/{id}/ticket"), json!({"token": t}));
            assert_eq!(status, 200, "{answer}");
            format!("?ticket={}", answer["ticket"].as_str().unwrap())
        });
        let mut stream = TcpStream::connect(self.addr).unwrap();
        write!(stream, "GET /api/games/{id}/events{query} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).unwrap();
        let kept = stream.try_clone().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if let Some(Ok(state)) = line.strip_prefix("data:").map(|d| serde_json::from_str::<Value>(d.trim())) {
                    if sender.send(state).is_err() {
                        return;
                    }
                }
            }
        });
        (receiver, kept)
    }
}

impl Server {
    /// Opens the game's event stream as `token`'s seat (or a watcher's), asking for pings or
    /// not; every event arrives on the receiver as its name and data.
    fn stream(
        &self,
        id: &str,
        token: Option<&str>,
        pings: bool,
    ) -> (std::sync::mpsc::Receiver<(String, Value)>, TcpStream) {
        let mut query = token.map_or_else(String::new, |t| {
            let (status, answer) = self.post(&format!("/api/games/{id}/ticket"), json!({"token": t}));
            assert_eq!(status, 200, "{answer}");
            format!("?ticket={}", answer["ticket"].as_str().unwrap())
        });
        if pings {
            query.push_str(if query.is_empty() { "?pings=true" } else { "&pings=true" });
        }
        let mut stream = TcpStream::connect(self.addr).unwrap();
        write!(stream, "GET /api/games/{id}/events{query} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).unwrap();
        let kept = stream.try_clone().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut name = String::from("message");
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if let Some(event) = line.strip_prefix("event:") {
                    name = event.trim().to_string();
                } else if let Some(Ok(data)) =
                    line.strip_prefix("data:").map(|d| serde_json::from_str::<Value>(d.trim()))
                {
                    if sender.send((std::mem::replace(&mut name, "message".into()), data)).is_err() {
                        return;
                    }
                }
            }
        });
        (receiver, kept)
    }

    /// The latest ping id on `events` (states and older pings skipped: the server keeps only
    /// the latest few waiting), waiting for one within `patience`.
    fn next_ping(events: &std::sync::mpsc::Receiver<(String, Value)>, patience: Duration) -> String {
        let deadline = Instant::now() + patience;
        let mut latest = None;
        loop {
            let next = match latest {
                None => events.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok(),
                Some(_) => events.try_recv().ok(),
            };
            match next {
                Some((name, data)) if name == "ping" => {
                    latest = Some(data["ping"].as_str().expect("an id").to_string())
                }
                Some(_) => {}
                None => return latest.expect("a ping in time"),
            }
        }
    }

    /// Plays the seat's first legal move with `lag_ms` (omitted when `None`); answers the status
    /// and the mover's state.
    fn play_with_lag(&self, id: &str, token: &str, ply: usize, lag_ms: Option<u64>) -> (u16, Value) {
        let (_, mine) = self.request("GET", &format!("/api/games/{id}"), None, Some(token));
        let legal = mine["legal"][0].as_str().unwrap_or("").to_string();
        let mut body = json!({"move": legal, "token": token, "ply": ply});
        if let Some(lag) = lag_ms {
            body["lag_ms"] = json!(lag);
        }
        self.post(&format!("/api/games/{id}/moves"), body)
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

fn two_people(clock: &str) -> Value {
    json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "human"], "clock": clock})
}

#[test]
fn a_game_gets_the_clock_asked_for_and_bad_or_huge_ones_are_refused() {
    let server = Server::with(|_| {});
    for (clock, shown) in [("0:30+0.2", "0:30+0.2"), ("10m+5s", "10+5"), ("10+30x5", "10+30x5"), ("3d", "3d")] {
        let (id, _) = server.create(two_people(clock));
        let state = server.state(&id);
        assert_eq!(state["clock"]["control"], shown, "{state}");
        assert_eq!(state["clock"]["limited"], true);
        assert_eq!(state["clock"]["running"], Value::Null, "clocks start after each side's first move");
    }
    // Games with a friend or the computer are unlimited by default; lobby games get 5+3.
    let (id, _) = server.create(json!({"game": "slide", "seats": ["human", "human"]}));
    assert_eq!(server.state(&id)["clock"]["control"], "none");
    let (id, _) = server.create(json!({"game": "slide", "seats": ["human", "open"]}));
    assert_eq!(server.state(&id)["clock"]["control"], "5+3");
    let (status, lobby) = server.request("GET", "/api/lobby", None, None);
    assert_eq!(status, 200);
    assert!(
        lobby["games"].as_array().unwrap().iter().any(|g| g["id"] == id.as_str() && g["clock"] == "5+3"),
        "{lobby}"
    );
    // Refused with the library's reason.
    for (clock, says) in [
        (json!("999999+999999"), "at most"),
        (json!("100000d"), "days per move"),
        (json!("garbage"), "not a time control"),
        (json!("0+0"), "no time"),
        (json!("5+3x0"), "periods"),
        (json!("-1+0"), "not a time control"),
        (json!("x".repeat(5000)), "not a time control"),
    ] {
        let mut body = two_people("none");
        body["clock"] = clock.clone();
        let (status, answer) = server.post("/api/games", body);
        assert_eq!(status, 400, "{clock}: {answer}");
        assert!(answer["error"].as_str().unwrap_or("").contains(says), "{clock}: {answer}");
    }
    let mut body = two_people("none");
    body["clock"] = json!(300);
    assert_eq!(server.post("/api/games", body).0, 400, "a number is not a control's text");
    let (status, answer) =
        server.post("/api/games", json!({"game": "slide", "seats": ["human", "open"], "clock": "none"}));
    assert_eq!(status, 400, "a lobby game needs a clock: {answer}");
    assert!(answer["error"].as_str().unwrap().contains("lobby"), "{answer}");
}

#[test]
fn a_flag_with_nobody_connected_ends_the_game() {
    let server = Server::with(|_| {});
    let (id, tokens) = server.create(two_people("0:02+0"));
    assert_eq!(server.play(&id, &tokens[0], 0).0, 200);
    assert_eq!(server.play(&id, &tokens[1], 1).0, 200);
    let started = Instant::now();
    let state = server.state(&id);
    assert_eq!(state["clock"]["running"], 0, "the first seat's clock runs once both have moved: {state}");
    assert_eq!(state["clock"]["deadline_kind"], "flag");
    // Nobody connected, nobody asks: the server's timer ends the game.
    let over = server.until(&id, Duration::from_secs(20), "the flag", |s| s["status"]["over"] == true);
    assert!(started.elapsed() >= Duration::from_millis(1900), "not before the time ran out: {:?}", started.elapsed());
    assert_eq!(over["result"]["ended_by"], "flag", "{over}");
    assert_eq!(over["result"]["winners"], json!([1]), "{over}");
    assert!(over["result"]["text"].as_str().unwrap().contains("ran out of time"), "{over}");
    assert_eq!(over["clock"]["seats"][0]["ms"], 0);
    assert_eq!(over["clock"]["running"], Value::Null);
    // A late move is refused; the result stands.
    let (status, _) = server.play(&id, &tokens[0], 2);
    assert!(status == 409 || status == 422, "{status}");
    assert_eq!(server.state(&id)["version"], over["version"], "ended once");
}

#[test]
fn a_move_charges_the_mover_and_watchers_see_both_clocks() {
    let server = Server::with(|_| {});
    let (id, tokens) = server.create(two_people("1+2"));
    let (watched, _watching) = server.events(&id, None);
    for ply in 0..3 {
        assert_eq!(server.play(&id, &tokens[ply % 2], ply).0, 200);
    }
    // Seat 0 moved at ply 2 after its clock started at ply 1: charged, then 2 s added.
    let state = server.state(&id);
    let seat0 = state["clock"]["seats"][0]["ms"].as_u64().unwrap();
    assert!(seat0 > 60_000 && seat0 <= 62_000, "{state}");
    assert_eq!(state["clock"]["running"], 1);
    // Each move's time is in the history: before the clocks start only the time used, then
    // the mover's clock after it too.
    let history = &state["history"];
    assert!(history[0]["time"]["used_ms"].is_u64(), "{state}");
    assert!(history[0]["time"].get("remaining_ms").is_none(), "no clock ran yet: {state}");
    assert_eq!(history[2]["time"]["remaining_ms"].as_u64(), Some(seat0), "{state}");
    assert!(history[2]["time"]["used_ms"].as_u64().unwrap() <= 62_000 - seat0, "{state}");
    // A takeback gives no time back: seat 0 keeps what it had, seat 1 is charged for its
    // thinking, and seat 0's clock runs again.
    let (status, answer) = server.post(&format!("/api/games/{id}/undo"), json!({"token": tokens[0]}));
    assert_eq!(status, 200, "{answer}");
    std::thread::sleep(Duration::from_millis(300));
    let (status, answer) =
        server.post(&format!("/api/games/{id}/proposal"), json!({"token": tokens[1], "accept": true}));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["moves"].as_array().unwrap().len(), 2, "{answer}");
    assert_eq!(answer["history"].as_array().unwrap().len(), 2, "the move taken back took its time along: {answer}");
    assert_eq!(answer["clock"]["running"], 0, "{answer}");
    let seat1 = answer["clock"]["seats"][1]["ms"].as_u64().unwrap();
    assert!(seat1 <= 60_000 - 300, "seat 1 was charged for its time: {answer}");
    let seat0_now = answer["clock"]["seats"][0]["ms"].as_u64().unwrap();
    assert!(seat0_now <= seat0 && seat0_now + 1000 > seat0, "seat 0 got nothing back: {seat0} -> {answer}");
    // The watcher's stream carries the clocks with every state.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = watched.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("a state");
        if state["clock"]["running"] == 1 {
            assert!(state["clock"]["seats"][1]["ms"].as_u64().unwrap() <= 60_000);
            assert!(state["clock"]["server_now"].as_u64().unwrap() > 1_700_000_000_000);
            break;
        }
    }
}

#[test]
fn a_first_move_not_made_in_time_aborts_the_game() {
    let server = Server::with(|config| config.first_move_time = Duration::from_millis(800));
    let (status, created) = server.post("/api/games", two_people("1+0"));
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    // Nothing is due while the friend has not come (the creator may wait for them).
    assert_eq!(server.state(&id)["clock"]["deadline_kind"], Value::Null);
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(server.state(&id)["status"]["over"], false);
    // The friend opens the invitation: now the first move is due.
    let code = created["invites"][1]["path"].as_str().unwrap().split_once("#invite=").unwrap().1.to_string();
    let (status, claimed) = server.post(&format!("/api/games/{id}/claim"), json!({"invite": code}));
    assert_eq!(status, 200, "{claimed}");
    assert_eq!(server.state(&id)["clock"]["deadline_kind"], "abort");
    let over = server.until(&id, Duration::from_secs(20), "the abort", |s| s["status"]["over"] == true);
    assert_eq!(over["result"]["ended_by"], "aborted", "{over}");
    assert_eq!(over["result"]["winners"], json!([]), "not scored: {over}");
    assert!(over["result"]["text"].as_str().unwrap().starts_with("Game aborted: "), "{over}");
}

#[test]
fn a_taken_lobby_seat_never_used_goes_back_to_the_lobby() {
    let server = Server::with(|config| config.first_move_time = Duration::from_millis(1500));
    // The creator moves first; the person who joins never moves.
    let (id, tokens) = server.create(
        json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "open"], "clock": "1+0"}),
    );
    // Waiting in the lobby, nothing is due.
    std::thread::sleep(Duration::from_millis(1700));
    assert_eq!(server.state(&id)["status"]["over"], false, "a game waiting in the lobby is not aborted");
    let (status, joined) = server.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 200, "{joined}");
    assert_eq!(server.play(&id, &tokens[0], 0).0, 200);
    let released = server.until(&id, Duration::from_secs(20), "the release", |s| s["seats"][1] == "open");
    assert_eq!(released["status"]["over"], false, "the game waits for someone else: {released}");
    let (status, _) = server.play(&id, joined["token"].as_str().unwrap(), 1);
    assert_eq!(status, 403, "the released seat's token is worth nothing");
    let (status, joined) = server.post(&format!("/api/games/{id}/join"), json!({}));
    assert_eq!(status, 200, "someone else joins: {joined}");
}

#[test]
fn a_claim_needs_a_seat_an_absent_opponent_and_the_time() {
    let server = Server::with(|config| config.claim_after = Duration::from_millis(1500));
    let (id, tokens) = server.create(two_people("none"));
    let claim = |token: Value| server.post(&format!("/api/games/{id}/claim-win"), json!({"token": token}));
    let path = format!("/api/games/{id}/claim-win");
    // No token, a wrong one, garbage: refused.
    assert_eq!(server.post(&path, json!({})).0, 400);
    assert_eq!(server.post(&path, json!({"token": 7})).0, 400);
    assert_eq!(server.post(&path, json!({"token": tokens[0], "extra": 1})).0, 400);
    assert_eq!(claim(json!("0".repeat(32))).0, 403, "a watcher (no seat) cannot claim");
    assert_eq!(
        server.post("/api/games/ffffffffffffffffffffffffffffffff/claim-win", json!({"token": tokens[0]})).0,
        404
    );
    // Seat 0 is to move: it cannot claim against itself; seat 1 claims too early.
    let (status, answer) = claim(json!(tokens[0]));
    assert_eq!(status, 409, "{answer}");
    let (status, answer) = claim(json!(tokens[1]));
    assert_eq!(status, 409, "too early: {answer}");
    assert!(answer["error"].as_str().unwrap().contains("claim after"), "{answer}");
    // Seat 0 connected: no claim against it, however long.
    let (stream, connection) = server.events(&id, Some(&tokens[0]));
    let _ = stream.recv_timeout(Duration::from_secs(10)).expect("the first state");
    std::thread::sleep(Duration::from_millis(1700));
    let (status, answer) = claim(json!(tokens[1]));
    assert_eq!(status, 409, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("connected"), "{answer}");
    // Seat 0 leaves; after the wait, fewer than two moves: the game is aborted.
    // (The reading thread holds the other handle: shut the socket itself.)
    connection.shutdown(std::net::Shutdown::Both).unwrap();
    drop(stream);
    server.until(&id, Duration::from_secs(10), "seat 0 gone", |s| s["players"][0]["connected"] == false);
    let state = server.until(&id, Duration::from_secs(10), "claimable", |s| s["claim"]["wait_ms"] == 0);
    assert_eq!(state["claim"]["abort"], true, "{state}");
    let (status, answer) = claim(json!(tokens[1]));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["ended_by"], "aborted", "{answer}");
    assert_eq!(answer["result"]["winners"], json!([]));
    assert_eq!(claim(json!(tokens[1])).0, 409, "once");

    // With moves played, the claimer wins.
    let (id, tokens) = server.create(two_people("none"));
    for ply in 0..3 {
        assert_eq!(server.play(&id, &tokens[ply % 2], ply).0, 200);
    }
    server.until(&id, Duration::from_secs(10), "claimable", |s| s["claim"]["wait_ms"] == 0);
    let (status, answer) = server.post(&format!("/api/games/{id}/claim-win"), json!({"token": tokens[0]}));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["winners"], json!([0]), "{answer}");
    assert_eq!(answer["result"]["ended_by"], "claimed");
    // Under a clock that runs, the clock decides, not a claim.
    let (id, tokens) = server.create(two_people("5+0"));
    for ply in 0..3 {
        assert_eq!(server.play(&id, &tokens[ply % 2], ply).0, 200);
    }
    std::thread::sleep(Duration::from_millis(1600));
    let (status, answer) = server.post(&format!("/api/games/{id}/claim-win"), json!({"token": tokens[0]}));
    assert_eq!(status, 409, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("clock"), "{answer}");
}

#[test]
fn the_computer_plays_by_its_clock() {
    let server = Server::with(|_| {});
    let (id, tokens) = server.create(json!({"game": "reversi", "seats": ["human", "engine"], "clock": "0:06+0"}));
    let mut ply = 0;
    // Several rounds: the person moves at once, the computer thinks by its clock.
    while ply < 12 {
        let state = server.until(&id, Duration::from_secs(30), "the computer's move", |s| {
            s["status"]["over"] == true || s["status"]["to_move"] == 0
        });
        if state["status"]["over"] == true {
            break;
        }
        ply = state["moves"].as_array().unwrap().len();
        assert_eq!(server.play(&id, &tokens[0], ply).0, 200);
        ply += 1;
    }
    let state = server.state(&id);
    assert_ne!(state["result"]["ended_by"], "flag", "the computer never loses on time: {state}");
    let computer = state["clock"]["seats"][1]["ms"].as_u64().unwrap();
    assert!(computer < 6_000, "the computer's clock ran: {state}");
    assert!(computer > 0, "{state}");
}

/// What a move was given back for its lag (its `history[].time.compensated_ms`).
fn compensated(state: &Value, ply: usize) -> u64 {
    state["history"][ply]["time"]["compensated_ms"].as_u64().unwrap_or_else(|| panic!("move {ply}'s time: {state}"))
}

#[test]
fn the_server_measures_a_seats_lag_and_credits_a_move_no_more_than_that() {
    // Pings every 1.5 s: an answer is forgotten only after four more pings, far beyond the test's
    // 400 ms of delay even on a loaded machine.
    let server = Server::with(|config| config.ping_interval = Duration::from_millis(1500));
    // 5+3: each seat's quota starts at 3 s and gains 1 s a move, so the quota never binds here.
    let (id, tokens) = server.create(two_people("5+3"));
    let (watched, _watching) = server.stream(&id, None, true);
    let (events, _connection) = server.stream(&id, Some(&tokens[0]), true);
    // Seat 0 answers its pings late, as a slow connection would: each answer 400 ms after the
    // ping arrived, so each round trip is at least that and each sample at least 200 ms.
    let delay = Duration::from_millis(400);
    let mut measured = 0;
    for samples in 1..=3 {
        let ping = Server::next_ping(&events, Duration::from_secs(30));
        std::thread::sleep(delay);
        let (status, answer) = server.post(&format!("/api/games/{id}/pong"), json!({"token": tokens[0], "ping": ping}));
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["samples"], samples, "{answer}");
        measured = answer["lag_ms"].as_u64().unwrap();
        assert!((200..=1000).contains(&measured), "half a round trip of at least 400 ms, at most 1 s: {answer}");
    }
    // The clocks start after each side's first move; then seat 0 claims a whole second of lag
    // and is credited what the server measured plus the 100 ms margin, no more.
    assert_eq!(server.play_with_lag(&id, &tokens[0], 0, Some(1000)).0, 200);
    assert_eq!(server.play_with_lag(&id, &tokens[1], 1, None).0, 200);
    let (status, state) = server.play_with_lag(&id, &tokens[0], 2, Some(1000));
    assert_eq!(status, 200, "{state}");
    assert_eq!(compensated(&state, 2), (measured + 100).min(1000), "{state}");
    // Seat 1, never measured here, is credited what it reports (at most 1 s), as before.
    let (status, state) = server.play_with_lag(&id, &tokens[1], 3, Some(700));
    assert_eq!(status, 200, "{state}");
    assert_eq!(compensated(&state, 3), 700, "{state}");
    // Reporting less than measured gets what is reported; reporting nothing gets the measure.
    let (status, state) = server.play_with_lag(&id, &tokens[0], 4, Some(30));
    assert_eq!(status, 200, "{state}");
    assert_eq!(compensated(&state, 4), 30, "{state}");
    assert_eq!(server.play_with_lag(&id, &tokens[1], 5, None).0, 200);
    let (status, state) = server.play_with_lag(&id, &tokens[0], 6, None);
    assert_eq!(status, 200, "{state}");
    assert_eq!(compensated(&state, 6), measured, "{state}");
    // The watcher asked for pings too and got none: only states (its stream was opened first,
    // and has seen the last move's state).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (name, data) = watched.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("states");
        assert_eq!(name, "state", "a watcher's stream is never pinged: {data}");
        if data["moves_from"].as_u64().unwrap_or(0) + data["moves"].as_array().map_or(0, |m| m.len() as u64) == 7 {
            break;
        }
    }
}

#[test]
fn pings_are_answered_by_their_seat_only_and_bad_answers_change_nothing() {
    let server = Server::with(|config| config.ping_interval = Duration::from_millis(1500));
    let (id, tokens) = server.create(two_people("3+2"));
    let (events, _connection) = server.stream(&id, Some(&tokens[0]), true);
    let ping = Server::next_ping(&events, Duration::from_secs(30));
    let pong = format!("/api/games/{id}/pong");
    // A watcher (no token, or one that holds no seat) cannot answer.
    assert_eq!(server.post(&pong, json!({"ping": ping})).0, 400);
    assert_eq!(server.post(&pong, json!({"token": "0".repeat(32), "ping": ping})).0, 403);
    // Another seat cannot answer seat 0's ping.
    let (status, answer) = server.post(&pong, json!({"token": tokens[1], "ping": ping}));
    assert_eq!(status, 409, "{answer}");
    // Malformed, huge, extra or negative: refused.
    for body in [
        json!({"token": tokens[0], "ping": "zz"}),
        json!({"token": tokens[0], "ping": "f".repeat(5000)}),
        json!({"token": tokens[0], "ping": -1}),
        json!({"token": tokens[0], "ping": ping, "lag_ms": 5}),
        json!({"token": tokens[0], "ping": ping, "rtt": -5}),
    ] {
        assert_eq!(server.post(&pong, body.clone()).0, 400, "{body}");
    }
    assert_eq!(
        server.post(&format!("/api/games/{}/pong", "0".repeat(32)), json!({"token": tokens[0], "ping": ping})).0,
        404
    );
    // None of that counted: the ping still waits for seat 0, and is its first sample.
    let (status, answer) = server.post(&pong, json!({"token": tokens[0], "ping": ping}));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["samples"], 1, "{answer}");
    // Answered once only.
    assert_eq!(server.post(&pong, json!({"token": tokens[0], "ping": ping})).0, 409);
    // A stream that does not ask for pings gets none; nor does an unlimited game's.
    let (plain, _plain_connection) = server.stream(&id, Some(&tokens[1]), false);
    let (unlimited, unlimited_tokens) = server.create(two_people("none"));
    let (unlimited_events, _unlimited_connection) = server.stream(&unlimited, Some(&unlimited_tokens[0]), true);
    assert_eq!(server.play(&id, &tokens[0], 0).0, 200);
    assert_eq!(server.play(&unlimited, &unlimited_tokens[0], 0).0, 200);
    for receiver in [&plain, &unlimited_events] {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (name, data) =
                receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("states");
            assert_eq!(name, "state", "{data}");
            if data["event"]["kind"] == "move" {
                break;
            }
        }
    }
}
