//! `tabletop match/bench/moves mathable`: Mathable's tools (`tournament` and `openings` are in
//! [`tournament`](super::tournament)) (the game options every Mathable
//! command shares are in [`options`](super::options)).

use crate::tools::{bail, invalid, Context, ToolResult};
use crate::games::mathable::bench::{midgame_positions, time_placements, time_turns};
use crate::games::mathable::engine::EnginePlayer;
use crate::games::mathable::matches::play_timed_match;
use crate::games::mathable::options::GameOptions;
use crate::games::mathable::players::from_spec;
use crate::games::mathable::{Mathable, SaveState};
use crate::{Game, PlayerSpec, Seat, Status};

/// Options of `tabletop match mathable`.
#[derive(clap::Args)]
pub struct MatchArgs {
    /// The game's settings.
    #[command(flatten)]
    pub game: GameOptions,
    /// Player A then player B (default engine vs greedy; `external:cmd="COMMAND"` runs a program
    /// speaking docs/PROTOCOL.md).
    #[arg(long = "player", value_name = "SPEC")]
    pub players_specs: Vec<PlayerSpec>,
    /// Number of games; game 2i and 2i+1 share a bag seed with the seats swapped.
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Seed of the first pair's bag.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Print one line per game.
    #[arg(long)]
    pub verbose: bool,
    /// A game clock for both players (`10+0.1`, `0:30+0.2`, ...; a player's own `clock=`
    /// overrides it): engines play by it, and a player out of time loses.
    #[arg(long, value_name = "CONTROL")]
    pub tc: Option<crate::clock::TimeControl>,
}

/// Options of `tabletop bench mathable`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Mid-game positions to time (classic 14x14 after 10 greedy turns each).
    #[arg(long, default_value_t = 20)]
    pub positions: u64,
    /// Engine spec for the computer-turn timing.
    #[arg(long, default_value = "engine")]
    pub engine: PlayerSpec,
}

// ---------------------------------------------------------------------------------------------
// Matches

/// Runs `tabletop match mathable`: pairs of games sharing a bag, seats swapped.
pub fn run_match(args: MatchArgs) -> ToolResult {
    let mut specs: [PlayerSpec; 2] = match args.players_specs.as_slice() {
        [] => [PlayerSpec::named("engine"), PlayerSpec::named("greedy")],
        [a] => [a.clone(), PlayerSpec::named("greedy")],
        [a, b] => [a.clone(), b.clone()],
        _ => bail!("a match takes at most two --player options"),
    };
    let controls = crate::tools::play::take_seat_clocks(&mut specs, args.tc)?;
    let controls = [controls[0], controls[1]];
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let base = args.game.settings(args.seed)?;
    if base.players != 2 {
        bail!("a match is played by two players (--players 2)");
    }
    let local = |spec: &PlayerSpec, seed| {
        crate::external::make_local_player_with(spec, super::terminal::bot_view(), |spec| from_spec(spec, seed))
    };
    let mut a = local(&specs[0], 1001).map_err(invalid)?;
    let mut b = local(&specs[1], 2002).map_err(invalid)?;
    let r = play_timed_match(&base, args.games, a.as_mut(), b.as_mut(), controls, |g| {
        if let Some((seat, reason)) = &g.forfeit {
            let label = if seat.index() == g.a_seat { "A" } else { "B" };
            let line = format!("game {}: {label} (seat {}) forfeits: {reason}", g.number + 1, seat.index() + 1);
            // One JSON object on standard output with --json: the line goes to standard error.
            if args.json {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        }
        if args.verbose {
            eprintln!(
                "game {:>3} seed {:>4}: A(seat {}) {:>4} - B {:>4} ({})",
                g.number + 1,
                g.seed,
                g.a_seat + 1,
                g.end.score(Seat(g.a_seat as u8)),
                g.end.score(Seat(1 - g.a_seat as u8)),
                g.end.end_cause().map_or("", |c| c.as_str())
            );
        }
    })
    .map_err(invalid)?;
    if args.json {
        let out = serde_json::json!({
            "game": "mathable",
            "players": [specs[0].to_string(), specs[1].to_string()],
            "games": args.games,
            "wins": [r.sides[0].wins, r.sides[1].wins],
            "draws": r.draws,
            "forfeits": [r.sides[0].forfeits, r.sides[1].forfeits],
            "average_points": [r.average_points(0), r.average_points(1)],
            "points_ratio": r.points_ratio(),
            "max_move_seconds": [r.sides[0].max_think, r.sides[1].max_think],
            "clocks": controls.map(|c| c.to_string()),
            "time_losses": [r.sides[0].time_losses, r.sides[1].time_losses],
            "mean_clock_share": r.sides.each_ref().map(|s| (s.clock_share.1 > 0).then(|| s.clock_share.0 / s.clock_share.1 as f64)),
            "seconds": r.seconds,
        });
        println!("{out}");
    } else {
        println!("{} games of mathable ({} preset, seeds {}..)", args.games, args.game.preset(), args.seed);
        for (p, label) in [(0, "A"), (1, "B")] {
            println!(
                "  {label} {:<24} wins {:>4} ({:5.1}%)  avg points {:7.1}  avg move {:6.1} ms  max move {:6.1} ms",
                specs[p].to_string(),
                r.sides[p].wins,
                100.0 * r.sides[p].wins as f64 / args.games as f64,
                r.average_points(p),
                r.average_move_ms(p),
                1000.0 * r.sides[p].max_think
            );
        }
        println!("  draws {}; A's points / B's points = {:.3}; {:.0} s", r.draws, r.points_ratio(), r.seconds);
        if r.sides.iter().any(|s| s.forfeits > 0) {
            println!("  games lost by forfeit: A {}, B {}", r.sides[0].forfeits, r.sides[1].forfeits);
        }
        for ((side, label), control) in r.sides.iter().zip(["A", "B"]).zip(controls) {
            if side.clock_share.1 > 0 {
                let share = 100.0 * side.clock_share.0 / side.clock_share.1 as f64;
                println!("  {label} clock {control}: {share:.1}% of its time used on average");
            }
        }
        if r.sides.iter().any(|s| s.time_losses > 0) {
            println!("  games lost on time: A {}, B {}", r.sides[0].time_losses, r.sides[1].time_losses);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bench and moves

/// Runs `tabletop bench mathable`: placement generation and the computer's turn.
pub fn bench(args: BenchArgs) -> ToolResult {
    let positions = midgame_positions(args.positions.max(1), 10);
    for turns in [10, 20] {
        let set = if turns == 10 { positions.clone() } else { midgame_positions(args.positions.max(1), turns) };
        if set.is_empty() {
            continue;
        }
        let t = time_placements(&set, 20_000);
        println!(
            "placement generation, {} classic 14x14 positions after {turns} turns ({:.0} tokens on the board): \
             {:.2} us per call, {:.1} placements (target <= 20 us)",
            set.len(),
            t.tokens,
            t.per_call.as_secs_f64() * 1e6,
            t.placements
        );
    }
    let mut engine = from_spec(&args.engine, 3).map_err(invalid)?;
    let (mean, worst) = time_turns(engine.as_mut(), &positions);
    println!(
        "computer turn ({}): {:.1} ms on average, {:.1} ms at most (target <= 1000 ms)",
        args.engine,
        mean.as_secs_f64() * 1000.0,
        worst.as_secs_f64() * 1000.0
    );
    Ok(())
}

/// `tabletop moves mathable --state FILE [--best]`: the placements with their points, and the
/// engine's choice of whole turn.
pub fn list_placements(game: &Mathable, best: bool, json: bool) -> ToolResult {
    let Status::ToMove(seat) = game.status() else {
        bail!("the game is over");
    };
    let mut placements = game.placements();
    placements.sort_by(|a, b| b.points.cmp(&a.points).then(a.cell.cmp(&b.cell)).then(a.token.cmp(&b.token)));
    let best = if best {
        let mut engine = EnginePlayer::new(1);
        let (moves, plan) = engine.best_turn(game);
        Some((moves, plan))
    } else {
        None
    };
    if json {
        let list: Vec<_> = placements
            .iter()
            .map(|p| serde_json::json!({"cell": p.cell.to_string(), "token": p.token, "points": p.points}))
            .collect();
        let mut out = serde_json::json!({
            "to_move": seat.index() + 1,
            "rack": game.rack(seat).as_slice(),
            "placements": list,
        });
        if let Some((moves, plan)) = best {
            out["best"] = serde_json::json!({
                "moves": moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                "points": plan.points,
                "bonus": plan.bonus,
            });
        }
        println!("{out}");
    } else {
        println!(
            "Player {} to move, rack {}: {} valid placements",
            seat.index() + 1,
            game.rack(seat),
            placements.len()
        );
        for p in &placements {
            println!("  {} {:<3} +{}", p.cell, p.token, p.points);
        }
        if let Some((moves, plan)) = best {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            println!(
                "Engine's turn: {} ({} points{})",
                text.join(" "),
                plan.points,
                if plan.bonus > 0 { format!(" + bonus {}", plan.bonus) } else { String::new() }
            );
        }
    }
    Ok(())
}

/// `--position` or `--state` for Mathable (`moves`, `analyze`).
#[derive(clap::Args)]
pub struct PositionArgs {
    /// The saved game itself (JSON, as `save` writes it).
    #[arg(long, conflicts_with = "state")]
    pub position: Option<String>,
    /// A file holding a saved game.
    #[arg(long)]
    pub state: Option<std::path::PathBuf>,
    /// `moves`: add the engine's choice of whole turn.
    #[arg(long)]
    pub best: bool,
    /// The output options.
    #[command(flatten)]
    pub out: crate::tools::position::Output,
}

impl PositionArgs {
    /// The saved game given, read and validated.
    pub fn game(&self) -> ToolResult<Mathable> {
        let (text, source) = match (&self.position, &self.state) {
            (Some(text), _) => (text.clone(), "--position".to_string()),
            (None, Some(path)) => (crate::tools::read_capped(path, crate::tools::SAVE_MAX_BYTES)?, path.display().to_string()),
            (None, None) => bail!("give the position: --position JSON or --state FILE"),
        };
        Ok(SaveState::read(&text).with_context(|| format!("cannot load {source}"))?.0)
    }
}

/// `tabletop moves mathable`: the legal moves, or with `--state`/`--best` the placement list.
fn moves(args: PositionArgs) -> ToolResult {
    let game = args.game()?;
    if args.state.is_some() || args.best {
        list_placements(&game, args.best, args.out.json)
    } else {
        crate::tools::position::list_moves(&game, &args.out)
    }
}

/// Options of `tabletop review mathable`.
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The saved game (JSON, as `save FILE` writes it, with its history from the start).
    #[command(flatten)]
    pub options: crate::tools::review::ReviewOptions,
}

/// The first game of a saved-game text (`tabletop mathable`, `position` with the start's save
/// JSON, `moves`, as `tournament --games-out` writes them one after another), on the settings of
/// its `position` line.
pub fn first_saved_game(text: &str) -> Result<crate::Record<Mathable>, String> {
    let header = format!("tabletop {}\n", Mathable::NAME);
    let first = match text.get(1..).and_then(|rest| rest.find(&format!("\n{header}"))) {
        Some(i) => &text[..i + 2],
        None => text,
    };
    let position = first.lines().find_map(|l| l.strip_prefix("position ")).ok_or("no position line")?;
    let settings = SaveState::from_json(position.trim()).map_err(|e| e.to_string())?.settings;
    crate::Record::from_text(&settings, first).map_err(|e| e.to_string())
}

/// `tabletop review mathable`: a saved game replayed from its settings' start (the history must
/// lead to the saved position), or the first game of a saved-game text (a tournament's games),
/// reviewed move by move.
fn review(args: ReviewArgs) -> ToolResult {
    let text = args.options.text()?;
    let file = args.options.load.display().to_string();
    if text.starts_with(&format!("tabletop {}", Mathable::NAME)) {
        let record = first_saved_game(&text).map_err(|e| crate::tools::ToolError::invalid(format!("cannot load {file}"), e))?;
        let seats: Vec<String> = (1..=record.current().num_seats()).map(|i| format!("Player {i}")).collect();
        return crate::tools::review::print_review(&record, &seats, &args.options);
    }
    let (game, history) = SaveState::read(&text).with_context(|| format!("cannot load {file}"))?;
    let start = Mathable::new(game.settings()).map_err(invalid)?;
    let mut record = crate::Record::new(start);
    for (i, text) in history.iter().enumerate() {
        let mv = record.current().parse_move(text).with_context(|| format!("{file}: move {} {text:?}", i + 1))?;
        record.play(mv).with_context(|| format!("{file}: move {} {text:?}", i + 1))?;
    }
    if record.current() != &game {
        bail!("{file}: its history does not lead from the start of its settings to its position (a game loaded mid-way cannot be reviewed)");
    }
    let seats: Vec<String> = (1..=game.num_seats()).map(|i| format!("Player {i}")).collect();
    crate::tools::review::print_review(&record, &seats, &args.options)
}

/// Mathable's commands for the `tabletop` binary.
pub struct Commands;

impl crate::tools::GameCommands for Commands {
    fn play_examples(&self) -> Vec<crate::tools::commands::PlayExample> {
        vec![crate::tools::commands::PlayExample {
            args: &["--preset", "simple", "--seed", "3", "--player", "2=greedy"],
            first_move: "p g9 2",
        }]
    }

    fn tools(&self) -> Vec<crate::tools::Tool> {
        use crate::tools::{Tool, Verb};
        vec![
            Tool::new(Verb::Play, "Mathable: the number-tile game", super::terminal::play),
            Tool::new(Verb::Match, "Mathable match", run_match),
            Tool::new(Verb::Tournament, "Mathable tournament (two players; an opening is a deal)", super::tournament::run_tournament),
            Tool::new(Verb::Openings, "Balanced Mathable deals", super::tournament::run_openings),
            Tool::new(Verb::Bench, "Mathable move generation and computer-turn benchmarks", bench),
            Tool::new(Verb::Moves, "A Mathable position: a saved game (JSON, as save writes it)", moves),
            Tool::new(Verb::Analyze, "A Mathable position: a saved game (JSON, as save writes it)", |a: PositionArgs| {
                crate::tools::position::print_analysis(&a.game()?, &a.out)
            }),
            Tool::new(
                Verb::Review,
                "A Mathable game saved by play's save FILE (JSON with its history), or a tournament's saved-game text",
                review,
            ),
        ]
    }
}
