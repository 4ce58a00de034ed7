//! `tabletop ... mathable`: terminal play, seat-aware matches, benchmarks and the move lister.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use tabletop::games::mathable::bench::{midgame_positions, time_placements, time_turns};
use tabletop::games::mathable::engine::EnginePlayer;
use tabletop::games::mathable::matches::play_match;
use tabletop::games::mathable::players::from_spec;
use tabletop::games::mathable::text::{self, Bracketed, Grid, Shade};
use tabletop::games::mathable::{
    Layout, Mathable, MathableMove, Operations, Preset, SaveState, Settings, TokenSet, Tokens,
};
use tabletop::{Game, Player, PlayerSpec, Record, Seat, Status};

use crate::common::{paint, use_color, Input};
use crate::play::{seat_players, seat_specs, Presenter, Table};

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
    /// The simplified rules' program: people at every seat (unless --player says otherwise),
    /// the simple preset, its headers ("Player 2's turn", "Bag (83 tokens)", "Rack: [ ... ]"),
    /// its swap dialogue and a text grid drawn with `|` and `_`.
    #[arg(long)]
    document: bool,
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
    SaveState::read(&text).with_context(|| format!("cannot load {}", path.display()))
}

const SPECIAL_COLOR: u8 = 244;
const TOKEN_COLOR: u8 = 255;
const LAST_COLOR: u8 = 214;

// ---------------------------------------------------------------------------------------------
// Terminal play

/// What Mathable adds to the shared play loop: its board with scores and the bag, the rack of
/// the person to move, the action menu (P place, S swap, E end the turn, T terminate) with its
/// dialogues, the extra-draw question, its JSON saves, and hidden racks between people.
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
}

impl MathablePresenter {
    fn several_humans(&self) -> bool {
        self.humans.iter().filter(|&&h| h).count() > 1
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
            Ok(_) | Err(tabletop::games::mathable::MathableMoveError::Syntax(_)) => {
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
    fn swap(&self, game: &Mathable, input: &mut Input) -> Vec<MathableMove> {
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
        let mut copy = game.clone();
        match copy.exchange(tokens) {
            Ok(pairs) => {
                let text: Vec<String> = pairs.iter().map(|(o, n)| format!("{o} -> {n}")).collect();
                println!("Swapped {}", text.join(", "));
                if self.document {
                    println!("Rack swapped: {}", Bracketed(copy.rack(game.turn())));
                }
                vec![MathableMove::Exchange(tokens)]
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
        from_spec(spec, seed.wrapping_add(1)).map_err(|e| {
            let human = if matches!(e, tabletop::SpecError::UnknownName { .. }) { ", human" } else { "" };
            anyhow!("{e}{human}").context(format!("player {}: {spec}", seat.index() + 1))
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
                Bracketed(game.rack(seat))
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
            "s" => self.swap(game, input),
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

    fn hint(&mut self, record: &Record<Mathable>) -> String {
        let mut engine = EnginePlayer::new(7);
        engine.time = Duration::from_millis(500);
        let (moves, plan) = engine.best_turn(record.current());
        match moves.first() {
            Some(MathableMove::Place { cell, token }) => {
                let pts = plan.placements.first().map_or(0, |p| p.points);
                let turn: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                format!("P {cell} {token} (+{pts} points). The engine's whole turn: {}", turn.join(" "))
            }
            Some(MathableMove::Exchange(t)) => format!("swap {t} (S)."),
            _ => "no useful placement; end the turn (E).".to_string(),
        }
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
                .map_err(Into::into),
        )
    }
}

pub fn play(args: PlayArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs())
    });
    let (game, history) = match &args.load {
        Some(path) => load_state(path)?,
        None => {
            let mut options = args.game.clone();
            if args.document {
                options.preset = Preset::Simple;
            }
            (Mathable::new(&options.settings(seed)?)?, Vec::new())
        }
    };
    let players = game.settings().players as usize;
    let mut defaults = vec![PlayerSpec::named(if args.document { "human" } else { "engine" }); players];
    defaults[0] = PlayerSpec::named("human");
    let mut presenter = MathablePresenter {
        names: Vec::new(),
        humans: Vec::new(),
        earlier_history: Some((game.clone(), history)),
        revealed: None,
        color: use_color(args.no_color),
        document: args.document,
    };
    for text in &args.players_specs {
        let seat = text.split_once('=').map(|(s, _)| s.trim());
        if !seat.is_some_and(|s| s.parse::<usize>().is_ok_and(|n| (1..=players).contains(&n))) {
            bail!("bad --player {text:?}: write SEAT=SPEC with seats from 1 to {players}, e.g. 2=greedy (seats go from 1 to {players})");
        }
    }
    let specs = seat_specs(&presenter, &defaults, &args.players_specs)?;
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
    let mut table = Table::new(&mut presenter, seats, game, color).document_mode(args.document);
    table.run(&mut Input::new())
}

// ---------------------------------------------------------------------------------------------
// Matches

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
    let r = play_match(&base, args.games, a.as_mut(), b.as_mut(), |g| {
        if args.verbose {
            eprintln!(
                "game {:>3} seed {:>4}: A(seat {}) {:>4} - B {:>4} ({})",
                g.number + 1,
                g.seed,
                g.a_seat + 1,
                g.end.score(Seat(g.a_seat as u8)),
                g.end.score(Seat(1 - g.a_seat as u8)),
                g.end.end_cause().map_or("", |c| c.as_str())
            );
        }
    })?;
    if args.json {
        let out = serde_json::json!({
            "game": "mathable",
            "players": [specs[0].to_string(), specs[1].to_string()],
            "games": args.games,
            "wins": [r.sides[0].wins, r.sides[1].wins],
            "draws": r.draws,
            "average_points": [r.average_points(0), r.average_points(1)],
            "points_ratio": r.points_ratio(),
            "max_move_seconds": [r.sides[0].max_think, r.sides[1].max_think],
            "seconds": r.seconds,
        });
        println!("{out}");
    } else {
        println!("{} games of mathable ({} preset, seeds {}..)", args.games, args.game.preset, args.seed);
        for (p, label) in [(0, "A"), (1, "B")] {
            println!(
                "  {label} {:<24} wins {:>4} ({:5.1}%)  avg points {:7.1}  avg move {:6.1} ms  max move {:6.1} ms",
                specs[p].to_string(),
                r.sides[p].wins,
                100.0 * r.sides[p].wins as f64 / args.games as f64,
                r.average_points(p),
                r.average_move_ms(p),
                1000.0 * r.sides[p].max_think
            );
        }
        println!("  draws {}; A's points / B's points = {:.3}; {:.0} s", r.draws, r.points_ratio(), r.seconds);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Bench and moves

pub fn bench(args: BenchArgs) -> Result<()> {
    let positions = midgame_positions(args.positions.max(1), 10);
    for turns in [10, 20] {
        let set = if turns == 10 { positions.clone() } else { midgame_positions(args.positions.max(1), turns) };
        if set.is_empty() {
            continue;
        }
        let t = time_placements(&set, 20_000);
        println!(
            "placement generation, {} classic 14x14 positions after {turns} turns ({:.0} tokens on the board): \
             {:.2} us per call, {:.1} placements (target <= 20 us)",
            set.len(),
            t.tokens,
            t.per_call.as_secs_f64() * 1e6,
            t.placements
        );
    }
    let mut engine = from_spec(&args.engine, 3)?;
    let (mean, worst) = time_turns(engine.as_mut(), &positions);
    println!(
        "computer turn ({}): {:.1} ms on average, {:.1} ms at most (target <= 1000 ms)",
        args.engine,
        mean.as_secs_f64() * 1000.0,
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
