//! Two `tabletop serve` processes on one PostgreSQL database, as behind a load balancer: the
//! real binary, a real Postgres server (`TABLETOP_TEST_PG`, or one the test starts itself with
//! `scripts/pg-test-server`), and the database read back to check what the answers claimed.
//!
//! - whole games of every game with each request sent to the other process than the last;
//! - moves for one ply sent to both processes at once: exactly one accepted;
//! - an event stream on one process sees every move made through the other;
//! - a computer move whose process is killed (SIGKILL) is completed by the other process.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

#[path = "../../tabletop-client/tests/support/pg.rs"]
mod pg;
#[path = "support/serve.rs"]
mod serve;

use serve::spawn_server;

/// A running `tabletop serve` process.
struct Server {
    child: Child,
    addr: String,
}

impl Server {
    /// Starts `tabletop serve` on a free loopback port with the database `url`.
    fn start(url: &str) -> Server {
        let (child, addr) = spawn_server(
            url,
            &["--create-rate", "100000", "--hint-rate", "100000", "--move-rate", "1000000", "--move-burst", "1000000"],
        );
        Server { child, addr }
    }

    fn get(&self, path: &str) -> (u16, Value) {
        request(&self.addr, "GET", path, "", None)
    }

    fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        request(&self.addr, "POST", path, &body.to_string(), None)
    }

    /// A game's state as the seat holding `token` sees it (the token in the Authorization header).
    fn state_as(&self, id: &str, token: &str) -> (u16, Value) {
        request(&self.addr, "GET", &format!("/api/games/{id}"), "", Some(token))
    }

    /// SIGKILL: no chance to finish anything.
    fn kill(mut self) {
        self.child.kill().expect("kill -9");
        self.child.wait().expect("the server ends");
    }

    /// Opens the game's event stream here; each state it sends arrives on the receiver.
    fn events(&self, id: &str) -> mpsc::Receiver<Value> {
        self.events_as(id, None).0
    }

    /// Opens the game's event stream here as the seat `token` holds (if any); the stream stays
    /// open until the returned connection is dropped.
    fn events_as(&self, id: &str, token: Option<&str>) -> (mpsc::Receiver<Value>, TcpStream) {
        let mut stream = TcpStream::connect(&self.addr).expect("connects");
        // A seat's stream opens with a single-use ticket (no token in the URL).
        let query = token.map_or_else(String::new, |t| {
            let (status, answer) = self.post(&format!("/api/games/{id}/ticket"), &serde_json::json!({"token": t}));
            assert_eq!(status, 200, "a ticket: {answer}");
            format!("?ticket={}", answer["ticket"].as_str().expect("a ticket"))
        });
        // HTTP/1.0: the body is the raw stream, without chunk framing.
        write!(stream, "GET /api/games/{id}/events{query} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).expect("sends");
        let kept = stream.try_clone().expect("a second handle");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            // A stream's later states carry only the moves after `moves_from`: keep the list.
            let mut known: Vec<Value> = Vec::new();
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { return };
                if let Some(data) = line.strip_prefix("data:") {
                    if let Ok(mut state) = serde_json::from_str::<Value>(data.trim()) {
                        let new = state["moves"].as_array().cloned().unwrap_or_default();
                        if let Some(from) = state["moves_from"].as_u64() {
                            known.truncate(from as usize);
                            known.extend(new);
                        } else {
                            known = new;
                        }
                        state["moves"] = Value::Array(known.clone());
                        if sender.send(state).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        (receiver, kept)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request on its own connection.
fn request(addr: &str, method: &str, path: &str, body: &str, token: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("a timeout");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n")),
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

fn moves_of(state: &Value) -> Vec<String> {
    state["moves"].as_array().expect("moves").iter().map(|m| m.as_str().expect("a move").to_string()).collect()
}

/// The moves the database holds for a game, read with `psql`.
fn stored_moves(url: &str, id: &str) -> Vec<String> {
    let output = Command::new("psql")
        .args([
            "-X",
            "-At",
            "-d",
            url,
            "-c",
            &format!("SELECT notation FROM moves WHERE game_id = '{id}' ORDER BY ply"),
        ])
        .output()
        .expect("psql runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect()
}

/// Waits for a state with `plies` moves on an event stream.
fn until_plies(events: &mpsc::Receiver<Value>, plies: usize, what: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(state) if state["moves"].as_array().map_or(0, Vec::len) >= plies => return state,
            Ok(_) => {}
            Err(_) => panic!("{what}: no state with {plies} moves on the other process's stream"),
        }
    }
}

/// Whole games of every game, each request to the other process than the last; the event
/// stream on B sees every move, whichever process took it; the database holds every
/// acknowledged move.
#[test]
fn whole_games_alternate_between_two_processes() {
    let url = pg::fresh_database();
    let servers = [Server::start(&url), Server::start(&url)];
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let games = [
        json!({"game": "slide", "options": {"size": 3, "empty": 1}, "seats": ["human", "human"]}),
        json!({"game": "reversi", "seats": ["human", "human"]}),
        json!({"game": "connect", "options": {"width": 7, "height": 6, "connect": 4}, "seats": ["human", "human"]}),
        json!({"game": "mathable", "seats": ["human", "human"]}),
    ];
    for body in games {
        let name = body["game"].as_str().unwrap().to_string();
        let (status, created) = servers[0].post("/api/games", &body);
        assert_eq!(status, 200, "{created}");
        let id = created["id"].as_str().unwrap().to_string();
        let tokens: Vec<String> =
            created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
        let watched = servers[1].events(&id);
        let mut acknowledged = Vec::new();
        let mut request_count = 1usize;
        let mut over = false;
        // Slide's sliding phase can last; a few hundred plies show every kind of move.
        while acknowledged.len() < 300 {
            // The state, from the process the last request did not go to.
            let here = &servers[request_count % 2];
            request_count += 1;
            let (status, public) = here.get(&format!("/api/games/{id}"));
            assert_eq!(status, 200, "{public}");
            // (Mathable shows others an exchange only as "exchanged N tokens".)
            assert_eq!(moves_of(&public).len(), acknowledged.len(), "{name}: the other process knows every move");
            if name != "mathable" {
                assert_eq!(moves_of(&public), acknowledged, "{name}");
            }
            let Some(seat) = public["status"]["to_move"].as_u64() else {
                over = true;
                break;
            };
            let token = &tokens[seat as usize];
            let here = &servers[request_count % 2];
            request_count += 1;
            let (status, mine) = here.state_as(&id, token);
            assert_eq!(status, 200);
            let legal: Vec<String> =
                mine["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
            // Mathable: place tiles when one can (ending turns at once would only pass; and since
            // passing and exchanging never end a game, exchanging whenever one may would make it
            // last far beyond these plies). Its "terminate" among people is a proposal to the
            // others, not a move, so it is left to the proposal tests.
            let placing: Vec<&String> = legal.iter().filter(|m| m.contains('=') && !m.starts_with("swap")).collect();
            let moves: Vec<&String> = legal.iter().filter(|m| m.as_str() != "terminate").collect();
            let choice = match placing.choose(&mut rng) {
                Some(m) if name == "mathable" => (*m).clone(),
                _ => (*moves.choose(&mut rng).expect("a legal move")).clone(),
            };
            let here = &servers[request_count % 2];
            request_count += 1;
            let ply = acknowledged.len();
            let (status, answer) =
                here.post(&format!("/api/games/{id}/moves"), &json!({"move": choice, "token": token, "ply": ply}));
            assert_eq!(status, 200, "{name}: move {choice} at ply {ply}: {answer}");
            assert_eq!(moves_of(&answer).len(), ply + 1, "{name}: {answer}");
            // Our own record: Mathable shows a player only their own exchanges.
            acknowledged.push(choice);
            until_plies(&watched, ply + 1, &name);
        }
        if name != "slide" {
            assert!(over, "{name}: played to the end ({} moves)", acknowledged.len());
        }
        assert_eq!(stored_moves(&url, &id), acknowledged, "{name}: every acknowledged move is stored");
    }
}

/// Two moves for one ply, one to each process at the same moment: exactly one is accepted and
/// the other answers 409; both processes then show the same game.
#[test]
fn one_ply_two_processes_one_move() {
    let url = pg::fresh_database();
    let servers = std::sync::Arc::new([Server::start(&url), Server::start(&url)]);
    for round in 0..20 {
        let (status, created) = servers[round % 2].post(
            "/api/games",
            &json!({"game": "connect", "options": {"width": 7, "height": 6}, "seats": ["human", "human"]}),
        );
        assert_eq!(status, 200);
        let id = created["id"].as_str().unwrap().to_string();
        let token = created["tokens"][0].as_str().unwrap().to_string();
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let racers: Vec<_> = (0..2)
            .map(|side| {
                let (servers, barrier, id, token) = (servers.clone(), barrier.clone(), id.clone(), token.clone());
                std::thread::spawn(move || {
                    let column = if side == 0 { "3" } else { "5" };
                    barrier.wait();
                    servers[side]
                        .post(&format!("/api/games/{id}/moves"), &json!({"move": column, "token": token, "ply": 0}))
                })
            })
            .collect();
        let mut statuses: Vec<u16> = racers.into_iter().map(|r| r.join().unwrap().0).collect();
        statuses.sort_unstable();
        assert_eq!(statuses, [200, 409], "round {round}: exactly one move accepted");
        let a = moves_of(&servers[0].get(&format!("/api/games/{id}")).1);
        let b = moves_of(&servers[1].get(&format!("/api/games/{id}")).1);
        assert_eq!(a.len(), 1, "round {round}");
        assert_eq!(a, b, "round {round}: both processes show the same game");
        assert_eq!(stored_moves(&url, &id), a, "round {round}");
    }
}

/// Issue 25: one invitation opened at both processes at the same moment: exactly one person
/// gets the seat (a token that holds it, on both processes), the other is told it is taken, and
/// the database holds the claim once.
#[test]
fn one_invitation_opened_at_two_processes_gives_one_seat() {
    let url = pg::fresh_database();
    let servers = std::sync::Arc::new([Server::start(&url), Server::start(&url)]);
    for round in 0..12 {
        let (status, created) =
            servers[round % 2].post("/api/games", &json!({"game": "reversi", "seats": ["human", "human"]}));
        assert_eq!(status, 200);
        let id = created["id"].as_str().unwrap().to_string();
        let path = created["invites"][1]["path"].as_str().unwrap();
        let code = path.split_once("#invite=").expect("an invitation code").1.to_string();
        // Both processes hold the game (as after anyone looked at it), so both decide at once.
        for server in servers.iter() {
            assert_eq!(server.get(&format!("/api/games/{id}")).0, 200);
        }
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let racers: Vec<_> = (0..2)
            .map(|side| {
                let (servers, barrier, id, code) = (servers.clone(), barrier.clone(), id.clone(), code.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    servers[side].post(&format!("/api/games/{id}/claim"), &json!({"invite": code}))
                })
            })
            .collect();
        let answers: Vec<(u16, Value)> = racers.into_iter().map(|r| r.join().unwrap()).collect();
        let won: Vec<&Value> = answers.iter().filter(|(status, _)| *status == 200).map(|(_, a)| a).collect();
        let lost: Vec<&Value> = answers.iter().filter(|(status, _)| *status == 409).map(|(_, a)| a).collect();
        assert_eq!((won.len(), lost.len()), (1, 1), "round {round}: {answers:?}");
        assert_eq!(lost[0]["error"], "This invitation was already used: White is taken.");
        let token = won[0]["token"].as_str().unwrap();
        for server in servers.iter() {
            let (_, view) = server.state_as(&id, token);
            assert_eq!(view["your_seat"], 1, "round {round}: the winner holds White on both processes");
            assert_eq!(view["version"], 1, "round {round}: one claim stored");
        }
    }
}

/// A computer thinking in a process that is killed (SIGKILL): the other process takes the
/// move over once the lease expires, and the game goes on through it.
#[test]
fn a_killed_processs_computer_move_is_completed_by_the_other() {
    let url = pg::fresh_database();
    let thinker = Server::start(&url);
    let (status, created) =
        thinker.post("/api/games", &json!({"game": "reversi", "seats": ["engine:time=2s", "human"]}));
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["tokens"][1].as_str().unwrap().to_string();
    let (_, state) = thinker.get(&format!("/api/games/{id}"));
    assert_eq!(state["thinking"], json!(true), "the computer thinks in the first process");
    let other = Server::start(&url);
    let watched = other.events(&id);
    thinker.kill();
    let started = Instant::now();
    let moved = until_plies(&watched, 1, "the computer's move after the kill");
    let waited = started.elapsed();
    assert_eq!(moves_of(&moved).len(), 1);
    // Not thought twice: one move stored, and the game continues through the survivor.
    assert_eq!(stored_moves(&url, &id), moves_of(&moved));
    let legal = other.state_as(&id, &token).1["legal"][0].as_str().unwrap().to_string();
    let (status, answer) =
        other.post(&format!("/api/games/{id}/moves"), &json!({"move": legal, "token": token, "ply": 1}));
    assert_eq!(status, 200, "{answer}");
    until_plies(&watched, 3, "the computer's next move, in the survivor");
    let stored = stored_moves(&url, &id);
    assert!(stored.len() >= 3, "{stored:?}");
    eprintln!("the survivor moved {waited:?} after the kill (lease 3 s, then a 2 s search)");
}

/// Who is connected crosses processes: a person whose page is open on one process shows as
/// connected to someone asking the other, and as gone once the page closes.
#[test]
fn presence_crosses_processes() {
    let url = pg::fresh_database();
    let servers = [Server::start(&url), Server::start(&url)];
    let (status, created) = servers[0].post("/api/games", &json!({"game": "reversi", "seats": ["human", "human"]}));
    assert_eq!(status, 200);
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["tokens"][0].as_str().unwrap().to_string();
    let connected_on_b = || servers[1].get(&format!("/api/games/{id}")).1["players"][0]["connected"] == json!(true);
    // Within the time a missed notification takes to be made good (presence is repeated every
    // 10 s and trusted for 25 s): 5 s failed once at load 8, where the notification came late.
    let until = |want: bool, what: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while connected_on_b() != want {
            assert!(Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    assert!(!connected_on_b(), "nobody's page is open yet");
    let (_events, connection) = servers[0].events_as(&id, Some(&token));
    until(true, "the page open on A shows on B");
    connection.shutdown(std::net::Shutdown::Both).expect("closes");
    drop(connection);
    until(false, "the page closed on A shows on B");
    // A page open on A before B ever loaded the game: B learns of it when it loads the game.
    let (status, created) = servers[0].post("/api/games", &json!({"game": "reversi", "seats": ["human", "human"]}));
    assert_eq!(status, 200);
    let id = created["id"].as_str().unwrap().to_string();
    let token = created["tokens"][0].as_str().unwrap().to_string();
    let (events, _connection) = servers[0].events_as(&id, Some(&token));
    events.recv_timeout(Duration::from_secs(5)).expect("the page on A is connected");
    let deadline = Instant::now() + Duration::from_secs(30);
    while servers[1].get(&format!("/api/games/{id}")).1["players"][0]["connected"] != json!(true) {
        assert!(Instant::now() < deadline, "B learns of the page on A after loading the game");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The database drops every connection of both processes (a restart, a failover, an operator's
/// `pg_terminate_backend`): requests meanwhile answer 503 at worst, never 500; then moves work
/// again through both processes and the event streams (their listening connection made anew)
/// still see every move.
#[test]
fn dropped_database_connections_are_survived() {
    let url = pg::fresh_database();
    let servers = [Server::start(&url), Server::start(&url)];
    let (status, created) = servers[0].post("/api/games", &json!({"game": "connect", "seats": ["human", "human"]}));
    assert_eq!(status, 200);
    let id = created["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    let watched = servers[1].events(&id);
    until_plies(&watched, 0, "connected");
    let database = url.rsplit('/').next().unwrap().to_string();
    let kill_connections = format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' AND pid <> pg_backend_pid()"
    );
    let admin = pg::server_url();
    let mut ply = 0;
    for round in 0..3 {
        pg::psql(&admin, &kill_connections);
        // Keep trying the next move through alternating processes: 503 is fine, 500 is not.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let server = &servers[(ply + round) % 2];
            let (status, answer) = server.post(
                &format!("/api/games/{id}/moves"),
                &json!({"move": ((ply % 7) + 1).to_string(), "token": tokens[ply % 2], "ply": ply}),
            );
            assert!(status == 200 || status == 503, "round {round}: {status} {answer}");
            if status == 200 {
                break;
            }
            assert!(Instant::now() < deadline, "round {round}: moves still refused 10 s after the drop");
            std::thread::sleep(Duration::from_millis(100));
        }
        ply += 1;
        until_plies(&watched, ply, "the other process's stream after the drop");
    }
    assert_eq!(stored_moves(&url, &id).len(), ply);
}

/// A database that cannot be used stops the start with the server's own reason (not just "db
/// error"), and the URL's password is never printed.
#[test]
fn a_missing_database_is_refused_with_the_servers_reason() {
    let admin = pg::server_url();
    let missing = admin.rsplit_once('/').map(|(base, _)| format!("{base}/no_such_database")).unwrap();
    let with_password = missing.replacen("postgres@", "postgres:hunter2@", 1);
    let output = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", &with_password])
        .output()
        .expect("tabletop serve runs");
    assert!(!output.status.success(), "a database that does not exist is not served");
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(said.contains("\"no_such_database\" does not exist"), "the server's reason: {said}");
    assert!(!said.contains("hunter2"), "no password: {said}");
}
