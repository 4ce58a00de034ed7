//! The page: its files (embedded in the binary from `assets/`) and the catalog of the games it
//! offers, which tells it which module draws each game.
//!
//! A game with a page module of its own (`assets/js/games/<name>.js`) is drawn by it; any other
//! game by the generic grid module (`js/games/grid.js`), from its board JSON and the creation
//! options the library describes ([`tabletop::session::OptionField`]).

use std::sync::OnceLock;

use serde_json::{json, Value};

/// The page and its files, embedded in the binary.
#[derive(rust_embed::RustEmbed)]
#[folder = "assets/"]
struct Assets;

/// The module that draws games without one of their own.
pub const GENERIC_MODULE: &str = "grid";

/// A file of the page (`index.html`, `js/app.js`, ...): its content type and bytes.
pub fn file(path: &str) -> Option<(&'static str, Vec<u8>)> {
    let file = Assets::get(path)?;
    let kind = match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    };
    Some((kind, file.data.into_owned()))
}

/// The page module that draws the game `name`: its own (`js/games/<name>.js`) if the page has
/// one, else [`GENERIC_MODULE`].
pub fn module_of(name: &str) -> &'static str {
    match tabletop::registry::GAMES.iter().find(|g| g.name == name) {
        Some(game) if Assets::get(&format!("js/games/{}.js", game.name)).is_some() => game.name,
        _ => GENERIC_MODULE,
    }
}

/// The games this server offers, from the library's registry, for the start page:
/// `{"games": [{"name", "title", "about", "module", "seats", "options": [OptionField, ...],
/// "players": [{"name", "settings", "help"}], "computers": [[spec, label], ...],
/// "default_computer": spec}]}`: the page module that draws it ([`module_of`]), the seats of a
/// game with the default options, its creation options as form fields, the computers the start
/// form offers people, and the one it chooses at first (the terminal's default too,
/// [`tabletop::levels::DEFAULT_COMPUTER`]). The same for the server's whole life: built once.
pub fn catalog() -> &'static Value {
    static CATALOG: OnceLock<Value> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let games: Vec<Value> = tabletop::registry::GAMES
            .iter()
            .map(|game| {
                let players: Vec<Value> = game
                    .player_kinds
                    .iter()
                    .map(|k| json!({"name": k.name, "settings": k.settings, "help": k.help}))
                    .collect();
                let computers: Vec<Value> = tabletop::levels::offered_computers(game.player_kinds)
                    .into_iter()
                    .map(|(spec, label)| json!([spec, label]))
                    .collect();
                let seats = game.session.new_session(&json!({}), &json!({})).ok().map(|s| s.num_seats());
                json!({
                    "name": game.name,
                    "title": game.title,
                    "about": game.about,
                    "module": module_of(game.name),
                    "seats": seats,
                    "options": game.session.option_fields(),
                    "players": players,
                    "computers": computers,
                    "default_computer": tabletop::levels::DEFAULT_COMPUTER,
                })
            })
            .collect();
        json!({ "games": games })
    })
}
