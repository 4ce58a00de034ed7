//! Front-end helpers shared by every game: reading lines, colour, matches with a progress bar.

use std::io::{BufRead, IsTerminal, Write};

use crate::arena::{run_match as run_arena, Finished, MatchSettings, MoveTimes, Tally};
use crate::clock::TimeControl;
use crate::tools::{bail, tool_error, Context, ToolResult as Result};
use crate::{Game, Player, PlayerSpec};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

/// Reads commands line by line from standard input, terminal or not, so games can be scripted.
pub struct Input {
    lines: std::io::Lines<std::io::StdinLock<'static>>,
}

impl Default for Input {
    fn default() -> Self {
        Input::new()
    }
}

impl Input {
    /// Reads from standard input.
    pub fn new() -> Self {
        Input { lines: std::io::stdin().lock().lines() }
    }

    /// Prints `prompt` and reads one trimmed line; `None` at the end of input.
    pub fn ask(&mut self, prompt: &str) -> Option<String> {
        print!("{prompt}");
        let _ = std::io::stdout().flush();
        match self.lines.next() {
            Some(Ok(line)) => {
                if !std::io::stdin().is_terminal() {
                    // Echo scripted input so a transcript reads like a session at the keyboard.
                    println!("{line}");
                }
                Some(line.trim().to_string())
            }
            _ => {
                println!();
                None
            }
        }
    }
}

/// Should output be coloured? Only on a terminal, without `--no-color` or `NO_COLOR`.
pub fn use_color(no_color: bool) -> bool {
    !no_color && std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

/// Wraps `text` in an ANSI colour (a 256-colour code) when `color` is on.
pub fn paint(text: &str, code: u8, color: bool) -> String {
    if color {
        format!("\x1b[1;38;5;{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The options every `tabletop match GAME` takes.
#[derive(Args, Clone, Debug)]
pub struct MatchOptions {
    /// Player A then player B (repeat twice), e.g. `engine:time=100ms`, `engine:level=club`, `classic:depth=5` or
    /// `external:cmd="python3 my_bot.py"` (a program speaking docs/PROTOCOL.md).
    #[arg(long = "player", value_name = "SPEC", num_args = 1)]
    pub players: Vec<PlayerSpec>,
    /// Number of games (pairs share an opening with the seats swapped).
    #[arg(long, default_value_t = 20)]
    pub games: usize,
    /// Seed for the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fewest random opening plies (default depends on the game).
    #[arg(long)]
    pub opening_min: Option<usize>,
    /// Most random opening plies (default depends on the game).
    #[arg(long)]
    pub opening_max: Option<usize>,
    /// A game clock for both players, e.g. `10+0.1` (10 minutes plus 0.1 s a move), `0:30+0.2`,
    /// `10+30x5` (byo-yomi) or `none`; a player's own `clock=` setting (`engine:clock=5+3`)
    /// overrides it. Engines then play by the clock, and a player whose time runs out loses.
    #[arg(long, value_name = "CONTROL")]
    pub tc: Option<TimeControl>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write every game played to FILE (GGF, one game a line, for Reversi when FILE ends .ggf;
    /// otherwise the saved-game text of each game, separated by blank lines).
    #[arg(long, value_name = "FILE")]
    pub games_out: Option<std::path::PathBuf>,
}

impl MatchOptions {
    /// The two player specs (defaulting to `engine` vs `random`), each without its `clock=`
    /// setting, and each player's time control: its own `clock=`, else `--tc`, else none.
    pub fn specs(&self) -> Result<([PlayerSpec; 2], [TimeControl; 2])> {
        let mut specs = match self.players.as_slice() {
            [] => [PlayerSpec::named("engine"), PlayerSpec::named("random")],
            [a] => [a.clone(), PlayerSpec::named("random")],
            [a, b] => [a.clone(), b.clone()],
            _ => bail!("a match takes at most two --player options"),
        };
        let mut controls = [TimeControl::Unlimited; 2];
        for (spec, control) in specs.iter_mut().zip(&mut controls) {
            let own = spec.take_clock().map_err(|e| tool_error!("--player {spec}: {e}"))?;
            *control = own.or(self.tc).unwrap_or(TimeControl::Unlimited);
        }
        Ok((specs, controls))
    }

    /// The checked match settings (`default_openings`: the game's range of opening plies).
    pub fn settings(&self, default_openings: std::ops::RangeInclusive<usize>) -> Result<MatchSettings> {
        use crate::arena::MatchSettingsError as E;
        MatchSettings::new(self.games, self.seed, self.opening_min, self.opening_max, default_openings).map_err(|e| {
            match e {
                E::NoGames => tool_error!("--games must be at least 1"),
                E::Openings(min, max) => tool_error!("--opening-min {min} is more than --opening-max {max}"),
                E::TooLong(max) => tool_error!("--opening-max {max}: at most 1000 plies"),
            }
        })
    }
}

/// Runs `tabletop match GAME` from `start`: the two players `make` builds from the specs
/// (with each player's index, 0 or 1), a progress bar, and the summary (a table, or one JSON
/// object). `openings` is the game's default range of random opening plies.
pub fn run_match_cli<G: Game>(
    start: &G,
    options: &MatchOptions,
    openings: std::ops::RangeInclusive<usize>,
    make: impl Fn(&PlayerSpec, u64) -> Result<Box<dyn Player<G>>>,
) -> Result<Tally> {
    run_match_cli_with(start, options, openings, make, |finished, _| format!("{}\n", finished.to_text()))
}

/// [`run_match_cli`], writing each game to `--games-out` as `write_game` formats it (given the
/// finished game and the specs in seat order).
pub fn run_match_cli_with<G: Game>(
    start: &G,
    options: &MatchOptions,
    openings: std::ops::RangeInclusive<usize>,
    make: impl Fn(&PlayerSpec, u64) -> Result<Box<dyn Player<G>>>,
    write_game: impl Fn(&Finished<G>, [&str; 2]) -> String,
) -> Result<Tally> {
    let (specs, controls) = options.specs()?;
    let (mut a, mut b) = (make(&specs[0], 0)?, make(&specs[1], 1)?);
    let settings = options.settings(openings)?.with_controls(controls);
    let names = [specs[0].to_string(), specs[1].to_string()];
    let bar = ProgressBar::new(settings.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {msg} [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    let mut out = match &options.games_out {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
        )),
        None => None,
    };
    let mut played = 0usize;
    let mut write_error = None;
    // The time A and B took per move, over the whole match.
    let mut times = [MoveTimes::default(); 2];
    // The share of its clock each player used, summed over its games.
    let mut clock_used = [(0.0f64, 0u64); 2];
    let tally = run_arena(start, a.as_mut(), b.as_mut(), &settings, |finished, t| {
        // Game 2i has A in seat 0, game 2i + 1 has B there (see arena::run_match).
        let a_first = played.is_multiple_of(2);
        for (seat, seat_times) in finished.times.iter().enumerate() {
            let player = usize::from((seat == 0) != a_first);
            times[player].merge(seat_times);
            if let Some(share) = finished.clock_share(seat) {
                clock_used[player].0 += share;
                clock_used[player].1 += 1;
            }
        }
        if let Some(seat) = finished.out_of_time {
            let label = if (seat.index() == 0) == a_first { "A" } else { "B" };
            let name = if label == "A" { &names[0] } else { &names[1] };
            let line = format!("game {}: {label} ({name}, seat {}) lost on time", played + 1, seat.index() + 1);
            bar.suspend(|| if options.json { eprintln!("{line}") } else { println!("{line}") });
        }
        if let Some((seat, reason)) = &finished.forfeit {
            let label = if (seat.index() == 0) == a_first { "A" } else { "B" };
            let name = if label == "A" { &names[0] } else { &names[1] };
            let line = format!("game {}: {label} ({name}, seat {}) forfeits: {reason}", played + 1, seat.index() + 1);
            // One JSON object on standard output with --json: the line goes to standard error.
            bar.suspend(|| if options.json { eprintln!("{line}") } else { println!("{line}") });
        }
        if let (Some(file), None) = (out.as_mut(), write_error.as_ref()) {
            let seats = if a_first { [&names[0], &names[1]] } else { [&names[1], &names[0]] };
            let text = write_game(finished, [seats[0].as_str(), seats[1].as_str()]);
            if let Err(e) = file.write_all(text.as_bytes()).and_then(|_| file.flush()) {
                write_error = Some(e);
            }
        }
        played += 1;
        bar.set_message(format!("A {} - B {} - draws {}", t.wins[0], t.wins[1], t.draws));
        bar.inc(1);
    });
    bar.finish_and_clear();
    if let (Some(e), Some(path)) = (write_error, &options.games_out) {
        bail!("cannot write {}: {e}", path.display());
    }
    if options.json {
        let out = serde_json::json!({
            "game": G::NAME,
            "players": names,
            "games": tally.games(),
            "wins": tally.wins,
            "draws": tally.draws,
            "forfeits": tally.forfeits,
            "moves": times.map(|t| t.moves),
            "mean_ms_per_move": times.map(|t| t.mean().as_secs_f64() * 1000.0),
            "max_ms_per_move": times.map(|t| t.max.as_secs_f64() * 1000.0),
            "clocks": controls.map(|c| c.to_string()),
            "time_losses": tally.time_losses,
            "mean_clock_share": clock_used.map(|(sum, n)| (n > 0).then(|| sum / n as f64)),
        });
        println!("{out}");
    } else {
        println!("{} games of {}", tally.games(), G::NAME);
        println!("  A {:<30} wins {:>5}  score {:5.1}%", names[0], tally.wins[0], 100.0 * tally.score(0));
        println!("  B {:<30} wins {:>5}  score {:5.1}%", names[1], tally.wins[1], 100.0 * tally.score(1));
        println!("  draws {}", tally.draws);
        for (label, t) in ["A", "B"].iter().zip(&times) {
            println!(
                "  {label} time per move: mean {:.1} ms, max {:.1} ms ({} moves)",
                t.mean().as_secs_f64() * 1000.0,
                t.max.as_secs_f64() * 1000.0,
                t.moves
            );
        }
        for (label, (control, (sum, n))) in ["A", "B"].iter().zip(controls.iter().zip(clock_used)) {
            if n > 0 {
                let share = 100.0 * sum / n as f64;
                println!("  {label} clock {control}: {share:.1}% of its time used on average");
            }
        }
        if tally.time_losses != [0, 0] {
            println!("  games lost on time: A {}, B {}", tally.time_losses[0], tally.time_losses[1]);
        }
        if tally.forfeits != [0, 0] {
            println!("  games lost by forfeit: A {}, B {}", tally.forfeits[0], tally.forfeits[1]);
        }
    }
    Ok(tally)
}
