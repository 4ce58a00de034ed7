//! A player's page and export: `GET /api/players/{name}` (ratings per game type and speed with
//! their history for a graph, recent games with results and rating changes) and
//! `GET /api/players/{name}/games` (the games as JSON, or each ended game in its saved-game
//! format: GGF, or the record's text). Names are public; nothing secret is shown (no ids of
//! accounts, no tokens, no hidden information of a game being played).

use serde_json::{json, Value};

use crate::error::ApiError;
use crate::live::Shared;
use crate::ratings::{current, SYSTEM};

/// Recent games on a player's page.
pub const RECENT_GAMES: usize = 20;

/// Games in one export at most (newest first).
pub const EXPORTED_GAMES: usize = 200;

/// Points of a player's rating graphs at most (the newest rated games, all game types).
pub const HISTORY_POINTS: usize = 1000;

/// An export's answer: JSON, or a text file to download.
pub enum Export {
    /// `format=json`.
    Json(Value),
    /// `format=text` or `ggf`: the file's text, its name and its content type.
    File {
        /// The games' texts.
        text: String,
        /// The file name offered (`NAME-games.txt`).
        filename: String,
        /// Its content type.
        content_type: &'static str,
    },
}

/// The account named `name` (any case), or 404.
async fn account(state: &Shared, name: &str) -> Result<crate::store::accounts::AccountRow, ApiError> {
    let key = crate::service::accounts::name_key(name);
    let short: String = name.chars().take(64).collect();
    state.store().account_by_name(&key).await?.ok_or(ApiError::NoSuchPlayer(short))
}

/// The records of an account's games, newest first, at most `limit`, each with `seat` (the
/// account's), `outcome` (`win`, `loss`, `draw`; `null` while played or when aborted) and its
/// `rating_change` (`null` for a casual game); with `text`, each ended game's saved-game text
/// too (see [`saved_game`]), in `text` (and its format in `text_format`).
async fn games(state: &Shared, account_id: &str, limit: usize, text: bool) -> Result<Vec<Value>, ApiError> {
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
        if text {
            record["text"] = json!(saved_game(&game, &record));
            record["text_format"] = json!(game.saved_game_format());
        }
        record["seat"] = json!(seat);
        record["outcome"] = json!(outcome);
        record["rating_change"] = change.unwrap_or(Value::Null);
        out.push(record);
    }
    Ok(out)
}

/// An ended game's saved-game text ([`crate::live::LiveGame::saved_game`]) with its players
/// (an account's name, `anonymous` for a person without one or whose account was deleted, a
/// computer's spec), its date (its creation, UTC) and notes: its link, rated or casual, the
/// clock, the rating changes. `None` while it is played and for an aborted game.
fn saved_game(game: &crate::live::LiveGame, record: &Value) -> Option<String> {
    let players: Vec<String> = record["players"]
        .as_array()
        .map(|players| {
            players
                .iter()
                .enumerate()
                .map(|(seat, p)| match (p["player"].as_str(), p["kind"].as_str()) {
                    (Some(name), _) => name.to_string(),
                    (None, Some("computer")) => game.row.seats.get(seat).cloned().unwrap_or_default(),
                    _ => "anonymous".to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    let date = utc_date(game.row.created);
    let mut notes = vec![format!("game /game/{}", game.row.id)];
    let clock = record["clock"].as_str().unwrap_or("none");
    notes.push(format!("{}, clock {clock}", if game.row.rated { "rated" } else { "casual" }));
    for change in &game.row.rating_changes {
        let name = players.get(change.seat).map_or("?", String::as_str);
        let (before, after) = (change.before.rating.round() as i64, change.after.rating.round() as i64);
        notes.push(format!(
            "rating {name} {} {}: {before} -> {after} ({:+})",
            change.game,
            change.speed,
            after - before
        ));
    }
    game.saved_game(&record["result"], &players, &date, &notes)
}

/// Seconds since the Unix epoch as a UTC date and time, `2026-12-05 06:30:00 UTC` (the civil
/// calendar from a day count, after Howard Hinnant's `civil_from_days`).
pub fn utc_date(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let time = seconds.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", time / 3600, time / 60 % 60, time % 60)
}

/// `GET /api/players/{name}`: the player's name, ratings per game type and speed (rating, rd,
/// provisional, games, and `history`: the rating after each rated game, oldest first), and
/// recent games.
pub async fn player(state: &Shared, name: &str) -> Result<Value, ApiError> {
    let account = account(state, name).await?;
    let now = crate::live::now_seconds();
    let history = state.store().rating_history(&account.id, HISTORY_POINTS).await?;
    let ratings: Vec<Value> = state
        .store()
        .ratings_of(&account.id)
        .await?
        .into_iter()
        .map(|(game, speed, stored)| {
            // The deviation as it stands today (it grows while the player does not play).
            let today = current(Some(&stored), now);
            let points: Vec<Value> = history
                .iter()
                .filter(|p| p.game == game && p.speed == speed)
                .map(|p| {
                    json!({"at": p.at, "rating": p.rating.round() as i64, "rd": (p.deviation * 100.0).round() / 100.0, "game_id": p.game_id})
                })
                .collect();
            json!({
                "game": game, "speed": speed,
                "rating": stored.rating.rating.round() as i64,
                "rd": (today.deviation * 100.0).round() / 100.0,
                "provisional": SYSTEM.is_provisional(&today),
                "games": stored.games,
                "rating_exact": stored.rating.rating,
                "volatility": stored.rating.volatility,
                "last_game": stored.updated,
                "history": points,
            })
        })
        .collect();
    let recent: Vec<Value> = games(state, &account.id, RECENT_GAMES, false).await?.into_iter().map(brief).collect();
    Ok(json!({"name": account.name, "created": account.created, "ratings": ratings, "recent_games": recent}))
}

/// A record without its moves, for the page.
fn brief(mut record: Value) -> Value {
    if let Some(fields) = record.as_object_mut() {
        fields.remove("moves");
    }
    record
}

/// The export formats.
const FORMATS: &str = "\"json\", \"text\" (each game in its saved-game format) or \"ggf\" (the games saved as GGF)";

/// `GET /api/players/{name}/games?format=json|text|ggf`: the player's games (newest first, at
/// most [`EXPORTED_GAMES`]). `json` (the default): every game's record with its moves (a game
/// hiding information shows its moves as a watcher sees them while it is played). `text`: each
/// ended game (not aborted) in its saved-game format (GGF for the games saved so, one line; the
/// record's text for the others), separated by blank lines. `ggf`: only the games saved as GGF,
/// one a line.
pub async fn export(state: &Shared, name: &str, format: Option<&str>) -> Result<Export, ApiError> {
    let format = format.unwrap_or("json");
    if !matches!(format, "json" | "text" | "ggf") {
        // The value named back cut short, and as a quoted string (escapes shown, never raw).
        let shown: String = format.chars().take(20).collect();
        return Err(ApiError::BadRequest(format!("format {shown:?}: the export is in {FORMATS}")));
    }
    let account = account(state, name).await?;
    let games = games(state, &account.id, EXPORTED_GAMES, format != "json").await?;
    if format == "json" {
        return Ok(Export::Json(json!({"name": account.name, "games": games})));
    }
    let texts: Vec<&str> = games
        .iter()
        .filter(|g| format == "text" || g["text_format"] == format)
        .filter_map(|g| g["text"].as_str())
        .map(str::trim_end)
        .collect();
    let separator = if format == "ggf" { "\n" } else { "\n\n" };
    let mut text = texts.join(separator);
    if !text.is_empty() {
        text.push('\n');
    }
    // Account names are letters, digits, `_` and `-`: safe in a header as they are.
    let safe: String = account.name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
    let (extension, content_type) = match format {
        "ggf" => ("ggf", "text/plain; charset=utf-8"),
        _ => ("txt", "text/plain; charset=utf-8"),
    };
    Ok(Export::File { text, filename: format!("{safe}-games.{extension}"), content_type })
}
