//! Checks of the repository as a whole: a clone alone builds and tests itself (no file reads
//! data from a folder beside the checkout).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (two levels above this crate).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace exists")
}

/// The repository's files, relative to `root`: those git tracks, or, outside a git checkout
/// (an unpacked source archive), every file below `root` except build output and packages.
fn repository_files(root: &Path) -> Vec<String> {
    let listed = Command::new("git").arg("-C").arg(root).args(["ls-files", "-z"]).output();
    if let Some(out) = listed.ok().filter(|o| o.status.success() && !o.stdout.is_empty()) {
        return String::from_utf8_lossy(&out.stdout).split('\0').filter(|p| !p.is_empty()).map(String::from).collect();
    }
    let mut files = Vec::new();
    walk(root, root, &mut files);
    files
}

/// Every file below `dir` (relative to `root`), skipping `target`, `.git` and `node_modules`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !matches!(name.to_str(), Some("target" | ".git" | "node_modules")) {
                walk(root, &path, out);
            }
        } else if let Ok(relative) = path.strip_prefix(root) {
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The lines of `text` that contain `needle`, numbered from 1.
fn lines_containing(text: &str, needle: &str) -> Vec<(usize, String)> {
    text.lines().enumerate().filter(|(_, l)| l.contains(needle)).map(|(n, l)| (n + 1, l.trim().to_string())).collect()
}

/// No tracked file (source, test, script, document, CI) names the folder beside the checkout
/// that the project's data once came from: the data is in the repository
/// (`crates/tabletop/data/`), so a clone alone compiles and runs its own tests and benchmarks.
#[test]
fn no_file_reads_data_from_beside_the_checkout() {
    // Built from parts, so this file does not name it itself.
    let needle = format!("{}/{}", "..", "shared");
    let root = workspace();
    let files = repository_files(&root);
    assert!(files.len() > 100, "found only {} files under {}", files.len(), root.display());
    let mut found = Vec::new();
    for relative in &files {
        // Binary files (weights, the opening book) are read as text where they are valid UTF-8.
        let Ok(bytes) = std::fs::read(root.join(relative)) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in lines_containing(&text, &needle) {
            found.push(format!("{relative}:{n}: {line}"));
        }
    }
    assert!(
        found.is_empty(),
        "read data from the repository (crates/tabletop/data/), not from {needle} beside it ({} lines):\n{}",
        found.len(),
        found.join("\n")
    );
}
