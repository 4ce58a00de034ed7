//! Issue 12's API between people, on a loopback server: invite links, open seats and the lobby,
//! the live event stream (every kind of change, filtered per viewer), presence, takeback
//! requests accepted and declined, resign results with 2 and 3 players, terminate proposals,
//! and hints allowed or not.

mod support;

use std::time::Duration;

use serde_json::{json, Value};
use support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invites_give_each_person_their_seat_and_watch_is_read_only() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let invites = game.answer["invites"].as_array().unwrap();
    assert_eq!(invites.len(), 2, "one invite per person");
    for (seat, invite) in invites.iter().enumerate() {
        let code = invitation_code(invite);
        let path = format!("/game/{}#invite={code}", game.id);
        assert_ne!(code, game.token(seat), "an invitation is not the seat's token");
        assert_eq!(invite["seat"], seat);
        assert_eq!(invite["name"], ["Black", "White"][seat]);
        assert_eq!(invite["path"], path.as_str());
        assert_eq!(invite["url"], format!("http://{addr}{path}").as_str(), "the origin from the Host header");
        // Whoever opens the link first holds that seat.
        let claimed = claim(addr, &game.id, json!({"invite": code})).await;
        assert_eq!(claimed.status, 200, "{}", claimed.text);
        let view = state(addr, &game.id, claimed.body["token"].as_str()).await;
        assert_eq!(view["your_seat"], seat);
    }
    assert_ne!(game.token(0), game.token(1));
    let watch = &game.answer["watch"];
    assert_eq!(watch["path"], format!("/game/{}", game.id).as_str());
    assert_eq!(watch["url"], format!("http://{addr}/game/{}", game.id).as_str());
    // The page behind both links is served.
    assert_eq!(get(addr, &format!("/game/{}", game.id)).await.status, 200);
    // The watch link holds no seat: its view has none, and it cannot act.
    let watcher = state(addr, &game.id, None).await;
    assert_eq!(watcher["your_seat"], Value::Null);
    assert_eq!(watcher["hints"], false);
    let answer = play(addr, &game.id, "", "d3").await;
    assert_eq!(answer.status, 403, "{}", answer.text);
    // The creator's answer states the creator's seat.
    assert_eq!(game.answer["state"]["your_seat"], 0);
    assert_eq!(game.answer["state"]["people"], 2);

    // Against the computer: one invite, the computer's token is null.
    let solo = create(addr, json!({"game": "connect", "seats": ["human", "engine:time=50ms"]})).await;
    assert_eq!(solo.tokens[1], None);
    assert_eq!(solo.answer["invites"].as_array().unwrap().len(), 1);
    assert_eq!(solo.answer["invites"][0]["name"], "X");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invite_urls_use_the_public_url_and_a_sanitised_host() {
    let server =
        start_with(tabletop_web::ServeConfig { public_url: Some("https://games.example.org/".into()), ..config() })
            .await;
    let game = create(server.addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let url = game.answer["invites"][1]["url"].as_str().unwrap();
    let code = invitation_code(&game.answer["invites"][1]);
    assert_eq!(url, format!("https://games.example.org/game/{}#invite={code}", game.id));
    assert_eq!(game.answer["watch"]["url"], format!("https://games.example.org/game/{}", game.id).as_str());

    // Without --public-url, a Host header cannot smuggle markup or a path into the link.
    let plain = start().await;
    let body = json!({"game": "slide", "seats": ["human", "human"]}).to_string();
    let request = format!(
        "POST /api/games HTTP/1.1\r\nHost: evil.example\"><script>/x?\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let answer = raw(plain.addr, request.as_bytes()).await;
    if answer.status == 200 {
        let url = answer.body["watch"]["url"].as_str().unwrap();
        let host = url.trim_start_matches("http://").split("/game/").next().unwrap();
        assert!(host.starts_with("evil.example"), "{url}");
        assert!(host.chars().all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c)), "{url}");
        assert!(!url.contains(['"', '<', '>', '?']), "{url}");
    } else {
        assert_eq!(answer.status, 400, "a malformed Host is refused: {}", answer.text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_seats_are_listed_in_the_lobby_until_taken() {
    let server = start().await;
    let addr = server.addr;
    let lobby = get(addr, "/api/lobby").await;
    assert_eq!((lobby.status, lobby.body["games"].clone()), (200, json!([])));
    let private = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let solo = create(addr, json!({"game": "slide", "seats": ["human", "engine"]})).await;
    let open = create(addr, json!({"game": "reversi", "seats": ["human", "open"]})).await;
    assert_eq!(open.tokens[1], None, "an open seat's token goes only to whoever takes it");
    assert_eq!(open.answer["invites"].as_array().unwrap().len(), 1);
    assert_eq!(open.answer["state"]["players"][1]["kind"], "open");
    assert_eq!(open.answer["state"]["players"][1]["connected"], false);

    let lobby = get(addr, "/api/lobby").await.body;
    let games = lobby["games"].as_array().unwrap();
    assert_eq!(games.len(), 1, "only games with an open seat: {lobby}");
    let listed = &games[0];
    assert_eq!(listed["id"], open.id.as_str());
    assert_eq!(listed["game"], "reversi");
    assert_eq!(listed["open_seats"], json!([1]));
    assert_eq!(listed["players"][0]["kind"], "human");
    assert_eq!(listed["players"][1]["kind"], "open");
    assert!(listed["created"].as_i64().unwrap() > 1_700_000_000);
    let text = lobby.to_string();
    for token in [private.token(0), solo.token(0), open.token(0)] {
        assert!(!text.contains(token), "the lobby shows no token");
    }
    assert!(!text.contains(&private.id) && !text.contains(&solo.id));

    // The open seat's token is not usable before someone takes the seat (it is nobody's).
    let taken = post(addr, &format!("/api/games/{}/join", open.id), json!({})).await;
    assert_eq!(taken.status, 200, "{}", taken.text);
    assert_eq!(taken.body["seat"], 1);
    let token = taken.body["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 32);
    assert_ne!(token, open.token(0));
    assert!(!open.answer.to_string().contains(&token), "the creator never saw the open seat's token");
    assert_eq!(taken.body["state"]["your_seat"], 1);
    assert_eq!(taken.body["state"]["players"][1]["kind"], "human");
    // The game left the lobby; nobody else can join.
    assert_eq!(get(addr, "/api/lobby").await.body["games"], json!([]));
    let again = post(addr, &format!("/api/games/{}/join", open.id), json!({})).await;
    assert_eq!(again.status, 409, "{}", again.text);
    assert!(again.error().contains("no open seat"));
    // A game without an open seat cannot be joined either.
    assert_eq!(post(addr, &format!("/api/games/{}/join", private.id), json!({})).await.status, 409);
    assert_eq!(post(addr, &format!("/api/games/{}/join", "0".repeat(32)), json!({})).await.status, 404);
    // The two play: the joiner's token holds seat 1.
    play_ok(addr, &open.id, open.token(0), "d3").await;
    let after = play_ok(addr, &open.id, &token, "c3").await;
    assert_eq!(after["moves"], json!(["d3", "c3"]));
    assert_eq!(after["history"][1]["seat"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_with_two_open_seats_stays_listed_until_both_are_taken() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "open", "open"]})).await;
    let first = post(addr, &format!("/api/games/{}/join", game.id), json!({})).await;
    assert_eq!((first.status, first.body["seat"].clone()), (200, json!(1)));
    // `create` may have dealt Mathable games again (a first rack without a placement): those
    // stay listed too, so this game is found by its id.
    let listed =
        |lobby: &Value| lobby["games"].as_array().unwrap().iter().find(|g| g["id"] == game.id.as_str()).cloned();
    let lobby = get(addr, "/api/lobby").await.body;
    assert_eq!(listed(&lobby).expect("still listed")["open_seats"], json!([2]), "{lobby}");
    assert!(!lobby.to_string().contains("seed"), "the bag's seed is not listed");
    let second = post(addr, &format!("/api/games/{}/join", game.id), json!({})).await;
    assert_eq!((second.status, second.body["seat"].clone()), (200, json!(2)));
    assert_ne!(first.body["token"], second.body["token"]);
    assert_eq!(listed(&get(addr, "/api/lobby").await.body), None);
    // Each joiner sees only its own rack.
    let racks = &second.body["state"]["board"]["racks"];
    assert!(racks[2].is_array() && racks[0].is_u64() && racks[1].is_u64(), "{racks}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_the_newest_fifty() {
    let server = start().await;
    let addr = server.addr;
    let mut ids = Vec::new();
    for _ in 0..55 {
        ids.push(create(addr, json!({"game": "slide", "seats": ["human", "open"]})).await.id);
    }
    let lobby = get(addr, "/api/lobby").await.body;
    let listed: Vec<&str> = lobby["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(listed.len(), 50);
    let newest: Vec<&str> = ids.iter().rev().take(50).map(String::as_str).collect();
    assert_eq!(listed, newest, "newest first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_stream_sends_every_change_to_seats_and_watchers() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "open"]})).await;
    let id = game.id.clone();
    let mut watcher = Events::open(addr, &id, None).await;
    let first = watcher.next(SHORT).await.expect("a first event on connecting");
    assert!(watcher.head.starts_with("HTTP/1.1 200"), "{}", watcher.head);
    assert!(watcher.head.to_ascii_lowercase().contains("content-type: text/event-stream"));
    assert_eq!(first["event"]["kind"], "connected");
    assert_eq!(first["id"], id.as_str());
    assert_eq!(first["your_seat"], Value::Null);
    let mut black = Events::open(addr, &id, Some(game.token(0))).await;
    assert_eq!(black.next(SHORT).await.unwrap()["your_seat"], 0);
    let presence = watcher.until("presence", SHORT).await;
    assert_eq!(presence["event"]["seat"], 0);
    assert_eq!(presence["players"][0]["connected"], true);

    // A seat taken.
    let joined = post(addr, &format!("/api/games/{id}/join"), json!({})).await;
    let white_token = joined.body["token"].as_str().unwrap().to_string();
    let taken = watcher.until("seat_taken", SHORT).await;
    assert_eq!((taken["event"]["seat"].clone(), taken["players"][1]["kind"].clone()), (json!(1), json!("human")));
    black.until("seat_taken", SHORT).await;
    let mut white = Events::open(addr, &id, Some(&white_token)).await;
    assert_eq!(white.next(SHORT).await.unwrap()["your_seat"], 1);
    assert_eq!(black.until("presence", SHORT).await["players"][1]["connected"], true);

    // A move: every stream, each with its own viewer.
    play_ok(addr, &id, game.token(0), "d3").await;
    for (stream, seat) in [(&mut watcher, Value::Null), (&mut black, json!(0)), (&mut white, json!(1))] {
        let event = stream.until("move", SHORT).await;
        assert_eq!(event["event"]["seat"], 0);
        assert_eq!(event["moves"], json!(["d3"]));
        assert_eq!(event["your_seat"], seat);
        assert_eq!(event["status"]["to_move"], 1);
    }
    // Takeback requested, declined; requested, accepted (an undo).
    let versions = |e: &Value| e["version"].as_u64().unwrap();
    let asked = act(addr, &id, "undo", json!({"token": game.token(0)})).await;
    assert_eq!(asked.status, 200, "{}", asked.text);
    let requested = white.until("takeback_requested", SHORT).await;
    assert_eq!(requested["proposal"], json!({"kind": "takeback", "by": 0, "waiting_for": [1], "plies": 1}));
    let declined = act(addr, &id, "proposal", json!({"token": white_token, "accept": false})).await;
    assert_eq!(declined.status, 200, "{}", declined.text);
    let event = black.until("takeback_declined", SHORT).await;
    assert_eq!((event["event"]["seat"].clone(), event["proposal"].clone()), (json!(1), Value::Null));
    assert_eq!(event["moves"], json!(["d3"]));
    act(addr, &id, "undo", json!({"token": game.token(0)})).await;
    let v1 = versions(&watcher.until("takeback_requested", SHORT).await);
    act(addr, &id, "proposal", json!({"token": white_token, "accept": true})).await;
    let undone = watcher.until("undo", SHORT).await;
    assert_eq!(undone["moves"], json!([]));
    assert!(versions(&undone) > v1, "versions grow");
    // A resignation.
    act(addr, &id, "resign", json!({"token": white_token})).await;
    let resigned = black.until("resign", SHORT).await;
    assert_eq!(resigned["event"]["seat"], 1);
    assert_eq!(resigned["result"]["winners"], json!([0]));
    // Leaving: the other seat sees the person go.
    drop(white);
    let left = black.until("presence", SHORT).await;
    assert_eq!(left["players"][1]["connected"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_thinking_and_moving_are_events() {
    let server = start().await;
    let addr = server.addr;
    let game = create(
        addr,
        json!({"game": "connect", "options": {"preset": "connect4-6x4"}, "seats": ["human", "connect:level=1"]}),
    )
    .await;
    let mut stream = Events::open(addr, &game.id, Some(game.token(0))).await;
    stream.until("connected", SHORT).await;
    play_ok(addr, &game.id, game.token(0), "3").await;
    let mut seen = Vec::new();
    let mut computer_move = None;
    for _ in 0..10 {
        let Some(event) = stream.next(SHORT).await else { break };
        seen.push(event["event"]["kind"].as_str().unwrap().to_string());
        if event["event"]["kind"] == "thinking" {
            // Every state sent is the current one: a `thinking` note the stream renders only
            // after the computer answered (a busy machine) shows the answer instead.
            let answered = event["moves"].as_array().is_some_and(|moves| moves.len() == 2);
            assert!(event["thinking"] == true || answered, "{event}");
            assert_eq!(event["event"]["seat"], 1);
        }
        if event["event"]["kind"] == "move" && event["event"]["seat"] == 1 {
            computer_move = Some(event);
            break;
        }
    }
    assert!(seen.contains(&"thinking".to_string()), "{seen:?}");
    let done = computer_move.unwrap_or_else(|| panic!("no computer move event: {seen:?}"));
    assert_eq!(done["thinking"], false);
    assert_eq!(done["moves"].as_array().unwrap().len(), 2);
    assert_eq!(done["status"]["to_move"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mathable_events_are_filtered_per_viewer() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "human"]}))
            .await;
    let id = game.id.clone();
    let mut streams = Vec::new();
    for viewer in [None, Some(0), Some(1), Some(2)] {
        let mut events = Events::open(addr, &id, viewer.map(|s| game.token(s))).await;
        events.until("connected", SHORT).await;
        streams.push((viewer, events));
    }
    let mine = state(addr, &id, Some(game.token(0))).await;
    let placement = a_placement(&mine);
    play_ok(addr, &id, game.token(0), &placement).await;
    play_ok(addr, &id, game.token(0), "end").await;
    // Seat 1 exchanges: others see only how many.
    let seat1 = state(addr, &id, Some(game.token(1))).await;
    let swap = seat1["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|m| m.starts_with("swap"))
        .unwrap()
        .to_string();
    let count = swap.trim_start_matches("swap=").split(',').count();
    play_ok(addr, &id, game.token(1), &swap).await;
    for (viewer, events) in &mut streams {
        let mut last = None;
        for _ in 0..3 {
            last = Some(events.until("move", SHORT).await);
        }
        let event = last.unwrap();
        assert_eq!(event["your_seat"], json!(viewer));
        assert!(!event.to_string().contains("seed"), "no seed in events");
        assert!(event["position"].is_null(), "the position notation holds every rack: {viewer:?}");
        let racks = event["board"]["racks"].as_array().unwrap();
        for (seat, rack) in racks.iter().enumerate() {
            assert_eq!(rack.is_array(), *viewer == Some(seat), "viewer {viewer:?} seat {seat}: {rack}");
        }
        let exchange = event["history"][2]["move"].as_str().unwrap();
        if *viewer == Some(1) {
            assert_eq!(exchange, swap);
        } else {
            let shown = if count == 1 { "exchanged 1 token".to_string() } else { format!("exchanged {count} tokens") };
            assert_eq!(exchange, shown);
            assert_eq!(event["moves"][2].as_str().unwrap(), shown);
        }
        // Only seat 2, now to move, has legal moves and placements.
        let mover = *viewer == Some(2);
        assert_eq!(event["legal"].as_array().unwrap().is_empty(), !mover);
        if !mover {
            assert_eq!(event["board"]["placements"], json!([]));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_needs_a_seat_token_and_ends_with_the_stream() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let view = state(addr, &game.id, None).await;
    assert_eq!(
        (view["players"][0]["connected"].clone(), view["players"][1]["connected"].clone()),
        (json!(false), json!(false))
    );
    let mut watcher = Events::open(addr, &game.id, None).await;
    watcher.until("connected", SHORT).await;
    // A wrong token gets no ticket for a seat's stream.
    let forged =
        post(addr, &format!("/api/games/{}/ticket", game.id), json!({"token": "0123456789abcdef0123456789abcdef"}))
            .await;
    assert_eq!(forged.status, 403, "{}", forged.text);
    let view = state(addr, &game.id, None).await;
    assert_eq!(view["players"][0]["connected"], false, "watchers mark nobody connected");
    assert_eq!(view["players"][1]["connected"], false);
    let seat1 = Events::open(addr, &game.id, Some(game.token(1))).await;
    let on = watcher.until("presence", SHORT).await;
    assert_eq!((on["event"]["seat"].clone(), on["players"][1]["connected"].clone()), (json!(1), json!(true)));
    assert_eq!(state(addr, &game.id, None).await["players"][1]["connected"], true);
    drop(seat1);
    let off = watcher.until("presence", SHORT).await;
    assert_eq!(off["players"][1]["connected"], false);
    let view = wait_for(addr, &game.id, None, SHORT, |v| v["players"][1]["connected"] == false).await;
    assert_eq!(view["players"][1]["connected"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn takeback_between_people_is_asked_and_answered() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let (id, black, white) = (&game.id, game.token(0), game.token(1));
    play_ok(addr, id, black, "d3").await;
    // Not the other's move; nothing to answer yet.
    let refused = act(addr, id, "undo", json!({"token": white})).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.error().contains("your own last move"));
    assert_eq!(act(addr, id, "proposal", json!({"token": white, "accept": true})).await.status, 409);
    // Asked: nothing undone yet; the asker cannot answer; a second ask is a conflict.
    let asked = act(addr, id, "undo", json!({"token": black})).await;
    assert_eq!(asked.status, 200);
    assert_eq!(asked.body["moves"], json!(["d3"]));
    assert_eq!(asked.body["proposal"], json!({"kind": "takeback", "by": 0, "waiting_for": [1], "plies": 1}));
    assert_eq!(state(addr, id, None).await["proposal"]["kind"], "takeback", "watchers see the proposal");
    assert_eq!(act(addr, id, "proposal", json!({"token": black, "accept": true})).await.status, 403);
    assert_eq!(act(addr, id, "undo", json!({"token": black})).await.status, 409);
    assert_eq!(act(addr, id, "proposal", json!({"token": "forged", "accept": true})).await.status, 403);
    // Declined: the move stays.
    let declined = act(addr, id, "proposal", json!({"token": white, "accept": false})).await;
    assert_eq!((declined.status, declined.body["proposal"].clone()), (200, Value::Null));
    assert_eq!(state(addr, id, None).await["moves"], json!(["d3"]));
    // Accepted: the move is gone, and stays gone after a reload from the database.
    act(addr, id, "undo", json!({"token": black})).await;
    let accepted = act(addr, id, "proposal", json!({"token": white, "accept": true})).await;
    assert_eq!(accepted.status, 200);
    assert_eq!((accepted.body["moves"].clone(), accepted.body["proposal"].clone()), (json!([]), Value::Null));
    assert_eq!(accepted.body["status"]["to_move"], 0);
    let again = start_with(tabletop_web::ServeConfig { db: server.db.clone(), ..config() }).await;
    assert_eq!(state(again.addr, id, None).await["moves"], json!([]));
    // A move answers a pending request: it is cleared, and the old move can no longer be taken back.
    play_ok(addr, id, black, "d3").await;
    act(addr, id, "undo", json!({"token": black})).await;
    let moved = play_ok(addr, id, white, "c3").await;
    assert_eq!(moved["proposal"], Value::Null);
    assert_eq!(act(addr, id, "proposal", json!({"token": white, "accept": true})).await.status, 409);
    let late = act(addr, id, "undo", json!({"token": black})).await;
    assert_eq!(late.status, 422, "only before anyone moves: {}", late.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mathable_takeback_keeps_hidden_tokens_hidden() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "mathable", "seats": ["human", "human"]})).await;
    let (id, one, two) = (&game.id, game.token(0), game.token(1));
    // A placement this turn can be taken back, with consent.
    let view = state(addr, id, Some(one)).await;
    let rack: Vec<Value> = view["board"]["racks"][0].as_array().unwrap().clone();
    play_ok(addr, id, one, &a_placement(&view)).await;
    let asked = act(addr, id, "undo", json!({"token": one})).await;
    assert_eq!(asked.body["proposal"]["plies"], 1, "{}", asked.text);
    act(addr, id, "proposal", json!({"token": two, "accept": true})).await;
    let back = state(addr, id, Some(one)).await;
    assert_eq!(back["board"]["racks"][0].as_array().unwrap(), &rack, "the token is back on the rack");
    // An ended turn drew tokens: it cannot be taken back.
    play_ok(addr, id, one, &a_placement(&back)).await;
    play_ok(addr, id, one, "end").await;
    let refused = act(addr, id, "undo", json!({"token": one})).await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.error().contains("cannot be taken back"));
    // An exchange neither.
    let view = state(addr, id, Some(two)).await;
    let swap = view["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|m| m.starts_with("swap"))
        .unwrap()
        .to_string();
    play_ok(addr, id, two, &swap).await;
    assert_eq!(act(addr, id, "undo", json!({"token": two})).await.status, 422);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_against_the_computer_is_immediate() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "classic:levels=1"]})).await;
    play_ok(addr, &game.id, game.token(0), "5").await;
    let replied = wait_for(addr, &game.id, None, SHORT, |v| v["moves"].as_array().unwrap().len() == 2).await;
    assert_eq!(replied["moves"].as_array().unwrap().len(), 2);
    let undone = act(addr, &game.id, "undo", json!({"token": game.token(0)})).await;
    assert_eq!(undone.status, 200, "{}", undone.text);
    assert_eq!(undone.body["moves"], json!([]), "the whole round at once");
    assert_eq!(undone.body["proposal"], Value::Null);
    assert_eq!(act(addr, &game.id, "undo", json!({"token": game.token(0)})).await.status, 422, "nothing to undo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_loses_with_two_players() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    play_ok(addr, &game.id, game.token(0), "d3").await;
    // Either seat may resign, in turn or not.
    let answer = act(addr, &game.id, "resign", json!({"token": game.token(0)})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    let result = &answer.body["result"];
    assert_eq!(result["winners"], json!([1]), "the resigning seat loses: {result}");
    assert!(result["text"].as_str().unwrap().starts_with("White wins"), "{result}");
    assert!(result["reason"].as_str().unwrap().contains("Black resigned"), "{result}");
    assert_eq!(
        answer.body["status"],
        json!({"over": true, "to_move": null, "winners": [1], "reason": "Black resigned"})
    );
    assert_eq!(answer.body["players"][0]["resigned"], true);
    assert_eq!(answer.body["legal"], json!([]));
    assert_eq!(play(addr, &game.id, game.token(1), "c3").await.status, 422, "no moves after");
    assert_eq!(act(addr, &game.id, "resign", json!({"token": game.token(1)})).await.status, 422);
    assert_eq!(act(addr, &game.id, "undo", json!({"token": game.token(0)})).await.status, 422);
    // The result survives a restart.
    let again = start_with(tabletop_web::ServeConfig { db: server.db.clone(), ..config() }).await;
    let reloaded = state(again.addr, &game.id, None).await;
    assert_eq!(reloaded["result"]["winners"], json!([1]));
    assert_eq!(reloaded["status"]["over"], true);

    // Against the computer, the person who resigns loses too.
    let solo = create(addr, json!({"game": "connect", "seats": ["human", "engine:time=50ms"]})).await;
    let answer = act(addr, &solo.id, "resign", json!({"token": solo.token(0)})).await;
    assert_eq!(answer.body["result"]["winners"], json!([1]));
    assert!(answer.body["result"]["text"].as_str().unwrap().starts_with("O wins"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resigning_with_three_players_leaves_and_ranks_last() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "human"]}))
            .await;
    let id = &game.id;
    // Seat 1 resigns out of turn: the others play on.
    let answer = act(addr, id, "resign", json!({"token": game.token(1)})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["status"]["over"], false);
    assert_eq!(answer.body["result"], Value::Null);
    assert_eq!(answer.body["players"][1]["resigned"], true);
    assert_eq!(answer.body["board"]["resigned"], json!([1]));
    assert_eq!(act(addr, id, "resign", json!({"token": game.token(1)})).await.status, 409, "once");
    // Seat 0 places and ends its turn: seat 1's turn is passed, seat 2 is to move.
    let view = state(addr, id, Some(game.token(0))).await;
    play_ok(addr, id, game.token(0), &a_placement(&view)).await;
    let after = play_ok(addr, id, game.token(0), "end").await;
    assert_eq!(after["status"]["to_move"], 2, "the resigned seat's turn is passed: {}", after["history"]);
    assert_eq!(play(addr, id, game.token(1), "end").await.status, 409, "a resigned seat does not play");
    // The proposal of a takeback or terminate no longer waits for the resigned seat.
    let proposed = play_ok(addr, id, game.token(2), "terminate").await;
    assert_eq!(proposed["proposal"]["waiting_for"], json!([0]), "{}", proposed["proposal"]);
    act(addr, id, "proposal", json!({"token": game.token(0), "accept": false})).await;
    // Seat 2 resigns (its own turn): seat 0 alone is left and wins.
    let ended = act(addr, id, "resign", json!({"token": game.token(2)})).await;
    assert_eq!(ended.status, 200, "{}", ended.text);
    assert_eq!(ended.body["status"]["over"], true);
    assert_eq!(ended.body["result"]["winners"], json!([0]), "{}", ended.body["result"]);
    assert!(ended.body["result"]["text"].as_str().unwrap().starts_with("Player 1 wins"), "{}", ended.body["result"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resigned_seat_to_move_is_passed_at_once() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "human"]}))
            .await;
    let answer = act(addr, &game.id, "resign", json!({"token": game.token(0)})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["status"]["to_move"], 1, "seat 0 resigned on its turn");
    assert_eq!(answer.body["status"]["over"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminate_between_people_needs_everyones_consent() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "human"]}))
            .await;
    let (id, tokens) = (&game.id, [game.token(0), game.token(1), game.token(2)]);
    let mut watcher = Events::open(addr, id, None).await;
    watcher.until("connected", SHORT).await;
    let proposed = play_ok(addr, id, tokens[0], "terminate").await;
    assert_eq!(proposed["status"]["over"], false, "a proposal, not the end");
    assert_eq!(proposed["proposal"], json!({"kind": "terminate", "by": 0, "waiting_for": [1, 2], "plies": 0}));
    assert_eq!(proposed["moves"], json!([]));
    assert_eq!(watcher.until("terminate_proposed", SHORT).await["event"]["seat"], 0);
    assert_eq!(play(addr, id, tokens[0], "terminate").await.status, 409, "one proposal at a time");
    // One refusal clears it.
    act(addr, id, "proposal", json!({"token": tokens[1], "accept": true})).await;
    let declined = act(addr, id, "proposal", json!({"token": tokens[2], "accept": false})).await;
    assert_eq!((declined.status, declined.body["proposal"].clone()), (200, Value::Null));
    assert_eq!(watcher.until("terminate_declined", SHORT).await["event"]["seat"], 2);
    assert_eq!(state(addr, id, None).await["status"]["over"], false);
    // Everyone accepts: the game ends.
    play_ok(addr, id, tokens[0], "terminate").await;
    let partial = act(addr, id, "proposal", json!({"token": tokens[2], "accept": true})).await;
    assert_eq!(partial.body["proposal"]["waiting_for"], json!([1]));
    assert_eq!(partial.body["status"]["over"], false);
    let accepted = watcher.until("proposal_accepted", SHORT).await;
    assert_eq!(
        (accepted["event"]["seat"].clone(), accepted["proposal"]["waiting_for"].clone()),
        (json!(2), json!([1]))
    );
    let done = act(addr, id, "proposal", json!({"token": tokens[1], "accept": true})).await;
    assert_eq!(done.status, 200, "{}", done.text);
    assert_eq!(done.body["status"]["over"], true);
    assert_eq!(done.body["moves"], json!(["terminate"]));
    assert!(done.body["result"]["reason"].as_str().unwrap().contains("terminated"), "{}", done.body["result"]);
    assert_eq!(watcher.until("move", SHORT).await["status"]["over"], true);
}

/// Issue 25: against the computer, terminate is never a free win. The computer answers at once:
/// it refuses while it can still catch up (422 with the sentence, the game going on, no
/// proposal left waiting) and agrees when it leads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminate_against_the_computer_is_a_proposal_it_answers() {
    let server = start_with(tabletop_web::ServeConfig { game_seed: Some(7), ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "mathable", "seats": ["human", "engine:time=200ms"]})).await;
    let id = &game.id;
    // The person places a token: ahead before the computer has moved.
    let view = state(addr, id, Some(game.token(0))).await;
    let placement = a_placement(&view);
    let placed = play_ok(addr, id, game.token(0), &placement).await;
    assert!(placed["board"]["scores"][0].as_i64().unwrap() > 0, "{}", placed["board"]["scores"]);
    let refused = play(addr, id, game.token(0), "terminate").await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert_eq!(refused.error(), "The computer does not agree to end the game: it can still catch up.");
    let after = state(addr, id, Some(game.token(0))).await;
    assert_eq!(after["status"]["over"], false);
    assert_eq!(after["moves"], json!([placement]), "nothing played");
    assert_eq!(after["proposal"], Value::Null, "no proposal waiting");
    // The person ends the turn; once the computer has placed and leads, it agrees.
    play_ok(addr, id, game.token(0), "end").await;
    let mine = wait_for(addr, id, Some(game.token(0)), Duration::from_secs(120), |v| v["status"]["to_move"] == 0).await;
    assert_eq!(mine["status"]["to_move"], 0, "the computer played its turn: {}", mine["history"]);
    // (With this bag the person's first placement scores 8 and the computer's turn 130.)
    let scores = mine["board"]["scores"].clone();
    assert!(scores[1].as_i64() > scores[0].as_i64(), "the computer leads: {scores}");
    let ended = play_ok(addr, id, game.token(0), "terminate").await;
    assert_eq!((ended["status"]["over"].clone(), ended["proposal"].clone()), (json!(true), Value::Null));
    assert_eq!(ended["result"]["winners"], json!([1]), "{}", ended["result"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_between_people_only_when_allowed() {
    let server = start().await;
    let addr = server.addr;
    // Not allowed (the default): for nobody.
    let off =
        create(addr, json!({"game": "connect", "options": {"preset": "connect4-6x4"}, "seats": ["human", "human"]}))
            .await;
    assert_eq!(off.answer["state"]["hints"], false);
    assert_eq!(off.answer["state"]["hints_allowed"], false);
    for token in [Some(off.token(0)), Some(off.token(1)), None] {
        for what in ["hint", "analysis"] {
            let answer = act(addr, &off.id, what, json!({"token": token})).await;
            assert_eq!(answer.status, 403, "{what} {token:?}: {}", answer.text);
            answer.error();
        }
    }
    // Allowed: for the seat to move only.
    let on = create(
        addr,
        json!({"game": "connect", "options": {"preset": "connect4-6x4"}, "seats": ["human", "human"], "hints": true}),
    )
    .await;
    assert_eq!(on.answer["state"]["hints"], true, "the creator is to move");
    assert_eq!(state(addr, &on.id, Some(on.token(1))).await["hints"], false, "seat 1 is not");
    assert_eq!(state(addr, &on.id, None).await["hints"], false);
    let hint = act(addr, &on.id, "hint", json!({"token": on.token(0)})).await;
    assert_eq!(hint.status, 200, "{}", hint.text);
    let column: u64 = hint.body["move"].as_str().unwrap().parse().unwrap();
    assert!((1..=7).contains(&column), "{}", hint.body);
    assert!(hint.body["value"].is_string());
    assert_eq!(act(addr, &on.id, "hint", json!({"token": on.token(1)})).await.status, 403);
    assert_eq!(act(addr, &on.id, "hint", json!({})).await.status, 403);
    let analysis = act(addr, &on.id, "analysis", json!({"token": on.token(0)})).await;
    assert_eq!(analysis.status, 200, "{}", analysis.text);
    let legal = state(addr, &on.id, None).await["legal"].as_array().unwrap().len();
    assert_eq!(analysis.body["moves"].as_array().unwrap().len(), legal, "{}", analysis.body);
    // Against the computer: always.
    let solo = create(
        addr,
        json!({"game": "connect", "options": {"preset": "connect4-6x4"}, "seats": ["human", "engine:time=50ms"]}),
    )
    .await;
    assert_eq!(solo.answer["state"]["hints"], true);
    assert_eq!(act(addr, &solo.id, "hint", json!({"token": solo.token(0)})).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anyone_may_analyse_a_finished_game_without_hidden_information() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "connect", "options": {"preset": "connect3"}, "seats": ["human", "human"]})).await;
    play_ok(addr, &game.id, game.token(0), "1").await;
    play_ok(addr, &game.id, game.token(1), "2").await;
    assert_eq!(act(addr, &game.id, "analysis", json!({"ply": 1})).await.status, 403, "not during the game");
    act(addr, &game.id, "resign", json!({"token": game.token(1)})).await;
    let answer = act(addr, &game.id, "analysis", json!({"ply": 1})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["ply"], 1);
    assert!(!answer.body["moves"].as_array().unwrap().is_empty());
    assert_eq!(act(addr, &game.id, "analysis", json!({"ply": 9})).await.status, 400, "past the end");
    // A finished Mathable game keeps its racks to itself.
    let hidden = create(addr, json!({"game": "mathable", "seats": ["human", "human"]})).await;
    act(addr, &hidden.id, "resign", json!({"token": hidden.token(1)})).await;
    assert_eq!(act(addr, &hidden.id, "analysis", json!({"ply": 0})).await.status, 403);
}

/// A client drops a state whose `version` is lower than the one it shows: after a restart (or
/// an eviction) the versions must never go back, or a page would ignore every new state; each
/// stored change makes them grow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_keep_growing_across_a_restart_and_an_eviction() {
    let server = start_with(tabletop_web::ServeConfig { cache_games: 1, ..config() }).await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    for (seat, mv) in [(0, "5"), (1, "1"), (0, "9")] {
        play_ok(addr, &game.id, game.token(seat), mv).await;
    }
    let before = state(addr, &game.id, None).await["version"].as_u64().unwrap();
    // A restart: a second server on the same database.
    let again = start_with(tabletop_web::ServeConfig { db: server.db.clone(), ..config() }).await;
    let mut events = Events::open(again.addr, &game.id, None).await;
    let first = events.until("connected", SHORT).await;
    let reloaded = first["version"].as_u64().unwrap();
    assert!(reloaded >= before, "version {reloaded} after the restart, {before} before");
    play_ok(again.addr, &game.id, game.token(1), "2").await;
    assert!(events.until("move", SHORT).await["version"].as_u64().unwrap() > reloaded);
    drop(events);
    // An eviction (a cache of one game): the reloaded game's version still grows.
    let seen = state(addr, &game.id, None).await["version"].as_u64().unwrap();
    for _ in 0..2 {
        // The cache's clock counts milliseconds: let the newer games be newer.
        tokio::time::sleep(Duration::from_millis(5)).await;
        create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    }
    assert!(server.state().cached_games() <= 1);
    let after = state(addr, &game.id, None).await;
    assert_eq!(after["moves"], json!(["5", "1", "9", "2"]));
    assert!(after["version"].as_u64().unwrap() >= seen, "{} after the eviction, {seen} before", after["version"]);
    play_ok(addr, &game.id, game.token(0), "3").await;
    assert!(state(addr, &game.id, None).await["version"].as_u64().unwrap() > seen, "a move makes it grow");
}

/// When every other person has resigned (the rest are computers), nobody is left to answer a
/// proposal: terminate and undo act at once instead of waiting for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_every_other_person_gone_proposals_act_at_once() {
    let server = start().await;
    let addr = server.addr;
    let game =
        create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "greedy"]}))
            .await;
    let id = &game.id;
    act(addr, id, "resign", json!({"token": game.token(1)})).await;
    // Seat 0 plays a placement and takes it back: nobody to ask.
    let view = state(addr, id, Some(game.token(0))).await;
    play_ok(addr, id, game.token(0), &a_placement(&view)).await;
    let undone = act(addr, id, "undo", json!({"token": game.token(0)})).await;
    assert_eq!(undone.status, 200, "{}", undone.text);
    assert_eq!(undone.body["proposal"], Value::Null, "no proposal waiting for nobody: {}", undone.body["proposal"]);
    assert_eq!(undone.body["moves"], json!([]));
    // Terminate is answered at once by the computer, the one seat left to ask: at 0-0-0 it
    // shares the lead and can still win, so it refuses and the game goes on.
    let refused = play(addr, id, game.token(0), "terminate").await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.error().starts_with("The computer does not agree to end the game"), "{}", refused.text);
    let after = state(addr, id, Some(game.token(0))).await;
    assert_eq!(after["proposal"], Value::Null, "{}", after["proposal"]);
    assert_eq!(after["status"]["over"], false);
}

/// Issue 12, Why: every game starts with the defaults (no seats, no options), the computer
/// seat being `engine`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_starts_with_its_defaults() {
    let server = start().await;
    for game in catalog_games(server.addr).await {
        let game = game.as_str();
        let created = create(server.addr, json!({"game": game})).await;
        let seats = created.answer["state"]["seats"].as_array().unwrap().clone();
        assert_eq!(seats[0], "human", "{game}");
        assert!(seats[1..].iter().all(|s| s == "engine"), "{game}: {seats:?}");
        assert_eq!(created.answer["state"]["hints"], true, "{game}: against the computer");
        act(server.addr, &created.id, "resign", json!({"token": created.token(0)})).await;
    }
}

/// Issue 12, Why: after the computer's Mathable turn, the person's own stream carries its rack
/// and its moves (the page lost them until a reload); a move reaches the other seat's stream
/// within half a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_computers_turn_the_person_sees_its_rack_and_moves() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "mathable", "seats": ["human", "greedy"]})).await;
    let mut mine = Events::open(addr, &game.id, Some(game.token(0))).await;
    mine.until("connected", SHORT).await;
    let view = state(addr, &game.id, Some(game.token(0))).await;
    play_ok(addr, &game.id, game.token(0), &a_placement(&view)).await;
    play_ok(addr, &game.id, game.token(0), "end").await;
    let mut back = None;
    for _ in 0..40 {
        let Some(event) = mine.next(SHORT).await else { break };
        if event["event"]["kind"] == "move" && event["event"]["seat"] == 1 && event["status"]["to_move"] == 0 {
            back = Some(event);
            break;
        }
    }
    let back = back.expect("the computer's turn ends with the person to move");
    assert_eq!(back["your_seat"], 0);
    assert_eq!(back["board"]["racks"][0].as_array().map(Vec::len), Some(7), "{}", back["board"]["racks"]);
    assert!(back["board"]["racks"][1].is_u64());
    assert!(!back["legal"].as_array().unwrap().is_empty());
    assert!(back["legal"].as_array().unwrap().contains(&json!("end")));

    // Latency between two people: the event reaches the other seat within half a second.
    let duel = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let mut other = Events::open(addr, &duel.id, Some(duel.token(1))).await;
    other.until("connected", SHORT).await;
    let started = std::time::Instant::now();
    play_ok(addr, &duel.id, duel.token(0), "d3").await;
    let event = other.until("move", SHORT).await;
    assert_eq!(event["moves"], json!(["d3"]));
    assert!(started.elapsed() < Duration::from_millis(500), "{:?}", started.elapsed());
}

/// When the last person resigns and only computers remain, the game ends (the computers would
/// otherwise play a whole game for nobody, `--max-think` a turn).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_person_resigning_ends_the_game() {
    let server = start().await;
    let addr = server.addr;
    let game = create(
        addr,
        json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "engine:time=2s", "greedy"]}),
    )
    .await;
    let view = state(addr, &game.id, Some(game.token(0))).await;
    play_ok(addr, &game.id, game.token(0), &a_placement(&view)).await;
    play_ok(addr, &game.id, game.token(0), "end").await;
    let answer = act(addr, &game.id, "resign", json!({"token": game.token(0)})).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["status"]["over"], true, "nobody is left to play for");
    let winners = answer.body["result"]["winners"].as_array().unwrap().clone();
    assert!(!winners.is_empty() && !winners.contains(&json!(0)), "{}", answer.body["result"]);
    let started = std::time::Instant::now();
    while tabletop_web::server::thinking_count(server.state()) > 0 && started.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(tabletop_web::server::thinking_count(server.state()), 0, "the computers stopped");
    assert!(started.elapsed() < Duration::from_secs(1));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let moves = state(addr, &game.id, None).await["moves"].as_array().unwrap().len();
    assert_eq!(moves, answer.body["moves"].as_array().unwrap().len(), "no move after the end");
}

/// Two people racing for one open seat: exactly one gets it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_racing_for_one_open_seat() {
    let server = start().await;
    let addr = server.addr;
    for _ in 0..5 {
        let game = create(addr, json!({"game": "connect", "seats": ["human", "open"]})).await;
        let path = format!("/api/games/{}/join", game.id);
        let racers: Vec<_> = (0..3)
            .map(|_| {
                let path = path.clone();
                tokio::spawn(async move { post(addr, &path, json!({})).await })
            })
            .collect();
        let mut won = Vec::new();
        let mut statuses = Vec::new();
        for racer in racers {
            let answer = racer.await.unwrap();
            statuses.push(answer.status);
            if answer.status == 200 {
                won.push(answer.body["token"].as_str().unwrap().to_string());
            }
        }
        statuses.sort();
        assert_eq!(statuses, [200, 409, 409]);
        let view = state(addr, &game.id, Some(&won[0])).await;
        assert_eq!(view["your_seat"], 1);
    }
}

/// Issue 13, Why: when the computer moves first, undo never leaves a game where nobody can move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_when_the_computer_moved_first_never_leaves_the_game_stuck() {
    let server = start().await;
    let addr = server.addr;
    let game = create(
        addr,
        json!({"game": "connect", "options": {"preset": "connect4-6x4"}, "seats": ["engine:time=50ms", "human"]}),
    )
    .await;
    let one = |v: &Value| v["moves"].as_array().unwrap().len() == 1 && v["thinking"] == false;
    let first = wait_for(addr, &game.id, None, SHORT, one).await;
    assert!(one(&first), "the computer moved first: {}", first["moves"]);
    let undone = act(addr, &game.id, "undo", json!({"token": game.token(1)})).await;
    assert!(matches!(undone.status, 200 | 422), "{}", undone.text);
    // Whatever undo did, the computer moves again and the person can play.
    let again = wait_for(addr, &game.id, None, SHORT, one).await;
    assert!(one(&again), "{}", again["moves"]);
    assert_eq!(again["status"]["to_move"], 1);
    play_ok(addr, &game.id, game.token(1), "1").await;
    let replied = wait_for(addr, &game.id, None, SHORT, |v| v["moves"].as_array().unwrap().len() == 3).await;
    assert_eq!(replied["moves"].as_array().unwrap().len(), 3);
}

/// The names of the games the server offers, from its catalog (every game in the registry).
async fn catalog_games(addr: std::net::SocketAddr) -> Vec<String> {
    let catalog = get(addr, "/api/catalog").await;
    assert_eq!(catalog.status, 200, "{}", catalog.text);
    let games: Vec<String> =
        catalog.body["games"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().to_string()).collect();
    let registered: Vec<&str> = tabletop::registry::GAMES.iter().map(|g| g.name).collect();
    assert_eq!(games, registered, "the catalog lists every registered game");
    games
}

/// The catalog gives every game the same ten levels by name and, as the page's first choice, the
/// computer the terminal seats by default (issue 25: one default strength); the API takes a level
/// by number or name in every game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalog_offers_every_game_the_ten_levels_and_the_terminals_default() {
    let server = start().await;
    let addr = server.addr;
    let catalog = get(addr, "/api/catalog").await;
    for game in catalog.body["games"].as_array().unwrap() {
        let name = game["name"].as_str().unwrap();
        assert_eq!(game["default_computer"], tabletop::levels::DEFAULT_COMPUTER, "{name}");
        let computers = game["computers"].as_array().unwrap();
        assert!(computers.iter().any(|c| c[0] == game["default_computer"]), "{name}: the default is offered");
        for (i, level) in tabletop::levels::LEVEL_NAMES.iter().enumerate() {
            assert_eq!(computers[i][0], format!("engine:level={}", i + 1), "{name}");
            assert!(computers[i][1].as_str().unwrap().to_lowercase().starts_with(level), "{name}: {}", computers[i][1]);
        }
        for spec in ["engine:level=club", "engine:level=1"] {
            let created = create(addr, json!({"game": name, "seats": ["human", spec]})).await;
            assert_eq!(state(addr, &created.id, None).await["players"][1]["spec"], spec, "{name}");
        }
    }
}

/// Every registered game between two people from its defaults: each person moves from their own
/// view's legal moves (seeded choice), a watcher sees every move at once, and a game with hidden
/// information gives nobody its position notation and nobody but the seat to move its legal moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_registered_game_between_two_people() {
    let server = start().await;
    let addr = server.addr;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for name in catalog_games(addr).await {
        let game = create(addr, json!({"game": name, "seats": ["human", "human"]})).await;
        for ply in 0..12 {
            let watcher = state(addr, &game.id, None).await;
            if watcher["status"]["over"] == true {
                break;
            }
            let seat = watcher["status"]["to_move"].as_u64().unwrap() as usize;
            let mine = state(addr, &game.id, Some(game.token(seat))).await;
            let other = state(addr, &game.id, Some(game.token(1 - seat.min(1)))).await;
            if mine["position"].is_null() {
                // Hidden information: nobody gets the whole position, and only the seat to move
                // its legal moves.
                assert!(other["position"].is_null() && watcher["position"].is_null(), "{name}");
                assert_eq!(watcher["legal"], json!([]), "{name} ply {ply}: a watcher sees legal moves");
                assert_eq!(other["legal"], json!([]), "{name} ply {ply}: the other seat sees legal moves");
            }
            let legal: Vec<&str> = mine["legal"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            assert!(!legal.is_empty(), "{name} ply {ply}: the seat to move has no legal move");
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let choice = legal[(seed % legal.len() as u64) as usize];
            let after = play(addr, &game.id, game.token(seat), choice).await;
            assert_eq!(after.status, 200, "{name} {choice}: {}", after.text);
            if after.body["proposal"].is_object() {
                // Between people an agreement move (Mathable's terminate) is a proposal: no move.
                break;
            }
            let moves = after.body["moves"].as_array().unwrap().len();
            let seen = state(addr, &game.id, None).await["moves"].as_array().unwrap().len();
            assert_eq!(seen, moves, "{name}: a watcher sees the move at once");
        }
    }
}

// ---- Issue 25: invitations used once ----

/// The code an invite link carries (`.../game/ID#invite=CODE`).
fn invitation_code(invite: &Value) -> String {
    let path = invite["path"].as_str().expect("an invite path");
    path.split_once("#invite=").map(|(_, code)| code.to_string()).unwrap_or_else(|| panic!("no code in {path}"))
}

/// `POST /api/games/{id}/claim` with `body`.
async fn claim(addr: std::net::SocketAddr, id: &str, body: Value) -> Answer {
    post(addr, &format!("/api/games/{id}/claim"), body).await
}

/// Issue 25: the first person to open a seat's invitation holds the seat, with a token made
/// then (the creator's copy of that seat's token stops working); anyone opening it later is told
/// whose seat it is and watches; the seat's holder plays on; everyone hears the seat was taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invitation_is_used_once_and_later_openers_watch() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "reversi", "seats": ["human", "human"]})).await;
    let code = invitation_code(&game.answer["invites"][1]);
    assert_eq!(game.answer["state"]["players"][1]["invite"], "unused");
    let mut creator_events = Events::open(addr, &game.id, Some(game.token(0))).await;
    creator_events.until("connected", SHORT).await;

    let friend = claim(addr, &game.id, json!({"invite": code})).await;
    assert_eq!(friend.status, 200, "{}", friend.text);
    assert_eq!((friend.body["seat"].clone(), friend.body["claimed"].clone()), (json!(1), json!(true)));
    let token = friend.body["token"].as_str().unwrap().to_string();
    assert_eq!(token.len(), 32);
    assert_ne!(token, game.token(1), "a token made at the claim, not the creator's copy");
    assert_ne!(token, code);
    assert_eq!(friend.body["state"]["your_seat"], 1);
    assert_eq!(friend.body["state"]["players"][1]["invite"], "used");
    let heard = creator_events.until("seat_taken", SHORT).await;
    assert_eq!(heard["event"]["seat"], 1);
    assert_eq!(heard["players"][1]["invite"], "used");

    // A third person opening the same link: the seat is taken, by whom, and they watch.
    for _ in 0..2 {
        let later = claim(addr, &game.id, json!({"invite": code})).await;
        assert_eq!(later.status, 409, "{}", later.text);
        assert_eq!(later.error(), "This invitation was already used: White is taken.");
    }
    // The creator's copy of White's token no longer holds the seat; Black's still does.
    assert_eq!(state(addr, &game.id, Some(game.token(1))).await["your_seat"], Value::Null);
    assert_eq!(play(addr, &game.id, game.token(1), "d3").await.status, 403);
    play_ok(addr, &game.id, game.token(0), "d3").await;
    let after = play_ok(addr, &game.id, &token, "c3").await;
    assert_eq!(after["history"][1]["seat"], 1);
    // Opening the link again with the seat's own token (the friend's browser) keeps it.
    let again = claim(addr, &game.id, json!({"invite": code, "token": token})).await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!((again.body["seat"].clone(), again.body["claimed"].clone()), (json!(1), json!(false)));
    assert!(again.body.get("token").is_none(), "no new token: {}", again.text);
    assert_eq!(state(addr, &game.id, Some(&token)).await["your_seat"], 1);
}

/// Issue 25: the creator opening the link it sent (its browser sends the token it holds) keeps
/// its own seat, takes nothing, and leaves the invitation for the friend, who then gets the seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creator_checking_their_own_invitation_keeps_their_seat() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "connect", "seats": ["human", "human"]})).await;
    let code = invitation_code(&game.answer["invites"][1]);
    for _ in 0..2 {
        let check = claim(addr, &game.id, json!({"invite": code, "token": game.token(0)})).await;
        assert_eq!(check.status, 200, "{}", check.text);
        assert_eq!(check.body["claimed"], false);
        assert_eq!(check.body["seat"], 0, "the creator keeps their seat");
        assert_eq!(check.body["invited_seat"], 1);
        assert_eq!(check.body["state"]["your_seat"], 0);
        assert_eq!(check.body["state"]["players"][1]["invite"], "unused", "the invitation is still the friend's");
    }
    assert_eq!(state(addr, &game.id, Some(game.token(0))).await["your_seat"], 0);
    let version = state(addr, &game.id, None).await["version"].clone();
    assert_eq!(version, 0, "checking stored nothing");
    let friend = claim(addr, &game.id, json!({"invite": code})).await;
    assert_eq!((friend.status, friend.body["seat"].clone()), (200, json!(1)), "{}", friend.text);
    // A token that holds no seat here counts as none: a stranger's browser after the friend.
    let stranger = claim(addr, &game.id, json!({"invite": code, "token": "0".repeat(32)})).await;
    assert_eq!(stranger.status, 409, "{}", stranger.text);
    assert_eq!(stranger.error(), "This invitation was already used: O is taken.");
}

/// Issue 25: many people opening one invitation at the same moment: exactly one gets the seat,
/// every other is told it is taken (on SQLite and on PostgreSQL).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn people_opening_one_invitation_at_once_exactly_one_gets_the_seat() {
    let server = start().await;
    let addr = server.addr;
    for round in 0..6 {
        let game =
            create(addr, json!({"game": "mathable", "options": {"players": 3}, "seats": ["human", "human", "human"]}))
                .await;
        let seat = 1 + round % 2;
        let code = invitation_code(&game.answer["invites"][seat]);
        let path = format!("/api/games/{}/claim", game.id);
        let racers: Vec<_> = (0..8)
            .map(|_| {
                let (path, code) = (path.clone(), code.clone());
                tokio::spawn(async move { post(addr, &path, json!({"invite": code})).await })
            })
            .collect();
        let mut winners = Vec::new();
        let mut refused = 0;
        for racer in racers {
            let answer = racer.await.unwrap();
            match answer.status {
                200 => winners.push(answer.body["token"].as_str().unwrap().to_string()),
                409 => {
                    assert_eq!(
                        answer.error(),
                        format!("This invitation was already used: Player {} is taken.", seat + 1)
                    );
                    refused += 1;
                }
                other => panic!("round {round}: {other} {}", answer.text),
            }
        }
        assert_eq!((winners.len(), refused), (1, 7), "round {round}");
        assert_eq!(state(addr, &game.id, Some(&winners[0])).await["your_seat"], seat);
        let watcher = state(addr, &game.id, None).await;
        assert_eq!(watcher["version"], 1, "one claim stored");
        assert_eq!(watcher["players"][seat]["invite"], "used");
    }
}

/// Issue 25: wrong, foreign, empty and missing invitation codes are refused and change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_or_missing_invitation_codes_are_refused() {
    let server = start().await;
    let addr = server.addr;
    let game = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let other = create(addr, json!({"game": "slide", "seats": ["human", "human"]})).await;
    let foreign = invitation_code(&other.answer["invites"][1]);
    for (body, status, what) in [
        (json!({"invite": "0".repeat(32)}), 403, "not one of this game's"),
        (json!({"invite": foreign}), 403, "not one of this game's"),
        (json!({"invite": ""}), 403, "not one of this game's"),
        (json!({"invite": game.token(1)}), 403, "not one of this game's"),
        (json!({}), 400, "invite"),
        (json!({"invite": 7}), 400, "invite"),
        (json!({"invite": foreign, "seat": 1}), 400, "unknown field"),
    ] {
        let answer = claim(addr, &game.id, body.clone()).await;
        assert_eq!(answer.status, status, "{body}: {}", answer.text);
        assert!(answer.error().contains(what), "{body}: {}", answer.text);
    }
    let missing = claim(addr, &"0".repeat(32), json!({"invite": foreign})).await;
    assert_eq!(missing.status, 404, "{}", missing.text);
    // Nothing changed: both invitations are unused, and both still work.
    assert_eq!(state(addr, &game.id, None).await["version"], 0);
    assert_eq!(state(addr, &game.id, None).await["players"][1]["invite"], "unused");
    let right = claim(addr, &other.id, json!({"invite": foreign})).await;
    assert_eq!(right.status, 200, "{}", right.text);
}

/// Issue 25: a claim is stored before it is answered: after a restart the seat's holder keeps
/// it, the invitation stays used, and the creator's copy of the seat's token stays void.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_used_invitation_stays_used_after_a_restart() {
    let server = start().await;
    let game = create(server.addr, json!({"game": "connect", "seats": ["human", "human"]})).await;
    let code = invitation_code(&game.answer["invites"][1]);
    let friend = claim(server.addr, &game.id, json!({"invite": code})).await;
    assert_eq!(friend.status, 200, "{}", friend.text);
    let token = friend.body["token"].as_str().unwrap().to_string();
    let db = server.db.clone();
    server.running.shutdown().await;
    let again = start_with(tabletop_web::ServeConfig { db, ..config() }).await;
    assert_eq!(state(again.addr, &game.id, Some(&token)).await["your_seat"], 1);
    assert_eq!(state(again.addr, &game.id, Some(game.token(1))).await["your_seat"], Value::Null);
    let later = claim(again.addr, &game.id, json!({"invite": code})).await;
    assert_eq!(later.status, 409, "{}", later.text);
}
