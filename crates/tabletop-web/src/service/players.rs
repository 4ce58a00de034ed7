//! A player's page and export: `GET /api/players/{name}` (ratings per game type and speed,
//! recent games with results and rating changes) and `GET /api/players/{name}/games` (the
//! games' records as JSON). Names are public; nothing secret is shown (no ids of accounts, no
//! tokens).

use serde_json::{json, Value};

use crate::error::ApiError;
use crate::live::Shared;
use crate::ratings::{current, SYSTEM};

/// Recent games on a player's page.
pub const RECENT_GAMES: usize = 20;

/// Games in one export at most (newest first).
pub const EXPORTED_GAMES: usize = 200;

/// The account named `name` (any case), or 404.
async fn account(state: &Shared, name: &str) -> Result<crate::store::accounts::AccountRow, ApiError> {
    let key = crate::service::accounts::name_key(name);
    let short: String = name.chars().take(64).collect();
    state.store().account_by_name(&key).await?.ok_or(ApiError::NoSuchPlayer(short))
}

/// The records of an account's games, newest first, at most `limit`, each with `seat` (the
/// account's), `outcome` (`win`, `loss`, `draw`; `null` while played or when aborted) and its
/// `rating_change` (`null` for a casual game).
async fn games(state: &Shared, account_id: &str, limit: usize) -> Result<Vec<Value>, ApiError> {
    let mut out = Vec::new();
    for id in state.store().games_of(account_id, limit).await? {
        let live = match state.game(&id).await {
            Ok(live) => live,
            // A game that cannot be loaded (damaged) is left out, not the whole page.
            Err(err) => {
                tracing::warn!(game = %id, "a player's game cannot be loaded: {err}");
                continue;
            }
        };
        let game = live.lock().await;
        let seat = game.row.accounts.iter().position(|a| a.as_ref().is_some_and(|a| a.id == account_id));
        let mut record = game.record();
        let aborted = record["result"]["ended_by"] == "aborted";
        let outcome = match (seat, record["result"]["winners"].as_array()) {
            (Some(seat), Some(winners)) if !aborted => Some(if winners.is_empty() {
                "draw"
            } else if winners.iter().any(|w| w.as_u64() == Some(seat as u64)) {
                if winners.len() > 1 {
                    "draw"
                } else {
                    "win"
                }
            } else {
                "loss"
            }),
            _ => None,
        };
        let change = seat.and_then(|s| game.row.rating_changes.iter().find(|c| c.seat == s)).map(|c| c.to_json());
        record["seat"] = json!(seat);
        record["outcome"] = json!(outcome);
        record["rating_change"] = change.unwrap_or(Value::Null);
        out.push(record);
    }
    Ok(out)
}

/// `GET /api/players/{name}`: the player's name, ratings per game type and speed (rating, rd,
/// provisional, games), and recent games.
pub async fn player(state: &Shared, name: &str) -> Result<Value, ApiError> {
    let account = account(state, name).await?;
    let now = crate::live::now_seconds();
    let ratings: Vec<Value> = state
        .store()
        .ratings_of(&account.id)
        .await?
        .into_iter()
        .map(|(game, speed, stored)| {
            // The deviation as it stands today (it grows while the player does not play).
            let today = current(Some(&stored), now);
            json!({
                "game": game, "speed": speed,
                "rating": stored.rating.rating.round() as i64,
                "rd": (today.deviation * 100.0).round() / 100.0,
                "provisional": SYSTEM.is_provisional(&today),
                "games": stored.games,
                "rating_exact": stored.rating.rating,
                "volatility": stored.rating.volatility,
                "last_game": stored.updated,
            })
        })
        .collect();
    let recent: Vec<Value> = games(state, &account.id, RECENT_GAMES).await?.into_iter().map(brief).collect();
    Ok(json!({"name": account.name, "created": account.created, "ratings": ratings, "recent_games": recent}))
}

/// A record without its moves, for the page.
fn brief(mut record: Value) -> Value {
    if let Some(fields) = record.as_object_mut() {
        fields.remove("moves");
    }
    record
}

/// `GET /api/players/{name}/games?format=json`: the player's games (newest first, at most
/// [`EXPORTED_GAMES`]) with their moves.
pub async fn export(state: &Shared, name: &str, format: Option<&str>) -> Result<Value, ApiError> {
    match format.unwrap_or("json") {
        "json" => {}
        other => {
            let shown: String = other.chars().take(20).collect();
            return Err(ApiError::BadRequest(format!("format {shown:?}: the export is in \"json\"")));
        }
    }
    let account = account(state, name).await?;
    let games = games(state, &account.id, EXPORTED_GAMES).await?;
    Ok(json!({"name": account.name, "games": games}))
}
