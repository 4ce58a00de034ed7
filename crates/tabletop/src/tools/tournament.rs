//! `tabletop tournament GAME` and `tabletop openings GAME` for every two-player game: the
//! options, the progress line, the files and the printed standings. Each game lists the two
//! commands with its own start position, player constructor and game writer (the same as its
//! `match`); the tournament itself is [`crate::tournament`].

use std::io::Write;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{bail, parse_duration_arg, read_capped, tool_error, Context, ToolResult as Result};
use crate::arena::Finished;
use crate::clock::TimeControl;
use crate::stats::Sprt;
use crate::tournament::openings::{balanced, read_positions, Balance, BalancedSearch};
use crate::tournament::report::html;
use crate::tournament::run::{play_tournament, Event, GameInfo, Tournament};
use crate::tournament::schedule::{Entrant, Format, Settings};
use crate::tournament::{Openings, ResultsFile, Standings};
use crate::{AnalysisSettings, Analyze, Game, Player, PlayerSpec};

/// The largest openings file read.
const OPENINGS_MAX_BYTES: u64 = 16 << 20;

/// The options of `tabletop tournament GAME`.
#[derive(Args, Clone, Debug)]
pub struct TournamentOptions {
    /// A player: `NAME=SPEC` (repeat, at least twice; names unique), e.g. `strong=engine:level=8`,
    /// `bot='external:cmd="python3 bot.py"'`.
    #[arg(long = "player", value_name = "NAME=SPEC", required = true)]
    pub players: Vec<String>,
    /// `round-robin` (everyone against everyone) or `gauntlet` (the first player against each other).
    #[arg(long, default_value = "round-robin")]
    pub format: Format,
    /// How many times each pairing is played.
    #[arg(long, default_value_t = 1)]
    pub rounds: usize,
    /// Games per pairing per round, even: each opening is played twice, the seats swapped
    /// (default 2; with --sprt, 20000: the most it plays before stopping undecided).
    #[arg(long)]
    pub games_per_pairing: Option<usize>,
    /// Games played at once (threads; every game has fresh players, and results do not depend on it).
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Start positions, one a line in the game's notation (`#` comments and blank lines
    /// skipped; `tabletop openings GAME` writes such files), used in turn. Default: random
    /// openings from the seed.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Fewest random opening plies (without --openings; default depends on the game).
    #[arg(long)]
    pub opening_min: Option<usize>,
    /// Most random opening plies (without --openings; default depends on the game).
    #[arg(long)]
    pub opening_max: Option<usize>,
    /// Seed of the openings and of every game's players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A game clock for every player, e.g. `1+0.1` (a minute plus 0.1 s a move), `0:30+0.2` or
    /// `10+30x5` (byo-yomi); a player's own `clock=` setting (`new=engine:clock=2+0.05`)
    /// overrides it. Engines then play by the clock, and a player whose time runs out loses
    /// the game (not a forfeit: it does not count towards --max-failures).
    #[arg(long, value_name = "CONTROL")]
    pub tc: Option<TimeControl>,
    /// Two players only: stop when the sequential probability ratio test decides, e.g.
    /// `elo0=0,elo1=5,alpha=0.05,beta=0.05` (on the pentanomial counts of game pairs).
    #[arg(long, value_name = "elo0=E0,elo1=E1[,alpha=A,beta=B]")]
    pub sprt: Option<Sprt>,
    /// Withdraw a player that forfeits this many games in a row (crashes, time-outs, illegal
    /// moves); its remaining games are not played (0: never withdraw).
    #[arg(long, default_value_t = 3)]
    pub max_failures: usize,
    /// Append every game to FILE as it is committed (JSON lines, flushed to the disk); when FILE
    /// holds games of the same tournament, they are kept and only the rest are played, so the
    /// same command run again after a crash or a kill continues where it stopped.
    #[arg(long, visible_alias = "resume", value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// Print one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Write every game to FILE (GGF for Reversi when FILE ends .ggf; otherwise the saved-game
    /// text with the players, result, reason, opening and move times as # comments).
    #[arg(long, value_name = "FILE")]
    pub games_out: Option<PathBuf>,
    /// Write a standalone HTML report (standings, crosstable, games) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// Reads `NAME=SPEC`.
fn entrant(text: &str) -> Result<(String, PlayerSpec)> {
    let bad = || tool_error!("--player {text:?}: expected NAME=SPEC, e.g. strong=engine:level=8");
    let (name, spec) = text.split_once('=').ok_or_else(bad)?;
    if name.contains(':') || name.trim().is_empty() {
        return Err(bad());
    }
    let spec: PlayerSpec = spec.trim().parse().with_context(|| format!("--player {text:?}"))?;
    Ok((name.trim().to_string(), spec))
}

/// Creates `path` for writing, with the error message every option uses.
fn create(path: &PathBuf) -> Result<std::io::BufWriter<std::fs::File>> {
    Ok(std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?,
    ))
}

/// Runs `tabletop tournament GAME` from `start`: players built by `make` (a spec and a seed),
/// each game written by `write` (to `--games-out` and the results file). `openings` is the
/// game's default range of random opening plies. Returns the final standings.
pub fn run_tournament_cli<G: Game>(
    start: &G,
    options: &TournamentOptions,
    openings: RangeInclusive<usize>,
    make: impl Fn(&PlayerSpec, u64) -> Result<Box<dyn Player<G>>> + Sync,
    write: impl Fn(&Finished<G>, &GameInfo) -> String + Sync,
) -> Result<Standings> {
    run_tournament_with(start, options, || standard_openings(start, options, openings), make, write)
}

/// The openings of `--openings FILE` (positions in the game's notation, of `start`'s variant)
/// or, without it, random openings of `plies` random plies (or `--opening-min/--opening-max`).
pub fn standard_openings<G: Game>(
    start: &G,
    options: &TournamentOptions,
    plies: RangeInclusive<usize>,
) -> Result<Openings<G>> {
    Ok(match &options.openings {
        Some(path) => {
            if options.opening_min.is_some() || options.opening_max.is_some() {
                bail!("--opening-min and --opening-max are for random openings, not with --openings");
            }
            let text = read_openings_file(path)?;
            Openings::Positions(read_positions::<G>(&start.variant(), &text).with_context(|| path.display())?)
        }
        None => {
            let (min, max) = (options.opening_min, options.opening_max);
            let settings = crate::arena::MatchSettings::new(1, options.seed, min, max, plies)
                .map_err(|e| tool_error!("--opening-min/--opening-max: {e}"))?;
            Openings::Random { start: start.clone(), plies: settings.opening_plies }
        }
    })
}

/// The text of an openings file (size-capped).
pub fn read_openings_file(path: &std::path::Path) -> Result<String> {
    read_capped(path, OPENINGS_MAX_BYTES)
}

/// [`run_tournament_cli`] with the game's own openings: `openings` makes them (after the
/// players are checked), for a game whose openings are not positions of one variant or random
/// plies (a game whose start is dealt from a seed, say).
pub fn run_tournament_with<G: Game>(
    start: &G,
    options: &TournamentOptions,
    openings: impl FnOnce() -> Result<Openings<G>>,
    make: impl Fn(&PlayerSpec, u64) -> Result<Box<dyn Player<G>>> + Sync,
    write: impl Fn(&Finished<G>, &GameInfo) -> String + Sync,
) -> Result<Standings> {
    if start.num_seats() != 2 {
        bail!("a tournament is for two-player games");
    }
    let entrants = options.players.iter().map(|p| entrant(p)).collect::<Result<Vec<_>>>()?;
    // Each player's clock: its own `clock=`, else --tc, else none; the spec without it builds it.
    let mut controls = Vec::new();
    let mut specs = Vec::new();
    for (name, spec) in &entrants {
        let mut spec = spec.clone();
        let own = spec.take_clock().map_err(|e| tool_error!("--player {name}={spec}: {e}"))?;
        controls.push(own.or(options.tc).unwrap_or(TimeControl::Unlimited));
        specs.push(spec);
    }
    // Every spec is checked before the first game (building a player starts no program).
    for ((name, _), spec) in entrants.iter().zip(&specs) {
        make(spec, 0).with_context(|| format!("player {name}"))?;
    }
    if !(1..=256).contains(&options.concurrency) {
        bail!("--concurrency {}: give 1 to 256", options.concurrency);
    }
    let openings = openings()?;
    let settings = Settings {
        game: G::NAME.to_string(),
        variant: format!("{:?} from {:?}", start.variant(), start.notation()),
        players: entrants.iter().map(|(name, spec)| Entrant { name: name.clone(), spec: spec.to_string() }).collect(),
        format: options.format,
        rounds: options.rounds,
        games_per_pairing: options.games_per_pairing.unwrap_or(if options.sprt.is_some() { 20_000 } else { 2 }),
        seed: options.seed,
        openings: openings.describe(),
        sprt: options.sprt,
        max_failures: options.max_failures,
        tc: options.tc.map(|tc| tc.to_string()),
    };
    settings.check().map_err(super::invalid)?;
    let (mut results_file, done) = match &options.results {
        Some(path) => {
            let (file, done) = ResultsFile::open(path, &settings).map_err(super::invalid)?;
            (Some(file), done)
        }
        None => (None, Vec::new()),
    };
    // The games file always holds exactly the games committed: those resumed, then each new one.
    let mut games_out = match &options.games_out {
        Some(path) => {
            let mut file = create(path)?;
            for game in &done {
                file.write_all(game.text.as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
            }
            file.flush().with_context(|| format!("cannot write {}", path.display()))?;
            Some(file)
        }
        None => None,
    };
    let names: Vec<String> = settings.players.iter().map(|p| p.name.clone()).collect();
    let bar = ProgressBar::new(settings.schedule().len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    if done.is_empty() {
        bar.set_message("");
    } else {
        bar.set_position(done.len() as u64);
        bar.set_message(format!("({} resumed)", done.len()));
        bar.reset_eta();
    }
    let say = |line: &str| {
        // One JSON object on standard output with --json: the notes go to standard error.
        bar.suspend(|| if options.json { eprintln!("{line}") } else { println!("{line}") });
    };
    if !done.is_empty() {
        say(&format!("resuming: {} games already played", done.len()));
    }
    let build = |p: usize, seed: u64| make(&specs[p], seed).map_err(|e| e.to_string());
    let tournament = Tournament {
        settings: &settings,
        openings: &openings,
        make: &build,
        write: &write,
        concurrency: options.concurrency,
        controls: &controls,
    };
    let played = play_tournament(&tournament, done, &mut |event| {
        match event {
            Event::Game { result, committed, expected, points } => {
                if let Some(file) = results_file.as_mut() {
                    file.append(result).map_err(|e| e.to_string())?;
                }
                if let (Some(file), Some(path)) = (games_out.as_mut(), &options.games_out) {
                    file.write_all(result.text.as_bytes())
                        .and_then(|()| file.flush())
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                }
                if let Some(seat) = result.forfeit {
                    say(&format!(
                        "game {}: {}",
                        result.index + 1,
                        result.reason.replacen(
                            &result.names[seat],
                            &format!("{} (seat {})", result.names[seat], seat + 1),
                            1
                        )
                    ));
                }
                let leader = (0..points.len()).max_by(|&a, &b| points[a].total_cmp(&points[b]).then(b.cmp(&a)));
                if let Some(leader) = leader {
                    bar.set_message(format!("leader {} {}", names[leader], points[leader]));
                }
                bar.set_length(expected as u64);
                bar.set_position(committed as u64);
            }
            Event::Withdrawn { reason, .. } => say(reason),
        }
        Ok(())
    })
    .map_err(super::invalid)?;
    bar.finish_and_clear();
    let standings = Standings::new(&settings, &played.results, &played.withdrawn);
    if let Some(path) = &options.html {
        std::fs::write(path, html(&settings, &standings, &played.results))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if options.json {
        let out = serde_json::json!({
            "game": G::NAME,
            "settings": settings,
            "games": standings.games,
            "standings": standings.rows,
            "crosstable": standings.crosstable.iter().map(|row| row.iter().map(|&(points, games)| serde_json::json!({"points": points, "games": games})).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "pairs": standings.pairs,
        });
        println!("{out}");
    } else {
        println!("{} games of {} ({}, {} players)", standings.games, G::NAME, settings.format, names.len());
        print!("{}", standings.table());
        println!();
        print!("{}", standings.crosstable_text());
        let pairs = standings.pairs_text();
        if !pairs.is_empty() {
            println!();
            print!("{pairs}");
        }
        for reason in played.withdrawn.iter().flatten() {
            println!("{reason}");
        }
    }
    Ok(standings)
}

/// The options of `tabletop openings GAME`.
#[derive(Args, Clone, Debug)]
pub struct OpeningsOptions {
    /// How many openings.
    #[arg(long)]
    pub count: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The number of random plies, `A-B` or `N` (default depends on the game).
    #[arg(long, value_name = "A-B")]
    pub plies: Option<String>,
    /// The analysis time that values each candidate (a planned budget: the values do not
    /// depend on the machine's speed).
    #[arg(long, default_value = "100ms", value_parser = parse_duration_arg)]
    pub time: Duration,
    /// Fix the analysis' search depth instead.
    #[arg(long)]
    pub depth: Option<u32>,
    /// The largest absolute estimate kept, in the analysis' units (default depends on the game).
    #[arg(long, allow_hyphen_values = true)]
    pub max_estimate: Option<i32>,
    /// The largest absolute exact value kept (default depends on the game; 0: proved draws only).
    #[arg(long, allow_hyphen_values = true)]
    pub max_exact: Option<i32>,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Reads `A-B` or `N`.
fn plies_range(text: &str) -> Result<RangeInclusive<usize>> {
    let bad = || tool_error!("--plies {text:?}: expected A-B or N, e.g. 4-8");
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let (a, b): (usize, usize) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a > b || b > 1000 {
        return Err(bad());
    }
    Ok(a..=b)
}

/// Runs `tabletop openings GAME` from `start`: `plies` random plies by default, kept when the
/// analysis values them within `balance`, duplicates judged by `key` (the game's least image
/// under its symmetries, or the position itself).
pub fn run_openings_cli<G: Analyze>(
    start: &G,
    options: &OpeningsOptions,
    plies: RangeInclusive<usize>,
    balance: Balance,
    key: fn(&G) -> u64,
) -> Result<()> {
    if options.count == 0 || options.count > 1_000_000 {
        bail!("--count {}: give 1 to 1000000", options.count);
    }
    let plies = match &options.plies {
        Some(text) => plies_range(text)?,
        None => plies,
    };
    let balance = Balance {
        estimate: options.max_estimate.unwrap_or(balance.estimate).abs(),
        exact: options.max_exact.unwrap_or(balance.exact).abs(),
    };
    let analysis = match options.depth {
        Some(depth) => AnalysisSettings { depth: Some(depth), time: options.time },
        None => AnalysisSettings::time(options.time),
    };
    let search = BalancedSearch {
        count: options.count,
        seed: options.seed,
        plies: plies.clone(),
        analysis,
        balance,
        max_tries: options.count.saturating_mul(200).max(1000),
    };
    let bar = ProgressBar::new(options.count as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} openings {msg} [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    let found = balanced(start, &search, &key, &mut |found, tries| {
        bar.set_position(found as u64);
        bar.set_message(format!("({tries} tried)"));
    });
    bar.finish_and_clear();
    let mut text = format!(
        "# {} balanced openings of {} ({:?}): seed {}, {}-{} random plies, the best move's value within {} (estimates) or {} (exact) after {}\n",
        found.len(),
        G::NAME,
        start.variant(),
        options.seed,
        plies.start(),
        plies.end(),
        balance.estimate,
        balance.exact,
        match options.depth {
            Some(d) => format!("a depth-{d} analysis"),
            None => format!("a {} ms analysis", options.time.as_millis()),
        }
    );
    for position in &found {
        text.push_str(&position.notation());
        text.push('\n');
    }
    match &options.out {
        Some(path) => std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
        }
    }
    if found.len() < options.count {
        let line = format!(
            "only {} of {} openings found in {} tries: allow larger values (--max-estimate, --max-exact) or other plies",
            found.len(),
            options.count,
            search.max_tries
        );
        return Err(super::ToolError::Failed(line));
    }
    Ok(())
}
