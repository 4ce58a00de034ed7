//! The registry is the only shared place that names a game: every other shared source file
//! (the library outside `games/<game>/`, the command line, the server, the page's shared
//! modules and styles) finds the games through it. A new game is its own folder(s) and one
//! line in `games/mod.rs`.

use std::path::{Path, PathBuf};

use super::repository::workspace;

/// Every `.rs`, `.js` and `.css` file below `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "js" || e == "css") {
            out.push(path);
        }
    }
}

/// Is `path` (relative to the workspace) a game's own file, a test, or the registry line?
fn belongs_to_a_game_or_tests(relative: &str, games: &[&str]) -> bool {
    let parts: Vec<&str> = relative.split('/').collect();
    if parts.iter().any(|p| *p == "tests" || *p == "benches") {
        return true;
    }
    if relative == "crates/tabletop/src/games/mod.rs" {
        return true; // the registry: one line per game
    }
    // `.../games/<game>/...` or `.../games/<game>.js|css`: the game's own folder or page module.
    parts.windows(2).any(|w| {
        let stem = w[1].strip_suffix(".js").or_else(|| w[1].strip_suffix(".css")).unwrap_or(w[1]);
        w[0] == "games" && games.contains(&stem)
    })
}

/// Does a line (outside comments) name a game as a word?
fn names_a_game(line: &str, words: &[String]) -> Option<String> {
    let code = line.trim_start();
    if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
        return None;
    }
    let lower = code.to_ascii_lowercase();
    // `connect-src` (a CSP directive) or `game-connect` is one word, not a game's name.
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    for word in words {
        let mut from = 0;
        while let Some(at) = lower[from..].find(word.as_str()) {
            let start = from + at;
            let end = start + word.len();
            let before = lower[..start].chars().next_back();
            let after = lower[end..].chars().next();
            // `.connect(` and `TcpStream::connect(` are calls (a connection), not a game; a
            // game's module path (`games::connect::Solver`) is not followed by `(`.
            let method = before == Some('.') || (before == Some(':') && after == Some('('));
            if !before.is_some_and(is_word) && !after.is_some_and(is_word) && !method {
                return Some(word.clone());
            }
            from = end;
        }
    }
    None
}

#[test]
fn shared_code_names_no_game() {
    let root = workspace();
    let games: Vec<&str> = tabletop::registry::GAMES.iter().map(|g| g.name).collect();
    let mut words: Vec<String> = games.iter().map(|g| g.to_string()).collect();
    words.push("othello".into());
    let mut files = Vec::new();
    sources(&root.join("crates"), &mut files);
    assert!(files.len() > 20, "found only {} source files under {}", files.len(), root.display());
    let mut found = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).expect("below the root").to_string_lossy().replace('\\', "/");
        if relative.contains("/target/") || belongs_to_a_game_or_tests(&relative, &games) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source files are text");
        for (n, line) in text.lines().enumerate() {
            if let Some(word) = names_a_game(line, &words) {
                found.push(format!("{relative}:{}: names {word}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "shared code must find games through tabletop::registry, not name them ({} lines):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_check_sees_a_game_name_in_code_but_not_in_comments() {
    let words = vec!["slide".to_string()];
    assert_eq!(names_a_game("    let g = Slide::start(&v);", &words), Some("slide".into()));
    assert_eq!(names_a_game("    /// Slide's board", &words), None);
    assert_eq!(names_a_game("    let sliders = 3;", &words), None);
    assert_eq!(names_a_game("    match config.slide(NoTls).await {", &words), None);
    assert_eq!(names_a_game(r#"    if game == "slide" {"#, &words), Some("slide".into()));
    assert_eq!(names_a_game("    TcpStream::slide(addr)", &words), None);
    assert_eq!(names_a_game("    slide-src 'self';", &words), None);
    assert_eq!(names_a_game("    use tabletop::games::slide::Slide;", &words), Some("slide".into()));
    let games = ["slide"];
    assert!(belongs_to_a_game_or_tests("crates/tabletop/src/games/slide/rules.rs", &games));
    assert!(belongs_to_a_game_or_tests("crates/tabletop-web/assets/js/games/slide.js", &games));
    assert!(!belongs_to_a_game_or_tests("crates/tabletop-web/assets/js/app.js", &games));
}

#[test]
fn every_game_passes_its_conformance_run() {
    for game in tabletop::registry::GAMES {
        let report = (game.conformance)(7);
        assert!(report.positions >= 50, "{}: only {report:?}", game.name);
        assert!(report.finished_games >= 1, "{}: no game finished: {report:?}", game.name);
    }
}
