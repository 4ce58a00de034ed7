//! Accounts, optional (anonymous play is unchanged): sign up, log in and out, who am I, change
//! the password, delete the account. The rules (docs/API.md, "Accounts", says them to clients):
//!
//! - A name is 3 to 24 characters: ASCII letters, digits, `_` and `-`, starting with a letter or
//!   digit; unique regardless of case (`Ann` and `ann` are one name), shown as typed.
//! - A password is 8 to 256 characters, any; hashed with argon2id ([`crate::passwords`]).
//! - A login is a random 256-bit token in a cookie (the handlers set it); the database keeps its
//!   SHA-256 and expiry. Every login and sign-up makes a new token and ends the session the
//!   client held before (no fixation); logging out ends it; a password change ends every other
//!   session; deleting the account ends all of them.
//! - A wrong password and an unknown name get one answer (401, the same text), after the same
//!   work (a dummy verify for an unknown name).
//! - Attempts are limited in the database (shared by every process): failed logins per name and
//!   per client address, sign-ups per address; a password check for a change or deletion counts
//!   as a login.

use std::net::IpAddr;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::live::AppState;
use crate::store::accounts::AccountRow;
use crate::store::hash_token;

/// The shortest and longest name, in characters.
pub const NAME_LENGTH: (usize, usize) = (3, 24);
/// The shortest and longest password, in characters.
pub const PASSWORD_LENGTH: (usize, usize) = (8, 256);
/// The one answer to a login with a wrong name or password.
pub const WRONG_LOGIN: &str = "wrong name or password";

/// `POST /api/account/signup` and `/login`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// The account's name.
    pub name: String,
    /// Its password.
    pub password: String,
}

/// `POST /api/account/password`: the body.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordChange {
    /// The current password.
    pub password: String,
    /// The new one.
    pub new_password: String,
}

/// `POST /api/account/delete`: the body (the password, asked again).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PasswordConfirm {
    /// The current password.
    pub password: String,
}

/// What to do with the client's session cookie.
#[derive(Debug, PartialEq, Eq)]
pub enum SessionCookie {
    /// Leave it as it is.
    Unchanged,
    /// Set it to this new token (good for `lifetime` seconds).
    Set {
        /// The token (shown once, in the cookie; the database keeps its hash).
        token: String,
        /// Seconds until it expires.
        lifetime: u64,
    },
    /// Remove it.
    Clear,
}

/// An account action's answer: the JSON body and the cookie to send.
pub struct AccountAnswer {
    /// The body.
    pub body: Value,
    /// The cookie.
    pub cookie: SessionCookie,
}

/// A name's key: the name in lower case (names are unique regardless of case).
pub(crate) fn name_key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// Checks a new name (400 with the rule when it breaks it; the name is not echoed).
fn check_name(name: &str) -> Result<(), ApiError> {
    let length = name.chars().count();
    let rule = || {
        ApiError::BadRequest(format!(
            "a name is {} to {} characters: ASCII letters, digits, _ and -, starting with a letter or digit",
            NAME_LENGTH.0, NAME_LENGTH.1
        ))
    };
    if !(NAME_LENGTH.0..=NAME_LENGTH.1).contains(&length) {
        return Err(rule());
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        || !name.starts_with(|c: char| c.is_ascii_alphanumeric())
    {
        return Err(rule());
    }
    Ok(())
}

/// Checks a password's length (400 when outside the bounds; a longer one is refused before any
/// hashing).
fn check_password(password: &str) -> Result<(), ApiError> {
    let length = password.chars().count();
    if !(PASSWORD_LENGTH.0..=PASSWORD_LENGTH.1).contains(&length) {
        return Err(ApiError::BadRequest(format!(
            "a password is {} to {} characters",
            PASSWORD_LENGTH.0, PASSWORD_LENGTH.1
        )));
    }
    Ok(())
}

/// The client address as the limits count it: an IPv4 address, or an IPv6 address's /64.
fn address_key(client: IpAddr) -> String {
    crate::live::limits::address_key(client)
}

/// The key an attempt is counted under: the hash of what is counted (the database keeps no
/// name or address in clear: docs/API.md says what that hash does and does not hide).
fn attempt_key(kind: &str, what: &str) -> String {
    hash_token(&format!("{kind}:{what}"))
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> i64 {
    i64::try_from(crate::clocks::now_ms()).unwrap_or(i64::MAX)
}

/// A login's token and its hash, from the OS generator: 256 random bits in hex.
fn new_session_token() -> (String, String) {
    let token = format!("{}{}", crate::live::random_hex(), crate::live::random_hex());
    let hash = hash_token(&token);
    (token, hash)
}

/// Does `token` look like one of ours (64 hex digits)? Anything else is no session at all.
fn plausible(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Counts an attempt under `limits` (key, most) or answers 429 with `what` and when the oldest
/// counted attempt stops counting.
async fn reserve(state: &AppState, limits: &[(String, u64)], what: &[&str], at: i64) -> Result<(), ApiError> {
    let window = i64::try_from(state.config.login_window.as_millis()).unwrap_or(i64::MAX / 4);
    if let Some((index, oldest)) = state.store().reserve_attempt(limits, at, at - window).await? {
        let retry_after = u64::try_from((oldest + window - at).max(1000) / 1000).unwrap_or(1);
        return Err(ApiError::TooMany {
            what: what.get(index).copied().unwrap_or("too many attempts").into(),
            retry_after,
        });
    }
    Ok(())
}

/// The login-attempt limits for `key` (a name's key) from `client`.
fn login_limits(state: &AppState, key: &str, client: IpAddr) -> Vec<(String, u64)> {
    vec![
        (attempt_key("login-name", key), u64::from(state.config.login_failures_per_account.max(1))),
        (attempt_key("login-address", &address_key(client)), u64::from(state.config.login_failures_per_address.max(1))),
    ]
}

/// What a login limit's 429 says, per key.
const LOGIN_LIMITED: [&str; 2] = ["too many failed logins for this name", "too many failed logins from this address"];

/// Checks `password` against `account` (or, without one, against the dummy hash), counted by the
/// login limits: a success takes its attempt back (and forgets the name's failures), a failure
/// stays counted.
async fn checked_password(
    state: &AppState,
    client: IpAddr,
    key: &str,
    password: &str,
    account: Option<&AccountRow>,
) -> Result<bool, ApiError> {
    let limits = login_limits(state, key, client);
    let at = now_ms();
    reserve(state, &limits, &LOGIN_LIMITED, at).await?;
    let right = state.passwords.verify(password.to_string(), account.map(|a| a.password_hash.clone())).await?;
    if right {
        state.store().forget_attempts(&limits[0].0).await?;
        state.store().release_attempt(&limits[1].0, at).await?;
    }
    Ok(right)
}

/// Starts a session for `account`, ending `replaced` (the client's token from before, if any).
async fn start_session(
    state: &AppState,
    account: &AccountRow,
    replaced: Option<&str>,
) -> Result<SessionCookie, ApiError> {
    let (token, hash) = new_session_token();
    let lifetime = state.config.session_lifetime.as_secs().max(1);
    let now = crate::live::now_seconds();
    let expires = now.saturating_add(i64::try_from(lifetime).unwrap_or(i64::MAX / 2));
    let replaced = replaced.filter(|t| plausible(t)).map(hash_token);
    state.store().start_account_session(&hash, &account.id, now, expires, replaced.as_deref()).await?;
    Ok(SessionCookie::Set { token, lifetime })
}

/// What is shown of an account.
fn shown(account: &AccountRow) -> Value {
    json!({ "name": account.name, "created": account.created })
}

/// The account the session `token` is logged in as (401 without one).
pub(crate) async fn logged_in(state: &AppState, token: Option<&str>) -> Result<(AccountRow, String), ApiError> {
    let not_logged_in = || ApiError::Unauthorized("not logged in".into());
    let token = token.filter(|t| plausible(t)).ok_or_else(not_logged_in)?;
    let hash = hash_token(token);
    let account = state.store().account_by_session(&hash, crate::live::now_seconds()).await?;
    Ok((account.ok_or_else(not_logged_in)?, hash))
}

/// The account the session `token` is logged in as, if any (a seat's link; no error without);
/// or the bot account a bot's API token names (401 when that token is not good: a bot never
/// plays anonymously by mistake).
pub async fn seat_account(
    state: &crate::live::Shared,
    token: Option<&str>,
) -> Result<Option<crate::ratings::SeatAccount>, ApiError> {
    if let Some(api_token) = token.filter(|t| super::bots::is_api_token(t)) {
        return Ok(Some(super::bots::bot_account(state, api_token).await?));
    }
    let Some(token) = token.filter(|t| plausible(t)) else { return Ok(None) };
    let account = state.store().account_by_session(&hash_token(token), crate::live::now_seconds()).await?;
    let Some(account) = account else { return Ok(None) };
    let bot = state.store().account_is_bot(&account.id).await?;
    Ok(Some(crate::ratings::SeatAccount { id: account.id, name: account.name, bot }))
}

/// `POST /api/account/signup`: a new account, logged in at once (its name, 409 when taken).
pub async fn signup(
    state: &AppState,
    client: IpAddr,
    session: Option<&str>,
    request: Credentials,
) -> Result<AccountAnswer, ApiError> {
    check_name(&request.name)?;
    check_password(&request.password)?;
    // Every attempt counts, a taken name too: so sign-up cannot be used to list names quickly.
    let limits =
        [(attempt_key("signup-address", &address_key(client)), u64::from(state.config.signups_per_address.max(1)))];
    reserve(state, &limits, &["too many sign-ups from this address"], now_ms()).await?;
    let key = name_key(&request.name);
    let account = AccountRow {
        id: crate::live::random_hex(),
        password_hash: state.passwords.hash(request.password).await?,
        name: request.name,
        created: crate::live::now_seconds(),
    };
    if !state.store().create_account(&account, &key).await? {
        return Err(ApiError::Conflict("that name is taken (names are unique regardless of case)".into()));
    }
    let cookie = start_session(state, &account, session).await?;
    Ok(AccountAnswer { body: shown(&account), cookie })
}

/// `POST /api/account/login`: a new session for the account (401 [`WRONG_LOGIN`] for a wrong
/// name or password alike).
pub async fn login(
    state: &AppState,
    client: IpAddr,
    session: Option<&str>,
    request: Credentials,
) -> Result<AccountAnswer, ApiError> {
    // Past these lengths nothing could match: refused before any work (a long password would
    // cost hashing time), by the same rule as sign-up.
    if request.name.chars().count() > NAME_LENGTH.1 || request.password.chars().count() > PASSWORD_LENGTH.1 {
        return Err(ApiError::BadRequest(format!(
            "a name is at most {} characters and a password at most {}",
            NAME_LENGTH.1, PASSWORD_LENGTH.1
        )));
    }
    let key = name_key(&request.name);
    let account = state.store().account_by_name(&key).await?;
    if !checked_password(state, client, &key, &request.password, account.as_ref()).await? {
        return Err(ApiError::Unauthorized(WRONG_LOGIN.into()));
    }
    let Some(account) = account else { return Err(ApiError::Unauthorized(WRONG_LOGIN.into())) };
    let cookie = start_session(state, &account, session).await?;
    Ok(AccountAnswer { body: shown(&account), cookie })
}

/// `POST /api/account/logout`: ends the client's session (if any) and clears its cookie.
pub async fn logout(state: &AppState, session: Option<&str>) -> Result<AccountAnswer, ApiError> {
    if let Some(token) = session.filter(|t| plausible(t)) {
        state.store().end_account_session(&hash_token(token)).await?;
    }
    Ok(AccountAnswer { body: json!({ "logged_out": true }), cookie: SessionCookie::Clear })
}

/// `GET /api/account`: who the session is logged in as (401 when not), and whether it is a bot;
/// with a bot's API token, the bot's name (401 when the token is not good).
pub async fn whoami(state: &crate::live::Shared, session: Option<&str>) -> Result<Value, ApiError> {
    if let Some(api_token) = session.filter(|t| super::bots::is_api_token(t)) {
        return super::bots::whoami(state, api_token).await;
    }
    let (account, _) = logged_in(state, session).await?;
    let mut body = shown(&account);
    body["bot"] = json!(state.store().account_is_bot(&account.id).await?);
    Ok(body)
}

/// `POST /api/account/password`: a new password (the current one asked again: 403 when wrong),
/// ending every other session of the account.
pub async fn change_password(
    state: &AppState,
    client: IpAddr,
    session: Option<&str>,
    request: PasswordChange,
) -> Result<AccountAnswer, ApiError> {
    let (account, hash) = logged_in(state, session).await?;
    check_password(&request.new_password)?;
    if request.password.chars().count() > PASSWORD_LENGTH.1
        || !checked_password(state, client, &name_key(&account.name), &request.password, Some(&account)).await?
    {
        return Err(ApiError::Forbidden("wrong password".into()));
    }
    let new_hash = state.passwords.hash(request.new_password).await?;
    let ended = state.store().set_password(&account.id, &new_hash, &hash).await?;
    Ok(AccountAnswer {
        body: json!({ "name": account.name, "other_sessions_ended": ended }),
        cookie: SessionCookie::Unchanged,
    })
}

/// `POST /api/account/delete`: deletes the account (the password asked again: 403 when wrong)
/// and every session of it; its name is free again.
pub async fn delete(
    state: &AppState,
    client: IpAddr,
    session: Option<&str>,
    request: PasswordConfirm,
) -> Result<AccountAnswer, ApiError> {
    let (account, _) = logged_in(state, session).await?;
    if request.password.chars().count() > PASSWORD_LENGTH.1
        || !checked_password(state, client, &name_key(&account.name), &request.password, Some(&account)).await?
    {
        return Err(ApiError::Forbidden("wrong password".into()));
    }
    let games = state.store().delete_account(&account.id).await?;
    state.store().revoke_api_tokens(&account.id, true).await?;
    state.reload_later(&games).await;
    Ok(AccountAnswer { body: json!({ "deleted": account.name }), cookie: SessionCookie::Clear })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rule() {
        for good in ["ann", "Ann_2", "a-b", "0zero", "x".repeat(24).as_str()] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "ab", "_ann", "-ann", "an n", "änn", "ann!", "x".repeat(25).as_str()] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn addresses_count_per_ipv4_and_per_ipv6_64() {
        assert_eq!(address_key("192.0.2.7".parse().unwrap()), "192.0.2.7");
        assert_eq!(address_key("::ffff:192.0.2.7".parse().unwrap()), "192.0.2.7");
        let a = address_key("2001:db8:1:2:aaaa::1".parse().unwrap());
        assert_eq!(a, address_key("2001:db8:1:2:bbbb::9".parse().unwrap()));
        assert_ne!(a, address_key("2001:db8:1:3::1".parse().unwrap()));
    }

    #[test]
    fn session_tokens_are_256_bits_and_fresh() {
        let (a, hash) = new_session_token();
        let (b, _) = new_session_token();
        assert!(plausible(&a) && plausible(&b));
        assert_ne!(a, b);
        assert_eq!(hash, hash_token(&a));
        assert!(!plausible("attacker-chosen"));
    }
}
