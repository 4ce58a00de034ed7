//! The HTTP server: the page, the JSON API documented in docs/API.md, and its defences.
//!
//! - [`start`] binds, opens the database, resumes computer seats that are to move, and serves
//!   connections itself (hyper) so that header and idle timeouts and a connection cap apply.
//! - The router: routes, per-client rate limits, the body limit (from `Content-Length`), the
//!   request log, and every error as JSON.
//! - [`crate::live`] holds the games in play; [`crate::engines`] does all the thinking.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures_util::stream::Stream;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Deserialize;
use serde_json::{json, Value};
use tabletop::PlayerSpec;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::GovernorLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::{DefaultOnFailure, DefaultOnResponse, TraceLayer};

use crate::config::ServeConfig;
pub use crate::error::ApiError;
use crate::live::{AppState, Change, LiveGame, ProposalKind, Shared};
use crate::sessions::new_session;
use crate::store::{GameRow, Store, StoreError, StoredInvite};

pub use crate::error::BODY_LIMIT;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match &self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Illegal(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Busy | ApiError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(reason) => {
                tracing::error!("internal error: {reason}");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        if matches!(self, ApiError::Busy) {
            tracing::warn!("refused work: the engine queue is full");
        }
        let mut response = (status, Json(json!({"error": self.to_string()}))).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
        }
        if let ApiError::TooMany { retry_after, .. } = self {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after.max(1)));
        }
        response
    }
}

/// A body that is not the JSON expected: 413 when too large, else 400 with serde's reason.
fn bad_body(rejection: JsonRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::TooLarge
    } else {
        ApiError::BadRequest(at_most(&short_words(&rejection.body_text()), 300))
    }
}

/// `text` with every word longer than 40 characters cut (a long field name or value is not
/// repeated back).
fn short_words(text: &str) -> String {
    text.split(' ')
        .map(|word| if word.chars().count() > 40 { at_most(word, 20) } else { word.to_string() })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` cut to `limit` characters (with an ellipsis): errors never echo long input back.
fn at_most(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// The page and its files, embedded in the binary.
#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
struct Assets;

fn asset(path: &str) -> Option<Response> {
    let file = Assets::get(path)?;
    let kind = match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    };
    Some(([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], file.data.into_owned()).into_response())
}

async fn page() -> Response {
    match Assets::get("index.html") {
        Some(file) => Html(file.data.into_owned()).into_response(),
        None => ApiError::NotFound("index.html".into()).into_response(),
    }
}

/// GET of anything else: a file of the page, or a JSON 404.
async fn fallback(request: Request) -> Response {
    let path = request.uri().path().trim_start_matches('/');
    let path = if path == "favicon.ico" { "favicon.svg" } else { path };
    let method = request.method();
    if (method == axum::http::Method::GET || method == axum::http::Method::HEAD) && !path.starts_with("api/") {
        if let Some(response) = asset(path) {
            return response;
        }
    }
    (StatusCode::NOT_FOUND, Json(json!({"error": format!("no such page: {}", request.uri().path())}))).into_response()
}

/// What the page may load and who may frame it: the page is same-origin scripts and styles only
/// (no inline script, no inline style attribute), never framed, and sends no referrer (a game's
/// link is its watch link).
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The browser defences on every answer: the content security policy, no framing, no type
/// sniffing, no referrer.
async fn browser_defences(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// Refuses a state-changing request sent by another site's page: a browser names the page's
/// origin in `Origin`, which must then be this server (its Host, or `--public-url`). Requests
/// without `Origin` (scripts, the command line) pass; the JSON body every action requires keeps
/// plain cross-site forms out too (they cannot send `application/json` without asking first).
async fn same_origin(State(state): State<Shared>, request: Request, next: axum::middleware::Next) -> Response {
    if request.method() == axum::http::Method::GET || request.method() == axum::http::Method::HEAD {
        return next.run(request).await;
    }
    let Some(origin) = request.headers().get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return next.run(request).await;
    };
    let authority = origin.split_once("://").map_or(origin, |(_, rest)| rest).trim_end_matches('/');
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    let public =
        state.config.public_url.as_deref().map(|u| u.split_once("://").map_or(u, |(_, r)| r).trim_end_matches('/'));
    if authority.eq_ignore_ascii_case(host) || public.is_some_and(|p| authority.eq_ignore_ascii_case(p)) {
        return next.run(request).await;
    }
    ApiError::Forbidden("requests from another site's page are refused".into()).into_response()
}

/// Reads a request's whole body within `body_timeout` from the end of its head: a deadline for
/// the whole body, where a per-chunk timeout lets a client send one byte every few seconds
/// forever. Bodies are small (at most [`BODY_LIMIT`]), so holding one costs little.
async fn body_deadline(State(state): State<Shared>, request: Request, next: axum::middleware::Next) -> Response {
    if request.method() == axum::http::Method::GET || request.method() == axum::http::Method::HEAD {
        return next.run(request).await;
    }
    // A body declared too large is refused before any of it is read.
    let declared = request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > BODY_LIMIT as u64) {
        return ApiError::TooLarge.into_response();
    }
    let limit = state.config.body_timeout;
    let (parts, body) = request.into_parts();
    match tokio::time::timeout(limit, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Ok(Err(_)) => ApiError::TooLarge.into_response(),
        Err(_) => {
            let reason = format!("request body timeout: the body was not received within {} s", limit.as_secs_f64());
            (StatusCode::REQUEST_TIMEOUT, Json(json!({ "error": reason }))).into_response()
        }
    }
}

/// The longest request target answered (longer: 414); no page or API URL comes near it.
const URI_LIMIT: usize = 8 * 1024;
/// The most header bytes answered (more: 431); the connection's buffer,
/// [`CONNECTION_BUFFER`], is larger, so these refusals come as JSON from here rather than as
/// the HTTP parser's empty answers.
const HEADERS_LIMIT: usize = 16 * 1024;

/// Refuses over-long request targets (414) and headers (431) with a JSON reason.
async fn head_limits(request: Request, next: axum::middleware::Next) -> Response {
    let target = request.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > URI_LIMIT {
        let reason = format!("the request target is {target} bytes; the limit is {URI_LIMIT}");
        return (StatusCode::URI_TOO_LONG, Json(json!({ "error": reason }))).into_response();
    }
    let headers: usize = request.headers().iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum();
    if headers > HEADERS_LIMIT {
        let reason = format!("the request headers are {headers} bytes; the limit is {HEADERS_LIMIT}");
        return (StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, Json(json!({ "error": reason }))).into_response();
    }
    next.run(request).await
}

/// Errors made by layers (rate limits, body limits, wrong methods) come as text: make them JSON.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/event-stream"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text).trim().to_string();
    let reason = match status {
        StatusCode::METHOD_NOT_ALLOWED => "method not allowed for this route".to_string(),
        StatusCode::PAYLOAD_TOO_LARGE => format!("request body too large (limit {BODY_LIMIT} bytes)"),
        StatusCode::TOO_MANY_REQUESTS => {
            tracing::warn!("refused work: a client's rate limit");
            // The limiter rounds its wait down to whole seconds: "0" would invite a retry storm.
            let wait = parts.headers.get(header::RETRY_AFTER).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
            parts.headers.insert(header::RETRY_AFTER, HeaderValue::from(wait.unwrap_or(1).max(1)));
            format!("too many requests from this address; {}", if text.is_empty() { "slow down" } else { &text })
        }
        _ if !text.is_empty() => text,
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    let body = json!({ "error": reason }).to_string();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// The client's address as the reverse proxy saw it: the last `X-Forwarded-For` entry (the one
/// the proxy itself added; entries before it are whatever the client claimed).
fn forwarded_client(headers: &axum::http::HeaderMap) -> Option<SocketAddr> {
    let last =
        headers.get_all("x-forwarded-for").iter().next_back()?.to_str().ok()?.rsplit(',').next()?.trim().to_string();
    last.parse::<std::net::IpAddr>().ok().map(|ip| SocketAddr::new(ip, 0))
}

/// The router: the page and the API, with its limits.
pub fn router(state: Shared) -> Router {
    let config = state.config.clone();
    // Per client address: `rate` a minute, bursts of a tenth of a minute's worth.
    let per_minute = |rate: u32| {
        let rate = rate.max(1);
        let config = GovernorConfigBuilder::default()
            .per_millisecond((60_000 / u64::from(rate)).max(1))
            .burst_size((rate / 6).max(1))
            .finish()
            .expect("a non-zero period and burst make a valid rate limit");
        let config = Arc::new(config);
        // The limiter keeps an entry per client address: forget the ones quiet for a while, so
        // that many addresses cannot grow it without bound.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let weak = Arc::downgrade(&config);
            runtime.spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    let Some(config) = weak.upgrade() else { return };
                    config.limiter().retain_recent();
                    config.limiter().shrink_to_fit();
                }
            });
        }
        GovernorLayer::new(config)
    };
    let creating = Router::new()
        .route("/api/games", post(create_game))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/claim", post(claim))
        .layer(per_minute(config.create_rate));
    let thinking = Router::new()
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/analysis", post(analysis))
        .route("/api/games/{id}/review", get(review))
        .layer(per_minute(config.hint_rate));
    Router::new()
        .route("/", get(page))
        .route("/game/{id}", get(page))
        .route("/api/lobby", get(lobby))
        .route("/api/catalog", get(catalog))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/events", get(events))
        .route("/api/games/{id}/ticket", post(ticket))
        .route("/api/games/{id}/boards/{ply}", get(board_at))
        .route("/api/games/{id}/moves", post(submit_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/proposal", post(answer_proposal))
        .route("/api/games/{id}/resign", post(resign))
        .merge(creating)
        .merge(thinking)
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(state.clone(), body_deadline))
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::from_fn_with_state(state.clone(), same_origin))
        .layer(axum::middleware::from_fn(head_limits))
        .layer(axum::middleware::map_response(browser_defences))
        .layer(
            TraceLayer::new_for_http()
                // The path only: tokens travel in bodies and query strings, never in the log.
                .make_span_with(|request: &Request| {
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
                })
                .on_request(())
                .on_response(DefaultOnResponse::new().level(tracing::Level::INFO).latency_unit(tower_http::LatencyUnit::Millis))
                // A 5xx is a warning here: refused work (503) is not the server's error, and a
                // real one (500) is logged at ERROR with its reason where it happens.
                .on_failure(DefaultOnFailure::new().level(tracing::Level::WARN)),
        )
        .with_state(state)
}

/// A server running in the background (see [`start`]).
pub struct RunningServer {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// Its shared state.
    pub state: Shared,
    shutdown: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// Stops accepting connections and waits for the accept loop to end.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        let _ = self.task.await;
    }
}

/// The kernel's send buffer per connection, in bytes: a whole state event fits, and a client
/// that stops reading costs no more.
const SEND_BUFFER: usize = 256 * 1024;

/// The most a connection buffers in the server (headers read, or answers not yet sent).
const CONNECTION_BUFFER: usize = 64 * 1024;

/// Opens the database, resumes the computers that are to move, and serves in the background.
pub async fn start(config: ServeConfig) -> Result<RunningServer, ServeError> {
    raise_file_limit();
    let store = Store::open(&config.database()).await?;
    let backlog = u32::try_from(config.max_connections).unwrap_or(u32::MAX).clamp(1024, 65_535);
    let listener = listen(config.addr, backlog).map_err(|e| ServeError::Bind(config.addr, e))?;
    let addr = listener.local_addr().map_err(|e| ServeError::Bind(config.addr, e))?;
    let state = AppState::new(store, config.clone());
    crate::live::start_background(&state);
    crate::live::resume_computers(&state).await;
    let app = router(state.clone());
    let (shutdown, mut stopped) = tokio::sync::watch::channel(false);
    let connections = Arc::new(tokio::sync::Semaphore::new(config.max_connections.max(1)));
    let header_timeout = config.header_timeout;
    let behind_proxy = config.behind_proxy;
    let write_timeout = config.write_timeout;
    let per_address = crate::connection::PerAddress::new(config.max_connections_per_address);
    let task = tokio::spawn(async move {
        loop {
            let Ok(permit) = connections.clone().acquire_owned().await else { return };
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stopped.changed() => return,
            };
            let (stream, peer) = match accepted {
                Ok(pair) => pair,
                Err(err) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tracing::warn!("accept failed: {err}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // Behind a proxy every connection is the proxy's: only the total is capped there.
            let held = if behind_proxy {
                None
            } else {
                match per_address.try_hold(peer.ip()) {
                    Some(held) => Some(held),
                    None => {
                        tracing::debug!("connection from {peer} closed: its address holds its share of connections");
                        continue; // dropping the stream closes it
                    }
                }
            };
            // The kernel's buffer for a client that stops reading stays small (autotuning would
            // grow it to megabytes), and the write deadline closes such a client.
            if let Err(err) = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER) {
                tracing::debug!("cannot bound the send buffer for {peer}: {err}");
            }
            let stream = crate::connection::WriteDeadline::new(stream, write_timeout);
            let app = app.clone();
            tokio::spawn(async move {
                let _permit = permit;
                let _held = held;
                let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
                    let client = if behind_proxy { forwarded_client(request.headers()).unwrap_or(peer) } else { peer };
                    request.extensions_mut().insert(ConnectInfo(client));
                    app.clone().oneshot(request.map(Body::new))
                });
                let connection = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(header_timeout)
                    .max_buf_size(CONNECTION_BUFFER)
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(stream), service);
                if let Err(err) = connection.await {
                    tracing::debug!("connection from {peer}: {err}");
                }
            });
        }
    });
    Ok(RunningServer { addr, state, shutdown, task })
}

/// Binds `addr` with a listen queue of `backlog` connections (the kernel caps it at
/// `net.core.somaxconn`). `TcpListener::bind`'s queue is 128 on Linux: a burst of connections
/// beyond it has its SYNs dropped, and those clients retry a second later.
fn listen(addr: SocketAddr, backlog: u32) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog)
}

/// Many connections need many file descriptors: raise the soft limit to the hard one.
fn raise_file_limit() {
    if let Err(err) = rlimit::increase_nofile_limit(u64::MAX) {
        tracing::warn!("cannot raise the open-file limit: {err}");
    }
}

/// Serves until interrupted; prints the address to open.
pub async fn serve(config: ServeConfig) -> Result<(), ServeError> {
    let db = config.database().to_string();
    let server = start(config).await?;
    println!("tabletop is serving on http://{}/ (database {db})", server.addr);
    stop_signal().await;
    tracing::info!("stopping: no new connections");
    server.shutdown().await;
    Ok(())
}

/// Ctrl-C, or SIGTERM (what systemd, Docker and Kubernetes send to stop a process).
async fn stop_signal() {
    #[cfg(unix)]
    {
        if let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The database could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The address could not be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
    /// The server failed while running.
    #[error("server: {0}")]
    Serve(std::io::Error),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateRequest {
    game: String,
    #[serde(default)]
    options: Value,
    #[serde(default)]
    seats: Vec<String>,
    #[serde(default)]
    hints: bool,
}

/// The origin for links: `--public-url`, else the request's Host.
fn origin(state: &AppState, headers: &HeaderMap) -> String {
    if let Some(url) = &state.config.public_url {
        return url.trim_end_matches('/').to_string();
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1");
    // Only characters a host name and port may hold, so the link cannot carry anything else.
    let host: String = host.chars().filter(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(*c)).take(255).collect();
    format!("http://{host}")
}

async fn create_game(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<CreateRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    state.check_writable()?;
    let options = if request.options.is_null() { json!({}) } else { request.options };
    let mut secret = json!({});
    if let Some(seed) = state.config.game_seed {
        secret["seed"] = json!(state.next_game_seed(seed));
    }
    crate::sessions::complete_secret(&request.game, &mut secret);
    let session = new_session(&request.game, &options, &secret).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let seats_needed = session.num_seats();
    let mut seats = request.seats;
    if seats.is_empty() {
        seats = vec!["engine".to_string(); seats_needed];
        seats[0] = "human".to_string();
    }
    if seats.len() != seats_needed {
        return Err(ApiError::BadRequest(format!("{} needs {seats_needed} seats, got {}", request.game, seats.len())));
    }
    let caps = state.caps();
    for (seat, text) in seats.iter_mut().enumerate() {
        let spec: PlayerSpec =
            text.parse().map_err(|e: tabletop::SpecError| ApiError::BadRequest(format!("seat {seat}: {e}")))?;
        if spec.settings.is_empty() && (spec.name == "human" || spec.name == "open") {
            *text = spec.name;
            continue;
        }
        session.check_spec(&spec, &caps).map_err(|e| ApiError::BadRequest(format!("seat {seat}: {e}")))?;
        *text = spec.to_string();
    }
    if !seats.iter().any(|s| s == "human") {
        return Err(ApiError::BadRequest("at least one seat must be \"human\" (the creator's)".into()));
    }
    // One address cannot fill the lobby: its open games are capped.
    let opens_seats = seats.iter().any(|s| s == "open");
    if opens_seats {
        let cap = state.config.max_open_games_per_address;
        state.open_games().check(client.ip(), cap, crate::config::OPEN_GAME_COUNTED)?;
    }
    // The tokens are shown in this answer only: the database keeps their hashes.
    let (tokens, token_hashes): (Vec<String>, Vec<String>) =
        (0..seats_needed).map(|_| crate::live::new_token()).unzip();
    // Each person's seat gets an invitation of its own, apart from its token: a code used
    // once, which gives its first opener a new token for the seat (so the link is worth
    // nothing after, and the creator's copy of the token stops working then).
    let codes: Vec<Option<String>> =
        seats.iter().map(|s| (s == "human").then(crate::live::new_token).map(|(code, _)| code)).collect();
    let invites = codes
        .iter()
        .map(|code| code.as_ref().map(|c| StoredInvite { hash: crate::store::hash_token(c), claimed: false }))
        .collect();
    let row = GameRow {
        id: crate::live::random_hex(),
        game: request.game,
        options,
        secret,
        token_hashes,
        seats,
        invites,
        hints: request.hints,
        resigned: Vec::new(),
        ended: None,
        ended_winners: Vec::new(),
        created: crate::live::now_seconds(),
    };
    let live = state.insert_new(row, session).await?;
    let mut game = live.lock().await;
    if opens_seats {
        state.open_games().opened(client.ip(), &game.row.id);
    }
    crate::live::schedule_for(&state, &mut game, client.ip()).await;
    let base = origin(&state, &headers);
    let id = game.row.id.clone();
    let names = game.session.seat_names();
    let shown: Vec<Value> =
        game.row.seats.iter().zip(&tokens).map(|(s, t)| if s == "human" { json!(t) } else { Value::Null }).collect();
    let invites: Vec<Value> = game
        .row
        .seats
        .iter()
        .enumerate()
        .filter(|(_, s)| *s == "human")
        .filter_map(|(seat, _)| Some((seat, codes.get(seat)?.as_ref()?)))
        .map(|(seat, code)| {
            let path = format!("/game/{id}#invite={code}");
            json!({"seat": seat, "name": names.get(seat), "url": format!("{base}{path}"), "path": path})
        })
        .collect();
    let watch = format!("/game/{id}");
    let creator = game.row.seats.iter().position(|s| s == "human");
    Ok(Json(json!({
        "id": id,
        "tokens": shown,
        "invites": invites,
        "watch": {"url": format!("{base}{watch}"), "path": watch},
        "state": game.state(creator),
    })))
}

/// The games this server offers, from the library's registry, for the start page:
/// `{"games": [{"name", "title", "about", "players": [{"name", "settings", "help"}],
/// "computers": [[spec, label], ...], "default_computer": spec}]}`: the computers the start form
/// offers people, and the one it chooses at first (the terminal's default too,
/// [`tabletop::levels::DEFAULT_COMPUTER`]).
async fn catalog() -> Json<Value> {
    let games: Vec<Value> = tabletop::registry::GAMES
        .iter()
        .map(|game| {
            let players: Vec<Value> = game
                .player_kinds
                .iter()
                .map(|k| json!({"name": k.name, "settings": k.settings, "help": k.help}))
                .collect();
            let computers: Vec<Value> = tabletop::levels::offered_computers(game.player_kinds)
                .into_iter()
                .map(|(spec, label)| json!([spec, label]))
                .collect();
            json!({
                "name": game.name,
                "title": game.title,
                "about": game.about,
                "players": players,
                "computers": computers,
                "default_computer": tabletop::levels::DEFAULT_COMPUTER,
            })
        })
        .collect();
    Json(json!({ "games": games }))
}

async fn lobby(State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    let rows = state.store().lobby(50).await?;
    let games: Vec<Value> = rows
        .into_iter()
        .map(|(id, game, options, seats, created)| {
            let open: Vec<usize> = seats.iter().enumerate().filter(|(_, s)| *s == "open").map(|(i, _)| i).collect();
            let players = crate::live::public_players(&game, &seats);
            json!({"id": id, "game": game, "options": options, "players": players, "open_seats": open, "created": created})
        })
        .collect();
    Ok(Json(json!({ "games": games })))
}

/// The body of a join: an empty JSON object (a JSON body cannot come from another site's form).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinRequest {}

async fn join(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<JoinRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(JoinRequest {}) = body.map_err(bad_body)?;
    state.check_writable()?;
    let live = state.game(&id).await?;
    let mut game = live.lock().await;
    if game.to_move().is_none() {
        return Err(ApiError::Conflict("the game is over".into()));
    }
    let seat = game
        .row
        .seats
        .iter()
        .position(|s| s == "open")
        .ok_or_else(|| ApiError::Conflict("no open seat is left in this game".into()))?;
    let mut seats = game.row.seats.clone();
    seats[seat] = "human".to_string();
    let token = game.take_seat(&state, seats, seat).await?;
    if !game.row.seats.iter().any(|s| s == "open") {
        state.open_games().closed(&id);
    }
    game.changed(Change::SeatTaken, Some(seat));
    crate::live::schedule_for(&state, &mut game, client.ip()).await;
    Ok(Json(json!({"seat": seat, "token": token, "state": game.state(Some(seat))})))
}

/// The body of a claim: the invitation's code, and the token this browser already holds in the
/// game, if any (its creator checking the link it sent, or a person who opened it before).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimRequest {
    invite: String,
    #[serde(default)]
    token: Option<String>,
}

/// How many times a claim looks again after another process wrote the game first.
const CLAIM_ATTEMPTS: usize = 4;

/// `POST /api/games/{id}/claim` with `{"invite", "token"?}`: opens an invitation. The first
/// opener gets the seat and a new token for it (the invitation is then used); a later opener
/// gets 409 saying whose seat it is; a `token` that already holds a seat in the game (the
/// creator checking the link) keeps that seat and leaves the invitation unused.
async fn claim(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<ClaimRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let mut attempt = 0;
    loop {
        let live = state.game(&id).await?;
        let mut game = live.lock().await;
        let seat = game.invited_seat(&request.invite).ok_or_else(|| {
            ApiError::Forbidden("this invitation is not one of this game's: check the link you were sent".into())
        })?;
        if let Some(held) = game.seat_of(request.token.as_deref()) {
            let answer = json!({"seat": held, "claimed": false, "invited_seat": seat, "state": game.state(Some(held))});
            return Ok(Json(answer));
        }
        if game.invite_used(seat) {
            let name = game.session.seat_names().get(seat).cloned().unwrap_or_else(|| format!("seat {seat}"));
            return Err(ApiError::Conflict(format!("This invitation was already used: {name} is taken.")));
        }
        state.check_writable()?;
        match game.use_invite(&state, seat).await {
            Ok(token) => {
                game.changed(Change::SeatTaken, Some(seat));
                crate::live::schedule_for(&state, &mut game, client.ip()).await;
                return Ok(Json(
                    json!({"seat": seat, "token": token, "claimed": true, "state": game.state(Some(seat))}),
                ));
            }
            // Another process wrote the game first (perhaps using this invitation): look again.
            Err(_) if game.lost_a_race() && attempt + 1 < CLAIM_ATTEMPTS => {
                tracing::info!(game = %id, "a claim lost a race with another writer; looking again");
                attempt += 1;
            }
            Err(err) => return Err(err),
        }
    }
}

/// What a state request may carry in its query: nothing secret. A seat's token comes in the
/// `Authorization: Bearer` header, never in a URL (proxies and logs keep URLs).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateQuery {}

/// An event stream's query: a seat's single-use ticket (from `POST .../ticket`), or nothing for
/// a watcher.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
    ticket: Option<String>,
}

/// The token of `Authorization: Bearer TOKEN`, if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::AUTHORIZATION)?.to_str().ok()?.strip_prefix("Bearer ").map(str::trim)
}

/// A query that is not what a route takes (a token in the URL among them): 400, saying where a
/// token goes instead.
fn bad_query(rejection: axum::extract::rejection::QueryRejection) -> ApiError {
    let text = rejection.body_text();
    if text.contains("token") {
        ApiError::BadRequest(
            "a token never goes in a URL: send it as `Authorization: Bearer TOKEN`, or get a ticket for the event stream (POST /api/games/{id}/ticket)".into(),
        )
    } else {
        ApiError::BadRequest(at_most(&short_words(&text), 300))
    }
}

async fn get_game(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    query: Result<Query<StateQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    query.map_err(bad_query)?;
    let live = state.game(&id).await?;
    let game = live.lock().await;
    let viewer = game.seat_of(bearer(&headers));
    Ok(Json(game.state(viewer)))
}

/// How long a ticket for an event stream stays good.
const TICKET_LIFE: Duration = Duration::from_secs(60);

/// Tickets waiting to be used, at most (older ones are dropped when they expire).
const TICKETS_HELD: usize = 100_000;

/// `POST /api/games/{id}/ticket` with `{"token"}`: a single-use ticket, good for a minute, that
/// opens the seat's event stream (`GET .../events?ticket=T`). A browser's EventSource cannot
/// send a header, and a ticket in a URL is worth nothing once used.
async fn ticket(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let live = state.game(&id).await?;
    let seat = live.lock().await.seat_of(Some(&request.token));
    let seat = seat.ok_or_else(|| ApiError::Forbidden("that token holds no seat in this game".into()))?;
    let ticket = crate::live::random_hex();
    let mut tickets = state.tickets.lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    tickets.retain(|_, (_, _, until)| *until > now);
    if tickets.len() >= TICKETS_HELD {
        return Err(ApiError::TooMany { what: "too many event-stream tickets are waiting".into(), retry_after: 10 });
    }
    tickets.insert(ticket.clone(), (id, seat, now + TICKET_LIFE));
    Ok(Json(json!({"ticket": ticket, "expires_in": TICKET_LIFE.as_secs()})))
}

async fn events(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, std::convert::Infallible>>>, ApiError> {
    let Query(query) = query.map_err(bad_query)?;
    // A ticket is used up here, whatever follows.
    let seat = match &query.ticket {
        None => None,
        Some(ticket) => {
            let taken = state.tickets.lock().unwrap_or_else(|e| e.into_inner()).remove(ticket);
            match taken {
                Some((game, seat, until)) if game == id && until > Instant::now() => Some(seat),
                _ => {
                    return Err(ApiError::Forbidden(
                        "that ticket is not good (used, expired or for another game)".into(),
                    ))
                }
            }
        }
    };
    let live = state.game(&id).await?;
    // Held while the stream is open: one client address, or everyone on one game, cannot hold
    // every connection the server has.
    let by_address = state.streams_by_address.try_hold(client.ip()).ok_or_else(|| ApiError::TooMany {
        what: format!("this address has {} event streams open already", state.config.max_streams_per_address),
        retry_after: 30,
    })?;
    let by_game = state.streams_by_game.try_hold(id.clone()).ok_or_else(|| ApiError::TooMany {
        what: format!("this game has {} event streams open already", state.config.max_streams_per_game),
        retry_after: 30,
    })?;
    let held = (by_address, by_game);
    let (receiver, viewer, presence) = {
        let mut game = live.lock().await;
        // The seat may have been given up since the ticket was issued.
        let viewer = seat.filter(|&s| game.row.seats.get(s).is_some_and(|spec| spec != "open"));
        (game.events.subscribe(), viewer, game.presence_guard(viewer))
    };
    let stream = futures_util::stream::unfold(
        (receiver, live, viewer, (presence, held), None),
        |(mut receiver, live, viewer, presence, mut sent)| async move {
            let note = if sent.is_none() {
                crate::live::Note { change: Change::Connected, seat: viewer }
            } else {
                match receiver.recv().await {
                    Ok(note) => note,
                    // Missed some: the state sent next is the current one anyway.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        crate::live::Note { change: Change::Connected, seat: None }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                }
            };
            let data = live.lock().await.event_data(viewer, note, &mut sent);
            let event = SseEvent::default().event("state").data(data);
            Some((Ok(event), (receiver, live, viewer, presence, sent)))
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// The public board after `ply` moves, for stepping through a game (nothing hidden: Mathable's
/// racks are counts, as a watcher sees them).
async fn board_at(
    State(state): State<Shared>,
    UrlPath((id, ply)): UrlPath<(String, usize)>,
) -> Result<Json<Value>, ApiError> {
    let live = state.game(&id).await?;
    let game = live.lock().await;
    let board = game.session.board_at(ply).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok(Json(json!({"ply": ply, "board": board})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    #[serde(rename = "move")]
    notation: String,
    token: String,
    /// The number of moves the client saw; a mismatch means someone else moved first (409).
    ply: Option<usize>,
}

async fn submit_move(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    let ply = game.session.ply();
    if let Some(seen) = request.ply.filter(|&p| p != ply) {
        return Err(ApiError::Conflict(format!("the game has moved on: it is at move {ply}, not {seen}")));
    }
    match game.to_move() {
        None => return Err(ApiError::Illegal("the game is over".into())),
        Some(to_move) if to_move != seat => return Err(ApiError::Conflict("it is not your turn".into())),
        Some(_) => {}
    }
    state.check_writable()?;
    game.pace(seat)?;
    // The game's agreement move (Mathable's terminate) is never a free win against the
    // computer: each computer seat answers it at once (the library decides) and may refuse.
    if let Some(agreement) = game.session.agreement_move() {
        if game.session.check_move(&request.notation).is_ok_and(|n| n == agreement) {
            for other in (0..game.session.num_seats()).filter(|&s| s != seat && game.is_computer(s)) {
                game.session.agrees_to_end(other).map_err(|e| ApiError::Illegal(e.to_string()))?;
            }
        }
    }
    if game.asks_others(seat) {
        // Between people, the game's agreement move (Mathable's terminate) is a proposal the
        // others must accept: checked, not played.
        let notation = game.session.check_move(&request.notation).map_err(|e| ApiError::Illegal(e.to_string()))?;
        if game.session.agreement_move().as_deref() == Some(notation.as_str()) {
            game.propose(&state, ProposalKind::Terminate, seat).await?;
            return Ok(Json(game.state(Some(seat))));
        }
    }
    let notation = game.session.play(&request.notation).map_err(|e| ApiError::Illegal(e.to_string()))?;
    game.store_move(&state, ply, &notation).await?;
    game.changed(Change::Move, Some(seat));
    crate::live::schedule_for(&state, &mut game, client.ip()).await;
    Ok(Json(game.state(Some(seat))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenRequest {
    token: String,
}

async fn undo(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    if game.to_move().is_none() {
        return Err(ApiError::Illegal("the game has ended".into()));
    }
    state.check_writable()?;
    game.pace(seat)?;
    if game.asks_others(seat) {
        game.request_takeback(&state, seat).await?;
        return Ok(Json(game.state(Some(seat))));
    }
    // Against the computer (or only people who resigned): the last full round.
    let target = game.undo_against_the_computer()?;
    game.take_back_to(&state, target).await?;
    game.changed(Change::Undo, Some(seat));
    crate::live::schedule_for(&state, &mut game, client.ip()).await;
    Ok(Json(game.state(Some(seat))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProposalAnswer {
    token: String,
    accept: bool,
}

async fn answer_proposal(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<ProposalAnswer>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    state.check_writable()?;
    game.answer_proposal(&state, seat, request.accept).await?;
    crate::live::schedule_for(&state, &mut game, client.ip()).await;
    Ok(Json(game.state(Some(seat))))
}

async fn resign(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    if game.to_move().is_none() {
        return Err(ApiError::Illegal("the game is already over".into()));
    }
    state.check_writable()?;
    game.resign(&state, seat).await?;
    if game.to_move().is_none() {
        state.open_games().closed(&id);
    }
    crate::live::schedule_for(&state, &mut game, client.ip()).await;
    Ok(Json(game.state(Some(seat))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HintRequest {
    token: Option<String>,
    /// Accepted as before (the hint is always for the current position), not read.
    #[allow(dead_code)]
    ply: Option<usize>,
}

/// The seat a hint or analysis is for, if this viewer may have it now.
fn may_think_for(game: &LiveGame, token: Option<&str>) -> Result<usize, ApiError> {
    let seat = game
        .seat_of(token)
        .ok_or_else(|| ApiError::Forbidden("hints are for the seat to move: send its token".into()))?;
    if game.to_move() != Some(seat) {
        return Err(ApiError::Forbidden("hints are only for the seat to move".into()));
    }
    if !game.hints_allowed() {
        return Err(ApiError::Forbidden("hints are off in this game between people".into()));
    }
    Ok(seat)
}

async fn hint(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<HintRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let live = state.game(&id).await?;
    let (snapshot, flag) = {
        let game = live.lock().await;
        may_think_for(&game, request.token.as_deref())?;
        (game.session.boxed_clone(), game.cancel.clone())
    };
    // The analysis' settings, so that the hint is the analysis' best move.
    let budget = analysis_budget(&state);
    let name = snapshot.game();
    let caps = state.caps();
    let key = crate::engines::JobKey::Address(client.ip());
    let advice =
        state.pool.run(key, true, flag, move |slots| snapshot.hint(slots.slot(name), budget, &caps)).await.map_err(
            |e| match e {
                crate::engines::PoolError::Busy => ApiError::Busy,
                other => ApiError::Internal(other.to_string()),
            },
        )?;
    Ok(Json(advice.unwrap_or(Value::Null)))
}

/// The time setting of the page's analysis and hint (the same, so that the hint is the
/// analysis' best move): 1.5 s, or the server's longest thinking time if shorter. It picks the
/// depth and the solvers' budgets from each game's calibration before searching (see
/// `tabletop::analysis`), so the values do not depend on how busy the server is.
fn analysis_budget(state: &AppState) -> Duration {
    state.config.max_think.min(ANALYSIS_TIME)
}

/// `POST /api/games/{id}/analysis`: the body. `step` (default 0) asks for a refinement step
/// of the analysis (see [`refine_budget`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisRequest {
    token: Option<String>,
    ply: Option<usize>,
    step: Option<u32>,
}

/// The time setting of refinement step `step` of an analysis, and the last step there is: the
/// analysis' time (1.5 s, or `--max-think` if shorter) doubled per step, up to half of
/// `--max-think` (half, so that a search planned from the calibration still ends before the
/// watchdog on a busy machine). The last step is the first that reaches that cap (0 when the
/// analysis' time already does). Each step's setting is fixed, so the same step of the same
/// position gets the same values; `None` past the last step.
///
/// With the defaults (`--max-think 10`): 1.5 s, 3 s, 5 s, so steps 0 to 2.
pub fn refine_budget(max_think: Duration, step: u32) -> Option<(Duration, u32)> {
    let base = max_think.min(ANALYSIS_TIME);
    let cap = base.max(max_think / 2);
    let mut last = 0;
    while last < 30 && base.saturating_mul(1 << last) < cap {
        last += 1;
    }
    (step <= last).then(|| (base.saturating_mul(1 << step).min(cap), last))
}

/// The analysis' time setting of the page (the hint's too), before any refinement.
const ANALYSIS_TIME: Duration = Duration::from_millis(1500);

async fn analysis(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<AnalysisRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let step = request.step.unwrap_or(0);
    let Some((budget, last_step)) = refine_budget(state.config.max_think, step) else {
        let last = refine_budget(state.config.max_think, 0).map_or(0, |(_, last)| last);
        return Err(ApiError::BadRequest(format!("no refinement step {step}: the steps are 0 to {last}")));
    };
    let live = state.game(&id).await?;
    let (snapshot, flag, ply, may_refine) = {
        let game = live.lock().await;
        let over = game.to_move().is_none();
        if over && !game.session.hidden_information() {
            let ply = request.ply.unwrap_or(game.session.ply());
            if ply > game.session.ply() {
                return Err(ApiError::BadRequest(format!("the game has {} moves", game.session.ply())));
            }
            // Anyone may analyse a finished game, as before; only its players refine it.
            let player = game.seat_of(request.token.as_deref()).is_some();
            if step > 0 && !player {
                return Err(ApiError::Forbidden(
                    "refining the analysis of a finished game is for its players: send a seat's token".into(),
                ));
            }
            (game.session.boxed_clone(), game.cancel.clone(), Some(ply), player)
        } else {
            may_think_for(&game, request.token.as_deref())?;
            if request.ply.is_some_and(|p| p != game.session.ply()) {
                return Err(ApiError::Forbidden("during the game, only the current position can be analysed".into()));
            }
            (game.session.boxed_clone(), game.cancel.clone(), None, true)
        }
    };
    let key = crate::engines::JobKey::Address(client.ip());
    let job = flag.clone();
    let work = move |_: &mut crate::engines::Slots| snapshot.analyze(ply, budget);
    // Step 0 is a hint-sized job; the longer refinements wait in the long lane, which never
    // holds every worker (computer moves keep one), both refused (503) when too many wait.
    let answer = if step == 0 {
        state.pool.run(key, true, job, work).await
    } else {
        state.pool.run_long_optional(key, job, work).await
    }
    .map_err(|e| match e {
        crate::engines::PoolError::Busy => ApiError::Busy,
        other => ApiError::Internal(other.to_string()),
    })?;
    if flag.is_cancelled() {
        // Stopped by an undo, a resignation or the watchdog: not the reproducible answer.
        let mut game = live.lock().await;
        if game.cancel.is_same(&flag) && !game.thinking {
            // The watchdog raised the game's flag: the game's next thinking needs a fresh one
            // (a computer thinking under it renews it itself when it is done).
            game.cancel = tabletop::cancel::CancelFlag::new();
        }
        return Err(ApiError::Busy);
    }
    let mut answer = answer.map_err(|e| ApiError::Illegal(e.to_string()))?;
    let open = answer["open"].as_array().is_some_and(|open| !open.is_empty());
    // A further step can value more: some move is open and searched (a depth), not one of the
    // values no search gives (Mathable's points).
    let refinable = may_refine && step < last_step && open && !answer["depth"].is_null();
    answer["step"] = step.into();
    answer["last_step"] = last_step.into();
    answer["refinable"] = refinable.into();
    Ok(Json(answer))
}

/// The time the analysis of each position of a review may take.
pub const REVIEW_PER_POSITION: Duration = Duration::from_millis(250);

/// Positions of a review per engine job: each job stays well within the wait an optional job
/// is given ([`crate::engines::OPTIONAL_WAIT`]).
pub const REVIEW_CHUNK: usize = 8;

/// `GET /api/games/{id}/review`: every move of a finished game against the best move, for
/// anyone who may see the game (a finished game hides nothing). Computed once per game through
/// the engine pool, position after position in jobs of [`REVIEW_CHUNK`], as the analysis is;
/// every other request for it waits for that one computation.
async fn review(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Value>, ApiError> {
    let live = state.game(&id).await?;
    let (snapshot, flag, cell) = {
        let mut game = live.lock().await;
        if game.to_move().is_some() {
            return Err(ApiError::Conflict("only a finished game can be reviewed".into()));
        }
        let moves = game.session.moves();
        let cell = match &game.review {
            Some((of, cell)) if *of == moves => cell.clone(),
            _ => {
                let cell = Arc::new(tokio::sync::OnceCell::new());
                game.review = Some((moves, cell.clone()));
                cell
            }
        };
        (game.session.boxed_clone(), game.cancel.clone(), cell)
    };
    let budget = state.config.max_think.min(REVIEW_PER_POSITION);
    let settings = tabletop::review::ReviewSettings::time(budget);
    let key = crate::engines::JobKey::Address(client.ip());
    let value = cell
        .get_or_try_init(|| async move {
            let plies = snapshot.ply();
            let mut whole: Option<Value> = None;
            let mut from = 0;
            while from < plies.max(1) {
                let to = (from + REVIEW_CHUNK).min(plies);
                let part = snapshot.boxed_clone();
                let answer = state
                    .pool
                    .run(key.clone(), true, flag.clone(), move |_slots| part.review(from, to, settings))
                    .await
                    .map_err(|e| match e {
                        crate::engines::PoolError::Busy => ApiError::Busy,
                        other => ApiError::Internal(other.to_string()),
                    })?
                    .map_err(|e| ApiError::Internal(e.to_string()))?;
                match &mut whole {
                    None => whole = Some(answer),
                    Some(w) => {
                        for field in ["moves", "values"] {
                            if let (Some(into), Some(more)) = (w[field].as_array_mut(), answer[field].as_array()) {
                                into.extend(more.iter().cloned());
                            }
                        }
                    }
                }
                from = to.max(from + 1);
            }
            whole.ok_or_else(|| ApiError::Internal("empty review".into()))
        })
        .await?;
    Ok(Json(value.clone()))
}

/// The flag of a game's current thinking (used by tests to see that work is cancelled).
pub fn thinking_count(state: &AppState) -> usize {
    state.thinking.load(Ordering::SeqCst)
}
