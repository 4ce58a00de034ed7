//! `tabletop ... mathable`: terminal play, seat-aware matches, benchmarks and the move lister.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use tabletop::games::mathable::engine::EnginePlayer;
use tabletop::games::mathable::players::{from_spec, greedy_move};
use tabletop::games::mathable::{
    Cell, Layout, Mathable, MathableMove, Operations, Preset, SaveState, Settings, Square, TokenSet, Tokens,
};
use tabletop::{Game, Outcome, Player, PlayerSpec, Record, Seat, Status};

use crate::common::{paint, use_color, Input};

/// The game settings every Mathable command takes: a preset and overrides of its parts.
#[derive(Args, Clone, Debug)]
pub struct GameOptions {
    /// Preset: classic (the official rules, the default), junior, simple (no special squares,
    /// no bonus, no end-of-game deductions).
    #[arg(long, default_value = "classic")]
    preset: Preset,
    /// Number of players, 2 to 4.
    #[arg(long)]
    players: Option<u8>,
    /// Board size N (even, 8 to 14).
    #[arg(long)]
    size: Option<u8>,
    /// Rack size R (4 to 8).
    #[arg(long)]
    rack: Option<u8>,
    /// Token set: classic (106) or junior (60).
    #[arg(long)]
    tokens: Option<TokenSet>,
    /// Special squares: official or plain.
    #[arg(long)]
    layout: Option<Layout>,
    /// Operations: all or addsub.
    #[arg(long)]
    operations: Option<Operations>,
    /// Bonus for placing a full rack in one turn (0 = none).
    #[arg(long)]
    bonus: Option<u16>,
    /// End-of-game deductions of the tokens left on the racks (true/false).
    #[arg(long)]
    deductions: Option<bool>,
}

impl GameOptions {
    fn settings(&self, seed: u64) -> Result<Settings> {
        let mut s = Settings::preset(self.preset);
        s.players = self.players.unwrap_or(s.players);
        s.size = self.size.unwrap_or(s.size);
        s.rack = self.rack.unwrap_or(s.rack);
        s.tokens = self.tokens.unwrap_or(s.tokens);
        s.layout = self.layout.unwrap_or(s.layout);
        s.operations = self.operations.unwrap_or(s.operations);
        s.bonus = self.bonus.unwrap_or(s.bonus);
        s.deductions = self.deductions.unwrap_or(s.deductions);
        s.seed = seed;
        s.validate()?;
        Ok(s)
    }
}

/// Options of `tabletop play mathable`.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameOptions,
    /// Who sits where: SEAT=SPEC with seats numbered from 1, e.g. `--player 2=greedy`
    /// (specs: human, engine[:time=1s], greedy, random). Default: player 1 human, others engine.
    #[arg(long = "player", value_name = "SEAT=SPEC")]
    players_specs: Vec<String>,
    /// Seed of the bag (default: from the clock, printed at the start).
    #[arg(long)]
    seed: Option<u64>,
    /// Continue a saved game (its settings replace the options above).
    #[arg(long)]
    load: Option<PathBuf>,
    /// No colours.
    #[arg(long)]
    no_color: bool,
}

/// Options of `tabletop match mathable`.
#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    game: GameOptions,
    /// Player A then player B (default engine vs greedy).
    #[arg(long = "player", value_name = "SPEC")]
    players_specs: Vec<PlayerSpec>,
    /// Number of games; game 2i and 2i+1 share a bag seed with the seats swapped.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Seed of the first pair's bag.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Print one line per game.
    #[arg(long)]
    verbose: bool,
}

/// Options of `tabletop bench mathable`.
#[derive(Args)]
pub struct BenchArgs {
    /// Mid-game positions to time (classic 14x14 after 10 greedy turns each).
    #[arg(long, default_value_t = 20)]
    positions: u64,
    /// Engine spec for the computer-turn timing.
    #[arg(long, default_value = "engine")]
    engine: PlayerSpec,
}

fn load_state(path: &std::path::Path) -> Result<(Mathable, Vec<String>)> {
    let text = crate::common::read_capped(path, crate::common::SAVE_MAX_BYTES)?;
    let save = SaveState::from_json(&text).with_context(|| format!("cannot load {}", path.display()))?;
    let game = save.to_game().with_context(|| format!("cannot load {}", path.display()))?;
    Ok((game, save.history))
}

// ---------------------------------------------------------------------------------------------
// Drawing the board

const SPECIAL_COLOR: u8 = 244;
const TOKEN_COLOR: u8 = 255;
const LAST_COLOR: u8 = 214;

fn render_board(game: &Mathable, highlight: &[Cell], color: bool) -> String {
    let board = game.board();
    let n = board.size();
    let mut out = String::from("    ");
    for c in 0..n {
        out.push_str(&format!("{:>4}", (b'A' + c) as char));
    }
    out.push('\n');
    for r in 0..n {
        out.push_str(&format!("{:>4}", r + 1));
        for c in 0..n {
            let cell = Cell::new(r, c);
            let lit = highlight.contains(&cell);
            let text = match board.get(cell) {
                Some(v) if lit && !color => format!("{v:>3}*"),
                Some(v) => {
                    let t = format!("{v:>4}");
                    if lit {
                        paint(&t, LAST_COLOR, color)
                    } else if color && board.square(cell) != Square::Start {
                        paint(&t, TOKEN_COLOR, color)
                    } else {
                        t
                    }
                }
                None => {
                    let mark = board.square(cell).mark().unwrap_or(".");
                    let t = format!("{mark:>4}");
                    if mark == "." {
                        t
                    } else {
                        paint(&t, SPECIAL_COLOR, color)
                    }
                }
            };
            out.push_str(&text);
        }
        out.push('\n');
    }
    out.push_str("    3x/2x: triple/double points   + - x /: restriction squares");
    if !highlight.is_empty() {
        out.push_str(if color { "   (last placements highlighted)" } else { "   *: last placements" });
    }
    out.push('\n');
    out
}

fn result_text(game: &Mathable, names: &[String]) -> String {
    let mut lines = Vec::new();
    let cause = game.end_cause().map_or("", |c| c.as_str());
    lines.push(format!("Game over ({cause})."));
    if game.settings().deductions && game.end_cause() != Some(tabletop::games::mathable::EndCause::Terminated) {
        for (s, name) in names.iter().enumerate() {
            let left = game.rack(Seat(s as u8));
            if !left.is_empty() {
                lines.push(format!("{name} loses {} for {} left on the rack.", left.sum(), left));
            }
        }
    }
    for (s, name) in names.iter().enumerate() {
        lines.push(format!("  {name}: {}", game.score(Seat(s as u8))));
    }
    lines.push(match game.status() {
        Status::Over(Outcome::Win(w)) => format!("{} wins.", names[w.index()]),
        Status::Over(Outcome::SharedWin(set)) => {
            let who: Vec<&str> = set.seats().map(|s| names[s.index()].as_str()).collect();
            format!("Shared win: {}.", who.join(" and "))
        }
        _ => "Draw: every player has the same score.".to_string(),
    });
    lines.join("\n")
}

// ---------------------------------------------------------------------------------------------
// Terminal play

enum Seated {
    Human,
    Computer(Box<dyn Player<Mathable>>),
}

fn parse_seats(specs: &[String], players: usize, seed: u64) -> Result<(Vec<Seated>, Vec<String>)> {
    let mut chosen: BTreeMap<usize, PlayerSpec> = BTreeMap::new();
    for text in specs {
        let (seat, spec) = text.split_once('=').ok_or_else(|| {
            anyhow!("bad --player {text:?}: write SEAT=SPEC with seats from 1 to {players}, e.g. 2=greedy")
        })?;
        let seat: usize = seat
            .trim()
            .parse()
            .ok()
            .filter(|s| (1..=players).contains(s))
            .ok_or_else(|| anyhow!("bad seat {seat:?} in --player {text:?}: seats go from 1 to {players}"))?;
        let spec: PlayerSpec = spec.parse()?;
        chosen.insert(seat - 1, spec);
    }
    let mut seats = Vec::new();
    let mut names = Vec::new();
    for s in 0..players {
        let spec = chosen.remove(&s).unwrap_or_else(|| PlayerSpec::named(if s == 0 { "human" } else { "engine" }));
        if spec.name == "human" {
            seats.push(Seated::Human);
            names.push(format!("Player {} (you)", s + 1));
        } else {
            let player = from_spec(&spec, seed.wrapping_add(s as u64 + 1)).map_err(|e| {
                let human = if matches!(e, tabletop::SpecError::UnknownName { .. }) { ", human" } else { "" };
                anyhow!("{e}{human}").context(format!("player {}: {spec}", s + 1))
            })?;
            names.push(format!("Player {} ({})", s + 1, spec));
            seats.push(Seated::Computer(player));
        }
    }
    let humans = seats.iter().filter(|s| matches!(s, Seated::Human)).count();
    if humans > 1 {
        for (s, seat) in seats.iter().enumerate() {
            if matches!(seat, Seated::Human) {
                names[s] = format!("Player {}", s + 1);
            }
        }
    }
    Ok((seats, names))
}

struct Session {
    record: Record<Mathable>,
    history: Vec<String>,
    names: Vec<String>,
    seats: Vec<Seated>,
    color: bool,
    last: Vec<Cell>,
    /// The person quit (no end-of-input message then).
    abandoned: bool,
}

impl Session {
    fn game(&self) -> &Mathable {
        self.record.current()
    }

    fn play(&mut self, mv: MathableMove) -> Result<(), String> {
        self.record.play(mv).map_err(|e| e.to_string())?;
        self.history.push(mv.to_string());
        Ok(())
    }

    fn show(&self, seat: Seat, show_rack: bool) {
        let game = self.game();
        println!();
        print!("{}", render_board(game, &self.last, self.color));
        let scores: Vec<String> =
            self.names.iter().enumerate().map(|(s, name)| format!("{name} {}", game.score(Seat(s as u8)))).collect();
        println!("Scores: {}   Bag: {} tokens", scores.join(" | "), game.bag().len());
        if show_rack {
            println!("{} to move. Your rack: {}", self.names[seat.index()], game.rack(seat));
        }
    }

    fn save(&self, path: &str) -> Result<()> {
        let text = SaveState::from_game(self.game(), &self.history).to_json(true);
        std::fs::write(path, text + "\n").with_context(|| format!("cannot write {path}"))?;
        Ok(())
    }

    fn load(&mut self, path: &str) -> Result<()> {
        let (game, history) = load_state(&PathBuf::from(path))?;
        if game.settings().players as usize != self.seats.len() {
            bail!("{path} is a game for {} players, this table has {}", game.settings().players, self.seats.len());
        }
        self.record = Record::new(game);
        self.history = history;
        self.last.clear();
        Ok(())
    }

    /// Takes back moves until a person is to move again, having taken back at least one: within
    /// the current turn one placement, at its start the turns back to the person's last one.
    /// False, changing nothing, when there is none of a person's moves to take back.
    fn undo(&mut self) -> bool {
        let mut undone = Vec::new();
        while let Some(mv) = self.record.undo() {
            undone.push(mv);
            self.history.pop();
            let to_move = self.game().turn();
            if matches!(self.seats[to_move.index()], Seated::Human) && !self.game().extra_draw_pending() {
                self.last.clear();
                return true;
            }
        }
        for mv in undone.into_iter().rev() {
            let _ = self.play(mv);
        }
        false
    }

    /// Reports the end of a turn of `seat` (after `EndTurn` or an exchange).
    fn turn_summary(&mut self, seat: Seat, before: i32) {
        let gained = self.game().score(seat) - before;
        if gained > 0 {
            println!("{} scores {gained} points this turn.", self.names[seat.index()]);
        }
    }

    fn computer_turn(&mut self, seat: Seat) {
        let before = self.game().score(seat);
        self.last.clear();
        loop {
            let Seated::Computer(player) = &mut self.seats[seat.index()] else { return };
            let mv = player.choose_move(&self.record);
            let game = self.game().clone();
            let name = self.names[seat.index()].clone();
            match mv {
                MathableMove::Place { cell, token } => {
                    let pts = game.board().score(cell, token).unwrap_or(0);
                    println!("{name} places {token} on {cell}: +{pts}");
                    self.last.push(cell);
                }
                MathableMove::Draw => println!("{name} draws an extra token (restriction square)."),
                MathableMove::EndTurn => {
                    let bonus = game.pending_bonus();
                    if bonus > 0 {
                        println!("{name} placed the whole rack: bonus {bonus}!");
                    }
                    if game.placed_this_turn() == 0 {
                        println!("{name} passes.");
                    }
                }
                MathableMove::Exchange(t) => println!("{name} exchanges {} token(s).", t.len()),
                MathableMove::Terminate => println!("{name} terminates the game."),
            }
            if let Err(e) = self.play(mv) {
                println!("{name} made an illegal move {mv}: {e}; its turn ends.");
                let _ = self.play(MathableMove::EndTurn);
            }
            if self.game().turn() != seat || self.game().end_cause().is_some() {
                break;
            }
        }
        self.turn_summary(seat, before);
    }

    /// One human turn; returns false when the input ended or the player quit.
    fn human_turn(&mut self, seat: Seat, input: &mut Input, several_humans: bool) -> bool {
        if several_humans {
            println!("\n{}: your turn (the other players look away).", self.names[seat.index()]);
            if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
                // Clear the screen so the previous player's rack is gone, then wait for the player.
                print!("\x1b[2J\x1b[H");
                if input.ask(&format!("{}: press Enter to see your rack. ", self.names[seat.index()])).is_none() {
                    return false;
                }
            }
        }
        let before = self.game().score(seat);
        let mut shown = false;
        loop {
            if self.game().turn() != seat || self.game().end_cause().is_some() {
                self.turn_summary(seat, before);
                return true;
            }
            if !shown {
                self.show(seat, true);
                shown = true;
            }
            let game = self.game().clone();
            let prompt = if game.can_exchange() { "Action (P/S/E/T): " } else { "Action (P/E/T): " };
            let Some(line) = input.ask(prompt) else { return false };
            let lower = line.to_ascii_lowercase();
            let (word, rest) = match lower.split_once(char::is_whitespace) {
                Some((w, r)) => (w.to_string(), r.trim().to_string()),
                None => (lower.clone(), String::new()),
            };
            match word.as_str() {
                "" => {}
                "p" => self.human_place(seat, input, &rest, &mut shown),
                "s" => self.human_swap(input),
                "e" => {
                    if game.placed_this_turn() == 0 {
                        println!("{} passes.", self.names[seat.index()]);
                    }
                    let bonus = game.pending_bonus();
                    if bonus > 0 {
                        println!("You placed your whole rack: bonus {bonus}!");
                    }
                    self.play(MathableMove::EndTurn).expect("ending the turn is always legal");
                    self.last.clear();
                }
                "t" => match input.ask("Terminate the game now, ranking players by their scores? (y/n) ") {
                    Some(a) if a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes") => {
                        self.play(MathableMove::Terminate).expect("terminating is always legal");
                    }
                    Some(_) => println!("The game goes on."),
                    None => return false,
                },
                "undo" => {
                    if self.undo() {
                        shown = false;
                        if self.game().turn() != seat {
                            return true;
                        }
                    } else {
                        println!("Nothing to undo.");
                    }
                }
                "hint" => self.hint(),
                "save" if !rest.is_empty() => match self.save(line.split_whitespace().nth(1).unwrap_or("")) {
                    Ok(()) => println!("Saved to {}.", rest),
                    Err(e) => println!("{e:#}"),
                },
                "load" if !rest.is_empty() => match self.load(line.split_whitespace().nth(1).unwrap_or("")) {
                    Ok(()) => {
                        println!("Loaded {rest}.");
                        return true;
                    }
                    Err(e) => println!("{e:#}"),
                },
                "save" | "load" => println!("Write {word} FILE."),
                "board" => shown = false,
                "help" | "?" => println!(
                    "P place a token (then G9 4), {}E end the turn, T terminate the game; or hint, \
                     undo (your last placement, or your last turn), board, save FILE, load FILE, quit",
                    if game.can_exchange() { "S swap tokens, " } else { "" }
                ),
                "quit" | "q" => {
                    match input.ask("Abandon the game in progress? (y/n) ") {
                        Some(a) if a.eq_ignore_ascii_case("n") || a.eq_ignore_ascii_case("no") => continue,
                        _ => {}
                    }
                    println!("Game abandoned.");
                    self.abandoned = true;
                    return false;
                }
                _ => println!(
                    "Unknown action {line:?}: type {} (or hint, undo, save FILE, load FILE, help).",
                    if game.can_exchange() { "P, S, E or T" } else { "P, E or T" }
                ),
            }
        }
    }

    fn human_place(&mut self, seat: Seat, input: &mut Input, inline: &str, shown: &mut bool) {
        let text = if inline.is_empty() {
            match input.ask("Enter move: ") {
                Some(t) => t,
                None => return,
            }
        } else {
            inline.to_string()
        };
        let game = self.game().clone();
        let mv = match game.parse_move(&text) {
            Ok(mv @ MathableMove::Place { .. }) => mv,
            Ok(_) | Err(tabletop::games::mathable::MathableMoveError::Syntax(_)) => {
                println!("Enter a cell and a token, like G9 4.");
                return;
            }
            Err(e) => {
                println!("{e}");
                return;
            }
        };
        let MathableMove::Place { cell, token } = mv else { return };
        let pts = game.board().score(cell, token).unwrap_or(0);
        if let Err(e) = self.play(mv) {
            println!("{e}");
            return;
        }
        self.last.push(cell);
        println!("Placed {token} on {cell}: +{pts} points.");
        let after = self.game().clone();
        if after.extra_draw_pending() && !after.bag().is_empty() {
            while let Some(answer) = input.ask("Restriction square: draw an extra token? (Y/N): ") {
                match answer.to_ascii_lowercase().as_str() {
                    "y" | "yes" => {
                        self.play(MathableMove::Draw).expect("the extra draw is legal here");
                        let rack = self.game().rack(seat);
                        println!("You drew an extra token. Your rack: {rack}");
                        break;
                    }
                    "n" | "no" => break,
                    _ => println!("Answer Y or N."),
                }
            }
        }
        *shown = false;
    }

    fn human_swap(&mut self, input: &mut Input) {
        let game = self.game().clone();
        if !game.can_exchange() {
            println!("You cannot exchange after placing a token this turn.");
            return;
        }
        let rack = *game.rack(game.turn());
        let Some(count) = input.ask(&format!("How many tokens (1-{})? ", rack.len())) else { return };
        let n = match count.trim().parse::<usize>() {
            Ok(n) if (1..=rack.len()).contains(&n) => n,
            _ => {
                println!("{count:?} is not a number from 1 to {}.", rack.len());
                return;
            }
        };
        if game.bag().len() < n {
            println!("The bag holds only {} tokens, fewer than the {n} you want to exchange.", game.bag().len());
            return;
        }
        let Some(which) = input.ask("Which tokens? ") else { return };
        let mut values = Vec::new();
        for word in which.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
            match word.parse::<u8>() {
                Ok(v) => values.push(v),
                Err(_) => {
                    println!("{word:?} is not a token.");
                    return;
                }
            }
        }
        if values.len() != n {
            println!("You said {n} tokens but listed {}.", values.len());
            return;
        }
        let Some(tokens) = Tokens::from_slice(&values) else {
            println!("Those are not tokens of your rack ({rack}).");
            return;
        };
        let mut copy = game.clone();
        match copy.exchange(tokens) {
            Ok(pairs) => {
                let text: Vec<String> = pairs.iter().map(|(o, n)| format!("{o} -> {n}")).collect();
                println!("Swapped {}", text.join(", "));
                self.play(MathableMove::Exchange(tokens)).expect("checked above");
                self.last.clear();
            }
            Err(e) => println!("{e}"),
        }
    }

    fn hint(&self) {
        let game = self.game();
        let mut engine = EnginePlayer::new(7);
        engine.time = Duration::from_millis(500);
        let (moves, plan) = engine.best_turn(game);
        match moves.first() {
            Some(MathableMove::Place { cell, token }) => {
                let pts = plan.placements.first().map_or(0, |p| p.points);
                let turn: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                println!("Hint: P {cell} {token} (+{pts} points). The engine's whole turn: {}", turn.join(" "));
            }
            Some(MathableMove::Exchange(t)) => println!("Hint: swap {t} (S)."),
            _ => println!("Hint: no useful placement; end the turn (E)."),
        }
    }
}

pub fn play(args: PlayArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    });
    let (game, history) = match &args.load {
        Some(path) => load_state(path)?,
        None => (Mathable::new(&args.game.settings(seed)?)?, Vec::new()),
    };
    let players = game.settings().players as usize;
    let (seats, names) = parse_seats(&args.players_specs, players, seed)?;
    let s = game.settings();
    println!(
        "Mathable: {}x{} board, {} players, rack {}, {} tokens, {} squares, seed {}.",
        s.size, s.size, s.players, s.rack, s.tokens, s.layout, s.seed
    );
    let several_humans = seats.iter().filter(|s| matches!(s, Seated::Human)).count() > 1;
    let mut session = Session {
        record: Record::new(game),
        history,
        names,
        seats,
        color: use_color(args.no_color),
        last: Vec::new(),
        abandoned: false,
    };
    let mut input = Input::new();
    loop {
        let status = session.game().status();
        let Status::ToMove(seat) = status else {
            session.show(Seat(0), false);
            println!("{}", result_text(session.game(), &session.names));
            return Ok(());
        };
        match session.seats[seat.index()] {
            Seated::Computer(_) => session.computer_turn(seat),
            Seated::Human => {
                if !session.human_turn(seat, &mut input, several_humans) {
                    if session.game().status().to_move().is_some() && !session.abandoned {
                        println!("End of input: the game is left unfinished.");
                    }
                    return Ok(());
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Matches

#[derive(Default, Clone, serde::Serialize)]
struct Side {
    wins: u64,
    points: i64,
    think: f64,
    max_think: f64,
    moves: u64,
}

/// A player wrapper that measures thinking time.
struct Timed<'a> {
    inner: &'a mut dyn Player<Mathable>,
    time: Duration,
    max: Duration,
    calls: u64,
}

impl Player<Mathable> for Timed<'_> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        let t = Instant::now();
        let mv = self.inner.choose_move(record);
        let e = t.elapsed();
        self.time += e;
        self.max = self.max.max(e);
        self.calls += 1;
        mv
    }
    fn reset(&mut self) {
        self.inner.reset();
    }
}

pub fn run_match(args: MatchArgs) -> Result<()> {
    let specs: [PlayerSpec; 2] = match args.players_specs.as_slice() {
        [] => [PlayerSpec::named("engine"), PlayerSpec::named("greedy")],
        [a] => [a.clone(), PlayerSpec::named("greedy")],
        [a, b] => [a.clone(), b.clone()],
        _ => bail!("a match takes at most two --player options"),
    };
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let base = args.game.settings(args.seed)?;
    if base.players != 2 {
        bail!("a match is played by two players (--players 2)");
    }
    let mut a = from_spec(&specs[0], 1001)?;
    let mut b = from_spec(&specs[1], 2002)?;
    let mut sides = [Side::default(), Side::default()];
    let mut draws = 0u64;
    let started = Instant::now();
    for game_no in 0..args.games {
        let settings = base.with_seed(args.seed.wrapping_add((game_no / 2) as u64));
        let start = Mathable::new(&settings)?;
        let a_seat = game_no % 2;
        let mut ta = Timed { inner: a.as_mut(), time: Duration::ZERO, max: Duration::ZERO, calls: 0 };
        let mut tb = Timed { inner: b.as_mut(), time: Duration::ZERO, max: Duration::ZERO, calls: 0 };
        let record = if a_seat == 0 {
            tabletop::arena::play_game(&start, &[], &mut [&mut ta, &mut tb], |_, _, _| {})
        } else {
            tabletop::arena::play_game(&start, &[], &mut [&mut tb, &mut ta], |_, _, _| {})
        };
        let end = record.current();
        let seat_of = [a_seat, 1 - a_seat];
        for (p, t) in [(0, &ta), (1, &tb)] {
            sides[p].points += end.score(Seat(seat_of[p] as u8)) as i64;
            sides[p].think += t.time.as_secs_f64();
            sides[p].max_think = sides[p].max_think.max(t.max.as_secs_f64());
            sides[p].moves += t.calls;
        }
        match end.status() {
            Status::Over(Outcome::Win(w)) => sides[if w.index() == a_seat { 0 } else { 1 }].wins += 1,
            _ => draws += 1,
        }
        if args.verbose {
            eprintln!(
                "game {:>3} seed {:>4}: A(seat {}) {:>4} - B {:>4} ({})",
                game_no + 1,
                settings.seed,
                a_seat + 1,
                end.score(Seat(a_seat as u8)),
                end.score(Seat(1 - a_seat as u8)),
                end.end_cause().map_or("", |c| c.as_str())
            );
        }
    }
    let games = args.games as f64;
    let avg = |s: &Side| s.points as f64 / games;
    let ratio = if avg(&sides[1]) > 0.0 { avg(&sides[0]) / avg(&sides[1]) } else { f64::NAN };
    if args.json {
        let out = serde_json::json!({
            "game": "mathable",
            "players": [specs[0].to_string(), specs[1].to_string()],
            "games": args.games,
            "wins": [sides[0].wins, sides[1].wins],
            "draws": draws,
            "average_points": [avg(&sides[0]), avg(&sides[1])],
            "points_ratio": ratio,
            "max_move_seconds": [sides[0].max_think, sides[1].max_think],
            "seconds": started.elapsed().as_secs_f64(),
        });
        println!("{out}");
    } else {
        println!("{} games of mathable ({} preset, seeds {}..)", args.games, args.game.preset, args.seed);
        for (p, label) in [(0, "A"), (1, "B")] {
            let s = &sides[p];
            println!(
                "  {label} {:<24} wins {:>4} ({:5.1}%)  avg points {:7.1}  avg move {:6.1} ms  max move {:6.1} ms",
                specs[p].to_string(),
                s.wins,
                100.0 * s.wins as f64 / games,
                avg(s),
                1000.0 * s.think / s.moves.max(1) as f64,
                1000.0 * s.max_think
            );
        }
        println!("  draws {draws}; A's points / B's points = {ratio:.3}; {:.0} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bench and moves

fn midgame_positions(count: u64, turns_wanted: usize) -> Vec<Mathable> {
    let mut out = Vec::new();
    for seed in 0..count {
        let mut game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(seed)).expect("classic is valid");
        let mut turns = 0;
        while turns < turns_wanted && game.status().to_move().is_some() {
            let mv = greedy_move(&game);
            game.play(mv).expect("greedy plays legal moves");
            if !matches!(mv, MathableMove::Place { .. } | MathableMove::Draw) {
                turns += 1;
            }
        }
        if game.status().to_move().is_some() {
            out.push(game);
        }
    }
    out
}

pub fn bench(args: BenchArgs) -> Result<()> {
    let positions = midgame_positions(args.positions.max(1), 10);
    let mut buf = Vec::with_capacity(256);
    for turns in [10, 20] {
        let set = if turns == 10 { positions.clone() } else { midgame_positions(args.positions.max(1), turns) };
        if set.is_empty() {
            continue;
        }
        let tokens: f64 =
            set.iter().map(|g| g.board().cells().filter(|&c| g.board().get(c).is_some()).count() as f64).sum::<f64>()
                / set.len() as f64;
        // Placement generation with the full rack of the player to move.
        let mut total = Duration::ZERO;
        let mut calls = 0u64;
        let mut found = 0usize;
        for game in &set {
            let rack = *game.rack(game.turn());
            let reps = 20_000;
            let t = Instant::now();
            for _ in 0..reps {
                buf.clear();
                game.board().placements_into(std::hint::black_box(rack.mask()), &mut buf);
                std::hint::black_box(&buf);
            }
            total += t.elapsed();
            calls += reps;
            found += buf.len();
        }
        let per = total.as_secs_f64() / calls as f64 * 1e6;
        println!(
            "placement generation, {} classic 14x14 positions after {turns} turns ({tokens:.0} tokens on the board): \
             {per:.2} us per call, {:.1} placements (target <= 20 us)",
            set.len(),
            found as f64 / set.len() as f64
        );
    }
    // Computer turns.
    let mut engine = from_spec(&args.engine, 3)?;
    let mut worst = Duration::ZERO;
    let mut sum = Duration::ZERO;
    for game in &positions {
        let record = Record::new(game.clone());
        engine.reset();
        let t = Instant::now();
        let _ = engine.choose_move(&record);
        let e = t.elapsed();
        worst = worst.max(e);
        sum += e;
    }
    println!(
        "computer turn ({}): {:.1} ms on average, {:.1} ms at most (target <= 1000 ms)",
        args.engine,
        sum.as_secs_f64() * 1000.0 / positions.len() as f64,
        worst.as_secs_f64() * 1000.0
    );
    Ok(())
}

/// `tabletop moves mathable --state FILE [--best]`: the placements with their points, and the
/// engine's choice of whole turn.
pub fn list_placements(game: &Mathable, best: bool, json: bool) -> Result<()> {
    let Status::ToMove(seat) = game.status() else {
        bail!("the game is over");
    };
    let mut placements = game.placements();
    placements.sort_by(|a, b| b.points.cmp(&a.points).then(a.cell.cmp(&b.cell)).then(a.token.cmp(&b.token)));
    let best = if best {
        let mut engine = EnginePlayer::new(1);
        let (moves, plan) = engine.best_turn(game);
        Some((moves, plan))
    } else {
        None
    };
    if json {
        let list: Vec<_> = placements
            .iter()
            .map(|p| serde_json::json!({"cell": p.cell.to_string(), "token": p.token, "points": p.points}))
            .collect();
        let mut out = serde_json::json!({
            "to_move": seat.index() + 1,
            "rack": game.rack(seat).as_slice(),
            "placements": list,
        });
        if let Some((moves, plan)) = best {
            out["best"] = serde_json::json!({
                "moves": moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                "points": plan.points,
                "bonus": plan.bonus,
            });
        }
        println!("{out}");
    } else {
        println!(
            "Player {} to move, rack {}: {} valid placements",
            seat.index() + 1,
            game.rack(seat),
            placements.len()
        );
        for p in &placements {
            println!("  {} {:<3} +{}", p.cell, p.token, p.points);
        }
        if let Some((moves, plan)) = best {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            println!(
                "Engine's turn: {} ({} points{})",
                text.join(" "),
                plan.points,
                if plan.bonus > 0 { format!(" + bonus {}", plan.bonus) } else { String::new() }
            );
        }
    }
    Ok(())
}
