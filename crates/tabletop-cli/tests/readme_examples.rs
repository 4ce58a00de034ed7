//! Every command example in README.md runs as written.
//!
//! The convention, for everyone who edits the README:
//! - The test runs every line of a ```` ```sh ```` block that starts with `tabletop `, or with
//!   `printf ` or `echo ` piped into `tabletop` (a scripted game). Lines starting with anything
//!   else (`cargo run ...`, `scripts/test`) and other blocks are not run; inline `code` is not run.
//! - Each line runs with `sh -c`, exactly as written (quotes, pipes and `# comments` included),
//!   with the `tabletop` built for the tests first on `PATH`, `NO_COLOR=1`, empty standard
//!   input (a game then ends with "End of input") and a fresh temporary directory as the
//!   working directory. It must exit with status 0, print something, and print no `error:`.
//! - An example that cannot run here (it serves until stopped, needs another program, a
//!   database, a saved file, or hours) ends with the comment
//!   `# not run by the README test: needs X`, saying why.
//! - Keep each example to seconds: show a short budget (`--games 2`, `--set Test_L3_R1`) and
//!   name the longer form in the comment.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The comment that exempts an example, followed by the reason.
const NOT_RUN: &str = "# not run by the README test:";

/// An example found in the README.
#[derive(Debug, PartialEq)]
struct Example {
    /// The line as written.
    command: String,
    /// Why it is not run, if it is exempt.
    not_run: Option<String>,
}

/// The command examples of a Markdown text: the lines of its ```sh blocks that start with
/// `tabletop `, or with `printf `/`echo ` and pipe into `tabletop`.
fn examples(markdown: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut in_sh = false;
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(fence) = trimmed.strip_prefix("```") {
            in_sh = !in_sh && fence.trim() == "sh";
            continue;
        }
        let scripted =
            (trimmed.starts_with("printf ") || trimmed.starts_with("echo ")) && trimmed.contains("| tabletop ");
        if in_sh && (trimmed.starts_with("tabletop ") || scripted) {
            let not_run = trimmed.split_once(NOT_RUN).map(|(_, why)| why.trim().to_string());
            found.push(Example { command: trimmed.to_string(), not_run });
        }
    }
    found
}

/// What a run of one example gave.
struct Outcome {
    success: bool,
    stdout: String,
    stderr: String,
}

/// Runs `command` with `sh -c` in `dir`, the tests' `tabletop` first on PATH; fails the test
/// if it has not finished after `limit` (a hung example, not a slow one: the limit is far above
/// any example's time).
fn run(command: &str, dir: &Path, limit: Duration) -> Outcome {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_tabletop"));
    let bin_dir = binary.parent().expect("the binary has a directory");
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH can be joined");
    // Output goes to files, so a long output cannot fill a pipe while we wait.
    let (out_file, err_file) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(std::fs::File::create(&err_file).expect("stderr file"))
        .spawn()
        .expect("sh runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the example can be waited for") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} is still running after {limit:?}: give it a short budget or mark it `{NOT_RUN} ...`");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Outcome {
        success: status.success(),
        stdout: std::fs::read_to_string(&out_file).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_file).unwrap_or_default(),
    }
}

#[test]
fn the_extractor_follows_the_convention() {
    let markdown = "text `tabletop inline` is not run\n\
        ```\ntabletop in a plain block\n```\n\
        ```sh\ncargo run --release -- play slide\ntabletop play slide --size 3   # a comment\n\
        printf '5\\n' | tabletop play slide\necho 4453 | tabletop solve connect\nprintf 'not piped'\n\
        tabletop serve   # not run by the README test: serves until stopped\n```\n\
        ```json\ntabletop in json\n```\n";
    let found = examples(markdown);
    let commands: Vec<&str> = found.iter().map(|e| e.command.as_str()).collect();
    assert_eq!(
        commands,
        [
            "tabletop play slide --size 3   # a comment",
            "printf '5\\n' | tabletop play slide",
            "echo 4453 | tabletop solve connect",
            "tabletop serve   # not run by the README test: serves until stopped",
        ]
    );
    assert_eq!(found[3].not_run.as_deref(), Some("serves until stopped"));
    assert!(found[..3].iter().all(|e| e.not_run.is_none()));
}

/// Every example of README.md: those that run exit with status 0, print something and no
/// error; the others say why they are not run.
#[test]
fn every_readme_example_runs_as_written() {
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(readme_path).expect("README.md is readable");
    let found = examples(&readme);
    let to_run: Vec<&Example> = found.iter().filter(|e| e.not_run.is_none()).collect();
    // The README's command reference and its scripted game are found (the extractor works).
    assert!(to_run.len() >= 20, "only {} runnable examples found: {found:?}", to_run.len());
    assert!(to_run.iter().any(|e| e.command.starts_with("printf ")), "the scripted game: {found:?}");
    for exempt in found.iter().filter_map(|e| e.not_run.as_ref().map(|why| (e, why))) {
        assert!(!exempt.1.is_empty(), "{:?} is not run but does not say why", exempt.0.command);
    }
    let base = std::env::temp_dir().join(format!("tabletop-readme-examples-{}", std::process::id()));
    let mut failures = Vec::new();
    for (i, example) in to_run.iter().enumerate() {
        let dir = base.join(i.to_string());
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let outcome = run(&example.command, &dir, Duration::from_secs(300));
        let sensible = outcome.success
            && !outcome.stdout.trim().is_empty()
            && !outcome.stderr.contains("error:")
            && !outcome.stderr.contains("panicked");
        if !sensible {
            failures.push(format!(
                "{}\n  success: {}\n  stdout (end): {}\n  stderr: {}",
                example.command,
                outcome.success,
                outcome.stdout.chars().rev().take(300).collect::<String>().chars().rev().collect::<String>(),
                outcome.stderr.trim()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&base);
    assert!(failures.is_empty(), "README examples that do not run as written:\n{}", failures.join("\n"));
}
