//! Rematches in `tabletop serve` (issue 59, "rematch with seats swapped"): after a game between
//! people ended, a seat proposes a rematch, the others accept it as any proposal, and a new game
//! starts with the same settings and the seats rotated (two players swap), each person keeping
//! their own token for their new seat.
//!
//! Each test runs a server in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`) and talks raw HTTP to it, as tests/ratings.rs does.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};
use support::{Answer, Server, PASSWORD};

impl Server {
    /// A request as a seat's client sends it (no page headers needed for a token).
    fn post(&self, path: &str, body: Value) -> Answer {
        self.page("POST", path, None, Some(body))
    }

    /// The game's state as `token`'s seat sees it.
    fn seen_by(&self, id: &str, token: &str) -> Answer {
        self.raw("GET", &format!("/api/games/{id}"), &[format!("Authorization: Bearer {token}")], "")
    }

    /// Opens the game's event stream as a watcher; every event arrives on the receiver as its
    /// name and data while the returned connection stays open.
    fn watch(&self, id: &str) -> (std::sync::mpsc::Receiver<(String, Value)>, TcpStream) {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        write!(stream, "GET /api/games/{id}/events HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).unwrap();
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
}

/// A game's state, as a watcher sees it.
fn state(server: &Server, id: &str) -> Value {
    let answer = server.page("GET", &format!("/api/games/{id}"), None, None);
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

/// Waits for the state sent for the change `kind` on a watcher's stream (the server sends it; a
/// minute is only the bound of a broken server) and answers it.
fn event(events: &std::sync::mpsc::Receiver<(String, Value)>, kind: &str) -> Value {
    loop {
        let (name, data) = events.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no {kind} event"));
        if name == "state" && data["event"]["kind"] == kind {
            return data;
        }
    }
}

/// A move by `token` at `ply`: the first legal one.
fn first_move(server: &Server, id: &str, token: &str, ply: usize) -> Answer {
    let legal = state(server, id)["legal"][0].clone();
    server.post(&format!("/api/games/{id}/moves"), json!({"move": legal, "token": token, "ply": ply}))
}

/// A casual two-person Connect Four game ended by seat 1's resignation: its id and both tokens.
fn ended_casual_game(server: &Server) -> (String, [String; 2]) {
    let answer = server.post("/api/games", json!({"game": "connect", "seats": ["human", "human"], "clock": "10+5"}));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let id = answer.body["id"].as_str().unwrap().to_string();
    let tokens = [0, 1].map(|s| answer.body["tokens"][s].as_str().unwrap().to_string());
    assert_eq!(first_move(server, &id, &tokens[0], 0).status, 200);
    let resigned = server.post(&format!("/api/games/{id}/resign"), json!({"token": tokens[1]}));
    assert_eq!(resigned.status, 200, "{}", resigned.text);
    (id, tokens)
}

/// A rated game between two accounts ends; Ann proposes a rematch, Bob accepts: the new game has
/// the same game, options, clock and rated flag, Bob in seat 0 and Ann in seat 1 (accounts kept),
/// and the old game's watchers are told its id. Each person's token works for their own new seat
/// only.
#[test]
fn an_accepted_rematch_swaps_the_seats_and_keeps_the_settings() {
    let server = Server::new();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let body = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": true, "hints": true});
    let created = server.page("POST", "/api/games", Some(&ann), Some(body));
    assert_eq!(created.status, 200, "{}", created.text);
    let id = created.body["id"].as_str().unwrap().to_string();
    let ann_token = created.body["tokens"][0].as_str().unwrap().to_string();
    let joined = server.page("POST", &format!("/api/games/{id}/join"), Some(&bob), Some(json!({})));
    assert_eq!(joined.status, 200, "{}", joined.text);
    let bob_token = joined.body["token"].as_str().unwrap().to_string();
    assert_eq!(first_move(&server, &id, &ann_token, 0).status, 200);
    assert_eq!(first_move(&server, &id, &bob_token, 1).status, 200);
    let resigned = server.post(&format!("/api/games/{id}/resign"), json!({"token": bob_token}));
    assert_eq!(resigned.status, 200, "{}", resigned.text);
    let old = state(&server, &id);
    assert_eq!(old["status"]["over"], true);
    assert_eq!(old["rematch"], Value::Null);

    let (watched, _watching) = server.watch(&id);
    event(&watched, "connected");
    let proposed = server.post(&format!("/api/games/{id}/rematch"), json!({"token": ann_token}));
    assert_eq!(proposed.status, 200, "{}", proposed.text);
    assert_eq!(proposed.body["proposal"]["kind"], "rematch");
    assert_eq!(proposed.body["proposal"]["by"], 0);
    assert_eq!(proposed.body["proposal"]["waiting_for"], json!([1]));
    let seen = event(&watched, "rematch_proposed");
    assert_eq!(seen["proposal"]["kind"], "rematch");

    let accepted = server.post(&format!("/api/games/{id}/proposal"), json!({"token": bob_token, "accept": true}));
    assert_eq!(accepted.status, 200, "{}", accepted.text);
    let new = accepted.body["rematch"]["id"].as_str().expect("the new game's id").to_string();
    assert_ne!(new, id);
    assert_eq!(accepted.body["rematch"]["path"], json!(format!("/game/{new}")));
    assert_eq!(accepted.body["proposal"], Value::Null);
    let told = event(&watched, "rematch");
    assert_eq!(told["rematch"]["id"], json!(new), "{told}");
    assert_eq!(told["event"]["seat"], 0);
    assert!(!told.to_string().contains(&ann_token) && !told.to_string().contains(&bob_token));
    assert_eq!(state(&server, &id)["rematch"]["id"], json!(new));

    let fresh = state(&server, &new);
    assert_eq!(fresh["status"]["over"], false);
    assert_eq!(fresh["rated"], true);
    assert_eq!(fresh["hints_allowed"], old["hints_allowed"]);
    assert_eq!(fresh["options"], old["options"]);
    assert_eq!(fresh["clock"]["control"], old["clock"]["control"]);
    assert_eq!(fresh["clock"]["control"], "5+3");
    assert_eq!(fresh["seats"], json!(["human", "human"]));
    assert_eq!(fresh["players"][0]["player"], "bob", "{fresh}");
    assert_eq!(fresh["players"][1]["player"], "ann", "{fresh}");
    assert_eq!(fresh["moves"].as_array().map(Vec::len), Some(0));

    // Each person's token is their own new seat's, and only that one's.
    assert_eq!(server.seen_by(&new, &bob_token).body["your_seat"], 0);
    assert_eq!(server.seen_by(&new, &ann_token).body["your_seat"], 1);
    let early = first_move(&server, &new, &ann_token, 0);
    assert!(early.status >= 400 && early.status < 500, "Ann plays seat 1, not seat 0: {}", early.text);
    assert_eq!(first_move(&server, &new, &bob_token, 0).status, 200);
    let twice = first_move(&server, &new, &bob_token, 1);
    assert!(twice.status >= 400 && twice.status < 500, "Bob plays seat 0, not seat 1: {}", twice.text);
    assert_eq!(first_move(&server, &new, &ann_token, 1).status, 200);
    let stranger = first_move(&server, &new, "0123456789abcdef0123456789abcdef", 2);
    assert_eq!(stranger.status, 403, "{}", stranger.text);

    // One rematch per game.
    let again = server.post(&format!("/api/games/{id}/rematch"), json!({"token": bob_token}));
    assert_eq!(again.status, 409, "{}", again.text);
    let answer = server.post(&format!("/api/games/{id}/proposal"), json!({"token": bob_token, "accept": true}));
    assert_eq!(answer.status, 409, "{}", answer.text);
}

/// Refused: before the game's end (422), by a watcher's or a wrong token (403), a second
/// proposal while one waits (409), against the computer (422). A declined rematch may be
/// proposed again.
#[test]
fn rematches_are_refused_before_the_end_to_strangers_twice_and_against_the_computer() {
    let server = Server::new();
    let answer = server.post("/api/games", json!({"game": "connect", "seats": ["human", "human"]}));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let playing = answer.body["id"].as_str().unwrap().to_string();
    let token = answer.body["tokens"][0].as_str().unwrap().to_string();
    let early = server.post(&format!("/api/games/{playing}/rematch"), json!({"token": token}));
    assert_eq!(early.status, 422, "{}", early.text);
    assert!(early.text.contains("over"), "{}", early.text);

    let (id, tokens) = ended_casual_game(&server);
    for wrong in ["", "nope", token.as_str()] {
        let refused = server.post(&format!("/api/games/{id}/rematch"), json!({"token": wrong}));
        assert_eq!(refused.status, 403, "{wrong:?}: {}", refused.text);
    }
    let missing = server.post(&format!("/api/games/{id}/rematch"), json!({}));
    assert!(missing.status >= 400 && missing.status < 500, "{}", missing.text);

    let (watched, _watching) = server.watch(&id);
    event(&watched, "connected");
    assert_eq!(server.post(&format!("/api/games/{id}/rematch"), json!({"token": tokens[1]})).status, 200);
    for seat in [0, 1] {
        let twice = server.post(&format!("/api/games/{id}/rematch"), json!({"token": tokens[seat]}));
        assert_eq!(twice.status, 409, "{}", twice.text);
    }
    // The proposer cannot accept for the others.
    let own = server.post(&format!("/api/games/{id}/proposal"), json!({"token": tokens[1], "accept": true}));
    assert_eq!(own.status, 403, "{}", own.text);
    let declined = server.post(&format!("/api/games/{id}/proposal"), json!({"token": tokens[0], "accept": false}));
    assert_eq!(declined.status, 200, "{}", declined.text);
    assert_eq!(declined.body["proposal"], Value::Null);
    assert_eq!(declined.body["rematch"], Value::Null);
    event(&watched, "rematch_declined");
    // Declined, it may be proposed again, and accepted: seat 1's person now holds seat 0.
    assert_eq!(server.post(&format!("/api/games/{id}/rematch"), json!({"token": tokens[0]})).status, 200);
    let accepted = server.post(&format!("/api/games/{id}/proposal"), json!({"token": tokens[1], "accept": true}));
    assert_eq!(accepted.status, 200, "{}", accepted.text);
    let new = accepted.body["rematch"]["id"].as_str().unwrap().to_string();
    assert_eq!(event(&watched, "rematch")["rematch"]["id"], json!(new));
    assert_eq!(server.seen_by(&new, &tokens[1]).body["your_seat"], 0);
    assert_eq!(server.seen_by(&new, &tokens[0]).body["your_seat"], 1);
    assert_eq!(state(&server, &new)["clock"]["control"], "10+5");
    assert_eq!(state(&server, &new)["rated"], false);

    // Against the computer: no rematch (a new game is one click away).
    let answer = server.post("/api/games", json!({"game": "connect", "seats": ["human", "engine"]}));
    assert_eq!(answer.status, 200, "{}", answer.text);
    let computer = answer.body["id"].as_str().unwrap().to_string();
    let token = answer.body["tokens"][0].as_str().unwrap().to_string();
    assert_eq!(server.post(&format!("/api/games/{computer}/resign"), json!({"token": token})).status, 200);
    let refused = server.post(&format!("/api/games/{computer}/rematch"), json!({"token": token}));
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(refused.text.contains("between people"), "{}", refused.text);
}
