//! `tabletop ... reversi`: terminal play, matches, perft, the endgame solver and benchmarks.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use tabletop::games::reversi::perft::perft as fast_perft;
use tabletop::games::reversi::players::{make_player, PLAYERS};
use tabletop::games::reversi::solver::Solver;
use tabletop::games::reversi::{Color, Reversi, ReversiMove, Square};
use tabletop::{Game, Player, PlayerSpec, Record, Status};

use crate::common::{paint, run_match_cli, use_color, Input, MatchOptions};

/// Options of `tabletop play reversi`.
#[derive(Args)]
pub struct PlayArgs {
    /// Who is human: black (default), white, both or none.
    #[arg(long, default_value = "black")]
    pub human: String,
    /// The computer player, e.g. `engine:time=2s`, `classic:depth=8`, `random`.
    #[arg(long, value_name = "SPEC", default_value = "engine")]
    pub player: PlayerSpec,
    /// Start from this position (64 squares X/O/- and the side to move, OBF form).
    #[arg(long, value_name = "POS")]
    pub position: Option<String>,
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
}

/// Options of `tabletop perft reversi`.
#[derive(Args)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// Start from this position (OBF form) instead of the initial one.
    #[arg(long, value_name = "POS")]
    pub position: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `tabletop solve reversi`.
#[derive(Args)]
pub struct SolveArgs {
    /// The position (OBF form: 64 squares X/O/- from a1 to h8, a space, X or O to move).
    #[arg(long, value_name = "POS")]
    pub position: String,
    /// Give the exact score of every legal move.
    #[arg(long)]
    pub all_moves: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

fn parse_position(text: Option<&str>) -> Result<Reversi> {
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
    let nodes = fast_perft(&position, args.depth);
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
        bail!("the game is over in this position (score {} for the side to move)", position.final_score(position.side_to_move()));
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
    let [a, b] = args.options.specs()?;
    let settings = args.options.settings(4..=8)?;
    let mut pa = make_player(&a, 1)?;
    let mut pb = make_player(&b, 2)?;
    let names = [a.to_string(), b.to_string()];
    run_match_cli(&Reversi::new(), names, pa.as_mut(), pb.as_mut(), &settings, args.options.json)?;
    Ok(())
}
