//! Issue 13 on a loopback server: the threat model of docs/API.md line by line (what a
//! stranger, a watcher and an opponent can learn or do), hidden information, validation at
//! creation, JSON errors, limits (body, rate, engine queue, connections, cache), cancelled
//! thinking and computers resuming after a restart.
//!
//! Each test names the threat-model line (S = stranger, W = watcher, O = opponent) or the
//! issue's "Why" item it checks.

mod support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Every answer a viewer gets while a Mathable game is played: (what, text).
type Seen = Vec<(String, String)>;

/// One column of a stored game, as the database holds it (SQLite or PostgreSQL).
fn stored_column(db: &std::path::Path, id: &str, column: &str) -> String {
    if on_postgres() {
        let output = std::process::Command::new("psql")
            .args([
                "-X",
                "-At",
                "-d",
                &db.to_string_lossy(),
                "-c",
                &format!("SELECT {column} FROM games WHERE id = '{id}'"),
            ])
            .output()
            .expect("psql");
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    } else {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.query_row(&format!("SELECT {column} FROM games WHERE id = ?1"), [id], |r| r.get(0)).unwrap()
    }
}

fn seed_of(db: &std::path::Path, id: &str) -> u64 {
    let secret = stored_column(db, id, "secret");
    serde_json::from_str::<Value>(&secret).unwrap()["seed"].as_u64().expect("a stored seed")
}

// ---- Stranger (knows only the server's address) ----

/// S1: there is no list of games; the lobby lists only games with an open seat, without tokens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_finds_no_list_of_games() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    for path in ["/api/games", "/api/games/", "/api/games?limit=50", "/api/list", "/api/games/all"] {
        let answer = get(addr, path).await;
        assert!(matches!(answer.status, 404 | 405), "{path}: {} {}", answer.status, answer.text);
        answer.error();
        assert!(!answer.text.contains(&game.id), "{path} lists a game");
    }
    assert!(!get(addr, "/api/lobby").await.text.contains(&game.id));
    // The page does not embed ids either.
    assert!(!get(addr, "/").await.text.contains(&game.id));
}

/// S2: ids and tokens are 128 random bits; an unknown or malformed id is a JSON 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_cannot_guess_ids_or_tokens() {
    let server = start().await;
    let addr = server.addr;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
        for text in [game.id.clone(), game.token(0).to_string(), game.token(1).to_string()] {
            assert_eq!(text.len(), 32);
            assert!(text.bytes().all(|b| b.is_ascii_hexdigit()));
            assert!(seen.insert(text), "ids and tokens never repeat");
        }
    }
    let unknown = "0".repeat(32);
    for path in [
        format!("/api/games/{unknown}"),
        "/api/games/zz".to_string(),
        format!("/api/games/{}", "a".repeat(5000)),
        format!("/api/games/{unknown}/events"),
    ] {
        let answer = get(addr, &path).await;
        assert_eq!(answer.status, 404, "{path}: {}", answer.text);
        assert!(answer.error().len() < 200, "the answer does not echo a long id back");
    }
    let answer = play(addr, &unknown, "x", "1").await;
    assert_eq!(answer.status, 404);
    answer.error();
}

/// S3: a stranger may take an open seat (that is what it is for) but nothing else: every
/// action on a game needs a seat's token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stranger_and_watcher_cannot_act_without_a_token() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"], "hints": true})).await;
    let id = &game.id;
    play_ok(addr, id, game.token(0), "d3").await;
    for token in [json!(""), json!("forged"), json!("0123456789abcdef0123456789abcdef")] {
        for (what, body) in [
            ("moves", json!({"move": "c3", "token": token})),
            ("undo", json!({"token": token})),
            ("proposal", json!({"token": token, "accept": true})),
            ("resign", json!({"token": token})),
            ("hint", json!({"token": token})),
            ("analysis", json!({"token": token})),
        ] {
            let answer = act(addr, id, what, body).await;
            assert_eq!(answer.status, 403, "{what} with {token}: {}", answer.text);
            answer.error();
        }
    }
    // Without a token field at all: malformed (400), or no seat (403) where the token is optional.
    for what in ["moves", "undo", "resign"] {
        let answer = act(addr, id, what, json!({"move": "c3"})).await;
        assert_eq!(answer.status, 400, "{what}: {}", answer.text);
        answer.error();
    }
    let view = state(addr, id, None).await;
    assert_eq!((view["moves"].clone(), view["status"]["over"].clone()), (json!(["d3"]), json!(false)));
    assert_eq!(post(addr, &format!("/api/games/{id}/join"), json!({})).await.status, 409, "no open seat");
}

// ---- Watcher (holds the watch link: the id) ----

/// W1: a watcher sees the board, moves, players and result, but no seat's token, in the state,
/// the events and the lobby.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watcher_sees_the_game_but_no_token() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "open"]})).await;
    let id = game.id.clone();
    let mut watcher = Events::open(addr, &id, None).await;
    let mut texts = vec![watcher.next(SHORT).await.unwrap().to_string(), get(addr, "/api/lobby").await.text];
    let joined = post(addr, &format!("/api/games/{id}/join"), json!({})).await;
    let second = joined.body["token"].as_str().unwrap().to_string();
    play_ok(addr, &id, game.token(0), "d3").await;
    play_ok(addr, &id, &second, "c3").await;
    act(addr, &id, "resign", json!({"token": second})).await;
    texts.extend(watcher.drain(Duration::from_millis(500)).await.iter().map(Value::to_string));
    let view = state(addr, &id, None).await;
    assert_eq!(view["moves"], json!(["d3", "c3"]));
    assert_eq!(view["result"]["winners"], json!([0]));
    assert_eq!(view["board"]["cells"].as_array().unwrap().len(), 64);
    texts.push(view.to_string());
    assert!(texts.len() >= 6, "events came: {}", texts.len());
    for text in &texts {
        assert!(!text.contains(game.token(0)) && !text.contains(&second), "a token leaked to a watcher: {text}");
    }
    // Even the opponent's view does not hold the other token.
    assert!(!state(addr, &id, Some(&second)).await.to_string().contains(game.token(0)));
    assert!(!joined.text.contains(game.token(0)), "the joiner gets only its own token");
}

/// W2 / O-hidden: in Mathable a watcher sees rack sizes, the bag's size, the board and the
/// scores; nobody but a seat sees that seat's rack; nobody sees the seed or the bag's order,
/// not even the seat to move (its `position` notation would hold every rack and the seed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mathable_racks_seed_and_bag_stay_hidden_from_everyone_else() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "open"]})).await;
    let id = game.id.clone();
    let seed = seed_of(&server.db, &id).to_string();
    let mut seen: Seen = vec![("create".into(), game.answer.to_string())];
    let mut streams = Vec::new();
    for token in [None, Some(game.token(0).to_string()), Some(game.token(1).to_string())] {
        let mut events = Events::open(addr, &id, token.as_deref()).await;
        events.until("connected", SHORT).await;
        streams.push(events);
    }
    let joined = post(addr, &format!("/api/games/{id}/join"), json!({})).await;
    seen.push(("join".into(), joined.text.clone()));
    let third = joined.body["token"].as_str().unwrap().to_string();
    let tokens = [game.token(0).to_string(), game.token(1).to_string(), third];
    seen.push(("lobby".into(), get(addr, "/api/lobby").await.text));
    // A few turns: placements, an exchange, an illegal move's error.
    let mover = state(addr, &id, Some(&tokens[0])).await;
    seen.push(("mover".into(), mover.to_string()));
    seen.push(("place".into(), play_ok(addr, &id, &tokens[0], &a_placement(&mover)).await.to_string()));
    seen.push(("error".into(), play(addr, &id, &tokens[0], "A1=90").await.text));
    seen.push(("end".into(), play_ok(addr, &id, &tokens[0], "end").await.to_string()));
    let view = state(addr, &id, Some(&tokens[1])).await;
    let swap = view["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|m| m.starts_with("swap"))
        .unwrap()
        .to_string();
    seen.push(("swap".into(), play_ok(addr, &id, &tokens[1], &swap).await.to_string()));
    for viewer in [None, Some(0), Some(1), Some(2)] {
        let view = state(addr, &id, viewer.map(|s| tokens[s].as_str())).await;
        let racks = view["board"]["racks"].as_array().unwrap();
        for (seat, rack) in racks.iter().enumerate() {
            assert_eq!(rack.is_array(), viewer == Some(seat), "viewer {viewer:?} sees rack {seat}: {rack}");
            assert_eq!(rack.as_array().map_or_else(|| rack.as_u64().unwrap(), |r| r.len() as u64), 7);
        }
        assert!(view["position"].is_null(), "viewer {viewer:?}: position {}", view["position"]);
        assert!(view["board"]["bag"].is_u64(), "only the bag's size");
        let to_move = viewer == Some(2);
        assert_eq!(!view["legal"].as_array().unwrap().is_empty(), to_move);
        seen.push((format!("state {viewer:?}"), view.to_string()));
    }
    // Past boards are public: as a watcher saw them, racks as counts.
    let played = state(addr, &id, None).await["moves"].as_array().unwrap().len();
    for ply in 0..=played {
        let past = get(addr, &format!("/api/games/{id}/boards/{ply}")).await;
        assert_eq!(past.status, 200, "{}", past.text);
        let racks = past.body["board"]["racks"].as_array().unwrap();
        assert!(racks.iter().all(Value::is_u64), "ply {ply}: {}", past.body["board"]["racks"]);
        assert_eq!(past.body["board"]["placements"], json!([]));
        seen.push((format!("board {ply}"), past.text));
    }
    for events in &mut streams {
        for event in events.drain(Duration::from_millis(400)).await {
            seen.push(("event".into(), event.to_string()));
        }
    }
    for (what, text) in &seen {
        assert!(!text.contains("\"seed\""), "{what} names the seed: {text}");
        assert!(!text.contains(&seed), "{what} holds the seed's value");
        assert!(!text.contains("rng_word_pos") && !text.contains("tabletop-mathable-1"), "{what} holds the save state");
    }
}

/// W2 (the bag's order): two games created alike deal different racks (the seed is random
/// and stays on the server), and a creator cannot choose the seed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mathable_seeds_are_random_and_cannot_be_chosen() {
    let server = start().await;
    let addr = server.addr;
    let mut racks = std::collections::HashSet::new();
    for _ in 0..6 {
        let game = create(addr, json!({"game": "mathable", "seats": ["human", "human"]})).await;
        assert!(game.answer["state"]["options"].get("seed").is_none());
        racks.insert(game.answer["state"]["board"]["racks"][0].to_string());
    }
    assert!(racks.len() >= 4, "six games dealt only {} different racks", racks.len());
    let chosen = post(addr, "/api/games", json!({"game": "mathable", "options": {"seed": 7}})).await;
    assert_eq!(chosen.status, 400, "{}", chosen.text);
    assert!(chosen.error().contains("no option \"seed\""), "{}", chosen.text);
}

/// W3: a watcher gets no hint or analysis during a game, and nothing of a finished game with
/// hidden information; W4: hints leave no trace others can see.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_needs_the_movers_token_and_reveals_nothing_to_others() {
    let server = start().await;
    let addr = server.addr;
    let game = create(
        addr,
        json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "human"], "hints": true}),
    )
    .await;
    let id = &game.id;
    let mut watcher = Events::open(addr, id, None).await;
    watcher.until("connected", SHORT).await;
    let mut opponent = Events::open(addr, id, Some(game.token(1))).await;
    opponent.until("connected", SHORT).await;
    watcher.drain(Duration::from_millis(200)).await;
    let before = state(addr, id, None).await;
    for token in [None, Some("forged"), Some(game.token(1)), Some(game.token(2))] {
        let answer = act(addr, id, "hint", json!({"token": token})).await;
        assert_eq!(answer.status, 403, "{token:?}: {}", answer.text);
        assert!(!answer.text.contains('='), "no move in a refusal");
        assert_eq!(act(addr, id, "analysis", json!({"token": token})).await.status, 403);
    }
    let hint = act(addr, id, "hint", json!({"token": game.token(0)})).await;
    assert_eq!(hint.status, 200, "{}", hint.text);
    let mv = hint.body["move"].as_str().unwrap();
    let token: u64 = mv.split('=').nth(1).unwrap().parse().unwrap();
    let rack = state(addr, id, Some(game.token(0))).await["board"]["racks"][0].clone();
    assert!(rack.as_array().unwrap().contains(&json!(token)), "the hint is a token of the mover's own rack");
    // Nothing changed for anyone else: no event, same version.
    assert_eq!(state(addr, id, None).await["version"], before["version"]);
    assert!(watcher.drain(Duration::from_millis(300)).await.is_empty(), "a hint sends no event");
    let opponent_events = opponent.drain(Duration::from_millis(100)).await;
    assert!(opponent_events.iter().all(|e| !e.to_string().contains(mv)), "{opponent_events:?}");
    // A finished game with hidden information: no analysis for anyone.
    act(addr, id, "resign", json!({"token": game.token(1)})).await;
    act(addr, id, "resign", json!({"token": game.token(2)})).await;
    assert_eq!(state(addr, id, None).await["status"]["over"], true);
    for token in [None, Some(game.token(0))] {
        assert_eq!(act(addr, id, "analysis", json!({"token": token, "ply": 0})).await.status, 403);
    }
}

/// O1: an opponent sees its own rack only, and another seat's exchange as "exchanged N tokens"
/// (in `history` and `moves`); the exchanging seat sees what it exchanged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exchanges_appear_to_others_as_a_count() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "mathable", "seats": ["human", "human"]})).await;
    let id = &game.id;
    let view = state(addr, id, Some(game.token(0))).await;
    let swap = view["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .rfind(|m| m.starts_with("swap"))
        .unwrap()
        .to_string();
    let n = swap.trim_start_matches("swap=").split(',').count();
    let mine = play_ok(addr, id, game.token(0), &swap).await;
    assert_eq!(mine["moves"], json!([swap]));
    let shown = if n == 1 { "exchanged 1 token".to_string() } else { format!("exchanged {n} tokens") };
    for token in [None, Some(game.token(1))] {
        let view = state(addr, id, token).await;
        assert_eq!(view["moves"], json!([shown]), "{token:?}");
        assert_eq!(view["history"], json!([{"ply": 0, "seat": 0, "move": shown}]));
        let tokens: Vec<&str> = swap.trim_start_matches("swap=").split(',').collect();
        assert!(!view["history"].to_string().contains(&format!("swap={}", tokens[0])));
    }
}

/// O2: an opponent cannot move, resign, take back or answer for another seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opponent_cannot_act_for_another_seat() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let (id, a, b) = (&game.id, game.token(0), game.token(1));
    assert_eq!(play(addr, id, b, "5").await.status, 409, "not b's turn");
    play_ok(addr, id, a, "5").await;
    assert_eq!(act(addr, id, "undo", json!({"token": b})).await.status, 422, "b cannot take back a's move");
    act(addr, id, "undo", json!({"token": a})).await;
    assert_eq!(
        act(addr, id, "proposal", json!({"token": a, "accept": true})).await.status,
        403,
        "a cannot accept for b"
    );
    act(addr, id, "proposal", json!({"token": b, "accept": false})).await;
    // A seat's token holds nothing in another game.
    let other = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    assert_eq!(play(addr, &other.id, a, "5").await.status, 403);
    assert_eq!(state(addr, &other.id, Some(a)).await["your_seat"], Value::Null);
    let resigned = act(addr, id, "resign", json!({"token": b})).await;
    assert_eq!(resigned.body["result"]["winners"], json!([0]), "a token resigns its own seat only");
}

// ---- Validation at creation ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn player_settings_are_validated_at_creation() {
    let server = start_with(tabletop_web::ServeConfig {
        max_think: Duration::from_secs(10),
        engine_memory: 64 << 20,
        ..config()
    })
    .await;
    let addr = server.addr;
    let cases = [
        ("slide", "engine:time=abc", "a duration"),
        ("slide", "classic:levels=999", "levels"),
        ("reversi", "classic:depth=0", "depth"),
        ("connect", "connect:level=99", "level"),
        ("slide", "engine:time=1e400", "time"),
        ("reversi", "engine:time=1e7s", "longest thinking time"),
        ("connect", "engine:time=11s", "longest thinking time"),
        ("connect", "engine:table=1073741824", "MiB"),
        ("connect", "engine:table=268435456", "MiB"),
        ("connect", "engine:table=99999999999", "table"),
        ("reversi", "engine:depth=0", "depth"),
        ("reversi", "engine:wisdom=3", "wisdom"),
        ("slide", "engine:time=-1s", "time"),
        ("slide", "engine:time=NaN", "time"),
        ("mathable", "greedy:speed=3", "speed"),
        ("mathable", "engine:time=1e7s", "time"),
        ("slide", "wizard", "valid players"),
        // External NBoard engines are for the terminal only: a request must never start a process.
        ("reversi", "nboard:cmd=\"touch nboard-from-the-web\",depth=2", "unknown player \"nboard\""),
    ];
    for (game, spec, reason) in cases {
        let answer = post(addr, "/api/games", json!({"game": game, "seats": ["human", spec]})).await;
        assert_eq!(answer.status, 400, "{game} {spec}: {}", answer.text);
        let error = answer.error();
        assert!(error.contains("seat 1") && error.contains(reason), "{game} {spec}: {error}");
    }
    // Nor does any game's external player (a program on the line protocol): terminal only.
    let marker = std::env::temp_dir().join(format!("external-from-the-web-{}", std::process::id()));
    let spec = format!("external:cmd=\"touch {}\"", marker.display());
    for entry in tabletop::registry::GAMES {
        let answer = post(addr, "/api/games", json!({"game": entry.name, "seats": ["human", spec]})).await;
        assert_eq!(answer.status, 400, "{} {spec}: {}", entry.name, answer.text);
        let error = answer.error();
        assert!(error.contains("seat 1") && error.contains("unknown player \"external\""), "{}: {error}", entry.name);
    }
    assert!(!marker.exists(), "a request started a process");
    // At the caps is fine.
    for (game, spec) in
        [("connect", "engine:time=10s"), ("connect", "engine:table=4194304"), ("slide", "classic:levels=12")]
    {
        let answer = post(addr, "/api/games", json!({"game": game, "seats": ["human", spec]})).await;
        assert_eq!(answer.status, 200, "{game} {spec}: {}", answer.text);
        act(addr, answer.body["id"].as_str().unwrap(), "resign", json!({"token": answer.body["tokens"][0]})).await;
    }
    // The server's caps are its flags.
    let tight = start_with(tabletop_web::ServeConfig {
        max_think: Duration::from_millis(500),
        engine_memory: 1 << 20,
        ..config()
    })
    .await;
    for spec in ["engine:time=1s", "engine:table=262144"] {
        let answer = post(tight.addr, "/api/games", json!({"game": "connect", "seats": ["human", spec]})).await;
        assert_eq!(answer.status, 400, "{spec}: {}", answer.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_option_keys_and_mistyped_values_are_refused() {
    let server = start().await;
    let addr = server.addr;
    let cases = [
        (json!({"game": "slide", "options": {"size": "3"}}), "whole number"),
        (json!({"game": "slide", "options": {"size": 3.5}}), "whole number"),
        (json!({"game": "slide", "options": {"colour": "red"}}), "no option \"colour\""),
        (json!({"game": "slide", "options": {"pad": "x".repeat(8000)}}), "no option"),
        (json!({"game": "reversi", "options": {"size": 10}}), "valid options: none"),
        (json!({"game": "connect", "options": {"preset": 4}}), "must be a string"),
        (json!({"game": "connect", "options": {"preset": "connect9"}}), "connect9"),
        (json!({"game": "connect", "options": {"preset": "connect4", "width": 7}}), "not both"),
        (json!({"game": "connect", "options": {"width": 100000, "height": 6, "connect": 4}}), ""),
        (json!({"game": "mathable", "options": {"players": 5}}), "2 to 4"),
        (json!({"game": "mathable", "options": {"players": "2"}}), "2 to 4"),
        (json!({"game": "slide", "options": []}), "object"),
        (json!({"game": "slide", "options": "3x3"}), "object"),
        (json!({"game": "chess"}), "unknown game"),
        (json!({"game": "slide", "hints": "yes"}), ""),
        (json!({"game": "slide", "seats": "human"}), ""),
        (json!({"game": "slide", "seats": ["human", 3]}), ""),
        (json!({"game": "slide", "seats": ["human"]}), "needs 2 seats"),
        (json!({"game": "slide", "seats": ["engine", "engine"]}), "human"),
        (json!({"game": "slide", "seats": ["open", "open"]}), "human"),
        (json!({"gmae": "slide"}), ""),
        (json!({"game": "slide", "extra": 1}), ""),
        (json!({}), ""),
    ];
    for (body, reason) in cases {
        let answer = post(addr, "/api/games", body.clone()).await;
        assert_eq!(answer.status, 400, "{body}: {}", answer.text);
        assert!(answer.error().contains(reason), "{body}: {}", answer.text);
    }
    for text in ["", "not json", "{\"game\": \"slide\"", "[]", "null"] {
        let answer = request(addr, "POST", "/api/games", Some(text)).await;
        assert_eq!(answer.status, 400, "{text:?}: {}", answer.text);
        answer.error();
    }
    assert_eq!(get(addr, "/api/lobby").await.body["games"], json!([]));
}

// ---- Errors ----

/// Every error is a JSON object `{"error": ...}`, unknown routes and wrong methods too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_is_json() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let id = &game.id;
    let cases: Vec<(&str, String, Option<&str>, u16)> = vec![
        ("GET", "/nope".into(), None, 404),
        ("GET", "/api/nope".into(), None, 404),
        ("POST", "/api/nope".into(), Some("{}"), 404),
        ("GET", "/static/../../etc/passwd".into(), None, 404),
        ("POST", "/".into(), Some("{}"), 405),
        ("GET", "/api/games".into(), None, 405),
        ("DELETE", format!("/api/games/{id}"), None, 405),
        ("PUT", format!("/api/games/{id}/moves"), Some("{}"), 405),
        ("GET", format!("/api/games/{id}/moves"), None, 405),
        ("GET", format!("/api/games/{id}/hint"), None, 405),
        ("POST", format!("/api/games/{id}/moves"), Some("{\"move\": 5, \"token\": \"x\"}"), 400),
        ("POST", format!("/api/games/{id}/moves"), Some("garbage"), 400),
        ("POST", format!("/api/games/{id}/proposal"), Some("{\"token\": \"x\", \"accept\": \"yes\"}"), 400),
        (
            "POST",
            format!("/api/games/{id}/moves"),
            Some(&*Box::leak(format!("{{\"move\":\"{}\"}}", "x".repeat(20_000)).into_boxed_str())),
            413,
        ),
    ];
    for (method, path, body, status) in cases {
        let answer = request(addr, method, &path, body).await;
        assert_eq!(answer.status, status, "{method} {path}: {}", answer.text);
        assert!(
            answer.header("content-type").unwrap_or_default().starts_with("application/json"),
            "{method} {path}: {}",
            answer.head
        );
        assert!(!answer.error().is_empty());
    }
    // Without a Content-Type: still a JSON 400, never 415 as text.
    let body = json!({"move": "5", "token": game.token(0)}).to_string();
    let bare = format!(
        "POST /api/games/{id}/moves HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let answer = raw(addr, bare.as_bytes()).await;
    assert!(matches!(answer.status, 200 | 400), "{}", answer.text);
    if answer.status == 400 {
        answer.error();
    }
}

/// A declared `Content-Length: 1073741824` is answered 413 at once, without the body being sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_declared_body_is_refused_before_it_is_sent() {
    let server = start().await;
    for path in ["/api/games", "/api/games/0123456789abcdef0123456789abcdef/moves", "/api/nope"] {
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        let head = format!("POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{{\"ga");
        let started = Instant::now();
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        // Read until the head and a JSON body have come (the server may keep the connection).
        while !String::from_utf8_lossy(&raw).contains('}') {
            match tokio::time::timeout(Duration::from_secs(3), stream.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => raw.extend_from_slice(&buf[..n]),
                other => panic!("{path}: no answer without the body ({other:?}): {}", String::from_utf8_lossy(&raw)),
            }
        }
        let answer = parse_answer(&raw);
        assert_eq!(answer.status, 413, "{path}: {}", answer.text);
        assert!(answer.error().contains("too large"));
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}

// ---- Limits ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_games_and_hints_are_rate_limited() {
    let server = start_with(tabletop_web::ServeConfig { create_rate: 6, hint_rate: 6, ..config() }).await;
    let addr = server.addr;
    let body = json!({"game": "connect", "options": {"preset": "connect3"}, "seats": ["human", "engine:time=20ms"]});
    let first = post(addr, "/api/games", body.clone()).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let mut limited = None;
    for _ in 0..5 {
        let answer = post(addr, "/api/games", body.clone()).await;
        if answer.status == 429 {
            limited = Some(answer);
            break;
        }
    }
    let limited = limited.expect("the create rate is enforced");
    assert!(limited.error().contains("too many"), "{}", limited.text);
    let wait: u64 = limited.header("retry-after").expect("Retry-After").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    // Joining counts as creating; other routes are not limited.
    assert_eq!(
        post(addr, &format!("/api/games/{}/join", first.body["id"].as_str().unwrap()), json!({})).await.status,
        429
    );
    let id = first.body["id"].as_str().unwrap();
    for _ in 0..10 {
        assert_eq!(get(addr, &format!("/api/games/{id}")).await.status, 200);
    }
    let token = first.body["tokens"][0].as_str().unwrap();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(act(addr, id, "hint", json!({"token": token})).await.status);
    }
    assert_eq!(statuses[0], 200);
    assert!(statuses.contains(&429), "{statuses:?}");
}

/// Hints and analyses beyond the workers and the queue are refused with 503 and Retry-After.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_engine_queue_answers_503_with_retry_after() {
    let server = start_with(tabletop_web::ServeConfig { workers: 1, queue: 0, ..config() }).await;
    let addr = server.addr;
    let mut games = Vec::new();
    for _ in 0..4 {
        games.push(create(addr, json!({"game": "reversi", "seats": ["human", "engine:time=50ms"]})).await);
    }
    let mut asks = Vec::new();
    for game in &games {
        let (id, token) = (game.id.clone(), game.token(0).to_string());
        asks.push(tokio::spawn(async move { act(addr, &id, "hint", json!({"token": token})).await }));
    }
    let mut answers = Vec::new();
    for ask in asks {
        answers.push(ask.await.unwrap());
    }
    let statuses: Vec<u16> = answers.iter().map(|a| a.status).collect();
    assert!(statuses.contains(&200), "{statuses:?}");
    let busy = answers.iter().find(|a| a.status == 503).unwrap_or_else(|| panic!("no 503: {statuses:?}"));
    assert!(busy.error().contains("busy"));
    assert!(busy.header("retry-after").is_some(), "{}", busy.head);
    // The computer's moves still wait their turn: every game's computer replies.
    for game in &games {
        play_ok(addr, &game.id, game.token(0), "d3").await;
    }
    for game in &games {
        let view =
            wait_for(addr, &game.id, None, Duration::from_secs(5), |v| v["moves"].as_array().unwrap().len() == 2).await;
        assert_eq!(view["moves"].as_array().unwrap().len(), 2);
    }
}

/// Resigning stops the computer's thinking at once (`engine:time=5s`), and so does an undo.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_or_undoing_cancels_thinking() {
    let server = start().await;
    let addr = server.addr;
    let state_ref = &server.running.state;
    let game = create(addr, json!({"game": "reversi", "seats": ["engine:time=5s", "human"]})).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(tabletop_web::server::thinking_count(state_ref), 1, "the computer thinks");
    let resigned = act(addr, &game.id, "resign", json!({"token": game.token(1)})).await;
    assert_eq!(resigned.status, 200);
    let started = Instant::now();
    while tabletop_web::server::thinking_count(state_ref) > 0 && started.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(tabletop_web::server::thinking_count(state_ref), 0);
    assert!(started.elapsed() < Duration::from_secs(1), "stopped in {:?}", started.elapsed());
    assert_eq!(state(addr, &game.id, None).await["moves"], json!([]), "no move after the resignation");

    let game = create(addr, json!({"game": "reversi", "seats": ["human", "engine:time=5s"]})).await;
    play_ok(addr, &game.id, game.token(0), "d3").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(tabletop_web::server::thinking_count(state_ref), 1);
    let undone = act(addr, &game.id, "undo", json!({"token": game.token(0)})).await;
    assert_eq!(
        (undone.status, undone.body["moves"].clone(), undone.body["thinking"].clone()),
        (200, json!([]), json!(false))
    );
    let started = Instant::now();
    while tabletop_web::server::thinking_count(state_ref) > 0 && started.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(started.elapsed() < Duration::from_secs(1), "stopped in {:?}", started.elapsed());
    assert_eq!(state(addr, &game.id, None).await["moves"], json!([]));
}

/// Copies a database (with its write-ahead log) to a fresh directory, as a crash would leave it.
fn snapshot(db: &std::path::Path) -> std::path::PathBuf {
    let copy = tempdir().join("copy.db");
    std::fs::copy(db, &copy).unwrap();
    let wal = db.with_extension("db-wal");
    if wal.exists() {
        std::fs::copy(&wal, copy.with_extension("db-wal")).unwrap();
    }
    copy
}

/// A computer to move when the server stopped resumes when it starts (moving first, or replying).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computer_to_move_resumes_after_a_restart() {
    if skip_unless_sqlite("a_computer_to_move_resumes_after_a_restart") {
        return;
    }
    let server = start().await;
    let addr = server.addr;
    let first = create(addr, json!({"game": "reversi", "seats": ["engine:time=2s", "human"]})).await;
    let second = create(
        addr,
        json!({"game": "connect", "options": {"preset": "connect4-6x4"}, "seats": ["human", "engine:time=2s"]}),
    )
    .await;
    play_ok(addr, &second.id, second.token(0), "3").await;
    // The state as a crash now would leave it: both computers to move, nothing stored from them.
    let copy = snapshot(&server.db);
    let again = start_with(tabletop_web::ServeConfig { db: copy, ..config() }).await;
    assert!(tabletop_web::server::thinking_count(&again.running.state) >= 1, "resumed at start, before any request");
    let moved =
        wait_for(again.addr, &first.id, None, Duration::from_secs(5), |v| v["moves"].as_array().unwrap().len() == 1)
            .await;
    assert_eq!(moved["moves"].as_array().unwrap().len(), 1, "the computer moved first after the restart");
    assert_eq!(moved["status"]["to_move"], 1);
    let reply = moved["legal"][0].as_str().unwrap().to_string();
    play_ok(again.addr, &first.id, first.token(1), &reply).await;
    let replied =
        wait_for(again.addr, &second.id, None, Duration::from_secs(5), |v| v["moves"].as_array().unwrap().len() == 2)
            .await;
    assert_eq!(replied["moves"].as_array().unwrap().len(), 2, "the computer replied after the restart");
    assert_eq!(replied["status"]["to_move"], 0);
}

/// Memory is bounded: at most `cache_games` games in memory; an evicted game loads again with its moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_cache_stays_bounded() {
    let server = start_with(tabletop_web::ServeConfig { cache_games: 50, ..config() }).await;
    let addr = server.addr;
    let first = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    play_ok(addr, &first.id, first.token(0), "5").await;
    play_ok(addr, &first.id, first.token(1), "1").await;
    let mut peak = 0;
    for _ in 0..199 {
        create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
        peak = peak.max(server.state().cached_games());
    }
    assert!(peak <= 50, "{peak} games in memory");
    assert!(server.state().cached_games() >= 40, "the cache is used: {}", server.state().cached_games());
    let view = state(addr, &first.id, Some(first.token(0))).await;
    assert_eq!(view["moves"], json!(["5", "1"]), "the evicted game loads with its moves");
    assert_eq!(view["your_seat"], 0);
    play_ok(addr, &first.id, first.token(0), "9").await;
    assert!(server.state().cached_games() <= 50);
}

/// Reads from a connection until it is closed (or a response comes); how long that took.
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<(Duration, String)> {
    let started = Instant::now();
    let mut raw = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match tokio::time::timeout_at(tokio::time::Instant::from_std(started + limit), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some((started.elapsed(), String::from_utf8_lossy(&raw).to_string())),
            Ok(Ok(n)) => raw.extend_from_slice(&buf[..n]),
            Err(_) => return None,
        }
    }
}

/// Idle, half-sent and kept-alive-but-silent connections are closed after the header timeout;
/// a body sent too slowly is refused after the body timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_half_sent_connections_are_closed() {
    let server = start_with(tabletop_web::ServeConfig {
        header_timeout: Duration::from_secs(1),
        body_timeout: Duration::from_secs(1),
        ..config()
    })
    .await;
    let addr = server.addr;
    let limit = Duration::from_secs(4);
    // Connected, nothing sent.
    let mut idle = TcpStream::connect(addr).await.unwrap();
    // Half a request head.
    let mut half = TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET /api/lobby HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    // A whole request on a kept-alive connection, then silence.
    let mut kept = TcpStream::connect(addr).await.unwrap();
    kept.write_all(b"GET /api/lobby HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 4096];
    let n = kept.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // Headers sent, the body never finished.
    let mut slow = TcpStream::connect(addr).await.unwrap();
    slow.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"game\"").await.unwrap();
    for (name, stream) in [("idle", &mut idle), ("half-sent", &mut half), ("kept-alive", &mut kept)] {
        let closed = closed_within(stream, limit).await;
        let (after, _) = closed.unwrap_or_else(|| panic!("the {name} connection is still open after {limit:?}"));
        assert!(after < Duration::from_millis(3500), "{name}: {after:?}");
    }
    let (_, answer) = closed_within(&mut slow, limit).await.expect("the slow body is cut off");
    let answer = parse_answer(answer.as_bytes());
    assert!(matches!(answer.status, 400 | 408), "{}", answer.text);
    assert!(answer.error().contains("timeout"), "{}", answer.text);
    // The server still answers.
    assert_eq!(get(addr, "/api/lobby").await.status, 200);
}

/// The connection cap: past `max_connections`, further connections wait instead of being served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped() {
    let server = start_with(tabletop_web::ServeConfig { max_connections: 2, ..config() }).await;
    let addr = server.addr;
    let held: Vec<TcpStream> = vec![TcpStream::connect(addr).await.unwrap(), TcpStream::connect(addr).await.unwrap()];
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waiting = tokio::time::timeout(Duration::from_millis(700), get(addr, "/api/lobby")).await;
    assert!(waiting.is_err(), "a third connection was served while two were open");
    drop(held);
    let answer =
        tokio::time::timeout(Duration::from_secs(3), get(addr, "/api/lobby")).await.expect("served once others close");
    assert_eq!(answer.status, 200);
}

/// Storage: a database file removed under the server makes writes 503 (never acknowledged and
/// lost); a corrupted stored move answers 500 with a reason that stays in the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_trouble_is_refused_not_blamed_on_the_client() {
    if skip_unless_sqlite("storage_trouble_is_refused_not_blamed_on_the_client") {
        return;
    }
    let server = start_with(tabletop_web::ServeConfig { storage_check: Duration::from_millis(100), ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    play_ok(addr, &game.id, game.token(0), "5").await;
    // Corrupt a stored move, then read the game through a fresh server (nothing cached).
    let copy = snapshot(&server.db);
    {
        let conn = rusqlite::Connection::open(&copy).unwrap();
        conn.execute("UPDATE moves SET notation = 'zz' WHERE game_id = ?1", [&game.id]).unwrap();
    }
    let damaged = start_with(tabletop_web::ServeConfig { db: copy, ..config() }).await;
    let answer = get(damaged.addr, &format!("/api/games/{}", game.id)).await;
    assert_eq!(answer.status, 500, "{}", answer.text);
    assert_eq!(answer.error(), "internal error", "the reason is logged, not sent");
    // The database file removed: moves and creation refused with 503 and Retry-After.
    std::fs::remove_file(&server.db).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let answer = play(addr, &game.id, game.token(1), "1").await;
    assert_eq!(answer.status, 503, "{}", answer.text);
    assert!(answer.header("retry-after").is_some());
    answer.error();
    assert_eq!(post(addr, "/api/games", json!({"game": "slide"})).await.status, 503);
    assert_eq!(state(addr, &game.id, None).await["moves"], json!(["5"]), "reading still works");
}

/// Issue 13, Why: a game whose computer moves first, stopped before it moved, resumes when the
/// server starts, before anyone asks for it (the move appears in the database by itself).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_computer_moving_first_resumes_at_start_without_a_request() {
    if skip_unless_sqlite("a_computer_moving_first_resumes_at_start_without_a_request") {
        return;
    }
    let server = start().await;
    let game = create(server.addr, json!({"game": "reversi", "seats": ["engine:time=300ms", "human"]})).await;
    let copy = snapshot(&server.db);
    let _again = start_with(tabletop_web::ServeConfig { db: copy.clone(), ..config() }).await;
    let conn = rusqlite::Connection::open(&copy).unwrap();
    let started = Instant::now();
    let mut stored = 0;
    while started.elapsed() < Duration::from_secs(4) {
        stored = conn.query_row("SELECT COUNT(*) FROM moves WHERE game_id = ?1", [&game.id], |r| r.get(0)).unwrap();
        if stored > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(stored, 1, "the computer's first move was stored without any request");
}

/// Every game's slow thinkers stop when their game is resigned: a long search ignores no
/// cancellation (a worker stuck in one would be lost to every game).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_games_long_thinking_is_cancelled_by_resigning() {
    let server = start().await;
    let addr = server.addr;
    // Each of these thinks for seconds (measured with `tabletop play`); Mathable's engine
    // exhausts its search of an opening at once, so it may have nothing to cancel. Reversi's
    // classic player answers depth 12 at the opening in 0.1 s, so its engine is used instead.
    let cases = [
        json!({"game": "slide", "options": {"size": 5, "empty": 2}, "seats": ["engine:time=5s", "human"]}),
        json!({"game": "mathable", "seats": ["engine:time=5s", "human"]}),
        json!({"game": "reversi", "seats": ["engine:time=5s", "human"]}),
        json!({"game": "reversi", "seats": ["classic:depth=16", "human"]}),
        json!({"game": "connect", "options": {"width": 8, "height": 7, "connect": 5}, "seats": ["engine:time=5s", "human"]}),
    ];
    let mut checked = 0;
    for body in cases {
        let game = create(addr, body.clone()).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        if tabletop_web::server::thinking_count(server.state()) == 0 {
            eprintln!("{body}: answered within 0.3 s, nothing to cancel");
            continue;
        }
        let answer = act(addr, &game.id, "resign", json!({"token": game.token(1)})).await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        let started = Instant::now();
        while tabletop_web::server::thinking_count(server.state()) > 0 && started.elapsed() < Duration::from_secs(4) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Uncancelled, each would think 5 s or far longer; the margin is for a loaded machine
        // (engine workers run at a lower priority than everything else in the test run).
        assert!(started.elapsed() < Duration::from_secs(3), "{body}: still thinking after {:?}", started.elapsed());
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} slow thinkers to cancel");
}

/// A captured log (the process-wide subscriber writes here).
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Logs: one line per request with its status, and never a token (query strings and bodies
/// are not logged), even at debug level.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_log_never_holds_a_token() {
    let captured = Captured::default();
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_env_filter(tabletop_web::log_filter("debug"))
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .try_init()
        .expect("the only subscriber of this test binary");
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "mathable", "seats": ["human", "human"], "hints": true})).await;
    let (id, one, two) = (&game.id, game.token(0), game.token(1));
    state(addr, id, Some(one)).await;
    let mut events = Events::open(addr, id, Some(two)).await;
    events.until("connected", SHORT).await;
    act(addr, id, "hint", json!({"token": one})).await;
    play(addr, id, one, "A1=90").await;
    play(addr, id, two, "end").await;
    act(addr, id, "undo", json!({"token": two})).await;
    play_ok(addr, id, one, "end").await;
    act(addr, id, "resign", json!({"token": two})).await;
    drop(events);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let log = String::from_utf8_lossy(&captured.0.lock().unwrap()).to_string();
    assert!(log.contains(&format!("/api/games/{id}/moves")), "requests are logged: {log}");
    assert!(log.contains("422") && log.contains("409"), "with their status: {log}");
    for token in [one, two] {
        assert!(!log.contains(token), "a token in the log:\n{log}");
    }
}

/// A file that is not a database is refused at start with a clear error, not served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_database_is_refused_at_start() {
    if skip_unless_sqlite("a_damaged_database_is_refused_at_start") {
        return;
    }
    let db = tempdir().join("damaged.db");
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    let Err(error) = tabletop_web::start(tabletop_web::ServeConfig { db, ..config() }).await else {
        panic!("a damaged database was opened");
    };
    let text = error.to_string();
    assert!(text.contains("database"), "{text}");
}

/// The header timeout closes idle connections, not event streams: a stream quiet for longer
/// than it still gets the next move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_outlive_the_header_timeout() {
    let server = start_with(tabletop_web::ServeConfig { header_timeout: Duration::from_secs(1), ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let mut events = Events::open(addr, &game.id, Some(game.token(1))).await;
    events.until("connected", SHORT).await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    play_ok(addr, &game.id, game.token(0), "5").await;
    assert_eq!(events.until("move", SHORT).await["moves"], json!(["5"]));
}

/// A database file replaced under the server (a restore, a careless copy) refuses writes too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replaced_database_refuses_writes() {
    if skip_unless_sqlite("a_replaced_database_refuses_writes") {
        return;
    }
    let server = start_with(tabletop_web::ServeConfig { storage_check: Duration::from_millis(100), ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let copy = snapshot(&server.db);
    std::fs::rename(&copy, &server.db).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let answer = play(addr, &game.id, game.token(0), "5").await;
    assert_eq!(answer.status, 503, "{}", answer.text);
    assert!(answer.header("retry-after").is_some());
    assert_eq!(state(addr, &game.id, None).await["moves"], json!([]), "nothing acknowledged");
}

/// Issue 24, item 7: another process holding SQLite's write lock never stalls the server: the
/// page, its files, the catalog and the lobby answer at once, moves waiting for the lock answer
/// 503 with `Retry-After` within a bound (the lock was waited for 5 s on the threads that answer
/// requests, so everything stalled), nothing refused is stored, and the moves go through once
/// the lock is released.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_sqlite_database_answers_503_quickly_and_stalls_nothing_else() {
    if skip_unless_sqlite("a_locked_sqlite_database_answers_503_quickly_and_stalls_nothing_else") {
        return;
    }
    let server = start().await;
    let addr = server.addr;
    let mut games = Vec::new();
    for _ in 0..4 {
        games.push(create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await);
    }
    // Another process's connection takes the file's write lock and keeps it.
    let locker = rusqlite::Connection::open(&server.db).unwrap();
    locker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let moves: Vec<_> = games
        .iter()
        .map(|game| {
            let (id, token) = (game.id.clone(), game.token(0).to_string());
            tokio::spawn(async move {
                let asked = Instant::now();
                let answer = play(addr, &id, &token, "5").await;
                (answer, asked.elapsed())
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    for path in ["/", "/favicon.svg", "/api/catalog", "/api/lobby"] {
        let asked = Instant::now();
        let answer = tokio::time::timeout(Duration::from_secs(10), get(addr, path)).await.expect("an answer");
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        assert!(
            asked.elapsed() < Duration::from_millis(1500),
            "{path} waited {:?} for the locked database",
            asked.elapsed()
        );
    }
    for refused in moves {
        let (answer, took) = refused.await.unwrap();
        assert_eq!(answer.status, 503, "{}", answer.text);
        assert!(answer.header("retry-after").is_some(), "{}", answer.head);
        answer.error();
        assert!(took < Duration::from_secs(3), "a move waited {took:?} for the lock");
    }
    locker.execute_batch("ROLLBACK").unwrap();
    for game in &games {
        assert_eq!(state(addr, &game.id, None).await["moves"], json!([]), "nothing refused was kept");
        assert_eq!(play_ok(addr, &game.id, game.token(0), "5").await["moves"], json!(["5"]));
    }
}

/// Issue 24, item 9: a database file the server cannot write (opened immutable or read-only,
/// or a read-only file) is refused at start with what to do, instead of being served with
/// every write answering 503.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_that_cannot_be_written_is_refused_at_start() {
    if skip_unless_sqlite("a_database_that_cannot_be_written_is_refused_at_start") {
        return;
    }
    let db = tempdir().join("games.db");
    {
        let server = start_with(tabletop_web::ServeConfig { db: db.clone(), ..config() }).await;
        create(server.addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
        server.running.shutdown().await;
    }
    let refused = |text: &str| text.contains("cannot be written") && text.contains("writable");
    for uri in [format!("file:{}?immutable=1", db.display()), format!("file:{}?mode=ro", db.display())] {
        let Err(error) = tabletop_web::start(tabletop_web::ServeConfig { db: uri.clone().into(), ..config() }).await
        else {
            panic!("{uri} was opened for writing");
        };
        assert!(refused(&error.to_string()), "{uri}: {error}");
    }
    // A read-only file: permissions do not stop root, so this part runs for other users only.
    let writable = std::fs::metadata(&db).unwrap().permissions();
    let mut read_only = writable.clone();
    read_only.set_readonly(true);
    std::fs::set_permissions(&db, read_only).unwrap();
    if std::fs::OpenOptions::new().append(true).open(&db).is_ok() {
        eprintln!("a read-only file is writable by this user (root): that case is not checked here");
    } else {
        let Err(error) = tabletop_web::start(tabletop_web::ServeConfig { db: db.clone(), ..config() }).await else {
            panic!("a read-only file was opened for writing");
        };
        assert!(refused(&error.to_string()), "{error}");
    }
    std::fs::set_permissions(&db, writable).unwrap();
    let server = start_with(tabletop_web::ServeConfig { db, ..config() }).await;
    assert_eq!(get(server.addr, "/api/lobby").await.status, 200, "the same file, writable, is served");
}

/// The `tokens` column of a stored game, as the database holds it.
fn stored_tokens(db: &std::path::Path, id: &str) -> String {
    stored_column(db, id, "tokens")
}

/// Makes the database one written before tokens were hashed: `tokens` stored in clear for game
/// `id`, and the schema steps back to 3 (the step that hashes them, and the later one that adds
/// single-use invitations, not yet applied).
fn store_clear_tokens(db: &std::path::Path, id: &str, tokens: &[&str]) {
    let clear = json!(tokens).to_string();
    if on_postgres() {
        let url = db.to_string_lossy();
        support::pg::psql(&url, &format!("UPDATE games SET tokens = '{clear}' WHERE id = '{id}'"));
        support::pg::psql(&url, "ALTER TABLE games DROP COLUMN invites");
        // (And the clocks' step, which came after.)
        support::pg::psql(&url, "DROP INDEX games_deadline");
        support::pg::psql(&url, "ALTER TABLE games DROP COLUMN clock, DROP COLUMN deadline");
        support::pg::psql(&url, "ALTER TABLE moves DROP COLUMN time");
        // (And the accounts' and the ratings' steps.)
        support::pg::psql(&url, "DROP TABLE accounts, account_sessions, account_attempts");
        support::pg::psql(&url, "DROP TABLE game_players, ratings, rating_changes");
        support::pg::psql(&url, "ALTER TABLE games DROP COLUMN rated");
        // (And the seeks' step.)
        support::pg::psql(&url, "DROP TABLE pool_entries");
        support::pg::psql(&url, "ALTER TABLE games DROP COLUMN rating_range");
        support::pg::psql(&url, "DROP TABLE api_tokens, challenges, rate_limits");
        support::pg::psql(&url, "DELETE FROM schema_migrations WHERE version >= 4");
    } else {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.execute("UPDATE games SET tokens = ?2 WHERE id = ?1", [id, &clear]).unwrap();
        // (And the clocks', the accounts' and the ratings' steps, which came after.)
        conn.execute_batch(
            "ALTER TABLE games DROP COLUMN invites; DROP INDEX games_deadline; ALTER TABLE games DROP COLUMN clock;
             ALTER TABLE games DROP COLUMN deadline; ALTER TABLE moves DROP COLUMN time;
             DROP TABLE accounts; DROP TABLE account_sessions; DROP TABLE account_attempts;
             DROP TABLE game_players; DROP TABLE ratings; DROP TABLE rating_changes; ALTER TABLE games DROP COLUMN rated;
             DROP TABLE pool_entries; ALTER TABLE games DROP COLUMN rating_range;
             DROP TABLE api_tokens; DROP TABLE challenges; DROP TABLE rate_limits;
             PRAGMA user_version = 3",
        )
        .unwrap();
    }
}

/// Issue 24, item 9: seat tokens are stored hashed (the creator's, and an open seat's given at
/// join), never in clear, and still work; an older database's clear tokens are hashed when it is
/// opened, and their holders keep playing with them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_tokens_are_stored_hashed_and_older_clear_tokens_are_upgraded() {
    use tabletop_web::store::hash_token;
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "open"]})).await;
    let joined = post(addr, &format!("/api/games/{}/join", game.id), json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.text);
    let (first, second) = (game.token(0).to_string(), joined.body["token"].as_str().unwrap().to_string());
    let stored = stored_tokens(&server.db, &game.id);
    for token in [&first, &second] {
        assert!(!stored.contains(token.as_str()), "a token stored in clear: {stored}");
        assert!(stored.contains(&hash_token(token)), "its hash is stored: {stored}");
    }
    play_ok(addr, &game.id, &first, "5").await;
    play_ok(addr, &game.id, &second, "1").await;
    assert_eq!(state(addr, &game.id, Some(&second)).await["your_seat"], 1);

    // The same game in an older database, its tokens in clear: opened again, they are hashed.
    store_clear_tokens(&server.db, &game.id, &[&first, &second]);
    let again = start_with(tabletop_web::ServeConfig { db: server.db.clone(), ..config() }).await;
    let stored = stored_tokens(&server.db, &game.id);
    for token in [&first, &second] {
        assert!(!stored.contains(token.as_str()), "a clear token left after the upgrade: {stored}");
        assert!(stored.contains(&hash_token(token)), "its hash is stored: {stored}");
    }
    let upgraded = state(again.addr, &game.id, Some(&first)).await;
    assert_eq!(upgraded["your_seat"], 0, "the old token still holds its seat");
    // A game from before single-use invitations has none: its links carry the seats' tokens.
    assert_eq!(upgraded["players"][0]["invite"], Value::Null);
    let claimed = act(again.addr, &game.id, "claim", json!({"invite": first})).await;
    assert_eq!(claimed.status, 403, "a seat's token is no invitation: {}", claimed.text);
    assert_eq!(play_ok(again.addr, &game.id, &first, "9").await["moves"], json!(["5", "1", "9"]));
    let wrong = play(again.addr, &game.id, &hash_token(&second), "2").await;
    assert_eq!(wrong.status, 403, "a stored hash is no token: {}", wrong.text);
}

/// W6 and S17 (issue 25): an invitation's code is shown only in the creator's answer. No
/// watcher, opponent or later opener sees a code or its hash, in states, events, the lobby, past
/// boards, claim answers or errors; the database keeps only its hash.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invitation_codes_reach_nobody_but_the_creator_and_are_stored_hashed() {
    use tabletop_web::store::hash_token;
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let codes: Vec<String> = game.answer["invites"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap().split_once("#invite=").unwrap().1.to_string())
        .collect();
    assert_eq!(codes.len(), 2);
    let secrets: Vec<String> = codes.iter().flat_map(|c| [c.clone(), hash_token(c)]).collect();
    let mut seen = Vec::new();
    let mut watcher = Events::open(addr, &game.id, None).await;
    seen.push(("watcher's first event", watcher.until("connected", SHORT).await.to_string()));
    seen.push(("the creator's state", game.answer["state"].to_string()));
    let claimed = act(addr, &game.id, "claim", json!({"invite": codes[1]})).await;
    assert_eq!(claimed.status, 200, "{}", claimed.text);
    seen.push(("the claim's answer", claimed.text.clone()));
    let later = act(addr, &game.id, "claim", json!({"invite": codes[1]})).await;
    assert_eq!(later.status, 409, "{}", later.text);
    seen.push(("a later opener's answer", later.text.clone()));
    let checked = act(addr, &game.id, "claim", json!({"invite": codes[1], "token": game.token(0)})).await;
    seen.push(("the creator's check", checked.text.clone()));
    seen.push(("watcher's seat_taken event", watcher.until("seat_taken", SHORT).await.to_string()));
    seen.push(("watcher's state", state(addr, &game.id, None).await.to_string()));
    let token = claimed.body["token"].as_str().unwrap().to_string();
    seen.push(("the opponent's state", state(addr, &game.id, Some(&token)).await.to_string()));
    play_ok(addr, &game.id, game.token(0), "d3").await;
    seen.push(("watcher's move event", watcher.until("move", SHORT).await.to_string()));
    seen.push(("a past board", get(addr, &format!("/api/games/{}/boards/0", game.id)).await.text));
    seen.push(("the lobby", get(addr, "/api/lobby").await.text));
    for (what, text) in &seen {
        for secret in &secrets {
            assert!(!text.contains(secret.as_str()), "{what} shows an invitation's code or hash: {text}");
        }
    }
    // Stored: the hashes, never the codes.
    let stored = stored_column(&server.db, &game.id, "invites");
    for code in &codes {
        assert!(!stored.contains(code.as_str()), "a code stored in clear: {stored}");
        assert!(stored.contains(&hash_token(code)), "its hash is stored: {stored}");
    }
}

/// Creates a game claiming to come from `forwarded` (an `X-Forwarded-For` header): the status.
async fn create_as(addr: std::net::SocketAddr, forwarded: &str) -> u16 {
    let body = json!({"game": "slide", "seats": ["human", "human"]}).to_string();
    let head = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nX-Forwarded-For: {forwarded}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    raw(addr, format!("{head}{body}").as_bytes()).await.status
}

/// Behind a reverse proxy (`--behind-proxy`), rate limits count per client as the proxy's last
/// `X-Forwarded-For` entry names it (what a client writes before it does not count); without
/// the flag the header is ignored, so a client reaching the server directly cannot dodge them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forwarded_addresses_count_only_behind_a_proxy() {
    // 6 a minute: a burst of one.
    let proxied = start_with(tabletop_web::ServeConfig { create_rate: 6, behind_proxy: true, ..config() }).await;
    assert_eq!(create_as(proxied.addr, "203.0.113.1").await, 200);
    assert_eq!(create_as(proxied.addr, "203.0.113.1").await, 429, "one client's burst is spent");
    assert_eq!(create_as(proxied.addr, "203.0.113.2").await, 200, "another client has its own");
    assert_eq!(create_as(proxied.addr, "198.51.100.9, 203.0.113.1").await, 429, "a claimed first entry does not count");
    let direct = start_with(tabletop_web::ServeConfig { create_rate: 6, ..config() }).await;
    assert_eq!(create_as(direct.addr, "203.0.113.1").await, 200);
    assert_eq!(create_as(direct.addr, "203.0.113.2").await, 429, "without a proxy the header is ignored");
}

// ---- Issue 24: the server under hostile load ----

/// Issue 24, items 1 and 2: one address cannot hold every event stream, nor everyone one game's;
/// the refusal is a JSON 429 with a real `Retry-After`, and other addresses are still served.
#[tokio::test]
async fn event_streams_are_capped_per_address_and_per_game() {
    let server =
        start_with(tabletop_web::ServeConfig { max_streams_per_address: 3, max_streams_per_game: 5, ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let path = format!("/api/games/{}/events", game.id);
    let open = |from: [u8; 4]| {
        let path = path.clone();
        async move {
            let from = std::net::Ipv4Addr::from(from);
            let mut stream = tabletop_client::client::EventStream::open(addr, Some(from), &path).await.unwrap();
            let first = tokio::time::timeout(SHORT, stream.next()).await;
            (stream, first)
        }
    };
    let mut held = Vec::new();
    for _ in 0..3 {
        let (stream, first) = open([127, 0, 0, 1]).await;
        assert_eq!(first.expect("in time").expect("an event").data["event"]["kind"], "connected");
        held.push(stream);
    }
    // The fourth from the same address: refused with a JSON 429 and a wait to honour.
    let refused = request(addr, "GET", &path, None).await;
    assert_eq!(refused.status, 429, "{}", refused.text);
    assert!(refused.error().contains("event streams"), "{}", refused.text);
    let wait: u64 = refused.header("retry-after").expect("Retry-After").parse().unwrap();
    assert!(wait >= 1, "Retry-After {wait}");
    // Another address still gets its streams, up to the game's cap of 5.
    for _ in 0..2 {
        let (stream, first) = open([127, 0, 0, 2]).await;
        assert!(first.expect("in time").is_ok(), "{}", stream.head);
        held.push(stream);
    }
    let on_game =
        tabletop_client::client::request(addr, Some([127, 0, 0, 3].into()), "GET", &path, "", SHORT).await.unwrap();
    assert_eq!(on_game.status, 429);
    assert!(on_game.body["error"].as_str().unwrap().contains("this game"), "{}", on_game.text);
    // Closing one gives its place back (the server notices the close; wait on its answer).
    held.remove(0);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let again = tabletop_client::client::request(addr, None, "GET", &path, "", SHORT).await;
        // A stream accepted answers 200 and stays open: the read times out on its events.
        if again.is_err() {
            break;
        }
        assert!(Instant::now() < deadline, "the closed stream's place never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Issue 24, item 1: a client that opens an event stream and never reads is closed once a
/// write has waited the write timeout, instead of being buffered for without end.
#[tokio::test]
async fn an_event_stream_that_is_never_read_is_closed() {
    let server = start_with(tabletop_web::ServeConfig {
        write_timeout: Duration::from_secs(1),
        max_streams_per_address: 10_000,
        max_streams_per_game: 10_000,
        ..config()
    })
    .await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    // The slow reader: a small receive buffer, and it never reads.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut slow = socket.connect(addr).await.unwrap();
    let head =
        format!("GET /api/games/{}/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n", game.id);
    slow.write_all(head.as_bytes()).await.unwrap();
    // Every time a seat connects or leaves, every stream is sent the whole state: a few MB for it.
    for _ in 0..400 {
        let mut seat = Events::open(addr, &game.id, Some(game.token(0))).await;
        assert!(seat.next(SHORT).await.is_some());
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    // Reading now drains what the kernel holds and then finds the connection closed. Without a
    // write deadline the server would still hold it open, and this read would wait forever.
    let mut received = 0usize;
    let mut buffer = vec![0u8; 64 * 1024];
    let read_all = async {
        loop {
            match slow.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => received += n,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read_all)
        .await
        .expect("the server closed the stream of a client that stopped reading");
    assert!(received > 0 && received < 2_000_000, "received {received} bytes");
}

/// Issue 24, item 2: one address may hold its share of connections; a connection past it is
/// closed at once while other addresses are served.
#[tokio::test]
async fn one_address_cannot_hold_every_connection() {
    let server = start_with(tabletop_web::ServeConfig { max_connections_per_address: 4, ..config() }).await;
    let addr = server.addr;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }
    // The fifth from 127.0.0.1 is closed without an answer...
    let mut fifth = TcpStream::connect(addr).await.unwrap();
    let _ = fifth.write_all(b"GET /api/lobby HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(SHORT, fifth.read_to_end(&mut answer)).await.expect("closed at once");
    assert!(read.is_err() || answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    // ...while another address is served.
    let other = tabletop_client::client::request(addr, Some([127, 0, 0, 2].into()), "GET", "/api/lobby", "", SHORT)
        .await
        .unwrap();
    assert_eq!(other.status, 200);
    // A connection given back makes room again.
    drop(idle.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let again = tabletop_client::client::request(addr, None, "GET", "/api/lobby", "", SHORT).await;
        if again.as_ref().is_ok_and(|a| a.status == 200) {
            break;
        }
        assert!(Instant::now() < deadline, "no room came back: {again:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Issue 24, item 9 and the browser defences: every answer carries the content security policy,
/// no framing, no sniffing and no referrer; the page itself has no inline script to allow.
#[tokio::test]
async fn every_answer_carries_the_browser_defences() {
    let server = start().await;
    for path in ["/", "/api/lobby", "/api/games/nosuchgame", "/js/app.js"] {
        let answer = get(server.addr, path).await;
        let csp = answer.header("content-security-policy").unwrap_or_else(|| panic!("{path}: no CSP"));
        assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(answer.header("x-frame-options").as_deref(), Some("DENY"), "{path}");
        assert_eq!(answer.header("x-content-type-options").as_deref(), Some("nosniff"), "{path}");
        assert_eq!(answer.header("referrer-policy").as_deref(), Some("no-referrer"), "{path}");
    }
    let page = get(server.addr, "/").await.text;
    assert!(!page.contains("<script>") && !page.contains(" style="), "the page has inline script or style");
}

/// Issue 24, item 6: another site's page cannot make its visitors take open seats (its Origin
/// is refused, and a join needs a JSON body, which a plain cross-site form cannot send).
#[tokio::test]
async fn joins_come_only_from_this_sites_page() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "open"]})).await;
    let path = format!("/api/games/{}/join", game.id);
    let form = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n"
    );
    let answer = raw(addr, form.as_bytes()).await;
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert!(answer.error().contains("application/json"), "{}", answer.text);
    assert!(answer.body["error"].is_string(), "a JSON error: {}", answer.text);
    let cross = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://evil.example\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    );
    let answer = raw(addr, cross.as_bytes()).await;
    assert_eq!(answer.status, 403, "{}", answer.text);
    assert_eq!(state(addr, &game.id, None).await["seats"][1], "open", "the seat is still open");
    // The page's own origin joins.
    let own = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}"
    );
    let answer = raw(addr, own.as_bytes()).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
}

/// Issue 24, item 9: action bodies with unknown fields are refused, and an error never echoes
/// long input back.
#[tokio::test]
async fn unknown_fields_are_refused_without_echoing_them() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let long = "x".repeat(8000);
    let body = json!({"move": "d3", "token": game.token(0), long.clone(): 1});
    let answer = post(addr, &format!("/api/games/{}/moves", game.id), body).await;
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert!(answer.error().contains("unknown field"), "{}", answer.text);
    assert!(answer.text.len() < 400, "the error echoes {} bytes", answer.text.len());
    let plain =
        post(addr, &format!("/api/games/{}/moves", game.id), json!({"move": "d3", "token": game.token(0)})).await;
    assert_eq!(plain.status, 200, "{}", plain.text);
}

/// Issue 24, item 9: a rate-limited answer says when to come back (never `Retry-After: 0`).
#[tokio::test]
async fn rate_limited_answers_carry_a_real_retry_after() {
    let server = start_with(tabletop_web::ServeConfig { create_rate: 6, ..config() }).await;
    let mut limited = None;
    for _ in 0..20 {
        let answer = post(server.addr, "/api/games", json!({"game": "connect", "seats": ["human", "human"]})).await;
        if answer.status == 429 {
            limited = Some(answer);
            break;
        }
    }
    let limited = limited.expect("the sixth creation a minute is refused");
    let wait: u64 = limited.header("retry-after").expect("Retry-After").parse().unwrap();
    assert!(wait >= 1, "Retry-After {wait}");
    assert!(limited.body["error"].is_string(), "{}", limited.text);
}

/// Issue 24, item 3: the body timeout is a deadline for the whole body, not per chunk: a client
/// trickling one byte every 300 ms is cut off once the body timeout has passed.
#[tokio::test]
async fn a_trickled_body_is_cut_off_at_the_deadline() {
    let server = start_with(tabletop_web::ServeConfig { body_timeout: Duration::from_secs(1), ..config() }).await;
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n",
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    // One byte at a time, each well within a per-chunk timeout; the answer ends the trickle.
    while started.elapsed() < Duration::from_secs(10) {
        if slow.write_all(b" ").await.is_err() {
            break;
        }
        match tokio::time::timeout(Duration::from_millis(300), slow.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => answer.extend_from_slice(&buffer[..n]),
            Err(_) => {}
        }
        if !answer.is_empty() {
            break;
        }
    }
    let elapsed = started.elapsed();
    let answer = parse_answer(&answer);
    assert_eq!(answer.status, 408, "after {elapsed:?}: {}", answer.text);
    assert!(answer.error().contains("timeout"), "{}", answer.text);
    assert!(elapsed < Duration::from_secs(5), "cut off after {elapsed:?}");
}

/// Issue 24, item 8: a seat's token never travels in a URL (proxies and logs keep URLs): the
/// state takes it in the Authorization header, the event stream a single-use ticket; a token in
/// a query is refused with a sentence saying where it goes.
#[tokio::test]
async fn tokens_never_travel_in_urls() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let other = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    for path in [
        format!("/api/games/{}?token={}", game.id, game.token(0)),
        format!("/api/games/{}/events?token={}", game.id, game.token(0)),
    ] {
        let answer = get(addr, &path).await;
        assert_eq!(answer.status, 400, "{path}: {}", answer.text);
        assert!(answer.error().contains("Authorization"), "{}", answer.text);
    }
    // The header shows the seat its own view; a wrong token is a watcher's view.
    assert_eq!(state(addr, &game.id, Some(game.token(1))).await["your_seat"], 1);
    assert!(state(addr, &game.id, Some("0123456789abcdef0123456789abcdef")).await["your_seat"].is_null());
    // A ticket opens the seat's stream once, only on its game, and only for a seat's token.
    let ticket = |id: String, token: String| async move {
        post(addr, &format!("/api/games/{id}/ticket"), json!({"token": token})).await
    };
    assert_eq!(ticket(game.id.clone(), other.token(0).to_string()).await.status, 403, "another game's token");
    let answer = ticket(game.id.clone(), game.token(1).to_string()).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let issued = answer.body["ticket"].as_str().unwrap().to_string();
    let on_other = get(addr, &format!("/api/games/{}/events?ticket={issued}", other.id)).await;
    assert_eq!(on_other.status, 403, "a ticket is for its own game: {}", on_other.text);
    // Spent by the refusal above: a ticket serves once, whatever happened.
    let spent = get(addr, &format!("/api/games/{}/events?ticket={issued}", game.id)).await;
    assert_eq!(spent.status, 403, "{}", spent.text);
    let mut seat = Events::open(addr, &game.id, Some(game.token(1))).await;
    let first = seat.next(SHORT).await.expect("the seat's stream opens");
    assert_eq!(first["your_seat"], 1);
}

/// Issue 24, item 9: the longest thinking time holds for a fixed depth as for a time: a computer
/// told to search 60 plies deep moves once `--max-think` has passed, with its best move so far
/// (the watchdog used to allow half as much again plus a second).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_fixed_depth_is_held_to_the_longest_thinking_time() {
    let max_think = Duration::from_secs(4);
    let server = start_with(tabletop_web::ServeConfig { max_think, ..config() }).await;
    let started = Instant::now();
    let game = create(server.addr, json!({"game": "reversi", "seats": ["engine:depth=60", "human"]})).await;
    let moved = wait_for(server.addr, &game.id, None, Duration::from_secs(30), |v| {
        v["moves"].as_array().is_some_and(|m| !m.is_empty())
    })
    .await;
    let took = started.elapsed();
    assert_eq!(moved["moves"].as_array().unwrap().len(), 1, "{moved}");
    // Stopped at the cap (plus the time to store and tell), not at 7 s as before.
    assert!(took >= max_think && took < max_think + Duration::from_millis(2500), "the computer moved after {took:?}");
}

/// Issue 24, item 5: one address's many games against the computer cannot make another
/// address's computer wait behind all of them. With one engine worker, 12 games from 127.0.0.2
/// whose computer moves first (300 ms each) are queued; then 127.0.0.3 plays a move against its
/// own computer. Counted in jobs rather than seconds: while 127.0.0.3 waits for its reply, at
/// most one or two of the other address's computer moves are played (the one thinking, and one
/// finishing as the move arrives). A first-come queue played every one of them first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_many_computer_games_cannot_starve_another() {
    let server = start_with(tabletop_web::ServeConfig { workers: 1, ..config() }).await;
    let addr = server.addr;
    let (attacker, victim) = (std::net::Ipv4Addr::new(127, 0, 0, 2), std::net::Ipv4Addr::new(127, 0, 0, 3));
    let send = |from: std::net::Ipv4Addr, path: String, body: Value| async move {
        let answer = tabletop_client::client::request(addr, Some(from), "POST", &path, &body.to_string(), SHORT * 10)
            .await
            .expect("an answer");
        assert_eq!(answer.status, 200, "{path}: {}", answer.text);
        answer.body
    };
    let mine =
        send(victim, "/api/games".into(), json!({"game": "reversi", "seats": ["human", "engine:time=300ms"]})).await;
    let (id, token) = (mine["id"].as_str().unwrap().to_string(), mine["tokens"][0].as_str().unwrap().to_string());
    let first = mine["state"]["legal"][0].as_str().unwrap().to_string();
    let mut theirs = Vec::new();
    for _ in 0..12 {
        let game =
            send(attacker, "/api/games".into(), json!({"game": "reversi", "seats": ["engine:time=300ms", "human"]}));
        theirs.push(game.await["id"].as_str().unwrap().to_string());
    }
    let played = |ids: Vec<String>| async move {
        let mut moved = 0;
        for id in &ids {
            moved += usize::from(state(addr, id, None).await["moves"].as_array().is_some_and(|m| !m.is_empty()));
        }
        moved
    };
    let before = played(theirs.clone()).await;
    assert!(before <= 6, "the other address's queue ran too fast to test anything ({before} of 12 moved)");
    send(victim, format!("/api/games/{id}/moves"), json!({"move": first, "token": token})).await;
    let replied = wait_for(addr, &id, Some(&token), Duration::from_secs(60), |s| {
        s["moves"].as_array().is_some_and(|m| m.len() >= 2)
    })
    .await;
    assert_eq!(replied["moves"].as_array().map(Vec::len), Some(2), "the computer replied");
    let after = played(theirs).await;
    assert!(
        after - before <= 3,
        "127.0.0.3's reply waited behind {} computer moves of 127.0.0.2 ({before} moved before, {after} after)",
        after - before
    );
}
