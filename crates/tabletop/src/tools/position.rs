//! `tabletop moves GAME --position P` and `tabletop analyze GAME --position P`: the legal moves
//! of a position, and the value of each, for every game, in text or JSON. Each game reads its
//! own `--position` options (in its folder) and calls [`list_moves`] and [`print_analysis`].

use std::time::Duration;

use clap::Args;

use super::{parse_duration_arg, ToolResult};
use crate::{Analyze, Game, Record, Status};

/// Options every position command takes.
#[derive(Args, Clone, Debug)]
pub struct Output {
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// `analyze`: the time the analysis may take (e.g. 500ms, 2s).
    #[arg(long, default_value = "2s", value_parser = parse_duration_arg)]
    pub time: Duration,
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
/// `{"game", "to_move", "moves": [{"move", "score", "exact", "value"}], "depth"}`.
pub fn print_analysis<G: Analyze>(position: &G, out: &Output) -> ToolResult {
    let analysis = G::analyze(&Record::new(position.clone()), out.time);
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
    match analysis.depth {
        Some(d) => println!("(engine evaluation, depth {d})"),
        None if analysis.moves.iter().all(|m| m.exact) => println!("(exact)"),
        None => {}
    }
    Ok(())
}
