//! Accounts in `tabletop serve` (issue 59, first layer): sign up, log in, who am I, log out,
//! change the password, delete the account, and their defences: one answer for a wrong
//! password and an unknown name (the dummy verify taken, not a timing), the login and sign-up
//! limits, the cookie's flags, cookies refused from another origin, no session fixation, other
//! sessions ended, bad input refused with a clear 4xx.
//!
//! Each test runs a server in this process on a throw-away database (SQLite, or PostgreSQL with
//! `TABLETOP_TEST_BACKEND=postgres`, the second pass of `scripts/test`) and talks raw HTTP to
//! it, so that headers (cookies, Origin, Sec-Fetch-Site) are exactly what the test says.

mod support;

use serde_json::{json, Value};
use support::{on_postgres, pg, Answer, Server, PASSWORD};
use tabletop_web::ServeConfig;

#[test]
fn sign_up_log_in_who_am_i_and_log_out() {
    let server = Server::new();
    let anonymous = server.page("GET", "/api/account", None, None);
    assert_eq!(anonymous.status, 401, "{}", anonymous.text);
    assert_eq!(anonymous.body["error"], "not logged in");

    let signed = server.signup("Ann_1", PASSWORD);
    assert_eq!(signed.status, 200, "{}", signed.text);
    assert_eq!(signed.body["name"], "Ann_1");
    let first = signed.cookie().expect("signing up logs in");
    assert_eq!(first.len(), 64, "a 256-bit token in hex");
    assert_eq!(server.whoami(&first).body["name"], "Ann_1");

    // Names are unique regardless of case; the login finds the account in any case.
    let taken = server.signup("ann_1", "another password");
    assert_eq!(taken.status, 409, "{}", taken.text);
    assert!(taken.cookie().is_none());
    let logged = server.login("ANN_1", PASSWORD);
    assert_eq!(logged.status, 200, "{}", logged.text);
    assert_eq!(logged.body["name"], "Ann_1", "shown as typed at sign-up");
    let second = logged.cookie().unwrap();
    assert_ne!(second, first);
    let me = server.whoami(&second);
    assert_eq!(me.status, 200);
    assert_eq!(me.body["name"], "Ann_1");
    assert_eq!(me.header("cache-control"), Some("no-store"));

    // Logging out ends that session only, and clears the cookie.
    let out = server.page("POST", "/api/account/logout", Some(&second), Some(json!({})));
    assert_eq!(out.status, 200, "{}", out.text);
    assert_eq!(out.cookie().as_deref(), Some(""));
    assert!(out.header("set-cookie").unwrap().contains("Max-Age=0"));
    assert_eq!(server.whoami(&second).status, 401);
    assert_eq!(server.whoami(&first).status, 200, "the other login goes on");

    // Anonymous play is unchanged, with or without a login.
    for token in [None, Some(first.as_str())] {
        let game =
            server.page("POST", "/api/games", token, Some(json!({"game": "connect", "seats": ["human", "human"]})));
        assert_eq!(game.status, 200, "{}", game.text);
    }
}

#[test]
fn wrong_password_and_unknown_name_get_one_answer_after_the_same_work() {
    let server = Server::new();
    server.account("bob", PASSWORD);
    let (real_before, dummy_before) = server.state.passwords.checks();
    let wrong = server.login("bob", "not the password");
    let (real_after, dummy_after) = server.state.passwords.checks();
    assert_eq!((real_after - real_before, dummy_after - dummy_before), (1, 0), "a real verify for a known name");
    let unknown = server.login("nobody", "not the password");
    let (real_last, dummy_last) = server.state.passwords.checks();
    assert_eq!((real_last - real_after, dummy_last - dummy_after), (0, 1), "the dummy verify for an unknown name");

    assert_eq!(wrong.status, 401);
    assert_eq!((wrong.status, &wrong.body), (unknown.status, &unknown.body));
    assert_eq!(wrong.body["error"], "wrong name or password");
    assert!(wrong.header("set-cookie").is_none() && unknown.header("set-cookie").is_none());
    // A name no sign-up could make is just as unknown.
    let odd = server.login("no such name!", "not the password");
    assert_eq!((odd.status, &odd.body), (unknown.status, &unknown.body));
}

#[test]
fn failed_logins_are_limited_per_account_and_per_address() {
    let server = Server::with(|c| c.login_failures_per_account = 3);
    server.account("carol", PASSWORD);
    for _ in 0..3 {
        assert_eq!(server.login("carol", "wrong password").status, 401);
    }
    let limited = server.login("carol", PASSWORD);
    assert_eq!(limited.status, 429, "even the right password waits: {}", limited.text);
    assert!(limited.header("retry-after").and_then(|v| v.parse::<u64>().ok()).is_some_and(|s| s >= 1));
    // The same for a name with no account (no enumeration by the limit either).
    for _ in 0..3 {
        assert_eq!(server.login("ghost", "wrong password").status, 401);
    }
    let ghost = server.login("ghost", "wrong password");
    assert_eq!(ghost.status, 429);
    assert_eq!(
        ghost.body["error"].as_str().unwrap().split(';').next(),
        limited.body["error"].as_str().unwrap().split(';').next()
    );
    // Other names are not held up by it.
    server.account("dave", PASSWORD);
    assert_eq!(server.login("dave", PASSWORD).status, 200);

    // Per address: failures on many names add up.
    let server = Server::with(|c| c.login_failures_per_address = 4);
    server.account("erin", PASSWORD);
    for n in 0..4 {
        assert_eq!(server.login(&format!("name{n}"), "wrong password").status, 401);
    }
    let limited = server.login("erin", PASSWORD);
    assert_eq!(limited.status, 429, "{}", limited.text);
    assert!(limited.body["error"].as_str().unwrap().contains("address"));

    // Sign-ups per address.
    let server = Server::with(|c| c.signups_per_address = 2);
    server.account("fay", PASSWORD);
    assert_eq!(server.signup("fay", PASSWORD).status, 409, "a taken name counts too");
    assert_eq!(server.signup("gus", PASSWORD).status, 429);
}

#[test]
fn a_successful_login_takes_its_attempt_back() {
    let server = Server::with(|c| {
        c.login_failures_per_account = 2;
        c.login_failures_per_address = 3;
    });
    server.account("hal", PASSWORD);
    for _ in 0..5 {
        assert_eq!(server.login("hal", PASSWORD).status, 200, "successes are not failures");
    }
    assert_eq!(server.login("hal", "wrong password").status, 401);
    assert_eq!(server.login("hal", PASSWORD).status, 200, "a success forgets the name's failures");
    assert_eq!(server.login("hal", "wrong password").status, 401);
    assert_eq!(server.login("hal", "wrong password").status, 401);
    let limited = server.login("hal", PASSWORD);
    assert_eq!(limited.status, 429, "{}", limited.text);
    assert!(limited.body["error"].as_str().unwrap().contains("name"), "{}", limited.text);
    // The address counted three failures, none of the six successes: it is at its limit now.
    let other = server.login("someone", "wrong password");
    assert_eq!(other.status, 429, "{}", other.text);
    assert!(other.body["error"].as_str().unwrap().contains("address"), "{}", other.text);
}

#[test]
fn the_cookie_is_http_only_same_site_and_secure_behind_tls() {
    let server = Server::new();
    let answer = server.signup("ivy", PASSWORD);
    let cookie = answer.header("set-cookie").unwrap().to_string();
    assert!(cookie.starts_with("tabletop_session="), "{cookie}");
    for flag in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=2592000"] {
        assert!(cookie.split("; ").any(|part| part == flag), "{flag} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain HTTP: {cookie}");
    assert!(!cookie.contains("Domain"), "{cookie}");

    for secure in [
        Box::new(|c: &mut ServeConfig| c.secure_cookies = true) as Box<dyn FnOnce(&mut ServeConfig)>,
        Box::new(|c: &mut ServeConfig| c.public_url = Some("https://games.example.org".into())),
    ] {
        let server = Server::with(secure);
        let answer = server.signup("ivy", PASSWORD);
        assert_eq!(answer.status, 200, "{}", answer.text);
        let cookie = answer.header("set-cookie").unwrap().to_string();
        assert!(cookie.starts_with("__Host-tabletop_session="), "{cookie}");
        assert!(cookie.split("; ").any(|part| part == "Secure"), "{cookie}");
        let token = answer.cookie().unwrap();
        let me = server.raw("GET", "/api/account", &[format!("Cookie: __Host-tabletop_session={token}")], "");
        assert_eq!(me.body["name"], "ivy", "{}", me.text);
    }
}

#[test]
fn cookie_requests_from_another_origin_are_refused() {
    let server = Server::new();
    let token = server.account("jay", PASSWORD);
    let cookie = format!("Cookie: tabletop_session={token}");
    let body = json!({"password": PASSWORD, "new_password": "a new password"}).to_string();
    let refused = |answer: Answer| {
        assert_eq!(answer.status, 403, "{}", answer.text);
    };
    // Another site's page, by Origin or by Sec-Fetch-Site.
    refused(server.raw(
        "POST",
        "/api/account/password",
        &[cookie.clone(), "Origin: https://evil.example".into()],
        &body,
    ));
    refused(server.raw("POST", "/api/account/password", &[cookie.clone(), "Sec-Fetch-Site: cross-site".into()], &body));
    refused(server.raw(
        "POST",
        "/api/account/password",
        &[cookie.clone(), "Sec-Fetch-Site: same-site".into(), format!("Origin: http://{}", server.addr)],
        &body,
    ));
    // A cookie with neither header: refused (the browser says where it comes from).
    refused(server.raw("POST", "/api/account/password", std::slice::from_ref(&cookie), &body));
    refused(server.raw(
        "POST",
        "/api/account/delete",
        std::slice::from_ref(&cookie),
        &json!({"password": PASSWORD}).to_string(),
    ));
    refused(server.raw("POST", "/api/account/logout", std::slice::from_ref(&cookie), "{}"));
    // Any state-changing request carrying the cookie, a game's too.
    refused(server.raw(
        "POST",
        "/api/games",
        &[cookie.clone(), "Origin: https://evil.example".into()],
        &json!({"game": "connect"}).to_string(),
    ));
    assert_eq!(server.whoami(&token).status, 200, "nothing was changed");
    assert_eq!(server.login("jay", PASSWORD).status, 200, "the password is unchanged");

    // The same-origin page passes, by Sec-Fetch-Site alone or by Origin alone.
    let by_fetch =
        server.raw("POST", "/api/account/password", &[cookie.clone(), "Sec-Fetch-Site: same-origin".into()], &body);
    assert_eq!(by_fetch.status, 200, "{}", by_fetch.text);
    let back = json!({"password": "a new password", "new_password": PASSWORD}).to_string();
    let by_origin =
        server.raw("POST", "/api/account/password", &[cookie, format!("Origin: http://{}", server.addr)], &back);
    assert_eq!(by_origin.status, 200, "{}", by_origin.text);
    // Without a cookie nothing changes for scripts: a game made with no Origin at all.
    let script =
        server.raw("POST", "/api/games", &[], &json!({"game": "connect", "seats": ["human", "human"]}).to_string());
    assert_eq!(script.status, 200, "{}", script.text);
}

#[test]
fn a_session_from_before_login_is_never_the_one_after() {
    let server = Server::new();
    server.account("kim", PASSWORD);
    // A token chosen by an attacker and planted before the login.
    let planted = "ab".repeat(32);
    let logged =
        server.page("POST", "/api/account/login", Some(&planted), Some(json!({"name": "kim", "password": PASSWORD})));
    assert_eq!(logged.status, 200, "{}", logged.text);
    let fresh = logged.cookie().unwrap();
    assert_ne!(fresh, planted);
    assert_eq!(server.whoami(&planted).status, 401, "the planted token logs nobody in");
    assert_eq!(server.whoami(&fresh).status, 200);

    // A real session held before a login (another account's) ends at the login.
    let other = server.account("lee", PASSWORD);
    let relog =
        server.page("POST", "/api/account/login", Some(&other), Some(json!({"name": "kim", "password": PASSWORD})));
    assert_eq!(relog.status, 200);
    assert_ne!(relog.cookie().unwrap(), other);
    assert_eq!(server.whoami(&other).status, 401, "the session from before the login ended");
}

#[test]
fn a_password_change_ends_the_other_sessions() {
    let server = Server::new();
    let phone = server.account("max", PASSWORD);
    let laptop = server.login("max", PASSWORD).cookie().unwrap();
    let tablet = server.login("max", PASSWORD).cookie().unwrap();

    let wrong = server.page(
        "POST",
        "/api/account/password",
        Some(&laptop),
        Some(json!({"password": "not the password", "new_password": "a new password"})),
    );
    assert_eq!(wrong.status, 403, "{}", wrong.text);
    let short = server.page(
        "POST",
        "/api/account/password",
        Some(&laptop),
        Some(json!({"password": PASSWORD, "new_password": "short"})),
    );
    assert_eq!(short.status, 400, "{}", short.text);
    let changed = server.page(
        "POST",
        "/api/account/password",
        Some(&laptop),
        Some(json!({"password": PASSWORD, "new_password": "a new password"})),
    );
    assert_eq!(changed.status, 200, "{}", changed.text);
    assert_eq!(changed.body["other_sessions_ended"], 2);
    assert_eq!(server.whoami(&laptop).status, 200, "the session that changed it goes on");
    assert_eq!(server.whoami(&phone).status, 401);
    assert_eq!(server.whoami(&tablet).status, 401);
    assert_eq!(server.login("max", PASSWORD).status, 401);
    assert_eq!(server.login("max", "a new password").status, 200);
    // Without a login: 401.
    let anonymous = server.page(
        "POST",
        "/api/account/password",
        None,
        Some(json!({"password": "a new password", "new_password": PASSWORD})),
    );
    assert_eq!(anonymous.status, 401);
}

#[test]
fn a_deleted_account_cannot_log_in_and_its_name_is_free() {
    let server = Server::new();
    let token = server.account("ned", PASSWORD);
    let elsewhere = server.login("ned", PASSWORD).cookie().unwrap();
    let game =
        server.page("POST", "/api/games", Some(&token), Some(json!({"game": "connect", "seats": ["human", "human"]})));
    assert_eq!(game.status, 200);
    let id = game.body["id"].as_str().unwrap().to_string();

    let wrong = server.page("POST", "/api/account/delete", Some(&token), Some(json!({"password": "not the password"})));
    assert_eq!(wrong.status, 403);
    let deleted = server.page("POST", "/api/account/delete", Some(&token), Some(json!({"password": PASSWORD})));
    assert_eq!(deleted.status, 200, "{}", deleted.text);
    assert_eq!(deleted.cookie().as_deref(), Some(""));
    assert_eq!(server.whoami(&token).status, 401);
    assert_eq!(server.whoami(&elsewhere).status, 401, "every session ended");
    let login = server.login("ned", PASSWORD);
    let unknown = server.login("never-was", PASSWORD);
    assert_eq!((login.status, &login.body), (unknown.status, &unknown.body), "as if it never was");
    // The game made while logged in stays.
    assert_eq!(server.page("GET", &format!("/api/games/{id}"), None, None).status, 200);
    // The name is free again, in any case.
    let again = server.signup("NED", "another password");
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(server.login("ned", "another password").body["name"], "NED");
}

#[test]
fn bad_input_gets_a_clear_4xx() {
    let server = Server::new();
    let huge = "x".repeat(10_000);
    let cases: Vec<(&str, String, u16)> = vec![
        ("/api/account/signup", json!({"name": huge, "password": PASSWORD}).to_string(), 400),
        ("/api/account/signup", json!({"name": "oli", "password": huge}).to_string(), 400),
        ("/api/account/signup", json!({"name": "", "password": ""}).to_string(), 400),
        ("/api/account/signup", json!({"name": "oli", "password": "short"}).to_string(), 400),
        ("/api/account/signup", json!({"name": "o l i", "password": PASSWORD}).to_string(), 400),
        ("/api/account/signup", json!({"name": "oli"}).to_string(), 400),
        ("/api/account/signup", json!({"name": 7, "password": PASSWORD}).to_string(), 400),
        ("/api/account/signup", json!({"name": "oli", "password": PASSWORD, "admin": true}).to_string(), 400),
        ("/api/account/signup", "{not json".to_string(), 400),
        ("/api/account/signup", "x".repeat(20_000), 413),
        ("/api/account/login", json!({"name": huge, "password": PASSWORD}).to_string(), 400),
        ("/api/account/login", json!({"name": "oli", "password": huge}).to_string(), 400),
        ("/api/account/login", "[]".to_string(), 400),
        ("/api/account/logout", json!({"extra": 1}).to_string(), 400),
        ("/api/account/password", json!({}).to_string(), 400),
    ];
    for (path, body, status) in cases {
        let answer = server.raw("POST", path, &[], &body);
        assert_eq!(answer.status, status, "{path} {}: {}", &body[..body.len().min(60)], answer.text);
        let error = answer.body["error"].as_str().unwrap_or_else(|| panic!("a JSON error: {}", answer.text));
        assert!(!error.contains(&"x".repeat(100)), "the input is not echoed: {error}");
    }
    // A cookie that is not one of ours is no login.
    for token in ["", "nonsense", &"zz".repeat(32), &huge[..2000]] {
        assert_eq!(server.raw("GET", "/api/account", &[format!("Cookie: tabletop_session={token}")], "").status, 401);
    }
    let wrong_method = server.raw("DELETE", "/api/account", &[], "");
    assert_eq!(wrong_method.status, 405);
    // The server still answers.
    server.account("oli", PASSWORD);
}

/// A database made before accounts (schema step 6) upgrades (steps 7 and 8): its games stay,
/// casual and anonymous, and accounts work.
#[test]
fn an_older_database_gains_accounts() {
    if on_postgres() {
        eprintln!("about SQLite's file; the PostgreSQL steps run from empty in every test");
        return;
    }
    let server = Server::new();
    let game = server.page("POST", "/api/games", None, Some(json!({"game": "connect", "seats": ["human", "human"]})));
    let id = game.body["id"].as_str().unwrap().to_string();
    let db = server.state.config.db.clone();
    drop(server);
    {
        // Back to step 6: as a database of the previous release.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "DROP TABLE accounts; DROP TABLE account_sessions; DROP TABLE account_attempts;
             DROP TABLE game_players; DROP TABLE ratings; DROP TABLE rating_changes; ALTER TABLE games DROP COLUMN rated;
             DROP TABLE pool_entries; ALTER TABLE games DROP COLUMN rating_range;
             DROP TABLE api_tokens; DROP TABLE challenges; DROP TABLE rate_limits;
             PRAGMA user_version = 6;",
        )
        .unwrap();
    }
    let server = Server::with(|c| c.db = db.clone());
    let old = server.page("GET", &format!("/api/games/{id}"), None, None);
    assert_eq!(old.status, 200);
    assert_eq!(old.body["rated"], false);
    assert_eq!(old.body["players"][0]["player"], Value::Null);
    let token = server.account("pat", PASSWORD);
    assert_eq!(server.whoami(&token).body["name"], "pat");
}

/// Two processes on one database (here two servers in this process, each with its own
/// connections) count one name's failures together, and attempts made at once never pass the
/// limit together: the check and the count are one transaction.
#[test]
fn login_limits_hold_across_processes_and_under_concurrent_attempts() {
    let one = Server::with(|c| c.login_failures_per_account = 3);
    let db = one.state.config.db.clone();
    let two = Server::with(|c| {
        c.login_failures_per_account = 3;
        c.db = db.clone();
    });
    one.account("quinn", PASSWORD);
    assert_eq!(one.login("quinn", "wrong password").status, 401);
    assert_eq!(two.login("quinn", "wrong password").status, 401);
    assert_eq!(one.login("quinn", "wrong password").status, 401);
    assert_eq!(two.login("quinn", PASSWORD).status, 429, "the other process counted them");
    assert_eq!(one.login("quinn", PASSWORD).status, 429);

    // Ten wrong logins at once, half on each server: exactly three are tried.
    one.account("rosa", PASSWORD);
    let servers = [&one, &two];
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..10)
            .map(|n| {
                let server = servers[n % 2];
                scope.spawn(move || server.login("rosa", "wrong password").status)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|s| **s == 401).count(), 3, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 7, "{statuses:?}");
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

/// A login past its expiry is no login, and expired sessions are forgotten at the next login;
/// the database holds only tokens' hashes.
#[test]
fn an_expired_login_is_no_login_and_tokens_are_stored_hashed() {
    let server = Server::new();
    let old = server.account("sam", PASSWORD);
    let current = server.login("sam", PASSWORD).cookie().unwrap();
    if !on_postgres() {
        let conn = rusqlite::Connection::open(&server.state.config.db).unwrap();
        let hashes: Vec<String> = conn
            .prepare("SELECT token_hash FROM account_sessions")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(hashes.len(), 2);
        for token in [&old, &current] {
            assert!(!hashes.contains(token), "no token in clear");
            assert!(hashes.contains(&tabletop_web::store::hash_token(token)));
        }
        let password: String = conn.query_row("SELECT password FROM accounts", [], |r| r.get(0)).unwrap();
        assert!(password.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{password}");
    }
    // The first login's session expires (its expiry set in the past, as time would).
    sql(
        &server,
        &format!(
            "UPDATE account_sessions SET expires = 0 WHERE token_hash = '{}'",
            tabletop_web::store::hash_token(&old)
        ),
    );
    assert_eq!(server.whoami(&old).status, 401);
    assert_eq!(server.whoami(&current).status, 200);
    assert_eq!(server.login("sam", PASSWORD).status, 200);
    if !on_postgres() {
        let conn = rusqlite::Connection::open(&server.state.config.db).unwrap();
        let expired: i64 =
            conn.query_row("SELECT COUNT(*) FROM account_sessions WHERE expires = 0", [], |r| r.get(0)).unwrap();
        assert_eq!(expired, 0, "forgotten at the next login");
    }
}
