//! Gomoku's command-line tools: perft, moves and analyze, and the game's [`Commands`].

use clap::Args;

use super::rules::Gomoku;
use super::terminal::SizeArgs;
use crate::game::Game;
use crate::tools::position::{list_moves, print_analysis, Output};
use crate::tools::{Context, ToolResult};

/// Options of `tabletop perft gomoku`.
#[derive(Args)]
pub struct PerftArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// Depth in plies.
    #[arg(long, default_value_t = 3)]
    pub depth: u32,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `tabletop perft gomoku`: the move paths of every depth up to `--depth`.
pub fn perft(args: PerftArgs) -> ToolResult {
    if args.depth > 6 {
        crate::tools::bail!("--depth {}: at most 6 (a 15 x 15 board has 225 moves a ply)", args.depth);
    }
    let start = Gomoku::start(&args.size.variant()?);
    let counts: Vec<u64> = (1..=args.depth).map(|d| crate::perft(&start, d)).collect();
    if args.json {
        println!("{}", serde_json::json!({"game": "gomoku", "size": args.size.size, "counts": counts}));
    } else {
        for (d, count) in counts.iter().enumerate() {
            println!("perft({}) = {count}", d + 1);
        }
    }
    Ok(())
}

/// `--position` for Gomoku (`moves`, `analyze`).
#[derive(Args)]
pub struct PositionArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The rows from the top separated by `/`, each cell x, o or `.`, a space and the side to
    /// move. Default: the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: Output,
}

impl PositionArgs {
    fn position(&self) -> ToolResult<Gomoku> {
        let variant = self.size.variant()?;
        match &self.position {
            None => Ok(Gomoku::start(&variant)),
            Some(text) => Gomoku::from_notation(&variant, text).context("bad position"),
        }
    }
}

/// Options of `tabletop review gomoku`.
#[derive(Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The board size the game was played on.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The saved game and the output.
    #[command(flatten)]
    pub options: crate::tools::review::ReviewOptions,
}

/// `tabletop review gomoku`: a game saved by `save FILE` reviewed move by move.
fn review(args: ReviewArgs) -> ToolResult {
    let v = args.size.variant()?;
    let seats = ["x (black)".to_string(), "o (white)".to_string()];
    crate::tools::review::review_saved::<Gomoku>(&v, &seats, &args.options)
}

/// Gomoku's commands for the `tabletop` binary.
pub struct Commands;

impl crate::tools::GameCommands for Commands {
    fn play_examples(&self) -> Vec<crate::tools::commands::PlayExample> {
        vec![crate::tools::commands::PlayExample { args: &["--size", "9", "--player", "o=random"], first_move: "e5" }]
    }

    fn tools(&self) -> Vec<crate::tools::Tool> {
        use crate::tools::{Tool, Verb};
        vec![
            Tool::new(Verb::Play, "Gomoku: five in a row (free-style), 7 x 7 to 19 x 19", super::terminal::play),
            Tool::new(Verb::Match, "Gomoku match", super::terminal::run_match),
            Tool::new(Verb::Tournament, "Gomoku tournament", super::terminal::run_tournament),
            Tool::new(Verb::Openings, "Balanced Gomoku openings", super::terminal::run_openings),
            Tool::new(Verb::Perft, "Gomoku perft", perft),
            Tool::new(Verb::Moves, "A Gomoku position: --size and the rows from the top", |a: PositionArgs| {
                list_moves(&a.position()?, &a.out)
            }),
            Tool::new(Verb::Analyze, "A Gomoku position: --size and the rows from the top", |a: PositionArgs| {
                print_analysis(&a.position()?, &a.out)
            }),
            Tool::new(Verb::Review, "A Gomoku game saved by play's save FILE (with the --size it was played on)", review),
        ]
    }
}
