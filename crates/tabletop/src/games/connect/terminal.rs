//! `tabletop ... connect`: terminal play, matches, perft, the solver, benchmarks and the book.

use std::time::Duration;

use crate::tools::ToolResult as Result;
use clap::Args;
use crate::games::connect::engine::make_player;
use crate::games::connect::rules::render_board_marked;
use crate::games::connect::{Column, Connect, ConnectVariant, Side};
use crate::games::connect::options::SizeArgs;
use crate::{Outcome, Player, PlayerSpec, Record, Seat as TSeat, Status};

use crate::external::make_local_player as local_player;
use crate::tools::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use crate::tools::tournament::{run_openings_cli, run_tournament_cli, OpeningsOptions, TournamentOptions};
use crate::tournament::{openings::Balance, run::write_saved_game};
use crate::tools::play::{seat_players, seat_specs, take_seat_clocks, ClockArgs, DocumentProgram, Presenter, Table};

/// Options of `tabletop play connect`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    /// The board size.
    pub size: SizeArgs,
    /// Who plays a side: `SEAT=SPEC` with the seat x (1, moves first) or o (2), and SPEC
    /// `human`, `engine`, `engine:time=2s`, `engine:level=casual`, `random` or `external:cmd="COMMAND"` (a program
    /// speaking docs/PROTOCOL.md). A bare SPEC is for o.
    /// Default: x=human, o=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    pub players: Vec<String>,
    /// The original Connect Three program's rule: invalid input forfeits the turn instead of asking again
    /// (a forfeited turn counts: after as many turns as cells the game is drawn).
    #[arg(long)]
    pub forfeit_invalid: bool,
    /// The origin Connect Three / Four program: two people, invalid input (any word too: it has
    /// no commands) silently forfeits the turn, a blank line before every board, no intro, no
    /// colours or marks, the program ends with the game.
    #[arg(long, conflicts_with = "players")]
    pub document: bool,
    /// No colours.
    #[arg(long)]
    pub no_color: bool,
    #[command(flatten)]
    /// The game clocks.
    pub clock: ClockArgs,
    /// Seed for random and level players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Time the hint may take.
    #[arg(long, default_value = "2s", value_parser = crate::tools::parse_duration_arg)]
    pub hint_time: Duration,
}

/// Options of `tabletop match connect`.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    /// The board size.
    pub size: SizeArgs,
    #[command(flatten)]
    /// The match options.
    pub options: MatchOptions,
}

/// What Connect-N adds to the shared play loop: the origin document's board, prompt, messages
/// and (with --forfeit-invalid) its forfeit rule.
struct ConnectPresenter {
    variant: ConnectVariant,
    forfeit_invalid: bool,
    /// `--document`: the document's program; a forfeit is silent (the next board shows it) and
    /// the results are its own sentences ("Player X won!").
    document: bool,
    hint_time: Duration,
}

impl Presenter<Connect> for ConnectPresenter {
    fn title(&self, start: &Connect) -> String {
        let v = start.connect_variant();
        format!(
            "Connect {}: {} columns, {} rows; drop pieces, {} in a line (across, down or diagonally) wins.",
            v.line(),
            v.width(),
            v.height(),
            v.line()
        )
    }

    fn seat_name(&self, seat: TSeat) -> String {
        Side::from_seat(seat).to_string()
    }

    fn seat_words(&self, seat: TSeat) -> &'static [&'static str] {
        match Side::from_seat(seat) {
            Side::X => &["x"],
            Side::O => &["o"],
        }
    }

    fn make_player(&self, spec: &PlayerSpec, _seat: TSeat, seed: u64) -> Result<Box<dyn Player<Connect>>> {
        Ok(local_player(spec, |spec| make_player(spec, self.variant, seed))?)
    }

    /// The board with the last move's piece in brackets and a winning line in lower case
    /// (not in the document's program).
    fn board(&self, record: &Record<Connect>, color: bool) -> String {
        let position = record.current();
        let paint_side = |side, letter: char| match side {
            Side::X => paint(&letter.to_string(), 196, color),
            Side::O => paint(&letter.to_string(), 220, color),
        };
        if self.document {
            return render_board_marked(position, None, &[], paint_side);
        }
        // The last move's piece is the top one of its column.
        let last = record.moves().last().and_then(|&Column(col)| {
            let col = col as usize;
            (0..position.connect_variant().height()).rev().find(|&row| position.cell(row, col).flatten().is_some()).map(|row| (row, col))
        });
        render_board_marked(position, last, &position.winning_cells(), paint_side)
    }

    fn prompt(&self, record: &Record<Connect>) -> String {
        format!("{}'s turn, where to place: ", record.current().side_to_move())
    }

    fn move_help(&self, position: &Connect) -> String {
        format!("a column number (1 to {})", position.connect_variant().width())
    }

    fn refusal(&self, _record: &Record<Connect>, reason: &str) -> String {
        format!("Invalid input: {reason}. Try again.")
    }

    fn forfeit(&self, position: &Connect, reason: &str) -> Option<(Connect, Option<String>)> {
        if !self.forfeit_invalid {
            return None;
        }
        let mut next = position.clone();
        let message = (!self.document)
            .then(|| format!("Invalid input ({reason}): {} forfeits the turn.", position.side_to_move()));
        next.forfeit_turn().then_some((next, message))
    }

    fn result(&self, record: &Record<Connect>) -> String {
        let reason = crate::game::Game::end_reason(record.current()).unwrap_or_default();
        match record.status() {
            Status::Over(Outcome::Win(seat)) if self.document => format!("Player {} won!", Side::from_seat(seat).letter()),
            Status::Over(_) if self.document => "There was a draw!".to_string(),
            Status::Over(Outcome::Win(seat)) => {
                crate::value::result_sentence(Some(&format!("Player {}", Side::from_seat(seat).letter())), "", &reason)
            }
            _ => crate::value::result_sentence(None, "", &reason),
        }
    }

    /// The analysis' best move with the hint time (exact where the book or the solver's node
    /// budget reaches).
    fn hint(&mut self, record: &Record<Connect>) -> String {
        crate::tools::play::analysis_hint(record, self.hint_time)
    }
}

/// Terminal play; standard input may be a script.
pub fn play(args: PlayArgs) -> Result<()> {
    let v = args.size.variant()?;
    let forfeit_invalid = args.forfeit_invalid || args.document;
    let mut presenter =
        ConnectPresenter { variant: v, forfeit_invalid, document: args.document, hint_time: args.hint_time };
    let o = if args.document { "human" } else { crate::levels::DEFAULT_COMPUTER };
    let defaults = [PlayerSpec::named("human"), PlayerSpec::named(o)];
    let mut specs = seat_specs(&presenter, &defaults, &args.players)?;
    let controls = take_seat_clocks(&mut specs, args.clock.tc)?;
    let seats = seat_players(&presenter, &specs, args.seed)?;
    // The document's program prints plain text, on a terminal too.
    let color = use_color(args.no_color || args.document);
    let table = Table::new(&mut presenter, seats, Connect::new(v), color).with_clocks(&controls);
    // The document's program: a blank line before every board, no commands, silent forfeits.
    let mut table = if args.document {
        table.document_program(DocumentProgram { blank_line_before_board: true, no_commands: true })
    } else {
        table
    };
    table.run(&mut Input::new())
}

/// Runs `tabletop match connect`.
pub fn run_match(args: MatchArgs) -> Result<()> {
    let v = args.size.variant()?;
    run_match_cli(&Connect::new(v), &args.options, 0..=2, |spec, i| player(spec, v, args.options.seed + i))?;
    Ok(())
}

/// A player of `match`, `tournament` and `openings`: any spec of the game, or `external`.
fn player(spec: &PlayerSpec, v: ConnectVariant, seed: u64) -> Result<Box<dyn Player<Connect>>> {
    Ok(local_player(spec, |spec| make_player(spec, v, seed))?)
}

/// Options of `tabletop tournament connect`.
#[derive(Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    /// The board size.
    pub size: SizeArgs,
    #[command(flatten)]
    /// The tournament options.
    pub options: TournamentOptions,
}

/// Runs `tabletop tournament connect`.
pub fn run_tournament(args: TournamentArgs) -> Result<()> {
    let v = args.size.variant()?;
    run_tournament_cli(&Connect::new(v), &args.options, 0..=2, |spec, seed| player(spec, v, seed), write_saved_game)
        .map(drop)
}

/// Options of `tabletop openings connect`.
#[derive(Args)]
pub struct OpeningsArgs {
    #[command(flatten)]
    /// The board size.
    pub size: SizeArgs,
    #[command(flatten)]
    /// The openings options.
    pub options: OpeningsOptions,
}

/// Runs `tabletop openings connect`: positions the solver (or the book) values as a draw or a
/// win in the last moves (`|score| <= 2`, Pons' scores), duplicates up to the mirror image.
pub fn run_openings(args: OpeningsArgs) -> Result<()> {
    let v = args.size.variant()?;
    let balance = Balance { estimate: 20, exact: 2 };
    run_openings_cli(&Connect::new(v), &args.options, 4..=8, balance, |p| crate::games::connect::book::canonical_key(p).0)
}
