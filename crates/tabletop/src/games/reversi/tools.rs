//! `tabletop perft/solve/bench reversi`: Reversi's tools (the benchmark also runs the
//! midgame-accuracy measure of [`accuracy`](crate::games::reversi::accuracy) with `--accuracy`).

use std::time::{Duration, Instant};

use crate::tools::{bail, Context, ToolError, ToolResult};
use indicatif::{ProgressBar, ProgressStyle};

use crate::tools::invalid;
use crate::games::reversi::accuracy::{measure, players_from_specs, positions as accuracy_positions, DEFAULT_PLAYERS};
use crate::games::reversi::bench::{endgame_positions, midgame_positions, solve_ffo, time_use_positions, FfoLine, FFO_FILES};
use crate::games::reversi::book::{build, engine_identity, per_ply, Book, BookParams, BuildEvent};
use crate::games::reversi::options::parse_position;
use crate::games::reversi::perft::{perft as fast_perft, perft_hashed, DEFAULT_TABLE_BITS};
use crate::games::reversi::solver::{ParallelSolver, Solver};
use crate::games::reversi::{Reversi, ReversiMove};

/// Options of `tabletop bench reversi`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Skip perft 12 (about 4 s).
    #[arg(long)]
    pub quick: bool,
    /// Skip the FFO endgames.
    #[arg(long)]
    pub no_ffo: bool,
    /// The FFO positions to solve: 40-49, 50-59 (26-34 empties, minutes each) or 40-59.
    #[arg(long, value_name = "RANGE", default_value = "40-49")]
    pub ffo: String,
    /// Solve only the first N FFO positions of the range.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub ffo_count: usize,
    /// Skip perft.
    #[arg(long)]
    pub no_perft: bool,
    /// Skip the midgame depth benchmark.
    #[arg(long)]
    pub no_midgame: bool,
    /// The midgame benchmark searches to this depth instead of for 1 s (its nodes are then
    /// the same on every run, so nodes per second compare builds).
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=30))]
    pub midgame_depth: Option<u32>,
    /// The midgame benchmark's positions: seeded openings of 22, 24, ... plies.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=19))]
    pub midgame_positions: u64,
    /// The endgame solver's transposition table holds 2^BITS entries.
    #[arg(long, value_name = "BITS", default_value_t = 22, value_parser = clap::value_parser!(u32).range(10..=28))]
    pub table_bits: u32,
    /// Threads for the FFO solves and the midgame search (sharing one table; see
    /// `ParallelSolver` and `Engine::set_threads`).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Run only the midgame-accuracy benchmark on N seeded positions (200 when N is left out):
    /// the mean loss in discs of each player's move against the exact solver.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "200")]
    pub accuracy: Option<u64>,
    /// Seed of the accuracy benchmark's positions.
    #[arg(long, value_name = "S", default_value_t = 1, requires = "accuracy")]
    pub accuracy_seed: u64,
    /// The empties of the accuracy benchmark's positions, a range within 1-59.
    #[arg(long, value_name = "RANGE", default_value = "20-24", requires = "accuracy")]
    pub accuracy_empties: String,
    /// Run only the time-use benchmark on N seeded midgame positions (50 when N is left out):
    /// the engine's wall time per move with `--move-time`, mean and maximum.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "50", conflicts_with = "accuracy")]
    pub time_use: Option<u64>,
    /// The time per move of the time-use benchmark (`engine:time=T`).
    #[arg(long, value_name = "T", default_value = "100ms", value_parser = crate::tools::parse_duration_arg)]
    pub move_time: Duration,
    /// A player for the accuracy benchmark (repeatable; default: engine:time=100ms and
    /// engine-v1:time=100ms).
    #[arg(long = "player", value_name = "SPEC", requires = "accuracy")]
    pub players: Vec<String>,
}

/// Options of `tabletop perft reversi`.
#[derive(clap::Args)]
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
#[derive(clap::Args)]
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

/// Runs `tabletop perft reversi`: the paths to a depth, with the table of subtree counts from depth 8.
pub fn perft(args: PerftArgs) -> ToolResult {
    let position = parse_position(args.position.as_deref())?;
    if args.depth > 20 {
        bail!("depth {} is too deep: at most 20", args.depth);
    }
    let start = Instant::now();
    let nodes = if args.plain || args.depth < 8 {
        fast_perft(&position, args.depth)
    } else {
        crate::memory::ensure_available(24 << args.table_bits)?;
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

/// Runs `tabletop solve reversi`: the exact score (and best moves, or every move's score).
pub fn solve(args: SolveArgs) -> ToolResult {
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

/// The FFO positions of a range such as `40-49` (within #40-#59), numbered.
fn ffo_lines(range: &str) -> ToolResult<Vec<(usize, FfoLine)>> {
    let bad = || ToolError::Invalid(format!("--ffo {range:?}: give a range such as 40-49, 50-59 or 40-59"));
    let (from, to) = range.split_once('-').ok_or_else(bad)?;
    let (from, to): (usize, usize) = (from.trim().parse().map_err(|_| bad())?, to.trim().parse().map_err(|_| bad())?);
    if !(40..=59).contains(&from) || !(from..=59).contains(&to) {
        return Err(bad());
    }
    let mut lines = Vec::new();
    for (first, text) in FFO_FILES {
        if to < first || from > first + 9 {
            continue;
        }
        for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            if (from..=to).contains(&(first + i)) {
                lines.push((first + i, line.parse().with_context(|| format!("FFO line {}", i + 1))?));
            }
        }
    }
    Ok(lines)
}

/// Runs `tabletop bench reversi`: perft, the FFO endgames (each checked against the file),
/// exact solves at 20 empties and the midgame depth reached in 1 s.
pub fn bench(args: BenchArgs) -> ToolResult {
    if let Some(count) = args.accuracy {
        return accuracy(&args, count);
    }
    if let Some(count) = args.time_use {
        return time_use(count, args.move_time);
    }
    // The positions are read first, so a bad --ffo is refused before minutes of perft.
    let lines = if args.no_ffo { Vec::new() } else { ffo_lines(&args.ffo)? };
    let threads = crate::tools::check_threads(args.threads)?;
    println!("Reversi benchmarks (perft on one thread; the FFO solves and the midgame search on {threads})");
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
        println!("FFO endgames #{} (exact solve, best move checked against the file):", args.ffo);
        let (mut total_time, mut total_nodes, mut wrong) = (0.0, 0u64, 0);
        let mut solver = ParallelSolver::try_new(threads, args.table_bits)?;
        for (number, line) in lines.into_iter().take(args.ffo_count) {
            let r = solve_ffo(&mut solver, &line);
            let (sol, s) = (&r.solution, r.elapsed.as_secs_f64());
            total_time += s;
            total_nodes += sol.nodes;
            wrong += usize::from(!r.ok);
            println!(
                "  #{}: {:>2} empties  score {:+3} best {}  {:>11} nodes {:7.2} s {:6.1} M nodes/s  {}",
                number,
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
        if wrong > 0 {
            bail!("{wrong} FFO positions solved wrongly");
        }
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
    midgame(args.midgame_positions, args.midgame_depth, threads)
}

/// The midgame part of `tabletop bench reversi`: the depth reached in 1 s, or with `depth` the
/// time and nodes per second of a fixed-depth search (the same nodes on any machine, so its
/// speed compares builds), on `count` seeded positions.
fn midgame(count: u64, depth: Option<u32>, threads: usize) -> ToolResult {
    use crate::games::reversi::engine::Engine;
    match depth {
        None => println!("Midgame search depth reached in 1 s (engine, exact solve off):"),
        Some(d) => println!("Midgame search to depth {d} (engine, its tables cleared before each position):"),
    }
    let (mut nodes, mut seconds) = (0u64, 0.0);
    let cpu_before = crate::games::reversi::bench::process_cpu();
    // One engine, cleared before each position: it searches as a fresh one would (the same
    // nodes), and the timing leaves out the first touch of new tables' pages, which is the
    // system's work rather than the search's.
    let mut engine = match depth {
        None => Engine::try_new(Some(Duration::from_secs(1)), None)?,
        Some(d) => Engine::try_new(None, Some(d))?,
    };
    engine.set_threads(threads)?;
    for position in midgame_positions(count) {
        engine.clear();
        let a = engine.analyse(&position);
        nodes += a.nodes;
        seconds += a.elapsed.as_secs_f64();
        println!(
            "  {position}  {} empties: depth {:>2}, {:>9} nodes in {:.2} s ({:.2} M nodes/s), best {} ({})",
            position.open_squares(),
            a.depth,
            a.nodes,
            a.elapsed.as_secs_f64(),
            a.nodes as f64 / a.elapsed.as_secs_f64().max(1e-9) / 1e6,
            a.best,
            a.describe()
        );
    }
    println!("  total: {nodes} nodes in {seconds:.2} s, {:.2} M nodes/s", nodes as f64 / seconds.max(1e-9) / 1e6);
    if let (Some(before), Some(after)) = (cpu_before, crate::games::reversi::bench::process_cpu()) {
        // Against the searches' wall time: how busy the threads were (at most the threads).
        let cpu = (after - before).as_secs_f64();
        println!("  CPU, all threads: {cpu:.2} s ({:.2} threads busy on average)", cpu / seconds.max(1e-9));
    }
    Ok(())
}

/// `tabletop bench reversi --time-use N`: how much of its budget `engine:time=T` uses, in wall
/// time (what a clock counts, whatever else the machine runs), over seeded midgame positions
/// searched one after the other by one engine, as in a game.
fn time_use(count: u64, time: Duration) -> ToolResult {
    if count == 0 || count > 10_000 {
        bail!("--time-use {count}: give 1 to 10000 positions");
    }
    if time.is_zero() {
        bail!("--move-time: give a time above zero");
    }
    let positions = time_use_positions(count, 1);
    let mut engine = crate::games::reversi::engine::Engine::try_new(Some(time), None)?;
    let (mut total, mut max, mut min) = (Duration::ZERO, Duration::ZERO, Duration::MAX);
    let (mut nodes, mut depths, mut over) = (0u64, 0u64, 0);
    for position in &positions {
        let started = Instant::now();
        let analysis = engine.analyse(position);
        let took = started.elapsed();
        total += took;
        max = max.max(took);
        min = min.min(took);
        over += usize::from(took > time * 11 / 10);
        nodes += analysis.nodes;
        depths += u64::from(analysis.depth);
    }
    let n = positions.len().max(1) as u32;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let share = |d: Duration| 100.0 * d.as_secs_f64() / time.as_secs_f64();
    println!(
        "Time use of engine:time={}ms: {} midgame positions of 24-46 empties (seeds 1-{count}), wall time per move",
        time.as_millis(),
        positions.len()
    );
    println!(
        "  mean {:.1} ms ({:.1}%), max {:.1} ms ({:.1}%), min {:.1} ms, {over} over 110%; mean depth {:.1}, {:.2} M nodes/s",
        ms(total / n),
        share(total / n),
        ms(max),
        share(max),
        ms(min),
        depths as f64 / f64::from(n),
        nodes as f64 / total.as_secs_f64().max(1e-9) / 1e6
    );
    Ok(())
}

/// A range of empties such as `20-24` (or one number).
fn parse_empties(text: &str) -> ToolResult<std::ops::RangeInclusive<u32>> {
    let bad = || ToolError::Invalid(format!("--accuracy-empties {text:?}: give a range within 1-59 such as 20-24"));
    let (from, to) = text.split_once('-').unwrap_or((text, text));
    let (from, to): (u32, u32) = (from.trim().parse().map_err(|_| bad())?, to.trim().parse().map_err(|_| bad())?);
    if from == 0 || to > 59 || from > to {
        return Err(bad());
    }
    Ok(from..=to)
}

/// `tabletop bench reversi --accuracy N`: the midgame-accuracy benchmark (issue 14). Every
/// option is checked and every player built before the first position is solved.
fn accuracy(args: &BenchArgs, count: u64) -> ToolResult {
    if count == 0 || count > 10_000 {
        bail!("--accuracy {count}: give 1 to 10000 positions");
    }
    let empties = parse_empties(&args.accuracy_empties)?;
    let specs: Vec<String> = if args.players.is_empty() {
        DEFAULT_PLAYERS.iter().map(|s| s.to_string()).collect()
    } else {
        args.players.clone()
    };
    let mut players = players_from_specs(&specs).map_err(invalid)?;
    crate::memory::ensure_available(Solver::memory_bytes(args.table_bits))?;
    let mut solver = Solver::try_new(args.table_bits)?;
    let started = Instant::now();
    // `count` is at most 10000, so it fits usize everywhere.
    let set = accuracy_positions(count as usize, args.accuracy_seed, empties.clone()).map_err(invalid)?;
    println!(
        "Midgame accuracy (one thread): {count} positions of {}-{} empties (seed {}), each chosen move valued by the exact solver",
        empties.start(),
        empties.end(),
        args.accuracy_seed
    );
    let bar = ProgressBar::new(count);
    bar.set_style(
        ProgressStyle::with_template("accuracy {bar:40} {pos}/{len} positions, {elapsed} (eta {eta})")
            .with_context(|| "progress bar template")?,
    );
    let report = measure(&set, &mut players, &mut solver, &|done| bar.set_position(done as u64));
    bar.finish_and_clear();
    let report = report.map_err(|e| ToolError::Failed(e.to_string()))?;
    println!(
        "  {:<24} {:>15} {:>10} {:>10} {:>10} {:>10}",
        "player", "mean loss", "best move", "worst", "mean time", "max time"
    );
    for p in &report.players {
        println!(
            "  {:<24} {:>7.2} +- {:<4.2} {:>9.1}% {:>10} {:>7.0} ms {:>7.0} ms",
            p.player,
            p.mean_loss(),
            p.loss_std_error(),
            100.0 * p.best_share(),
            p.worst_loss,
            p.mean_think().as_secs_f64() * 1e3,
            p.max_think.as_secs_f64() * 1e3
        );
    }
    println!("  (loss in discs against the best move, +- one standard error; {} positions)", report.positions);
    println!(
        "  exact solves: {} nodes in {:.1} s; wall time {:.1} s",
        report.solve_nodes,
        report.solve_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Options of `tabletop book reversi`.
#[derive(clap::Args)]
pub struct BookArgs {
    /// The book file to write (or, with --resume, to continue; with --report, to report on:
    /// by default the built-in book).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
    /// Every position of up to this many plies is in the book.
    #[arg(long, value_name = "N", default_value_t = BookParams::STANDARD.all_plies)]
    pub all_plies: u8,
    /// The deepest ply: past --all-plies, the positions the near-best moves lead to.
    #[arg(long, value_name = "N", default_value_t = BookParams::STANDARD.plies)]
    pub plies: u8,
    /// The depth in plies of the search that values each position.
    #[arg(long, value_name = "D", default_value_t = BookParams::STANDARD.depth)]
    pub depth: u8,
    /// Near-best moves (followed past --all-plies): within this many hundredths of a disc of
    /// the best.
    #[arg(long, value_name = "CENTIDISCS", default_value_t = BookParams::STANDARD.window)]
    pub window: u16,
    /// Continue the book in --out where an earlier run stopped (the same --all-plies, --depth
    /// and --window; --plies may grow).
    #[arg(long)]
    pub resume: bool,
    /// Stop (saving the book, to resume later) after this many seconds.
    #[arg(long, value_name = "S")]
    pub max_seconds: Option<u64>,
    /// Worker threads, each valuing its own positions on one thread (the book is the same on
    /// any number).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Only report what the book (--out, or the built-in one) holds.
    #[arg(long)]
    pub report: bool,
}

/// The largest book file read.
const BOOK_MAX_BYTES: u64 = 256 << 20;

/// Reads and checks a book file.
fn read_book(path: &str) -> ToolResult<Book> {
    let bytes = crate::tools::read_capped_bytes(std::path::Path::new(path), BOOK_MAX_BYTES)?;
    Book::from_bytes(&bytes).with_context(|| format!("cannot read the book {path}"))
}

/// `tabletop book reversi`: builds (or resumes) an opening book with the engine, one thread,
/// saving it every 10 seconds and at the end; or reports on one.
fn book(args: BookArgs) -> ToolResult {
    if args.report {
        let (book, name) = match &args.out {
            Some(path) => (read_book(path)?, path.clone()),
            None => (Book::standard().clone(), "the built-in book".to_string()),
        };
        let p = book.params();
        println!(
            "{name}: {} positions, {} bytes, {}; every position to ply {}, near-best moves (window {}) to ply {}, depth {}",
            book.len(),
            book.to_bytes().len(),
            if book.is_complete() { "complete" } else { "incomplete (resume it)" },
            p.all_plies,
            p.window,
            p.plies,
            p.depth
        );
        let identity = if book.identity() == engine_identity() { "this engine" } else { "another engine (build it again)" };
        println!("built by {identity} (identity {:016x})", book.identity());
        for (ply, count) in per_ply(&book).iter().enumerate() {
            println!("  ply {ply:>2}: {count} positions");
        }
        return Ok(());
    }
    let Some(out) = args.out.clone() else { bail!("--out FILE: where to write the book") };
    let params = BookParams { all_plies: args.all_plies, plies: args.plies, depth: args.depth, window: args.window };
    params.check().map_err(invalid)?;
    let exists = std::path::Path::new(&out).exists();
    let book = if exists {
        if !args.resume {
            bail!("{out} exists: --resume to continue it, or choose another file");
        }
        let mut book = read_book(&out)?;
        let had = book.params();
        if (had.all_plies, had.depth, had.window) != (params.all_plies, params.depth, params.window) {
            bail!(
                "{out} was built with --all-plies {} --depth {} --window {}: resume it with the same",
                had.all_plies,
                had.depth,
                had.window
            );
        }
        if book.identity() != engine_identity() {
            bail!("{out} was built by another engine or evaluation: build a new book");
        }
        book.set_plies(params.plies).map_err(invalid)?;
        println!("resuming {out} ({} positions)", book.len());
        book
    } else {
        Book::new(params).map_err(invalid)?
    };
    let save = |b: &Book| -> ToolResult {
        let tmp = format!("{out}.tmp");
        std::fs::write(&tmp, b.to_bytes()).with_context(|| format!("cannot write {tmp}"))?;
        std::fs::rename(&tmp, &out).with_context(|| format!("cannot write {out}"))
    };
    let started = Instant::now();
    let threads = crate::tools::check_threads(args.threads)?;
    crate::memory::ensure_available(crate::games::reversi::engine::Engine::MEMORY_BYTES * threads as u64)?;
    let mut engines = (0..threads)
        .map(|_| crate::games::reversi::engine::Engine::try_new(None, None))
        .collect::<Result<Vec<_>, _>>()?;
    let mut bar = ProgressBar::hidden();
    let mut last_save = Instant::now();
    let (book, complete) = build(
        book,
        &mut engines,
        args.max_seconds.map(|s| started + Duration::from_secs(s)),
        &mut |event| -> ToolResult {
            match event {
                BuildEvent::Ply { ply, todo, held } => {
                    bar.finish();
                    bar = ProgressBar::new(todo as u64).with_style(
                        ProgressStyle::with_template(&format!(
                            "ply {ply:>2} {{bar:40}} {{pos}}/{{len}} positions ({held} held) [{{elapsed_precise}}, eta {{eta}}]"
                        ))
                        .with_context(|| "progress bar template")?,
                    );
                }
                BuildEvent::Position(b) => {
                    bar.inc(1);
                    if last_save.elapsed() > Duration::from_secs(10) {
                        save(b)?;
                        last_save = Instant::now();
                    }
                }
            }
            Ok(())
        },
    )?;
    bar.finish();
    save(&book)?;
    println!(
        "{} {out}: {} positions, {} bytes, {:.1} s{}",
        if complete { "built" } else { "stopped (resume with --resume)" },
        book.len(),
        book.to_bytes().len(),
        started.elapsed().as_secs_f64(),
        if complete { "" } else { " this run" }
    );
    Ok(())
}

/// `--position` for Reversi (`moves`, `analyze`).
#[derive(clap::Args)]
pub struct PositionArgs {
    /// 64 characters row by row from a1 (`X` black, `O` white, `-` empty), a space, and the side
    /// to move (`X` or `O`). Default: the start.
    #[arg(long, allow_hyphen_values = true)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: crate::tools::position::Output,
}

/// Options of `tabletop review reversi`.
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The saved game (`save FILE`: tabletop's text, or GGF when the file starts with `(;`).
    #[command(flatten)]
    pub options: crate::tools::review::ReviewOptions,
}

/// `tabletop review reversi`: a game saved by `save FILE` (text or GGF) reviewed move by move.
fn review(args: ReviewArgs) -> ToolResult {
    let text = args.options.text()?;
    let file = args.options.load.display().to_string();
    let (record, clocks) = if text.trim_start().starts_with("(;") {
        let game = text.parse::<crate::games::reversi::ggf::GgfGame>().with_context(|| format!("cannot load {file}"))?;
        let record = game.to_record().with_context(|| format!("cannot load {file}"))?;
        (record, game.clock_log())
    } else {
        crate::Record::<Reversi>::from_text_timed(&(), &text).with_context(|| format!("cannot load {file}"))?
    };
    let seats = ["Black".to_string(), "White".to_string()];
    if !args.options.json {
        if let Some(name) = crate::games::reversi::openings::opening_name(record.moves()) {
            println!("Opening: {name}");
        }
    }
    let review = crate::review::review_range::<Reversi>;
    crate::tools::review::print_review_timed(&record, clocks.as_ref(), &seats, &args.options, review)
}

/// Reversi's commands for the `tabletop` binary.
pub struct Commands;

impl crate::tools::GameCommands for Commands {
    fn play_examples(&self) -> Vec<crate::tools::commands::PlayExample> {
        vec![crate::tools::commands::PlayExample { args: &["--player", "white=random", "--no-color"], first_move: "f5" }]
    }

    fn tools(&self) -> Vec<crate::tools::Tool> {
        use crate::tools::commands::Place;
        use crate::tools::position::{list_moves, print_analysis};
        use crate::tools::{Tool, Verb};
        vec![
            Tool::new(Verb::Play, "Reversi / Othello", super::terminal::play),
            Tool::new(Verb::Match, "Reversi match", super::terminal::run_match),
            Tool::new(Verb::Tournament, "Reversi tournament", super::terminal::run_tournament),
            Tool::new(Verb::Openings, "Balanced Reversi openings", super::terminal::run_openings),
            Tool::new(Verb::Perft, "Reversi perft", perft),
            Tool::new(Verb::Solve, "Solve a Reversi endgame exactly", solve),
            Tool::new(Verb::Bench, "Reversi perft, endgame and search-depth benchmarks", bench),
            Tool::new(Verb::Moves, "A Reversi position: 64 squares (X, O, -) and the side to move", |a: PositionArgs| {
                list_moves(&parse_position(a.position.as_deref())?, &a.out)
            }),
            Tool::new(Verb::Analyze, "A Reversi position: 64 squares (X, O, -) and the side to move", |a: PositionArgs| {
                // Exact solves on every core (the same scores on any number of threads).
                super::players::set_default_threads(super::players::all_cores());
                print_analysis(&parse_position(a.position.as_deref())?, &a.out)
            }),
            Tool::new(Verb::Review, "A Reversi game saved by play's save FILE (text or GGF)", review),
            Tool::new(Verb::Book, "Build the Reversi opening book with the engine (resumable)", book),
            #[cfg(feature = "tune")]
            Tool::new(
                Verb::Tune,
                "Fit the Reversi engine's evaluation (writes the weight file the build includes)",
                super::tune_command::reversi,
            ),
            Tool::at(
                Place::TopLevel("nboard"),
                "Be a Reversi engine for Othello GUIs: the NBoard protocol on standard input and output",
                super::terminal::nboard,
            ),
        ]
    }
}
