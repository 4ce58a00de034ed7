//! `tabletop moves GAME --position P` and `tabletop analyze GAME --position P`: the legal moves
//! of a position, and the value of each, for every game, in text or JSON.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{bail, parse_duration_arg, read_capped, Context, ToolResult, SAVE_MAX_BYTES};
use crate::games::connect::Connect;
use crate::games::mathable::{Mathable, SaveState};
use crate::{Analyze, Game, Record, Status};

/// The position options of each game.
#[derive(Subcommand)]
pub enum PositionGame {
    /// A Slide position: `--size`, `--empty` and the configuration string.
    Slide(SlidePosition),
    /// A Reversi position: 64 squares (`X`, `O`, `-`) and the side to move.
    Reversi(ReversiPosition),
    /// A Connect-N position: the board options and the columns played (`4453`).
    Connect(ConnectPosition),
    /// A Mathable position: a saved game (JSON, as `save` writes it).
    Mathable(MathablePosition),
}

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

/// `--position` for Slide.
#[derive(Args)]
pub struct SlidePosition {
    /// The board size and empty squares.
    #[command(flatten)]
    pub variant: super::slide::VariantArgs,
    /// The configuration string, column by column (`b`, `o`, `g`; `:b`/`:o` sets the side to
    /// move in the slide phase). Default: the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: Output,
}

/// `--position` for Reversi.
#[derive(Args)]
pub struct ReversiPosition {
    /// 64 characters row by row from a1 (`X` black, `O` white, `-` empty), a space, and the side
    /// to move (`X` or `O`). Default: the start.
    #[arg(long, allow_hyphen_values = true)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: Output,
}

/// `--position` for Connect-N.
#[derive(Args)]
pub struct ConnectPosition {
    /// The board size.
    #[command(flatten)]
    pub size: super::connect::SizeArgs,
    /// The columns played from the empty board, 1-based (`4453`). Default: the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: Output,
}

/// `--position` or `--state` for Mathable.
#[derive(Args)]
pub struct MathablePosition {
    /// The saved game itself (JSON, as `save` writes it).
    #[arg(long, conflicts_with = "state")]
    pub position: Option<String>,
    /// A file holding a saved game.
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// `moves`: add the engine's choice of whole turn.
    #[arg(long)]
    pub best: bool,
    /// The output options.
    #[command(flatten)]
    pub out: Output,
}

impl MathablePosition {
    /// The saved game given, read and validated.
    pub fn game(&self) -> ToolResult<Mathable> {
        let (text, source) = match (&self.position, &self.state) {
            (Some(text), _) => (text.clone(), "--position".to_string()),
            (None, Some(path)) => (read_capped(path, SAVE_MAX_BYTES)?, path.display().to_string()),
            (None, None) => bail!("give the position: --position JSON or --state FILE"),
        };
        Ok(SaveState::read(&text).with_context(|| format!("cannot load {source}"))?.0)
    }
}

/// Runs `tabletop moves GAME`.
pub fn moves(game: PositionGame) -> ToolResult {
    match game {
        PositionGame::Slide(a) => list_moves(&a.variant.position(a.position.as_deref())?, &a.out),
        PositionGame::Reversi(a) => list_moves(&super::reversi::parse_position(a.position.as_deref())?, &a.out),
        PositionGame::Connect(a) => list_moves(&connect_position(&a.size, a.position.as_deref())?, &a.out),
        PositionGame::Mathable(a) => {
            let game = a.game()?;
            if a.state.is_some() || a.best {
                super::mathable::list_placements(&game, a.best, a.out.json)
            } else {
                list_moves(&game, &a.out)
            }
        }
    }
}

/// Runs `tabletop analyze GAME`.
pub fn analyze(game: PositionGame) -> ToolResult {
    match game {
        PositionGame::Slide(a) => print_analysis(&a.variant.position(a.position.as_deref())?, &a.out),
        PositionGame::Reversi(a) => print_analysis(&super::reversi::parse_position(a.position.as_deref())?, &a.out),
        PositionGame::Connect(a) => print_analysis(&connect_position(&a.size, a.position.as_deref())?, &a.out),
        PositionGame::Mathable(a) => print_analysis(&a.game()?, &a.out),
    }
}

fn connect_position(size: &super::connect::SizeArgs, text: Option<&str>) -> ToolResult<Connect> {
    let v = size.variant()?;
    Connect::from_notation(&v, text.unwrap_or("").trim())
        .with_context(|| format!("bad position {:?}", text.unwrap_or("")))
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
fn list_moves<G: Game>(position: &G, out: &Output) -> ToolResult {
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
fn print_analysis<G: Analyze>(position: &G, out: &Output) -> ToolResult {
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
