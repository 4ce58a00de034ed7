//! `tabletop ... reversi`: terminal play, matches, perft, the endgame solver and benchmarks.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use tabletop::games::reversi::bench::{endgame_positions, midgame_positions, solve_ffo, FfoLine};
use tabletop::games::reversi::levels::Level;
use tabletop::games::reversi::perft::{perft as fast_perft, perft_hashed, DEFAULT_TABLE_BITS};
use tabletop::games::reversi::players::make_player;
use tabletop::games::reversi::rules::render_board;
use tabletop::games::reversi::solver::Solver;
use tabletop::games::reversi::{Color, Reversi, ReversiMove};
use tabletop::{Game, Player, PlayerSpec, Record, Seat as TSeat};

use crate::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use crate::play::{seat_players, seat_specs, Presenter, Table};

/// Options of `tabletop play reversi`.
#[derive(Args)]
pub struct PlayArgs {
    /// Who plays a side: `SEAT=SPEC` with the seat black (b, x, 1; moves first) or white (w,
    /// o, 2), and SPEC `human`, `engine`, `engine:time=2s`, `engine:level=N` (N 1..10 or its
    /// name: beginner, novice, casual, intermediate, club, advanced, expert, master, grandmaster,
    /// maximum), `classic:depth=8` or `random`. A bare SPEC is for the computer's side.
    /// Default: black=human, white=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    pub players: Vec<String>,
    /// Short for --player: who is human, black (default), white, both or none.
    #[arg(long)]
    pub human: Option<String>,
    /// Start from this position (64 squares X/O/- and the side to move, OBF form).
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub position: Option<String>,
    /// The origin document's program: a person (black) against the classic depth-6 player, no
    /// intro, the program ends with the game.
    #[arg(long, conflicts_with_all = ["players", "human"])]
    pub document: bool,
    /// Seed for random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No colours, even on a terminal.
    #[arg(long)]
    pub no_color: bool,
}

/// Options of `tabletop match reversi`.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    pub options: MatchOptions,
}

/// Options of `tabletop bench reversi`.
#[derive(Args)]
pub struct BenchArgs {
    /// Skip perft 12 (about 4 s).
    #[arg(long)]
    pub quick: bool,
    /// Skip the FFO endgames.
    #[arg(long)]
    pub no_ffo: bool,
    /// Solve only the first N FFO positions.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub ffo_count: usize,
    /// Skip perft.
    #[arg(long)]
    pub no_perft: bool,
    /// Skip the midgame depth benchmark.
    #[arg(long)]
    pub no_midgame: bool,
    /// The endgame solver's transposition table holds 2^BITS entries.
    #[arg(long, value_name = "BITS", default_value_t = 22, value_parser = clap::value_parser!(u32).range(10..=28))]
    pub table_bits: u32,
}

/// Options of `tabletop perft reversi`.
#[derive(Args)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// Start from this position (OBF form) instead of the initial one.
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub position: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Count every path without the transposition table (plain bulk-counting perft).
    #[arg(long)]
    pub plain: bool,
    /// The table of subtree counts holds 2^BITS entries of 24 bytes (22: 96 MiB).
    #[arg(long, value_name = "BITS", default_value_t = DEFAULT_TABLE_BITS, value_parser = clap::value_parser!(u32).range(10..=30))]
    pub table_bits: u32,
}

/// Options of `tabletop solve reversi`.
#[derive(Args)]
pub struct SolveArgs {
    /// The position (OBF form: 64 squares X/O/- from a1 to h8, a space, X or O to move).
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub position: String,
    /// Give the exact score of every legal move.
    #[arg(long)]
    pub all_moves: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The position of `--position` (OBF form), or the start.
pub fn parse_position(text: Option<&str>) -> Result<Reversi> {
    match text {
        None => Ok(Reversi::new()),
        Some(t) => t.parse::<Reversi>().with_context(|| format!("bad position {t:?}")),
    }
}

pub fn perft(args: PerftArgs) -> Result<()> {
    let position = parse_position(args.position.as_deref())?;
    if args.depth > 20 {
        bail!("depth {} is too deep: at most 20", args.depth);
    }
    let start = Instant::now();
    let nodes = if args.plain || args.depth < 8 {
        fast_perft(&position, args.depth)
    } else {
        tabletop::memory::ensure_available(24 << args.table_bits)?;
        perft_hashed(&position, args.depth, args.table_bits)?
    };
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        println!("{}", serde_json::json!({"game": "reversi", "depth": args.depth, "nodes": nodes, "seconds": seconds}));
    } else {
        println!(
            "perft {}: {nodes} nodes in {seconds:.3} s ({:.1} M nodes/s)",
            args.depth,
            nodes as f64 / seconds.max(1e-9) / 1e6
        );
    }
    Ok(())
}

pub fn solve(args: SolveArgs) -> Result<()> {
    let position = parse_position(Some(&args.position))?;
    if position.is_over() {
        bail!(
            "the game is over in this position (score {} for the side to move)",
            position.final_score(position.side_to_move())
        );
    }
    if position.open_squares() > 36 {
        bail!("{} empty squares is too many to solve exactly (at most 36)", position.open_squares());
    }
    let mut solver = Solver::new(22);
    let start = Instant::now();
    let (score, best, nodes, all) = if args.all_moves {
        let all = solver.solve_all(&position);
        let score = all[0].1;
        let best: Vec<ReversiMove> = all.iter().filter(|m| m.1 == score).map(|m| m.0).collect();
        (score, best, solver.nodes(), Some(all))
    } else {
        let s = solver.solve(&position);
        (s.score, s.best.into_iter().collect(), s.nodes, None)
    };
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        let mut out = serde_json::json!({
            "game": "reversi",
            "position": position.to_string(),
            "score": score,
            "best": best.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "nodes": nodes,
            "seconds": seconds,
        });
        if let Some(all) = &all {
            out["moves"] = all.iter().map(|(m, s)| serde_json::json!({"move": m.to_string(), "score": s})).collect();
        }
        println!("{out}");
    } else {
        let best: Vec<String> = best.iter().map(|m| m.to_string()).collect();
        println!(
            "{} to move: score {score:+} with {} ({nodes} nodes, {seconds:.2} s)",
            position.side_to_move(),
            best.join(" or ")
        );
        if let Some(all) = all {
            for (m, s) in all {
                println!("  {m:<5} {s:+}");
            }
        }
    }
    Ok(())
}

pub fn run_match(args: MatchArgs) -> Result<()> {
    run_match_cli(&Reversi::new(), &args.options, 4..=8, |spec, i| Ok(make_player(spec, i + 1)?))?;
    Ok(())
}

const FFO_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/reversi/ffo-40-49.obf");

pub fn bench(args: BenchArgs) -> Result<()> {
    println!("Reversi benchmarks (one thread)");
    let start = Reversi::new();
    let depths: &[u32] = if args.no_perft {
        &[]
    } else if args.quick {
        &[11]
    } else {
        &[11, 12]
    };
    for &depth in depths {
        let t = Instant::now();
        let nodes = fast_perft(&start, depth);
        let s = t.elapsed().as_secs_f64();
        println!("perft {depth:>2} plain : {nodes:>12} leaves in {s:7.3} s  {:8.1} M leaves/s", nodes as f64 / s / 1e6);
        let t = Instant::now();
        let nodes = perft_hashed(&start, depth, DEFAULT_TABLE_BITS)?;
        let s = t.elapsed().as_secs_f64();
        println!("perft {depth:>2} hashed: {nodes:>12} leaves in {s:7.3} s  {:8.1} M leaves/s", nodes as f64 / s / 1e6);
    }
    if !args.no_ffo {
        let text = std::fs::read_to_string(FFO_FILE).with_context(|| format!("reading {FFO_FILE}"))?;
        println!("FFO endgames #40-#49 (exact solve, best move checked against the file):");
        let (mut total_time, mut total_nodes) = (0.0, 0u64);
        let mut solver = Solver::new(args.table_bits);
        for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).take(args.ffo_count).enumerate() {
            let line: FfoLine = line.parse().with_context(|| format!("FFO line {}", i + 1))?;
            let r = solve_ffo(&mut solver, &line);
            let (sol, s) = (&r.solution, r.elapsed.as_secs_f64());
            total_time += s;
            total_nodes += sol.nodes;
            println!(
                "  #{}: {:>2} empties  score {:+3} best {}  {:>11} nodes {:7.2} s {:6.1} M nodes/s  {}",
                40 + i,
                line.position.open_squares(),
                sol.score,
                sol.best.map(|m| m.to_string()).unwrap_or_default(),
                sol.nodes,
                s,
                sol.nodes as f64 / s / 1e6,
                if r.ok { "ok" } else { "WRONG" }
            );
        }
        println!("  total: {total_nodes} nodes in {total_time:.2} s");
    }
    if args.no_midgame {
        return Ok(());
    }
    println!("Exact solve at 20 empties (positions from classic:depth=4 self-play after seeded openings):");
    let mut solver = Solver::new(22);
    let (mut within, count) = (0, 8);
    for position in endgame_positions(count) {
        solver.clear();
        let t = Instant::now();
        let sol = solver.solve(&position);
        let s = t.elapsed().as_secs_f64();
        within += (s <= 1.0) as u32;
        let best = sol.best.map(|m| m.to_string()).unwrap_or_default();
        println!("  {position}  score {:+3} best {best}  {:>10} nodes {s:6.2} s", sol.score, sol.nodes);
    }
    println!("  {within} of {count} solved within 1 s");
    println!("Midgame search depth reached in 1 s (engine, exact solve off):");
    for position in midgame_positions(4) {
        let mut engine = tabletop::games::reversi::engine::Engine::new(Some(Duration::from_secs(1)), None);
        let a = engine.analyse(&position);
        println!(
            "  {position}  {} empties: depth {:>2}, {:>9} nodes in {:.2} s, best {} ({})",
            position.open_squares(),
            a.depth,
            a.nodes,
            a.elapsed.as_secs_f64(),
            a.best,
            a.describe()
        );
    }
    Ok(())
}

/// What Reversi adds to the shared play loop.
struct ReversiPresenter {
    humans: [bool; 2],
}

fn legal_list(position: &Reversi) -> String {
    let list: Vec<String> = position.legal_placements().iter().map(|s| s.to_string()).collect();
    list.join(" ")
}

impl Presenter<Reversi> for ReversiPresenter {
    fn title(&self, _start: &Reversi) -> String {
        "Reversi: black (X) moves first; place a disc to outflank the other side's discs, which turn over; \
         most discs at the end wins."
            .to_string()
    }

    fn computers(&self) -> Option<String> {
        Some(format!("Computer levels: {} (e.g. --player white=engine:level=club).", Level::names()))
    }

    fn seat_name(&self, seat: TSeat) -> String {
        capitalised(Color::from_seat(seat)).to_string()
    }

    fn seat_words(&self, seat: TSeat) -> &'static [&'static str] {
        match Color::from_seat(seat) {
            Color::Black => &["black", "b", "x"],
            Color::White => &["white", "w", "o"],
        }
    }

    fn make_player(&self, spec: &PlayerSpec, _seat: TSeat, seed: u64) -> Result<Box<dyn Player<Reversi>>> {
        Ok(make_player(spec, seed)?)
    }

    fn board(&self, record: &Record<Reversi>, color: bool) -> String {
        let pos = record.current();
        let legal = if self.humans[pos.side_to_move() as usize] { pos.placements() } else { 0 };
        render_board(pos, legal, |text, disc| match disc {
            Some(Color::Black) => paint(text, 39, color),
            Some(Color::White) => paint(text, 226, color),
            None => paint(text, 244, color),
        })
    }

    fn prompt(&self, record: &Record<Reversi>) -> String {
        let pos = record.current();
        format!("{} to move ({})> ", capitalised(pos.side_to_move()), legal_list(pos))
    }

    fn move_help(&self, _position: &Reversi) -> String {
        "a square such as f5 (the legal ones are marked * and listed in the prompt)".to_string()
    }

    fn refusal(&self, record: &Record<Reversi>, reason: &str) -> String {
        format!("{reason}. Legal moves: {}.", legal_list(record.current()))
    }

    fn forced_move(&self, position: &Reversi) -> Option<(ReversiMove, String)> {
        (!position.is_over() && position.placements() == 0).then(|| {
            (ReversiMove::Pass, format!("{} has no legal move and passes.", capitalised(position.side_to_move())))
        })
    }

    fn result(&self, record: &Record<Reversi>) -> String {
        let pos = record.current();
        let (b, w) = (pos.discs(Color::Black), pos.discs(Color::White));
        let score = pos.final_score(Color::Black);
        let reason = pos.end_reason().unwrap_or_default();
        let verdict = match score.cmp(&0) {
            std::cmp::Ordering::Greater => format!("black wins by {score}"),
            std::cmp::Ordering::Less => format!("white wins by {}", -score),
            std::cmp::Ordering::Equal => "draw".to_string(),
        };
        format!("Game over ({reason}): black {b}, white {w}: {verdict}.")
    }
}

fn parse_humans(text: &str) -> Result<[bool; 2]> {
    Ok(match text.trim().to_ascii_lowercase().as_str() {
        "black" | "b" | "x" => [true, false],
        "white" | "w" | "o" => [false, true],
        "both" => [true, true],
        "none" => [false, false],
        other => bail!("--human {other:?}: expected black, white, both or none"),
    })
}

/// Terminal play; standard input may be a script.
pub fn play(args: PlayArgs) -> Result<()> {
    let start = parse_position(args.position.as_deref())?;
    let humans = parse_humans(args.human.as_deref().unwrap_or("black"))?;
    let computer: PlayerSpec = if args.document { "classic:depth=6".parse()? } else { PlayerSpec::named("engine") };
    let defaults: Vec<PlayerSpec> =
        humans.iter().map(|&h| if h { PlayerSpec::named("human") } else { computer.clone() }).collect();
    let mut presenter = ReversiPresenter { humans: [false; 2] };
    let specs = seat_specs(&presenter, &defaults, &args.players)?;
    presenter.humans = [specs[0].name == "human", specs[1].name == "human"];
    let seats = seat_players(&presenter, &specs, args.seed)?;
    let mut table = Table::new(&mut presenter, seats, start, use_color(args.no_color)).document_mode(args.document);
    table.run(&mut Input::new())
}

fn capitalised(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}
