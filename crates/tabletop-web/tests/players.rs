//! A player's page and export in `tabletop serve` (issue 59, "a player's page with ratings, a
//! rating graph per game, recent games and results; a player's games exported through the API
//! (GGF for Reversi, the saved-game text for the others, JSON for all)").
//!
//! Each test runs a server in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`) and talks raw HTTP to it, as tests/ratings.rs does. Every
//! exported text is read back by the library's own readers (GGF, the record's text).

mod support;

use serde_json::{json, Value};
use support::{Answer, Server, PASSWORD};
use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::games::mathable::{Mathable, SaveState};
use tabletop::games::reversi::ggf::GgfGame;
use tabletop::Record;

/// A game's state, as a watcher sees it.
fn state(server: &Server, id: &str) -> Value {
    let answer = server.page("GET", &format!("/api/games/{id}"), None, None);
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

/// A game's state as `token`'s seat sees it.
fn seen_by(server: &Server, id: &str, token: &str) -> Value {
    let answer = server.raw("GET", &format!("/api/games/{id}"), &[format!("Authorization: Bearer {token}")], "");
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

/// A game made by `creator`'s account with an open seat that `joiner`'s account takes: its id
/// and both seats' tokens.
fn game_between(server: &Server, body: Value, creator: &str, joiner: &str) -> (String, [String; 2]) {
    let created = server.page("POST", "/api/games", Some(creator), Some(body));
    assert_eq!(created.status, 200, "{}", created.text);
    let id = created.body["id"].as_str().unwrap().to_string();
    let joined = server.page("POST", &format!("/api/games/{id}/join"), Some(joiner), Some(json!({})));
    assert_eq!(joined.status, 200, "{}", joined.text);
    let tokens =
        [created.body["tokens"][0].as_str().unwrap().to_string(), joined.body["token"].as_str().unwrap().to_string()];
    (id, tokens)
}

/// Plays `count` moves, each the mover's legal move number `pick(ply)`.
fn play(server: &Server, id: &str, tokens: &[String; 2], count: usize, pick: impl Fn(usize) -> usize) {
    for _ in 0..count {
        let now = state(server, id);
        let ply = now["moves"].as_array().unwrap().len();
        let seat = now["status"]["to_move"].as_u64().unwrap() as usize;
        let legal = now["legal"].as_array().unwrap();
        let mv = legal[pick(ply).min(legal.len() - 1)].clone();
        let answer = server.page(
            "POST",
            &format!("/api/games/{id}/moves"),
            None,
            Some(json!({"move": mv, "token": tokens[seat], "ply": ply})),
        );
        assert_eq!(answer.status, 200, "move {ply}: {}", answer.text);
    }
}

fn resign(server: &Server, id: &str, token: &str) {
    let answer = server.page("POST", &format!("/api/games/{id}/resign"), None, Some(json!({"token": token})));
    assert_eq!(answer.status, 200, "{}", answer.text);
}

/// The body of an answer as text.
fn body(answer: &Answer) -> &str {
    answer.text.split_once("\r\n\r\n").map_or("", |(_, body)| body)
}

fn export(server: &Server, name: &str, format: &str) -> Answer {
    server.page("GET", &format!("/api/players/{name}/games?format={format}"), None, None)
}

/// The generic saved-game texts of an export (blank-line separated, GGF lines left out).
fn saved_texts(text: &str) -> Vec<&str> {
    text.split("\n\n").map(str::trim).filter(|t| t.starts_with("tabletop ")).collect()
}

/// A rated Reversi game Ann resigns after four moves and a casual Connect Four game she wins by
/// the rules: the text export gives the Reversi game as GGF (players, date, result marked as a
/// resignation, clock, move times) and the Connect game as its saved-game text (clock, times,
/// result); each read back by the library's readers gives the same moves and result. JSON has
/// both with their moves; `ggf` only the Reversi game; both are downloads with a file name.
#[test]
fn a_players_games_export_as_text_and_read_back_the_same() {
    let server = Server::new();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let rated = json!({"game": "reversi", "seats": ["human", "open"], "clock": "5+3", "rated": true});
    let (reversi, reversi_tokens) = game_between(&server, rated, &ann, &bob);
    play(&server, &reversi, &reversi_tokens, 4, |_| 0);
    resign(&server, &reversi, &reversi_tokens[0]);
    let reversi_moves = state(&server, &reversi)["moves"].clone();
    let casual = json!({"game": "connect", "seats": ["human", "open"], "clock": "10+5"});
    let (connect, connect_tokens) = game_between(&server, casual, &ann, &bob);
    // Seat 0 takes the first legal column, seat 1 the second: four in a column for seat 0.
    play(&server, &connect, &connect_tokens, 7, |ply| ply % 2);
    let connect_state = state(&server, &connect);
    assert_eq!(connect_state["result"]["winners"], json!([0]), "{connect_state}");

    let text = export(&server, "Ann", "text");
    assert_eq!(text.status, 200, "{}", text.text);
    assert_eq!(text.header("content-type"), Some("text/plain; charset=utf-8"));
    assert_eq!(text.header("content-disposition"), Some("attachment; filename=\"ann-games.txt\""));
    let text = body(&text).to_string();

    // Reversi as GGF: one line, read back by the GGF reader.
    let line = text.lines().find(|l| l.starts_with("(;")).unwrap_or_else(|| panic!("a GGF line: {text}"));
    let ggf: GgfGame = line.parse().expect("the GGF reader reads the export");
    assert_eq!((ggf.black.as_deref(), ggf.white.as_deref()), (Some("ann"), Some("bob")));
    assert_eq!(ggf.result.as_deref(), Some("-64.00:r"), "Black resigned: White wins, marked as GGS marks it");
    assert_eq!(ggf.time.as_deref(), Some("5:00/3/"));
    assert!(ggf.date.as_deref().is_some_and(|d| d.ends_with(" UTC") && d.len() == 23), "{:?}", ggf.date);
    let record = ggf.to_record().expect("its moves replay");
    let moves: Vec<String> = record.moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(json!(moves), reversi_moves);
    assert!(ggf.moves.iter().all(|m| m.time.is_some()), "each move's time: {line}");
    assert!(line.contains("Black resigned") && line.contains("rated, clock 5+3"), "{line}");
    assert!(line.contains("rating ann reversi blitz: 1500 -> "), "the rating changes noted: {line}");

    // Connect Four as the record's text, read back with its clocks and result.
    let saved = saved_texts(&text);
    assert_eq!(saved.len(), 1, "{text}");
    let (back, clocks) = Record::<Connect>::from_text_timed(&ConnectVariant::connect4(), saved[0])
        .expect("the record's reader reads it");
    let moves: Vec<String> = back.moves().iter().map(|m| m.to_string()).collect();
    assert_eq!(json!(moves), connect_state["moves"]);
    assert!(matches!(back.status(), tabletop::Status::Over(_)));
    let clocks = clocks.expect("the clock and times lines");
    assert_eq!(clocks.controls.iter().map(ToString::to_string).collect::<Vec<_>>(), ["10+5"]);
    assert_eq!(clocks.moves.len(), 7);
    assert!(saved[0].contains("\n# players: ann (X) - bob (O)\n"), "{}", saved[0]);
    assert!(saved[0].contains("\nresult 1 "), "{}", saved[0]);
    assert!(saved[0].contains("# casual, clock 10+5"), "{}", saved[0]);

    // `ggf`: the Reversi game alone, one a line.
    let ggf_only = export(&server, "ann", "ggf");
    assert_eq!(ggf_only.status, 200);
    assert_eq!(ggf_only.header("content-disposition"), Some("attachment; filename=\"ann-games.ggf\""));
    assert_eq!(GgfGame::parse_all(body(&ggf_only)).map(|g| g.len()), Ok(1));
    assert!(!body(&ggf_only).contains("tabletop connect"));
    // Bob's export holds the same games.
    assert_eq!(GgfGame::parse_all(body(&export(&server, "bob", "ggf"))).map(|g| g.len()), Ok(1));

    // JSON: both games with their moves, newest first.
    let json = export(&server, "ann", "json");
    assert_eq!(json.status, 200, "{}", json.text);
    let games = json.body["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0]["id"], json!(connect));
    assert_eq!(games[1]["moves"], reversi_moves);
    assert_eq!(games[1]["outcome"], "loss");
    assert_eq!(games[1]["text"], Value::Null, "the JSON holds records, not texts");
}

/// The rating graph's points: each rated game adds one, the rating after it, oldest first.
#[test]
fn a_players_page_has_each_ratings_history() {
    let server = Server::new();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let rated = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3", "rated": true});
    let mut ids = Vec::new();
    for loser in [1, 0, 1] {
        let (id, tokens) = game_between(&server, rated.clone(), &ann, &bob);
        resign(&server, &id, &tokens[loser]);
        ids.push(id);
    }
    let page = server.page("GET", "/api/players/ann", None, None);
    assert_eq!(page.status, 200, "{}", page.text);
    let rating = &page.body["ratings"][0];
    let history = rating["history"].as_array().expect("a history");
    assert_eq!(history.len(), 3, "{rating}");
    let ids_seen: Vec<&str> = history.iter().map(|p| p["game_id"].as_str().unwrap()).collect();
    assert_eq!(ids_seen, ids.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(history[2]["rating"], rating["rating"], "the last point is the rating now");
    assert!(
        history[0]["rating"].as_i64().unwrap() > 1500
            && history[1]["rating"].as_i64().unwrap() < history[0]["rating"].as_i64().unwrap()
    );
    assert!(history.windows(2).all(|w| w[0]["at"].as_i64() <= w[1]["at"].as_i64()));
    // The recent games carry each one's change, for the page's "+12 / -8".
    let recent = &page.body["recent_games"][0];
    assert_eq!(recent["id"], json!(ids[2]));
    assert!(recent["rating_change"]["change"].as_i64().unwrap() > 0, "{recent}");
    assert_eq!(recent["moves"], Value::Null, "the page's games without their moves");
}

/// An unknown player is 404 in every format; a bad format is 400, its value named back cut
/// short and quoted (never as markup); a token-like query is refused too.
#[test]
fn exports_refuse_unknown_players_and_formats() {
    let server = Server::new();
    server.account("ann", PASSWORD);
    for format in ["json", "text", "ggf"] {
        let answer = export(&server, "nobody", format);
        assert_eq!(answer.status, 404, "{format}: {}", answer.text);
        assert!(answer.body["error"].as_str().is_some_and(|e| e.contains("nobody")), "{}", answer.text);
    }
    let answer = export(&server, "ann", "%3Cscript%3Ealert(1)%3C%2Fscript%3Eaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let error = answer.body["error"].as_str().unwrap();
    assert!(error.contains("\"<script>alert(1)</sc\""), "{error}");
    assert!(!error.contains("aaaaaaaaaa"), "cut short: {error}");
    assert!(error.contains("\"text\"") && error.contains("\"ggf\""), "{error}");
    assert_eq!(export(&server, "ann", "pgn").status, 400);
    let extra = server.page("GET", "/api/players/ann/games?format=json&token=abc", None, None);
    assert_eq!(extra.status, 400, "{}", extra.text);
    // A name far too long is refused (unknown, or a target over the server's limit), and not
    // echoed whole.
    let long = "x".repeat(5000);
    let answer = server.page("GET", &format!("/api/players/{long}/games?format=text"), None, None);
    assert!(matches!(answer.status, 404 | 414), "{}", answer.status);
    assert!(answer.text.len() < 1000, "{}", answer.text.len());
    // No games yet: an empty file.
    let empty = export(&server, "ann", "text");
    assert_eq!(empty.status, 200);
    assert_eq!(body(&empty), "");
}

/// A deleted account's games stay in its opponent's export, its seat anonymous; its own export
/// is gone (404).
#[test]
fn a_deleted_accounts_games_export_anonymised() {
    let server = Server::new();
    let gil = server.account("gil", PASSWORD);
    let hal = server.account("hal", PASSWORD);
    let rated = json!({"game": "reversi", "seats": ["human", "open"], "clock": "5+3", "rated": true});
    let (id, tokens) = game_between(&server, rated, &gil, &hal);
    play(&server, &id, &tokens, 2, |_| 0);
    resign(&server, &id, &tokens[1]);
    assert!(body(&export(&server, "hal", "text")).contains("PB[gil]"));
    let deleted = server.page("POST", "/api/account/delete", Some(&gil), Some(json!({"password": PASSWORD})));
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(export(&server, "gil", "text").status, 404);
    let text = body(&export(&server, "hal", "text")).to_string();
    let ggf: GgfGame = text.parse().expect("still a GGF game");
    assert_eq!((ggf.black.as_deref(), ggf.white.as_deref()), (Some("anonymous"), Some("hal")));
    assert_eq!(ggf.result.as_deref(), Some("+64.00:r"));
    assert!(!text.contains("gil"), "the deleted name is nowhere: {text}");
    let json = export(&server, "hal", "json");
    assert_eq!(json.body["games"][0]["players"][0]["player"], Value::Null);
    assert!(!json.text.contains("gil"), "{}", json.text);
}

/// A Mathable game being played hides racks and exchanges: its export shows the moves as a
/// watcher sees them (an exchange's tokens never), and the text export leaves it out until it
/// ends; once it ended, the text holds the game as played and the record's reader reads it.
#[test]
fn a_running_games_hidden_information_is_never_exported() {
    let server = Server::new();
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let (id, tokens) = game_between(&server, json!({"game": "mathable", "seats": ["human", "open"]}), &ann, &bob);
    let mine = seen_by(&server, &id, &tokens[0]);
    // An exchange of the first token of Ann's rack (which only she sees).
    let token = mine["board"]["racks"][0][0].as_u64().unwrap_or_else(|| panic!("Ann's rack: {}", mine["board"]));
    let swap = format!("swap {token}");
    let answer = server.page(
        "POST",
        &format!("/api/games/{id}/moves"),
        None,
        Some(json!({"move": swap, "token": tokens[0], "ply": 0})),
    );
    assert_eq!(answer.status, 200, "{}", answer.text);
    let played = seen_by(&server, &id, &tokens[0])["moves"][0].as_str().unwrap().to_string();
    assert!(played.starts_with("swap"), "the mover sees its exchange: {played}");
    let watcher = state(&server, &id)["moves"][0].clone();
    for name in ["ann", "bob"] {
        let json = export(&server, name, "json");
        assert_eq!(json.status, 200);
        assert_eq!(json.body["games"][0]["moves"][0], watcher, "{}", json.text);
        assert!(!json.text.contains(&played), "the exchanged tokens stay hidden: {}", json.text);
        assert_eq!(body(&export(&server, name, "text")), "", "a game being played is not in the text export");
    }
    resign(&server, &id, &tokens[1]);
    let text = body(&export(&server, "bob", "text")).to_string();
    let saved = saved_texts(&text);
    assert_eq!(saved.len(), 1, "{text}");
    assert!(saved[0].contains(&played), "once over, the game as played: {}", saved[0]);
    let position = saved[0].lines().find_map(|l| l.strip_prefix("position ")).expect("a position line");
    let settings = SaveState::from_json(position.trim()).expect("the deal").settings;
    let record = Record::<Mathable>::from_text(&settings, saved[0]).expect("the record's reader reads it");
    assert_eq!(record.moves().len(), 1);
    assert!(saved[0].contains("# result: ann won: "), "{}", saved[0]);
    assert!(saved[0].contains("# scores: ann "), "{}", saved[0]);
}
