//! `tabletop perft/solve/bench/book connect`: Connect-N's tools.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use crate::tools::{bail, check_threads, invalid, read_capped_bytes, Context, ToolError, ToolResult};
use crate::games::connect::book::Book;
use crate::games::connect::engine::Engine;
use crate::games::connect::solver::Solver;
use crate::games::connect::options::SizeArgs;
use crate::games::connect::{Connect, ConnectVariant};
use crate::{perft as count_paths, Game, Player};

/// Options of `tabletop bench connect`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Only these sets (e.g. Test_L3_R1); default all five.
    #[arg(long = "set")]
    pub sets: Vec<String>,
    /// Directory of the benchmark sets (default: the repository's crates/tabletop/data/connect/sets).
    #[arg(long)]
    pub data: Option<String>,
    /// Transposition table entries (8 bytes each) for the sets.
    #[arg(long, default_value_t = 1 << 22)]
    pub table: usize,
    /// Also solve the empty 7x6 board (long).
    #[arg(long)]
    pub empty: bool,
    /// Threads for the empty-board solve.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Table entries for the empty-board solve (8 bytes each; 256 MB by default: 1 GB or
    /// more gives no fewer nodes and is slower, its probes missing the TLB).
    #[arg(long, default_value_t = 1 << 25)]
    pub empty_table: usize,
    /// Weak solve of the empty board (sign only).
    #[arg(long)]
    pub weak: bool,
    /// Skip the benchmark sets.
    #[arg(long)]
    pub no_sets: bool,
    /// Solve this position (a column sequence) instead of the empty board with --empty.
    #[arg(long, default_value = "")]
    pub position: String,
    /// Print the nodes and time of every null-window test of the --empty solve.
    #[arg(long)]
    pub trace: bool,
    /// Also play the acceptance matches: the engine as X against random (50 games) and
    /// level 3 (20 games), timing every move.
    #[arg(long)]
    pub matches: bool,
    /// Time the exact analysis of every move (book, then solver, one thread) of seeded random
    /// positions of plies 0 to --max-ply instead (p50, p95, max per ply bucket).
    #[arg(long)]
    pub analysis: bool,
    /// Positions per ply for --analysis.
    #[arg(long, default_value_t = 4)]
    pub samples: usize,
    /// Seed of the --analysis positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The deepest ply of the --analysis positions.
    #[arg(long, default_value_t = 20)]
    pub max_ply: usize,
    /// Seconds after which an --analysis position is given up (counted as over 1 s).
    #[arg(long, default_value_t = 30.0)]
    pub limit: f64,
}

/// Runs `tabletop bench connect`: the benchmark sets (every score checked), the acceptance
/// matches and the empty board, as asked.
pub fn bench(args: BenchArgs) -> ToolResult {
    use crate::games::connect::bench::{pons_ms, solve_set, DATA_DIR, SETS};
    let v = ConnectVariant::connect4();
    if args.analysis {
        return bench_analysis(&args);
    }
    if !args.no_sets {
        let dir = std::path::PathBuf::from(args.data.as_deref().unwrap_or(DATA_DIR));
        let names: Vec<&str> = if args.sets.is_empty() {
            SETS.iter().map(|s| s.0).collect()
        } else {
            args.sets.iter().map(|s| s.as_str()).collect()
        };
        println!("7x6 strong solve, one thread, table {} MB reused across positions", (args.table * 8) >> 20);
        println!(
            "{:<12} {:>6} {:>12} {:>14} {:>12} {:>8}",
            "set", "lines", "mean ms", "mean nodes", "Pons ms", "ratio"
        );
        let mut solver = checked_solver(v, args.table, "--table")?;
        for name in names {
            let path = dir.join(name);
            let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
            let r = solve_set(&mut solver, &text).with_context(|| name.to_string())?;
            r.wrong.iter().for_each(|w| eprintln!("{name}: {w}"));
            let (ms, pons) = (r.mean_ms(), pons_ms(name));
            println!(
                "{:<12} {:>6} {:>12.4} {:>14.1} {:>12} {:>8}",
                name,
                r.positions,
                ms,
                r.mean_nodes(),
                pons.map(|p| format!("{p}")).unwrap_or_default(),
                pons.map(|p| format!("{:.2}x", p / ms)).unwrap_or_default()
            );
            if !r.wrong.is_empty() {
                bail!("{} wrong scores in {name}", r.wrong.len());
            }
        }
    }
    if args.matches {
        use crate::games::connect::engine::{first_player_match, LevelPlayer};
        let mut engine = Engine::new(v, Duration::from_secs(1));
        let mut random = crate::players::RandomPlayer::new(2024);
        let mut level3 = LevelPlayer::new(3, 2024);
        let opponents: [(&str, &mut dyn Player<Connect>, u32); 2] =
            [("random:seed=2024", &mut random, 50), ("connect:level=3,seed=2024", &mut level3, 20)];
        for (name, opponent, games) in opponents {
            let start = Instant::now();
            let r = first_player_match(&mut engine, opponent, games);
            println!(
                "engine (X, 1 s/move) vs {name}: {} wins, {} draws, {} losses in {games} games; slowest move {} ms; \
                 {} of {} engine moves heuristic, {} from unproven book entries; {:.1} s",
                r.wins,
                r.draws,
                r.losses,
                r.slowest.as_millis(),
                r.heuristic_moves,
                r.engine_moves,
                r.unproven_moves,
                start.elapsed().as_secs_f64()
            );
        }
    }
    if args.empty {
        println!(
            "7x6 position '{}': {} solve, {} thread(s), table {} MB ...",
            args.position,
            if args.weak { "weak" } else { "strong" },
            args.threads,
            (args.empty_table * 8) >> 20
        );
        check_threads(args.threads)?;
        let mut solver = checked_solver(v, args.empty_table, "--empty-table")?;
        solver.set_trace(args.trace);
        let p = Connect::from_notation(&v, &args.position).map_err(invalid)?;
        let start = Instant::now();
        let (score, nodes) = solver.solve_parallel(&p, args.threads, args.weak);
        let t = start.elapsed();
        println!(
            "position '{}': score {score}, {nodes} nodes, {:.1} s (empty board: Pons 8 min / 3.1e9 nodes; \
             Steininger 20 s)",
            args.position,
            t.as_secs_f64()
        );
    }
    Ok(())
}

/// `tabletop bench connect --analysis`: the exact analysis of every move of seeded random
/// positions, timed one by one, with statistics per bucket of three plies and overall.
fn bench_analysis(args: &BenchArgs) -> ToolResult {
    use crate::games::connect::bench::{analysis_sample, TimeStats};
    if !(args.limit.is_finite() && args.limit > 0.0) {
        bail!("--limit must be a positive number of seconds");
    }
    let limit = Duration::from_secs_f64(args.limit);
    let table = 1 << 21;
    println!(
        "7x6 exact analysis of every move (shipped book, then a fresh {} MB solver table per position, one thread); \
         {} positions per ply 0..={}, seed {}, limit {:.0} s",
        (table * 8) >> 20,
        args.samples,
        args.max_ply,
        args.seed,
        args.limit
    );
    println!("{:>4} {:<24} {:>10} {:>10} {:>5} {:>6} {:>12}", "ply", "position", "wall ms", "cpu ms", "book", "solved", "nodes");
    let mut all = Vec::new();
    for ply in 0..=args.max_ply.min(41) {
        for i in 0..args.samples {
            let seed = args.seed.wrapping_mul(1_000_003).wrapping_add((ply * 1000 + i) as u64);
            let Some(s) = analysis_sample(ply, seed, table, limit) else { continue };
            println!(
                "{:>4} {:<24} {:>10.1} {:>10.1} {:>5} {:>6} {:>12}{}",
                s.ply,
                s.notation,
                s.elapsed.as_secs_f64() * 1000.0,
                s.cpu.as_secs_f64() * 1000.0,
                s.from_book,
                s.solved,
                s.nodes,
                if s.complete { "" } else { "  (limit reached: not exact)" }
            );
            all.push(s);
        }
    }
    println!();
    println!(
        "{:<8} {:>5} {:>10} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10} {:>7} {:>14}",
        "plies", "n", "p50 ms", "p95 ms", "max ms", ">1s", "cpu p50", "cpu p95", "cpu max", "cpu>1s", "nodes (sum)"
    );
    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1000.0);
    let row = |label: String, samples: Vec<&crate::games::connect::bench::AnalysisSample>| {
        let wall: Vec<Duration> =
            samples.iter().map(|s| if s.complete { s.elapsed } else { s.elapsed.max(limit) }).collect();
        let cpu: Vec<Duration> = samples.iter().map(|s| if s.complete { s.cpu } else { s.cpu.max(limit) }).collect();
        let (w, c) = (TimeStats::of(&wall), TimeStats::of(&cpu));
        let open = samples.iter().filter(|s| !s.complete).count();
        let nodes: u64 = samples.iter().map(|s| s.nodes).sum();
        println!(
            "{:<8} {:>5} {:>10} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10} {:>7} {:>14}{}",
            label,
            w.count,
            ms(w.p50),
            ms(w.p95),
            ms(w.max),
            w.over_1s,
            ms(c.p50),
            ms(c.p95),
            ms(c.max),
            c.over_1s,
            nodes,
            if open > 0 { format!("  ({open} not finished within the limit)") } else { String::new() }
        );
    };
    for first in (0..=args.max_ply).step_by(3) {
        let last = (first + 2).min(args.max_ply);
        row(format!("{first}-{last}"), all.iter().filter(|s| (first..=last).contains(&s.ply)).collect());
    }
    row("all".into(), all.iter().collect());
    Ok(())
}

/// Options of `tabletop perft connect`.
#[derive(clap::Args)]
pub struct PerftArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// Depth in plies.
    #[arg(long, default_value_t = 8)]
    pub depth: u32,
    /// Start from this column sequence instead of the empty board.
    #[arg(long)]
    pub position: Option<String>,
}

/// Options of `tabletop solve connect`.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The position (a column sequence such as 4453); without it, positions are read from
    /// standard input, one per line (Pons' benchmark format: anything after a space is ignored).
    #[arg(long)]
    pub position: Option<String>,
    /// Only the sign of the score (-1, 0, +1).
    #[arg(long)]
    pub weak: bool,
    /// Append the nodes searched and the microseconds taken.
    #[arg(long)]
    pub stats: bool,
    /// The score of every column instead (`-` for unplayable columns).
    #[arg(long)]
    pub all_moves: bool,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
    /// Transposition table entries (8 bytes each).
    #[arg(long, default_value_t = 1 << 24)]
    pub table: usize,
    /// Threads (lazy SMP on a shared table).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// Runs `tabletop perft connect`: the paths to each depth, with their times.
pub fn perft(args: PerftArgs) -> ToolResult {
    let v = args.size.variant()?;
    let p = Connect::from_notation(&v, args.position.as_deref().unwrap_or("")).map_err(invalid)?;
    for d in 1..=args.depth {
        let start = Instant::now();
        let n = count_paths(&p, d);
        println!("depth {d:>2}: {n:>14}  ({:.3} s)", start.elapsed().as_secs_f64());
    }
    Ok(())
}

/// Solves one position and prints its line; an unreadable position is an error (the caller
/// reports it once, with its line number).
fn solve_line(solver: &mut Solver, args: &SolveArgs, seq: &str, out: &mut impl Write) -> ToolResult {
    let v = solver.variant();
    let p = Connect::from_notation(&v, seq).with_context(|| format!("bad position {seq:?}"))?;
    solver.reset_nodes();
    let start = Instant::now();
    let mut json = serde_json::json!({ "position": seq });
    let mut text = seq.to_string();
    if args.all_moves {
        let moves: Vec<Option<i32>> =
            solver.solve_moves(&p).into_iter().map(|s| s.map(|s| if args.weak { s.signum() } else { s })).collect();
        for m in &moves {
            text.push(' ');
            text.push_str(&m.map(|s| s.to_string()).unwrap_or_else(|| "-".to_string()));
        }
        json["moves"] = serde_json::json!(moves);
    } else {
        let score = if args.threads > 1 {
            solver.solve_parallel(&p, args.threads, args.weak).0
        } else if args.weak {
            solver.solve_weak(&p)
        } else {
            solver.solve(&p)
        };
        text.push_str(&format!(" {score}"));
        json["score"] = serde_json::json!(score);
    }
    let micros = start.elapsed().as_micros() as u64;
    if args.stats {
        text.push_str(&format!(" {} {micros}", solver.nodes()));
        json["nodes"] = serde_json::json!(solver.nodes());
        json["micros"] = serde_json::json!(micros);
    }
    if args.json {
        writeln!(out, "{json}")?;
    } else {
        writeln!(out, "{text}")?;
    }
    out.flush()?;
    Ok(())
}

/// A solver with a table of `entries` entries (checked against the memory available); errors
/// name the option.
fn checked_solver(v: ConnectVariant, entries: usize, option: &str) -> ToolResult<Solver> {
    Solver::try_new_checked(v, entries).with_context(|| format!("{option} {entries}"))
}

/// Runs `tabletop solve connect`: `--position`, or every line of standard input (bad lines
/// are reported on standard error with their numbers; the others are solved).
pub fn solve(args: SolveArgs) -> ToolResult {
    let v = args.size.variant()?;
    check_threads(args.threads)?;
    let mut solver = checked_solver(v, args.table, "--table")?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Some(seq) = &args.position {
        return solve_line(&mut solver, &args, seq.trim(), &mut out);
    }
    let (mut failed, mut total) = (0usize, 0usize);
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.with_context(|| format!("line {}", number + 1))?;
        // Pons' format: the position, then anything after a space; a blank line is the empty board.
        let seq = line.split_whitespace().next().unwrap_or("");
        total += 1;
        if let Err(e) = solve_line(&mut solver, &args, seq, &mut out) {
            if matches!(e, ToolError::Io { .. }) {
                return Err(e);
            }
            eprintln!("error: line {}: {e:#}", number + 1);
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {total} lines could not be solved");
    }
    Ok(())
}

/// Options of `tabletop book connect`.
#[derive(clap::Args)]
pub struct BookArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// Positions with up to this many stones.
    #[arg(long, default_value_t = 12)]
    pub plies: usize,
    /// Which side the book plays: first (X), second (O), both, or all (every position of up
    /// to --plies stones, whoever is to move: the exact analysis of every move below that ply).
    #[arg(long, default_value = "first")]
    pub side: String,
    /// The book file (default connect-book.bin); an existing file is resumed. With --report:
    /// the book to report on (default: the shipped 7x6 book).
    #[arg(long)]
    pub output: Option<String>,
    /// Worker threads sharing one table.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Table entries (8 bytes each).
    #[arg(long, default_value_t = 1 << 26)]
    pub table: usize,
    /// Time the solver may spend on one position; past it the heuristic search's move is
    /// stored as "not proven".
    #[arg(long, default_value_t = 3.0)]
    pub position_seconds: f64,
    /// Depth of the heuristic search for unproven positions.
    #[arg(long, default_value_t = 10)]
    pub heuristic_depth: u32,
    /// Stop (and save, to resume later) after this many seconds.
    #[arg(long)]
    pub max_seconds: Option<u64>,
    /// Try again to prove the unproven entries (deepest first), keeping each stored move when
    /// it is optimal.
    #[arg(long)]
    pub reprove: bool,
    /// Only report what the book (`--output`, or the shipped 7x6 book) holds, ply by ply.
    #[arg(long)]
    pub report: bool,
}

/// Runs `tabletop book connect`: builds or resumes a book file, or reports on one.
pub fn book(args: BookArgs) -> ToolResult {
    use crate::games::connect::book::{complete_plies, Book, BookSide, ALL_MAX_PLIES};
    use crate::games::connect::build::{build, coverage, BuildEvent, BuildSettings};
    use crate::games::connect::solver::Table;

    let v = args.size.variant()?;
    if args.report {
        let b = match &args.output {
            Some(path) => read_book(path)?,
            None => Book::standard(),
        };
        println!("{} positions ({} proven), {} bytes", b.len(), b.proven(), b.to_bytes().len());
        for r in coverage(&b) {
            println!(
                "{:?} player to move, ply {}: {} positions needed, {} in the book, {} proven",
                r.side, r.ply, r.needed, r.held, r.proven
            );
        }
        let complete = complete_plies(&b);
        if complete > 0 {
            println!("every position of 0 to {} stones proven", complete - 1);
        }
        if let Some((col, score)) = b.lookup(&Connect::new(v)) {
            println!("empty board: column {col}, score {}", score.map_or("not proven".into(), |s| s.to_string()));
        }
        return Ok(());
    }
    let sides: Vec<BookSide> = match args.side.as_str() {
        "first" | "x" | "X" => vec![BookSide::First],
        "second" | "o" | "O" => vec![BookSide::Second],
        "both" => vec![BookSide::First, BookSide::Second],
        "all" => vec![BookSide::All],
        other => bail!("--side {other:?}: choose first, second, both or all"),
    };
    check_threads(args.threads)?;
    if args.plies > v.cells() {
        bail!("--plies {}: a {v} board has {} cells", args.plies, v.cells());
    }
    if sides.contains(&BookSide::All) && args.plies > ALL_MAX_PLIES {
        bail!(
            "--plies {} with --side all: every position of up to {ALL_MAX_PLIES} stones at most \
             (7x6 has 6.6 million at ply 12 alone, each solved)",
            args.plies
        );
    }
    if !(args.position_seconds.is_finite() && args.position_seconds > 0.0 && args.position_seconds <= 1e6) {
        bail!("--position-seconds {}: give a number of seconds above 0", args.position_seconds);
    }
    let output = args.output.clone().unwrap_or_else(|| "connect-book.bin".to_string());
    let book = if std::path::Path::new(&output).exists() {
        let b = read_book(&output)?;
        if b.variant() != v {
            bail!("{output} is a book for {}, not {v}", b.variant());
        }
        println!("resuming {output} ({} positions)", b.len());
        b
    } else {
        Book::new(v).map_err(invalid)?
    };
    let save = |b: &Book| -> ToolResult {
        let tmp = format!("{output}.tmp");
        std::fs::write(&tmp, b.to_bytes()).with_context(|| format!("cannot write {tmp}"))?;
        std::fs::rename(&tmp, &output).with_context(|| format!("cannot write {output}"))
    };
    let started = Instant::now();
    let settings = BuildSettings {
        sides,
        plies: args.plies,
        threads: args.threads,
        position_time: Duration::from_secs_f64(args.position_seconds),
        heuristic_depth: args.heuristic_depth,
        deadline: args.max_seconds.map(|s| started + Duration::from_secs(s)),
        reprove: args.reprove,
    };
    let table = Table::try_for(v, args.table).with_context(|| format!("--table {}", args.table))?;
    let bar = std::sync::Mutex::new(indicatif::ProgressBar::hidden());
    let (b, complete) = build(book, &settings, std::sync::Arc::new(table), &|event| -> ToolResult {
        let mut bar = bar.lock().expect("bar lock");
        match event {
            BuildEvent::Ply { ply, positions } => {
                *bar = indicatif::ProgressBar::new(positions as u64).with_style(
                    indicatif::ProgressStyle::with_template(&format!(
                        "ply {ply:>2} {{bar:40}} {{pos}}/{{len}} positions [{{elapsed_precise}}, eta {{eta}}]"
                    ))
                    .expect("valid template"),
                );
            }
            BuildEvent::Position => bar.inc(1),
            BuildEvent::Checkpoint(b) => save(b)?,
            BuildEvent::PlyDone(b) => {
                bar.finish();
                save(b)?;
            }
        }
        Ok(())
    })
    .map_err(invalid)?;
    save(&b)?;
    println!(
        "{} {}: {} positions ({} proven) up to ply {}, {} bytes, {:.1} s{}",
        if complete { "built" } else { "stopped (resume with the same command)" },
        output,
        b.len(),
        b.proven(),
        b.plies(),
        b.to_bytes().len(),
        started.elapsed().as_secs_f64(),
        if complete { "" } else { " this run" }
    );
    Ok(())
}

/// The largest book file read (the shipped 7x6 book to ply 12 is 105 KB).
const BOOK_MAX_BYTES: u64 = 64 << 20;

/// Reads and checks a book file.
fn read_book(path: &str) -> ToolResult<Book> {
    let bytes = read_capped_bytes(std::path::Path::new(path), BOOK_MAX_BYTES)?;
    Book::from_bytes(&bytes).with_context(|| format!("cannot read the book {path}"))
}

/// `--position` for Connect-N (`moves`, `analyze`).
#[derive(clap::Args)]
pub struct PositionArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The columns played from the empty board, 1-based (`4453`). Default: the empty board.
    #[arg(long)]
    pub position: Option<String>,
    /// The output options.
    #[command(flatten)]
    pub out: crate::tools::position::Output,
}

impl PositionArgs {
    /// The position given, validated.
    fn position(&self) -> ToolResult<Connect> {
        let v = self.size.variant()?;
        let text = self.position.as_deref().unwrap_or("");
        Connect::from_notation(&v, text.trim()).with_context(|| format!("bad position {text:?}"))
    }
}

/// Options of `tabletop review connect`.
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The board size the game was played on.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The saved game and the output.
    #[command(flatten)]
    pub options: crate::tools::review::ReviewOptions,
}

/// `tabletop review connect`: a game saved by `save FILE` reviewed move by move.
fn review(args: ReviewArgs) -> ToolResult {
    let v = args.size.variant()?;
    let seats = ["X".to_string(), "O".to_string()];
    crate::tools::review::review_saved::<Connect>(&v, &seats, &args.options)
}

/// Connect-N's commands for the `tabletop` binary.
pub struct Commands;

impl crate::tools::GameCommands for Commands {
    fn play_examples(&self) -> Vec<crate::tools::commands::PlayExample> {
        vec![
            crate::tools::commands::PlayExample { args: &["--preset", "connect3", "--player", "o=random"], first_move: "2" },
            crate::tools::commands::PlayExample { args: &["--preset", "connect3", "--document"], first_move: "2" },
        ]
    }

    fn tools(&self) -> Vec<crate::tools::Tool> {
        use crate::tools::position::{list_moves, print_analysis};
        use crate::tools::{Tool, Verb};
        vec![
            Tool::new(Verb::Play, "Connect-N: Connect Three, Connect Four and other drop games", super::terminal::play),
            Tool::new(Verb::Match, "Connect-N match", super::terminal::run_match),
            Tool::new(Verb::Tournament, "Connect-N tournament", super::terminal::run_tournament),
            Tool::new(Verb::Openings, "Balanced Connect-N openings", super::terminal::run_openings),
            Tool::new(Verb::Perft, "Connect-N perft", perft),
            Tool::new(Verb::Solve, "Solve Connect-N positions read from standard input or --position", solve),
            Tool::new(Verb::Bench, "Connect-N solver benchmarks on the shared test sets", bench),
            Tool::new(Verb::Book, "Build a Connect-N opening book", book),
            Tool::new(Verb::Moves, "A Connect-N position: the board options and the columns played (4453)", |a: PositionArgs| {
                list_moves(&a.position()?, &a.out)
            }),
            Tool::new(
                Verb::Analyze,
                "A Connect-N position: the board options and the columns played (4453)",
                |a: PositionArgs| print_analysis(&a.position()?, &a.out),
            ),
            Tool::new(Verb::Review, "A Connect-N game saved by play's save FILE (with the board options it was played on)", review),
        ]
    }
}
