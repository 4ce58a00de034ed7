//! Bot accounts (docs/API.md, "Bots"): an account with no game yet may become a bot, for good;
//! a bot gets an API token (`tbot_` and 64 hex digits, shown once; the database keeps its
//! SHA-256; a new one ends the old one; revoking ends it), which authenticates it as its
//! account in `Authorization: Bearer` wherever a login counts (creating, joining, opening an
//! invitation). A person challenges a bot by naming it at creation (`"challenge": NAME`): the
//! game's second person seat is then reserved for that account (only it may take the seat, with
//! join), and the bot finds it at `GET /api/bot/challenges`.
//!
//! The server never runs a bot's code: a bot is a client (`tabletop bot`, or any program
//! speaking the API) on its owner's machine, held to the game's clock like any person.

use serde_json::{json, Value};

use crate::error::ApiError;
use crate::live::Shared;
use crate::ratings::SeatAccount;
use crate::store::{hash_token, Reserved};

/// The prefix of a bot's API token: told apart from a login's token (64 hex digits) at a glance,
/// and by secret scanners.
pub const API_TOKEN_PREFIX: &str = "tbot_";

/// The most challenges listed at once (the newest).
const CHALLENGES_LISTED: usize = 50;

/// Does `token` look like an API token (the prefix, then 64 hex digits)?
fn plausible_api_token(token: &str) -> bool {
    token
        .strip_prefix(API_TOKEN_PREFIX)
        .is_some_and(|rest| rest.len() == 64 && rest.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The bot account an API token authenticates (401 when it is wrong, revoked or its account is
/// gone: never an anonymous request instead).
pub async fn bot_account(state: &Shared, token: &str) -> Result<SeatAccount, ApiError> {
    let refused =
        || ApiError::Unauthorized("that API token is not good (wrong, revoked, or its account is gone)".into());
    if !plausible_api_token(token) {
        return Err(refused());
    }
    let found = state.store().account_by_api_token(&hash_token(token)).await?;
    let (id, name) = found.ok_or_else(refused)?;
    Ok(SeatAccount { id, name, bot: true })
}

/// Is `token` an API token (by its prefix; it may still be wrong)?
pub fn is_api_token(token: &str) -> bool {
    token.starts_with(API_TOKEN_PREFIX)
}

/// `GET /api/account` with an API token: the bot's name.
pub async fn whoami(state: &Shared, token: &str) -> Result<Value, ApiError> {
    let account = bot_account(state, token).await?;
    Ok(json!({ "name": account.name, "bot": true }))
}

/// `POST /api/account/bot`: makes the logged-in account a bot (409 once it has held a seat in a
/// game: a bot's record starts empty; the change is for good).
pub async fn become_bot(state: &Shared, session: Option<&str>) -> Result<Value, ApiError> {
    let (account, _) = super::accounts::logged_in(state, session).await?;
    if !state.store().make_bot(&account.id).await? {
        return Err(ApiError::Conflict(
            "this account has played already: a bot account is a new one that has held no seat in any game".into(),
        ));
    }
    Ok(json!({ "name": account.name, "bot": true }))
}

/// `POST /api/account/token`: a new API token for the logged-in bot account, shown in this
/// answer only (its SHA-256 is stored); the account's previous token stops working. 403 for an
/// account that is not a bot.
pub async fn new_api_token(state: &Shared, session: Option<&str>) -> Result<Value, ApiError> {
    let (account, _) = super::accounts::logged_in(state, session).await?;
    if !state.store().account_is_bot(&account.id).await? {
        return Err(ApiError::Forbidden(
            "only a bot account gets an API token: make the account a bot first (POST /api/account/bot)".into(),
        ));
    }
    let token = format!("{API_TOKEN_PREFIX}{}{}", crate::live::random_hex(), crate::live::random_hex());
    state.store().set_api_token(&account.id, &hash_token(&token), crate::live::now_seconds()).await?;
    Ok(json!({ "name": account.name, "token": token }))
}

/// `POST /api/account/token/revoke`: ends the bot's API token, asked with the login cookie or
/// with the token itself (a leaked token can be ended by whoever holds it).
pub async fn revoke_api_token(state: &Shared, login: Option<&str>) -> Result<Value, ApiError> {
    let id = match login {
        Some(token) if is_api_token(token) => bot_account(state, token).await?.id,
        _ => super::accounts::logged_in(state, login).await?.0.id,
    };
    let ended = state.store().revoke_api_tokens(&id, false).await?;
    Ok(json!({ "revoked": ended }))
}

/// A challenge at creation (`"challenge": NAME`): the bot account named and the seat reserved
/// for it, the first person seat that is not the creator's. 404 for a name that is no bot
/// account; 400 without a seat for it.
pub async fn challenged(
    state: &Shared,
    name: &str,
    seats: &[String],
    creator: Option<&SeatAccount>,
) -> Result<(usize, Reserved), ApiError> {
    let key = super::accounts::name_key(name);
    let account = state.store().account_by_name(&key).await?;
    let bot = match account {
        Some(account) if state.store().account_is_bot(&account.id).await? => account,
        _ => return Err(ApiError::NotFound("there is no bot account of that name".into())),
    };
    if creator.is_some_and(|c| c.id == bot.id) {
        return Err(ApiError::BadRequest("a bot cannot challenge itself".into()));
    }
    let creator_seat = seats.iter().position(|s| s == "human");
    let seat =
        seats.iter().enumerate().position(|(seat, s)| s == "human" && Some(seat) != creator_seat).ok_or_else(|| {
            ApiError::BadRequest(
                "a challenge needs a seat for the bot: two person seats, such as \"seats\": [\"human\", \"human\"]"
                    .into(),
            )
        })?;
    Ok((seat, Reserved { id: bot.id, name: bot.name }))
}

/// `GET /api/bot/challenges` with an API token: the games where a seat waits for this bot
/// (newest first), each with what the bot needs to decide: the game, its options, clock,
/// whether rated, the seat and who challenged. Taken seats and finished games are forgotten.
pub async fn challenges(state: &Shared, login: Option<&str>) -> Result<Value, ApiError> {
    let token = login.filter(|t| is_api_token(t)).ok_or_else(|| {
        ApiError::Unauthorized("a bot's API token is needed: send it as `Authorization: Bearer TOKEN`".into())
    })?;
    let bot = bot_account(state, token).await?;
    let mut listed = Vec::new();
    for (id, seat) in state.store().challenges_for(&bot.id, CHALLENGES_LISTED).await? {
        let live = match state.game(&id).await {
            Ok(live) => live,
            Err(ApiError::NotFound(_)) => {
                state.store().end_challenge(&id, seat).await?;
                continue;
            }
            Err(err) => return Err(err),
        };
        let game = live.lock().await;
        let waiting = game.to_move().is_some()
            && game.row.invites.get(seat).is_some_and(|invite| {
                invite.as_ref().is_some_and(|i| !i.claimed && i.reserved.as_ref().is_some_and(|r| r.id == bot.id))
            });
        if !waiting {
            drop(game);
            state.store().end_challenge(&id, seat).await?;
            continue;
        }
        let mut options = game.row.options.clone();
        if let Some(o) = options.as_object_mut() {
            o.remove("seed");
        }
        let from = game.row.accounts.iter().flatten().next().map(|a| a.name.clone());
        let state_json = game.state(None);
        listed.push(json!({
            "id": id,
            "game": game.row.game,
            "options": options,
            "clock": state_json["clock"]["control"].as_str().unwrap_or("none"),
            "rated": game.row.rated,
            "seat": seat,
            "from": from,
            "created": game.row.created,
        }));
    }
    Ok(json!({ "challenges": listed }))
}
