//! `tabletop perft/solve/bench slide`: Slide's tools (the board options every Slide command
//! shares are in [`options`](super::options)).

use std::time::Instant;

use indicatif::ProgressBar;

use crate::tools::{bail, invalid, ToolError, ToolResult};
use crate::games::slide::dictionary::document_test;
use crate::games::slide::solver::{SlideSolver, SlideValue};
use crate::games::slide::options::VariantArgs;
use crate::games::slide::{Slide, SlideVariant};
use crate::Game;

/// Options of `tabletop perft slide`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Plies to count.
    pub depth: u32,
    /// The board size and empty squares.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Start from this configuration string.
    #[arg(long)]
    pub position: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `tabletop solve slide`.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// The board size and empty squares.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// The configuration string (column by column, 'b', 'o', 'g'; `:b`/`:o` sets the side to
    /// move in the slide phase). Default: the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// Print exactly one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `tabletop bench slide`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Largest board to time exact solves on (3 or 4).
    #[arg(long, default_value_t = 4)]
    pub max_size: usize,
}

/// Runs `tabletop perft slide`: counts move paths.
pub fn perft(args: PerftArgs) -> ToolResult {
    let position = args.variant.position(args.position.as_deref())?;
    let started = Instant::now();
    let nodes = crate::perft(&position, args.depth);
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        println!("{}", serde_json::json!({"game": "slide", "depth": args.depth, "nodes": nodes, "seconds": seconds}));
    } else {
        println!("perft {} = {nodes} ({seconds:.3} s)", args.depth);
    }
    Ok(())
}

fn value_json(value: SlideValue) -> (serde_json::Value, serde_json::Value) {
    (value.result().into(), value.plies().map_or(serde_json::Value::Null, Into::into))
}

/// Runs `tabletop solve slide`: exact values of a position and of each legal move.
pub fn solve(args: SolveArgs) -> ToolResult {
    let position = args.variant.position(args.position.as_deref())?;
    let variant = position.slide_variant();
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(format!("solving {0}x{0} with {1} empty", variant.size(), variant.empty()));
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let started = Instant::now();
    let mut solver = SlideSolver::new(variant).ok_or_else(|| {
        ToolError::Invalid(format!(
            "{0}x{0} with {1} empty is too large to solve exactly",
            variant.size(),
            variant.empty()
        ))
    })?;
    let value = solver.value(&position);
    let moves = solver.move_values(&position);
    spinner.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let (result, plies) = value_json(value);
        let moves: Vec<serde_json::Value> = moves
            .iter()
            .map(|(mv, v)| {
                let (result, plies) = value_json(*v);
                serde_json::json!({"move": mv.to_string(), "result": result, "plies": plies})
            })
            .collect();
        let out = serde_json::json!({
            "game": "slide",
            "position": position.notation(),
            "to_move": position.side_to_move().letter().to_string(),
            "result": result,
            "plies": plies,
            "moves": moves,
        });
        println!("{out}");
    } else {
        println!("position {} ({} to move): {value}", position.notation(), position.side_to_move());
        for (mv, v) in moves {
            println!("  {mv:>5}: {v}");
        }
        println!("solved in {seconds:.3} s");
    }
    Ok(())
}

/// Runs `tabletop bench slide`: the dictionary's collisions and exact solve times for 3x3 and 4x4.
pub fn bench(args: BenchArgs) -> ToolResult {
    if !(3..=4).contains(&args.max_size) {
        bail!("--max-size must be 3 or 4");
    }
    let started = Instant::now();
    let collisions = document_test().map_err(invalid)?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    println!("dictionary: 10,001 keys in 9,887 buckets: {collisions} collisions ({ms:.1} ms)");
    for size in 3..=args.max_size {
        for empty in 0..=if size == 3 { 7 } else { 6 } {
            let variant = SlideVariant::new(size, empty).map_err(invalid)?;
            let started = Instant::now();
            let mut solver = SlideSolver::new(variant)
                .ok_or_else(|| ToolError::Invalid(format!("{size}x{size} k={empty} not solvable")))?;
            let start = Slide::start(&variant);
            let value = solver.value(&start);
            let _ = solver.move_values(&start);
            println!(
                "solve {size}x{size} k={empty}: {:<18} {:>8.3} s, {} placement nodes",
                value.to_string(),
                started.elapsed().as_secs_f64(),
                solver.nodes()
            );
        }
    }
    Ok(())
}

/// `--position` for Slide (`moves`, `analyze`).
#[derive(clap::Args)]
pub struct PositionArgs {
    /// The board size and empty squares.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// The configuration string, column by column (`b`, `o`, `g`; `:b`/`:o` sets the side to
    /// move in the slide phase). Default: the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: crate::tools::position::Output,
}

/// Options of `tabletop review slide`.
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The board size and empty squares the game was played with.
    #[command(flatten)]
    pub variant: VariantArgs,
    /// The saved game and the output.
    #[command(flatten)]
    pub options: crate::tools::review::ReviewOptions,
}

/// `tabletop review slide`: a game saved by `save FILE` reviewed move by move.
fn review(args: ReviewArgs) -> ToolResult {
    let v = args.variant.variant()?;
    let seats = ["b (blue)".to_string(), "o (orange)".to_string()];
    crate::tools::review::review_saved::<Slide>(&v, &seats, &args.options)
}

/// Slide's commands for the `tabletop` binary.
pub struct Commands;

impl crate::tools::GameCommands for Commands {
    fn play_examples(&self) -> Vec<crate::tools::commands::PlayExample> {
        vec![crate::tools::commands::PlayExample { args: &["--player", "o=random"], first_move: "5" }]
    }

    fn tools(&self) -> Vec<crate::tools::Tool> {
        use crate::tools::position::{list_moves, print_analysis};
        use crate::tools::{Tool, Verb};
        vec![
            Tool::new(Verb::Play, "Slide: n x n tic-tac-toe where k squares stay empty and tiles slide", super::terminal::play),
            Tool::new(Verb::Match, "Slide match", super::terminal::run_match),
            Tool::new(Verb::Tournament, "Slide tournament", super::terminal::run_tournament),
            Tool::new(Verb::Openings, "Balanced Slide openings", super::terminal::run_openings),
            Tool::new(Verb::Perft, "Slide perft", perft),
            Tool::new(Verb::Solve, "Solve a Slide position", solve),
            Tool::new(Verb::Bench, "Slide solver and dictionary benchmarks", bench),
            Tool::new(Verb::Moves, "A Slide position: --size, --empty and the configuration string", |a: PositionArgs| {
                list_moves(&a.variant.position(a.position.as_deref())?, &a.out)
            }),
            Tool::new(Verb::Analyze, "A Slide position: --size, --empty and the configuration string", |a: PositionArgs| {
                print_analysis(&a.variant.position(a.position.as_deref())?, &a.out)
            }),
            Tool::new(Verb::Review, "A Slide game saved by play's save FILE (with the board options it was played with)", review),
        ]
    }
}
