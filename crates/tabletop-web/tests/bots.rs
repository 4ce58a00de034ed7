//! Bot accounts in `tabletop serve` (issue 59, "bots online"): an account becomes a bot, gets an
//! API token (shown once), is challenged by a person, finds the challenge and takes its
//! reserved seat with the token; and the abuse around it: wrong, missing and revoked tokens,
//! a person's account asking for a token, a stranger taking the reserved seat, an account that
//! has played becoming a bot, the token never shown again.
//!
//! Each test runs a server in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`) and talks raw HTTP to it.

mod support;

use serde_json::{json, Value};
use support::{Answer, Server, PASSWORD};

impl Server {
    /// A request with a bot's API token (or anything) in `Authorization: Bearer`, as a script
    /// sends it: no Origin, no cookie.
    fn bearer(&self, method: &str, path: &str, token: &str, body: Option<Value>) -> Answer {
        let body = body.map_or_else(String::new, |b| b.to_string());
        self.raw(method, path, &[format!("Authorization: Bearer {token}")], &body)
    }

    /// Makes `name` a bot account: its login cookie and its API token.
    fn bot(&self, name: &str) -> (String, String) {
        let cookie = self.account(name, PASSWORD);
        let made = self.page("POST", "/api/account/bot", Some(&cookie), Some(json!({})));
        assert_eq!(made.status, 200, "{}", made.text);
        let token = self.page("POST", "/api/account/token", Some(&cookie), Some(json!({})));
        assert_eq!(token.status, 200, "{}", token.text);
        assert_eq!(token.header("cache-control"), Some("no-store"));
        (cookie, token.body["token"].as_str().unwrap().to_string())
    }
}

/// Ann's challenge to `bot` (a rated Connect game with a clock): the creation's answer.
fn challenge(server: &Server, ann: &str, bot: &str) -> Answer {
    let body = json!({"game": "connect", "seats": ["human", "human"], "clock": "5+3", "rated": true, "challenge": bot});
    server.page("POST", "/api/games", Some(ann), Some(body))
}

#[test]
fn a_bot_takes_the_seat_its_challenge_reserves_and_nobody_else_may() {
    let server = Server::new();
    let (_, token) = server.bot("robo");
    assert!(token.starts_with("tbot_") && token.len() == 69, "{token}");
    let me = server.bearer("GET", "/api/account", &token, None);
    assert_eq!((me.status, &me.body["name"], &me.body["bot"]), (200, &json!("robo"), &json!(true)), "{}", me.text);
    let ann = server.account("ann", PASSWORD);
    assert_eq!(server.whoami(&ann).body["bot"], false);
    let created = challenge(&server, &ann, "ROBO"); // names are unique regardless of case
    assert_eq!(created.status, 200, "{}", created.text);
    let id = created.body["id"].as_str().unwrap().to_string();
    assert_eq!(created.body["state"]["players"][1]["reserved_for"], "robo");
    let invites = created.body["invites"].as_array().unwrap();
    let bot_invite = invites.iter().find(|i| i["seat"] == 1).expect("the bot's seat's invitation");
    let invite = bot_invite["path"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_string();

    // The bot finds it.
    let listed = server.bearer("GET", "/api/bot/challenges", &token, None);
    assert_eq!(listed.status, 200, "{}", listed.text);
    let entry = &listed.body["challenges"][0];
    assert_eq!(
        (&entry["id"], &entry["game"], &entry["seat"], &entry["from"], &entry["rated"], &entry["clock"]),
        (&json!(id), &json!("connect"), &json!(1), &json!("ann"), &json!(true), &json!("5+3")),
        "{}",
        listed.text
    );

    // Strangers cannot take the bot's seat: another account, nobody, the invitation's link.
    let eve = server.account("eve", PASSWORD);
    let join = |cookie: Option<&str>| server.page("POST", &format!("/api/games/{id}/join"), cookie, Some(json!({})));
    assert_eq!(join(Some(&eve)).status, 403);
    assert_eq!(join(None).status, 403);
    let claim = server.page("POST", &format!("/api/games/{id}/claim"), Some(&eve), Some(json!({"invite": invite})));
    assert_eq!(claim.status, 403, "{}", claim.text);
    let (_, other_token) = server.bot("otherbot");
    let other = server.bearer("POST", &format!("/api/games/{id}/join"), &other_token, Some(json!({})));
    assert_eq!(other.status, 403, "another bot: {}", other.text);

    // The bot takes it with its token: the seat is its account's, marked as a bot's.
    let joined = server.bearer("POST", &format!("/api/games/{id}/join"), &token, Some(json!({})));
    assert_eq!(joined.status, 200, "{}", joined.text);
    assert_eq!(joined.body["seat"], 1);
    let players = &joined.body["state"]["players"];
    assert_eq!((&players[1]["player"], &players[1]["bot"]), (&json!("robo"), &json!(true)), "{players}");
    assert_eq!((&players[0]["player"], &players[0]["bot"]), (&json!("ann"), &json!(false)), "{players}");
    assert!(players[1]["reserved_for"].is_null());
    assert_eq!(joined.body["state"]["rated"], true);
    // Its seat token plays as anyone's; the challenge is gone from its list.
    let seat_token = joined.body["token"].as_str().unwrap();
    let move_answer = server.page(
        "POST",
        &format!("/api/games/{id}/moves"),
        None,
        Some(json!({"move": "4", "token": created.body["tokens"][0], "ply": 0})),
    );
    assert_eq!(move_answer.status, 200, "{}", move_answer.text);
    let bot_move = server.page(
        "POST",
        &format!("/api/games/{id}/moves"),
        None,
        Some(json!({"move": "4", "token": seat_token, "ply": 1})),
    );
    assert_eq!(bot_move.status, 200, "{}", bot_move.text);
    let listed = server.bearer("GET", "/api/bot/challenges", &token, None);
    assert_eq!(listed.body["challenges"], json!([]), "{}", listed.text);
    // The token was in its creation's answer only.
    for answer in [&me, &listed, &joined, &bot_move, &created] {
        assert!(!answer.text.contains(&token), "{}", answer.text);
    }
    let watched = server.page("GET", &format!("/api/games/{id}"), None, None);
    assert!(!watched.text.contains(&token));
    assert_eq!(watched.body["players"][1]["bot"], true);
}

#[test]
fn wrong_missing_and_revoked_tokens_are_refused() {
    let server = Server::new();
    let (cookie, token) = server.bot("robo");
    let ann = server.account("ann", PASSWORD);
    let created = challenge(&server, &ann, "robo");
    let id = created.body["id"].as_str().unwrap().to_string();
    let zeros = format!("tbot_{}", "0".repeat(64));
    for wrong in [zeros.as_str(), "tbot_short", "garbage"] {
        let answer = server.bearer("GET", "/api/bot/challenges", wrong, None);
        assert_eq!(answer.status, 401, "{wrong}: {}", answer.text);
        assert_eq!(server.bearer("GET", "/api/account", wrong, None).status, 401, "{wrong}");
    }
    // A wrong token is not an anonymous request: the join is refused, not done without it.
    let join = server.bearer("POST", &format!("/api/games/{id}/join"), &zeros, Some(json!({})));
    assert_eq!(join.status, 401, "{}", join.text);
    let missing = server.raw("GET", "/api/bot/challenges", &[], "");
    assert_eq!(missing.status, 401);

    // A new token ends the old one; revoking ends the new one, asked with the token itself.
    let renewed = server.page("POST", "/api/account/token", Some(&cookie), Some(json!({})));
    let new_token = renewed.body["token"].as_str().unwrap().to_string();
    assert_ne!(new_token, token);
    assert_eq!(server.bearer("GET", "/api/bot/challenges", &token, None).status, 401);
    assert_eq!(server.bearer("GET", "/api/bot/challenges", &new_token, None).status, 200);
    let revoked = server.bearer("POST", "/api/account/token/revoke", &new_token, Some(json!({})));
    assert_eq!((revoked.status, &revoked.body["revoked"]), (200, &json!(1)), "{}", revoked.text);
    assert_eq!(server.bearer("GET", "/api/bot/challenges", &new_token, None).status, 401);
    let join = server.bearer("POST", &format!("/api/games/{id}/join"), &new_token, Some(json!({})));
    assert_eq!(join.status, 401, "{}", join.text);
    // An API token is no login: it cannot change the password or delete the account.
    let delete = server.bearer("POST", "/api/account/delete", &token, Some(json!({"password": PASSWORD})));
    assert_eq!(delete.status, 401);
}

#[test]
fn only_a_fresh_account_becomes_a_bot_and_only_a_bot_gets_a_token() {
    let server = Server::new();
    // Not logged in.
    assert_eq!(server.page("POST", "/api/account/bot", None, Some(json!({}))).status, 401);
    assert_eq!(server.page("POST", "/api/account/token", None, Some(json!({}))).status, 401);
    // A person's account gets no token.
    let ann = server.account("ann", PASSWORD);
    let refused = server.page("POST", "/api/account/token", Some(&ann), Some(json!({})));
    assert_eq!(refused.status, 403, "{}", refused.text);
    // An account that has held a seat cannot become a bot.
    let created =
        server.page("POST", "/api/games", Some(&ann), Some(json!({"game": "connect", "seats": ["human", "engine"]})));
    assert_eq!(created.status, 200, "{}", created.text);
    let late = server.page("POST", "/api/account/bot", Some(&ann), Some(json!({})));
    assert_eq!(late.status, 409, "{}", late.text);
    assert_eq!(server.whoami(&ann).body["bot"], false);
    // A challenge names a bot, and needs a seat for it.
    let body = json!({"game": "connect", "seats": ["human", "human"], "challenge": "ann"});
    assert_eq!(server.page("POST", "/api/games", Some(&ann), Some(body)).status, 404);
    server.bot("robo");
    let body = json!({"game": "connect", "seats": ["human", "engine"], "challenge": "robo"});
    assert_eq!(server.page("POST", "/api/games", Some(&ann), Some(body)).status, 400);
    // A cross-site page cannot use the cookie to make a token (the CSRF check).
    let cross = server.raw(
        "POST",
        "/api/account/token",
        &[
            "Origin: http://evil.example".into(),
            "Sec-Fetch-Site: cross-site".into(),
            format!("Cookie: tabletop_session={ann}"),
        ],
        "{}",
    );
    assert_eq!(cross.status, 403);
}

#[test]
fn a_deleted_bot_account_s_token_ends_with_it() {
    let server = Server::new();
    let (cookie, token) = server.bot("robo");
    let deleted = server.page("POST", "/api/account/delete", Some(&cookie), Some(json!({"password": PASSWORD})));
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(server.bearer("GET", "/api/bot/challenges", &token, None).status, 401);
    // Its name is free again, for a person: who gets no token of the old bot's.
    let again = server.account("robo", PASSWORD);
    assert_eq!(server.whoami(&again).body["bot"], false);
    assert_eq!(server.bearer("GET", "/api/account", &token, None).status, 401);
}

/// The quick-pairing pools are for people, as on lichess: a bot's entry is refused, whether it
/// comes with the token or the bot's login cookie, and nothing waits in the pool after.
#[test]
fn a_bot_may_not_enter_the_quick_pairing_pools() {
    let server = Server::new();
    let (cookie, token) = server.bot("robo");
    let casual = json!({"game": "connect", "clock": "5+3", "rated": false});
    let by_token = server.bearer("POST", "/api/pool", &token, Some(casual.clone()));
    assert_eq!(by_token.status, 403, "{}", by_token.text);
    assert!(by_token.text.contains("not the quick-pairing pools"), "{}", by_token.text);
    let by_cookie = server.page(
        "POST",
        "/api/pool",
        Some(&cookie),
        Some(json!({"game": "connect", "clock": "5+3", "rated": true})),
    );
    assert_eq!(by_cookie.status, 403, "{}", by_cookie.text);
    // A person's entry in the same pool is still welcome.
    let ann = server.account("ann", PASSWORD);
    let person = server.page("POST", "/api/pool", Some(&ann), Some(casual));
    assert_eq!((person.status, &person.body["status"]), (200, &json!("waiting")), "{}", person.text);
}

/// A seek made by a bot account is marked in the lobby (`creator.bot`), a person's is not.
#[test]
fn the_lobby_marks_a_bot_s_seek() {
    let server = Server::new();
    let (_, token) = server.bot("robo");
    let seek = json!({"game": "connect", "seats": ["human", "open"], "clock": "5+3"});
    let by_bot = server.bearer("POST", "/api/games", &token, Some(seek.clone()));
    assert_eq!(by_bot.status, 200, "{}", by_bot.text);
    let ann = server.account("ann", PASSWORD);
    let by_ann = server.page("POST", "/api/games", Some(&ann), Some(seek));
    assert_eq!(by_ann.status, 200, "{}", by_ann.text);
    let lobby = server.page("GET", "/api/lobby", None, None);
    let creator = |answer: &Answer| {
        let id = answer.body["id"].as_str().unwrap();
        let games = lobby.body["games"].as_array().unwrap();
        games.iter().find(|g| g["id"] == id).expect("listed in the lobby")["creator"].clone()
    };
    assert_eq!(creator(&by_bot)["name"], "robo");
    assert_eq!(creator(&by_bot)["bot"], true);
    assert_eq!((creator(&by_ann)["name"].clone(), creator(&by_ann)["bot"].clone()), (json!("ann"), json!(false)));
}
