//! `tabletop ... mathable`: terminal play, seat-aware matches, benchmarks and the move lister.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::tools::{bail, tool_error, ToolResult as Result};
use clap::Args;
use crate::games::mathable::players::from_spec;
use crate::games::mathable::text::{self, Grid, Shade};
use crate::games::mathable::{Mathable, MathableMove, Preset, SaveState, Tokens};
use crate::games::mathable::options::{load_state, GameOptions};
use crate::{Game, Player, PlayerSpec, Record, Seat};

use crate::tools::common::{paint, use_color, Input};
use crate::tools::play::{seat_players, seat_specs, take_seat_clocks, ClockArgs, Presenter, Table};

/// Options of `tabletop play mathable`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameOptions,
    /// Who sits where: SEAT=SPEC with seats numbered from 1, e.g. `--player 2=greedy`
    /// (specs: human, engine[:time=1s], greedy, random, external:cmd="COMMAND" (a program speaking
    /// docs/PROTOCOL.md)). Default: player 1 human, others engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    players_specs: Vec<String>,
    /// Seed of the bag (default: from the clock, printed at the start).
    #[arg(long)]
    seed: Option<u64>,
    /// Continue a saved game (its settings replace the options above).
    #[arg(long)]
    load: Option<PathBuf>,
    /// The simplified rules' program: people at every seat (unless --player says otherwise),
    /// the simple preset, its headers ("Player 2's turn", "Bag (83 tokens)", "Rack: [ ... ]"),
    /// its swap dialogue and a text grid drawn with `|` and `_`.
    #[arg(long)]
    document: bool,
    /// No colours.
    #[arg(long)]
    no_color: bool,
    #[command(flatten)]
    clock: ClockArgs,
}

const SPECIAL_COLOR: u8 = 244;
const TOKEN_COLOR: u8 = 255;
const LAST_COLOR: u8 = 214;

// ---------------------------------------------------------------------------------------------
// Terminal play

/// What Mathable adds to the shared play loop: its board with scores and the bag, the rack of
/// the person to move, the action menu (P place, S swap, E end the turn, T terminate, which the
/// computer seats must agree to outside `--document`) with its dialogues, the extra-draw
/// question, its JSON saves, and hidden racks between people.
struct MathablePresenter {
    names: Vec<String>,
    humans: Vec<bool>,
    /// A loaded save's position and the moves that led to it (kept in saves of games that
    /// continue from it).
    earlier_history: Option<(Mathable, Vec<String>)>,
    /// The seat whose rack was last revealed (people at one terminal look away in between).
    revealed: Option<Seat>,
    color: bool,
    /// The simplified rules' program's wording and grid.
    document: bool,
    /// The order in which the person typed the tokens of each exchange, by its index in the
    /// record's moves (the program shows racks in typed and drawn order).
    typed_exchanges: std::collections::HashMap<usize, Vec<u8>>,
}

impl MathablePresenter {
    fn several_humans(&self) -> bool {
        self.humans.iter().filter(|&&h| h).count() > 1
    }

    /// The racks in the program's order after the record's moves (see [`text::DrawnOrder`]).
    fn drawn_order(&self, record: &Record<Mathable>) -> text::DrawnOrder {
        let mut order = text::DrawnOrder::new(record.start());
        for (i, (before, &mv)) in record.positions().iter().zip(record.moves()).enumerate() {
            order.play(before, mv, self.typed_exchanges.get(&i).map(Vec::as_slice));
        }
        order
    }

    /// `P G9 4` or `P` then `Enter move: G9 4`.
    fn place(&self, game: &Mathable, inline: &str, input: &mut Input) -> Vec<MathableMove> {
        let text = if inline.is_empty() {
            match input.ask("Enter move: ") {
                Some(t) => t,
                None => return Vec::new(),
            }
        } else {
            inline.to_string()
        };
        let mv = match game.parse_move(&text) {
            Ok(mv @ MathableMove::Place { .. }) => mv,
            Ok(_) | Err(crate::games::mathable::MathableMoveError::Syntax(_)) => {
                println!("Enter a cell and a token, like G9 4.");
                return Vec::new();
            }
            Err(e) => {
                println!("{e}");
                return Vec::new();
            }
        };
        let MathableMove::Place { cell, token } = mv else { return Vec::new() };
        match game.illegal_reason(mv) {
            Some(e) => {
                println!("{e}");
                Vec::new()
            }
            None => {
                let pts = game.board().score(cell, token).unwrap_or(0);
                println!("Placed {token} on {cell}: +{pts} points.");
                vec![mv]
            }
        }
    }

    /// The swap dialogue: how many, which, then the exchange.
    fn swap(&mut self, record: &Record<Mathable>, input: &mut Input) -> Vec<MathableMove> {
        let game = record.current();
        if !game.can_exchange() {
            println!("You cannot exchange after placing a token this turn.");
            return Vec::new();
        }
        let rack = *game.rack(game.turn());
        let question = if self.document {
            "How many to swap? ".to_string()
        } else {
            format!("How many tokens (1-{})? ", rack.len())
        };
        let Some(count) = input.ask(&question) else { return Vec::new() };
        let n = match count.trim().parse::<usize>() {
            Ok(n) if (1..=rack.len()).contains(&n) => n,
            _ => {
                println!("{count:?} is not a number from 1 to {}.", rack.len());
                return Vec::new();
            }
        };
        if game.bag().len() < n {
            println!("The bag holds only {} tokens, fewer than the {n} you want to exchange.", game.bag().len());
            return Vec::new();
        }
        let which = if self.document {
            // One question per token: "1st token to swap:", "2nd token to swap:", ...
            let mut words = Vec::new();
            for i in 1..=n {
                let Some(word) = input.ask(&format!("{} token to swap: ", text::ordinal(i))) else { return Vec::new() };
                words.push(word);
            }
            words.join(" ")
        } else {
            let Some(which) = input.ask("Which tokens? ") else { return Vec::new() };
            which
        };
        let tokens = match which.parse::<Tokens>() {
            Ok(tokens) if tokens.len() == n => tokens,
            Ok(tokens) => {
                println!("You said {n} tokens but listed {}.", tokens.len());
                return Vec::new();
            }
            Err(e) => {
                println!("{e}.");
                return Vec::new();
            }
        };
        let mv = MathableMove::Exchange(tokens);
        let mut copy = game.clone();
        match copy.exchange(tokens) {
            Ok(_) if self.document => {
                // The program's order: the tokens as typed, each with the token drawn for it,
                // and the rack with each new token where the old one was.
                let typed: Vec<u8> = which.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
                let text: Vec<String> =
                    typed.iter().zip(game.draws_of(mv)).map(|(o, n)| format!("{o} -> {n}")).collect();
                println!("Swapped {}", text.join(", "));
                let ply = record.moves().len();
                self.typed_exchanges.insert(ply, typed);
                let mut order = self.drawn_order(record);
                order.play(game, mv, self.typed_exchanges.get(&ply).map(Vec::as_slice));
                println!("Rack swapped: {}", text::InOrder(order.rack(game.turn())));
                vec![mv]
            }
            Ok(pairs) => {
                let text: Vec<String> = pairs.iter().map(|(o, n)| format!("{o} -> {n}")).collect();
                println!("Swapped {}", text.join(", "));
                vec![mv]
            }
            Err(e) => {
                println!("{e}");
                Vec::new()
            }
        }
    }
}

impl Presenter<Mathable> for MathablePresenter {
    fn title(&self, start: &Mathable) -> String {
        let s = start.settings();
        format!(
            "Mathable: {}x{} board, {} players, rack {}, {} tokens, {} squares, seed {}.",
            s.size, s.size, s.players, s.rack, s.tokens, s.layout, s.seed
        )
    }

    fn seat_name(&self, seat: Seat) -> String {
        format!("Player {}", seat.index() + 1)
    }

    fn seat_words(&self, _seat: Seat) -> &'static [&'static str] {
        &[]
    }

    fn make_player(&self, spec: &PlayerSpec, seat: Seat, seed: u64) -> Result<Box<dyn Player<Mathable>>> {
        crate::external::make_local_player_with(spec, bot_view(), |spec| from_spec(spec, seed.wrapping_add(1))).map_err(|e| {
            let human = if matches!(e, crate::SpecError::UnknownName { .. }) { ", human" } else { "" };
            tool_error!("player {}: {spec}: {e}{human}", seat.index() + 1)
        })
    }

    fn board(&self, record: &Record<Mathable>, color: bool) -> String {
        let game = record.current();
        if self.document {
            return Grid(game.board()).to_string();
        }
        let mut out = text::terminal_board(game, &text::last_placements(record.moves()), !color, |t, shade| {
            let code = match shade {
                Shade::Special => SPECIAL_COLOR,
                Shade::Token => TOKEN_COLOR,
                Shade::Last => LAST_COLOR,
            };
            paint(t, code, color)
        });
        let scores: Vec<String> =
            self.names.iter().enumerate().map(|(s, name)| format!("{name} {}", game.score(Seat(s as u8)))).collect();
        out.push_str(&format!("Scores: {}   Bag: {} tokens\n", scores.join(" | "), game.bag().len()));
        out
    }

    fn situation(&self, record: &Record<Mathable>) -> Option<String> {
        let seat = record.current().turn();
        if self.document {
            let game = record.current();
            return Some(format!(
                "{}'s turn\nBag ({} tokens)\nRack: {}",
                self.seat_name(seat),
                game.bag().len(),
                text::InOrder(self.drawn_order(record).rack(seat))
            ));
        }
        Some(format!("{} to move. Your rack: {}", self.names[seat.index()], record.current().rack(seat)))
    }

    fn prompt(&self, record: &Record<Mathable>) -> String {
        if record.current().can_exchange() { "Action (P/S/E/T): " } else { "Action (P/E/T): " }.to_string()
    }

    fn move_help(&self, position: &Mathable) -> String {
        format!(
            "P to place a token (then G9 4), {}E to end the turn, T to terminate the game",
            if position.can_exchange() { "S to swap tokens, " } else { "" }
        )
    }

    fn command(
        &mut self,
        word: &str,
        rest: &str,
        record: &Record<Mathable>,
        input: &mut Input,
    ) -> Option<Vec<MathableMove>> {
        let game = record.current();
        let seat = game.turn();
        Some(match word {
            "p" => self.place(game, rest, input),
            "s" => self.swap(record, input),
            "e" => {
                if game.placed_this_turn() == 0 {
                    println!("{} passes.", self.names[seat.index()]);
                }
                let bonus = game.pending_bonus();
                if bonus > 0 {
                    println!("You placed your whole rack: bonus {bonus}!");
                }
                vec![MathableMove::EndTurn]
            }
            "t" => match input.ask("Terminate the game now, ranking players by their scores? (y/n) ") {
                Some(a) if a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes") => {
                    // Against the computer, terminating is a proposal each computer answers (never
                    // a free win); the document's program ends the game at once.
                    let refusal = (0..self.humans.len())
                        .filter(|&s| !self.document && s != seat.index() && !self.humans[s])
                        .find_map(|s| game.agrees_to_end(Seat(s as u8)).err());
                    if let Some(refusal) = refusal {
                        println!("{refusal}\nThe game goes on.");
                        return Some(Vec::new());
                    }
                    vec![MathableMove::Terminate]
                }
                _ => {
                    println!("The game goes on.");
                    Vec::new()
                }
            },
            _ => {
                // Moves in notation (G9=4, end, swap=2,5) are played as typed; anything else is
                // not an action.
                let line = if rest.is_empty() { word.to_string() } else { format!("{word} {rest}") };
                if game.parse_move(&line).is_ok() {
                    return None;
                }
                let allowed = if game.can_exchange() { "P, S, E or T" } else { "P, E or T" };
                println!("Unknown action {line:?}: type {allowed} (or hint, undo, save FILE, load FILE, help).");
                Vec::new()
            }
        })
    }

    fn follow_up(&mut self, record: &Record<Mathable>, input: &mut Input) -> Option<MathableMove> {
        let game = record.current();
        if !game.extra_draw_pending() || game.bag().is_empty() || !self.humans[game.turn().index()] {
            return None;
        }
        while let Some(answer) = input.ask("Restriction square: draw an extra token? (Y/N): ") {
            match answer.to_ascii_lowercase().as_str() {
                "y" | "yes" => {
                    let mut after = game.clone();
                    after.play_unchecked(MathableMove::Draw);
                    println!("You drew an extra token. Your rack: {}", after.rack(game.turn()));
                    return Some(MathableMove::Draw);
                }
                "n" | "no" => return None,
                _ => println!("Answer Y or N."),
            }
        }
        None
    }

    fn before_person(&mut self, record: &Record<Mathable>, input: &mut Input) -> bool {
        let seat = record.current().turn();
        if self.document || !self.several_humans() || self.revealed == Some(seat) {
            return true;
        }
        self.revealed = Some(seat);
        println!("\n{}: your turn (the other players look away).", self.seat_name(seat));
        if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
            // Clear the screen so the previous player's rack is gone, then wait for the player.
            print!("\x1b[2J\x1b[H");
            if input.ask(&format!("{}: press Enter to see your rack. ", self.seat_name(seat))).is_none() {
                return false;
            }
        }
        true
    }

    fn announce(&self, before: &Mathable, mv: MathableMove, _spec: &str) -> Option<String> {
        let name = &self.names[before.turn().index()];
        Some(match mv {
            MathableMove::Place { cell, token } => {
                format!("{name} places {token} on {cell}: +{}", before.board().score(cell, token).unwrap_or(0))
            }
            MathableMove::Draw => format!("{name} draws an extra token (restriction square)."),
            MathableMove::EndTurn if before.pending_bonus() > 0 => {
                format!("{name} placed the whole rack: bonus {}!", before.pending_bonus())
            }
            MathableMove::EndTurn if before.placed_this_turn() == 0 => format!("{name} passes."),
            MathableMove::EndTurn => format!("{name} ends the turn."),
            MathableMove::Exchange(t) => {
                format!("{name} exchanges {} token{}.", t.len(), if t.len() == 1 { "" } else { "s" })
            }
            MathableMove::Terminate => format!("{name} terminates the game."),
        })
    }

    fn result(&self, record: &Record<Mathable>) -> String {
        text::result_text(record.current(), &self.names)
    }


    fn save_text(&self, record: &Record<Mathable>) -> Option<String> {
        let mut history = match &self.earlier_history {
            Some((start, moves)) if start == record.start() => moves.clone(),
            _ => Vec::new(),
        };
        history.extend(record.moves().iter().map(|m| m.to_string()));
        Some(SaveState::from_game(record.current(), &history).to_json(true) + "\n")
    }

    fn load_text(&mut self, text: &str) -> Option<Result<Record<Mathable>>> {
        Some(
            SaveState::read(text)
                .map(|(game, history)| {
                    self.earlier_history = Some((game.clone(), history));
                    Record::new(game)
                })
                .map_err(crate::tools::invalid),
        )
    }
}

/// Runs `tabletop play mathable`.
pub fn play(args: PlayArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    });
    let (game, history) = match &args.load {
        Some(path) => load_state(path)?,
        None => {
            let mut options = args.game.clone();
            if args.document {
                // The program plays the simplified rules only: another preset is refused, not
                // silently replaced.
                match options.preset {
                    None | Some(Preset::Simple) => options.preset = Some(Preset::Simple),
                    Some(other) => bail!(
                        "--document plays the simplified rules' program, which has only the simple preset's rules; \
                         to play --preset {other}, leave out --document"
                    ),
                }
            }
            (Mathable::new(&options.settings(seed)?).map_err(crate::tools::invalid)?, Vec::new())
        }
    };
    let players = game.settings().players as usize;
    let mut defaults = vec![PlayerSpec::named(if args.document { "human" } else { crate::levels::DEFAULT_COMPUTER }); players];
    defaults[0] = PlayerSpec::named("human");
    let mut presenter = MathablePresenter {
        names: Vec::new(),
        humans: Vec::new(),
        earlier_history: Some((game.clone(), history)),
        revealed: None,
        color: use_color(args.no_color),
        document: args.document,
        typed_exchanges: std::collections::HashMap::new(),
    };
    for text in &args.players_specs {
        let seat = text.split_once('=').map(|(s, _)| s.trim());
        if !seat.is_some_and(|s| s.parse::<usize>().is_ok_and(|n| (1..=players).contains(&n))) {
            bail!("bad --player {text:?}: write SEAT=SPEC with seats from 1 to {players}, e.g. 2=greedy (seats go from 1 to {players})");
        }
    }
    let mut specs = seat_specs(&presenter, &defaults, &args.players_specs)?;
    let controls = take_seat_clocks(&mut specs, args.clock.tc)?;
    let seats = seat_players(&presenter, &specs, seed)?;
    presenter.humans = specs.iter().map(|s| s.name == "human").collect();
    let several = presenter.several_humans();
    presenter.names = specs
        .iter()
        .enumerate()
        .map(|(i, s)| match (s.name == "human", several) {
            (true, true) => format!("Player {}", i + 1),
            (true, false) => format!("Player {} (you)", i + 1),
            (false, _) => format!("Player {} ({s})", i + 1),
        })
        .collect();
    let color = presenter.color;
    let mut table = Table::new(&mut presenter, seats, game, color).document_mode(args.document).with_clocks(&controls);
    table.run(&mut Input::new())
}

/// What an external bot (`external:cmd=...`) is told of a Mathable game: what its seat may see.
/// The variant is the settings as JSON without the bag's seed; the position is the save state
/// (the notation) with the other racks and the bag given as their numbers of tokens, and
/// without the seed and the bag generator's position; another seat's exchange is `swap=?,?`
/// (one `?` a token).
///
/// ```
/// use tabletop::games::mathable::terminal::bot_view;
/// use tabletop::games::mathable::{Mathable, Preset, Settings};
/// use tabletop::{Game, Seat};
/// let game = Mathable::start(&Settings::preset(Preset::Classic).with_seed(1));
/// let view = bot_view();
/// assert!(!(view.variant)(&game).contains("seed"));
/// let seen: serde_json::Value = serde_json::from_str(&(view.position)(&game, Seat(0))).unwrap();
/// assert_eq!(seen["racks"][0].as_array().unwrap().len(), 7);
/// assert_eq!(seen["racks"][1], 7);
/// assert!(seen["bag"].is_u64() && seen.get("rng_word_pos").is_none());
/// ```
pub fn bot_view() -> crate::external::View<Mathable> {
    crate::external::View {
        variant: |game| {
            let mut settings = serde_json::to_value(game.settings()).unwrap_or_default();
            if let Some(map) = settings.as_object_mut() {
                map.remove("seed");
            }
            settings.to_string()
        },
        position: |game, seat| {
            let mut state = serde_json::to_value(SaveState::from_game(game, &[])).unwrap_or_default();
            if let Some(map) = state.as_object_mut() {
                map.remove("rng_word_pos");
                if let Some(settings) = map.get_mut("settings").and_then(|s| s.as_object_mut()) {
                    settings.remove("seed");
                }
                map.insert("bag".to_string(), serde_json::json!(game.bag().len()));
                if let Some(racks) = map.get_mut("racks").and_then(|r| r.as_array_mut()) {
                    for (i, rack) in racks.iter_mut().enumerate() {
                        if i != seat.index() {
                            *rack = serde_json::json!(rack.as_array().map_or(0, |r| r.len()));
                        }
                    }
                }
            }
            state.to_string()
        },
        history_move: |mv, own| match mv {
            MathableMove::Exchange(tokens) if !own => format!("swap={}", vec!["?"; tokens.as_slice().len()].join(",")),
            other => other.to_string(),
        },
    }
}
