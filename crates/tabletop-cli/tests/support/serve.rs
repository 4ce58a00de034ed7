//! Starting `tabletop serve` as a process for the tests that need one (kill -9, restarts, two
//! processes on one database): included by those test binaries with `#[path]`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// Starts `tabletop serve` on a free loopback port with the database `db` and the extra
/// arguments `extra`; returns the process and its address (`127.0.0.1:PORT`), read from the
/// first line it prints.
pub fn spawn_server(db: &str, extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", db])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tabletop serve runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped")).read_line(&mut line).expect("a first line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("tabletop serve did not start: {line:?}"))
        .to_string();
    (child, addr)
}
