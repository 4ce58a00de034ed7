//! Finding an opponent: seeks (open games in the lobby, with an optional rating range) and quick
//! pairing pools by time control, paired in waves.
//!
//! - A seek is a game created with an open seat; `rating_range: [min, max]` (absolute) lets only
//!   a logged-in account whose current rating in the game's type and speed (1500 for an account
//!   without one) is within it take the seat (`check_range`).
//! - A pool is the set of clients waiting for the same game, options, clock and rated flag.
//!   `POST /api/pool` enters one ([`enter`]): the client gets its entry's id and a secret, and
//!   polls with the secret ([`poll`]) until it is paired or leaves ([`leave`]). Entries live in
//!   the database, so every process sharing it pairs from one pool.
//! - Every [`crate::config::ServeConfig::pool_wave`] (on the wall clock's multiples, the same
//!   moments in every process) a wave ([`wave`]) pairs the waiting entries of each pool, closest
//!   ratings first, within a gap that widens the longer an entry waited ([`allowed_gap`]); never
//!   two entries of one account. Each pair becomes a game made by the creation's own path
//!   (`super::new_game`), both seats taken, colours drawn at random. An entry not polled for
//!   [`crate::config::ServeConfig::pool_expiry`] ([`STALE_AFTER`]) is dropped.
//! - The seat token a paired client gets is derived from its entry's secret ([`seat_token`]):
//!   the database holds the hashes of both, never a clear secret, and only the secret's holder
//!   can learn the token.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use rand::Rng;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::{new_game, secret_and_session, Setup};
use crate::error::ApiError;
use crate::live::{LimitKind, Shared, Who};
use crate::ratings::{current, SeatAccount, SYSTEM};
use crate::store::seeks::{Leave, LobbyDetails, Pair, PoolEntry};
use crate::store::GameRow;

/// The highest rating a range may name.
pub const MAX_RATING: i64 = 4000;

/// An entry not polled for this long is dropped by the next wave (the default of
/// [`crate::config::ServeConfig::pool_expiry`]).
pub const STALE_AFTER: Duration = Duration::from_secs(30);

/// A paired entry is kept this long after it entered, to be read (then dropped).
pub const PAIRED_KEPT: Duration = Duration::from_secs(3600);

/// The rating gap two fresh entries may be paired across...
pub const BASE_GAP: f64 = 150.0;

/// ...widened by this much for every second the longer-waiting one waited.
pub const GAP_PER_SECOND: f64 = 10.0;

/// A seek's range as asked: `[min, max]` with `0 <= min <= max <= MAX_RATING`, on a game with an
/// open seat (400 otherwise).
pub(crate) fn checked_range(asked: Option<[i64; 2]>, opens_seats: bool) -> Result<Option<(i64, i64)>, ApiError> {
    let Some([min, max]) = asked else { return Ok(None) };
    if !(0..=MAX_RATING).contains(&min) || !(0..=MAX_RATING).contains(&max) || min > max {
        return Err(ApiError::BadRequest(format!(
            "rating_range: [min, max] with 0 <= min <= max <= {MAX_RATING} (absolute ratings)"
        )));
    }
    if !opens_seats {
        return Err(ApiError::BadRequest("rating_range: only a game with an open seat (a seek) has one".into()));
    }
    Ok(Some((min, max)))
}

/// The speed category of a game's clock (`blitz`, ...; `unlimited` without one).
fn speed_of(row: &GameRow) -> String {
    row.timing.as_ref().map_or(tabletop::clock::TimeControl::Unlimited, |t| t.control()).speed().to_string()
}

/// `account`'s rating in `game` at `speed` as it stands now (a new player's without one).
async fn rating_now(
    state: &Shared,
    account_id: &str,
    game: &str,
    speed: &str,
) -> Result<tabletop::rating::Rating, ApiError> {
    let stored = state.store().ratings_of(account_id).await?;
    let found = stored.iter().find(|(g, s, _)| g == game && s == speed).map(|(_, _, r)| r);
    Ok(current(found, crate::live::now_seconds()))
}

/// A seek's rating range, checked for the person taking its open seat: a logged-in account
/// whose rating is within it (401 without a login, 403 with the reason otherwise).
pub(crate) async fn check_range(state: &Shared, row: &GameRow, account: Option<&SeatAccount>) -> Result<(), ApiError> {
    let Some((min, max)) = row.rating_range else { return Ok(()) };
    let Some(account) = account else {
        return Err(ApiError::Unauthorized(format!(
            "this seek is for ratings {min} to {max}: log in to take its seat"
        )));
    };
    let speed = speed_of(row);
    let rating = rating_now(state, &account.id, &row.game, &speed).await?.rating.round() as i64;
    if rating < min || rating > max {
        return Err(ApiError::Forbidden(format!(
            "this seek is for ratings {min} to {max} in {} {speed}: yours is {rating}",
            row.game
        )));
    }
    Ok(())
}

/// Adds a lobby game's seek fields to its entry: `speed`, `rating_range` (`null` or `[min,
/// max]`) and `accounts` (each seat held by an account: seat, name, bot, rating in the game's
/// type and speed, provisional), and `creator` (the first of them, or `null` for an anonymous creator).
pub(crate) fn lobby_fields(entry: &mut Value, details: &LobbyDetails) {
    let id = entry["id"].as_str().unwrap_or_default().to_string();
    let speed = entry["clock"]
        .as_str()
        .and_then(|c| c.parse::<tabletop::clock::TimeControl>().ok())
        .map_or_else(|| "unlimited".to_string(), |c| c.speed().to_string());
    let now = crate::live::now_seconds();
    let mut seated: BTreeMap<usize, Value> = BTreeMap::new();
    for player in &details.players {
        let (seat, stored) = (&player.seat, &player.stored);
        if player.game_id != id {
            continue;
        }
        let this_speed = stored.as_ref().filter(|(s, _)| *s == speed).map(|(_, r)| r);
        // Rows of the same seat at other speeds (or none) must not hide the one that counts.
        if this_speed.is_none() && seated.contains_key(seat) {
            continue;
        }
        let rating = current(this_speed, now);
        seated.insert(
            *seat,
            json!({
                "seat": seat,
                "name": player.name,
                "bot": player.bot,
                "rating": rating.rating.round() as i64,
                "provisional": SYSTEM.is_provisional(&rating),
            }),
        );
    }
    let accounts: Vec<Value> = seated.into_values().collect();
    entry["speed"] = json!(speed);
    entry["rating_range"] = match details.ranges.get(&id) {
        Some((min, max)) => json!([min, max]),
        None => Value::Null,
    };
    entry["creator"] = accounts.first().cloned().unwrap_or(Value::Null);
    entry["accounts"] = json!(accounts);
}

/// `POST /api/pool`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolRequest {
    /// The game's name in the registry (a two-player game).
    pub game: String,
    /// Its public options (`{}` when absent).
    #[serde(default)]
    pub options: Value,
    /// The time control (`5+3`, `1+0`, `3d`, ...): a limited one.
    pub clock: String,
    /// A rated pool (needs a login) or a casual one.
    #[serde(default)]
    pub rated: bool,
}

/// The seat token of a paired entry: derived from its secret (only the secret's holder can
/// compute it), 32 hex digits like every token.
pub fn seat_token(secret: &str) -> String {
    let digest = Sha256::digest(format!("tabletop pool seat\0{secret}").as_bytes());
    digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    i64::try_from(crate::clocks::now_ms()).unwrap_or(i64::MAX)
}

/// The wave interval in ms (at least 100 ms).
fn wave_ms(state: &Shared) -> i64 {
    i64::try_from(state.config.pool_wave.as_millis()).unwrap_or(i64::MAX).max(100)
}

/// Milliseconds to the next wave (waves run on the wall clock's multiples of the interval).
fn next_wave_in(state: &Shared, now: i64) -> i64 {
    let every = wave_ms(state);
    every - now.rem_euclid(every)
}

/// Who is waiting, for the cap on waiting entries: the account, or the client's address (an
/// IPv6 address's /64), hashed.
fn owner_of(account: Option<&SeatAccount>, client: IpAddr) -> String {
    if let Some(account) = account {
        return format!("account:{}", account.id);
    }
    let key = crate::live::limits::address_key(client);
    format!("address:{}", &crate::store::hash_token(&key)[..32])
}

/// A pool's public description.
fn pool_json(entry: &PoolEntry) -> Value {
    let options: Value = serde_json::from_str(&entry.options).unwrap_or_else(|_| json!({}));
    let speed = entry.clock.parse::<tabletop::clock::TimeControl>().map(|c| c.speed().to_string()).ok();
    json!({"game": entry.game, "options": options, "clock": entry.clock, "speed": speed, "rated": entry.rated})
}

/// `POST /api/pool`: enters the client into the pool of its game, options, clock and rated flag
/// (a rated pool needs a login: 401). Answers the entry's id and secret (shown once: the client
/// polls with it), the pool, the rating it is paired by, and the time to the next wave.
pub async fn enter(
    state: &Shared,
    client: IpAddr,
    request: PoolRequest,
    login: Option<&str>,
) -> Result<Value, ApiError> {
    state.check_writable()?;
    let account = super::accounts::seat_account(state, login).await?;
    if request.rated && account.is_none() {
        return Err(ApiError::Unauthorized("a rated pool is for accounts: log in to enter it".into()));
    }
    // As on lichess, the pools are for people: a bot plays challenges and lobby seeks.
    if account.as_ref().is_some_and(|a| a.bot) {
        return Err(ApiError::Forbidden(
            "bot accounts play challenges and lobby games, not the quick-pairing pools".into(),
        ));
    }
    let options = if request.options.is_null() { json!({}) } else { request.options };
    if !options.is_object() {
        return Err(ApiError::BadRequest("options: an object".into()));
    }
    // Checked as a creation checks them, without taking a game seed (`--game-seed`) for it.
    let mut secret = json!({});
    crate::sessions::complete_secret(&request.game, &mut secret);
    let session = crate::sessions::new_session(&request.game, &options, &secret)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    if session.num_seats() != 2 {
        return Err(ApiError::BadRequest(format!(
            "quick pairing is for two players; {} has {} seats: create a game for the lobby instead",
            request.game,
            session.num_seats()
        )));
    }
    let control = request.clock.parse::<tabletop::clock::TimeControl>().map_err(|e| {
        let shown: String = request.clock.chars().take(40).collect();
        ApiError::BadRequest(format!("clock {shown:?}: {e}"))
    })?;
    if !control.is_limited() {
        return Err(ApiError::BadRequest(
            "quick pairing needs a clock (real time such as \"5+3\", or correspondence such as \"3d\")".into(),
        ));
    }
    let clock = control.to_string();
    let speed = control.speed().to_string();
    let rating = match &account {
        Some(a) => rating_now(state, &a.id, &request.game, &speed).await?.rating,
        None => SYSTEM.initial.rating,
    };
    let options_text = options.to_string();
    let pool = json!([request.game, options, clock, request.rated]).to_string();
    let secret = crate::live::random_hex();
    let now = now_ms();
    let entry = PoolEntry {
        id: crate::live::random_hex(),
        token_hash: crate::store::hash_token(&seat_token(&secret)),
        pool,
        game: request.game,
        options: options_text,
        clock,
        rated: request.rated,
        owner: owner_of(account.as_ref(), client),
        account,
        rating,
        created: now,
        seen: now,
        paired: None,
    };
    // Entering a pool is a seek: counted with the lobby's open games, by account or address,
    // in the database (shared by every process).
    state.limits().check(LimitKind::Seek, &Who::of(entry.account.as_ref(), client)).await?;
    let cap = state.config.pool_entries_per_client;
    if !state.store().pool_enter(&entry, &crate::store::hash_token(&secret), cap).await? {
        return Err(ApiError::TooMany {
            what: format!("you are waiting in {cap} pools already: leave one first"),
            retry_after: 30,
        });
    }
    Ok(json!({
        "entry": entry.id,
        "secret": secret,
        "status": "waiting",
        "pool": pool_json(&entry),
        "rating": rating.round() as i64,
        "next_wave_ms": next_wave_in(state, now),
        "wave_ms": wave_ms(state),
        "expires_after_ms": state.config.pool_expiry.as_millis() as u64,
    }))
}

/// Entry ids and secrets are 32 hex digits: anything else is no entry (and is not looked for).
fn plausible(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A paired entry's answer: the game, the seat and its token (for the secret's holder only).
async fn paired(state: &Shared, entry: &PoolEntry, secret: &str, now: i64) -> Result<Value, ApiError> {
    let Some((game, seat)) = &entry.paired else { return Err(ApiError::Internal("not paired".into())) };
    // The wave marks the pair before it stores the game: until the game is there, still waiting.
    if state.store().version(game).await?.is_none() {
        return Ok(json!({
            "entry": entry.id, "status": "waiting", "pool": pool_json(entry),
            "next_wave_ms": next_wave_in(state, now), "wave_ms": wave_ms(state),
        }));
    }
    Ok(json!({
        "entry": entry.id,
        "status": "paired",
        "pool": pool_json(entry),
        "game": game,
        "seat": seat,
        "token": seat_token(secret),
        "path": format!("/game/{game}"),
    }))
}

/// `GET /api/pool/{entry}` with the entry's secret: waiting (with the time to the next wave) or
/// paired (the game, the seat, the seat's token). Polling keeps the entry alive. 404 for an
/// unknown entry or a wrong secret (one answer for both).
pub async fn poll(state: &Shared, id: &str, secret: Option<&str>) -> Result<Value, ApiError> {
    let secret = secret.filter(|s| plausible(s)).ok_or(ApiError::NoSuchEntry)?;
    if !plausible(id) {
        return Err(ApiError::NoSuchEntry);
    }
    let now = now_ms();
    let entry =
        state.store().pool_poll(id, &crate::store::hash_token(secret), now).await?.ok_or(ApiError::NoSuchEntry)?;
    if entry.paired.is_some() {
        return paired(state, &entry, secret, now).await;
    }
    Ok(json!({
        "entry": entry.id,
        "status": "waiting",
        "pool": pool_json(&entry),
        "rating": entry.rating.round() as i64,
        "waited_ms": now.saturating_sub(entry.created).max(0),
        "next_wave_ms": next_wave_in(state, now),
        "wave_ms": wave_ms(state),
    }))
}

/// `DELETE /api/pool/{entry}` with the entry's secret: leaves the pool (`left`), unless a wave
/// paired it first: then the answer is the pairing, as [`poll`] gives it.
pub async fn leave(state: &Shared, id: &str, secret: Option<&str>) -> Result<Value, ApiError> {
    let secret = secret.filter(|s| plausible(s)).ok_or(ApiError::NoSuchEntry)?;
    if !plausible(id) {
        return Err(ApiError::NoSuchEntry);
    }
    match state.store().pool_leave(id, &crate::store::hash_token(secret)).await? {
        Leave::Left => Ok(json!({"entry": id, "status": "left"})),
        Leave::Paired(entry) => paired(state, &entry, secret, now_ms()).await,
        Leave::Missing => Err(ApiError::NoSuchEntry),
    }
}

/// The rating gap an entry accepts after waiting `waited_ms`.
pub fn allowed_gap(waited_ms: i64) -> f64 {
    BASE_GAP + GAP_PER_SECOND * (waited_ms.max(0) as f64 / 1000.0)
}

/// A wave's pairs among `waiting` at `now` (ms): per pool, every two entries of different
/// accounts whose ratings are within the larger of their allowed gaps, closest first (then the
/// longest waiting), each entry at most once. `seat0` says, per pair, whether its first entry
/// (the longer waiting) plays seat 0. Pure, for tests.
pub fn pairs(waiting: Vec<PoolEntry>, now: i64, mut seat0: impl FnMut() -> bool) -> Vec<Pair> {
    let mut pools: BTreeMap<String, Vec<PoolEntry>> = BTreeMap::new();
    for entry in waiting.into_iter().filter(|e| e.paired.is_none()) {
        pools.entry(entry.pool.clone()).or_default().push(entry);
    }
    let mut out = Vec::new();
    for (_, mut entries) in pools {
        entries.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
        let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
        for i in 0..entries.len() {
            for j in i + 1..entries.len() {
                let (a, b) = (&entries[i], &entries[j]);
                let same_account = matches!((&a.account, &b.account), (Some(x), Some(y)) if x.id == y.id);
                if same_account || a.id == b.id {
                    continue;
                }
                let gap = (a.rating - b.rating).abs();
                // `a` entered first: it waited longer, so its gap is the larger.
                if gap <= allowed_gap(now - a.created).max(allowed_gap(now - b.created)) {
                    candidates.push((gap, i, j));
                }
            }
        }
        candidates.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        let mut taken = vec![false; entries.len()];
        for (_, i, j) in candidates {
            if taken[i] || taken[j] {
                continue;
            }
            taken[i] = true;
            taken[j] = true;
            let (first, second) = (entries[i].clone(), entries[j].clone());
            let seats = if seat0() { [first, second] } else { [second, first] };
            out.push((crate::live::random_hex(), seats));
        }
    }
    out
}

/// One wave: pairs the waiting entries (every process sharing the database may run one at the
/// same moment: each entry is paired once) and makes each pair's game. Answers the games made.
pub async fn wave(state: &Shared) -> Result<usize, ApiError> {
    let now = now_ms();
    let stale_before = now - i64::try_from(state.config.pool_expiry.as_millis()).unwrap_or(i64::MAX);
    let old_before = now - PAIRED_KEPT.as_millis() as i64;
    let seed = state.config.game_seed.map(|seed| seed ^ now as u64);
    let made = state
        .store()
        .pool_wave(stale_before, old_before, move |waiting| {
            // Colours: at random (from `--game-seed` in tests, so runs can repeat).
            let mut rng: rand_chacha::ChaCha8Rng = match seed {
                Some(seed) => rand::SeedableRng::seed_from_u64(seed),
                None => rand::SeedableRng::from_entropy(),
            };
            pairs(waiting, now, move || rng.gen::<bool>())
        })
        .await?;
    let mut games = 0;
    for (id, entries) in made {
        match make_game(state, &id, &entries).await {
            Ok(()) => games += 1,
            Err(err) => {
                tracing::warn!(game = %id, "quick pairing: the pair's game could not be made ({err}); back to waiting");
                if let Err(err) = state.store().pool_unpair(&id).await {
                    tracing::warn!(game = %id, "quick pairing: could not put the pair back ({err})");
                }
            }
        }
    }
    Ok(games)
}

/// The game of a pair: both seats taken, each with its entry's token hash and account.
async fn make_game(state: &Shared, id: &str, entries: &[PoolEntry; 2]) -> Result<(), ApiError> {
    let first = &entries[0];
    let options: Value =
        serde_json::from_str(&first.options).map_err(|_| ApiError::Internal("a pool entry's options".into()))?;
    let control = first
        .clock
        .parse::<tabletop::clock::TimeControl>()
        .map_err(|e| ApiError::Internal(format!("a pool entry's clock: {e}")))?;
    let (secret, session) = secret_and_session(state, &first.game, &options)?;
    let setup = Setup {
        id: id.to_string(),
        game: first.game.clone(),
        options,
        secret,
        seats: vec!["human".to_string(); 2],
        token_hashes: entries.iter().map(|e| e.token_hash.clone()).collect(),
        invites: vec![None; 2],
        accounts: entries.iter().map(|e| e.account.clone()).collect(),
        seated: vec![true; 2],
        control,
        hints: false,
        rated: first.rated,
        rating_range: None,
    };
    new_game(state, IpAddr::from([0, 0, 0, 0]), setup, session).await?;
    Ok(())
}

/// Runs a wave on every multiple of [`crate::config::ServeConfig::pool_wave`] of the wall clock
/// while the server's state lives.
pub fn start_waves(state: &Shared) {
    let weak = std::sync::Arc::downgrade(state);
    tokio::spawn(async move {
        loop {
            let wait = {
                let Some(state) = weak.upgrade() else { return };
                next_wave_in(&state, now_ms())
            };
            tokio::time::sleep(Duration::from_millis(wait.max(1) as u64)).await;
            let Some(state) = weak.upgrade() else { return };
            if state.check_writable().is_err() {
                continue;
            }
            match wave(&state).await {
                Ok(0) => {}
                Ok(games) => tracing::info!(games, "quick pairing: a wave made games"),
                Err(err) => tracing::warn!("quick pairing: a wave failed: {err}"),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, account: Option<&str>, rating: f64, created: i64) -> PoolEntry {
        PoolEntry {
            id: id.into(),
            token_hash: String::new(),
            pool: "p".into(),
            game: "g".into(),
            options: "{}".into(),
            clock: "5+3".into(),
            rated: false,
            owner: String::new(),
            account: account.map(|a| SeatAccount { id: a.into(), name: a.into(), bot: false }),
            rating,
            created,
            seen: created,
            paired: None,
        }
    }

    fn ids(pairs: &[Pair]) -> Vec<[String; 2]> {
        pairs.iter().map(|(_, [a, b])| [a.id.clone(), b.id.clone()]).collect()
    }

    #[test]
    fn closest_ratings_are_paired_first_and_one_account_never_with_itself() {
        let waiting = vec![
            entry("a", Some("x"), 1500.0, 0),
            entry("b", Some("x"), 1500.0, 1),
            entry("c", Some("y"), 1600.0, 2),
            entry("d", None, 1510.0, 3),
        ];
        let made = pairs(waiting, 4, || true);
        // a-d (10) before b-d; a-b is one account; b-c (100) is left.
        assert_eq!(ids(&made), vec![["a".to_string(), "d".to_string()], ["b".to_string(), "c".to_string()]]);
    }

    #[test]
    fn the_gap_widens_with_the_wait() {
        let waiting = vec![entry("a", None, 1500.0, 0), entry("b", None, 1900.0, 0)];
        assert!(pairs(waiting.clone(), 1000, || true).is_empty());
        // 150 + 10/s: 400 after 25 s.
        assert_eq!(pairs(waiting, 25_000, || false).len(), 1);
    }

    #[test]
    fn pools_never_mix() {
        let mut other = entry("b", None, 1500.0, 0);
        other.pool = "q".into();
        assert!(pairs(vec![entry("a", None, 1500.0, 0), other], 0, || true).is_empty());
    }
}
