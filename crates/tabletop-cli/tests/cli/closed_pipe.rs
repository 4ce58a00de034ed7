//! Output into a pipe that the reader has closed (`tabletop ... | head`) ends the command
//! quietly instead of a panic.

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_ends_the_command_without_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tabletop"))
        .args(["book", "connect", "--report"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tabletop binary starts");
    // Closing our end at once: the command's first line meets a pipe without a reader.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child.stderr.take().expect("stderr is piped").read_to_string(&mut stderr).expect("stderr is text");
    let status = child.wait().expect("the command ends");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(status.code(), Some(101), "{status:?}: {stderr}");
}
