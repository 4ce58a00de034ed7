//! Issue 24's limits on play, on a loopback server: how fast a player may move and propose, how
//! long a game may grow, how many open games one address keeps in the lobby, events that carry
//! what changed rather than the whole history, takebacks against the computer that never show
//! future draws, and over-long request heads answered in JSON.

mod support;

use std::net::Ipv4Addr;
use std::time::Duration;

use serde_json::{json, Value};
use support::*;
use tabletop_client::client::{events_path, exchange, request_bytes, EventStream};

/// A legal move for the seat to move, spread over the board so that no line forms early.
fn a_spread_move(view: &Value) -> String {
    let legal: Vec<&str> = view["legal"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let ply = view["moves"].as_array().map_or(0, Vec::len);
    legal[(ply * 37 + 11) % legal.len()].to_string()
}

/// Plays one spread move for whoever is to move in a game where the test holds every seat.
async fn play_next(addr: std::net::SocketAddr, game: &Created) -> Answer {
    let now = state(addr, &game.id, Some(game.token(0))).await;
    let seat = now["status"]["to_move"].as_u64().expect("someone is to move") as usize;
    let view = state(addr, &game.id, Some(game.token(seat))).await;
    play(addr, &game.id, game.token(seat), &a_spread_move(&view)).await
}

fn retry_after(answer: &Answer) -> u64 {
    answer.header("retry-after").and_then(|v| v.parse().ok()).expect("a Retry-After header")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_moving_faster_than_the_move_rate_gets_429() {
    let server = start_with(tabletop_web::ServeConfig { move_rate: 2, move_burst: 4, ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "gomoku", "seats": ["human", "human"]})).await;
    for ply in 0..4 {
        let answer = play_next(addr, &game).await;
        assert_eq!(answer.status, 200, "move {ply}: {}", answer.text);
    }
    // One client holds both seats: its burst of four is spent, whichever seat moves, and a new
    // game brings no new allowance.
    let refused = play_next(addr, &game).await;
    assert_eq!(refused.status, 429, "{}", refused.text);
    assert!(refused.error().contains("faster"), "{}", refused.error());
    assert!(retry_after(&refused) >= 1);
    assert_eq!(state(addr, &game.id, None).await["moves"].as_array().unwrap().len(), 4);
    let another = create(addr, json!({"game": "gomoku", "seats": ["human", "human"]})).await;
    let refused = play_next(addr, &another).await;
    assert_eq!(refused.status, 429, "{}", refused.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_ends_drawn_at_the_move_limit() {
    let server = start_with(tabletop_web::ServeConfig { move_limit: Some(10), ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "gomoku", "seats": ["human", "human"]})).await;
    for ply in 0..10 {
        let answer = play_next(addr, &game).await;
        assert_eq!(answer.status, 200, "move {ply}: {}", answer.text);
    }
    let over = state(addr, &game.id, None).await;
    assert_eq!(over["status"]["over"], true, "{over}");
    assert_eq!(over["result"]["winners"], json!([]));
    assert!(over["result"]["text"].as_str().unwrap().contains("limit of 10 moves"), "{}", over["result"]);
    assert_eq!(over["legal"], json!([]));
    let after = play(addr, &game.id, game.token(0), "h8").await;
    assert_ne!(after.status, 200, "{}", after.text);
    // The ending is stored: a restart keeps it.
    let restarted = start_with(tabletop_web::ServeConfig { db: server.db.clone(), ..config() }).await;
    let again = state(restarted.addr, &game.id, None).await;
    assert_eq!(again["status"]["over"], true);
}

#[test]
fn every_game_has_a_move_limit_above_its_longest_real_game() {
    for entry in tabletop::registry::GAMES {
        let mut secret = json!({});
        entry.session.complete_secret(&mut secret);
        let session = entry.session.new_session(&json!({}), &secret).unwrap();
        assert!(session.move_limit() >= 100, "{}: {}", entry.name, session.move_limit());
    }
    // Slide can slide forever: its limit is the placing plus 400 slides.
    let slide = tabletop::registry::GAMES.iter().find(|g| g.name == "slide").unwrap();
    let session = slide.session.new_session(&json!({"size": 4, "empty": 2}), &json!({})).unwrap();
    assert_eq!(session.move_limit(), 14 + 400);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proposals_are_rate_limited() {
    let server = start_with(tabletop_web::ServeConfig { proposal_rate: 1, ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "connect", "seats": ["human", "human"]})).await;
    let (id, black, white) = (&game.id, game.token(0), game.token(1));
    let played = play_ok(addr, id, black, "4").await;
    assert_eq!(played["takeback_seats"], json!([0]), "only the mover may ask, before anyone moves");
    for round in 0..3 {
        let asked = act(addr, id, "undo", json!({"token": black})).await;
        assert_eq!(asked.status, 200, "request {round}: {}", asked.text);
        assert_eq!(asked.body["proposal"]["kind"], "takeback");
        let declined = act(addr, id, "proposal", json!({"token": white, "accept": false})).await;
        assert_eq!(declined.status, 200, "{}", declined.text);
    }
    let fourth = act(addr, id, "undo", json!({"token": black})).await;
    assert_eq!(fourth.status, 429, "{}", fourth.text);
    assert!(retry_after(&fourth) >= 1);
    assert!(state(addr, id, None).await["proposal"].is_null(), "the refused request proposes nothing");
}

async fn create_from(addr: std::net::SocketAddr, from: Ipv4Addr, body: &Value) -> Answer {
    let bytes = request_bytes(addr, "POST", "/api/games", &body.to_string());
    exchange(addr, Some(from), &bytes, Duration::from_secs(20)).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_keeps_few_open_games_in_the_lobby() {
    let server = start_with(tabletop_web::ServeConfig { max_open_games_per_address: 2, ..config() }).await;
    let addr = server.addr;
    let open = json!({"game": "slide", "seats": ["human", "open"]});
    let flooder = Ipv4Addr::new(127, 0, 0, 1);
    let first = create_from(addr, flooder, &open).await;
    assert_eq!(first.status, 200, "{}", first.text);
    assert_eq!(create_from(addr, flooder, &open).await.status, 200);
    let third = create_from(addr, flooder, &open).await;
    assert_eq!(third.status, 429, "{}", third.text);
    assert!(third.error().contains("open games"), "{}", third.error());
    assert!(retry_after(&third) >= 60, "the oldest game counts for a while: {}", retry_after(&third));
    // Games without open seats, and other addresses, are not held back.
    let closed = create_from(addr, flooder, &json!({"game": "slide", "seats": ["human", "engine"]})).await;
    assert_eq!(closed.status, 200, "{}", closed.text);
    assert_eq!(create_from(addr, Ipv4Addr::new(127, 0, 0, 2), &open).await.status, 200);
    // Once someone takes a seat, that game leaves the count.
    let id = first.body["id"].as_str().unwrap();
    let joined = act(addr, id, "join", json!({})).await;
    assert_eq!(joined.status, 200, "{}", joined.text);
    assert_eq!(create_from(addr, flooder, &open).await.status, 200);
    let lobby = get(addr, "/api/lobby").await;
    assert_eq!(lobby.body["games"].as_array().unwrap().len(), 3, "{}", lobby.text);
}

async fn next(stream: &mut EventStream) -> tabletop_client::client::Event {
    tokio::time::timeout(Duration::from_secs(20), stream.next()).await.expect("an event").expect("a state")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_carry_the_new_moves_not_the_history() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "gomoku", "seats": ["human", "human"]})).await;
    let path = events_path(addr, None, &game.id, None, Duration::from_secs(20)).await.unwrap();
    let mut watcher = EventStream::open(addr, None, &path).await.unwrap();
    let first = next(&mut watcher).await;
    assert!(first.data.get("moves_from").is_none(), "the first state is whole");
    // Every state a stream sends is the current one, so an event queued before a move (say the
    // `connected` that a PostgreSQL listener's first connection sends every cached game) may be
    // rendered after it and carry the move; the move's own event then carries none. What holds
    // for every event: it re-sends none of the moves the stream holds, and between two moves'
    // events exactly one move arrives.
    let mut sizes = Vec::new();
    let mut held = 0;
    for ply in 0..30 {
        assert_eq!(play_next(addr, &game).await.status, 200);
        let mut carried_by = Vec::new();
        let event = loop {
            let event = next(&mut watcher).await;
            assert_eq!(event.data["moves_from"], json!(held), "{}", event.data["event"]);
            held += event.carried;
            if event.carried > 0 {
                carried_by.push((event.carried, event.size));
            }
            if event.data["event"]["kind"] == "move" {
                break event;
            }
        };
        assert_eq!(carried_by.len(), 1, "move {ply}: one event carries the move: {carried_by:?}");
        assert_eq!(carried_by[0].0, 1, "move {ply}: an event carries the new move only");
        assert_eq!(held, ply + 1);
        assert_eq!(event.data["moves"].as_array().unwrap().len(), ply + 1, "rebuilt by the client");
        sizes.push(carried_by[0].1);
    }
    // The 30th move's event is about as large as the 2nd's (the board grew by 28 stones only).
    let whole = state(addr, &game.id, None).await;
    assert!(sizes[29] < sizes[1] + 28 * 40, "{sizes:?}");
    assert!(whole.to_string().len() > sizes[29] + 29 * 20, "the whole state carries the history");
    // A takeback between the two seats, then another move: the lists follow.
    let mover = whole["status"]["to_move"].as_u64().unwrap() as usize;
    let last = 1 - mover;
    assert_eq!(act(addr, &game.id, "undo", json!({"token": game.token(last)})).await.status, 200);
    assert_eq!(act(addr, &game.id, "proposal", json!({"token": game.token(mover), "accept": true})).await.status, 200);
    let undone = loop {
        let event = next(&mut watcher).await;
        if event.data["event"]["kind"] == "undo" {
            break event;
        }
    };
    assert_eq!(undone.data["moves_from"], json!(29));
    assert_eq!(undone.carried, 0);
    assert_eq!(play_next(addr, &game).await.status, 200);
    let replayed = loop {
        let event = next(&mut watcher).await;
        if event.data["event"]["kind"] == "move" {
            break event;
        }
    };
    assert_eq!(replayed.data["moves"], state(addr, &game.id, None).await["moves"]);
    assert_eq!(replayed.data["history"], state(addr, &game.id, None).await["history"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_takeback_against_the_computer_never_crosses_a_draw() {
    let server = start_with(tabletop_web::ServeConfig { game_seed: Some(7), ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "mathable", "seats": ["human", "engine"]})).await;
    let (id, me) = (&game.id, game.token(0));
    let view = state(addr, id, Some(me)).await;
    assert_eq!(view["takeback_seats"], json!([]), "nothing to take back yet");
    let placed = play_ok(addr, id, me, &a_placement(&view)).await;
    assert_eq!(placed["takeback_seats"], json!([0]), "the placement can be taken back");
    // A placement within the turn can be taken back: nothing was drawn.
    let undone = act(addr, id, "undo", json!({"token": me})).await;
    assert_eq!(undone.status, 200, "{}", undone.text);
    let view = state(addr, id, Some(me)).await;
    play_ok(addr, id, me, &a_placement(&view)).await;
    play_ok(addr, id, me, "end").await;
    let mine = wait_for(addr, id, Some(me), Duration::from_secs(30), |s| s["status"]["to_move"] == 0).await;
    assert_eq!(mine["status"]["to_move"], 0, "the computer played its turn");
    let ply = mine["moves"].as_array().unwrap().len();
    assert_eq!(mine["takeback_seats"], json!([]), "the page's Undo is off: the turns ended with draws");
    let refused = act(addr, id, "undo", json!({"token": me})).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.error().contains("cannot be taken back"), "{}", refused.error());
    let after = state(addr, id, Some(me)).await;
    assert_eq!(after["moves"].as_array().unwrap().len(), ply);
    assert_eq!(after["board"]["racks"], mine["board"]["racks"], "the rack shows nothing new");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_long_request_heads_are_answered_in_json() {
    let server = start().await;
    let addr = server.addr;
    let long = get(addr, &format!("/api/lobby?{}", "a".repeat(9000))).await;
    assert_eq!(long.status, 414, "{}", long.text);
    assert!(long.error().contains("limit"));
    let big_header = format!(
        "GET /api/lobby HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nX-Padding: {}\r\n\r\n",
        "b".repeat(20_000)
    );
    let answer = raw(addr, big_header.as_bytes()).await;
    assert_eq!(answer.status, 431, "{}", answer.text);
    assert!(answer.error().contains("headers"));
}
