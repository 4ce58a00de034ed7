//! The JSON API against a server on a free loopback port: every endpoint, the error statuses,
//! tokens, concurrent moves, restart persistence (in process and after kill -9 of the binary).

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A minimal HTTP/1.1 client: one request per connection.
async fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    let status: u16 = text.split_whitespace().nth(1).unwrap().parse().unwrap();
    let payload = text.split("\r\n\r\n").nth(1).unwrap_or("");
    // Bodies may arrive chunked: keep the JSON between the first '{' and the last '}'.
    let json = match (payload.find(['{', '[']), payload.rfind(['}', ']'])) {
        (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    (status, json)
}

/// A game's state as the seat holding `token` sees it (the token in the Authorization header).
async fn state_as(addr: SocketAddr, id: &str, token: &str) -> Value {
    let answer = tabletop_client::client::state_as(addr, None, id, Some(token), Duration::from_secs(20)).await.unwrap();
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

#[path = "support/pg.rs"]
mod pg;

/// The database a test names by a file: that file with SQLite, or with
/// `TABLETOP_TEST_BACKEND=postgres` a fresh PostgreSQL database of its own (the same one each
/// time the test names the same file, as a restart does).
fn backend_db(db: &Path) -> std::path::PathBuf {
    if !std::env::var("TABLETOP_TEST_BACKEND").is_ok_and(|b| b == "postgres") {
        return db.to_path_buf();
    }
    static MADE: std::sync::Mutex<Vec<(std::path::PathBuf, String)>> = std::sync::Mutex::new(Vec::new());
    let mut made = MADE.lock().unwrap();
    if let Some((_, url)) = made.iter().find(|(path, _)| path == db) {
        return url.into();
    }
    let url = pg::fresh_database();
    made.push((db.to_path_buf(), url.clone()));
    url.into()
}

/// Is this suite running against PostgreSQL? Tests of SQLite's own files say so and stop.
fn skip_unless_sqlite(test: &str) -> bool {
    let postgres = std::env::var("TABLETOP_TEST_BACKEND").is_ok_and(|b| b == "postgres");
    if postgres {
        eprintln!("{test}: about SQLite's file, not run against PostgreSQL");
    }
    postgres
}

async fn start(db: &Path) -> SocketAddr {
    start_with_seed(db, None).await
}

/// [`start`] with the server's game seed (`tabletop serve --game-seed`): Mathable's bags repeat.
async fn start_with_seed(db: &Path, game_seed: Option<u64>) -> SocketAddr {
    let config = tabletop_web::ServeConfig {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        db: backend_db(db),
        create_rate: 100_000,
        hint_rate: 100_000,
        game_seed,
        ..tabletop_web::ServeConfig::default()
    };
    let server = tabletop_web::start(config).await.unwrap();
    let addr = server.addr;
    // The server lives as long as the test's runtime.
    std::mem::forget(server);
    addr
}

async fn create(addr: SocketAddr, seats: Value) -> (String, Vec<String>) {
    let body = json!({"game": "slide", "options": {"size": 3, "empty": 1}, "seats": seats}).to_string();
    let (status, created) = request(addr, "POST", "/api/games", Some(&body)).await;
    assert_eq!(status, 200, "{created}");
    // Computer seats have no token (null).
    let tokens = created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap_or("").to_string()).collect();
    (created["id"].as_str().unwrap().to_string(), tokens)
}

fn move_body(mv: &str, token: &str, ply: Option<usize>) -> String {
    json!({"move": mv, "token": token, "ply": ply}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_endpoint_and_error_status() {
    let dir = tempdir();
    let addr = start(&dir.join("api.db")).await;
    let (status, page) = request(addr, "GET", "/", None).await;
    assert_eq!((status, page), (200, Value::Null));
    let (id, tokens) = create(addr, json!(["human", "human"])).await;
    assert_eq!(tokens.len(), 2);
    assert_ne!(tokens[0], tokens[1]);
    // Moves: legal, illegal (422, the terminal's reason), wrong turn (409), no seat (403).
    let (status, state) =
        request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("5", &tokens[0], Some(0)))).await;
    assert_eq!(status, 200);
    assert_eq!(state["moves"], json!(["5"]));
    let (status, err) =
        request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("5", &tokens[1], None))).await;
    assert_eq!((status, err["error"].as_str().unwrap()), (422, "square 5 is not empty"));
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("1", &tokens[0], None))).await;
    assert_eq!(status, 409, "not seat 0's turn");
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("1", "forged", None))).await;
    assert_eq!(status, 403);
    let (status, _) = request(addr, "POST", &format!("/api/games/{id}/moves"), Some("{\"move\": 5}")).await;
    assert_eq!(status, 400);
    let (status, _) = request(addr, "GET", "/api/games/0123", None).await;
    assert_eq!(status, 404);
    let big = format!("{{\"game\":\"slide\",\"options\":{{\"pad\":\"{}\"}}}}", "x".repeat(64 * 1024));
    let (status, _) = request(addr, "POST", "/api/games", Some(&big)).await;
    assert_eq!(status, 413);
    let (status, err) = request(addr, "POST", "/api/games", Some(r#"{"game":"slide","options":{"size":9}}"#)).await;
    assert_eq!(status, 400);
    assert!(err["error"].as_str().unwrap().contains("board size 9"));
    let (status, err) =
        request(addr, "POST", "/api/games", Some(r#"{"game":"slide","seats":["human","wizard"]}"#)).await;
    assert_eq!(status, 400);
    assert!(err["error"].as_str().unwrap().contains("valid players"));
    // Between people without hints allowed: no hint for anyone, with or without a token.
    let (status, _) = request(addr, "POST", &format!("/api/games/{id}/hint"), Some("{}")).await;
    assert_eq!(status, 403);
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/hint"), Some(&json!({"token": tokens[1]}).to_string())).await;
    assert_eq!(status, 403);
    // Takeback between people: seat 1 cannot take back seat 0's move; seat 0 asks, seat 1 accepts.
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/undo"), Some(&json!({"token": tokens[1]}).to_string())).await;
    assert_eq!(status, 422);
    let (status, state) =
        request(addr, "POST", &format!("/api/games/{id}/undo"), Some(&json!({"token": tokens[0]}).to_string())).await;
    assert_eq!(
        (status, state["moves"].clone(), state["proposal"]["kind"].clone()),
        (200, json!(["5"]), json!("takeback"))
    );
    let answer = json!({"token": tokens[1], "accept": true}).to_string();
    let (status, state) = request(addr, "POST", &format!("/api/games/{id}/proposal"), Some(&answer)).await;
    assert_eq!((status, state["moves"].clone()), (200, json!([])));
    // Resigning loses.
    let (status, state) =
        request(addr, "POST", &format!("/api/games/{id}/resign"), Some(&json!({"token": tokens[0]}).to_string())).await;
    assert_eq!(status, 200);
    assert_eq!(state["status"]["over"], true);
    assert_eq!(state["status"]["winners"], json!([1]), "the resigning seat loses");
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("1", &tokens[0], None))).await;
    assert_eq!(status, 422, "no moves after resignation");
    // No public list of games.
    let (status, list) = request(addr, "GET", "/api/games", None).await;
    assert_eq!(status, 405);
    assert!(list["error"].is_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_answers_off_the_request() {
    let dir = tempdir();
    let addr = start(&dir.join("computer.db")).await;
    let (id, tokens) = create(addr, json!(["human", "classic:levels=1"])).await;
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("5", &tokens[0], Some(0)))).await;
    assert_eq!(status, 200);
    let mut moves = 0;
    for _ in 0..100 {
        let (_, state) = request(addr, "GET", &format!("/api/games/{id}"), None).await;
        moves = state["moves"].as_array().unwrap().len();
        if moves == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(moves, 2, "the computer replied");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_moves_exactly_one_wins() {
    let dir = tempdir();
    let addr = start(&dir.join("race.db")).await;
    for round in 0..10 {
        let (id, tokens) = create(addr, json!(["human", "human"])).await;
        let path = format!("/api/games/{id}/moves");
        let a = tokio::spawn({
            let (path, body) = (path.clone(), move_body(&(1 + round % 9).to_string(), &tokens[0], Some(0)));
            async move { request(addr, "POST", &path, Some(&body)).await.0 }
        });
        let b = tokio::spawn({
            let (path, body) = (path.clone(), move_body(&(1 + (round + 4) % 9).to_string(), &tokens[0], Some(0)));
            async move { request(addr, "POST", &path, Some(&body)).await.0 }
        });
        let mut statuses = [a.await.unwrap(), b.await.unwrap()];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "round {round}");
        let (_, state) = request(addr, "GET", &format!("/api/games/{id}"), None).await;
        assert_eq!(state["moves"].as_array().unwrap().len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_survive_a_restart() {
    let dir = tempdir();
    let db = dir.join("restart.db");
    let addr = start(&db).await;
    let (id, tokens) = create(addr, json!(["human", "human"])).await;
    for (ply, mv) in ["1", "2", "3"].iter().enumerate() {
        let (status, _) =
            request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body(mv, &tokens[ply % 2], Some(ply))))
                .await;
        assert_eq!(status, 200);
    }
    // A second server on the same file (the first one's memory is not shared).
    let again = start(&db).await;
    let (status, state) = request(again, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(state["moves"], json!(["1", "2", "3"]));
    let (status, _) =
        request(again, "POST", &format!("/api/games/{id}/moves"), Some(&move_body("4", &tokens[1], Some(3)))).await;
    assert_eq!(status, 200, "the game continues");
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tabletop-web-{}-{}", std::process::id(), rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_benchmark_loses_nothing() {
    if skip_unless_sqlite("load_benchmark_loses_nothing") {
        return;
    }
    let dir = tempdir();
    let settings = tabletop_client::bench::LoadSettings {
        games: 20,
        max_moves: 10,
        max_time: Duration::from_secs(20),
        think: Duration::ZERO,
    };
    let report = tabletop_client::bench::load_benchmark(settings, &dir.join("load.db")).await.unwrap();
    assert_eq!(report.lost, 0);
    assert!(report.moves > 100 && report.moves <= 200, "20 seeded games of at most 10 moves: {}", report.moves);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mathable_racks_are_shown_only_to_their_seat() {
    let dir = tempdir();
    // A seeded bag: with a random one, the first rack sometimes allows no placement at all
    // (only swaps), and the test failed on a fresh clone.
    let addr = start_with_seed(&dir.join("mathable.db"), Some(1)).await;
    let body = json!({"game": "mathable", "options": {"preset": "classic", "players": 3}, "seats": ["human", "human", "human"]});
    let (status, created) = request(addr, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap();
    assert!(created["state"]["options"].get("seed").is_none(), "the bag's seed stays on the server");
    let tokens: Vec<&str> = created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let (_, spectator) = request(addr, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(spectator["board"]["racks"], json!([7, 7, 7]));
    assert_eq!(spectator["legal"], json!([]));
    assert!(spectator["position"].is_null(), "the notation would reveal the racks");
    let seat1 = state_as(addr, id, tokens[1]).await;
    assert!(seat1["board"]["racks"][1].is_array() && seat1["board"]["racks"][0].is_u64());
    assert_eq!(seat1["legal"], json!([]), "seat 1 is not to move");
    let seat0 = state_as(addr, id, tokens[0]).await;
    let legal = seat0["legal"].as_array().unwrap();
    let placement = legal
        .iter()
        .find(|m| m.as_str().unwrap().contains('=') && !m.as_str().unwrap().starts_with("swap"))
        .unwrap_or_else(|| panic!("the seeded first rack allows a placement: {legal:?}"));
    let mv = json!({"move": placement, "token": tokens[0], "ply": 0}).to_string();
    let (status, after) = request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&mv)).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["board"]["racks"][0].as_array().unwrap().len(), 6);
    let bad = json!({"move": "A1=90", "token": tokens[0]}).to_string();
    let (status, err) = request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&bad)).await;
    assert_eq!(status, 422, "{err}");
}

/// A database written by the first release (no schema version, Mathable's seed among the public
/// options) is migrated in place: its games load, the seed moves out of sight, the racks are the
/// ones that seed deals, and new moves are stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_release_database_is_migrated() {
    if skip_unless_sqlite("a_first_release_database_is_migrated") {
        return;
    }
    use tabletop::games::mathable::{Mathable, Preset, Settings};
    use tabletop::Game;
    let dir = tempdir();
    let db = dir.join("old.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL, seats TEXT NOT NULL,
                                 tokens TEXT NOT NULL, ended TEXT, created INTEGER NOT NULL);
             CREATE TABLE moves (game_id TEXT NOT NULL REFERENCES games(id), ply INTEGER NOT NULL,
                                 notation TEXT NOT NULL, PRIMARY KEY (game_id, ply));
             CREATE INDEX games_by_time ON games(created);
             INSERT INTO games VALUES ('0123456789abcdef0123456789abcdef', 'mathable',
                 '{\"preset\":\"classic\",\"players\":2,\"seed\":77}', '[\"human\",\"human\"]', '[\"t0\",\"t1\"]', NULL, 1);
             INSERT INTO games VALUES ('fedcba9876543210fedcba9876543210', 'reversi', '{}',
                 '[\"engine:time=50ms\",\"human\"]', '[\"c0\",\"c1\"]', NULL, 2);",
        )
        .unwrap();
    }
    let addr = start(&db).await;
    // The old Reversi game, whose computer moves first, resumes at start: nobody asks for it.
    let computer_moved = async {
        for _ in 0..100 {
            let conn = rusqlite::Connection::open(&db).unwrap();
            let moves: i64 = conn
                .query_row("SELECT COUNT(*) FROM moves WHERE game_id = 'fedcba9876543210fedcba9876543210'", [], |r| {
                    r.get(0)
                })
                .unwrap();
            if moves > 0 {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    };
    assert!(computer_moved.await, "the first release's game waiting for its computer resumed");
    let id = "0123456789abcdef0123456789abcdef";
    let state = state_as(addr, id, "t0").await;
    assert!(state["options"].get("seed").is_none(), "the old public seed is hidden now");
    let dealt = Mathable::start(&Settings::preset(Preset::Classic).with_seed(77));
    let expected: Vec<u8> = dealt.rack(tabletop::Seat(0)).as_slice().to_vec();
    assert_eq!(state["board"]["racks"][0], json!(expected), "the racks the stored seed deals");
    let end = json!({"move": "end", "token": "t0", "ply": 0}).to_string();
    let (status, _) = request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&end)).await;
    assert_eq!(status, 200);
    let version: i64 =
        rusqlite::Connection::open(&db).unwrap().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version, 11, "the schema is at the latest version");
    // Games stored before clocks keep working as unlimited games.
    assert_eq!(state["clock"], Value::Null, "an older game has no clock");
    // Its seats have no single-use invitations: their links carry the tokens, which still hold them.
    assert_eq!(state["players"][1]["invite"], Value::Null);
}

/// Analysis: exact values for the person to move against the computer, nothing for a watcher
/// during the game, every past position for anyone once it is over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_for_the_mover_and_after_the_game() {
    use tabletop::games::connect::{solver::Solver, Connect, ConnectVariant};
    use tabletop::Game;
    let dir = tempdir();
    let addr = start(&dir.join("analysis.db")).await;
    let body = json!({"game": "connect", "options": {"preset": "connect3"}, "seats": ["human", "human"]});
    let (status, created) = request(addr, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, 200);
    let id = created["id"].as_str().unwrap();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    let analysis = |token: Option<&str>, ply: Option<usize>| {
        let body = json!({"token": token, "ply": ply}).to_string();
        let path = format!("/api/games/{id}/analysis");
        async move { request(addr, "POST", &path, Some(&body)).await }
    };
    // Between people without hints: nobody may analyse during the game.
    assert_eq!(analysis(Some(&tokens[0]), None).await.0, 403);
    assert_eq!(analysis(None, None).await.0, 403);
    // Play to the end: X wins with the column 2 (1-based) stack.
    for (ply, mv) in ["2", "1", "2", "1", "2"].iter().enumerate() {
        let (status, state) =
            request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body(mv, &tokens[ply % 2], Some(ply))))
                .await;
        assert_eq!(status, 200, "{state}");
    }
    // After the game a watcher may analyse any position: the values are the solver's.
    let (status, answer) = analysis(None, Some(1)).await;
    assert_eq!(status, 200, "{answer}");
    let variant = ConnectVariant::connect3();
    let position = Connect::from_notation(&variant, "2").unwrap();
    let mut solver = Solver::new(variant, 1 << 16);
    for entry in answer["moves"].as_array().unwrap() {
        let mut child = position.clone();
        child.play(child.parse_move(entry["move"].as_str().unwrap()).unwrap()).unwrap();
        let exact = -solver.solve(&child);
        assert_eq!(entry["score"].as_i64().unwrap(), i64::from(exact), "{entry}");
        assert_eq!(entry["exact"], true);
    }
    assert_eq!(analysis(None, Some(99)).await.0, 400);
}

/// The Connect Four position of the refinement test: in a debug build (the tests'), step 0 and
/// step 1 of its analysis leave one column open, step 2 solves it (`tabletop analyze connect
/// --position 44453532261 --time 1500ms|3s|5s`; `4453` stays open at every step there).
const REFINED: &str = "44453532261";

/// Refinement (issue 27): the mover asks for steps 0, 1, 2 of the analysis of a Connect Four
/// position whose step 0 leaves moves open; each step values at least as many moves exactly as
/// the one before, keeps the earlier exact values, and repeats itself; steps past the last or
/// malformed are refused (400); watchers and strangers get nothing during the game and only step
/// 0 after it, the game's players every step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_refines_in_reproducible_steps() {
    let dir = tempdir();
    let addr = start(&dir.join("refine.db")).await;
    let body = json!({"game": "connect", "options": {}, "seats": ["human", "human"], "hints": true});
    let (status, created) = request(addr, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    for (ply, mv) in REFINED.chars().enumerate() {
        let path = format!("/api/games/{id}/moves");
        let (status, state) =
            request(addr, "POST", &path, Some(&move_body(&mv.to_string(), &tokens[ply % 2], Some(ply)))).await;
        assert_eq!(status, 200, "{state}");
    }
    let mover = tokens[REFINED.len() % 2].clone();
    let ask = |body: Value| {
        let path = format!("/api/games/{id}/analysis");
        async move { request(addr, "POST", &path, Some(&body.to_string())).await }
    };
    // Malformed and out-of-range steps: 400, saying what is allowed.
    for bad in
        [json!(-1), json!(1.5), json!("1"), json!(4_294_967_296u64), json!(1e300), json!(3), json!(4_000_000_000u32)]
    {
        let (status, answer) = ask(json!({"token": mover, "step": bad})).await;
        assert_eq!(status, 400, "step {bad}: {answer}");
        assert!(answer["error"].as_str().is_some_and(|e| !e.is_empty()), "{answer}");
    }
    let (_, answer) = ask(json!({"token": mover, "step": 3})).await;
    assert!(answer["error"].as_str().unwrap().contains("the steps are 0 to 2"), "{answer}");
    // During the game, nobody but the mover: the same refusal at every step.
    for token in [None, Some("forged"), Some(tokens[1 - REFINED.len() % 2].as_str())] {
        for step in [0, 1, 2] {
            assert_eq!(ask(json!({"token": token, "step": step})).await.0, 403, "{token:?} step {step}");
        }
    }
    // The mover's steps.
    let exact_of = |answer: &Value| -> std::collections::BTreeMap<String, i64> {
        answer["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["exact"] == true)
            .map(|m| (m["move"].as_str().unwrap().to_string(), m["score"].as_i64().unwrap()))
            .collect()
    };
    let mut answers = Vec::new();
    for step in 0..=2u32 {
        let (status, answer) = ask(json!({"token": mover, "step": step})).await;
        assert_eq!(status, 200, "step {step}: {answer}");
        assert_eq!(answer["step"], step);
        assert_eq!(answer["last_step"], 2, "1.5 s, 3 s, 5 s with --max-think 10");
        assert_eq!(answer["moves"].as_array().unwrap().len(), 7);
        let open = answer["open"].as_array().unwrap().len();
        assert_eq!(open, 7 - exact_of(&answer).len(), "{answer}");
        assert_eq!(answer["refinable"], open > 0 && step < 2, "step {step}: {answer}");
        answers.push(answer);
    }
    let counts: Vec<usize> = answers.iter().map(|a| exact_of(a).len()).collect();
    assert!(counts[0] < 7, "step 0 leaves moves open: {}", answers[0]);
    for k in 0..2 {
        assert!(counts[k + 1] >= counts[k], "step {} solved fewer moves: {counts:?}", k + 1);
        for (mv, score) in exact_of(&answers[k]) {
            assert_eq!(exact_of(&answers[k + 1]).get(&mv), Some(&score), "column {mv} at step {}", k + 1);
        }
    }
    assert!(counts[2] > counts[0], "refining solved more moves: {counts:?}");
    // The same step, the same answer.
    assert_eq!(ask(json!({"token": mover, "step": 1})).await.1, answers[1]);
    // After the game: anyone gets step 0 (not refinable for a watcher), only players refine.
    let (status, _) =
        request(addr, "POST", &format!("/api/games/{id}/resign"), Some(&json!({"token": mover}).to_string())).await;
    assert_eq!(status, 200);
    let ply = REFINED.len();
    let (status, watched) = ask(json!({"ply": ply})).await;
    assert_eq!(status, 200, "{watched}");
    assert_eq!(watched["moves"], answers[0]["moves"], "the same step 0 for a watcher");
    assert_eq!(watched["refinable"], false, "a watcher cannot refine");
    for token in [None, Some("forged")] {
        let (status, refused) = ask(json!({"token": token, "ply": ply, "step": 1})).await;
        assert_eq!(status, 403, "{token:?}: {refused}");
    }
    let (status, refined) = ask(json!({"token": tokens[0], "ply": ply, "step": 1})).await;
    assert_eq!(status, 200, "{refined}");
    assert_eq!(refined["moves"], answers[1]["moves"], "a player refines the finished game as during it");
}

/// Review: refused while a game goes on (to the players and to watchers: a Mathable game's racks
/// stay hidden), for anyone once it is over, with the solver's values and the same answer for
/// every request (computed once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_only_after_the_game_with_the_solvers_values() {
    use tabletop::games::connect::{solver::Solver, Connect, ConnectVariant};
    use tabletop::Game;
    let dir = tempdir();
    let addr = start(&dir.join("review.db")).await;
    // A Mathable game in progress: nobody may review it (its positions hold every rack).
    let body = json!({"game": "mathable", "seats": ["human", "human"]});
    let (status, created) = request(addr, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, 200, "{created}");
    let mathable = created["id"].as_str().unwrap().to_string();
    let (status, err) = request(addr, "GET", &format!("/api/games/{mathable}/review"), None).await;
    assert_eq!(status, 409, "{err}");
    assert!(err["error"].as_str().unwrap_or_default().contains("finished"), "{err}");
    // Connect Three between two people, played to the end.
    let body = json!({"game": "connect", "options": {"preset": "connect3"}, "seats": ["human", "human"]});
    let (status, created) = request(addr, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(status, 200);
    let id = created["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
    let path = format!("/api/games/{id}/review");
    let moves = ["2", "1", "2", "1", "2"];
    for (ply, mv) in moves.iter().enumerate() {
        let (status, _) = request(addr, "GET", &path, None).await;
        assert_eq!(status, 409, "no review during the game (ply {ply})");
        let (status, state) =
            request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body(mv, &tokens[ply % 2], Some(ply))))
                .await;
        assert_eq!(status, 200, "{state}");
    }
    // A watcher (no token) gets the review of the finished game.
    let (status, review) = request(addr, "GET", &path, None).await;
    assert_eq!(status, 200, "{review}");
    let reviewed = review["moves"].as_array().unwrap();
    assert_eq!(reviewed.len(), moves.len());
    assert_eq!(review["values"].as_array().unwrap().len(), moves.len() + 1);
    assert_eq!(review["seats"], json!(["X", "O"]));
    let variant = ConnectVariant::connect3();
    let mut solver = Solver::new(variant, 1 << 16);
    for (ply, entry) in reviewed.iter().enumerate() {
        let position = Connect::from_notation(&variant, &moves[..ply].concat()).unwrap();
        let scores = solver.solve_moves(&position);
        let best = scores.iter().flatten().max().copied().unwrap();
        let played = scores[moves[ply].parse::<usize>().unwrap() - 1].unwrap();
        assert_eq!(entry["score_before"], best, "{entry}");
        assert_eq!(entry["score_after"], played, "{entry}");
        assert_eq!(entry["loss"].as_f64().unwrap(), f64::from(best - played), "{entry}");
    }
    // O was lost already; its second 1 (not blocking column 2) loses two moves sooner: below
    // the inaccuracy threshold (3), no mark.
    assert_eq!(reviewed[3]["loss_text"], "loss sooner", "{}", reviewed[3]);
    assert_eq!(reviewed[3]["mark"], Value::Null, "{}", reviewed[3]);
    // Asked again: the same review (the cached one).
    let (status, again) = request(addr, "GET", &path, None).await;
    assert_eq!(status, 200);
    assert_eq!(again, review);
    let (status, _) = request(addr, "GET", "/api/games/nosuchgame/review", None).await;
    assert_eq!(status, 404);
}

/// Past boards for stepping: the board after each move is the one the state showed then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_boards_are_the_positions_played() {
    let dir = tempdir();
    let addr = start(&dir.join("boards.db")).await;
    let (id, tokens) = create(addr, json!(["human", "human"])).await;
    let mut seen = Vec::new();
    let (_, state) = request(addr, "GET", &format!("/api/games/{id}"), None).await;
    seen.push(state["board"]["cells"].clone());
    for (ply, mv) in ["5", "1", "9", "3"].iter().enumerate() {
        let (status, state) =
            request(addr, "POST", &format!("/api/games/{id}/moves"), Some(&move_body(mv, &tokens[ply % 2], Some(ply))))
                .await;
        assert_eq!(status, 200);
        seen.push(state["board"]["cells"].clone());
    }
    for (ply, cells) in seen.iter().enumerate() {
        let (status, past) = request(addr, "GET", &format!("/api/games/{id}/boards/{ply}"), None).await;
        assert_eq!(status, 200);
        assert_eq!(&past["board"]["cells"], cells, "ply {ply}");
    }
    let (status, err) = request(addr, "GET", &format!("/api/games/{id}/boards/5"), None).await;
    assert_eq!(status, 400, "{err}");
}

/// `--game-seed` (tests only) makes the bags repeat: two servers with the same seed deal the
/// same racks to their first games; without it, bags are random.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_seed_makes_bags_repeat() {
    async fn first_rack(seed: Option<u64>) -> Value {
        let dir = tempdir();
        let config = tabletop_web::ServeConfig {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: backend_db(&dir.join("seeded.db")),
            game_seed: seed,
            ..tabletop_web::ServeConfig::default()
        };
        let server = tabletop_web::start(config).await.unwrap();
        let body = json!({"game": "mathable", "seats": ["human", "human"]}).to_string();
        let (status, created) = request(server.addr, "POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 200);
        let rack = created["state"]["board"]["racks"][0].clone();
        server.shutdown().await;
        rack
    }
    assert_eq!(first_rack(Some(7)).await, first_rack(Some(7)).await);
    let random: Vec<Value> = [first_rack(None).await, first_rack(None).await, first_rack(None).await].into();
    assert!(random.iter().any(|r| *r != random[0]), "three random bags dealt the same rack: {random:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reversi_levels_are_accepted_by_number_and_name_and_unknown_ones_refused() {
    let dir = tempdir();
    let addr = start(&dir.join("levels.db")).await;
    for seat in ["engine:level=1", "engine:level=Club", "engine:level=maximum", "engine:level=2,seed=9"] {
        let body = json!({"game": "reversi", "seats": ["human", seat]}).to_string();
        let (status, created) = request(addr, "POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 200, "{seat}: {created}");
    }
    for (seat, says) in [
        ("engine:level=11", "1 beginner, 2 novice"),
        ("engine:level=wizard", "10 maximum"),
        ("engine:level=3,time=1s", "a level sets its own depth and time"),
        ("engine:seed=3", "a seed only with a level"),
    ] {
        let body = json!({"game": "reversi", "seats": ["human", seat]}).to_string();
        let (status, err) = request(addr, "POST", "/api/games", Some(&body)).await;
        assert_eq!(status, 400, "{seat}: {err}");
        assert!(err["error"].as_str().unwrap().contains(says), "{seat}: {err}");
    }
}
