//! Rated games in `tabletop serve` (issue 59, second layer): seats linked to accounts, rated
//! or casual chosen at creation, Glicko-2 per game type and speed applied once at a rated
//! game's end, each game's rating changes, a player's page and export, and deleted accounts
//! anonymised.
//!
//! Each test runs a server in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`, the second pass of `scripts/test`) and talks raw HTTP to
//! it, as tests/accounts.rs does.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::{on_postgres, pg, Answer, Server, PASSWORD};
use tabletop::rating::{Glicko2, Rating};

/// A game's state, as a watcher sees it.
fn state(server: &Server, id: &str) -> Value {
    let answer = server.page("GET", &format!("/api/games/{id}"), None, None);
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

/// Creates a rated 5+3 Connect Four game by `token`'s account with an open seat: its id and
/// the creator's seat token.
fn rated_game(server: &Server, token: &str) -> (String, String) {
    let body = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": true});
    let answer = server.page("POST", "/api/games", Some(token), Some(body));
    assert_eq!(answer.status, 200, "{}", answer.text);
    (answer.body["id"].as_str().unwrap().to_string(), answer.body["tokens"][0].as_str().unwrap().to_string())
}

/// Joins the game's open seat as `token`'s account (or anonymously).
fn join(server: &Server, id: &str, token: Option<&str>) -> Answer {
    server.page("POST", &format!("/api/games/{id}/join"), token, Some(json!({})))
}

/// What rating.rs gives a new player after one game against a new player with `score`.
fn expected(score: f64) -> Rating {
    let system = Glicko2::LICHESS;
    system.update(system.initial, &[(system.initial, score)])
}

/// Equal to a thousandth of a point: a rating read back from PostgreSQL once differed from the
/// computation here by 3e-7 (a CI run on 2026-12-05 failed at 1e-9), which is not what this
/// test is about.
fn close(a: &Value, b: f64) {
    let a = a.as_f64().unwrap_or_else(|| panic!("a number: {a}"));
    assert!((a - b).abs() < 1e-3, "{a} vs {b}");
}

/// A rated game between two accounts, played to its end by the rules: both ratings change once,
/// exactly as rating.rs computes, shown in the game, on the players' pages and in the export.
#[test]
fn a_rated_game_to_the_end_changes_both_ratings_as_glicko2_says() {
    let server = Server::new();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let (id, ann_seat) = rated_game(&server, &ann);
    let joined = join(&server, &id, Some(&bob));
    assert_eq!(joined.status, 200, "{}", joined.text);
    let bob_seat = joined.body["token"].as_str().unwrap().to_string();
    let before = state(&server, &id);
    assert_eq!(before["rated"], true);
    assert_eq!(before["players"][0]["player"], "ann");
    assert_eq!(before["players"][1]["player"], "bob");
    // Seat 0 takes the first legal column, seat 1 the second: four in a column for seat 0.
    let tokens = [ann_seat, bob_seat];
    for ply in 0..7 {
        let now = state(&server, &id);
        let legal = now["legal"].as_array().unwrap().clone();
        let seat = ply % 2;
        let answer = server.page(
            "POST",
            &format!("/api/games/{id}/moves"),
            None,
            Some(json!({"move": legal[seat], "token": tokens[seat], "ply": ply})),
        );
        assert_eq!(answer.status, 200, "move {ply}: {}", answer.text);
    }
    let after = state(&server, &id);
    assert_eq!(after["status"]["over"], true, "{after}");
    assert_eq!(after["result"]["winners"], json!([0]));
    let changes = after["rating_changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "{after}");
    let (win, loss) = (expected(1.0), expected(0.0));
    close(&changes[0]["rating_after"], win.rating);
    close(&changes[0]["rating_before"], 1500.0);
    close(&changes[1]["rating_after"], loss.rating);
    assert_eq!(changes[0]["speed"], "blitz", "5+3: 5 min + 40 x 3 s = 7 min");
    assert_eq!(changes[0]["provisional"], true);
    assert_eq!(after["players"][0]["rating_change"]["after"], json!(win.rating.round() as i64));

    let page = server.page("GET", "/api/players/ANN", None, None);
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(page.body["name"], "ann");
    let rating = &page.body["ratings"][0];
    assert_eq!((rating["game"].as_str(), rating["speed"].as_str()), (Some("connect"), Some("blitz")));
    assert_eq!(rating["rating"], json!(win.rating.round() as i64));
    close(&rating["rating_exact"], win.rating);
    assert_eq!(rating["games"], 1);
    assert_eq!(rating["provisional"], true);
    let recent = &page.body["recent_games"][0];
    assert_eq!(recent["id"], json!(id));
    assert_eq!(recent["outcome"], "win");
    close(&recent["rating_change"]["rating_after"], win.rating);
    let bob_page = server.page("GET", "/api/players/bob", None, None);
    assert_eq!(bob_page.body["recent_games"][0]["outcome"], "loss");
    close(&bob_page.body["ratings"][0]["rating_exact"], loss.rating);

    let export = server.page("GET", "/api/players/ann/games?format=json", None, None);
    assert_eq!(export.status, 200, "{}", export.text);
    assert_eq!(export.body["games"][0]["moves"].as_array().map(Vec::len), Some(7));
    assert_eq!(server.page("GET", "/api/players/ann/games?format=pgn", None, None).status, 400);

    let unknown = server.page("GET", "/api/players/nobody", None, None);
    assert_eq!(unknown.status, 404);
    assert!(unknown.body["error"].as_str().is_some_and(|e| e.contains("nobody")), "{}", unknown.text);

    // A second rated game of the same speed starts from the first's ratings.
    let (second, ann_seat) = rated_game(&server, &ann);
    assert_eq!(join(&server, &second, Some(&bob)).status, 200);
    let resigned = server.page("POST", &format!("/api/games/{second}/resign"), None, Some(json!({"token": ann_seat})));
    assert_eq!(resigned.status, 200, "{}", resigned.text);
    let after = state(&server, &second);
    let changes = after["rating_changes"].as_array().unwrap();
    close(&changes[0]["rating_before"], win.rating);
    let system = Glicko2::LICHESS;
    let ann_after = system.update(win, &[(loss, 0.0)]);
    close(&changes[0]["rating_after"], ann_after.rating);
    let page = server.page("GET", "/api/players/ann", None, None);
    assert_eq!(page.body["ratings"][0]["games"], 2);
}

/// Rated needs a clock, people only, and accounts; a rated seat is refused to an anonymous
/// person and to an account already seated.
#[test]
fn rated_games_need_a_clock_accounts_and_two_different_ones() {
    let server = Server::new();
    let ann = server.account("cleo", PASSWORD);
    let create = |token: Option<&str>, body: Value| server.page("POST", "/api/games", token, Some(body));
    let no_clock =
        create(Some(&ann), json!({"game": "connect", "seats": ["human", "open"], "clock": "none", "rated": true}));
    assert_eq!(no_clock.status, 400, "{}", no_clock.text);
    assert!(no_clock.text.contains("clock"), "{}", no_clock.text);
    let unlimited = create(Some(&ann), json!({"game": "connect", "seats": ["human", "human"], "rated": true}));
    assert_eq!(unlimited.status, 400, "{}", unlimited.text);
    let computer =
        create(Some(&ann), json!({"game": "connect", "seats": ["human", "engine"], "clock": "5+3", "rated": true}));
    assert_eq!(computer.status, 400, "{}", computer.text);
    assert!(computer.text.contains("computer"), "{}", computer.text);
    let anonymous = create(None, json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": true}));
    assert_eq!(anonymous.status, 401, "{}", anonymous.text);

    let (id, _) = rated_game(&server, &ann);
    let lobby = server.page("GET", "/api/lobby", None, None);
    let listed = lobby.body["games"].as_array().unwrap().iter().find(|g| g["id"] == json!(id)).cloned();
    assert_eq!(listed.map(|g| g["rated"].clone()), Some(json!(true)), "{}", lobby.text);
    let stranger = join(&server, &id, None);
    assert_eq!(stranger.status, 401, "{}", stranger.text);
    let twice = join(&server, &id, Some(&ann));
    assert_eq!(twice.status, 409, "{}", twice.text);
    assert_eq!(state(&server, &id)["seats"][1], "open", "the seat is still open");

    // An invitation of a rated game too.
    let body = json!({"game": "connect", "seats": ["human", "human"], "clock": "3d", "rated": true});
    let made = server.page("POST", "/api/games", Some(&ann), Some(body));
    assert_eq!(made.status, 200, "{}", made.text);
    let invited = made.body["id"].as_str().unwrap().to_string();
    let url = made.body["invites"][1]["path"].as_str().unwrap();
    let code = url.split("#invite=").nth(1).unwrap();
    let claim = |token: Option<&str>| {
        server.page("POST", &format!("/api/games/{invited}/claim"), token, Some(json!({"invite": code})))
    };
    assert_eq!(claim(None).status, 401);
    assert_eq!(claim(Some(&ann)).status, 409);
    let dan = server.account("dan", PASSWORD);
    let claimed = claim(Some(&dan));
    assert_eq!(claimed.status, 200, "{}", claimed.text);
    assert_eq!(state(&server, &invited)["players"][1]["player"], "dan");

    // A casual game still takes anyone, and links a logged-in person's seat.
    let casual = create(Some(&ann), json!({"game": "connect", "seats": ["human", "open"]}));
    let casual = casual.body["id"].as_str().unwrap().to_string();
    assert_eq!(join(&server, &casual, None).status, 200);
    let seen = state(&server, &casual);
    assert_eq!(seen["rated"], false);
    assert_eq!((seen["players"][0]["player"].as_str(), seen["players"][1]["player"].as_str()), (Some("cleo"), None));
}

/// A rated game aborted (no first move in time) changes nobody's rating.
#[test]
fn an_aborted_rated_game_changes_nothing() {
    let server = Server::with(|c| c.first_move_time = Duration::from_millis(300));
    let eve = server.account("eve", PASSWORD);
    let fay = server.account("fay", PASSWORD);
    let (id, _) = rated_game(&server, &eve);
    assert_eq!(join(&server, &id, Some(&fay)).status, 200);
    // The server's timer aborts it: waited for as the server reports it.
    let mut seen = state(&server, &id);
    for _ in 0..600 {
        if seen["result"]["ended_by"] == "aborted" {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        seen = state(&server, &id);
    }
    assert_eq!(seen["result"]["ended_by"], "aborted", "{seen}");
    assert_eq!(seen["rating_changes"], json!([]));
    for name in ["eve", "fay"] {
        let page = server.page("GET", &format!("/api/players/{name}"), None, None);
        assert_eq!(page.body["ratings"], json!([]), "{}", page.text);
        assert_eq!(page.body["recent_games"][0]["outcome"], Value::Null);
    }
}

/// Deleting an account anonymises its seats: the game stays, with its rating changes, and the
/// player's page is gone.
#[test]
fn a_deleted_account_leaves_its_games_anonymous() {
    let server = Server::new();
    let gil = server.account("gil", PASSWORD);
    let hal = server.account("hal", PASSWORD);
    let (id, gil_seat) = rated_game(&server, &gil);
    assert_eq!(join(&server, &id, Some(&hal)).status, 200);
    let resigned = server.page("POST", &format!("/api/games/{id}/resign"), None, Some(json!({"token": gil_seat})));
    assert_eq!(resigned.status, 200);
    assert_eq!(state(&server, &id)["players"][0]["player"], "gil");
    let deleted = server.page("POST", "/api/account/delete", Some(&gil), Some(json!({"password": PASSWORD})));
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    let after = state(&server, &id);
    assert_eq!(after["players"][0]["player"], Value::Null, "{after}");
    assert_eq!(after["players"][1]["player"], "hal");
    assert_eq!(after["rating_changes"].as_array().map(Vec::len), Some(2), "the game's changes stay");
    assert_eq!(server.page("GET", "/api/players/gil", None, None).status, 404);
    let hal_page = server.page("GET", "/api/players/hal", None, None);
    assert_eq!(hal_page.body["recent_games"][0]["outcome"], "win");
    // The name is free again, and the new account has no games.
    let again = server.account("gil", PASSWORD);
    assert!(!again.is_empty());
    assert_eq!(server.page("GET", "/api/players/gil", None, None).body["recent_games"], json!([]));
}

/// Two processes on one database end the same rated game at once (each side resigns on its own
/// server): one end is stored, and the ratings change once.
#[test]
fn two_processes_ending_one_game_rate_it_once() {
    let one = Server::new();
    let db = one.state.config.db.clone();
    let two = Server::with(|c| c.db = db.clone());
    for round in 0..4 {
        let (a, b) = (format!("ivy{round}"), format!("jon{round}"));
        let ivy = one.account(&a, PASSWORD);
        let jon = two.account(&b, PASSWORD);
        let (id, ivy_seat) = rated_game(&one, &ivy);
        let joined = join(&two, &id, Some(&jon));
        assert_eq!(joined.status, 200, "{}", joined.text);
        let jon_seat = joined.body["token"].as_str().unwrap().to_string();
        // Both servers hold the game in memory before the race.
        state(&one, &id);
        state(&two, &id);
        let statuses: Vec<u16> = std::thread::scope(|scope| {
            let first = scope.spawn(|| {
                one.page("POST", &format!("/api/games/{id}/resign"), None, Some(json!({"token": ivy_seat}))).status
            });
            let second = scope.spawn(|| {
                two.page("POST", &format!("/api/games/{id}/resign"), None, Some(json!({"token": jon_seat}))).status
            });
            vec![first.join().unwrap(), second.join().unwrap()]
        });
        assert!(statuses.contains(&200), "{statuses:?}");
        for server in [&one, &two] {
            let seen = state(server, &id);
            assert_eq!(seen["rating_changes"].as_array().map(Vec::len), Some(2), "{seen}");
            for name in [&a, &b] {
                let page = server.page("GET", &format!("/api/players/{name}"), None, None);
                assert_eq!(page.body["ratings"][0]["games"], 1, "{}", page.text);
            }
        }
    }
}

/// A rated game whose end was stored but not its rating (its process stopped in between) is
/// rated when it is next loaded, once.
#[test]
fn an_ended_game_left_unrated_is_rated_when_loaded_again() {
    let server = Server::new();
    let kim = server.account("kim", PASSWORD);
    let lea = server.account("lea", PASSWORD);
    let (id, kim_seat) = rated_game(&server, &kim);
    assert_eq!(join(&server, &id, Some(&lea)).status, 200);
    let resigned = server.page("POST", &format!("/api/games/{id}/resign"), None, Some(json!({"token": kim_seat})));
    assert_eq!(resigned.status, 200);
    let db = server.state.config.db.clone();
    drop(server);
    // As if the process had stopped after storing the end: no changes, no ratings.
    let restarted = Server::with(|c| c.db = db.clone());
    sql(&restarted, "DELETE FROM rating_changes; DELETE FROM ratings;");
    let seen = state(&restarted, &id);
    let changes = seen["rating_changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "{seen}");
    close(&changes[1]["rating_after"], expected(1.0).rating);
    let again = state(&restarted, &id);
    assert_eq!(again["version"], seen["version"], "rated once");
    let page = restarted.page("GET", "/api/players/lea", None, None);
    assert_eq!(page.body["ratings"][0]["games"], 1);
}

/// Runs SQL on the test's database (a SQLite file, or PostgreSQL through psql).
fn sql(server: &Server, statement: &str) {
    let db = server.state.config.db.to_string_lossy().to_string();
    if on_postgres() {
        pg::psql(&db, statement);
    } else {
        rusqlite::Connection::open(&db).unwrap().execute_batch(statement).unwrap();
    }
}

/// A rated game lost on time (the servers' timers end it; on PostgreSQL two processes on one
/// database, each with its timer) is rated once, the flagged seat losing; its speed is the
/// clock's (2 s: ultrabullet).
#[test]
fn a_flag_is_rated_once_with_two_processes_watching_the_clock() {
    let one = Server::new();
    let db = one.state.config.db.clone();
    // SQLite is one process's file: there, the one server plays both parts.
    let second = on_postgres().then(|| Server::with(|c| c.db = db.clone()));
    let two = second.as_ref().unwrap_or(&one);
    let mia = one.account("mia", PASSWORD);
    let ned = one.account("ned", PASSWORD);
    let body = json!({"game": "connect", "seats": ["human", "open"], "clock": "0:02+0", "rated": true});
    let made = one.page("POST", "/api/games", Some(&mia), Some(body));
    assert_eq!(made.status, 200, "{}", made.text);
    let id = made.body["id"].as_str().unwrap().to_string();
    let joined = join(two, &id, Some(&ned));
    assert_eq!(joined.status, 200, "{}", joined.text);
    let tokens =
        [made.body["tokens"][0].as_str().unwrap().to_string(), joined.body["token"].as_str().unwrap().to_string()];
    for (ply, server) in [(0, &one), (1, two)] {
        let legal = state(server, &id)["legal"].clone();
        let moved = server.page(
            "POST",
            &format!("/api/games/{id}/moves"),
            None,
            Some(json!({"move": legal[ply], "token": tokens[ply], "ply": ply})),
        );
        assert_eq!(moved.status, 200, "{}", moved.text);
    }
    // Both processes hold the game; their timers end it when seat 0's time runs out.
    state(&one, &id);
    let mut seen = state(two, &id);
    for _ in 0..400 {
        if seen["rating_changes"].as_array().is_some_and(|c| c.len() == 2) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        seen = state(two, &id);
    }
    assert_eq!(seen["result"]["ended_by"], "flag", "{seen}");
    assert_eq!(seen["result"]["winners"], json!([1]));
    let changes = seen["rating_changes"].as_array().unwrap();
    assert_eq!(changes.len(), 2, "{seen}");
    assert_eq!(changes[0]["speed"], "ultrabullet");
    close(&changes[1]["rating_after"], expected(1.0).rating);
    close(&changes[0]["rating_after"], expected(0.0).rating);
    for server in [&one, two] {
        for name in ["mia", "ned"] {
            let page = server.page("GET", &format!("/api/players/{name}"), None, None);
            assert_eq!(page.body["ratings"][0]["games"], 1, "{}", page.text);
        }
    }
}
