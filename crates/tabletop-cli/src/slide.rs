//! `tabletop ... slide`: terminal play, matches, perft, solve and benchmarks for Slide.

use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use indicatif::ProgressBar;
use tabletop::games::slide::dictionary::Dictionary;
use tabletop::games::slide::players::{player_from_spec, EnginePlayer, PLAYER_KINDS};
use tabletop::games::slide::solver::{SlideSolver, SlideValue};
use tabletop::games::slide::{Cell, Side, Slide, SlideVariant};
use tabletop::{EndReason, Game, Outcome, Player, PlayerSpec, Record, Status};

use crate::common::{paint, run_match_cli, use_color, Input, MatchOptions};

/// Board size and empty squares, shared by every Slide command.
#[derive(Args, Clone, Copy, Debug)]
pub struct VariantArgs {
    /// Board size n (3 to 8).
    #[arg(long, default_value_t = 3)]
    pub size: usize,
    /// Squares that must stay empty, k (0 to n*n - 2).
    #[arg(long, default_value_t = 1)]
    pub empty: usize,
}

impl VariantArgs {
    pub fn variant(self) -> Result<SlideVariant> {
        Ok(SlideVariant::new(self.size, self.empty)?)
    }

    pub fn position(self, config: Option<&str>) -> Result<Slide> {
        let variant = self.variant()?;
        match config {
            Some(text) => Slide::from_notation(&variant, text).with_context(|| format!("bad position {text:?}")),
            None => Ok(Slide::start(&variant)),
        }
    }
}

/// Options of `tabletop play slide`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The computer plays the document's classic player with this many levels (levels + 1 plies).
    #[arg(long)]
    levels: Option<u32>,
    /// Who plays: `SPEC` for the computer's side 'o', or `b=SPEC` / `o=SPEC` for a side
    /// (`human`, `engine`, `engine:time=200ms`, `classic:levels=4`, `random`). Default b=human, o=engine.
    #[arg(long = "player", value_name = "SPEC")]
    players: Vec<String>,
    /// Start from this configuration string instead of the empty board.
    #[arg(long)]
    position: Option<String>,
    /// Plain letters, no colours.
    #[arg(long)]
    no_color: bool,
}

/// Options of `tabletop match slide`.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    options: MatchOptions,
}

/// Options of `tabletop perft slide`.
#[derive(Args)]
pub struct PerftArgs {
    /// Plies to count.
    depth: u32,
    #[command(flatten)]
    variant: VariantArgs,
    /// Start from this configuration string.
    #[arg(long)]
    position: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Options of `tabletop solve slide`.
#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// The configuration string (column by column, 'b', 'o', 'g'; `:b`/`:o` sets the side to
    /// move in the slide phase). Default: the empty board.
    #[arg(long)]
    position: Option<String>,
    /// Print exactly one JSON object.
    #[arg(long)]
    json: bool,
}

/// Options of `tabletop bench slide`.
#[derive(Args)]
pub struct BenchArgs {
    /// Largest board to time exact solves on (3 or 4).
    #[arg(long, default_value_t = 4)]
    max_size: usize,
}

enum Seat {
    Human,
    Computer(Box<dyn Player<Slide>>, String),
}

fn parse_seats(args: &PlayArgs) -> Result<[Seat; 2]> {
    let mut specs = [PlayerSpec::named("human"), PlayerSpec::named("engine")];
    if let Some(levels) = args.levels {
        specs[1] = format!("classic:levels={levels}").parse()?;
    }
    for text in &args.players {
        let (side, spec) = match text.split_once('=') {
            Some((s @ ("b" | "o" | "blue" | "orange"), rest)) => (s.parse::<Side>()?, rest),
            _ => (Side::Orange, text.as_str()),
        };
        specs[side as usize] = spec.parse()?;
    }
    let make = |spec: &PlayerSpec| -> Result<Seat> {
        spec.check(PLAYER_KINDS)?;
        if spec.name == "human" {
            Ok(Seat::Human)
        } else {
            Ok(Seat::Computer(player_from_spec(spec)?, spec.to_string()))
        }
    };
    Ok([make(&specs[0])?, make(&specs[1])?])
}

fn draw_board(position: &Slide, color: bool) -> String {
    let n = position.size();
    let width = if n * n >= 10 { 3 } else { 2 };
    let mut out = String::new();
    for row in 0..n {
        for col in 0..n {
            let square = row * n + col + 1;
            let text = match position.cell(row, col) {
                Some(Cell::Tile(Side::Blue)) => paint(&format!("{:>width$}", "b"), 33, color),
                Some(Cell::Tile(Side::Orange)) => paint(&format!("{:>width$}", "o"), 208, color),
                _ => format!("{square:>width$}"),
            };
            out.push_str(&text);
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Blue => "b (blue)",
        Side::Orange => "o (orange)",
    }
}

fn describe_state(record: &Record<Slide>) -> String {
    let position = record.current();
    let k = position.slide_variant().empty();
    match record.status() {
        Status::ToMove(seat) => {
            let side = Side::from_seat(seat);
            if position.is_placement_phase() {
                format!(
                    "Placement phase: {} empty, {k} must stay empty. {} to move: type a square number.",
                    position.empty_count(),
                    side_name(side)
                )
            } else {
                format!(
                    "Slide phase. {} to move: type FROM-TO to slide a tile into an adjacent empty square.",
                    side_name(side)
                )
            }
        }
        Status::Over(outcome) => {
            let reason = match record.end_reason() {
                Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
                Some(EndReason::Rules(text)) => text,
                None => String::new(),
            };
            match outcome {
                Outcome::Win(seat) => format!("{} wins: {reason}.", side_name(Side::from_seat(seat))),
                _ => format!("Draw: {reason}."),
            }
        }
    }
}

const HELP: &str = "Commands: a square number to place (5), FROM-TO to slide (3-6), \
undo (take back your last move and the reply), hint (the engine's best move), help, quit.";

/// Interactive play in the terminal; reads standard input line by line, so it can be scripted.
pub fn play(args: PlayArgs) -> Result<()> {
    let color = use_color(args.no_color);
    let mut seats = parse_seats(&args)?;
    let mut record = Record::new(args.variant.position(args.position.as_deref())?);
    let mut input = Input::new();
    let mut hint_engine = EnginePlayer::new(None, None);
    println!("Slide {0}x{0}, {1} square(s) stay empty. {HELP}", args.variant.size, args.variant.empty);
    let mut show = true;
    loop {
        if show {
            println!();
            print!("{}", draw_board(record.current(), color));
            println!("{}", describe_state(&record));
        }
        show = true;
        let Status::ToMove(seat) = record.status() else { break };
        let side = Side::from_seat(seat);
        if let Seat::Computer(player, name) = &mut seats[seat.index()] {
            let started = Instant::now();
            let mv = player.choose_move(&record);
            record.play(mv).map_err(|e| anyhow!("computer {name} chose an illegal move {mv}: {e}"))?;
            println!("{} ({name}) plays {mv} ({:.2} s)", side_name(side), started.elapsed().as_secs_f64());
            continue;
        }
        let Some(line) = input.ask(&format!("{}> ", side.letter())) else {
            println!("End of input: game left unfinished.");
            return Ok(());
        };
        show = false;
        match line.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => println!("{HELP}"),
            "quit" | "q" | "exit" => {
                println!("Game abandoned.");
                return Ok(());
            }
            "hint" => match hint_engine.advise(&record) {
                Some(advice) => println!("Hint: {} ({})", advice.best, advice.value),
                None => println!("No move to suggest."),
            },
            "undo" => {
                if undo_round(&mut record, &seats) {
                    show = true;
                } else {
                    println!("Nothing to undo.");
                }
            }
            text => match record.current().parse_move(text) {
                Err(err) => println!("{err}"),
                Ok(mv) => match record.play(mv) {
                    Err(err) => println!("{err}"),
                    Ok(()) => show = true,
                },
            },
        }
    }
    Ok(())
}

/// Takes back the last full round: moves are undone until a person is to move again, having
/// undone at least one of that person's moves.
fn undo_round(record: &mut Record<Slide>, seats: &[Seat; 2]) -> bool {
    let human_seat = |record: &Record<Slide>| match record.current().status() {
        Status::ToMove(seat) => matches!(seats[seat.index()], Seat::Human),
        Status::Over(_) => matches!(seats[record.current().side_to_move() as usize], Seat::Human),
    };
    if record.moves().is_empty() {
        return false;
    }
    let mut undone = Vec::new();
    while let Some(mv) = record.undo() {
        undone.push(mv);
        if human_seat(record) {
            break;
        }
    }
    if !human_seat(record) {
        // Only computer moves were left to take back: replay them so nothing is lost.
        for mv in undone.into_iter().rev() {
            let _ = record.play(mv);
        }
        return false;
    }
    true
}

/// Computer-vs-computer match.
pub fn run_match(args: MatchArgs) -> Result<()> {
    let start = args.variant.position(None)?;
    let specs = args.options.specs()?;
    let mut a = player_from_spec(&specs[0])?;
    let mut b = player_from_spec(&specs[1])?;
    let settings = args.options.settings(0..=2)?;
    run_match_cli(
        &start,
        [specs[0].to_string(), specs[1].to_string()],
        &mut *a,
        &mut *b,
        &settings,
        args.options.json,
    )?;
    Ok(())
}

/// Counts move paths.
pub fn perft(args: PerftArgs) -> Result<()> {
    let position = args.variant.position(args.position.as_deref())?;
    let started = Instant::now();
    let nodes = tabletop::perft(&position, args.depth);
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

/// Exact values of a position and of each legal move.
pub fn solve(args: SolveArgs) -> Result<()> {
    let position = args.variant.position(args.position.as_deref())?;
    let variant = position.slide_variant();
    let spinner = ProgressBar::new_spinner();
    spinner.set_message(format!("solving {0}x{0} with {1} empty", variant.size(), variant.empty()));
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let started = Instant::now();
    let mut solver = SlideSolver::new(variant).ok_or_else(|| {
        anyhow!("{0}x{0} with {1} empty is too large to solve exactly", variant.size(), variant.empty())
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

/// The dictionary test from the document, with its collision count.
pub fn dictionary_collisions() -> Result<(u64, f64)> {
    let started = Instant::now();
    let mut dict = Dictionary::new(9887)?;
    dict.put("answer", 42)?;
    for i in 0..10_000 {
        dict.put(&i.to_string().repeat(32), i)?;
    }
    Ok((dict.collisions(), started.elapsed().as_secs_f64()))
}

/// Benchmarks: the dictionary's collisions and exact solve times for 3x3 and 4x4.
pub fn bench(args: BenchArgs) -> Result<()> {
    if !(3..=4).contains(&args.max_size) {
        bail!("--max-size must be 3 or 4");
    }
    let (collisions, seconds) = dictionary_collisions()?;
    println!("dictionary: 10,001 keys in 9,887 buckets: {collisions} collisions ({:.1} ms)", seconds * 1000.0);
    for size in 3..=args.max_size {
        for empty in 0..=if size == 3 { 7 } else { 6 } {
            let variant = SlideVariant::new(size, empty)?;
            let started = Instant::now();
            let mut solver =
                SlideSolver::new(variant).ok_or_else(|| anyhow!("{size}x{size} k={empty} not solvable"))?;
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
