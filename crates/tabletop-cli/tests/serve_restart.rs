//! `tabletop serve` killed with SIGKILL loses nothing it acknowledged, and the game continues
//! after a restart on the same database file.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

fn start(db: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("tabletop serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr =
        line.split("http://").nth(1).and_then(|rest| rest.split('/').next()).expect("address printed").to_string();
    (child, addr)
}

fn request(addr: &str, method: &str, path: &str, body: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).unwrap().parse().unwrap();
    let payload = text.split("\r\n\r\n").nth(1).unwrap_or("");
    let json = match (payload.find('{'), payload.rfind('}')) {
        (Some(a), Some(b)) => serde_json::from_str(&payload[a..=b]).unwrap_or(Value::Null),
        _ => Value::Null,
    };
    (status, json)
}

#[test]
fn a_killed_server_loses_no_acknowledged_move() {
    let dir = std::env::temp_dir().join(format!("tabletop-kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("games.db");
    let _ = std::fs::remove_file(&db);
    let (mut server, addr) = start(&db);
    let create = json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "human"]}).to_string();
    let (status, created) = request(&addr, "POST", "/api/games", &create);
    assert_eq!(status, 200, "{created}");
    let id = created["id"].as_str().unwrap().to_string();
    let tokens: Vec<String> =
        created["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().into()).collect();
    let played = ["6", "7", "10", "11", "1"];
    for (ply, mv) in played.iter().enumerate() {
        let body = json!({"move": mv, "token": tokens[ply % 2], "ply": ply}).to_string();
        assert_eq!(request(&addr, "POST", &format!("/api/games/{id}/moves"), &body).0, 200);
    }
    server.kill().unwrap(); // SIGKILL: no chance to flush anything
    server.wait().unwrap();

    let (mut server, addr) = start(&db);
    let (status, state) = request(&addr, "GET", &format!("/api/games/{id}"), "");
    assert_eq!(status, 200);
    assert_eq!(state["moves"], json!(played));
    let body = json!({"move": "16", "token": tokens[1], "ply": 5}).to_string();
    assert_eq!(request(&addr, "POST", &format!("/api/games/{id}/moves"), &body).0, 200, "the game continues");
    server.kill().unwrap();
    server.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
