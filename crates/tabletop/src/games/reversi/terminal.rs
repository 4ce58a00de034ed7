//! `tabletop ... reversi`: terminal play (with GGF saves), matches and the NBoard engine.

use std::path::PathBuf;
use std::time::Duration;

use crate::tools::{bail, ToolResult as Result};
use clap::Args;
use crate::games::reversi::ggf::GgfGame;
use crate::games::reversi::levels::Level;
use crate::games::reversi::nboard::{serve, Settings as NboardSettings};
use crate::games::reversi::players::make_local_player;
use crate::games::reversi::rules::render_board_marked;
use crate::games::reversi::{Color, Reversi, ReversiMove};
use crate::games::reversi::probcut::ProbCut;
use crate::games::reversi::options::read_pattern_weights;
use crate::tools::{parse_duration_arg, read_capped, ToolError};
use crate::games::reversi::options::parse_position;
use crate::{Game, Player, PlayerSpec, Record, Seat as TSeat};

use crate::tools::common::{paint, run_match_cli_with, use_color, Input, MatchOptions};
use crate::tools::tournament::{run_openings_cli, run_tournament_cli, OpeningsOptions, TournamentOptions};
use crate::tournament::{openings::Balance, run::write_saved_game, GameInfo};
use crate::arena::Finished;
use crate::tools::play::{seat_players, seat_specs, take_seat_clocks, ClockArgs, Presenter, Table};

/// Options of `tabletop play reversi`.
#[derive(Args)]
pub struct PlayArgs {
    /// Who plays a side: `SEAT=SPEC` with the seat black (b, x, 1; moves first) or white (w,
    /// o, 2), and SPEC `human`, `engine`, `engine:time=2s`, `engine:level=N` (N 1..10 or its
    /// name: beginner, novice, casual, intermediate, club, advanced, expert, master, grandmaster,
    /// maximum), `classic:depth=8`, `random`, `nboard:cmd="COMMAND",depth=N` (an external
    /// NBoard engine) or `external:cmd="COMMAND"` (a program speaking docs/PROTOCOL.md). A bare SPEC is for the computer's side. Default: black=human, white=engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    pub players: Vec<String>,
    /// Short for --player: who is human, black (default), white, both or none.
    #[arg(long)]
    pub human: Option<String>,
    /// Start from this position (64 squares X/O/- and the side to move, OBF form).
    #[arg(long, value_name = "POS", allow_hyphen_values = true)]
    pub position: Option<String>,
    /// The origin document's program: a person (black) against the classic depth-6 player
    /// (`--depth 8` for depth 8), no intro, the program ends with the game.
    #[arg(long, conflicts_with_all = ["players", "human"])]
    pub document: bool,
    /// With --document: the classic player's search depth, 6 (the default) or 8, the two the
    /// document's program offers.
    #[arg(long, requires = "document")]
    pub depth: Option<u32>,
    /// Seed for random players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No colours, even on a terminal.
    #[arg(long)]
    pub no_color: bool,
    #[command(flatten)]
    /// The game clocks.
    pub clock: ClockArgs,
}

/// Options of `tabletop match reversi`.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    /// The match options.
    pub options: MatchOptions,
}

/// Runs `tabletop match reversi` (GGF game records with `--games-out FILE.ggf`).
pub fn run_match(args: MatchArgs) -> Result<()> {
    let ggf = args.options.games_out.as_ref().is_some_and(|p| is_ggf(&p.to_string_lossy()));
    let make = |spec: &PlayerSpec, i| Ok(make_local_player(spec, i + 1)?);
    run_match_cli_with(&Reversi::new(), &args.options, 4..=8, make, |finished, [black, white]| {
        if ggf {
            format!("{}\n", GgfGame::from_finished(finished, black, white))
        } else {
            format!("{}\n", finished.to_text())
        }
    })?;
    Ok(())
}

/// Options of `tabletop tournament reversi`.
#[derive(Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    /// The tournament options.
    pub options: TournamentOptions,
}

/// Runs `tabletop tournament reversi` (GGF game records with `--games-out FILE.ggf`: the
/// result, each move's time, and the reason as a comment `C[...]`).
pub fn run_tournament(args: TournamentArgs) -> Result<()> {
    let ggf = args.options.games_out.as_ref().is_some_and(|p| is_ggf(&p.to_string_lossy()));
    let make = |spec: &PlayerSpec, seed| Ok(make_local_player(spec, seed)?);
    let write = |finished: &Finished<Reversi>, info: &GameInfo| {
        if !ggf {
            return write_saved_game(finished, info);
        }
        let mut game = GgfGame::from_finished(finished, info.names[0], info.names[1]);
        // Untimed games have no clock times: the players' moves (after the opening's) get the
        // time they took, in seconds.
        for (m, time) in game.moves.iter_mut().skip(info.opening_plies).zip(info.move_times) {
            m.time = m.time.or(Some((time.as_secs_f64() * 1000.0).round() / 1000.0));
        }
        let comment = format!("game {}: {} {}", info.index + 1, info.result, info.reason).replace('\\', "/").replace(']', ")");
        let text = game.to_string();
        format!("{}C[{comment}];)\n", text.strip_suffix(";)").unwrap_or(&text))
    };
    run_tournament_cli(&Reversi::new(), &args.options, 4..=8, make, write).map(drop)
}

/// Options of `tabletop openings reversi`.
#[derive(Args)]
pub struct OpeningsArgs {
    #[command(flatten)]
    /// The openings options.
    pub options: OpeningsOptions,
}

/// Runs `tabletop openings reversi`: the engine's estimate within half a disc (50 hundredths)
/// or an exact draw, duplicates up to the board's 8 symmetries.
pub fn run_openings(args: OpeningsArgs) -> Result<()> {
    let key = |p: &Reversi| {
        let (a, b) = p.player_opponent();
        let (a, b) = crate::games::reversi::symmetry::canonical(a, b);
        a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b
    };
    run_openings_cli(&Reversi::new(), &args.options, 6..=10, Balance { estimate: 50, exact: 0 }, key)
}

fn is_ggf(file: &str) -> bool {
    file.to_ascii_lowercase().ends_with(".ggf")
}

/// Options of `tabletop nboard`.
#[derive(Args)]
pub struct NboardArgs {
    /// The most time one move or hint may take, whatever depth the GUI sets.
    #[arg(long, default_value = "5s", value_parser = parse_duration_arg)]
    pub max_time: Duration,
    /// Evaluate with the pattern weights of FILE instead of the built-in ones (a file that
    /// `tabletop tune reversi --patterns --output` wrote): to compare trained weights in a
    /// match, each engine in its own `nboard:cmd=` process.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Search with the Multi-ProbCut parameters of FILE instead of the built-in ones (a file
    /// that `tabletop tune reversi --patterns --probcut-output` wrote).
    #[arg(long, value_name = "FILE")]
    pub probcut: Option<PathBuf>,
}

/// The largest ProbCut file read (the built-in one is a few kilobytes).
const PROBCUT_MAX_BYTES: u64 = 1 << 20;

/// `tabletop nboard`: the Reversi engine for Othello GUIs, over standard input and output.
pub fn nboard(args: NboardArgs) -> Result<()> {
    // Read and checked before the protocol starts, so that a bad file is an error on the
    // command line rather than an engine that answers with other weights than asked.
    let patterns = args.weights.as_deref().map(|path| read_pattern_weights("--weights", path)).transpose()?;
    let probcut = match &args.probcut {
        Some(path) => {
            let cut = ProbCut::parse(&read_capped(path, PROBCUT_MAX_BYTES)?)
                .map_err(|e| ToolError::Invalid(format!("--probcut {}: {e}", path.display())))?;
            // The engine holds `'static` parameters; this one file lives as long as the command.
            Some(&*Box::leak(Box::new(cut)))
        }
        None => None,
    };
    let settings = NboardSettings { max_time: args.max_time, patterns, probcut, ..NboardSettings::default() };
    serve(std::io::stdin().lock(), std::io::stdout().lock(), std::io::stderr(), &settings)?;
    Ok(())
}

/// What Reversi adds to the shared play loop.
struct ReversiPresenter {
    humans: [bool; 2],
    /// The document's program: its board, without the last move's mark.
    document: bool,
}

fn legal_list(position: &Reversi) -> String {
    let list: Vec<String> = position.legal_placements().iter().map(|s| s.to_string()).collect();
    list.join(" ")
}

impl Presenter<Reversi> for ReversiPresenter {
    fn title(&self, _start: &Reversi) -> String {
        "Reversi: black (X) moves first; place a disc to outflank the other side's discs, which turn over; \
         most discs at the end wins."
            .to_string()
    }

    fn computers(&self) -> Option<String> {
        Some(format!("Computer levels: {} (e.g. --player white=engine:level=club).", Level::names()))
    }

    fn seat_name(&self, seat: TSeat) -> String {
        capitalised(Color::from_seat(seat)).to_string()
    }

    fn seat_words(&self, seat: TSeat) -> &'static [&'static str] {
        match Color::from_seat(seat) {
            Color::Black => &["black", "b", "x"],
            Color::White => &["white", "w", "o"],
        }
    }

    fn make_player(&self, spec: &PlayerSpec, _seat: TSeat, seed: u64) -> Result<Box<dyn Player<Reversi>>> {
        Ok(make_local_player(spec, seed)?)
    }

    fn save_text_for(&self, file: &str, record: &Record<Reversi>) -> Option<String> {
        is_ggf(file).then(|| format!("{}\n", GgfGame::from_record(record, "Black", "White")))
    }

    fn load_text(&mut self, text: &str) -> Option<Result<Record<Reversi>>> {
        let ggf = text.trim_start().starts_with("(;");
        ggf.then(|| text.parse::<GgfGame>().and_then(|g| g.to_record()).map_err(crate::tools::invalid))
    }

    fn board(&self, record: &Record<Reversi>, color: bool) -> String {
        let pos = record.current();
        let legal = if self.humans[pos.side_to_move() as usize] { pos.placements() } else { 0 };
        // The last disc placed (a pass places none) is in brackets.
        let last = record.moves().iter().rev().find_map(|mv| match mv {
            ReversiMove::Place(sq) if !self.document => Some(*sq),
            _ => None,
        });
        let mut text = render_board_marked(pos, legal, last, |text, disc| match disc {
            Some(Color::Black) => paint(text, 39, color),
            Some(Color::White) => paint(text, 226, color),
            None => paint(text, 244, color),
        });
        if let Some(name) = crate::games::reversi::openings::opening_name(record.moves()).filter(|_| !self.document) {
            text += &format!("Opening: {name}\n");
        }
        text
    }

    fn prompt(&self, record: &Record<Reversi>) -> String {
        let pos = record.current();
        format!("{} to move ({})> ", capitalised(pos.side_to_move()), legal_list(pos))
    }

    fn move_help(&self, _position: &Reversi) -> String {
        "a square such as f5 (the legal ones are marked * and listed in the prompt)".to_string()
    }

    fn refusal(&self, record: &Record<Reversi>, reason: &str) -> String {
        format!("{reason}. Legal moves: {}.", legal_list(record.current()))
    }

    fn forced_move(&self, position: &Reversi) -> Option<(ReversiMove, String)> {
        (!position.is_over() && position.placements() == 0).then(|| {
            (ReversiMove::Pass, format!("{} has no legal move and passes.", capitalised(position.side_to_move())))
        })
    }

    fn result(&self, record: &Record<Reversi>) -> String {
        let pos = record.current();
        let (b, w) = (pos.discs(Color::Black), pos.discs(Color::White));
        let score = pos.final_score(Color::Black);
        let reason = pos.end_reason().unwrap_or_default();
        let winner = match score.cmp(&0) {
            std::cmp::Ordering::Greater => Some("Black"),
            std::cmp::Ordering::Less => Some("White"),
            std::cmp::Ordering::Equal => None,
        };
        crate::value::result_sentence(winner, &format!("Black {b}, White {w} discs"), &reason)
    }
}

fn parse_humans(text: &str) -> Result<[bool; 2]> {
    Ok(match text.trim().to_ascii_lowercase().as_str() {
        "black" | "b" | "x" => [true, false],
        "white" | "w" | "o" => [false, true],
        "both" => [true, true],
        "none" => [false, false],
        other => bail!("--human {other:?}: expected black, white, both or none"),
    })
}

/// Terminal play; standard input may be a script.
pub fn play(args: PlayArgs) -> Result<()> {
    // A game at the terminal has the machine to itself: engines search on every core.
    crate::games::reversi::players::set_default_threads(crate::games::reversi::players::all_cores());
    let start = parse_position(args.position.as_deref())?;
    let humans = parse_humans(args.human.as_deref().unwrap_or("black"))?;
    let computer: PlayerSpec = if args.document {
        match args.depth.unwrap_or(6) {
            depth @ (6 | 8) => format!("classic:depth={depth}").parse()?,
            other => bail!("--depth {other}: the document's program searches to depth 6 or 8"),
        }
    } else {
        PlayerSpec::named(crate::levels::DEFAULT_COMPUTER)
    };
    let defaults: Vec<PlayerSpec> =
        humans.iter().map(|&h| if h { PlayerSpec::named("human") } else { computer.clone() }).collect();
    let mut presenter = ReversiPresenter { humans: [false; 2], document: args.document };
    let mut specs = seat_specs(&presenter, &defaults, &args.players)?;
    let controls = take_seat_clocks(&mut specs, args.clock.tc)?;
    presenter.humans = [specs[0].name == "human", specs[1].name == "human"];
    let seats = seat_players(&presenter, &specs, args.seed)?;
    let mut table = Table::new(&mut presenter, seats, start, use_color(args.no_color))
        .document_mode(args.document)
        .with_clocks(&controls);
    table.run(&mut Input::new())
}

fn capitalised(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}
