//! `tabletop tune`: fits evaluation weights to self-play positions labelled by exact solves.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tabletop::games::reversi::eval::Weights;
use tabletop::games::reversi::tuning::{tune, SelfPlay};

/// Options of `tabletop tune reversi`.
#[derive(Args)]
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
}

/// Runs `tabletop tune reversi`.
pub fn reversi(args: ReversiArgs) -> Result<()> {
    if !(args.ridge.is_finite() && (0.0..=1e6).contains(&args.ridge)) {
        anyhow::bail!("--ridge {}: give a number from 0 to 1000000", args.ridge);
    }
    if args.games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    let weights: &'static Weights = match &args.weights {
        None => Weights::builtin(),
        Some(path) => {
            let text = tabletop::tools::read_capped(path, 1 << 20)?;
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
        ..SelfPlay::default()
    };
    let start = Instant::now();
    let bar = ProgressBar::new(args.games);
    bar.set_style(
        ProgressStyle::with_template("self-play {bar:40} {pos}/{len} games, {elapsed} (eta {eta})")
            .context("progress bar template")?,
    );
    let done = AtomicU64::new(0);
    let samples = settings.generate(&|| {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        bar.set_position(n);
    });
    bar.finish_and_clear();
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
        .context("the fitted weights do not form a valid file")?;
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
