//! The game flow behind each API action: one function per action, which the handlers in
//! [`crate::server`] call once after extracting the request, and whose error they turn into a
//! response. This layer is where the library's session is driven; the handlers never touch it.
//!
//! - Here: creating a game ([`create`]), joining and opening invitations ([`join`], [`claim`]),
//!   what a viewer sees ([`view`], [`board_at`], [`lobby`]), watching ([`ticket`], [`watch`]),
//!   and a seat's actions: [`play`] (checks, pace, the agreement move, play, store, broadcast,
//!   the computer's turn), [`undo`], [`answer_proposal`], [`resign`].
//! - `thinking`: what the engines compute for people ([`hint`], [`analysis`], [`review`]).
//! - Below: [`crate::live`] keeps each game in memory (its session, its stored row, its event
//!   channel) and writes through [`crate::store`]; [`crate::engines`] does the thinking.
//!
//! A move's path: `server::submit_move` extracts the body and calls [`play`], which locks the
//! seat's game ([`AppState::seated`]), checks the turn, the pace and the agreement move, plays
//! it on the session, stores it ([`LiveGame::store_move`]), tells the event streams
//! ([`LiveGame::changed`], whose notes [`Watch::next`] renders for each stream), schedules the
//! computer if it is next ([`crate::live::schedule_for`]), and answers the mover's state.

pub mod accounts;
pub mod bots;
pub mod players;
pub mod seeks;
mod thinking;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};
use tabletop::PlayerSpec;

use crate::error::ApiError;
use crate::live::{AppState, Change, LimitKind, LiveGame, Note, PresenceGuard, ProposalKind, Shared, Who};
use crate::ratings::SeatAccount;
use crate::sessions::{new_session, Session};
use crate::store::{GameRow, StoredInvite};

pub use thinking::{
    analysis, hint, refine_budget, review, AnalysisRequest, HintRequest, ANALYSIS_TIME, REVIEW_CHUNK,
    REVIEW_PER_POSITION,
};

/// `POST /api/games`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// The game's name in the registry.
    pub game: String,
    /// Its public options (`{}` when absent).
    #[serde(default)]
    pub options: Value,
    /// Each seat's player: `human` (the creator), `open`, or a computer's spec; by default the
    /// creator against the default computer.
    #[serde(default)]
    pub seats: Vec<String>,
    /// Are hints allowed between people?
    #[serde(default)]
    pub hints: bool,
    /// The time control (`5+3`, `0:30+0.2`, `10+30x5`, `3d`, `none`; `tabletop::clock`'s
    /// syntax): a game with an open seat (the lobby) always has one, 5+3 by default; other
    /// games are unlimited by default.
    #[serde(default)]
    pub clock: Option<String>,
    /// Rated (`true`) or casual (the default): a rated game needs a limited clock (real time
    /// or correspondence), no computer seat and a logged-in creator; its seats are for
    /// accounts, each a different one.
    #[serde(default)]
    pub rated: bool,
    /// A seek's rating range, `[min, max]` (absolute ratings, inclusive, from 0 to
    /// [`seeks::MAX_RATING`]): only a logged-in account whose rating in this game type and speed
    /// is within it may take the open seat. Needs an open seat.
    #[serde(default)]
    pub rating_range: Option<[i64; 2]>,
    /// A bot account's name: the game challenges that bot, whose seat (the first person seat
    /// that is not the creator's) only it may take ([`bots`]).
    #[serde(default)]
    pub challenge: Option<String>,
}

/// `POST /api/games/{id}/moves`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// The move, in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The seat's token.
    pub token: String,
    /// The number of moves the client saw; a mismatch means someone else moved first (409).
    pub ply: Option<usize>,
    /// The network lag the client measured (milliseconds; half its last request's round trip),
    /// at most [`crate::clocks::MAX_REPORTED_LAG`], and at most what the server measured on the
    /// seat's event stream plus [`crate::clocks::LAG_MARGIN`]: given back from the seat's lag
    /// quota.
    #[serde(default)]
    pub lag_ms: Option<u64>,
}

/// The body of an action that needs only the seat's token (undo, resign, a ticket).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    /// The seat's token.
    pub token: String,
}

/// `POST /api/games/{id}/proposal`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposalAnswer {
    /// The answering seat's token.
    pub token: String,
    /// Yes or no.
    pub accept: bool,
}

/// The body of a claim: the invitation's code, and the token this browser already holds in the
/// game, if any (its creator checking the link it sent, or a person who opened it before).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    /// The invitation's code.
    pub invite: String,
    /// A token of this game the opener already holds.
    #[serde(default)]
    pub token: Option<String>,
}

/// `POST /api/games`: checks the options and seats, stores the new game, starts the computer if
/// it moves first, and answers the id, the tokens and invitations (shown only now) and the
/// creator's state. `origin` is where links point (`http://host`).
/// `login`: the client's login token, if any (the creator's seat is linked to its account).
pub async fn create(
    state: &Shared,
    client: IpAddr,
    origin: &str,
    request: NewGame,
    login: Option<&str>,
) -> Result<Value, ApiError> {
    state.check_writable()?;
    let account = accounts::seat_account(state, login).await?;
    let who = Who::of(account.as_ref(), client);
    state.limits().check(LimitKind::Create, &who).await?;
    let options = if request.options.is_null() { json!({}) } else { request.options };
    let (secret, session) = secret_and_session(state, &request.game, &options)?;
    let seats = checked_seats(state, session.as_ref(), &request.game, request.seats)?;
    // One address cannot fill the lobby: its open games are capped.
    let opens_seats = seats.iter().any(|s| s == "open");
    let control = crate::clocks::control_for(request.clock.as_deref(), opens_seats)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    if request.rated {
        check_rated(&seats, &control, account.as_ref())?;
    }
    let rating_range = seeks::checked_range(request.rating_range, opens_seats)?;
    let challenged = match &request.challenge {
        Some(name) => Some(bots::challenged(state, name, &seats, account.as_ref()).await?),
        None => None,
    };
    // Seated now: the computers and the creator's seat; an open seat or another person's
    // (an invitation) waits for its person.
    let creator = seats.iter().position(|s| s == "human");
    let seated: Vec<bool> =
        seats.iter().enumerate().map(|(seat, s)| Some(seat) == creator || (s != "human" && s != "open")).collect();
    if opens_seats {
        let cap = state.config.max_open_games_per_address;
        state.open_games().check(client, cap, crate::config::OPEN_GAME_COUNTED)?;
        // An open game is a seek: counted with the quick-pairing pool's (shared).
        state.limits().check(LimitKind::Seek, &who).await?;
    }
    // The tokens are shown in this answer only: the database keeps their hashes.
    let (tokens, token_hashes): (Vec<String>, Vec<String>) = (0..seats.len()).map(|_| crate::live::new_token()).unzip();
    // Each person's seat gets an invitation of its own, apart from its token: a code used
    // once, which gives its first opener a new token for the seat (so the link is worth
    // nothing after, and the creator's copy of the token stops working then).
    let codes: Vec<Option<String>> =
        seats.iter().map(|s| (s == "human").then(crate::live::new_token).map(|(code, _)| code)).collect();
    let invites = codes
        .iter()
        .enumerate()
        .map(|(seat, code)| {
            let reserved = challenged.as_ref().filter(|(s, _)| *s == seat).map(|(_, r)| r.clone());
            code.as_ref().map(|c| StoredInvite { hash: crate::store::hash_token(c), claimed: false, reserved })
        })
        .collect();
    let seats_len = seats.len();
    let setup = Setup {
        id: crate::live::random_hex(),
        game: request.game,
        options,
        secret,
        seats,
        token_hashes,
        invites,
        accounts: (0..seats_len).map(|seat| if Some(seat) == creator { account.clone() } else { None }).collect(),
        seated,
        control,
        hints: request.hints,
        rated: request.rated,
        rating_range,
    };
    let live = new_game(state, client, setup, session).await?;
    let game = live.lock().await;
    if let Some((seat, bot)) = &challenged {
        state.store().add_challenge(&game.row.id, *seat, &bot.id, game.row.created).await?;
    }
    Ok(created(&game, origin, &tokens, &codes))
}

/// A new game's hidden part (Mathable's bag seed, from `--game-seed` in tests) and its session,
/// its options checked (400 when refused).
pub(crate) fn secret_and_session(
    state: &AppState,
    game: &str,
    options: &Value,
) -> Result<(Value, Box<dyn Session>), ApiError> {
    let mut secret = json!({});
    if let Some(seed) = state.config.game_seed {
        secret["seed"] = json!(state.next_game_seed(seed));
    }
    crate::sessions::complete_secret(game, &mut secret);
    let session = new_session(game, options, &secret).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok((secret, session))
}

/// A new game, checked, before it is stored ([`new_game`]).
pub(crate) struct Setup {
    /// Its id.
    pub id: String,
    /// The game's name.
    pub game: String,
    /// Its public options.
    pub options: Value,
    /// Its hidden part ([`secret_and_session`]).
    pub secret: Value,
    /// Every seat's spec.
    pub seats: Vec<String>,
    /// Every seat's token hash.
    pub token_hashes: Vec<String>,
    /// Every seat's invitation.
    pub invites: Vec<Option<StoredInvite>>,
    /// Every seat's account.
    pub accounts: Vec<Option<SeatAccount>>,
    /// Which seats are taken now (their first-move time runs).
    pub seated: Vec<bool>,
    /// The time control.
    pub control: tabletop::clock::TimeControl,
    /// Hints between people?
    pub hints: bool,
    /// Rated?
    pub rated: bool,
    /// A seek's rating range.
    pub rating_range: Option<(i64, i64)>,
}

/// Stores a new game (the creation's and the quick pairing's one path), counts it in the lobby
/// cap if it has an open seat, and starts the computer if it moves first.
pub(crate) async fn new_game(
    state: &Shared,
    client: IpAddr,
    setup: Setup,
    session: Box<dyn Session>,
) -> Result<Arc<tokio::sync::Mutex<LiveGame>>, ApiError> {
    let opens_seats = setup.seats.iter().any(|s| s == "open");
    let timing = crate::clocks::Timing::new(setup.control, &setup.seated, crate::clocks::now_ms());
    let row = GameRow {
        id: setup.id,
        game: setup.game,
        options: setup.options,
        secret: setup.secret,
        token_hashes: setup.token_hashes,
        seats: setup.seats,
        invites: setup.invites,
        hints: setup.hints,
        resigned: Vec::new(),
        ended: None,
        ended_winners: Vec::new(),
        created: crate::live::now_seconds(),
        timing: Some(timing),
        accounts: setup.accounts,
        rated: setup.rated,
        rating_changes: Vec::new(),
        rating_range: setup.rating_range,
    };
    let live = state.insert_new(row, session).await?;
    {
        let mut game = live.lock().await;
        if opens_seats {
            state.open_games().opened(client, &game.row.id);
        }
        crate::live::schedule_for(state, &mut game, client).await;
    }
    Ok(live)
}

/// A rated game's conditions: a limited clock (real time or correspondence), people only, and
/// a logged-in creator (400 or 401 with the reason otherwise).
fn check_rated(
    seats: &[String],
    control: &tabletop::clock::TimeControl,
    account: Option<&SeatAccount>,
) -> Result<(), ApiError> {
    if !control.is_limited() {
        return Err(ApiError::BadRequest(
            "a rated game needs a clock (real time such as \"5+3\", or correspondence such as \"3d\"), not \"none\""
                .into(),
        ));
    }
    if seats.iter().any(|s| s != "human" && s != "open") {
        return Err(ApiError::BadRequest(
            "a rated game is between people: no computer seat (a computer never changes a person's rating)".into(),
        ));
    }
    if seats.len() < 2 {
        return Err(ApiError::BadRequest("a rated game needs two players at least".into()));
    }
    if account.is_none() {
        return Err(ApiError::Unauthorized("a rated game is between accounts: log in to create one".into()));
    }
    Ok(())
}

/// The seats asked for, each checked and written out in full (`human`, `open`, or a computer's
/// spec the server allows); by default the creator against the default computer.
fn checked_seats(
    state: &AppState,
    session: &dyn Session,
    game: &str,
    asked: Vec<String>,
) -> Result<Vec<String>, ApiError> {
    let seats_needed = session.num_seats();
    let mut seats = asked;
    if seats.is_empty() {
        seats = vec!["engine".to_string(); seats_needed];
        seats[0] = "human".to_string();
    }
    if seats.len() != seats_needed {
        return Err(ApiError::BadRequest(format!("{game} needs {seats_needed} seats, got {}", seats.len())));
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
    Ok(seats)
}

/// The answer to a creation: the people's tokens and invitation links (shown now or never),
/// the watch link, and the creator's state.
fn created(game: &LiveGame, origin: &str, tokens: &[String], codes: &[Option<String>]) -> Value {
    let id = game.row.id.clone();
    let names = game.session.seat_names();
    let shown: Vec<Value> =
        game.row.seats.iter().zip(tokens).map(|(s, t)| if s == "human" { json!(t) } else { Value::Null }).collect();
    let invites: Vec<Value> = game
        .row
        .seats
        .iter()
        .enumerate()
        .filter(|(_, s)| *s == "human")
        .filter_map(|(seat, _)| Some((seat, codes.get(seat)?.as_ref()?)))
        .map(|(seat, code)| {
            let path = format!("/game/{id}#invite={code}");
            json!({"seat": seat, "name": names.get(seat), "url": format!("{origin}{path}"), "path": path})
        })
        .collect();
    let watch = format!("/game/{id}");
    let creator = game.row.seats.iter().position(|s| s == "human");
    json!({
        "id": id,
        "tokens": shown,
        "invites": invites,
        "watch": {"url": format!("{origin}{watch}"), "path": watch},
        "state": game.state(creator),
    })
}

/// `GET /api/lobby`: the newest games with an open seat, each with its clock, speed, rated or
/// casual, rating range and the accounts seated (name, rating in the game's type and speed).
pub async fn lobby(state: &Shared) -> Result<Value, ApiError> {
    let rows = state.store().lobby(50).await?;
    let ids: Vec<String> = rows.iter().map(|row| row.0.clone()).collect();
    let details = state.store().lobby_details(&ids).await?;
    let games: Vec<Value> = rows
        .into_iter()
        .map(|(id, game, options, seats, created, clock, rated)| {
            let open: Vec<usize> = seats.iter().enumerate().filter(|(_, s)| *s == "open").map(|(i, _)| i).collect();
            let players = crate::live::public_players(&game, &seats);
            let mut entry = json!({"id": id, "game": game, "options": options, "players": players, "open_seats": open, "created": created, "clock": clock, "rated": rated});
            seeks::lobby_fields(&mut entry, &details);
            entry
        })
        .collect();
    Ok(json!({ "games": games }))
}

/// `POST /api/games/{id}/join`: takes the game's first open seat for a person (a new token).
/// `login`: the joiner's login token, if any (the seat is linked to its account; a rated
/// game's seat needs one).
pub async fn join(state: &Shared, client: IpAddr, id: &str, login: Option<&str>) -> Result<Value, ApiError> {
    state.check_writable()?;
    let account = accounts::seat_account(state, login).await?;
    // Taking a seat starts a game: counted as creating one.
    state.limits().check(LimitKind::Create, &Who::of(account.as_ref(), client)).await?;
    let live = state.game(id).await?;
    let mut game = live.lock().await;
    if game.to_move().is_none() {
        return Err(ApiError::Conflict("the game is over".into()));
    }
    // A challenged bot takes the seat reserved for it (its invitation, used now).
    let reserved = |game: &LiveGame, account: Option<&SeatAccount>| {
        game.row.invites.iter().position(|invite| {
            invite.as_ref().is_some_and(|i| {
                !i.claimed && i.reserved.as_ref().is_some_and(|r| account.is_some_and(|a| a.id == r.id))
            })
        })
    };
    if let Some(seat) = reserved(&game, account.as_ref()) {
        game.check_taker(account.as_ref())?;
        let token = game.use_invite(state, seat, account).await?;
        state.store().end_challenge(id, seat).await?;
        game.changed(Change::SeatTaken, Some(seat));
        crate::live::schedule_for(state, &mut game, client).await;
        return Ok(json!({"seat": seat, "token": token, "state": game.state(Some(seat))}));
    }
    let waits_for_a_bot = game.row.invites.iter().flatten().any(|i| !i.claimed && i.reserved.is_some());
    let seat = game.row.seats.iter().position(|s| s == "open").ok_or_else(|| {
        if waits_for_a_bot {
            ApiError::Forbidden("this game's free seat is reserved for the bot it challenges".into())
        } else {
            ApiError::Conflict("no open seat is left in this game".into())
        }
    })?;
    game.check_taker(account.as_ref())?;
    seeks::check_range(state, &game.row, account.as_ref()).await?;
    let mut seats = game.row.seats.clone();
    seats[seat] = "human".to_string();
    let token = game.take_seat(state, seats, seat, account).await?;
    if !game.row.seats.iter().any(|s| s == "open") {
        state.open_games().closed(id);
    }
    game.changed(Change::SeatTaken, Some(seat));
    crate::live::schedule_for(state, &mut game, client).await;
    Ok(json!({"seat": seat, "token": token, "state": game.state(Some(seat))}))
}

/// How many times a claim looks again after another process wrote the game first.
const CLAIM_ATTEMPTS: usize = 4;

/// `POST /api/games/{id}/claim`: opens an invitation. The first opener gets the seat and a new
/// token for it (the invitation is then used); a later opener gets 409 saying whose seat it
/// is; a `token` that already holds a seat in the game (the creator checking the link) keeps
/// that seat and leaves the invitation unused.
/// `login`: the opener's login token, if any (see [`join`]).
pub async fn claim(
    state: &Shared,
    client: IpAddr,
    id: &str,
    request: ClaimRequest,
    login: Option<&str>,
) -> Result<Value, ApiError> {
    let account = accounts::seat_account(state, login).await?;
    // Opening an invitation starts a game: counted as creating one.
    state.limits().check(LimitKind::Create, &Who::of(account.as_ref(), client)).await?;
    let mut attempt = 0;
    loop {
        let live = state.game(id).await?;
        let mut game = live.lock().await;
        let seat = game.invited_seat(&request.invite).ok_or_else(|| {
            ApiError::Forbidden("this invitation is not one of this game's: check the link you were sent".into())
        })?;
        if let Some(held) = game.seat_of(request.token.as_deref()) {
            return Ok(json!({"seat": held, "claimed": false, "invited_seat": seat, "state": game.state(Some(held))}));
        }
        if game.invite_used(seat) {
            let name = game.session.seat_names().get(seat).cloned().unwrap_or_else(|| format!("seat {seat}"));
            return Err(ApiError::Conflict(format!("This invitation was already used: {name} is taken.")));
        }
        state.check_writable()?;
        let reserved = game.row.invites.get(seat).and_then(|i| i.as_ref()).and_then(|i| i.reserved.as_ref());
        if reserved.is_some_and(|r| account.as_ref().is_none_or(|a| a.id != r.id)) {
            return Err(ApiError::Forbidden(
                "this seat is reserved for the bot the game challenges: only that account may take it".into(),
            ));
        }
        game.check_taker(account.as_ref())?;
        match game.use_invite(state, seat, account.clone()).await {
            Ok(token) => {
                game.changed(Change::SeatTaken, Some(seat));
                crate::live::schedule_for(state, &mut game, client).await;
                return Ok(json!({"seat": seat, "token": token, "claimed": true, "state": game.state(Some(seat))}));
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

/// `GET /api/games/{id}`: the state as the holder of `token` may see it (a watcher's without).
pub async fn view(state: &Shared, id: &str, token: Option<&str>) -> Result<Value, ApiError> {
    let live = state.game(id).await?;
    let game = live.lock().await;
    let viewer = game.seat_of(token);
    Ok(game.state(viewer))
}

/// `GET /api/games/{id}/boards/{ply}`: the public board after `ply` moves, for stepping through
/// a game (nothing hidden: Mathable's racks are counts, as a watcher sees them).
pub async fn board_at(state: &Shared, id: &str, ply: usize) -> Result<Value, ApiError> {
    let live = state.game(id).await?;
    let game = live.lock().await;
    let board = game.session.board_at(ply).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok(json!({"ply": ply, "board": board}))
}

/// How long a ticket for an event stream stays good.
const TICKET_LIFE: Duration = Duration::from_secs(60);

/// Tickets waiting to be used, at most (older ones are dropped when they expire).
const TICKETS_HELD: usize = 100_000;

/// `POST /api/games/{id}/ticket`: a single-use ticket, good for a minute, that opens the seat's
/// event stream ([`watch`]). A browser's EventSource cannot send a header, and a ticket in a
/// URL is worth nothing once used.
pub async fn ticket(state: &Shared, id: &str, token: &str) -> Result<Value, ApiError> {
    let live = state.game(id).await?;
    let seat = live.lock().await.seat_of(Some(token));
    let seat = seat.ok_or_else(|| ApiError::Forbidden("that token holds no seat in this game".into()))?;
    let ticket = crate::live::random_hex();
    let mut tickets = state.tickets.lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    tickets.retain(|_, (_, _, until)| *until > now);
    if tickets.len() >= TICKETS_HELD {
        return Err(ApiError::TooMany { what: "too many event-stream tickets are waiting".into(), retry_after: 10 });
    }
    tickets.insert(ticket.clone(), (id.to_string(), seat, now + TICKET_LIFE));
    Ok(json!({"ticket": ticket, "expires_in": TICKET_LIFE.as_secs()}))
}

/// An open event stream of a game: the data of each event its viewer is sent, from the
/// current state on. While it lives it holds its share of the stream caps and marks its seat's
/// person connected.
pub struct Watch {
    receiver: tokio::sync::broadcast::Receiver<Note>,
    live: Arc<tokio::sync::Mutex<LiveGame>>,
    viewer: Option<usize>,
    /// The fingerprints of the moves this stream was sent (`None` before the first state).
    sent: Option<Arc<Vec<u64>>>,
    _presence: Option<PresenceGuard>,
    _held: (crate::connection::Held<IpAddr>, crate::connection::Held<String>),
    /// A seat's stream in a game with a real-time clock pings its client at this pace, to
    /// measure its lag ([`crate::clocks::LagMeter`]); `None` for watchers and other games.
    pings: Option<tokio::time::Interval>,
}

/// What an event stream sends next.
pub enum Outgoing {
    /// A state (`event: state`), its data.
    State(Arc<str>),
    /// A ping (`event: ping`), its id: the client answers it at `POST /api/games/{id}/pong`.
    Ping(String),
}

/// The next tick of `pings`, never without them.
async fn next_ping(pings: &mut Option<tokio::time::Interval>) {
    match pings {
        Some(pings) => {
            pings.tick().await;
        }
        None => std::future::pending().await,
    }
}

impl Watch {
    /// The next event: the whole state first, then one per change, and a seat's pings between
    /// them; `None` when the game is gone from memory (the stream ends and the client
    /// reconnects).
    pub async fn next(&mut self) -> Option<Outgoing> {
        let note = if self.sent.is_none() {
            Note { change: Change::Connected, seat: self.viewer }
        } else {
            loop {
                tokio::select! {
                    received = self.receiver.recv() => break match received {
                        Ok(note) => note,
                        // Missed some: the state sent next is the current one anyway.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                            Note { change: Change::Connected, seat: None }
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
                    },
                    () = next_ping(&mut self.pings) => {
                        let mut game = self.live.lock().await;
                        // A finished game's clocks no longer run: nothing to measure.
                        if game.to_move().is_none() {
                            self.pings = None;
                            continue;
                        }
                        let id = crate::live::random_hex();
                        if let Some(meter) = self.viewer.and_then(|seat| game.lag.get_mut(seat)) {
                            meter.sent(id.clone(), Instant::now());
                            return Some(Outgoing::Ping(id));
                        }
                        self.pings = None;
                    }
                }
            }
        };
        Some(Outgoing::State(self.live.lock().await.event_data(self.viewer, note, &mut self.sent)))
    }
}

/// `POST /api/games/{id}/pong`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PongRequest {
    /// The seat's token.
    pub token: String,
    /// The id of the ping answered (from the seat's event stream).
    pub ping: String,
}

/// `POST /api/games/{id}/pong`: the seat's client answers a ping of its event stream; half the
/// round trip is one sample of the seat's lag. Answers the seat's measured lag and how many
/// pings it answered. 403 for a token that holds no seat (a watcher's streams are never
/// pinged); 409 for a ping not waiting for this seat (another seat's, answered already, or too
/// old): nothing is measured then.
pub async fn pong(state: &Shared, id: &str, request: PongRequest) -> Result<Value, ApiError> {
    // Ids are 32 hex digits: anything else is no ping (and is not looked for).
    if request.ping.len() != 32 || !request.ping.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::BadRequest(
            "ping: the id of a ping from this seat's event stream (32 hex digits)".into(),
        ));
    }
    let now = Instant::now();
    let (mut game, seat) = state.seated(id, &request.token).await?;
    let meter = game.lag.get_mut(seat).ok_or_else(|| ApiError::Internal("a seat without its lag meter".into()))?;
    let measured = meter.answered(&request.ping, now).map_err(|e| ApiError::Conflict(e.to_string()))?;
    Ok(json!({"lag_ms": measured.as_millis() as u64, "samples": meter.samples()}))
}

/// `GET /api/games/{id}/events`: opens an event stream, a seat's with its single-use `ticket`
/// (from [`ticket`]), else a watcher's. A seat's stream in a game with a real-time clock whose
/// client answers `pings` is pinged every [`crate::config::ServeConfig::ping_interval`] (see
/// [`pong`]). Refused (429) when the client's address or the game
/// holds as many streams as it may.
pub async fn watch(
    state: &Shared,
    client: IpAddr,
    id: &str,
    ticket: Option<&str>,
    pings: bool,
) -> Result<Watch, ApiError> {
    // A ticket is used up here, whatever follows.
    let seat = match ticket {
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
    let live = state.game(id).await?;
    // Held while the stream is open: one client address, or everyone on one game, cannot hold
    // every connection the server has.
    let by_address = state.streams_by_address.try_hold(client).ok_or_else(|| ApiError::TooMany {
        what: format!("this address has {} event streams open already", state.config.max_streams_per_address),
        retry_after: 30,
    })?;
    let by_game = state.streams_by_game.try_hold(id.to_string()).ok_or_else(|| ApiError::TooMany {
        what: format!("this game has {} event streams open already", state.config.max_streams_per_game),
        retry_after: 30,
    })?;
    let (receiver, viewer, presence, real_time) = {
        let mut game = live.lock().await;
        // The seat may have been given up since the ticket was issued.
        let viewer = seat.filter(|&s| game.row.seats.get(s).is_some_and(|spec| spec != "open"));
        let real_time = game.row.timing.as_ref().is_some_and(|t| t.control().is_real_time());
        (game.events.subscribe(), viewer, game.presence_guard(viewer), real_time)
    };
    // The first tick is at once: a seat is measured from its stream's first moments.
    let pings = (pings && viewer.is_some() && real_time).then(|| {
        let mut pings = tokio::time::interval(state.config.ping_interval.max(Duration::from_millis(10)));
        pings.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        pings
    });
    Ok(Watch { receiver, live, viewer, sent: None, _presence: presence, _held: (by_address, by_game), pings })
}

/// `POST /api/games/{id}/moves`: the seat's move. Checked against the ply the client saw, the
/// turn, the storage, the seat's pace; the game's agreement move (Mathable's terminate) asks
/// the computers at once and becomes a proposal between people; otherwise the move is played,
/// stored, told to the streams, and the computer scheduled if it is next. Answers the mover's
/// state.
pub async fn play(state: &Shared, client: IpAddr, id: &str, request: MoveRequest) -> Result<Value, ApiError> {
    let (mut game, seat) = state.seated(id, &request.token).await?;
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
    // The mover's pace across all its games (its account's, else its address's).
    let mover = game.mover(seat, client);
    state.limits().check(LimitKind::Move, &mover).await?;
    // A move after the mover's time ran out (or after a first move's time) ends the game instead.
    if let Some(due) = game.apply_due(state, crate::clocks::now_ms()).await? {
        let why = match due {
            crate::clocks::Due::Flag(_) => "your time ran out: the game is over",
            crate::clocks::Due::Abort(_) => "the time for the first move ran out: the game was aborted",
        };
        return Err(ApiError::Conflict(why.into()));
    }
    // The lag reported, bounded by what this process measured on the seat's event stream.
    let reported = request.lag_ms.map(|ms| Duration::from_millis(ms).min(crate::clocks::MAX_REPORTED_LAG));
    let lag = game.lag.get(seat).map_or(reported.unwrap_or_default(), |meter| meter.credited(reported));
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
            game.propose(state, ProposalKind::Terminate, seat, &mover).await?;
            return Ok(game.state(Some(seat)));
        }
    }
    let notation = game.session.play(&request.notation).map_err(|e| ApiError::Illegal(e.to_string()))?;
    game.store_move(state, ply, &notation, lag).await?;
    game.changed(Change::Move, Some(seat));
    crate::live::schedule_for(state, &mut game, client).await;
    Ok(game.state(Some(seat)))
}

/// `POST /api/games/{id}/undo`: against the computer, takes back the last full round; between
/// people, asks the others to accept taking back the seat's last move.
pub async fn undo(state: &Shared, client: IpAddr, id: &str, token: &str) -> Result<Value, ApiError> {
    let (mut game, seat) = state.seated(id, token).await?;
    if game.to_move().is_none() {
        return Err(ApiError::Illegal("the game has ended".into()));
    }
    state.check_writable()?;
    let mover = game.mover(seat, client);
    state.limits().check(LimitKind::Move, &mover).await?;
    if game.asks_others(seat) {
        game.request_takeback(state, seat, &mover).await?;
        return Ok(game.state(Some(seat)));
    }
    // Against the computer (or only people who resigned): the last full round.
    let target = game.undo_against_the_computer()?;
    game.take_back_to(state, target).await?;
    game.changed(Change::Undo, Some(seat));
    crate::live::schedule_for(state, &mut game, client).await;
    Ok(game.state(Some(seat)))
}

/// `POST /api/games/{id}/proposal`: the seat accepts or declines the pending proposal.
pub async fn answer_proposal(
    state: &Shared,
    client: IpAddr,
    id: &str,
    request: ProposalAnswer,
) -> Result<Value, ApiError> {
    let (mut game, seat) = state.seated(id, &request.token).await?;
    state.check_writable()?;
    game.answer_proposal(state, seat, request.accept).await?;
    crate::live::schedule_for(state, &mut game, client).await;
    Ok(game.state(Some(seat)))
}

/// `POST /api/games/{id}/rematch`: after a game between people ended, the seat proposes a
/// rematch; the other seats answer it at `POST /api/games/{id}/proposal`. The state answered
/// and sent shows the proposal, then the new game in `rematch`.
/// Counted as a proposal of the seat's account (else of `client`'s address).
pub async fn rematch(state: &Shared, client: IpAddr, id: &str, token: &str) -> Result<Value, ApiError> {
    let (mut game, seat) = state.seated(id, token).await?;
    state.check_writable()?;
    let by = game.mover(seat, client);
    game.propose_rematch(state, seat, &by).await?;
    Ok(game.state(Some(seat)))
}

/// `POST /api/games/{id}/resign`: the seat resigns (with more than two players, it leaves).
pub async fn resign(state: &Shared, client: IpAddr, id: &str, token: &str) -> Result<Value, ApiError> {
    let (mut game, seat) = state.seated(id, token).await?;
    if game.to_move().is_none() {
        return Err(ApiError::Illegal("the game is already over".into()));
    }
    state.check_writable()?;
    game.resign(state, seat).await?;
    if game.to_move().is_none() {
        state.open_games().closed(id);
    }
    crate::live::schedule_for(state, &mut game, client).await;
    Ok(game.state(Some(seat)))
}

/// `POST /api/games/{id}/claim-win`: the seat claims the game against the seat to move, a
/// person away for [`crate::config::ServeConfig::claim_after`] in a game no clock ends by
/// itself (see [`LiveGame::claim_win`]).
pub async fn claim_win(state: &Shared, client: IpAddr, id: &str, token: &str) -> Result<Value, ApiError> {
    let (mut game, seat) = state.seated(id, token).await?;
    state.check_writable()?;
    game.claim_win(state, seat, state.config.claim_after).await?;
    crate::live::schedule_for(state, &mut game, client).await;
    Ok(game.state(Some(seat)))
}

/// Computer moves being thought about right now (tests watch work being cancelled).
pub fn thinking_count(state: &AppState) -> usize {
    state.thinking.load(std::sync::atomic::Ordering::SeqCst)
}
