//! The HTTP server: the page, and the JSON API documented in docs/API.md.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rand::RngCore;
use serde::Deserialize;
use serde_json::{json, Value};
use tabletop::PlayerSpec;

use crate::sessions::{new_session, Session};
use crate::store::{GameRow, Store, StoreError};

/// Request bodies larger than this are refused (413).
pub const BODY_LIMIT: usize = 16 * 1024;

/// Why a request failed; each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the request is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// 403: a seat's move without that seat's token.
    #[error("{0}")]
    Forbidden(String),
    /// 413: the body is over [`BODY_LIMIT`].
    #[error("request body too large (limit {BODY_LIMIT} bytes)")]
    TooLarge,
    /// 404: no such game.
    #[error("no game with id {0:?}")]
    NotFound(String),
    /// 409: the game moved on (another request won, or it is not this seat's turn).
    #[error("{0}")]
    Conflict(String),
    /// 422: the rules refuse the move; the reason is the one the terminal gives.
    #[error("{0}")]
    Illegal(String),
    /// 500: storage failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::Illegal(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (status, Json(json!({"error": self.to_string()}))).into_response()
    }
}

struct LiveGame {
    row: GameRow,
    session: Box<dyn Session>,
    thinking: bool,
}

impl LiveGame {
    fn seat_of(&self, token: Option<&str>) -> Option<usize> {
        let token = token?;
        self.row.tokens.iter().position(|t| t == token)
    }

    /// The seat a request's token holds, or 403.
    fn require_seat(&self, token: &str) -> Result<usize, ApiError> {
        self.seat_of(Some(token)).ok_or_else(|| ApiError::Forbidden("that token holds no seat in this game".into()))
    }

    fn is_computer(&self, seat: usize) -> bool {
        self.row.seats.get(seat).is_some_and(|s| s != "human")
    }

    fn state(&self, viewer: Option<usize>) -> Value {
        let mut view = self.session.view(viewer);
        if let Some(ended) = &self.row.ended {
            view["status"] = json!({"over": true, "to_move": null, "winners": [], "reason": ended});
            view["legal"] = json!([]);
        }
        view["id"] = json!(self.row.id);
        view["seats"] = json!(self.row.seats);
        view["options"] = self.row.options.clone();
        view["thinking"] = json!(self.thinking);
        view["your_seat"] = json!(viewer);
        view
    }

    fn to_move(&self) -> Option<usize> {
        if self.row.ended.is_some() {
            None
        } else {
            self.session.to_move()
        }
    }
}

/// The server's shared state.
pub struct AppState {
    store: Mutex<Store>,
    games: Mutex<HashMap<String, Arc<tokio::sync::Mutex<LiveGame>>>>,
}

type Shared = Arc<AppState>;

impl AppState {
    /// State over an opened store.
    pub fn new(store: Store) -> Shared {
        Arc::new(AppState { store: Mutex::new(store), games: Mutex::new(HashMap::new()) })
    }

    /// The game locked for a change by the seat `token` holds (404 or 403 otherwise).
    async fn seated(&self, id: &str, token: &str) -> Result<(tokio::sync::OwnedMutexGuard<LiveGame>, usize), ApiError> {
        let game = self.game(id)?.lock_owned().await;
        let seat = game.require_seat(token)?;
        Ok((game, seat))
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The live game, loaded from the database (moves replayed) on first use.
    fn game(&self, id: &str) -> Result<Arc<tokio::sync::Mutex<LiveGame>>, ApiError> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(game) = games.get(id) {
            return Ok(game.clone());
        }
        let (row, moves) = self.store().load(id)?.ok_or_else(|| ApiError::NotFound(id.to_string()))?;
        let mut session = new_session(&row.game, &row.options).map_err(ApiError::BadRequest)?;
        for notation in &moves {
            session.play(notation).map_err(|e| ApiError::BadRequest(format!("stored move {notation}: {e}")))?;
        }
        let game = Arc::new(tokio::sync::Mutex::new(LiveGame { row, session, thinking: false }));
        games.insert(id.to_string(), game.clone());
        Ok(game)
    }
}

/// A body that is not the JSON expected: 413 when too large, else 400 with serde's reason.
fn bad_body(rejection: JsonRejection) -> ApiError {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::TooLarge
    } else {
        ApiError::BadRequest(rejection.body_text())
    }
}

fn random_hex() -> String {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

/// The router: the page and the API.
pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(|| async { Html(INDEX_HTML) }))
        .route("/app.js", get(|| async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS) }))
        .route("/style.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE_CSS) }))
        .route("/api/games", get(list_games).post(create_game))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/moves", post(submit_move))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// Opens the database and serves on `addr` until interrupted; prints the address to open.
pub async fn serve(addr: SocketAddr, db: &Path) -> Result<(), ServeError> {
    let store = Store::open(db)?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| ServeError::Bind(addr, e))?;
    let local = listener.local_addr().map_err(|e| ServeError::Bind(addr, e))?;
    println!("tabletop is serving on http://{local}/ (database {})", db.display());
    axum::serve(listener, router(AppState::new(store)))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(ServeError::Serve)
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

async fn list_games(State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    let rows = state.store().recent(50)?;
    let games: Vec<Value> = rows
        .into_iter()
        .map(|(id, game, created, moves)| json!({"id": id, "game": game, "created": created, "moves": moves}))
        .collect();
    Ok(Json(json!({ "games": games })))
}

#[derive(Deserialize)]
struct CreateRequest {
    game: String,
    #[serde(default)]
    options: Value,
    #[serde(default)]
    seats: Vec<String>,
}

async fn create_game(
    State(state): State<Shared>,
    body: Result<Json<CreateRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let mut options = if request.options.is_null() { json!({}) } else { request.options };
    if !options.is_object() {
        return Err(ApiError::BadRequest("options must be a JSON object".into()));
    }
    crate::sessions::complete_options(&request.game, &mut options);
    let session = new_session(&request.game, &options).map_err(ApiError::BadRequest)?;
    let seats_needed = session.num_seats();
    let mut seats = request.seats;
    if seats.is_empty() {
        seats = vec!["human".to_string(); seats_needed];
        if seats_needed == 2 {
            seats[1] = "engine".to_string();
        }
    }
    if seats.len() != seats_needed {
        return Err(ApiError::BadRequest(format!("{} needs {seats_needed} seats, got {}", request.game, seats.len())));
    }
    for text in &seats {
        let spec: PlayerSpec = text.parse().map_err(|e: tabletop::SpecError| ApiError::BadRequest(e.to_string()))?;
        session.check_spec(&spec).map_err(ApiError::BadRequest)?;
    }
    let created = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let row = GameRow {
        id: random_hex(),
        game: request.game,
        options,
        seats,
        tokens: (0..seats_needed).map(|_| random_hex()).collect(),
        ended: None,
        created,
    };
    state.store().insert_game(&row)?;
    let id = row.id.clone();
    let tokens = row.tokens.clone();
    let live = Arc::new(tokio::sync::Mutex::new(LiveGame { row, session, thinking: false }));
    state.games.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), live.clone());
    let mut game = live.lock().await;
    schedule_computer(&state, &id, &mut game);
    Ok(Json(json!({"id": id, "tokens": tokens, "state": game.state(Some(0))})))
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

async fn get_game(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    Query(query): Query<TokenQuery>,
) -> Result<Json<Value>, ApiError> {
    let live = state.game(&id)?;
    let game = live.lock().await;
    let viewer = game.seat_of(query.token.as_deref());
    Ok(Json(game.state(viewer)))
}

#[derive(Deserialize)]
struct MoveRequest {
    #[serde(rename = "move")]
    notation: String,
    token: String,
    /// The number of moves the client saw; a mismatch means someone else moved first (409).
    ply: Option<usize>,
}

async fn submit_move(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<MoveRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    let ply = game.session.moves().len();
    if request.ply.is_some_and(|p| p != ply) {
        return Err(ApiError::Conflict(format!(
            "the game has moved on: it is at move {ply}, not {}",
            request.ply.unwrap_or(0)
        )));
    }
    match game.to_move() {
        None => return Err(ApiError::Illegal("the game is over".into())),
        Some(to_move) if to_move != seat => return Err(ApiError::Conflict("it is not your turn".into())),
        Some(to_move) if game.is_computer(to_move) => {
            return Err(ApiError::Conflict("the computer plays this seat".into()))
        }
        Some(_) => {}
    }
    let notation = game.session.play(&request.notation).map_err(ApiError::Illegal)?;
    if let Err(err) = state.store().append_move(&id, ply, &notation) {
        game.session.undo();
        return Err(err.into());
    }
    schedule_computer(&state, &id, &mut game);
    Ok(Json(game.state(Some(seat))))
}

/// If a computer is to move, thinks off the async runtime, then plays and stores its move.
fn schedule_computer(state: &Shared, id: &str, game: &mut LiveGame) {
    let Some(seat) = game.to_move() else { return };
    if !game.is_computer(seat) || game.thinking {
        return;
    }
    let Ok(spec) = game.row.seats[seat].parse::<PlayerSpec>() else { return };
    game.thinking = true;
    let ply = game.session.moves().len();
    let snapshot = game.session.boxed_clone();
    let (state, id) = (state.clone(), id.to_string());
    tokio::spawn(async move {
        let chosen = tokio::task::spawn_blocking(move || snapshot.computer_move(&spec)).await;
        let Ok(live) = state.game(&id) else { return };
        let mut game = live.lock().await;
        game.thinking = false;
        // Undo or resignation while thinking makes the move stale.
        if game.session.moves().len() != ply || game.to_move() != Some(seat) {
            schedule_computer(&state, &id, &mut game);
            return;
        }
        if let Ok(Ok(notation)) = chosen {
            if game.session.play(&notation).is_ok() {
                if state.store().append_move(&id, ply, &notation).is_err() {
                    game.session.undo();
                    return;
                }
                schedule_computer(&state, &id, &mut game);
            }
        }
    });
}

async fn hint(State(state): State<Shared>, UrlPath(id): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    let live = state.game(&id)?;
    let snapshot = {
        let game = live.lock().await;
        if game.to_move().is_none() {
            return Err(ApiError::Illegal("the game is over".into()));
        }
        game.session.boxed_clone()
    };
    let advice = tokio::task::spawn_blocking(move || snapshot.hint())
        .await
        .map_err(|e| ApiError::BadRequest(format!("hint failed: {e}")))?;
    Ok(Json(advice.unwrap_or(Value::Null)))
}

#[derive(Deserialize)]
struct TokenRequest {
    token: String,
}

async fn undo(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    if game.row.ended.is_some() {
        return Err(ApiError::Illegal("the game has ended".into()));
    }
    // Take back the last full round: until a person is to move again, having undone at least one move.
    if !game.session.undo() {
        return Err(ApiError::Illegal("nothing to undo".into()));
    }
    while game.session.to_move().is_some_and(|s| game.is_computer(s)) && game.session.undo() {}
    let ply = game.session.moves().len();
    state.store().truncate_moves(&id, ply)?;
    game.thinking = false;
    schedule_computer(&state, &id, &mut game);
    Ok(Json(game.state(Some(seat))))
}

async fn resign(
    State(state): State<Shared>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<TokenRequest>, JsonRejection>,
) -> Result<Json<Value>, ApiError> {
    let Json(request) = body.map_err(bad_body)?;
    let (mut game, seat) = state.seated(&id, &request.token).await?;
    if game.to_move().is_none() {
        return Err(ApiError::Illegal("the game is already over".into()));
    }
    let ended = format!("seat {seat} resigned");
    state.store().set_ended(&id, &ended)?;
    game.row.ended = Some(ended);
    Ok(Json(game.state(Some(seat))))
}
