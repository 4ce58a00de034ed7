//! `tabletop tournament mathable` and `tabletop openings mathable`: the shared tournament
//! ([`crate::tools::tournament`]) with Mathable's settings, players and openings. A tournament
//! is two-player (the shared code pairs two seats); an opening is a deal (the start with its own
//! bag seed), dealt afresh per opening from the tournament's seed or read from a file, each
//! played twice with the seats swapped. docs/TOURNAMENTS.md, "Mathable", says more.

use std::io::Write;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

use super::matches::Bounded;
use super::openings::{balanced_deals, deal, describe, read_openings};
use super::options::GameOptions;
use super::players::from_spec;
use super::rules::Mathable;
use super::settings::Settings;
use super::terminal::bot_view;
use crate::tools::tournament::{read_openings_file, run_tournament_with, TournamentOptions};
use crate::tools::{bail, invalid, Context, ToolError, ToolResult};
use crate::arena::Finished;
use crate::tournament::run::{write_saved_game, GameInfo};
use crate::tournament::Openings;
use crate::{Game, Player, PlayerSpec, Seat};

/// Options of `tabletop tournament mathable`: the game options and the shared tournament's,
/// with `--openings` described for deals and the random plies' options hidden.
pub struct TournamentArgs {
    /// The game's settings (two players).
    pub game: GameOptions,
    /// The tournament's options.
    pub options: TournamentOptions,
}

/// The shared options' help, told what an opening is here.
fn deals_help(command: clap::Command) -> clap::Command {
    command
        .mut_arg("openings", |arg| {
            arg.help(
                "Deals, one a line: `seed N` (these settings with the bag seed N) or a start's save JSON on one \
                 line (as `tabletop openings mathable` writes), used in turn, each played twice with the seats \
                 swapped; `#` comments and blank lines skipped. Default: a fresh deal per opening from --seed",
            )
        })
        .mut_arg("opening_min", |arg| arg.hide(true))
        .mut_arg("opening_max", |arg| arg.hide(true))
}

impl clap::FromArgMatches for TournamentArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(TournamentArgs {
            game: GameOptions::from_arg_matches(matches)?,
            options: TournamentOptions::from_arg_matches(matches)?,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.game.update_from_arg_matches(matches)?;
        self.options.update_from_arg_matches(matches)
    }
}

impl clap::Args for TournamentArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        deals_help(TournamentOptions::augment_args(GameOptions::augment_args(command)))
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        deals_help(TournamentOptions::augment_args_for_update(GameOptions::augment_args_for_update(command)))
    }
}

/// The settings of the game options, refused unless two-player: `what` names the command.
fn two_player_settings(game: &GameOptions, what: &str) -> ToolResult<Settings> {
    let settings = game.settings(0)?;
    if settings.players != 2 {
        bail!(
            "--players {}: a Mathable {what} is for two players (a tournament pairs two seats, \
             each opening played twice with the seats swapped); 3 or 4 players play with tabletop play mathable",
            settings.players
        );
    }
    Ok(settings)
}

/// A tournament's player: any of Mathable's computer players or `external:cmd=...` (seeing
/// what its seat may see), held to the match's bound on turns without a placement.
pub fn player(spec: &PlayerSpec, seed: u64) -> ToolResult<Box<dyn Player<Mathable>>> {
    let inner = crate::external::make_local_player_with(spec, bot_view(), |spec| from_spec(spec, seed))?;
    Ok(Box::new(Bounded(inner)))
}

/// Runs `tabletop tournament mathable`.
pub fn run_tournament(args: TournamentArgs) -> ToolResult {
    let settings = two_player_settings(&args.game, "tournament")?;
    let options = &args.options;
    let start = Mathable::new(&settings.with_seed(options.seed)).map_err(invalid)?;
    let openings = || -> ToolResult<Openings<Mathable>> {
        if options.opening_min.is_some() || options.opening_max.is_some() {
            bail!("--opening-min and --opening-max do not apply to Mathable: its openings are deals (a bag seed each), not random plies");
        }
        Ok(match &options.openings {
            Some(path) => Openings::Positions(
                read_openings(&settings, &read_openings_file(path)?).with_context(|| path.display())?,
            ),
            None => Openings::Deals { start: start.clone(), deal },
        })
    };
    run_tournament_with(&start, options, openings, player, write_game).map(drop)
}

/// A game as the saved-game text ([`write_saved_game`]: `position` the deal's save JSON, the
/// moves, the result, the tournament's `#` notes), the opening named by its bag seed rather than
/// its JSON (which the `position` line holds), and the final scores in a `#` line.
pub fn write_game(finished: &Finished<Mathable>, info: &GameInfo) -> String {
    let start = finished.record.start();
    let seed = start.settings().seed;
    let opening = if *start == deal(start, seed) {
        format!("the deal of bag seed {seed}")
    } else {
        format!("a position of bag seed {seed} (the position line)")
    };
    let text = write_saved_game(finished, &GameInfo { opening: &opening, ..info.clone() });
    let end = finished.record.current();
    let scores = format!(
        "# scores: {} {} (seat 1) - {} {} (seat 2)\n",
        info.names[0],
        end.score(Seat(0)),
        info.names[1],
        end.score(Seat(1))
    );
    match text.split_once('\n') {
        Some((first, rest)) => format!("{first}\n{scores}{rest}"),
        None => text,
    }
}

/// The default bound on a balanced deal's margin, in points: see docs/TOURNAMENTS.md.
pub const DEFAULT_MAX_MARGIN: i32 = 10;

/// Options of `tabletop openings mathable`.
#[derive(clap::Args)]
pub struct OpeningsArgs {
    /// The game's settings (two players).
    #[command(flatten)]
    pub game: GameOptions,
    /// How many deals.
    #[arg(long)]
    pub count: usize,
    /// Seed of the deals tried (the bag seeds are drawn from it).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The computer player that plays both seats of each deal to the end (a deterministic one,
    /// such as greedy, makes the file reproducible).
    #[arg(long, default_value = "greedy")]
    pub judge: PlayerSpec,
    /// The largest margin kept, in points: the first seat's score minus the second's at the
    /// end of the judge's game.
    #[arg(long, default_value_t = DEFAULT_MAX_MARGIN)]
    pub max_margin: i32,
    /// Write to FILE instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs `tabletop openings mathable`: deals on which the judge, playing both seats, ends within
/// `--max-margin` points, one a line as the deal's save JSON (with its seed and margin in a
/// comment), which `tabletop tournament mathable --openings FILE` reads back.
pub fn run_openings(args: OpeningsArgs) -> ToolResult {
    let settings = two_player_settings(&args.game, "tournament's openings file")?;
    if args.count == 0 || args.count > 100_000 {
        bail!("--count {}: give 1 to 100000", args.count);
    }
    if args.max_margin < 0 {
        bail!("--max-margin {}: give 0 or more points", args.max_margin);
    }
    from_spec(&args.judge, 1).with_context(|| format!("--judge {}", args.judge))?;
    let judge = || from_spec(&args.judge, 1).unwrap_or_else(|_| Box::new(super::GreedyPlayer));
    let max_tries = args.count.saturating_mul(200).max(1000);
    let bar = ProgressBar::new(args.count as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} deals {msg} [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    let found = balanced_deals(&settings, args.count, args.seed, args.max_margin, max_tries, &judge, &mut |found, tries| {
        bar.set_position(found as u64);
        bar.set_message(format!("({tries} tried)"));
    });
    bar.finish_and_clear();
    let mut text = format!(
        "# {} balanced deals of {} ({}): seed {}, kept when {} playing both seats ends within {} points \
         (the first seat's margin); one a line as the start's save JSON, for --openings\n",
        found.len(),
        Mathable::NAME,
        describe(&settings),
        args.seed,
        args.judge,
        args.max_margin
    );
    for d in &found {
        text.push_str(&format!("# bag seed {}: margin {:+}\n{}\n", d.seed, d.margin, d.start.notation()));
    }
    match &args.out {
        Some(path) => std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    if found.len() < args.count {
        return Err(ToolError::Failed(format!(
            "only {} of {} deals found in {max_tries} tries: allow a larger --max-margin",
            found.len(),
            args.count
        )));
    }
    Ok(())
}
