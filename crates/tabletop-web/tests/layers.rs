//! The web crate's layering, checked on its source text: `src/server.rs` routes, extracts and
//! maps errors, and never drives a game (the rule at the top of server.rs). The game flow is
//! `src/service`'s, over `src/live`.
//!
//! What counts as touching a game, in server.rs outside comments and string literals:
//! - naming the library (`tabletop::`);
//! - naming a session or a game in memory: the identifiers `Session`, `SessionFactory`,
//!   `session`, `sessions`, `new_session`, `boxed_clone`, `LiveGame`, `seated`, `schedule`,
//!   `schedule_for`;
//! - calling a method of the library's `Session` or `SessionFactory` traits (`.play(`,
//!   `.view(`, `.check_move(`, ...: every method the traits declare, read from
//!   `crates/tabletop/src/session.rs`, so a method added there is covered too), or locking a
//!   game (`.lock(`).
//!
//! And each handler (an `async fn` of server.rs) calls into `service::` at most once.

use std::path::Path;

/// Identifiers server.rs never names.
const FORBIDDEN_NAMES: &[&str] = &[
    "Session",
    "SessionFactory",
    "session",
    "sessions",
    "new_session",
    "boxed_clone",
    "LiveGame",
    "seated",
    "schedule",
    "schedule_for",
];

/// Methods server.rs never calls besides the session's: locking a game in memory.
const FORBIDDEN_METHODS: &[&str] = &["lock"];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn crate_file(relative: &str) -> String {
    read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(relative))
}

/// `source` with its comments and the contents of its string and character literals blanked
/// (newlines kept, so line numbers stay): what is left is code.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars[..i].last().is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"...", r#"..."#.
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            out.push('r');
            i += 2 + hashes;
            out.push_str(&"#".repeat(hashes));
            out.push('"');
            let end: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while i < chars.len() && !chars[i..].iter().collect::<String>().starts_with(&end) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.push_str(&end);
            i += end.chars().count();
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\''
            && (chars.get(i + 2) == Some(&'\'') || (next == Some('\\') && chars.get(i + 3) == Some(&'\'')))
        {
            // A character literal ('x' or '\x'); a lifetime has no closing quote.
            let length = if next == Some('\\') { 4 } else { 3 };
            out.push_str("' '");
            out.push_str(&" ".repeat(length - 3));
            i += length;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The methods the library's `Session` and `SessionFactory` traits declare.
fn session_methods() -> Vec<String> {
    let library = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tabletop/src/session.rs"));
    let mut methods = Vec::new();
    for name in ["pub trait Session ", "pub trait Session:", "pub trait SessionFactory"] {
        let Some(start) = library.find(name) else { continue };
        let body = &library[start..];
        let end = body.find("\n}").unwrap_or(body.len());
        for line in body[..end].lines() {
            if let Some(rest) = line.trim_start().strip_prefix("fn ") {
                let method: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !methods.contains(&method) {
                    methods.push(method);
                }
            }
        }
    }
    methods
}

/// The identifiers of `code` with their line numbers (1-based).
fn identifiers(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let mut word = String::new();
        for c in line.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
            } else if !word.is_empty() {
                found.push((number + 1, std::mem::take(&mut word)));
            }
        }
    }
    found
}

/// Calls of the method `name` in `code` (`.name(`, spaces allowed), by line number.
fn method_calls(code: &str, name: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        let call = format!(".{name}(");
        let turbofish = format!(".{name}::<");
        if squeezed.contains(&call) || squeezed.contains(&turbofish) {
            lines.push(number + 1);
        }
    }
    lines
}

/// Every place `source` (server.rs's text) touches a game, as "line N: what".
fn violations(source: &str, methods: &[String]) -> Vec<String> {
    let code = code_only(source);
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if squeezed.contains("tabletop::") {
            found.push(format!("line {}: names the library (`tabletop::`)", number + 1));
        }
    }
    for (number, word) in identifiers(&code) {
        if FORBIDDEN_NAMES.contains(&word.as_str()) {
            found.push(format!("line {number}: names `{word}`"));
        }
    }
    for method in methods.iter().map(String::as_str).chain(FORBIDDEN_METHODS.iter().copied()) {
        for number in method_calls(&code, method) {
            found.push(format!("line {number}: calls `.{method}(`"));
        }
    }
    found.sort();
    found
}

/// Each `async fn` of `source` whose body calls into `service::` more than once: "name: N calls".
fn handlers_calling_the_service_more_than_once(source: &str) -> Vec<String> {
    let code = code_only(source);
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(start) = rest.find("async fn ") {
        let after = &rest[start + "async fn ".len()..];
        let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        // The body: from the first `{` after the signature's parameters to its matching `}`.
        let Some(open) = after.find(") ").and_then(|p| after[p..].find('{').map(|b| p + b)) else { break };
        let mut depth = 0;
        let mut end = after.len();
        for (offset, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + offset;
                        break;
                    }
                }
                _ => {}
            }
        }
        let body = &after[open..end];
        let calls = body.matches("service::").count();
        if calls > 1 {
            found.push(format!("{name}: {calls} calls"));
        }
        rest = &after[end..];
    }
    found
}

#[test]
fn server_rs_never_touches_a_game() {
    let methods = session_methods();
    let found = violations(&crate_file("src/server.rs"), &methods);
    assert!(
        found.is_empty(),
        "src/server.rs touches a game; move this into src/service (see the rule at the top of server.rs):\n{}",
        found.join("\n")
    );
}

#[test]
fn each_handler_calls_the_service_once() {
    let source = crate_file("src/server.rs");
    let found = handlers_calling_the_service_more_than_once(&source);
    assert!(found.is_empty(), "handlers in src/server.rs call the service more than once:\n{}", found.join("\n"));
    // The handlers do call it: the check looks at the functions it means to.
    assert!(source.contains("crate::service::play("), "the move handler calls service::play");
}

/// The check finds what it is for: a handler that plays on the session itself (as
/// `submit_move` once did), names the library, or locks the game; and it reads the library's
/// trait, so that its method list is real.
#[test]
fn the_check_catches_a_handler_driving_the_session() {
    let methods = session_methods();
    for expected in ["play", "view", "check_move", "boxed_clone", "agreement_move", "board_at", "option_fields"] {
        assert!(methods.iter().any(|m| m == expected), "the session's methods include {expected}: {methods:?}");
    }
    let handler = r#"
async fn submit_move(State(state): State<Shared>, body: Json<MoveRequest>) -> Result<Json<Value>, ApiError> {
    // game.session.play(...) in a comment is fine, and so is "game.session.play(" in a string.
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    let notation = game.session.play(&request.notation).map_err(|e| ApiError::Illegal(e.to_string()))?;
    let spec: tabletop::PlayerSpec = "engine".parse().unwrap();
    let live = state.game(&id).await?;
    let copy = live.lock().await.session.boxed_clone();
    let first = crate::service::view(&state, &id, None).await?;
    Ok(Json(crate::service::play(&state, client.ip(), &id, request).await?))
}
"#;
    let found = violations(handler, &methods);
    let expected = [
        "line 4: names `seated`",
        "line 5: calls `.play(`",
        "line 5: names `session`",
        "line 6: names the library (`tabletop::`)",
        "line 7: calls `.game(`",
        "line 8: calls `.boxed_clone(`",
        "line 8: calls `.lock(`",
        "line 8: names `boxed_clone`",
        "line 8: names `session`",
    ];
    for line in expected {
        assert!(found.iter().any(|f| f == line), "expected {line:?} among {found:#?}");
    }
    assert!(!found.iter().any(|f| f.starts_with("line 3:")), "comments and strings are not code: {found:#?}");
    assert_eq!(handlers_calling_the_service_more_than_once(handler), vec!["submit_move: 2 calls".to_string()]);
}

#[test]
fn code_only_blanks_comments_and_literals_and_keeps_lines() {
    let source = "let a = \"session\"; // session\nlet b = r#\"tabletop::x\"#; /* LiveGame\n */ let c = '\"'; let d = session;\n";
    let code = code_only(source);
    assert_eq!(code.lines().count(), source.lines().count());
    let names: Vec<String> = identifiers(&code).into_iter().map(|(_, w)| w).collect();
    assert_eq!(names, ["let", "a", "let", "b", "r", "let", "c", "let", "d", "session"]);
}

/// The server never runs a bot's code: no file of the web crate names the library's local
/// players (`Session::local_player`, `SeatPlayer`, the `external` module), which alone start
/// programs. Bots play from their owners' machines (`tabletop bot`).
#[test]
fn the_server_never_builds_a_local_player() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = vec![source];
    let mut offending = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("the source folder reads") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let code = code_only(&read(&path));
                for (line, name) in identifiers(&code) {
                    if ["local_player", "SeatPlayer", "external", "make_local_player"].contains(&name.as_str()) {
                        offending.push(format!("{}:{line}: {name}", path.display()));
                    }
                }
            }
        }
    }
    assert!(offending.is_empty(), "the server names the local players: {offending:?}");
}
