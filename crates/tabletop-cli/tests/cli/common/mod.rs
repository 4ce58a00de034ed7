//! Runs the `tabletop` binary with scripted standard input, for the CLI tests.

use std::io::Write;
use std::process::{Command, Stdio};

/// What a run printed and how it ended.
pub struct Run {
    /// Exit status 0.
    pub ok: bool,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `tabletop ARGS` with `stdin` as its standard input (colours off).
pub fn tabletop(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tabletop binary runs");
    // A command may exit before reading everything (quit): a broken pipe is fine.
    let _ = child.stdin.take().expect("stdin is piped").write_all(stdin.as_bytes());
    let out = child.wait_with_output().expect("tabletop finishes");
    Run {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
