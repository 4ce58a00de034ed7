//! Finding an opponent in `tabletop serve` (issue 59): seeks in the lobby with a rating range,
//! and quick pairing pools by time control, paired in waves.
//!
//! Each test runs a server in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`) and talks raw HTTP to it, as tests/ratings.rs does. Waves
//! run every 200 ms here; the tests wait for the server's answers (a poll saying paired, or
//! the time the entry waited by the server's clock), never for a fixed time.

mod support;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{Answer, Server, PASSWORD};

/// A server whose waves run every 200 ms (entries expire after the default 30 s unpolled).
fn server() -> Server {
    Server::with(|c| c.pool_wave = Duration::from_millis(200))
}

/// A game's state as a watcher (or, with `token`, its seat) sees it.
fn state(server: &Server, id: &str, token: Option<&str>) -> Value {
    let extra: Vec<String> = token.map(|t| format!("Authorization: Bearer {t}")).into_iter().collect();
    let answer = server.raw("GET", &format!("/api/games/{id}"), &extra, "");
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

fn join(server: &Server, id: &str, token: Option<&str>) -> Answer {
    server.page("POST", &format!("/api/games/{id}/join"), token, Some(json!({})))
}

/// Ann (seat 0) beats Bob in a rated blitz Connect Four game: Ann's rating goes up (about
/// 1662), Bob's down (about 1338).
fn rated_result(server: &Server, ann: &str, bob: &str) {
    let body = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": true});
    let made = server.page("POST", "/api/games", Some(ann), Some(body));
    assert_eq!(made.status, 200, "{}", made.text);
    let id = made.body["id"].as_str().unwrap().to_string();
    let ann_seat = made.body["tokens"][0].as_str().unwrap().to_string();
    let joined = join(server, &id, Some(bob));
    assert_eq!(joined.status, 200, "{}", joined.text);
    let bob_seat = joined.body["token"].as_str().unwrap().to_string();
    let legal = state(server, &id, None)["legal"][0].clone();
    let moved = server.page(
        "POST",
        &format!("/api/games/{id}/moves"),
        None,
        Some(json!({"move": legal, "token": ann_seat, "ply": 0})),
    );
    assert_eq!(moved.status, 200, "{}", moved.text);
    let resigned = server.page("POST", &format!("/api/games/{id}/resign"), None, Some(json!({"token": bob_seat})));
    assert_eq!(resigned.status, 200, "{}", resigned.text);
    assert_eq!(state(server, &id, None)["rating_changes"].as_array().map(Vec::len), Some(2));
}

/// A seek by `token` (or anonymous) for Connect Four 5+3 with `range`: its id.
fn seek(server: &Server, token: Option<&str>, rated: bool, range: Value) -> String {
    let body =
        json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": rated, "rating_range": range});
    let made = server.page("POST", "/api/games", token, Some(body));
    assert_eq!(made.status, 200, "{}", made.text);
    made.body["id"].as_str().unwrap().to_string()
}

/// A seek's rating range decides who may take its seat: an account within it (a new account
/// counts as 1500), not one above or below it, not an anonymous client (401); the lobby shows
/// the seek's clock, speed, rated flag, range and its creator's name and rating (provisional),
/// and nothing secret.
#[test]
fn a_seeks_rating_range_is_enforced_on_join_and_shown_in_the_lobby() {
    let server = server();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let cid = server.account("cid", PASSWORD);
    rated_result(&server, &ann, &bob);

    let id = seek(&server, Some(&cid), true, json!([1400, 1600]));
    let lobby = server.page("GET", "/api/lobby", None, None);
    assert_eq!(lobby.status, 200);
    let entry = lobby.body["games"].as_array().unwrap().iter().find(|g| g["id"] == id.as_str()).unwrap().clone();
    assert_eq!(entry["rating_range"], json!([1400, 1600]), "{entry}");
    assert_eq!(entry["rated"], true);
    assert_eq!(entry["clock"], "5+3");
    assert_eq!(entry["speed"], "blitz");
    assert_eq!(entry["creator"]["name"], "cid");
    assert_eq!(entry["creator"]["rating"], 1500);
    assert_eq!(entry["creator"]["provisional"], true);
    // Nothing secret: no tokens, no login, no account ids.
    for secret in [&ann, &bob, &cid] {
        assert!(!lobby.text.contains(secret.as_str()));
    }
    assert!(!lobby.text.contains("account_id") && !lobby.text.contains("token"), "{}", lobby.text);

    // Anonymous: 401. Ann (above) and Bob (below): 403 with their rating.
    assert_eq!(join(&server, &id, None).status, 401);
    let above = join(&server, &id, Some(&ann));
    assert_eq!(above.status, 403, "{}", above.text);
    assert!(above.text.contains("1400 to 1600"), "{}", above.text);
    assert_eq!(join(&server, &id, Some(&bob)).status, 403);
    // Still open; a new account (1500) takes it.
    let dan = server.account("dan", PASSWORD);
    let taken = join(&server, &id, Some(&dan));
    assert_eq!(taken.status, 200, "{}", taken.text);
    assert_eq!(state(&server, &id, None)["players"][1]["player"], "dan");

    // Ann's own rating shows on her seek, and she may seek above 1600 only for herself.
    let high = seek(&server, Some(&ann), false, json!([1600, 4000]));
    let lobby = server.page("GET", "/api/lobby", None, None);
    let entry = lobby.body["games"].as_array().unwrap().iter().find(|g| g["id"] == high.as_str()).unwrap().clone();
    let rating = entry["creator"]["rating"].as_i64().unwrap();
    assert!(rating > 1600, "{entry}");
    assert_eq!(entry["rated"], false);
    assert_eq!(join(&server, &high, Some(&bob)).status, 403);
    let carl = server.account("carl", PASSWORD);
    assert_eq!(join(&server, &high, Some(&carl)).status, 403);

    // A seek without a range, by an anonymous creator: anyone; the lobby shows no creator.
    let open = seek(&server, None, false, Value::Null);
    let lobby = server.page("GET", "/api/lobby", None, None);
    let entry = lobby.body["games"].as_array().unwrap().iter().find(|g| g["id"] == open.as_str()).unwrap().clone();
    assert_eq!(entry["rating_range"], Value::Null);
    assert_eq!(entry["creator"], Value::Null);
    assert_eq!(join(&server, &open, None).status, 200);
}

/// A database made before seeks (schema step 8) upgrades (step 9): its open game stays in the
/// lobby without a range, anyone may take it, and pools work.
#[test]
fn an_older_database_gains_seeks_and_pools() {
    if support::on_postgres() {
        eprintln!("about SQLite's file; the PostgreSQL steps run from empty in every test");
        return;
    }
    let server = server();
    let id = seek(&server, None, false, Value::Null);
    let db = server.state.config.db.clone();
    drop(server);
    {
        // Back to step 8: as a database of the previous release.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "DROP TABLE rate_limits; DROP TABLE challenges; DROP TABLE api_tokens; ALTER TABLE accounts DROP COLUMN bot;
             DROP TABLE pool_entries; ALTER TABLE games DROP COLUMN rating_range; PRAGMA user_version = 8;",
        )
        .unwrap();
    }
    let server = Server::with(|c| {
        c.db = db.clone();
        c.pool_wave = Duration::from_millis(200);
    });
    let lobby = server.page("GET", "/api/lobby", None, None);
    let entry = lobby.body["games"].as_array().unwrap().iter().find(|g| g["id"] == id.as_str()).unwrap().clone();
    assert_eq!(entry["rating_range"], Value::Null);
    assert_eq!(join(&server, &id, None).status, 200);
    let casual = json!({"game": "connect", "clock": "5+3"});
    let one = entered(&server, None, casual.clone());
    let two = entered(&server, None, casual);
    until_paired(&[(&server, &one), (&server, &two)], 2);
}

/// Bad seeks: a range upside down, out of bounds, huge, not two numbers, or on a game without an
/// open seat: 400, and nothing is made.
#[test]
fn bad_rating_ranges_are_refused() {
    let server = server();
    let ann = server.account("ann", PASSWORD);
    for range in
        [json!([1600, 1400]), json!([-1, 1500]), json!([0, 4001]), json!([1e30, 2e30]), json!([1500]), json!("1500")]
    {
        let body = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rating_range": range});
        let answer = server.page("POST", "/api/games", Some(&ann), Some(body));
        assert_eq!(answer.status, 400, "{range}: {}", answer.text);
    }
    let body = json!({"game": "connect", "seats": ["human", "human"], "clock": "5+3", "rating_range": [0, 4000]});
    assert_eq!(server.page("POST", "/api/games", Some(&ann), Some(body)).status, 400);
    let lobby = server.page("GET", "/api/lobby", None, None);
    assert_eq!(lobby.body["games"], json!([]));
}

/// An entry in a pool: its id and secret.
struct Entry {
    id: String,
    secret: String,
}

fn enter(server: &Server, login: Option<&str>, body: Value) -> Answer {
    server.page("POST", "/api/pool", login, Some(body))
}

fn entered(server: &Server, login: Option<&str>, body: Value) -> Entry {
    let answer = enter(server, login, body);
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["status"], "waiting");
    Entry {
        id: answer.body["entry"].as_str().unwrap().to_string(),
        secret: answer.body["secret"].as_str().unwrap().to_string(),
    }
}

fn poll(server: &Server, entry: &Entry) -> Answer {
    server.raw("GET", &format!("/api/pool/{}", entry.id), &[format!("Authorization: Bearer {}", entry.secret)], "")
}

fn leave(server: &Server, entry: &Entry) -> Answer {
    server.raw("DELETE", &format!("/api/pool/{}", entry.id), &[format!("Authorization: Bearer {}", entry.secret)], "")
}

/// Polls `entries` (each on its server) until `paired` of them are paired, answering every
/// entry's last answer; a minute is only the bound of a broken server.
fn until_paired(entries: &[(&Server, &Entry)], paired: usize) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let answers: Vec<Value> = entries
            .iter()
            .map(|(server, entry)| {
                let answer = poll(server, entry);
                assert_eq!(answer.status, 200, "{}", answer.text);
                answer.body
            })
            .collect();
        if answers.iter().filter(|a| a["status"] == "paired").count() >= paired {
            return answers;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "not paired: {answers:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Polls `entry` until the server says it waited `waves` waves (by the server's clock).
fn wait_waves(server: &Server, entry: &Entry, waves: i64) -> Value {
    let start = Instant::now();
    loop {
        let answer = poll(server, entry);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let waited = answer.body["waited_ms"].as_i64().unwrap_or(0);
        if answer.body["status"] != "waiting" || waited > waves * answer.body["wave_ms"].as_i64().unwrap() {
            return answer.body;
        }
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(50));
    }
}

const RATED_BLITZ: fn() -> Value = || json!({"game": "connect", "clock": "5+3", "rated": true});

/// Three accounts in one rated pool: one wave pairs two of them into a rated game with both
/// seats taken (each its own token and account, colours one each), the third waits.
#[test]
fn a_wave_pairs_two_accounts_into_one_game_and_the_third_waits() {
    let server = server();
    let names = ["ann", "bob", "cid"];
    let logins: Vec<String> = names.iter().map(|n| server.account(n, PASSWORD)).collect();
    let entries: Vec<Entry> = logins.iter().map(|l| entered(&server, Some(l), RATED_BLITZ())).collect();
    let answers = until_paired(&entries.iter().map(|e| (&server, e)).collect::<Vec<_>>(), 2);
    let paired: Vec<usize> = (0..3).filter(|&i| answers[i]["status"] == "paired").collect();
    assert_eq!(paired.len(), 2, "{answers:?}");
    let waiting = (0..3).find(|i| !paired.contains(i)).unwrap();
    let (a, b) = (&answers[paired[0]], &answers[paired[1]]);
    assert_eq!(a["game"], b["game"]);
    let id = a["game"].as_str().unwrap();
    let mut seats = vec![a["seat"].as_u64().unwrap(), b["seat"].as_u64().unwrap()];
    seats.sort();
    assert_eq!(seats, vec![0, 1]);
    // Each token holds its own seat; the game is rated, with both accounts linked.
    for (i, answer) in [(paired[0], a), (paired[1], b)] {
        let seen = state(&server, id, answer["token"].as_str());
        assert_eq!(seen["your_seat"], answer["seat"]);
        assert_eq!(seen["rated"], true);
        assert_eq!(seen["clock"]["control"], "5+3", "{}", seen["clock"]);
        let seat = answer["seat"].as_u64().unwrap() as usize;
        assert_eq!(seen["players"][seat]["player"], names[i]);
    }
    // Asked again, the pairing is the same; the third still waits after further waves.
    assert_eq!(poll(&server, &entries[paired[0]]).body["token"], a["token"]);
    assert_eq!(wait_waves(&server, &entries[waiting], 3)["status"], "waiting");
    // A lobby never lists a pool's game (both seats are taken).
    let lobby = server.page("GET", "/api/lobby", None, None);
    assert!(!lobby.text.contains(id));
}

/// One account's two entries in one pool are never paired together; another account is paired
/// with one of them.
#[test]
fn an_account_is_never_paired_with_itself() {
    let server = server();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let first = entered(&server, Some(&ann), RATED_BLITZ());
    let second = entered(&server, Some(&ann), RATED_BLITZ());
    assert_eq!(wait_waves(&server, &first, 3)["status"], "waiting");
    assert_eq!(poll(&server, &second).body["status"], "waiting");
    let third = entered(&server, Some(&bob), RATED_BLITZ());
    let answers = until_paired(&[(&server, &first), (&server, &second), (&server, &third)], 2);
    assert_eq!(answers[2]["status"], "paired");
    assert_eq!(answers.iter().filter(|a| a["status"] == "paired").count(), 2);
}

/// Anonymous clients are paired in a casual pool, and never enter a rated one (401).
#[test]
fn a_rated_pool_needs_a_login_and_a_casual_one_does_not() {
    let server = server();
    let refused = enter(&server, None, RATED_BLITZ());
    assert_eq!(refused.status, 401, "{}", refused.text);
    let casual = json!({"game": "connect", "clock": "1+0"});
    let one = entered(&server, None, casual.clone());
    let two = entered(&server, None, casual);
    let answers = until_paired(&[(&server, &one), (&server, &two)], 2);
    let id = answers[0]["game"].as_str().unwrap();
    let seen = state(&server, id, answers[0]["token"].as_str());
    assert_eq!(seen["rated"], false);
    assert_eq!(seen["clock"]["speed"], "bullet");
}

/// Leaving: the entry is gone (404 after), and is never paired; another client's secret can
/// neither read nor remove an entry (404, the same answer as an unknown entry).
#[test]
fn leaving_a_pool_and_strangers() {
    let server = server();
    let casual = json!({"game": "connect", "clock": "3+2"});
    let mine = entered(&server, None, casual.clone());
    let theirs = entered(&server, None, json!({"game": "connect", "clock": "10+0"}));
    // A stranger (another entry's secret, no secret, a made-up one): 404, and nothing changes.
    let stranger = Entry { id: mine.id.clone(), secret: theirs.secret.clone() };
    assert_eq!(poll(&server, &stranger).status, 404);
    assert_eq!(leave(&server, &stranger).status, 404);
    assert_eq!(server.raw("GET", &format!("/api/pool/{}", mine.id), &[], "").status, 404);
    let junk = Entry { id: "x".repeat(5000), secret: "y".repeat(32) };
    assert_eq!(poll(&server, &junk).status, 404);
    assert_eq!(poll(&server, &mine).body["status"], "waiting");
    // The owner leaves.
    let left = leave(&server, &mine);
    assert_eq!(left.status, 200, "{}", left.text);
    assert_eq!(left.body["status"], "left");
    assert_eq!(poll(&server, &mine).status, 404);
    assert_eq!(leave(&server, &mine).status, 404);
    // A newcomer in the same pool is not paired with the entry that left.
    let newcomer = entered(&server, None, casual);
    assert_eq!(wait_waves(&server, &newcomer, 3)["status"], "waiting");
}

/// An entry nobody polls is dropped after the expiry (1.5 s here): its holder gets 404, and a
/// newcomer is not paired with it.
#[test]
fn an_entry_not_polled_expires() {
    let server = Server::with(|c| {
        c.pool_wave = Duration::from_millis(200);
        c.pool_expiry = Duration::from_millis(1500);
    });
    let casual = json!({"game": "connect", "clock": "10+5"});
    let gone = entered(&server, None, casual.clone());
    // Another pool's entry, polled, shows the server's clock passing the expiry and more waves.
    let clock = entered(&server, None, json!({"game": "connect", "clock": "15+10"}));
    let start = Instant::now();
    loop {
        let answer = poll(&server, &clock);
        if answer.body["waited_ms"].as_i64().unwrap_or(0) > 1500 + 3 * 200 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(poll(&server, &gone).status, 404);
    let newcomer = entered(&server, None, casual);
    assert_eq!(wait_waves(&server, &newcomer, 3)["status"], "waiting");
}

/// Bad bodies: an unknown game, bad or missing clocks, an unlimited one, a game for more than two,
/// bad options, unknown fields, huge values: 400. Too many waiting entries of one client: 429.
#[test]
fn bad_pool_bodies_are_refused_and_waiting_entries_are_capped() {
    let server = server();
    for body in [
        json!({"game": "nope", "clock": "5+3"}),
        json!({"game": "connect"}),
        json!({"game": "connect", "clock": "5+x"}),
        json!({"game": "connect", "clock": "none"}),
        json!({"game": "connect", "clock": "99999999999999999999+0"}),
        json!({"game": "connect", "clock": "5+3", "options": [1]}),
        json!({"game": "connect", "clock": "5+3", "options": {"width": 1e300}}),
        json!({"game": "connect", "clock": "5+3", "seats": ["human", "open"]}),
        json!({"game": "connect", "clock": "5+3", "rated": "yes"}),
        json!({"game": "x".repeat(10_000), "clock": "5+3"}),
    ] {
        let answer = enter(&server, None, body.clone());
        assert!(answer.status == 400 || answer.status == 413, "{body}: {} {}", answer.status, answer.text);
    }
    // The default cap: 4 waiting entries per client.
    for clock in ["1+0", "2+1", "3+2", "5+3"] {
        entered(&server, None, json!({"game": "connect", "clock": clock}));
    }
    let fifth = enter(&server, None, json!({"game": "connect", "clock": "10+0"}));
    assert_eq!(fifth.status, 429, "{}", fifth.text);
}

/// Two servers on one database (two processes on PostgreSQL; on SQLite, two servers on one
/// file), both running waves at the same moments: forty anonymous clients entering on either
/// are paired each exactly once, into twenty games whose seats are theirs.
#[test]
fn two_servers_pair_each_entry_exactly_once() {
    let change = |c: &mut tabletop_web::ServeConfig| {
        c.pool_wave = Duration::from_millis(200);
        c.pool_entries_per_client = 1000;
        // Forty clients from one test address: seeks limited by address would refuse most.
        c.seek_rate = 60_000;
    };
    let one = Server::with(change);
    let db = one.state.config.db.clone();
    let two = Server::with(|c| {
        change(c);
        c.db = db.clone();
    });
    let casual = json!({"game": "connect", "clock": "5+0"});
    let entries: Vec<(&Server, Entry)> = (0..40)
        .map(|i| {
            let server = if i % 2 == 0 { &one } else { &two };
            (server, entered(server, None, casual.clone()))
        })
        .collect();
    // Polled on the other server than the one entered on: either answers the same.
    let polled: Vec<(&Server, &Entry)> =
        entries.iter().map(|(s, e)| (if std::ptr::eq(*s, &one) { &two } else { &one }, e)).collect();
    let answers = until_paired(&polled, 40);
    let mut games: HashMap<String, Vec<(u64, String)>> = HashMap::new();
    for answer in &answers {
        games
            .entry(answer["game"].as_str().unwrap().to_string())
            .or_default()
            .push((answer["seat"].as_u64().unwrap(), answer["token"].as_str().unwrap().to_string()));
    }
    assert_eq!(games.len(), 20, "{games:?}");
    for (id, mut seats) in games {
        seats.sort();
        assert_eq!(seats.iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![0, 1], "{id}");
        for (seat, token) in &seats {
            for server in [&one, &two] {
                assert_eq!(state(server, &id, Some(token))["your_seat"], *seat);
            }
        }
    }
}
