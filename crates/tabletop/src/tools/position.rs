//! `tabletop moves GAME --position P` and `tabletop analyze GAME --position P`: the legal moves
//! of a position, and the value of each, for every game, in text or JSON. Each game reads its
//! own `--position` options (in its folder) and calls [`list_moves`] and [`print_analysis`].

use std::time::Duration;

use clap::Args;

use super::{parse_duration_arg, ToolResult};
use crate::{AnalysisSettings, Analyze, Game, Record, Status};

/// Options every position command takes.
#[derive(Args, Clone, Debug)]
pub struct Output {
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// `analyze`: the time the analysis is meant to take (e.g. 500ms, 2s): picks the depth and
    /// the exact solvers' budgets from the game's calibration before searching, so the same
    /// position gets the same values on any machine, however busy.
    #[arg(long, default_value = "2s", value_parser = parse_duration_arg)]
    pub time: Duration,
    /// `analyze`: the depth of the estimates in plies, fixed (instead of the one `--time` picks).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub depth: Option<u32>,
}

impl Output {
    /// The analysis settings of `--time` and `--depth`.
    pub fn settings(&self) -> AnalysisSettings {
        AnalysisSettings { depth: self.depth, time: self.time }
    }
}

/// Whose turn it is, as a 1-based seat number (`None` when the game is over).
fn to_move<G: Game>(position: &G) -> Option<usize> {
    match position.status() {
        Status::ToMove(seat) => Some(seat.index() + 1),
        Status::Over(_) => None,
    }
}

/// Prints the legal moves: one line (`N legal moves: a b c`) or JSON
/// `{"game", "to_move", "moves": [...]}`.
pub fn list_moves<G: Game>(position: &G, out: &Output) -> ToolResult {
    let mut moves = Vec::new();
    position.legal_moves(&mut moves);
    let names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    if out.json {
        println!("{}", serde_json::json!({"game": G::NAME, "to_move": to_move(position), "moves": names}));
    } else if names.is_empty() {
        println!("The game is over: no legal moves.");
    } else {
        let s = if names.len() == 1 { "" } else { "s" };
        println!("{} legal move{s}: {}", names.len(), names.join(" "));
    }
    Ok(())
}

/// Prints every legal move's value, best first: a table, or JSON
/// `{"game", "to_move", "moves": [{"move", "score", "exact", "depth", "value"}], "depth", "open"}`.
pub fn print_analysis<G: Analyze>(position: &G, out: &Output) -> ToolResult {
    let analysis = G::analyze(&Record::new(position.clone()), out.settings());
    if out.json {
        let mut json = serde_json::to_value(&analysis).map_err(super::invalid)?;
        json["game"] = G::NAME.into();
        json["to_move"] = to_move(position).into();
        println!("{json}");
        return Ok(());
    }
    if analysis.moves.is_empty() {
        println!("The game is over: no legal moves.");
        return Ok(());
    }
    let width = analysis.moves.iter().map(|m| m.notation.len()).max().unwrap_or(0);
    for m in &analysis.moves {
        println!("{:<width$}  {}", m.notation, m.text);
    }
    if analysis.open.is_empty() {
        println!("(exact)");
    } else if analysis.open.len() < analysis.moves.len() {
        let depth = analysis.depth.map(|d| format!(", estimated at depth {d}")).unwrap_or_default();
        println!("(exact except {}{depth})", analysis.open.join(" "));
    } else if let Some(d) = analysis.depth {
        println!("(estimates, depth {d})");
    }
    Ok(())
}
