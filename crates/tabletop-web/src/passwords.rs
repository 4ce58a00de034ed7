//! Accounts' passwords: hashed with argon2id (the `argon2` crate, RustCrypto) at OWASP's
//! parameters, m = 19,456 KiB, t = 2, p = 1, and a random 16-byte salt per password, stored as
//! a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$SALT$HASH`: a later change of parameters still
//! verifies older hashes by their own).
//!
//! - Hashing takes about 19 MiB and tens of milliseconds: it runs on tokio's blocking threads,
//!   at most [`Passwords::new`]'s number at once (the others wait, up to [`HASH_WAIT`], then 503),
//!   so a flood of logins can neither starve the threads that answer requests nor take memory
//!   without bound.
//! - A login for a name with no account verifies the password against a dummy hash made with the
//!   same parameters ([`Passwords::verify`] with `None`): the answer comes after the same work as
//!   a wrong password, so timing does not tell whether a name has an account. The counters
//!   ([`Passwords::checks`]) let tests see which path was taken.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use argon2::{Algorithm, Argon2, Params, PasswordHasher, PasswordVerifier, Version};

use crate::error::ApiError;

/// Memory per hash, in KiB (OWASP's minimum for argon2id with t = 2).
pub const MEMORY_KIB: u32 = 19 * 1024;
/// Passes over the memory.
pub const PASSES: u32 = 2;
/// Lanes.
pub const LANES: u32 = 1;
/// How long a password check may wait for a free hashing slot before 503.
pub const HASH_WAIT: Duration = Duration::from_secs(10);

/// The hasher at the parameters above.
fn hasher() -> Argon2<'static> {
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).expect("OWASP's argon2 parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A hash of a random password nobody knows, at the same parameters as real ones.
fn dummy_hash() -> String {
    let filler = crate::live::random_hex();
    hasher().hash_password(filler.as_bytes()).map(|h| h.to_string()).unwrap_or_default()
}

/// Hashing and checking passwords, bounded; see the module's documentation.
pub struct Passwords {
    slots: Arc<tokio::sync::Semaphore>,
    dummy: Arc<OnceLock<String>>,
    real: AtomicU64,
    dummies: AtomicU64,
}

impl Passwords {
    /// At most `concurrent` hashes at once (at least 1).
    pub fn new(concurrent: usize) -> Self {
        Passwords {
            slots: Arc::new(tokio::sync::Semaphore::new(concurrent.max(1))),
            dummy: Arc::new(OnceLock::new()),
            real: AtomicU64::new(0),
            dummies: AtomicU64::new(0),
        }
    }

    /// Runs `work` on a blocking thread once a hashing slot is free.
    async fn bounded<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, ApiError> {
        let permit = tokio::time::timeout(HASH_WAIT, self.slots.clone().acquire_owned())
            .await
            .map_err(|_| ApiError::Busy)?
            .map_err(|_| ApiError::Busy)?;
        let answer = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|e| ApiError::Internal(format!("password hashing: {e}")))?;
        Ok(answer)
    }

    /// The PHC string of `password` with a fresh random salt.
    pub async fn hash(&self, password: String) -> Result<String, ApiError> {
        self.bounded(move || hasher().hash_password(password.as_bytes()).map(|h| h.to_string()))
            .await?
            .map_err(|e| ApiError::Internal(format!("password hashing: {e}")))
    }

    /// Whether `password` matches `stored` (a PHC string); with `None` (no such account) the
    /// same work is done against a dummy hash, and the answer is `false`.
    pub async fn verify(&self, password: String, stored: Option<String>) -> Result<bool, ApiError> {
        let counter = if stored.is_some() { &self.real } else { &self.dummies };
        counter.fetch_add(1, Ordering::Relaxed);
        let dummy = self.dummy.clone();
        self.bounded(move || {
            let hasher = hasher();
            match stored {
                Some(hash) => hasher.verify_password(password.as_bytes(), hash.as_str()).is_ok(),
                None => {
                    let dummy = dummy.get_or_init(dummy_hash);
                    let _ = hasher.verify_password(password.as_bytes(), dummy.as_str());
                    false
                }
            }
        })
        .await
    }

    /// Makes the dummy hash in the background (at start), so that the first login for an
    /// unknown name costs no more than the others.
    pub fn prepare(&self) {
        let dummy = self.dummy.clone();
        tokio::task::spawn_blocking(move || {
            dummy.get_or_init(dummy_hash);
        });
    }

    /// How many checks ran against a real hash and how many against the dummy one (for tests:
    /// an unknown name must take the dummy path).
    pub fn checks(&self) -> (u64, u64) {
        (self.real.load(Ordering::Relaxed), self.dummies.load(Ordering::Relaxed))
    }
}
