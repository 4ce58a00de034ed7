//! Checks of the repository as a whole: a clone alone builds and tests itself (no file reads
//! data from a folder beside the checkout), and the modules of each game's folder depend on one
//! another without circles (each folder's `use` graph is a DAG, so a file can be read, moved or
//! split starting from the ones it stands on).

use std::collections::BTreeMap;
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

/// The sibling modules a file of a game's folder refers to: `use super::X`, `use super::{X, Y}`,
/// `super::X::...` and `crate::games::GAME::X` (and their groups), for the names in `modules`.
/// Comments are skipped, and so is a trailing `#[cfg(test)]` module (whose `super` is the file
/// itself).
fn referenced_modules(source: &str, game: &str, modules: &[String]) -> Vec<String> {
    let mut code = String::new();
    for line in source.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if !trimmed.starts_with("//") {
            code.push_str(line.split(" // ").next().unwrap_or(line));
            code.push('\n');
        }
    }
    let prefixes = ["super::".to_string(), format!("crate::games::{game}::")];
    let mut found = Vec::new();
    for prefix in &prefixes {
        let mut from = 0;
        while let Some(at) = code[from..].find(prefix.as_str()) {
            let start = from + at;
            from = start + prefix.len();
            // `super::` inside a longer path (`a::super::`) or a word (`my_super::`) is not ours.
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for name in path_heads(&code[from..]) {
                if modules.contains(&name) && !found.contains(&name) {
                    found.push(name);
                }
            }
        }
    }
    found
}

/// The first names of the paths at the start of `rest`: `x` of `x::y`, or each item's first
/// name of a group `{x::y, z, w::{..}}`.
fn path_heads(rest: &str) -> Vec<String> {
    let ident =
        |s: &str| s.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let Some(group) = rest.trim_start().strip_prefix('{') else {
        return vec![ident(rest)];
    };
    // The group's top-level items, split at commas outside nested braces.
    let (mut depth, mut heads, mut item_start) = (0usize, Vec::new(), true);
    for (i, c) in group.char_indices() {
        if item_start && !c.is_whitespace() {
            heads.push(ident(&group[i..]));
            item_start = false;
        }
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            _ => {}
        }
    }
    heads
}

/// Every circle in a graph of modules: each group of modules that reach one another (a
/// strongly connected component of two or more, or one that refers to itself), given as one
/// circle through it, `a -> b -> a`, with the group's other members after it.
fn find_circles(graph: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    /// The modules reachable from `from` in one step or more.
    fn reachable(from: &str, graph: &BTreeMap<String, Vec<String>>) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        let mut stack: Vec<&str> = graph.get(from).into_iter().flatten().map(String::as_str).collect();
        while let Some(node) = stack.pop() {
            if !seen.iter().any(|m| m == node) {
                seen.push(node.to_string());
                stack.extend(graph.get(node).into_iter().flatten().map(String::as_str));
            }
        }
        seen
    }
    let reach: BTreeMap<&str, Vec<String>> = graph.keys().map(|m| (m.as_str(), reachable(m, graph))).collect();
    let mut grouped: Vec<&str> = Vec::new();
    let mut circles = Vec::new();
    for (&module, from_here) in &reach {
        if grouped.contains(&module) || !from_here.iter().any(|m| m == module) {
            continue;
        }
        // The group: the modules this one reaches that reach it back (itself included).
        let group: Vec<&str> = reach
            .iter()
            .filter(|(other, back)| from_here.iter().any(|m| m == *other) && back.iter().any(|m| m == module))
            .map(|(other, _)| *other)
            .collect();
        grouped.extend(&group);
        // One circle through `module`: walk inside the group, breadth first, back to it.
        let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([module]);
        let mut last = module;
        'search: while let Some(node) = queue.pop_front() {
            for next in graph.get(node).into_iter().flatten().map(String::as_str) {
                if next == module {
                    last = node;
                    break 'search;
                }
                if group.contains(&next) && !previous.contains_key(next) {
                    previous.insert(next, node);
                    queue.push_back(next);
                }
            }
        }
        let mut circle = vec![module, last];
        while let Some(&before) = previous.get(circle[circle.len() - 1]) {
            circle.push(before);
        }
        // `module, last, ..., module` backwards (`module, module` when it refers to itself).
        circle.reverse();
        let mut text = circle.join(" -> ");
        let others: Vec<&str> = group.iter().copied().filter(|m| !circle.contains(m)).collect();
        if !others.is_empty() {
            text.push_str(&format!(" (and, in the same tangle, {})", others.join(", ")));
        }
        circles.push(text);
    }
    circles
}

/// The module graph of one game's folder: each `*.rs` file but `mod.rs` and the siblings it
/// refers to.
fn module_graph(folder: &Path, game: &str) -> BTreeMap<String, Vec<String>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("a game's folder is readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && p.file_stem().is_some_and(|s| s != "mod"))
        .collect();
    files.sort();
    let modules: Vec<String> =
        files.iter().filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned())).collect();
    let mut graph = BTreeMap::new();
    for (file, module) in files.iter().zip(&modules) {
        let source = std::fs::read_to_string(file).expect("source files are text");
        let uses = referenced_modules(&source, game, &modules).into_iter().filter(|m| m != module).collect();
        graph.insert(module.clone(), uses);
    }
    graph
}

/// The modules of each game's folder (`crates/tabletop/src/games/GAME/*.rs`) refer to one
/// another without a circle: shared pieces live below the files that use them (a game's
/// command-line options in its `options.rs`, below both its play loop and its command table).
#[test]
fn game_folders_have_no_import_circles() {
    let games = workspace().join("crates/tabletop/src/games");
    let mut circles = Vec::new();
    let mut folders: Vec<PathBuf> =
        std::fs::read_dir(&games).expect("the games folder is readable").flatten().map(|e| e.path()).collect();
    folders.retain(|p| p.is_dir());
    folders.sort();
    for folder in &folders {
        let game = folder.file_name().expect("a folder has a name").to_string_lossy().into_owned();
        let graph = module_graph(folder, &game);
        assert!(graph.values().any(|uses| !uses.is_empty()), "{game}: no file refers to another; the parser is wrong");
        circles.extend(find_circles(&graph).into_iter().map(|circle| format!("{game}: {circle}")));
    }
    assert!(folders.len() >= 5, "found only {} game folders under {}", folders.len(), games.display());
    assert!(circles.is_empty(), "game folders whose modules import each other in a circle:\n{}", circles.join("\n"));
}

#[test]
fn the_circle_check_reads_use_paths_and_finds_circles() {
    let modules: Vec<String> = ["engine", "rules", "threats", "tools"].map(String::from).to_vec();
    let source = "//! See [`tools`](super::tools).\n\
        use super::{engine::make_player, rules::{Gomoku, Stone}};\n\
        use crate::games::gomoku::threats::vcf;\n\
        use crate::games::gomoku::{Gomoku, GomokuVariant};\n\
        fn f() { for q in super::engine::candidates(p) {} } // super::tools::x\n\
        #[cfg(test)]\nmod tests { use super::tools::*; }\n";
    assert_eq!(referenced_modules(source, "gomoku", &modules), ["engine", "rules", "threats"]);
    assert_eq!(path_heads("{a::b, c, d::{e, f}} rest"), ["a", "c", "d"]);
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (from, to) in edges {
            g.entry(from.to_string()).or_default().push(to.to_string());
            g.entry(to.to_string()).or_default();
        }
        g
    };
    assert!(find_circles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    assert_eq!(find_circles(&graph(&[("a", "b"), ("b", "c"), ("c", "b")])), ["b -> c -> b"]);
    assert_eq!(find_circles(&graph(&[("a", "a"), ("b", "c")])), ["a -> a"]);
    assert_eq!(
        find_circles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("b", "d"), ("d", "b"), ("e", "f"), ("f", "e")])),
        ["a -> b -> c -> a (and, in the same tangle, d)", "e -> f -> e"]
    );
}
