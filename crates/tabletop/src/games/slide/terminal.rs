//! `tabletop ... slide`: terminal play, matches, perft, solve and benchmarks for Slide.

use crate::tools::ToolResult as Result;
use clap::Args;
use crate::games::slide::players::player_from_spec;
use crate::games::slide::rules::render_board_marked;
use crate::games::slide::{Side, Slide, SlideMove};
use crate::games::slide::options::VariantArgs;
use crate::{EndReason, Outcome, Player, PlayerSpec, Record, Seat, Status};

use crate::external::make_local_player as local_player;
use crate::tools::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use crate::tools::tournament::{run_openings_cli, run_tournament_cli, OpeningsOptions, TournamentOptions};
use crate::tournament::{openings::Balance, run::write_saved_game};
use crate::tools::play::{seat_players, seat_specs, take_seat_clocks, ClockArgs, Presenter, Table};

/// Options of `tabletop play slide`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    variant: VariantArgs,
    /// Who plays a side: `SEAT=SPEC` with the seat b (blue, 1, moves first) or o (orange, 2),
    /// and SPEC `human`, `engine`, `engine:time=200ms`, `classic:depth=5`, `engine:level=casual`, `random` or
    /// `external:cmd="COMMAND"` (a program speaking docs/PROTOCOL.md). A bare SPEC is for o. Default: b=human, o=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    players: Vec<String>,
    /// Short for --player o=classic:depth=N+1 (the document's classic minimax with max_levels N).
    #[arg(long)]
    levels: Option<u32>,
    /// The origin document's program `PlayGame SIZE EMPTY MAX_LEVELS`: a person (b) against the
    /// classic player with MAX_LEVELS levels on a SIZE x SIZE board with EMPTY squares kept empty.
    #[arg(long, num_args = 3, value_names = ["SIZE", "EMPTY", "MAX_LEVELS"], conflicts_with_all = ["levels", "players"])]
    document: Option<Vec<u32>>,
    /// Start from this configuration string instead of the empty board.
    #[arg(long)]
    position: Option<String>,
    /// Seed for random players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plain letters, no colours.
    #[arg(long)]
    no_color: bool,
    #[command(flatten)]
    clock: ClockArgs,
}

/// Options of `tabletop match slide`.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    options: MatchOptions,
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Blue => "b (blue)",
        Side::Orange => "o (orange)",
    }
}

fn describe_state(record: &Record<Slide>) -> String {
    let position = record.current();
    let k = position.slide_variant().empty();
    match record.status() {
        Status::ToMove(seat) => {
            let side = Side::from_seat(seat);
            if position.is_placement_phase() {
                format!(
                    "Placement phase: {} empty, {k} must stay empty. {} to move: type a square number.",
                    position.empty_count(),
                    side_name(side)
                )
            } else {
                format!(
                    "Slide phase. {} to move: type FROM-TO to slide a tile into an adjacent empty square.",
                    side_name(side)
                )
            }
        }
        Status::Over(outcome) => {
            let reason = match record.end_reason() {
                Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
                Some(EndReason::Rules(text)) => text,
                None => String::new(),
            };
            match outcome {
                Outcome::Win(seat) => crate::value::result_sentence(Some(side_name(Side::from_seat(seat))), "", &reason),
                _ => crate::value::result_sentence(None, "", &reason),
            }
        }
    }
}

/// What Slide adds to the shared play loop.
struct SlidePresenter {
    /// The document's program: its board, without marks.
    document: bool,
}

impl Presenter<Slide> for SlidePresenter {
    fn title(&self, start: &Slide) -> String {
        let v = start.slide_variant();
        let k = v.empty();
        format!(
            "Slide {0}x{0}: {1} stay empty; place tiles, then slide them; three in a line wins.",
            v.size(),
            if k == 1 { "1 square must".to_string() } else { format!("{k} squares must") }
        )
    }

    fn seat_name(&self, seat: Seat) -> String {
        side_name(Side::from_seat(seat)).to_string()
    }

    fn seat_words(&self, seat: Seat) -> &'static [&'static str] {
        match Side::from_seat(seat) {
            Side::Blue => &["b", "blue"],
            Side::Orange => &["o", "orange"],
        }
    }

    fn make_player(&self, spec: &PlayerSpec, seat: Seat, seed: u64) -> Result<Box<dyn Player<Slide>>> {
        let mut spec = spec.clone();
        if spec.name == "random" && !spec.settings.contains_key("seed") {
            spec.settings.insert("seed".into(), seed.wrapping_add(seat.index() as u64).to_string());
        }
        Ok(local_player(&spec, player_from_spec)?)
    }

    /// The board with the last move's tile in brackets and a winning line in capitals (not
    /// in the document's program).
    fn board(&self, record: &Record<Slide>, color: bool) -> String {
        let position = record.current();
        let (last, line) = if self.document {
            (None, Vec::new())
        } else {
            let last = record.moves().last().map(|mv| match *mv {
                SlideMove::Place(square) | SlideMove::Slide { to: square, .. } => square,
            });
            (last, position.winning_squares())
        };
        render_board_marked(position, last, &line, |side, text| match side {
            Side::Blue => paint(text, 33, color),
            Side::Orange => paint(text, 208, color),
        })
    }

    fn situation(&self, record: &Record<Slide>) -> Option<String> {
        record.status().to_move().map(|_| describe_state(record))
    }

    fn prompt(&self, record: &Record<Slide>) -> String {
        format!("{}> ", record.current().side_to_move().letter())
    }

    fn move_help(&self, position: &Slide) -> String {
        format!(
            "a square number (1 to {}) to place a tile, FROM-TO to slide one (3-6)",
            position.slide_variant().squares()
        )
    }

    fn result(&self, record: &Record<Slide>) -> String {
        describe_state(record)
    }
}

/// Interactive play in the terminal; reads standard input line by line, so it can be scripted.
pub fn play(args: PlayArgs) -> Result<()> {
    let mut variant = args.variant;
    let mut levels = args.levels;
    if let Some(doc) = &args.document {
        variant = VariantArgs { size: doc[0] as usize, empty: doc[1] as usize };
        levels = Some(doc[2]);
    }
    let start = variant.position(args.position.as_deref())?;
    let mut presenter = SlidePresenter { document: args.document.is_some() };
    let mut options = args.players.clone();
    if let Some(levels) = levels {
        // The document's max_levels, read as depth = levels + 1 (its errors name `levels`).
        options.insert(0, format!("o=classic:levels={levels}"));
    }
    let defaults = [PlayerSpec::named("human"), PlayerSpec::named(crate::levels::DEFAULT_COMPUTER)];
    let mut specs = seat_specs(&presenter, &defaults, &options)?;
    let controls = take_seat_clocks(&mut specs, args.clock.tc)?;
    let seats = seat_players(&presenter, &specs, args.seed)?;
    let mut table =
        Table::new(&mut presenter, seats, start, use_color(args.no_color))
            .document_mode(args.document.is_some())
            .with_clocks(&controls);
    table.run(&mut Input::new())
}

/// Computer-vs-computer match.
pub fn run_match(args: MatchArgs) -> Result<()> {
    run_match_cli(&args.variant.position(None)?, &args.options, 0..=2, |spec, i| player(spec, args.options.seed + i))?;
    Ok(())
}

/// A player of `match` and `tournament`: any spec of the game, or `external`.
fn player(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<Slide>>> {
    Ok(local_player(spec, |spec| super::players::seeded_player_from_spec(spec, seed))?)
}

/// Options of `tabletop tournament slide`.
#[derive(Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    options: TournamentOptions,
}

/// Runs `tabletop tournament slide`.
pub fn run_tournament(args: TournamentArgs) -> Result<()> {
    run_tournament_cli(&args.variant.position(None)?, &args.options, 0..=2, player, write_saved_game).map(drop)
}

/// Options of `tabletop openings slide`.
#[derive(Args)]
pub struct OpeningsArgs {
    #[command(flatten)]
    variant: VariantArgs,
    #[command(flatten)]
    options: OpeningsOptions,
}

/// Runs `tabletop openings slide`: proved draws, or estimates near zero on boards the solver
/// does not reach (duplicates: the exact position).
pub fn run_openings(args: OpeningsArgs) -> Result<()> {
    let start = args.variant.position(None)?;
    run_openings_cli(&start, &args.options, 1..=3, Balance { estimate: 50, exact: 0 }, <Slide as crate::Game>::hash)
}
