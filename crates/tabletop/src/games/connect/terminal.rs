//! `tabletop ... connect`: terminal play, matches, perft, the solver, benchmarks and the book.

use std::time::{Duration, Instant};

use crate::tools::ToolResult as Result;
use clap::Args;
use crate::games::connect::engine::{describe_score, make_player, Engine};
use crate::games::connect::rules::render_board;
use crate::games::connect::{Connect, ConnectVariant, Side};
use crate::games::connect::tools::SizeArgs;
use crate::{Outcome, Player, PlayerSpec, Record, Seat as TSeat, Status};

use crate::tools::common::{paint, run_match_cli, use_color, Input, MatchOptions};
use crate::tools::play::{seat_players, seat_specs, Presenter, Table};

/// Options of `tabletop play connect`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    /// The board size.
    pub size: SizeArgs,
    /// Who plays a side: `SEAT=SPEC` with the seat x (1, moves first) or o (2), and SPEC
    /// `human`, `engine`, `engine:time=2s`, `engine:level=casual` or `random`. A bare SPEC is for o.
    /// Default: x=human, o=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    pub players: Vec<String>,
    /// The original Connect Three program's rule: invalid input forfeits the turn instead of asking again
    /// (a forfeited turn counts: after as many turns as cells the game is drawn).
    #[arg(long)]
    pub forfeit_invalid: bool,
    /// The origin Connect Three / Four program: two people, invalid input forfeits the turn, no
    /// intro, the program ends with the game.
    #[arg(long, conflicts_with = "players")]
    pub document: bool,
    /// No colours.
    #[arg(long)]
    pub no_color: bool,
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
    hint_time: Duration,
    /// `--document`: the document's own result sentences ("Player X won!").
    document: bool,
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
        Ok(make_player(spec, self.variant, seed)?)
    }

    fn board(&self, record: &Record<Connect>, color: bool) -> String {
        render_board(record.current(), |side| match side {
            Side::X => paint("X", 196, color),
            Side::O => paint("O", 220, color),
        })
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

    fn forfeit(&self, position: &Connect, reason: &str) -> Option<(Connect, String)> {
        if !self.forfeit_invalid {
            return None;
        }
        let mut next = position.clone();
        next.forfeit_turn()
            .then(|| (next, format!("Invalid input ({reason}): {} forfeits the turn.", position.side_to_move())))
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

    /// The book or the solver within the hint time (exact), else the analysis's best move.
    fn hint(&mut self, record: &Record<Connect>) -> String {
        let p = record.current();
        let started = Instant::now();
        if let Ok(mut engine) = Engine::try_with_table(self.variant, self.hint_time, 1 << 21) {
            if let Ok((col, score, _)) = engine.best_exact(p, Some(started + self.hint_time.mul_f64(0.7))) {
                return format!("{col} ({})", describe_score(p, score));
            }
        }
        crate::tools::play::analysis_hint(record, self.hint_time.saturating_sub(started.elapsed()))
    }
}

/// Terminal play; standard input may be a script.
pub fn play(args: PlayArgs) -> Result<()> {
    let v = args.size.variant()?;
    let forfeit_invalid = args.forfeit_invalid || args.document;
    let mut presenter = ConnectPresenter { variant: v, forfeit_invalid, hint_time: args.hint_time, document: args.document };
    let o = if args.document { "human" } else { crate::levels::DEFAULT_COMPUTER };
    let defaults = [PlayerSpec::named("human"), PlayerSpec::named(o)];
    let specs = seat_specs(&presenter, &defaults, &args.players)?;
    let seats = seat_players(&presenter, &specs, args.seed)?;
    let mut table =
        Table::new(&mut presenter, seats, Connect::new(v), use_color(args.no_color)).document_mode(args.document);
    table.run(&mut Input::new())
}

/// Runs `tabletop match connect`.
pub fn run_match(args: MatchArgs) -> Result<()> {
    let v = args.size.variant()?;
    run_match_cli(&Connect::new(v), &args.options, 0..=2, |spec, i| Ok(make_player(spec, v, args.options.seed + i)?))?;
    Ok(())
}
