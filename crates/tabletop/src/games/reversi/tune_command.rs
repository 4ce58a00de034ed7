//! `tabletop tune`: fits evaluation weights to self-play positions labelled by exact solves.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::tools::{bail, Context, ToolResult};
use crate::games::reversi::eval::Weights;
use crate::games::reversi::options::read_pattern_weights;
use crate::games::reversi::patterns::{PatternWeights, PHASES};
use crate::games::reversi::tuning::{
    fit_endcut, fit_patterns, fit_probcut, parse_positions, positions_bytes, tune, Labelled, PatternFit, SelfPlay,
};
use indicatif::{ProgressBar, ProgressStyle};

/// Options of `tabletop tune reversi`.
#[derive(clap::Args)]
pub struct ReversiArgs {
    /// Self-play games (one in ten is kept apart to measure the error).
    #[arg(long, default_value_t = 3000)]
    games: u64,
    /// Seed of the openings and random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Depth of the engine that plays the games.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=12))]
    depth: u32,
    /// Positions with at most this many empties are solved exactly.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(4..=22))]
    solve_empties: u32,
    /// Empties per phase (one row of weights each).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=61))]
    phase_width: u64,
    /// Ridge penalty, relative to the number of samples.
    #[arg(long, default_value_t = 0.001)]
    ridge: f64,
    /// Weight file of the engine that plays the games (default: the built-in weights).
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Where to write the weight file (nothing is written without it).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Fit the pattern evaluation (the engine's) instead of the ten features of `engine-v1`.
    #[arg(long)]
    patterns: bool,
    /// With --patterns: save the labelled self-play positions to this file.
    #[arg(long)]
    save_positions: Option<PathBuf>,
    /// With --patterns: fit these saved positions instead of playing games.
    #[arg(long)]
    load_positions: Option<PathBuf>,
    /// With --patterns: the L2 penalty per weight.
    #[arg(long, default_value_t = 10.0)]
    l2: f64,
    /// With --patterns: fit Multi-ProbCut on this many held-out positions with the fitted
    /// weights and write its parameters to --probcut-output.
    #[arg(long, default_value_t = 1200)]
    probcut_positions: u64,
    /// With --patterns: where to write the ProbCut parameters.
    #[arg(long)]
    probcut_output: Option<PathBuf>,
    /// With --patterns and --probcut-output: fit the endgame solver's ProbCut on this many
    /// held-out positions of 12-22 empties, each solved exactly (0: none).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    endcut_positions: u64,
    /// The games are played by the engine with the pattern weights of this file (full width,
    /// no ProbCut) instead of engine-v1's ten features.
    #[arg(long, value_name = "WEIGHTS")]
    play_patterns: Option<PathBuf>,
    /// Percent of each label before the solve point taken from the playing engine's own
    /// search value at --depth (the rest is the game's outcome).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=100))]
    search_label: u32,
    /// With --search-label: label with a separate search to this depth (with Multi-ProbCut)
    /// instead of the playing engine's own search at --depth; the games are still played at
    /// --depth.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=30))]
    label_depth: Option<u32>,
    /// With --patterns: refine the pattern weights of this file (fit the change from them;
    /// --l2 pulls toward them) instead of fitting from zero.
    #[arg(long, value_name = "WEIGHTS")]
    refine: Option<PathBuf>,
    /// With --patterns: conjugate-gradient iterations per phase.
    #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..=10000))]
    iterations: u64,
}

/// Runs `tabletop tune reversi`.
pub fn reversi(args: ReversiArgs) -> ToolResult {
    if !(args.ridge.is_finite() && (0.0..=1e6).contains(&args.ridge)) {
        bail!("--ridge {}: give a number from 0 to 1000000", args.ridge);
    }
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.endcut_positions > 0 && !(args.patterns && args.probcut_output.is_some()) {
        bail!("--endcut-positions needs --patterns and --probcut-output (the file the endgame rows are written to)");
    }
    if args.label_depth.is_some() && args.search_label == 0 {
        bail!("--label-depth needs --search-label (the share of each label the search gives)");
    }
    let weights: &'static Weights = match &args.weights {
        None => Weights::builtin(),
        Some(path) => {
            let text = crate::tools::read_capped(path, 1 << 20)?;
            let weights = Weights::parse(&text).with_context(|| format!("bad weight file {}", path.display()))?;
            // Lives until the program ends, like the built-in weights; the engine needs 'static.
            Box::leak(Box::new(weights))
        }
    };
    let settings = SelfPlay {
        weights,
        games: args.games,
        seed: args.seed,
        depth: args.depth,
        solve_empties: args.solve_empties,
        patterns: args.play_patterns.as_deref().map(|p| read_pattern_weights("--play-patterns", p)).transpose()?,
        search_label_percent: args.search_label,
        label_depth: args.label_depth,
        ..SelfPlay::default()
    };
    if args.patterns {
        return patterns(&args, settings);
    }
    let start = Instant::now();
    let samples = with_progress(settings.games, |on_game| settings.generate(on_game))?;
    let generate_seconds = start.elapsed().as_secs_f64();
    let comment = [
        "Reversi evaluation weights, hundredths of a disc, one row per phase (a range of empties).".to_string(),
        format!(
            "Fitted by: tabletop tune reversi --games {} --seed {} --depth {} --solve-empties {} --phase-width {} --ridge {}{}",
            args.games,
            args.seed,
            args.depth,
            args.solve_empties,
            args.phase_width,
            args.ridge,
            args.weights.as_ref().map(|p| format!(" --weights {}", p.display())).unwrap_or_default()
        ),
    ];
    let tuned = tune(&samples, args.phase_width as usize, args.ridge, &comment)
        .with_context(|| "the fitted weights do not form a valid file")?;
    println!(
        "{} games, {} positions in {:.1} s; held-out mean squared error (discs^2): built-in {:.1}, fitted {:.1}",
        args.games,
        samples.len(),
        generate_seconds,
        tuned.builtin_error,
        tuned.fitted_error
    );
    let text = tuned.text;
    match args.output {
        Some(path) => {
            std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
            println!("weights written to {} (rebuild to use them)", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// Runs `play` (self-play of `games` games, calling back after each) under a progress bar.
fn with_progress<T>(games: u64, play: impl FnOnce(&(dyn Fn() + Sync)) -> T) -> ToolResult<T> {
    let bar = ProgressBar::new(games);
    bar.set_style(
        ProgressStyle::with_template("self-play {bar:40} {pos}/{len} games, {elapsed} (eta {eta})")
            .with_context(|| "progress bar template")?,
    );
    let done = AtomicU64::new(0);
    let result = play(&|| bar.set_position(done.fetch_add(1, Ordering::Relaxed) + 1));
    bar.finish_and_clear();
    Ok(result)
}

/// Self-play with a progress bar.
fn play_games(settings: &SelfPlay) -> ToolResult<Vec<Labelled>> {
    with_progress(settings.games, |on_game| settings.generate_positions(on_game))
}

/// `tabletop tune reversi --patterns`: self-play (or saved positions), then the pattern fit.
fn patterns(args: &ReversiArgs, settings: SelfPlay) -> ToolResult {
    let start = Instant::now();
    let positions = match &args.load_positions {
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            parse_positions(&bytes).with_context(|| format!("bad positions file {}", path.display()))?
        }
        None => play_games(&settings)?,
    };
    println!("{} positions in {:.1} s", positions.len(), start.elapsed().as_secs_f64());
    if let Some(path) = &args.save_positions {
        std::fs::write(path, positions_bytes(&positions))
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("positions written to {}", path.display());
    }
    if !(args.l2.is_finite() && (0.0..=1e9).contains(&args.l2)) {
        bail!("--l2 {}: give a number from 0 to 1000000000", args.l2);
    }
    let fit = PatternFit {
        l2: args.l2,
        iterations: args.iterations as usize,
        prior: args.refine.as_deref().map(|p| read_pattern_weights("--refine", p)).transpose()?,
        ..PatternFit::default()
    };
    let start = Instant::now();
    let bar = ProgressBar::new(PHASES as u64);
    bar.set_style(
        ProgressStyle::with_template("fit {bar:40} {pos}/{len} phases, {elapsed}")
            .with_context(|| "progress bar template")?,
    );
    let (weights, report) = fit_patterns(&positions, &fit, &|| bar.inc(1));
    bar.finish_and_clear();
    println!("fitted in {:.1} s (l2 {}, {} iterations)", start.elapsed().as_secs_f64(), args.l2, args.iterations);
    println!("empties    fitted    train    test train-rms test-rms shipped-test-rms v1-test-rms (discs)");
    for r in &report {
        println!(
            "{:>2}-{:<2}  {:>9} {:>8} {:>7} {:>9.2} {:>8.2} {:>16.2} {:>11.2}",
            r.empties.start(),
            r.empties.end(),
            r.fitted,
            r.train,
            r.test,
            r.train_rms,
            r.test_rms,
            r.shipped_test_rms,
            r.v1_test_rms
        );
    }
    let bytes = weights.to_bytes();
    match &args.output {
        Some(path) => {
            std::fs::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
            println!("pattern weights written to {} ({} bytes; rebuild to use them)", path.display(), bytes.len());
        }
        None => println!("no --output: the weights were not written"),
    }
    if let Some(path) = &args.probcut_output {
        let start = Instant::now();
        let bar = ProgressBar::new(args.probcut_positions);
        bar.set_style(
            ProgressStyle::with_template("probcut {bar:40} {pos}/{len} positions, {elapsed} (eta {eta})")
                .with_context(|| "progress bar template")?,
        );
        // Lives until the program ends; the engine needs 'static weights.
        let weights: &'static PatternWeights = Box::leak(Box::new(weights));
        let mut cut = fit_probcut(&positions, args.probcut_positions as usize, weights, &|| bar.inc(1));
        bar.finish_and_clear();
        if args.endcut_positions > 0 {
            let bar = ProgressBar::new(args.endcut_positions);
            bar.set_style(
                ProgressStyle::with_template(
                    "endgame probcut {bar:40} {pos}/{len} positions solved, {elapsed} (eta {eta})",
                )
                .with_context(|| "progress bar template")?,
            );
            fit_endcut(&mut cut, &positions, args.endcut_positions as usize, weights, &|| bar.inc(1));
            bar.finish_and_clear();
        }
        let comment = [format!(
            "Multi-ProbCut parameters fitted by tabletop tune reversi --patterns (--probcut-positions {} --endcut-positions {}) in {:.0} s.",
            args.probcut_positions,
            args.endcut_positions,
            start.elapsed().as_secs_f64()
        )];
        std::fs::write(path, cut.to_text(&comment)).with_context(|| format!("cannot write {}", path.display()))?;
        println!("ProbCut parameters written to {} in {:.1} s", path.display(), start.elapsed().as_secs_f64());
    }
    Ok(())
}
