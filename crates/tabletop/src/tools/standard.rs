//! The commands of a game with no command-line code of its own: [`StandardCommands`] offers
//! `play`, `match`, `perft`, `moves`, `analyze` and (when the game has one) `review` for any
//! [`Grid`] game, with the game's creation options (its [`Adapter::OPTION_FIELDS`], the same as
//! the server's and the page's) as `--KEY VALUE` flags, and the terminal's board drawn by
//! [`GridPresenter`] from the grid. A game adds nothing but its `ENTRY`'s
//! `commands: &StandardCommands::<G, A>::new(TITLE, EXAMPLES)`.

use std::marker::PhantomData;

use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};
use serde_json::{json, Value};

use super::commands::{Place, PlayExample};
use super::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use super::play::{seat_players, seat_specs, take_seat_clocks, ClockArgs, Presenter, Table};
use super::position::{list_moves, print_analysis, Output};
use super::review::{print_review_timed, ReviewOptions};
use super::tournament::{run_openings_cli, run_tournament_cli, OpeningsOptions, TournamentOptions};
use super::{invalid, Context, GameCommands, Tool, ToolResult as Result, Verb};
use crate::external::make_local_player;
use crate::grid::{cell_name, render, Grid};
use crate::players::Players;
use crate::session::{Adapter, OptionKind};
use crate::tournament::{openings::Balance, run::write_saved_game};
use crate::{Analyze, EndReason, Outcome, Player, PlayerSpec, Record, Seat, Status};

/// What a game needs for the standard commands.
pub trait StandardGame: Grid + Players + Analyze {}
impl<G: Grid + Players + Analyze> StandardGame for G {}

/// The standard commands of the game `G` served through `A` (see the module documentation).
pub struct StandardCommands<G, A> {
    title: &'static str,
    examples: &'static [PlayExample],
    game: PhantomData<fn() -> (G, A)>,
}

impl<G, A> StandardCommands<G, A> {
    /// The commands of a game called `title` in the terminal, with its play examples.
    pub const fn new(title: &'static str, examples: &'static [PlayExample]) -> Self {
        StandardCommands { title, examples, game: PhantomData }
    }
}

/// `tabletop play`'s own flags.
#[derive(Args)]
struct PlayFlags {
    /// Who plays a seat: `SEAT=SPEC`, the seat by its piece letter or number (1 moves first),
    /// SPEC `human`, `engine`, `engine:level=N`, `random` or `external:cmd="COMMAND"` (a program
    /// speaking docs/PROTOCOL.md); a bare SPEC is for the second seat. Default: a person first.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    players: Vec<String>,
    /// Seed for random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No colours.
    #[arg(long)]
    no_color: bool,
    #[command(flatten)]
    clock: ClockArgs,
}

/// `tabletop perft`'s own flags.
#[derive(Args)]
struct PerftFlags {
    /// Depth in plies.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=12))]
    depth: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// `tabletop moves` and `analyze`'s own flags.
#[derive(Args)]
struct PositionFlags {
    /// The position in the game's notation. Default: the start.
    #[arg(long)]
    position: Option<String>,
    /// The output options.
    #[command(flatten)]
    out: Output,
}

/// Adds the flags `F` and one `--KEY` flag per creation option of the game.
fn flags<G: Players, A: Adapter<G>, F: Args>(command: Command) -> Command {
    A::OPTION_FIELDS.iter().fold(F::augment_args(command), |command, field| {
        let arg = Arg::new(field.key).long(field.key);
        command.arg(match field.kind {
            OptionKind::Integer { min, max, default } => arg
                .value_parser(clap::value_parser!(i64).range(min..=max))
                .help(format!("{} ({min} to {max}; default {default})", field.label)),
            OptionKind::Choice { choices, default } => arg
                .value_parser(PossibleValuesParser::new(choices.iter().map(|(value, _)| *value)))
                .help(format!("{} (default {default})", field.label)),
        })
    })
}

/// The start of the game the option flags ask for, through the game's adapter.
fn start<G: Players, A: Adapter<G>>(matches: &ArgMatches) -> Result<G> {
    let mut options = serde_json::Map::new();
    for field in A::OPTION_FIELDS {
        let value = match field.kind {
            OptionKind::Integer { .. } => matches.get_one::<i64>(field.key).map(|v| json!(v)),
            OptionKind::Choice { .. } => matches.get_one::<String>(field.key).map(|v| json!(v)),
        };
        options.extend(value.map(|v| (field.key.to_string(), v)));
    }
    let mut secret = json!({});
    A::complete_secret(&mut secret);
    A::start(&Value::Object(options), &secret).map_err(invalid)
}

/// A tool of `verb` reading the flags `F` and the options, run by `run` with them and the start.
fn tool<G: StandardGame, A: Adapter<G>, F: Args + FromArgMatches>(
    verb: Verb,
    run: impl Fn(F, G) -> Result + Send + Sync + 'static,
) -> Tool {
    Tool {
        place: Place::Verb(verb),
        about: verb.about(),
        args: flags::<G, A, F>,
        run: Box::new(move |matches| run(F::from_arg_matches(matches).map_err(invalid)?, start::<G, A>(matches)?)),
    }
}

impl<G: StandardGame, A: Adapter<G>> GameCommands for StandardCommands<G, A> {
    fn tools(&self) -> Vec<Tool> {
        let title = self.title;
        let position = |flags: &PositionFlags, start: G| match &flags.position {
            Some(text) => G::from_notation(&start.variant(), text).context("bad position"),
            None => Ok(start),
        };
        let mut tools = vec![
            tool::<G, A, PlayFlags>(Verb::Play, move |flags, start| play::<G, A>(title, flags, start)),
            tool::<G, A, MatchOptions>(Verb::Match, |options, start| {
                let seed = options.seed;
                let make = |spec: &PlayerSpec, i| Ok(make_local_player(spec, |s| G::make_player(s, &start, seed + i))?);
                run_match_cli(&start, &options, 0..=2, make).map(drop)
            }),
            tool::<G, A, TournamentOptions>(Verb::Tournament, |options, start| {
                let make = |spec: &PlayerSpec, seed| Ok(make_local_player(spec, |s| G::make_player(s, &start, seed))?);
                run_tournament_cli(&start, &options, 0..=2, make, write_saved_game).map(drop)
            }),
            tool::<G, A, OpeningsOptions>(Verb::Openings, |options, start| {
                // Duplicates: the exact position (a grid game's symmetries are not exposed).
                run_openings_cli(&start, &options, 1..=3, Balance { estimate: 100, exact: 0 }, G::hash)
            }),
            tool::<G, A, PerftFlags>(Verb::Perft, |flags, start| {
                let counts: Vec<u64> = (1..=flags.depth).map(|d| crate::perft(&start, d)).collect();
                match flags.json {
                    true => println!("{}", json!({"game": G::NAME, "counts": counts})),
                    false => counts.iter().zip(1..).for_each(|(count, d)| println!("perft({d}) = {count}")),
                }
                Ok(())
            }),
            tool::<G, A, PositionFlags>(Verb::Moves, move |flags, start| {
                list_moves(&position(&flags, start)?, &flags.out)
            }),
            tool::<G, A, PositionFlags>(Verb::Analyze, move |flags, start| {
                print_analysis(&position(&flags, start)?, &flags.out)
            }),
        ];
        if let Some(review) = A::REVIEW {
            tools.push(tool::<G, A, ReviewOptions>(Verb::Review, move |options, start| {
                let (record, clocks) = Record::<G>::from_text_timed(&start.variant(), &options.text()?)
                    .with_context(|| format!("cannot load {}", options.load.display()))?;
                let seats: Vec<String> = (0..start.num_seats()).map(A::seat_name).collect();
                print_review_timed(&record, clocks.as_ref(), &seats, &options, review)
            }));
        }
        tools
    }

    fn play_examples(&self) -> Vec<PlayExample> {
        self.examples.to_vec()
    }
}

/// `tabletop play`: a person first, the default computer in the other seats.
fn play<G: StandardGame, A: Adapter<G>>(title: &'static str, flags: PlayFlags, start: G) -> Result {
    let mut presenter = GridPresenter::<G, A> { title, start: start.clone(), adapter: PhantomData };
    let mut defaults = vec![PlayerSpec::named(crate::levels::DEFAULT_COMPUTER); start.num_seats()];
    defaults[0] = PlayerSpec::named("human");
    let mut specs = seat_specs(&presenter, &defaults, &flags.players)?;
    let controls = take_seat_clocks(&mut specs, flags.clock.tc)?;
    let seats = seat_players(&presenter, &specs, flags.seed)?;
    let mut table = Table::new(&mut presenter, seats, start, use_color(flags.no_color))
        .reviewable(A::REVIEW.is_some())
        .with_clocks(&controls);
    table.run(&mut Input::new())
}

/// The terminal presenter of any [`Grid`] game whose moves are cells: the grid drawn with its
/// coordinates, each seat's piece in its colour, the last move in brackets and a winning line
/// in capitals; the seats named by the game's adapter and chosen by their piece letters.
pub struct GridPresenter<G, A> {
    title: &'static str,
    start: G,
    adapter: PhantomData<fn() -> A>,
}

/// The seats' colours (256-colour codes).
const COLOURS: [u8; 4] = [33, 208, 34, 163];

impl<G: StandardGame, A: Adapter<G>> Presenter<G> for GridPresenter<G, A> {
    fn title(&self, start: &G) -> String {
        format!("{} ({}).", self.title, start.describe())
    }

    fn seat_name(&self, seat: Seat) -> String {
        A::seat_name(seat.index())
    }

    fn seat_words(&self, seat: Seat) -> &'static [&'static str] {
        G::PIECES.get(seat.index()..=seat.index()).unwrap_or(&[])
    }

    fn make_player(&self, spec: &PlayerSpec, _seat: Seat, seed: u64) -> Result<Box<dyn Player<G>>> {
        Ok(make_local_player(spec, |spec| G::make_player(spec, &self.start, seed))?)
    }

    fn board(&self, record: &Record<G>, color: bool) -> String {
        render(record, |seat, text| paint(text, COLOURS[seat.index() % COLOURS.len()], color))
    }

    fn prompt(&self, record: &Record<G>) -> String {
        format!("{}> ", record.status().to_move().map_or("", |seat| G::PIECES[seat.index()]))
    }

    fn move_help(&self, position: &G) -> String {
        let (cols, rows) = position.dimensions();
        let last = (b'a' + cols as u8 - 1) as char;
        format!("a cell: a column letter (a to {last}) and a row number (1 to {rows}), e.g. {}", cell_name(cols, 0))
    }

    fn result(&self, record: &Record<G>) -> String {
        let reason = match record.end_reason() {
            Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
            Some(EndReason::Rules(text)) => text,
            None => String::new(),
        };
        let winner = match record.status() {
            Status::Over(Outcome::Win(seat)) => Some(A::seat_name(seat.index())),
            _ => None,
        };
        crate::value::result_sentence(winner.as_deref(), "", &reason)
    }
}
