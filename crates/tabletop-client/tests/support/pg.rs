//! PostgreSQL for the tests: one server per test run, one fresh database per test.
//!
//! - [`server_url`] is the admin URL of the server (`postgres://postgres@127.0.0.1:PORT/postgres`,
//!   trust authentication). `scripts/test` starts one server for the whole run and passes it in
//!   `TABLETOP_TEST_PG`; when that is unset (a plain `cargo test`), the first call starts a private
//!   server with `scripts/pg-test-server` in a temporary directory, which a detached watchdog stops
//!   and removes once this test process has exited.
//! - [`fresh_database`] creates a new, empty, uniquely named database on that server and returns
//!   its URL, so that tests never see each other's data. The databases are not dropped: they go
//!   away with the server.
//!
//! Needs the `psql` client on PATH (Debian: `postgresql-client`); `scripts/pg-test-server`
//! installs the server itself when it is missing.

#![allow(dead_code)]

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The environment variable holding the admin URL of a server started by the caller.
pub const ENV_URL: &str = "TABLETOP_TEST_PG";

/// The repository's root directory (where `scripts/` lives).
pub fn repo_root() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The admin URL of the test server: `TABLETOP_TEST_PG` if set, else a server of this test
/// process's own, started on first use (once per process) and stopped after the process exits.
pub fn server_url() -> String {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| match std::env::var(ENV_URL) {
        Ok(url) if !url.trim().is_empty() => url.trim().to_string(),
        _ => start_own_server(),
    })
    .clone()
}

/// Creates a new database named `t_<pid>_<counter>_<random>` on the test server and returns its
/// URL (the server's URL with the database name replaced). Panics if `psql` is missing or fails.
pub fn fresh_database() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let server = server_url();
    let name = format!("t_{}_{}_{:08x}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed), random_u32());
    psql(&server, &format!("CREATE DATABASE {name}"));
    with_database(&server, &name)
}

/// Runs one SQL command with `psql` (stops at the first error); panics with psql's output if it
/// fails, or with a hint if `psql` is not installed.
pub fn psql(url: &str, sql: &str) {
    let output = Command::new("psql")
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        .env("PGCONNECT_TIMEOUT", "10")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                panic!(
                    "the PostgreSQL tests need the `psql` client on PATH (Debian: apt-get install postgresql-client)"
                )
            }
            panic!("could not run psql: {e}")
        });
    if !output.status.success() {
        panic!(
            "psql failed ({}) on {url} running `{sql}`:\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// `url` with its database (the last path segment) replaced by `name`; keeps any `?query`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let host_part = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{host_part}/{name}?{query}"),
        None => format!("{host_part}/{name}"),
    }
}

/// Starts a server with `scripts/pg-test-server` in a new temporary directory and a watchdog that
/// stops it (and removes the directory) once this process is gone: statics have no destructor.
fn start_own_server() -> String {
    let script = repo_root().join("scripts/pg-test-server");
    let pid = std::process::id();
    let dir = std::env::temp_dir().join(format!("tabletop-pg-{pid}-{:08x}", random_u32()));

    // The watchdog first, so that the server is stopped even if this process dies while it starts.
    // It runs in the background of a shell that exits at once (so it leaves no zombie here), in its
    // own process group (out of reach of a Ctrl-C to the test run), without stdio (so that it does
    // not hold the test's output pipes open). It stops twice, in case a start was still under way.
    let watchdog = format!(
        "(while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
          \"$0\" stop \"$1\"; sleep 10; \"$0\" stop \"$1\") &"
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(watchdog)
        .arg(&script)
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .status()
        .unwrap_or_else(|e| panic!("could not start the watchdog for the test PostgreSQL server: {e}"));
    assert!(status.success(), "could not start the watchdog for the test PostgreSQL server: {status}");

    let output = Command::new(&script)
        .arg("start")
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", script.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let url = stdout.lines().last().unwrap_or("").trim().to_string();
    if !output.status.success() || !url.starts_with("postgres://") {
        panic!(
            "{} start {} failed ({}); set {ENV_URL} to use a running server instead:\n{}{}",
            script.display(),
            dir.display(),
            output.status,
            stdout,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    url
}

/// Some randomness without extra crates: std's randomly seeded hasher over the clock.
fn random_u32() -> u32 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    hasher.finish() as u32
}
