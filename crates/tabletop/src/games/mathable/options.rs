//! The command-line options every `tabletop ... mathable` command shares (feature `cli`), and
//! the reading of a saved game: here, below both the play loop ([`terminal`](super::terminal))
//! and the command table ([`tools`](super::tools)), so that neither needs the other for them.

use crate::games::mathable::{Layout, Mathable, Operations, Preset, SaveState, Settings, TokenSet};
use crate::tools::{invalid, Context, ToolResult};

/// The game settings every Mathable command takes: a preset and overrides of its parts.
#[derive(clap::Args, Clone, Debug)]
pub struct GameOptions {
    /// Preset: classic (the official rules, the default), junior, simple (no special squares,
    /// no bonus, no end-of-game deductions).
    #[arg(long)]
    pub preset: Option<Preset>,
    /// Number of players, 2 to 4.
    // Its own id: `tournament mathable` also has the entrants' `--player` (id `players`).
    #[arg(long = "players", id = "seat_count", value_name = "N")]
    pub players: Option<u8>,
    /// Board size N (even, 8 to 14).
    #[arg(long)]
    pub size: Option<u8>,
    /// Rack size R (4 to 8).
    #[arg(long)]
    pub rack: Option<u8>,
    /// Token set: classic (106) or junior (60).
    #[arg(long)]
    pub tokens: Option<TokenSet>,
    /// Special squares: official or plain.
    #[arg(long)]
    pub layout: Option<Layout>,
    /// Operations: all or addsub.
    #[arg(long)]
    pub operations: Option<Operations>,
    /// Bonus for placing a full rack in one turn (0 = none).
    #[arg(long)]
    pub bonus: Option<u16>,
    /// End-of-game deductions of the tokens left on the racks (true/false).
    #[arg(long)]
    pub deductions: Option<bool>,
}

impl GameOptions {
    /// The preset given, else classic.
    pub fn preset(&self) -> Preset {
        self.preset.unwrap_or(Preset::Classic)
    }

    /// The settings: the preset with the overrides, checked.
    pub fn settings(&self, seed: u64) -> ToolResult<Settings> {
        let mut s = Settings::preset(self.preset());
        s.players = self.players.unwrap_or(s.players);
        s.size = self.size.unwrap_or(s.size);
        s.rack = self.rack.unwrap_or(s.rack);
        s.tokens = self.tokens.unwrap_or(s.tokens);
        s.layout = self.layout.unwrap_or(s.layout);
        s.operations = self.operations.unwrap_or(s.operations);
        s.bonus = self.bonus.unwrap_or(s.bonus);
        s.deductions = self.deductions.unwrap_or(s.deductions);
        s.seed = seed;
        s.validate().map_err(invalid)?;
        Ok(s)
    }
}

/// Reads a saved game (size-capped, validated): the position and the moves that led to it.
pub fn load_state(path: &std::path::Path) -> ToolResult<(Mathable, Vec<String>)> {
    let text = crate::tools::read_capped(path, crate::tools::SAVE_MAX_BYTES)?;
    SaveState::read(&text).with_context(|| format!("cannot load {}", path.display()))
}
