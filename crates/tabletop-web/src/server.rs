//! The HTTP server: the page, the JSON API documented in docs/API.md, and its defences.
//!
//! - [`start`] binds, opens the database, resumes computer seats that are to move, and serves
//!   connections itself (hyper) so that header and idle timeouts and a connection cap apply.
//! - The router: routes, per-client rate limits, the body limit (from `Content-Length`), the
//!   request log, and every error as JSON.
//! - The handlers: each extracts its request (path, body, query, token, client address), makes
//!   ONE call into [`crate::service`] (the game flow) or [`crate::page`] (the page's files and
//!   catalog), and turns the answer or the [`ApiError`] into a response.
//!
//! # The layering rule (checked by `tests/layers.rs`)
//!
//! This file routes, extracts and maps errors; it never drives a game. Outside comments and
//! string literals it names nothing of the library (`tabletop::`), no session (`Session`,
//! `sessions`, `.session`, `new_session`, `boxed_clone`), no game in memory (`LiveGame`,
//! `.lock()`, `seated`, `schedule`), and calls no session method (`.play(`, `.view(`,
//! `check_move`, `agreement_move`, `board_at(` on a game, ...): all of that is
//! [`crate::service`]'s, over [`crate::live`]. Each handler calls [`crate::service`] at most
//! once.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

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
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::GovernorLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::trace::{DefaultOnFailure, DefaultOnResponse, TraceLayer};

use crate::config::ServeConfig;
pub use crate::error::ApiError;
use crate::live::{AppState, Shared};
use crate::service::accounts::{AccountAnswer, Credentials, PasswordChange, PasswordConfirm, SessionCookie};
use crate::service::players::Export;
use crate::service::seeks::start_waves;
use crate::service::{
    AnalysisRequest, ClaimRequest, HintRequest, MoveRequest, NewGame, Outgoing, PongRequest, ProposalAnswer,
    TokenRequest,
};
use crate::store::{Store, StoreError};

pub use crate::error::BODY_LIMIT;
pub use crate::service::{refine_budget, thinking_count, REVIEW_CHUNK, REVIEW_PER_POSITION};

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match &self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) | ApiError::NoSuchPlayer(_) | ApiError::NoSuchEntry => StatusCode::NOT_FOUND,
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

/// A file of the page, with its type.
fn asset(path: &str) -> Option<Response> {
    let (kind, data) = crate::page::file(path)?;
    Some(([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], data).into_response())
}

async fn page() -> Response {
    match crate::page::file("index.html") {
        Some((_, data)) => Html(data).into_response(),
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

/// Refuses a state-changing request that carries a login cookie unless the browser says it
/// comes from this server's own page: `Sec-Fetch-Site`, when sent, must be `same-origin`, and
/// without it an `Origin` must be present (and [`same_origin`] has checked it is ours). A
/// cookie is sent by the browser on its own, so a request carrying one must prove where it
/// comes from; requests without the cookie (scripts, seats' tokens in bodies) are unchanged.
async fn cookie_origin(request: Request, next: axum::middleware::Next) -> Response {
    if request.method() == axum::http::Method::GET
        || request.method() == axum::http::Method::HEAD
        || session_cookie(request.headers(), COOKIE_NAMES).is_none()
    {
        return next.run(request).await;
    }
    let headers = request.headers();
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let has_origin = headers.contains_key(header::ORIGIN);
    let allowed = match fetch_site {
        Some(site) => site.eq_ignore_ascii_case("same-origin"),
        None => has_origin,
    };
    if allowed {
        return next.run(request).await;
    }
    ApiError::Forbidden(
        "a request with a login cookie must come from this server's own page (Origin or Sec-Fetch-Site: same-origin)"
            .into(),
    )
    .into_response()
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
    // Per client address, in this process (the engine workers are its own): `rate` a minute,
    // bursts of a tenth of a minute's worth.
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
    let thinking = Router::new()
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/analysis", post(analysis))
        .route("/api/games/{id}/review", get(review))
        .layer(per_minute(config.hint_rate));
    Router::new()
        .route("/", get(page))
        .route("/game/{id}", get(page))
        .route("/player/{name}", get(page))
        .route("/api/lobby", get(lobby))
        .route("/api/catalog", get(catalog))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/events", get(events))
        .route("/api/games/{id}/ticket", post(ticket))
        .route("/api/games/{id}/pong", post(pong))
        .route("/api/games/{id}/boards/{ply}", get(board_at))
        .route("/api/games/{id}/moves", post(submit_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/proposal", post(answer_proposal))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/claim-win", post(claim_win))
        .route("/api/account", get(whoami))
        .route("/api/account/signup", post(signup))
        .route("/api/account/login", post(login))
        .route("/api/account/logout", post(logout))
        .route("/api/account/password", post(change_password))
        .route("/api/account/delete", post(delete_account))
        .route("/api/account/bot", post(become_bot))
        .route("/api/account/token", post(new_api_token))
        .route("/api/account/token/revoke", post(revoke_api_token))
        .route("/api/bot/challenges", get(bot_challenges))
        .route("/api/players/{name}", get(player))
        .route("/api/players/{name}/games", get(player_games))
        // Starting games, moves, proposals and seeks are limited by account or address in the
        // service, through the database (`crate::live::limits`): shared by every process.
        .route("/api/games", post(create_game))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/claim", post(claim))
        .route("/api/games/{id}/rematch", post(rematch))
        .route("/api/pool", post(enter_pool))
        .route("/api/pool/{entry}", get(poll_pool).delete(leave_pool))
        .merge(thinking)
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(state.clone(), body_deadline))
        .layer(axum::middleware::map_response(json_errors))
        .layer(axum::middleware::from_fn(cookie_origin))
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
    state.passwords.prepare();
    crate::live::start_background(&state);
    // The quick-pairing waves (start is no handler: it may start what the service runs).
    start_waves(&state);
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

// ---- The handlers: extract, one call, answer. ----

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
    body: Result<Json<NewGame>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let origin = origin(&state, &headers);
    Ok(Json(crate::service::create(&state, client.ip(), &origin, request, login_token(&state, &headers)).await?))
}

/// `GET /api/catalog`: see [`crate::page::catalog`].
async fn catalog() -> Json<Value> {
    Json(crate::page::catalog().clone())
}

async fn lobby(State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    Ok(Json(crate::service::lobby(&state).await?))
}

/// `POST /api/pool` with `{"game", "options"?, "clock", "rated"?}`: enters a quick-pairing pool
/// (see [`crate::service::seeks::enter`]).
async fn enter_pool(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<crate::service::seeks::PoolRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::seeks::enter(&state, client.ip(), request, login_token(&state, &headers)).await?))
}

/// `GET /api/pool/{entry}` with `Authorization: Bearer SECRET`: the entry, waiting or paired.
async fn poll_pool(
    State(state): State<Shared>,
    UrlPath(entry): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(crate::service::seeks::poll(&state, &entry, bearer(&headers)).await?))
}

/// `DELETE /api/pool/{entry}` with `Authorization: Bearer SECRET`: leaves the pool.
async fn leave_pool(
    State(state): State<Shared>,
    UrlPath(entry): UrlPath<String>,
    headers: HeaderMap,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(crate::service::seeks::leave(&state, &entry, bearer(&headers)).await?))
}

/// The body of a join: an empty JSON object (a JSON body cannot come from another site's form).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinRequest {}

async fn join(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Result<Json<JoinRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(JoinRequest {}) = body.map_err(bad_body)?;
    Ok(Json(crate::service::join(&state, client.ip(), &id, login_token(&state, &headers)).await?))
}

/// `POST /api/games/{id}/claim` with `{"invite", "token"?}`: opens an invitation (see
/// [`crate::service::claim`]).
async fn claim(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    body: Result<Json<ClaimRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::claim(&state, client.ip(), &id, request, login_token(&state, &headers)).await?))
}

/// What a state request may carry in its query: nothing secret. A seat's token comes in the
/// `Authorization: Bearer` header, never in a URL (proxies and logs keep URLs).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StateQuery {}

/// An event stream's query: a seat's single-use ticket (from `POST .../ticket`), or nothing for
/// a watcher; and whether the client answers pings.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
    ticket: Option<String>,
    /// Does the client answer pings (`pings=true`)? Only a seat's stream in a game with a
    /// real-time clock is pinged.
    pings: Option<bool>,
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
    Ok(Json(crate::service::view(&state, &id, bearer(&headers)).await?))
}

/// `POST /api/games/{id}/ticket` with `{"token"}`: a single-use ticket, good for a minute, that
/// opens the seat's event stream (`GET .../events?ticket=T`).
async fn ticket(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::ticket(&state, &id, &request.token).await?))
}

/// `POST /api/games/{id}/pong` with `{"token", "ping"}`: see [`crate::service::pong`].
async fn pong(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<PongRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::pong(&state, &id, request).await?))
}

async fn events(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, std::convert::Infallible>>>, ApiError> {
    let Query(query) = query.map_err(bad_query)?;
    let pings = query.pings.unwrap_or(false);
    let watch = crate::service::watch(&state, client.ip(), &id, query.ticket.as_deref(), pings).await?;
    let stream = futures_util::stream::unfold(watch, |mut watch| async move {
        let event = match watch.next().await? {
            Outgoing::State(data) => SseEvent::default().event("state").data(data),
            Outgoing::Ping(id) => SseEvent::default().event("ping").data(json!({"ping": id}).to_string()),
        };
        Some((Ok(event), watch))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// The public board after `ply` moves, for stepping through a game.
async fn board_at(
    State(state): State<Shared>,
    UrlPath((id, ply)): UrlPath<(String, usize)>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(crate::service::board_at(&state, &id, ply).await?))
}

async fn submit_move(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::play(&state, client.ip(), &id, request).await?))
}

async fn undo(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::undo(&state, client.ip(), &id, &request.token).await?))
}

async fn answer_proposal(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<ProposalAnswer>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::answer_proposal(&state, client.ip(), &id, request).await?))
}

async fn rematch(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::rematch(&state, client.ip(), &id, &request.token).await?))
}

async fn resign(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::resign(&state, client.ip(), &id, &request.token).await?))
}

/// `POST /api/games/{id}/claim-win` with `{"token"}`: see [`crate::service::claim_win`].
async fn claim_win(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::claim_win(&state, client.ip(), &id, &request.token).await?))
}

async fn hint(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<HintRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::hint(&state, client.ip(), &id, request).await?))
}

async fn analysis(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<AnalysisRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    Ok(Json(crate::service::analysis(&state, client.ip(), &id, request).await?))
}

/// `GET /api/games/{id}/review`: see [`crate::service::review`].
async fn review(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(crate::service::review(&state, client.ip(), &id).await?))
}

// ---- Accounts (see `crate::service::accounts`): the session cookie is HTTP, so it is here. ----

/// The login cookie's names: `__Host-tabletop_session` when it is `Secure` (the prefix makes
/// browsers refuse it without `Secure`, `Path=/` or with a `Domain`), else `tabletop_session`.
const COOKIE_NAMES: &[&str] = &["__Host-tabletop_session", "tabletop_session"];

/// The cookie's name under this server's settings.
fn cookie_name(state: &AppState) -> &'static str {
    if state.config.cookies_secure() {
        COOKIE_NAMES[0]
    } else {
        COOKIE_NAMES[1]
    }
}

/// The value of the first cookie named one of `names` in the request's `Cookie` headers.
fn session_cookie<'a>(headers: &'a HeaderMap, names: &[&str]) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| names.contains(name))
        .map(|(_, value)| value.trim())
}

/// The client's login token, from the cookie this server's settings name; else a bot's API
/// token from `Authorization: Bearer` (see [`crate::service::bots`]). A Bearer request needs no
/// CSRF check ([`cookie_origin`] passes it): a browser never adds that header on its own, so
/// another site's page cannot send it in the bot's name; only a cookie travels by itself.
fn login_token<'a>(state: &AppState, headers: &'a HeaderMap) -> Option<&'a str> {
    session_cookie(headers, &[cookie_name(state)])
        .or_else(|| bearer(headers).filter(|t| crate::service::bots::is_api_token(t)))
}

/// An account answer as a response: its JSON, the cookie's change, and no caching.
fn account_response(state: &AppState, answer: AccountAnswer) -> Response {
    let secure = if state.config.cookies_secure() { "; Secure" } else { "" };
    let name = cookie_name(state);
    let cookie = match answer.cookie {
        SessionCookie::Unchanged => None,
        SessionCookie::Set { token, lifetime } => {
            Some(format!("{name}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={lifetime}{secure}"))
        }
        SessionCookie::Clear => Some(format!("{name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}")),
    };
    let mut response = Json(answer.body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(value) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        headers.insert(header::SET_COOKIE, value);
    }
    response
}

/// `GET /api/account`: who the login cookie is logged in as (401 when none).
async fn whoami(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    let body = crate::service::accounts::whoami(&state, login_token(&state, &headers)).await?;
    let mut response = Json(body).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// `POST /api/account/signup` with `{"name", "password"}`.
async fn signup(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let answer = crate::service::accounts::signup(&state, client.ip(), login_token(&state, &headers), request).await?;
    Ok(account_response(&state, answer))
}

/// `POST /api/account/login` with `{"name", "password"}`.
async fn login(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<Credentials>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let answer = crate::service::accounts::login(&state, client.ip(), login_token(&state, &headers), request).await?;
    Ok(account_response(&state, answer))
}

/// The body of a logout: an empty JSON object (a JSON body cannot come from another site's form).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogoutRequest {}

/// `POST /api/account/logout` with `{}`.
async fn logout(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<LogoutRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(LogoutRequest {}) = body.map_err(bad_body)?;
    let answer = crate::service::accounts::logout(&state, login_token(&state, &headers)).await?;
    Ok(account_response(&state, answer))
}

/// `POST /api/account/password` with `{"password", "new_password"}`.
async fn change_password(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<PasswordChange>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let answer =
        crate::service::accounts::change_password(&state, client.ip(), login_token(&state, &headers), request).await?;
    Ok(account_response(&state, answer))
}

/// `POST /api/account/delete` with `{"password"}`.
async fn delete_account(
    State(state): State<Shared>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Result<Json<PasswordConfirm>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let answer = crate::service::accounts::delete(&state, client.ip(), login_token(&state, &headers), request).await?;
    Ok(account_response(&state, answer))
}

/// An empty JSON object as a body (a JSON body cannot come from another site's form).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EmptyRequest {}

/// A JSON answer that no cache keeps (an API token is in it, or depends on the login).
fn not_cached(body: Value) -> Response {
    let mut response = Json(body).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `POST /api/account/bot` with `{}`: see [`crate::service::bots::become_bot`].
async fn become_bot(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<EmptyRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(EmptyRequest {}) = body.map_err(bad_body)?;
    Ok(not_cached(crate::service::bots::become_bot(&state, session_cookie(&headers, &[cookie_name(&state)])).await?))
}

/// `POST /api/account/token` with `{}`: see [`crate::service::bots::new_api_token`].
async fn new_api_token(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<EmptyRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(EmptyRequest {}) = body.map_err(bad_body)?;
    let cookie = session_cookie(&headers, &[cookie_name(&state)]);
    Ok(not_cached(crate::service::bots::new_api_token(&state, cookie).await?))
}

/// `POST /api/account/token/revoke` with `{}`: see [`crate::service::bots::revoke_api_token`].
async fn revoke_api_token(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: Result<Json<EmptyRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(EmptyRequest {}) = body.map_err(bad_body)?;
    Ok(not_cached(crate::service::bots::revoke_api_token(&state, login_token(&state, &headers)).await?))
}

/// `GET /api/bot/challenges` with a bot's API token: see [`crate::service::bots::challenges`].
async fn bot_challenges(State(state): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    Ok(not_cached(crate::service::bots::challenges(&state, login_token(&state, &headers)).await?))
}

/// `GET /api/players/{name}`: see [`crate::service::players::player`].
async fn player(State(state): State<Shared>, UrlPath(name): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    Ok(Json(crate::service::players::player(&state, &name).await?))
}

/// The query of an export: its format.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExportQuery {
    format: Option<String>,
}

/// `GET /api/players/{name}/games?format=json|text|ggf`: see
/// [`crate::service::players::export`]. A text export is a download (`Content-Disposition:
/// attachment` with its file name).
async fn player_games(
    State(state): State<Shared>,
    UrlPath(name): UrlPath<String>,
    query: Result<axum::extract::Query<ExportQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let axum::extract::Query(query) =
        query.map_err(|e| ApiError::BadRequest(at_most(&short_words(&e.body_text()), 200)))?;
    Ok(match crate::service::players::export(&state, &name, query.format.as_deref()).await? {
        Export::Json(body) => Json(body).into_response(),
        Export::File { text, filename, content_type } => {
            let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
                .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
            let mut response = ([(header::CONTENT_TYPE, content_type)], text).into_response();
            response.headers_mut().insert(header::CONTENT_DISPOSITION, disposition);
            response
        }
    })
}
