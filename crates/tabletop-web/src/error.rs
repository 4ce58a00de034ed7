//! The web layer's error type: why a request failed, one variant per HTTP status. The games in
//! play ([`crate::live`]) and the handlers ([`crate::server`]) both return it; the server turns
//! it into a response (JSON `{"error": ...}`), so the game logic needs no HTTP type.

use crate::store::StoreError;

/// Request bodies larger than this are refused (413).
pub const BODY_LIMIT: usize = 16 * 1024;

/// Why a request failed; each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// 400: the request is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// 401: an account's action without a valid login, or a login with a wrong name or
    /// password (one answer for both).
    #[error("{0}")]
    Unauthorized(String),
    /// 403: a seat's action without that seat's token, or not allowed for it.
    #[error("{0}")]
    Forbidden(String),
    /// 413: the body is over [`BODY_LIMIT`].
    #[error("request body too large (limit {BODY_LIMIT} bytes)")]
    TooLarge,
    /// 404: no such game.
    #[error("no game with id {0:?}")]
    NotFound(String),
    /// 404: no account of that name.
    #[error("no player named {0:?}")]
    NoSuchPlayer(String),
    /// 404: no quick-pairing entry with that id and secret (gone, or never this client's).
    #[error("no pool entry with that id and secret (left, expired after a while without polling, or not yours)")]
    NoSuchEntry,
    /// 409: the game moved on (another request won, or it is not this seat's turn).
    #[error("{0}")]
    Conflict(String),
    /// 422: the rules refuse the move; the reason is the one the terminal gives.
    #[error("{0}")]
    Illegal(String),
    /// 429 with `Retry-After` (seconds): the client holds as much of something as it may.
    #[error("{what}; try again in {retry_after} seconds")]
    TooMany {
        /// What is at its limit.
        what: String,
        /// When to try again, in seconds.
        retry_after: u64,
    },
    /// 503 with `Retry-After`: the engine workers are all busy.
    #[error("the engines are all busy; try again in a few seconds")]
    Busy,
    /// 503 with `Retry-After`: the database cannot be written, or is busy.
    #[error("the server cannot store games right now; try again later")]
    Unavailable,
    /// 500: stored data is damaged or storage failed (the reason goes to the log, not the client).
    #[error("internal error")]
    Internal(String),
}

impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::Stale => ApiError::Conflict("the game has moved on: another request moved first".into()),
            // The database is out of reach (restarting, connections dropped) or locked by
            // another process for longer than a request waits: try again later.
            StoreError::Pool(_) | StoreError::Busy => {
                tracing::warn!("storage: {err}");
                ApiError::Unavailable
            }
            StoreError::Postgres(ref pg) if out_of_reach(pg) => {
                tracing::warn!("storage: {err}");
                ApiError::Unavailable
            }
            other => ApiError::Internal(other.to_string()),
        }
    }
}

/// Whether a PostgreSQL error means the database is out of reach for now rather than a fault: a
/// closed connection, an error without a SQLSTATE (I/O), or a connection exception (class 08),
/// an operator's intervention such as `pg_terminate_backend` or a restart (class 57: the dying
/// connection answers `57P01 admin_shutdown`), or exhausted resources (class 53).
fn out_of_reach(error: &tokio_postgres::Error) -> bool {
    match error.code() {
        None => true,
        Some(code) => error.is_closed() || ["08", "57", "53"].iter().any(|class| code.code().starts_with(class)),
    }
}
