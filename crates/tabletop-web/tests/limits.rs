//! The shared limits of `tabletop serve` (issue 59): moves, games started, proposals and seeks
//! are counted by account where there is one and by address where not, in the database, so
//! that a new game brings no new allowance and two processes on one database share one.
//!
//! Each test runs servers in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`). The rates are set to one action a minute after the burst,
//! so that nothing refills while a test runs and every count is exact (a test would have to take
//! a minute between two requests to see one more).

mod support;

use serde_json::{json, Value};
use support::{Answer, Server, PASSWORD};

/// A request from the client address `from` (the servers here trust `X-Forwarded-For`), with the
/// login cookie `login` if given, as the page sends it.
fn from(server: &Server, from: &str, method: &str, path: &str, login: Option<&str>, body: Value) -> Answer {
    let mut extra = vec![
        format!("X-Forwarded-For: {from}"),
        format!("Origin: http://{}", server.addr),
        "Sec-Fetch-Site: same-origin".to_string(),
    ];
    if let Some(login) = login {
        extra.push(format!("Cookie: tabletop_session={login}"));
    }
    server.raw(method, path, &extra, &body.to_string())
}

/// A game of Connect Four between two people's seats made by `client`: its id and both tokens.
fn two_seats(server: &Server, client: &str) -> (String, [String; 2]) {
    let made =
        from(server, client, "POST", "/api/games", None, json!({"game": "connect", "seats": ["human", "human"]}));
    assert_eq!(made.status, 200, "{}", made.text);
    let id = made.body["id"].as_str().unwrap().to_string();
    (id, [0, 1].map(|s| made.body["tokens"][s].as_str().unwrap().to_string()))
}

/// The game's state as a watcher sees it.
fn state(server: &Server, id: &str) -> Value {
    let answer = server.raw("GET", &format!("/api/games/{id}"), &[], "");
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

/// A legal move by whoever is to move, sent from `client` with that seat's token (of `tokens`).
fn next_move(server: &Server, client: &str, id: &str, tokens: &[String; 2]) -> Answer {
    let now = state(server, id);
    let seat = now["status"]["to_move"].as_u64().expect("someone is to move") as usize;
    let ply = now["moves"].as_array().map_or(0, Vec::len);
    let legal = now["legal"].as_array().unwrap();
    let mv = legal[ply % legal.len()].clone();
    from(server, client, "POST", &format!("/api/games/{id}/moves"), None, json!({"move": mv, "token": tokens[seat]}))
}

fn retry_after(answer: &Answer) -> u64 {
    answer.header("retry-after").and_then(|v| v.parse().ok()).expect("a Retry-After header")
}

/// A server behind a proxy (`X-Forwarded-For` names the client) with `change` made.
fn proxied(change: impl FnOnce(&mut tabletop_web::ServeConfig)) -> Server {
    Server::with(|config| {
        config.behind_proxy = true;
        change(config);
    })
}

/// The pattern that made a server play 1,011 moves a second: one client holds both seats of
/// new game after new game and moves as fast as it can. Its burst is spent across the games
/// (each new game brings nothing new), then every move is refused with 429 and Retry-After.
#[test]
fn one_client_holding_both_seats_of_new_games_is_held_back_after_the_burst() {
    let server = proxied(|c| {
        c.move_rate = 1;
        c.move_burst = 10;
    });
    let client = "203.0.113.7";
    let mut accepted = 0;
    let mut refused = None;
    // Two moves a game, then a new game: at most 30 moves are tried.
    'games: for _ in 0..15 {
        let (id, tokens) = two_seats(&server, client);
        for _ in 0..2 {
            let answer = next_move(&server, client, &id, &tokens);
            match answer.status {
                200 => accepted += 1,
                429 => {
                    refused = Some(answer);
                    break 'games;
                }
                other => panic!("move answered {other}: {}", answer.text),
            }
        }
    }
    let refused = refused.expect("the moves are refused once the burst is spent");
    assert_eq!(accepted, 10, "one burst across every game");
    assert!(refused.body["error"].as_str().unwrap().contains("faster"), "{}", refused.text);
    assert!(refused.body["error"].as_str().unwrap().contains("across all games"), "{}", refused.text);
    // One a minute: the next move is about a minute away.
    assert!((30..=60).contains(&retry_after(&refused)), "{}", retry_after(&refused));
    // A brand-new game is refused too, and so is the other seat.
    let (id, tokens) = two_seats(&server, client);
    assert_eq!(next_move(&server, client, &id, &tokens).status, 429);
    assert_eq!(state(&server, &id)["moves"], json!([]), "the refused move was not played");
}

/// Two anonymous clients (two addresses) are counted apart: one spending its burst holds back
/// only itself.
#[test]
fn two_anonymous_addresses_are_counted_apart() {
    let server = proxied(|c| {
        c.move_rate = 1;
        c.move_burst = 3;
    });
    let (first, first_tokens) = two_seats(&server, "198.51.100.1");
    for _ in 0..3 {
        assert_eq!(next_move(&server, "198.51.100.1", &first, &first_tokens).status, 200);
    }
    assert_eq!(next_move(&server, "198.51.100.1", &first, &first_tokens).status, 429);
    let (second, second_tokens) = two_seats(&server, "198.51.100.2");
    for _ in 0..3 {
        let answer = next_move(&server, "198.51.100.2", &second, &second_tokens);
        assert_eq!(answer.status, 200, "{}", answer.text);
    }
    assert_eq!(next_move(&server, "198.51.100.2", &second, &second_tokens).status, 429);
    // The first game's seats, played from the second address, are that address's moves now:
    // refused as well (anonymous seats are counted by where the move comes from).
    assert_eq!(next_move(&server, "198.51.100.2", &first, &first_tokens).status, 429);
}

/// A seat linked to an account is counted by the account wherever it moves from: changing
/// address brings no new allowance, and the address's own anonymous games are not held back by
/// the account's moves.
#[test]
fn an_accounts_allowance_follows_it_across_addresses() {
    let server = proxied(|c| {
        c.move_rate = 1;
        c.move_burst = 3;
    });
    let ann = server.account("ann", PASSWORD);
    let bob = server.account("bob", PASSWORD);
    let made = from(
        &server,
        "192.0.2.1",
        "POST",
        "/api/games",
        Some(&ann),
        json!({"game": "connect", "seats": ["human", "open"], "clock": "10+5"}),
    );
    assert_eq!(made.status, 200, "{}", made.text);
    let id = made.body["id"].as_str().unwrap().to_string();
    let ann_token = made.body["tokens"][0].as_str().unwrap().to_string();
    let joined = from(&server, "192.0.2.50", "POST", &format!("/api/games/{id}/join"), Some(&bob), json!({}));
    assert_eq!(joined.status, 200, "{}", joined.text);
    let bob_token = joined.body["token"].as_str().unwrap().to_string();
    let tokens = [ann_token, bob_token];
    // Ann moves from three addresses, Bob from one: three moves each.
    for round in 0..3 {
        let ann_from = format!("192.0.2.{}", round + 1);
        let answer = next_move(&server, &ann_from, &id, &tokens);
        assert_eq!(answer.status, 200, "Ann's move {round}: {}", answer.text);
        let answer = next_move(&server, "192.0.2.50", &id, &tokens);
        assert_eq!(answer.status, 200, "Bob's move {round}: {}", answer.text);
    }
    let refused = next_move(&server, "192.0.2.99", &id, &tokens);
    assert_eq!(refused.status, 429, "a new address is still Ann: {}", refused.text);
    assert!(refused.body["error"].as_str().unwrap().contains("one account"), "{}", refused.text);
    assert!(retry_after(&refused) >= 1);
    // Anonymous play from an address Ann used has its own allowance.
    let (other, other_tokens) = two_seats(&server, "192.0.2.1");
    assert_eq!(next_move(&server, "192.0.2.1", &other, &other_tokens).status, 200);
}

/// Games started (created, joined) are counted by account, else by address; seeks (open games)
/// have their own limit; proposals are counted across games.
#[test]
fn starting_games_seeking_and_proposing_are_limited_by_account_or_address() {
    // 6 games a minute: one at once. 2 seeks a minute: one at once.
    let server = proxied(|c| {
        c.create_rate = 6;
        c.seek_rate = 2;
        c.proposal_rate = 1;
    });
    let ann = server.account("ann", PASSWORD);
    let closed = json!({"game": "connect", "seats": ["human", "human"]});
    let made = from(&server, "192.0.2.1", "POST", "/api/games", Some(&ann), closed.clone());
    assert_eq!(made.status, 200, "{}", made.text);
    let again = from(&server, "192.0.2.2", "POST", "/api/games", Some(&ann), closed.clone());
    assert_eq!(again.status, 429, "the account's allowance, from another address: {}", again.text);
    assert!(again.body["error"].as_str().unwrap().contains("too many games started"), "{}", again.text);
    assert!(retry_after(&again) >= 1);
    // Anonymous, from that other address: its own allowance, once.
    assert_eq!(from(&server, "192.0.2.2", "POST", "/api/games", None, closed.clone()).status, 200);
    assert_eq!(from(&server, "192.0.2.2", "POST", "/api/games", None, closed.clone()).status, 429);
    // Joining starts a game too.
    let open = json!({"game": "connect", "seats": ["human", "open"]});
    let seek = from(&server, "192.0.2.3", "POST", "/api/games", None, open.clone());
    assert_eq!(seek.status, 200, "{}", seek.text);
    let id = seek.body["id"].as_str().unwrap();
    assert_eq!(from(&server, "192.0.2.1", "POST", &format!("/api/games/{id}/join"), Some(&ann), json!({})).status, 429);
    // A second seek from the same address is one too many (the game cap is not reached).
    let server = proxied(|c| c.seek_rate = 2);
    assert_eq!(from(&server, "192.0.2.3", "POST", "/api/games", None, open.clone()).status, 200);
    let second = from(&server, "192.0.2.3", "POST", "/api/games", None, open.clone());
    assert_eq!(second.status, 429, "{}", second.text);
    assert!(second.body["error"].as_str().unwrap().contains("seeks"), "{}", second.text);
    assert_eq!(from(&server, "192.0.2.3", "POST", "/api/games", None, closed.clone()).status, 200, "not a seek");

    // Proposals: three at once, then one a minute, across games.
    let server = proxied(|c| c.proposal_rate = 1);
    let client = "192.0.2.9";
    let mut statuses = Vec::new();
    for _ in 0..2 {
        let (id, tokens) = two_seats(&server, client);
        assert_eq!(next_move(&server, client, &id, &tokens).status, 200);
        for _ in 0..2 {
            let asked =
                from(&server, client, "POST", &format!("/api/games/{id}/undo"), None, json!({"token": tokens[0]}));
            statuses.push(asked.status);
            if asked.status == 200 {
                let no = json!({"token": tokens[1], "accept": false});
                let declined = from(&server, client, "POST", &format!("/api/games/{id}/proposal"), None, no);
                assert_eq!(declined.status, 200, "{}", declined.text);
            }
        }
    }
    assert_eq!(statuses, [200, 200, 200, 429], "a new game brings no new proposals");
}

/// Two server processes on one database share each allowance: a client moving in games on
/// both gets one burst in all, not one per process.
#[test]
fn two_processes_on_one_database_share_the_allowance() {
    let db: std::path::PathBuf = if support::on_postgres() {
        support::pg::fresh_database().into()
    } else {
        let dir = std::env::temp_dir().join(format!("tabletop-limits-{}", tabletop_web::live::random_hex()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("games.db")
    };
    let servers = [0, 1].map(|_| {
        let db = db.clone();
        proxied(move |c| {
            c.db = db;
            c.move_rate = 1;
            c.move_burst = 6;
        })
    });
    let client = "203.0.113.40";
    let games: Vec<_> = servers.iter().map(|server| two_seats(server, client)).collect();
    let mut accepted = [0, 0];
    let mut refused = [0, 0];
    for round in 0..8 {
        for (n, server) in servers.iter().enumerate() {
            let (id, tokens) = &games[n];
            match next_move(server, client, id, tokens).status {
                200 => accepted[n] += 1,
                429 => refused[n] += 1,
                other => panic!("round {round}, server {n}: {other}"),
            }
        }
    }
    assert_eq!(accepted[0] + accepted[1], 6, "one allowance in all: {accepted:?}");
    assert_eq!(refused[0] + refused[1], 10, "{refused:?}");
    assert!(accepted[0] > 0 && accepted[1] > 0, "both processes took moves: {accepted:?}");
}
