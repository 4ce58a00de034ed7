//! `tabletop ... slide`: terminal play, matches, perft, solve and benchmarks for Slide.

use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use indicatif::ProgressBar;
use tabletop::games::slide::dictionary::document_test;
use tabletop::games::slide::players::player_from_spec;
use tabletop::games::slide::rules::render_board;
use tabletop::games::slide::solver::{SlideSolver, SlideValue};
use tabletop::games::slide::{Side, Slide, SlideVariant};
use tabletop::{EndReason, Game, Outcome, Player, PlayerSpec, Record, Seat, Status};

use crate::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use crate::play::{seat_players, seat_specs, Presenter, Table};

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
    /// Who plays a side: `SEAT=SPEC` with the seat b (blue, 1, moves first) or o (orange, 2),
    /// and SPEC `human`, `engine`, `engine:time=200ms`, `classic:levels=4` or `random`. A bare
    /// SPEC is for o. Default: b=human, o=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    players: Vec<String>,
    /// Short for --player o=classic:levels=N (the classic minimax player, N + 1 plies deep).
    #[arg(long)]
    levels: Option<u32>,
    /// The origin document's program `PlayGame SIZE EMPTY MAX_LEVELS`: a person (b) against the
    /// classic player with MAX_LEVELS levels on a SIZE x SIZE board with EMPTY squares kept empty.
    #[arg(long, num_args = 3, value_names = ["SIZE", "EMPTY", "MAX_LEVELS"], conflicts_with_all = ["levels", "players"])]
    document: Option<Vec<u32>>,
    /// Start from this configuration string instead of the empty board.
    #[arg(long)]
    position: Option<String>,
    /// Seed for random players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
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

/// What Slide adds to the shared play loop.
struct SlidePresenter;

impl Presenter<Slide> for SlidePresenter {
    fn title(&self, start: &Slide) -> String {
        let v = start.slide_variant();
        let k = v.empty();
        format!(
            "Slide {0}x{0}: {1} stay empty; place tiles, then slide them; three in a line wins.",
            v.size(),
            if k == 1 { "1 square must".to_string() } else { format!("{k} squares must") }
        )
    }

    fn seat_name(&self, seat: Seat) -> String {
        side_name(Side::from_seat(seat)).to_string()
    }

    fn seat_words(&self, seat: Seat) -> &'static [&'static str] {
        match Side::from_seat(seat) {
            Side::Blue => &["b", "blue"],
            Side::Orange => &["o", "orange"],
        }
    }

    fn make_player(&self, spec: &PlayerSpec, seat: Seat, seed: u64) -> Result<Box<dyn Player<Slide>>> {
        let mut spec = spec.clone();
        if spec.name == "random" && !spec.settings.contains_key("seed") {
            spec.settings.insert("seed".into(), seed.wrapping_add(seat.index() as u64).to_string());
        }
        Ok(player_from_spec(&spec)?)
    }

    fn board(&self, record: &Record<Slide>, color: bool) -> String {
        render_board(record.current(), |side, text| match side {
            Side::Blue => paint(text, 33, color),
            Side::Orange => paint(text, 208, color),
        })
    }

    fn situation(&self, record: &Record<Slide>) -> Option<String> {
        record.status().to_move().map(|_| describe_state(record))
    }

    fn prompt(&self, record: &Record<Slide>) -> String {
        format!("{}> ", record.current().side_to_move().letter())
    }

    fn move_help(&self, position: &Slide) -> String {
        format!(
            "a square number (1 to {}) to place a tile, FROM-TO to slide one (3-6)",
            position.slide_variant().squares()
        )
    }

    fn result(&self, record: &Record<Slide>) -> String {
        describe_state(record)
    }
}

/// Interactive play in the terminal; reads standard input line by line, so it can be scripted.
pub fn play(args: PlayArgs) -> Result<()> {
    let mut variant = args.variant;
    let mut levels = args.levels;
    if let Some(doc) = &args.document {
        variant = VariantArgs { size: doc[0] as usize, empty: doc[1] as usize };
        levels = Some(doc[2]);
    }
    let start = variant.position(args.position.as_deref())?;
    let mut presenter = SlidePresenter;
    let mut options = args.players.clone();
    if let Some(levels) = levels {
        options.insert(0, format!("o=classic:levels={levels}"));
    }
    let defaults = [PlayerSpec::named("human"), PlayerSpec::named("engine")];
    let specs = seat_specs(&presenter, &defaults, &options)?;
    let seats = seat_players(&presenter, &specs, args.seed)?;
    let mut table =
        Table::new(&mut presenter, seats, start, use_color(args.no_color)).document_mode(args.document.is_some());
    table.run(&mut Input::new())
}

/// Computer-vs-computer match.
pub fn run_match(args: MatchArgs) -> Result<()> {
    run_match_cli(&args.variant.position(None)?, &args.options, 0..=2, |spec, _| Ok(player_from_spec(spec)?))?;
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

/// Benchmarks: the dictionary's collisions and exact solve times for 3x3 and 4x4.
pub fn bench(args: BenchArgs) -> Result<()> {
    if !(3..=4).contains(&args.max_size) {
        bail!("--max-size must be 3 or 4");
    }
    let started = Instant::now();
    let collisions = document_test()?;
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    println!("dictionary: 10,001 keys in 9,887 buckets: {collisions} collisions ({ms:.1} ms)");
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
