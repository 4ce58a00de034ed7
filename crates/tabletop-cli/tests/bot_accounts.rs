//! Bots online (issue 59), with the real binary: a bot account plays a person through
//! `tabletop bot` (an engine, then the example Python bot of examples/), and loses on time when
//! its program hangs. Each test starts `tabletop serve` on a throw-away database (SQLite, or
//! PostgreSQL with `TABLETOP_TEST_BACKEND=postgres`), makes a bot account and its API token
//! through the API, runs `tabletop bot` with `--stop-after 1`, and plays the person's side
//! through the API as a script would.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "../../tabletop-client/tests/support/pg.rs"]
mod pg;
#[path = "support/serve.rs"]
mod serve;

/// A running `tabletop serve`, killed when dropped, with a scratch folder.
struct Server {
    child: Child,
    addr: String,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A unique scratch folder.
fn scratch() -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("tabletop-bot-test-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Server {
    fn start() -> Server {
        let dir = scratch();
        let db = if std::env::var("TABLETOP_TEST_BACKEND").is_ok_and(|b| b == "postgres") {
            pg::fresh_database()
        } else {
            dir.join("games.db").display().to_string()
        };
        let (child, addr) = serve::spawn_server(&db, &["--create-rate", "100000"]);
        Server { child, addr, dir }
    }

    /// One request: `headers` are extra header lines.
    fn request(&self, method: &str, path: &str, headers: &[String], body: Option<Value>) -> (u16, Value, String) {
        let body = body.map_or_else(String::new, |b| b.to_string());
        let mut stream = TcpStream::connect(&self.addr).expect("connects");
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        )
        .unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        let payload = text.split_once("\r\n\r\n").map_or("", |(_, p)| p);
        let json = match (payload.find('{'), payload.rfind('}')) {
            (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        (status, json, text)
    }

    /// A request as the server's own page sends it, logged in with `cookie`.
    fn as_page(&self, method: &str, path: &str, cookie: &str, body: Option<Value>) -> (u16, Value) {
        let headers = [
            format!("Origin: http://{}", self.addr),
            "Sec-Fetch-Site: same-origin".to_string(),
            format!("Cookie: tabletop_session={cookie}"),
        ];
        let (status, json, _) = self.request(method, path, &headers, body);
        (status, json)
    }

    /// Signs up `name`: its login cookie.
    fn account(&self, name: &str) -> String {
        let headers = [format!("Origin: http://{}", self.addr), "Sec-Fetch-Site: same-origin".to_string()];
        let body = json!({"name": name, "password": "a long enough password"});
        let (status, answer, text) = self.request("POST", "/api/account/signup", &headers, Some(body));
        assert_eq!(status, 200, "{answer}");
        let cookie = text.lines().find(|l| l.to_ascii_lowercase().starts_with("set-cookie:")).expect("a cookie");
        cookie.split_once('=').unwrap().1.split(';').next().unwrap().to_string()
    }

    /// Makes the bot account `name`, and a file holding its API token.
    fn bot_account(&self, name: &str) -> PathBuf {
        let cookie = self.account(name);
        let (status, answer) = self.as_page("POST", "/api/account/bot", &cookie, Some(json!({})));
        assert_eq!((status, &answer["bot"]), (200, &json!(true)), "{answer}");
        let (status, answer) = self.as_page("POST", "/api/account/token", &cookie, Some(json!({})));
        assert_eq!(status, 200, "{answer}");
        let token = answer["token"].as_str().expect("a token");
        let file = self.dir.join(format!("{name}.token"));
        std::fs::write(&file, format!("{token}\n")).unwrap();
        file
    }

    /// The game's state as the seat holding `token` sees it.
    fn state(&self, id: &str, token: &str) -> Value {
        let (status, state, _) =
            self.request("GET", &format!("/api/games/{id}"), &[format!("Authorization: Bearer {token}")], None);
        assert_eq!(status, 200, "{state}");
        state
    }
}

/// `tabletop bot` for one game, its standard error in a file.
fn run_bot(server: &Server, token_file: &PathBuf, player: &str) -> (Child, PathBuf) {
    run_bot_with(server, token_file, player, &[])
}

/// [`run_bot`] with more options.
fn run_bot_with(server: &Server, token_file: &PathBuf, player: &str, more: &[&str]) -> (Child, PathBuf) {
    let log = server.dir.join("bot.log");
    let child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["bot", "--server", &format!("http://{}", server.addr), "--token-file"])
        .arg(token_file)
        .args(["--player", player, "--stop-after", "1"])
        .args(more)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("tabletop bot runs");
    (child, log)
}

/// Waits for `child` to exit (within `patience`), answering whether it succeeded.
fn exited(child: &mut Child, patience: Duration) -> bool {
    let deadline = Instant::now() + patience;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tabletop bot did not stop within {patience:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Ann challenges the bot `bot` to Connect Four with `clock`: the game's id and Ann's seat token.
fn challenge(server: &Server, ann: &str, bot: &str, clock: &str) -> (String, String) {
    let body = json!({"game": "connect", "seats": ["human", "human"], "clock": clock, "challenge": bot});
    let (status, created) = server.as_page("POST", "/api/games", ann, Some(body));
    assert_eq!(status, 200, "{created}");
    assert_eq!(created["state"]["players"][1]["reserved_for"], bot, "{created}");
    (created["id"].as_str().unwrap().to_string(), created["tokens"][0].as_str().unwrap().to_string())
}

/// Ann's side: her first legal move whenever she is to move, until the game is over (within
/// `patience`); answers the final state.
fn play_person(server: &Server, id: &str, token: &str, patience: Duration) -> Value {
    let deadline = Instant::now() + patience;
    loop {
        let state = server.state(id, token);
        if state["status"]["over"] == true {
            return state;
        }
        assert!(Instant::now() < deadline, "the game did not end within {patience:?}: {state}");
        if state["status"]["to_move"] == 0 && state["players"][1]["player"].is_string() {
            let ply = state["moves"].as_array().unwrap().len();
            let mv = state["legal"][0].as_str().expect("a legal move").to_string();
            let (status, answer, _) = server.request(
                "POST",
                &format!("/api/games/{id}/moves"),
                &[],
                Some(json!({"move": mv, "token": token, "ply": ply})),
            );
            assert!(status == 200 || status == 409, "{answer}");
        } else {
            // The bot's turn (or its arrival): ask again shortly.
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A game between Ann and the bot played by `player`, to its end by the rules.
fn bot_plays_a_person(player: &str) {
    let server = Server::start();
    let token_file = server.bot_account("robo");
    let ann = server.account("ann");
    let (mut bot, log) = run_bot(&server, &token_file, player);
    let (id, token) = challenge(&server, &ann, "robo", "5+3");
    let end = play_person(&server, &id, &token, Duration::from_secs(120));
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
    assert!(exited(&mut bot, Duration::from_secs(30)), "tabletop bot failed: {}", log_text());
    // Ended by the rules: a result, no flag, no abort; the bot's seat is its account's, marked.
    assert!(end["result"]["ended_by"].is_null(), "{end}");
    assert!(!end["status"]["reason"].as_str().unwrap_or("").is_empty(), "{end}");
    assert_eq!(end["players"][1]["player"], "robo");
    assert_eq!(end["players"][1]["bot"], true);
    assert_eq!(end["players"][0]["bot"], false);
    // Every move the server took was legal (it refuses any other); the bot made half of them.
    let history = end["history"].as_array().unwrap();
    let by_bot = history.iter().filter(|h| h["seat"] == 1).count();
    assert!(by_bot >= 3, "{end}");
    let text = log_text();
    assert!(text.contains(&format!("game {id}: joined")), "{text}");
    assert!(text.contains(&format!("game {id}: over")), "{text}");
    // The token never shows in the bot's output.
    let token = std::fs::read_to_string(&token_file).unwrap();
    assert!(!text.contains(token.trim()), "{text}");
}

#[test]
fn an_engine_bot_plays_a_person_through_tabletop_bot() {
    bot_plays_a_person("engine:level=1");
}

#[test]
fn the_example_python_bot_plays_a_person_through_tabletop_bot() {
    let script = pg::repo_root().join("examples/connect_bot.py");
    bot_plays_a_person(&format!("external:cmd=\"python3 {}\"", script.display()));
}

#[test]
fn with_seeks_a_bot_takes_a_lobby_game_it_accepts() {
    let server = Server::start();
    let token_file = server.bot_account("robo");
    let ann = server.account("ann");
    // A rated seek first, which `--accept casual` leaves; then a casual one, which it takes.
    let seek = |rated: bool| {
        let body = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": rated});
        let (status, created) = server.as_page("POST", "/api/games", &ann, Some(body));
        assert_eq!(status, 200, "{created}");
        (created["id"].as_str().unwrap().to_string(), created["tokens"][0].as_str().unwrap().to_string())
    };
    let (rated, _) = seek(true);
    let (casual, token) = seek(false);
    let (mut bot, log) = run_bot_with(&server, &token_file, "engine:level=1", &["--seeks", "--accept", "casual"]);
    let end = play_person(&server, &casual, &token, Duration::from_secs(120));
    assert!(exited(&mut bot, Duration::from_secs(30)), "{}", std::fs::read_to_string(&log).unwrap_or_default());
    assert_eq!((&end["players"][1]["player"], &end["players"][1]["bot"]), (&json!("robo"), &json!(true)), "{end}");
    assert!(end["result"]["ended_by"].is_null(), "{end}");
    let left = server.state(&rated, "");
    assert_eq!(left["players"][1]["kind"], "open", "the rated seek is left: {left}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains(&format!("game {rated}: not taken")), "{text}");
}

#[test]
fn a_bot_whose_program_hangs_loses_on_time() {
    let server = Server::start();
    let token_file = server.bot_account("sleepy");
    let ann = server.account("ann");
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/bots/hang_after_first_move.py");
    let (mut bot, log) = run_bot(&server, &token_file, &format!("external:cmd=\"python3 {}\"", script.display()));
    let (id, token) = challenge(&server, &ann, "sleepy", "0:04+0");
    let end = play_person(&server, &id, &token, Duration::from_secs(60));
    assert_eq!(end["result"]["ended_by"], "flag", "{end}");
    assert_eq!(end["status"]["winners"], json!([0]), "the person wins: {end}");
    assert_eq!(end["history"].as_array().unwrap().len(), 3, "two first moves, Ann's second, then the bot hung: {end}");
    assert!(exited(&mut bot, Duration::from_secs(30)));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("loss"), "{text}");
}

#[test]
fn tabletop_bot_refuses_a_bad_url_token_or_player_clearly() {
    let server = Server::start();
    let token_file = server.bot_account("robo");
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_tabletop")).arg("bot").args(args).output().unwrap();
        assert!(!output.status.success(), "{args:?} should fail");
        String::from_utf8_lossy(&output.stderr).to_string()
    };
    let url = format!("http://{}", server.addr);
    let file = token_file.display().to_string();
    let wrong = server.dir.join("wrong.token");
    std::fs::write(&wrong, format!("tbot_{}", "0".repeat(64))).unwrap();
    let wrong = wrong.display().to_string();
    assert!(run(&["--server", "https://example.org", "--token-file", &file, "--player", "engine"]).contains("https"));
    assert!(run(&["--server", "example.org", "--token-file", &file, "--player", "engine"]).contains("http://"));
    assert!(run(&["--server", &url, "--token-file", "/nonexistent/token", "--player", "engine"])
        .contains("cannot read the token file"));
    assert!(run(&["--server", &url, "--token-file", &wrong, "--player", "engine"]).contains("refused the API token"));
    assert!(run(&["--server", &url, "--token-file", &file, "--player", "chess-engine"]).contains("can play no game"));
}
