//! A minimal HTTP/1.1 client for the tabletop server, in raw bytes so that tests can send
//! malformed or half-sent requests: one request per connection (`Connection: close`), optionally
//! from a chosen loopback address (each simulated client has its own, as the server's
//! per-client limits expect), and a reader of the Server-Sent Events stream. The benchmarks
//! (`tabletop bench serve`) and the server's test suites both use it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Why an exchange with the server failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The connection failed, or no answer came in time.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The server's bytes were not the HTTP or events expected.
    #[error("protocol: {0}")]
    Protocol(String),
}

/// An answer: its status, raw head, body text and the body as JSON (`Null` if it is not JSON).
#[derive(Debug, Clone)]
pub struct Answer {
    /// The HTTP status (0 when the bytes were not HTTP).
    pub status: u16,
    /// The status line and headers as sent.
    pub head: String,
    /// The body as JSON, `Null` when it is not.
    pub body: Value,
    /// The body as text.
    pub text: String,
}

impl Answer {
    /// A header's value (the name in any case).
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_string())
        })
    }
}

/// Finds `needle` in `haystack`.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Does an HTTP head announce a chunked body?
fn is_chunked(head: &str) -> bool {
    head.to_ascii_lowercase().contains("transfer-encoding: chunked")
}

/// Takes the complete chunks at the start of `raw` (chunked transfer encoding) into `out`;
/// `Ok(true)` once the last (empty) chunk was read.
fn dechunk(raw: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<bool, ClientError> {
    loop {
        let Some(line_end) = find(raw, b"\r\n") else { return Ok(false) };
        let size_text = String::from_utf8_lossy(&raw[..line_end]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| ClientError::Protocol(format!("bad chunk size {size_text:?}")))?;
        let start = line_end.saturating_add(2);
        let Some(end) = start.checked_add(size) else { return Err(ClientError::Protocol("chunk too large".into())) };
        if size == 0 {
            raw.drain(..start.min(raw.len()));
            return Ok(true);
        }
        if raw.len() < end.saturating_add(2) {
            return Ok(false);
        }
        out.extend_from_slice(&raw[start..end]);
        raw.drain(..end.saturating_add(2));
    }
}

/// Splits a whole raw HTTP answer into its parts (a chunked body decoded).
pub fn parse_answer(raw: &[u8]) -> Answer {
    let split = find(raw, b"\r\n\r\n").unwrap_or(raw.len());
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status: u16 = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut rest = raw.get(split.saturating_add(4)..).unwrap_or(&[]).to_vec();
    let body = if is_chunked(&head) {
        let mut out = Vec::new();
        // A truncated chunked body keeps what arrived.
        let _ = dechunk(&mut rest, &mut out);
        out
    } else {
        rest
    };
    let text = String::from_utf8_lossy(&body).to_string();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Answer { status, head, body, text }
}

/// A connection to `addr`, from the loopback address `from` when given.
pub async fn open_connection(addr: SocketAddr, from: Option<Ipv4Addr>) -> std::io::Result<TcpStream> {
    match from {
        None => TcpStream::connect(addr).await,
        Some(ip) => {
            let socket = TcpSocket::new_v4()?;
            socket.bind(SocketAddr::new(IpAddr::V4(ip), 0))?;
            socket.connect(addr).await
        }
    }
}

/// Sends raw bytes on a new connection and reads until the server closes it, within `limit`.
pub async fn exchange(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    bytes: &[u8],
    limit: Duration,
) -> Result<Answer, ClientError> {
    let talk = async {
        let mut stream = open_connection(addr, from).await?;
        stream.write_all(bytes).await?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        Ok::<_, ClientError>(parse_answer(&raw))
    };
    match tokio::time::timeout(limit, talk).await {
        Ok(answer) => answer,
        Err(_) => Err(ClientError::Io(std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer in time"))),
    }
}

/// The bytes of a request with a JSON body (empty for none) on a connection that closes after it.
pub fn request_bytes(addr: SocketAddr, method: &str, path: &str, body: &str) -> Vec<u8> {
    request_bytes_as(addr, method, path, body, None)
}

/// [`request_bytes`] as a seat: its token in the `Authorization: Bearer` header (never in the URL).
pub fn request_bytes_as(addr: SocketAddr, method: &str, path: &str, body: &str, token: Option<&str>) -> Vec<u8> {
    let authorization = token.map_or_else(String::new, |t| format!("Authorization: Bearer {t}\r\n"));
    format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{authorization}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A game's state as the seat holding `token` sees it (as a watcher without one).
pub async fn state_as(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    id: &str,
    token: Option<&str>,
    limit: Duration,
) -> Result<Answer, ClientError> {
    exchange(addr, from, &request_bytes_as(addr, "GET", &format!("/api/games/{id}"), "", token), limit).await
}

/// The path of a game's event stream: a seat's with a fresh single-use ticket for `token`
/// (`POST /api/games/{id}/ticket`), a watcher's without one.
pub async fn events_path(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    id: &str,
    token: Option<&str>,
    limit: Duration,
) -> Result<String, ClientError> {
    let Some(token) = token else { return Ok(format!("/api/games/{id}/events")) };
    let body = serde_json::json!({ "token": token }).to_string();
    let answer = request(addr, from, "POST", &format!("/api/games/{id}/ticket"), &body, limit).await?;
    let ticket = answer.body["ticket"]
        .as_str()
        .ok_or_else(|| ClientError::Protocol(format!("no ticket: {} {}", answer.status, answer.text)))?;
    Ok(format!("/api/games/{id}/events?ticket={ticket}"))
}

/// One request with a JSON body (empty for none), from `from`, within `limit`.
pub async fn request(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    method: &str,
    path: &str,
    body: &str,
    limit: Duration,
) -> Result<Answer, ClientError> {
    exchange(addr, from, &request_bytes(addr, method, path, body), limit).await
}

/// One event of a stream.
#[derive(Debug, Clone)]
pub struct Event {
    /// Its `event:` name (`message` when it has none).
    pub name: String,
    /// Its `data:` lines joined, as JSON.
    pub data: Value,
    /// When its last byte arrived.
    pub at: Instant,
    /// The size of its data as sent, in bytes.
    pub size: usize,
    /// How many moves of the move list it carried itself (the rest were received before).
    pub carried: usize,
}

/// An open event stream (`text/event-stream`), read raw.
pub struct EventStream {
    stream: TcpStream,
    raw: Vec<u8>,
    text: Vec<u8>,
    chunked: bool,
    ended: bool,
    /// The answer's status line and headers, once they arrived (empty before).
    pub head: String,
    /// The whole move list so far (`moves`, `history`), rebuilt from the states' `moves_from`.
    moves: Option<(Vec<Value>, Vec<Value>)>,
}

impl EventStream {
    /// Opens `path` on `addr` (from the loopback address `from` when given) as an event stream.
    pub async fn open(addr: SocketAddr, from: Option<Ipv4Addr>, path: &str) -> Result<EventStream, ClientError> {
        let mut stream = open_connection(addr, from).await?;
        let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        stream.write_all(head.as_bytes()).await?;
        Ok(EventStream {
            stream,
            raw: Vec::new(),
            text: Vec::new(),
            chunked: false,
            ended: false,
            head: String::new(),
            moves: None,
        })
    }

    /// The answer's status (0 before its head arrived).
    pub fn status(&self) -> u16 {
        self.head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
    }

    /// Moves what arrived into decoded text (the head first).
    fn decode(&mut self) -> Result<(), ClientError> {
        if self.head.is_empty() {
            let Some(end) = find(&self.raw, b"\r\n\r\n") else { return Ok(()) };
            self.head = String::from_utf8_lossy(&self.raw[..end]).to_string();
            self.chunked = is_chunked(&self.head);
            self.raw.drain(..end.saturating_add(4));
        }
        if self.chunked {
            self.ended |= dechunk(&mut self.raw, &mut self.text)?;
        } else {
            self.text.append(&mut self.raw);
        }
        Ok(())
    }

    /// Puts back the moves a state left out (its `moves_from` says how many of the moves already
    /// received still stand), so that every state read holds the whole move list.
    fn whole_moves(&mut self, data: &mut Value) -> Result<(), ClientError> {
        let list = |data: &Value, key: &str| data[key].as_array().cloned().unwrap_or_default();
        let (mut moves, mut history) = (list(data, "moves"), list(data, "history"));
        if data.get("moves").is_none() {
            return Ok(());
        }
        if let Some(from) = data.get("moves_from").and_then(Value::as_u64) {
            let Some((known_moves, known_history)) = &self.moves else {
                return Err(ClientError::Protocol("a state's moves_from came before any whole state".into()));
            };
            let from = usize::try_from(from).unwrap_or(usize::MAX);
            if from > known_moves.len() || from > known_history.len() {
                return Err(ClientError::Protocol(format!("moves_from {from} is past the moves received")));
            }
            moves = known_moves[..from].iter().cloned().chain(moves).collect();
            history = known_history[..from].iter().cloned().chain(history).collect();
            data["moves"] = Value::Array(moves.clone());
            data["history"] = Value::Array(history.clone());
        }
        self.moves = Some((moves, history));
        Ok(())
    }

    /// The next event with data (keep-alive comments skipped). An error when the stream ends or
    /// its data is not JSON.
    pub async fn next(&mut self) -> Result<Event, ClientError> {
        loop {
            self.decode()?;
            while let Some(end) = find(&self.text, b"\n\n") {
                let block = String::from_utf8_lossy(&self.text[..end]).to_string();
                self.text.drain(..end.saturating_add(2));
                let data: Vec<&str> =
                    block.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim_start).collect();
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                let name =
                    block.lines().find_map(|l| l.strip_prefix("event:")).map_or("message", str::trim).to_string();
                let text = data.join("\n");
                let mut data: Value = serde_json::from_str(&text)
                    .map_err(|e| ClientError::Protocol(format!("event data is not JSON: {e}")))?;
                let carried = data["moves"].as_array().map_or(0, Vec::len);
                self.whole_moves(&mut data)?;
                return Ok(Event { name, data, at: Instant::now(), size: text.len(), carried });
            }
            if self.ended {
                return Err(ClientError::Protocol("the event stream ended".into()));
            }
            let mut buffer = [0u8; 16 * 1024];
            let n = self.stream.read(&mut buffer).await?;
            if n == 0 {
                return Err(ClientError::Protocol("the event stream closed".into()));
            }
            self.raw.extend_from_slice(&buffer[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_plain_and_chunked() {
        let plain = parse_answer(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n\r\n{\"error\":\"no\"}");
        assert_eq!(plain.status, 404);
        assert_eq!(plain.body["error"], "no");
        assert_eq!(plain.header("content-type").as_deref(), Some("application/json"));
        let chunked =
            parse_answer(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n");
        assert_eq!(chunked.status, 200);
        assert_eq!(chunked.body["a"], 1);
        let garbage = parse_answer(b"nonsense");
        assert_eq!((garbage.status, garbage.body.clone()), (0, Value::Null));
    }
}
