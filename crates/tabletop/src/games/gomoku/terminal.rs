//! `tabletop play gomoku` and `tabletop match gomoku`: the terminal presenter and options.

use clap::Args;

use super::engine::make_player;
use super::rules::{render_board, Gomoku, GomokuVariant, Stone};
use crate::external::make_local_player as local_player;
use crate::tools::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use crate::tools::tournament::{run_openings_cli, run_tournament_cli, OpeningsOptions, TournamentOptions};
use crate::tournament::{openings::Balance, run::write_saved_game};
use crate::tools::play::{seat_players, seat_specs, take_seat_clocks, ClockArgs, Presenter, Table};
use crate::tools::{Context, ToolResult as Result};
use crate::{EndReason, Game, Outcome, Player, PlayerSpec, Record, Seat, Status};

/// The board size option.
#[derive(Args, Clone, Debug)]
pub struct SizeArgs {
    /// The board's side, 7 to 19.
    #[arg(long, default_value_t = 15)]
    pub size: usize,
}

impl SizeArgs {
    /// The variant, validated.
    pub fn variant(&self) -> Result<GomokuVariant> {
        GomokuVariant::new(self.size).context("--size")
    }
}

/// Options of `tabletop play gomoku`.
#[derive(Args)]
pub struct PlayArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// Who plays a side: `SEAT=SPEC` with the seat x (black, 1, moves first) or o (white, 2), and
    /// SPEC `human`, `engine`, `engine:time=2s`, `engine:depth=3`, `greedy`, `random` or `external:cmd="COMMAND"` (a program speaking docs/PROTOCOL.md). A bare SPEC
    /// is for o. Default: x=human, o=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    pub players: Vec<String>,
    /// Seed for random and greedy players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No colours.
    #[arg(long)]
    pub no_color: bool,
    #[command(flatten)]
    /// The game clocks.
    pub clock: ClockArgs,
}

/// Options of `tabletop match gomoku`.
#[derive(Args)]
pub struct MatchArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The match options.
    #[command(flatten)]
    pub options: MatchOptions,
}

fn side_name(stone: Stone) -> &'static str {
    match stone {
        Stone::Black => "x (black)",
        Stone::White => "o (white)",
    }
}

/// What Gomoku adds to the shared play loop: its board with letters and numbers, the last move
/// in brackets and the winning line in capitals.
struct GomokuPresenter;

impl Presenter<Gomoku> for GomokuPresenter {
    fn title(&self, start: &Gomoku) -> String {
        let n = start.size();
        format!("Gomoku {n}x{n}: five or more in a row wins (free-style).")
    }

    fn seat_name(&self, seat: Seat) -> String {
        side_name(Stone::from_seat(seat)).to_string()
    }

    fn seat_words(&self, seat: Seat) -> &'static [&'static str] {
        match Stone::from_seat(seat) {
            Stone::Black => &["x", "black", "b"],
            Stone::White => &["o", "white", "w"],
        }
    }

    fn make_player(&self, spec: &PlayerSpec, seat: Seat, seed: u64) -> Result<Box<dyn Player<Gomoku>>> {
        Ok(local_player(spec, |spec| make_player(spec, seed.wrapping_add(seat.index() as u64)))?)
    }

    fn board(&self, record: &Record<Gomoku>, color: bool) -> String {
        render_board(record.current(), |stone, text| match stone {
            Stone::Black => paint(text, 33, color),
            Stone::White => paint(text, 208, color),
        })
    }

    fn prompt(&self, record: &Record<Gomoku>) -> String {
        format!("{}> ", record.current().side_to_move().letter())
    }

    fn move_help(&self, position: &Gomoku) -> String {
        let n = position.size();
        format!("an intersection: a column letter (a to {}) and a row number (1 to {n}), e.g. h8", (b'a' + n as u8 - 1) as char)
    }

    fn result(&self, record: &Record<Gomoku>) -> String {
        let reason = match record.end_reason() {
            Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
            Some(EndReason::Rules(text)) => text,
            None => String::new(),
        };
        match record.status() {
            Status::Over(Outcome::Win(seat)) => {
                crate::value::result_sentence(Some(side_name(Stone::from_seat(seat))), "", &reason)
            }
            _ => crate::value::result_sentence(None, "", &reason),
        }
    }
}

/// Terminal play; standard input may be a script.
pub fn play(args: PlayArgs) -> Result<()> {
    let start = Gomoku::start(&args.size.variant()?);
    let mut presenter = GomokuPresenter;
    let defaults = [PlayerSpec::named("human"), PlayerSpec::named(crate::levels::DEFAULT_COMPUTER)];
    let mut specs = seat_specs(&presenter, &defaults, &args.players)?;
    let controls = take_seat_clocks(&mut specs, args.clock.tc)?;
    let seats = seat_players(&presenter, &specs, args.seed)?;
    let mut table = Table::new(&mut presenter, seats, start, use_color(args.no_color)).with_clocks(&controls);
    table.run(&mut Input::new())
}

/// Runs `tabletop match gomoku`.
pub fn run_match(args: MatchArgs) -> Result<()> {
    let start = Gomoku::start(&args.size.variant()?);
    run_match_cli(&start, &args.options, 0..=2, |spec, i| player(spec, args.options.seed + i))?;
    Ok(())
}

/// A player of `match` and `tournament`: any spec of the game, or `external`.
fn player(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<Gomoku>>> {
    Ok(local_player(spec, |spec| make_player(spec, seed))?)
}

/// Options of `tabletop tournament gomoku`.
#[derive(Args)]
pub struct TournamentArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The tournament options.
    #[command(flatten)]
    pub options: TournamentOptions,
}

/// Runs `tabletop tournament gomoku`.
pub fn run_tournament(args: TournamentArgs) -> Result<()> {
    let start = Gomoku::start(&args.size.variant()?);
    run_tournament_cli(&start, &args.options, 0..=2, player, write_saved_game).map(drop)
}

/// Options of `tabletop openings gomoku`.
#[derive(Args)]
pub struct OpeningsArgs {
    /// The board size.
    #[command(flatten)]
    pub size: SizeArgs,
    /// The openings options.
    #[command(flatten)]
    pub options: OpeningsOptions,
}

/// Runs `tabletop openings gomoku` (duplicates: the exact position; the board's symmetries
/// are not exposed).
pub fn run_openings(args: OpeningsArgs) -> Result<()> {
    let start = Gomoku::start(&args.size.variant()?);
    run_openings_cli(&start, &args.options, 2..=4, Balance { estimate: 100, exact: 0 }, Gomoku::hash)
}
