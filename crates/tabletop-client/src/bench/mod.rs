//! The benchmarks behind `tabletop bench serve`, over loopback only, bounded in count and time.
//!
//! - [`load_benchmark`]: many games played at once by clients in the same process, each game
//!   watched by both seats' event streams (the delay from a move's acknowledgement to its event
//!   at the other seat), then a check that every acknowledged move is in the database (SQLite
//!   or PostgreSQL).
//! - [`load_benchmark_targets`]: the same against server processes already running on one
//!   shared database, each game's moves alternating between them and its events timed on another
//!   process than the one that took the move; then every game is read back from every process.
//! - [`accounts_benchmark`]: logged-in people (each from its own loopback address) against a
//!   server with its default limits: sign-ups and logins all at once, then rated games with a
//!   clock played to their ends, read back with their rating changes.
//! - [`abuse_benchmark`]: ordinary players move while attackers ask for hints, hold idle
//!   connections, create games in bulk, ask for the longest thinking, open event streams they
//!   never read (slow readers), open every connection one address can, and run many games
//!   against the computer from one address; it measures the server's peak memory, the kernel's
//!   TCP memory, the ordinary moves' latency, the computer's reply delay to ordinary people,
//!   what each attack was answered, and whether the server kept answering.
//!
//! Where things live: this file holds what both benchmarks use (the error, one request from a
//! chosen loopback address, percentiles, the simulated clients' addresses); `load.rs` the load
//! benchmarks; `abuse/` the abuse benchmark, one file per attack and per scenario measured.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use serde_json::Value;
use tabletop_web::store::StoreError;

use crate::client::ClientError;

mod abuse;
mod accounts;
mod load;

pub use abuse::{abuse_benchmark, abuse_benchmark_blocking, AbuseReport, AbuseSettings, Statuses};
pub use accounts::{accounts_benchmark, accounts_benchmark_blocking, AccountsReport, AccountsSettings};
pub use load::{
    load_benchmark, load_benchmark_blocking, load_benchmark_targets, load_benchmark_targets_blocking, target_addr,
    LoadReport, LoadSettings,
};

/// Why the benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Networking failed.
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    /// The server answered something unexpected.
    #[error("unexpected answer: {0}")]
    Protocol(String),
    /// A target could not be understood or resolved.
    #[error("target {0}")]
    Target(String),
}

impl From<ClientError> for BenchError {
    fn from(err: ClientError) -> Self {
        match err {
            ClientError::Io(io) => BenchError::Io(io),
            ClientError::Protocol(what) => BenchError::Protocol(what),
        }
    }
}

/// One request on its own connection, from `from`, within `limit`: the status and JSON body.
async fn request_from(
    addr: SocketAddr,
    from: Option<Ipv4Addr>,
    method: &str,
    path: &str,
    body: &str,
    limit: Duration,
) -> Result<(u16, Value), BenchError> {
    let answer = crate::client::request(addr, from, method, path, body, limit).await?;
    if answer.status == 0 {
        return Err(BenchError::Protocol(answer.head.chars().take(80).collect()));
    }
    Ok((answer.status, answer.body))
}

/// The strings of a JSON array.
fn strings(value: &Value) -> Vec<String> {
    value.as_array().into_iter().flatten().filter_map(|m| m.as_str().map(String::from)).collect()
}

/// The value at fraction `p` of sorted `values`, in milliseconds (0 when empty).
fn percentile(values: &[Duration], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let last = values.len().saturating_sub(1);
    let index = ((values.len() as f64 * p) as usize).min(last);
    values[index].as_secs_f64() * 1000.0
}

/// The loopback address `127.b.c.d` of simulated client `index` in group `b`.
fn client_ip(group: u8, index: usize) -> Ipv4Addr {
    let index = index.saturating_add(1);
    Ipv4Addr::new(127, group, (index / 250) as u8, (index % 250) as u8 + 1)
}

/// Many connections need many file descriptors: raise the soft limit to the hard one.
fn raise_file_limit() {
    let _ = rlimit::increase_nofile_limit(u64::MAX);
}
