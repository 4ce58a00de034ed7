//! `tabletop review GAME --load FILE`: a saved game reviewed move by move (see
//! [`crate::review`]), as a table with marks or as JSON. Each game reads its own saved-game
//! format and board options (in its folder) and calls [`print_review`].

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{parse_duration_arg, read_capped, ToolResult, SAVE_MAX_BYTES};
use crate::record::ClockLog;
use crate::review::{GameReview, Mark, Review, ReviewSettings};
use crate::Record;

/// Options every game's `review` takes.
#[derive(Args, Clone, Debug)]
pub struct ReviewOptions {
    /// The saved game (as `save FILE` writes it in `tabletop play`).
    #[arg(long, value_name = "FILE")]
    pub load: PathBuf,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The time the analysis of each position may take (e.g. 200ms, 1s).
    #[arg(long, default_value = "500ms", value_parser = parse_duration_arg)]
    pub time: Duration,
    /// The depth of the analysis' estimates, fixed (plies; default: picked from --time).
    #[arg(long)]
    pub depth: Option<u32>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

impl ReviewOptions {
    /// The analysis settings.
    pub fn settings(&self) -> ReviewSettings {
        ReviewSettings { time: self.time, depth: self.depth }
    }

    /// The saved file's text (size-capped).
    pub fn text(&self) -> ToolResult<String> {
        read_capped(&self.load, SAVE_MAX_BYTES)
    }
}

/// Reads the game saved at `--load` (as `save FILE` writes it, on a board of `variant`) and
/// reviews it with [`print_review`]: the whole `tabletop review GAME` of a game saved as a
/// [`Record`]'s text.
pub fn review_saved<G: Review>(variant: &G::Variant, seats: &[String], options: &ReviewOptions) -> ToolResult {
    use super::Context as _;
    let text = options.text()?;
    let (record, clocks) = Record::<G>::from_text_timed(variant, &text)
        .with_context(|| format!("cannot load {}", options.load.display()))?;
    print_review_timed(&record, clocks.as_ref(), seats, options, crate::review::review_range::<G>)
}

/// Reviews `record` with a progress bar on standard error (unless `--quiet` or `--json` to a
/// pipe) and prints the review: a table with the moves' marks and a summary per seat, or JSON
/// (`{"game", "seats", ...}` and [`GameReview`]'s fields).
pub fn print_review<G: Review>(record: &Record<G>, seats: &[String], options: &ReviewOptions) -> ToolResult {
    print_review_by(record, seats, options, crate::review::review_range::<G>)
}

/// [`print_review`] with the game's review function (a game's [`Adapter::REVIEW`](crate::session::Adapter::REVIEW)).
pub fn print_review_by<G: crate::Game>(
    record: &Record<G>,
    seats: &[String],
    options: &ReviewOptions,
    review_range: crate::session::ReviewRange<G>,
) -> ToolResult {
    print_review_timed(record, None, seats, options, review_range)
}

/// [`print_review_by`] of a timed game: each move's time and the mover's clock after it in a
/// `time` column (and `clock` in the JSON: the controls and every move's `used_ms`,
/// `remaining_ms`).
pub fn print_review_timed<G: crate::Game>(
    record: &Record<G>,
    clocks: Option<&ClockLog>,
    seats: &[String],
    options: &ReviewOptions,
    review_range: crate::session::ReviewRange<G>,
) -> ToolResult {
    let total = record.moves().len() as u64;
    let bar = if options.quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} positions [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    let plies = record.moves().len();
    let result = review_range(record, 0, plies, options.settings(), &mut |done, _| bar.set_position(done as u64));
    bar.finish_and_clear();
    if options.json {
        let mut json = serde_json::to_value(&result).map_err(super::invalid)?;
        json["game"] = G::NAME.into();
        json["seats"] = seats.into();
        if let Some(clocks) = clocks {
            let controls: Vec<String> = clocks.controls.iter().map(|c| c.to_string()).collect();
            json["clock"] = serde_json::json!({"controls": controls, "moves": clocks.moves});
        }
        println!("{json}");
        return Ok(());
    }
    let mut text = table(&result, seats);
    if let Some(clocks) = clocks {
        text = with_times(&text, result.moves.iter().map(|m| m.ply), clocks);
    }
    print!("{text}");
    Ok(())
}

/// The review's table with a `time` column: each move's seconds and the mover's clock after
/// it (`1.2 s, 4:58 left`), added to the header and the move lines.
fn with_times(table: &str, plies: impl Iterator<Item = usize>, clocks: &ClockLog) -> String {
    let mut lines = table.lines();
    let mut out = String::new();
    if let Some(header) = lines.next() {
        out.push_str(&format!("{header}  time\n"));
    }
    for ply in plies {
        let Some(line) = lines.next() else { break };
        let time = clocks.moves.get(ply).copied().flatten().map_or(String::new(), |t| {
            let used = format!("{:.1} s", t.used_ms as f64 / 1000.0);
            match t.remaining() {
                Some(left) => format!("{used}, {} left", super::play::clock_text(left)),
                None => used,
            }
        });
        out.push_str(&format!("{line}  {time}\n"));
    }
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The review as a readable table: one line per move, then the marks per seat and the
/// thresholds.
pub fn table(result: &GameReview, seats: &[String]) -> String {
    let name = |i: usize| seats.get(i).cloned().unwrap_or_else(|| format!("Player {}", i + 1));
    let rows: Vec<[String; 7]> = result
        .moves
        .iter()
        .map(|m| {
            let mark = m.mark.map_or(String::new(), |k| format!("{} {}", k.symbol(), k.word()));
            [
                (m.ply + 1).to_string(),
                name(m.mover),
                format!("{}{}", m.played, m.mark.map_or("", |k| k.symbol())),
                m.best.clone().unwrap_or_default(),
                m.value_before.clone().unwrap_or_else(|| "-".into()),
                m.value_after.clone().unwrap_or_else(|| "-".into()),
                match &m.loss_text {
                    Some(t) if mark.is_empty() => t.clone(),
                    Some(t) => format!("{t}  {mark}"),
                    None => "-".into(),
                },
            ]
        })
        .collect();
    let header = ["#", "player", "move", "best", "value before", "value after", "loss"].map(String::from);
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |row: &[String; 7]| {
        let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("{}\n", cells.join("  ").trim_end())
    };
    let mut out = line(&header);
    for row in &rows {
        out.push_str(&line(row));
    }
    let movers: std::collections::BTreeSet<usize> = result.moves.iter().map(|m| m.mover).collect();
    for seat in movers {
        let counts: Vec<String> = [Mark::Inaccuracy, Mark::Mistake, Mark::Blunder]
            .iter()
            .map(|&k| {
                let n = result.count(seat, k);
                let word = k.word();
                match (n, word.strip_suffix('y')) {
                    (1, _) => format!("1 {word}"),
                    (_, Some(stem)) => format!("{n} {stem}ies"),
                    _ => format!("{n} {word}s"),
                }
            })
            .collect();
        out.push_str(&format!("{}: {}.\n", name(seat), counts.join(", ")));
    }
    out.push_str(&format!("Marks ({}): {}.\n", result.unit, result.thresholds));
    out
}
