//! Games as the server sees them: a uniform, object-safe [`Session`] over any [`Game`], with a
//! small [`Adapter`] per game for what only that game knows (its options, its board as JSON,
//! its players and hints).

use std::any::Any;
use std::time::Duration;

use serde_json::{json, Value};
use tabletop::games::connect::engine::{describe_score, make_player as connect_player, Engine as ConnectEngine};
use tabletop::games::connect::solver::Solver as ConnectSolver;
use tabletop::games::connect::{Column, Connect, ConnectVariant, Side as ConnectSide};
use tabletop::games::mathable::{players::from_spec as mathable_player, Mathable, MathableMove, Settings, Square};
use tabletop::games::reversi::{engine::EnginePlayer as ReversiEnginePlayer, players::make_player as reversi_player};
use tabletop::games::reversi::{levels as reversi_levels, Color, Reversi, ReversiMove};
use tabletop::games::slide::players::{player_from_spec as slide_player, EnginePlayer, PLAYER_KINDS as SLIDE_KINDS};
use tabletop::games::slide::{Cell, Slide, SlideMove, SlideVariant};
use tabletop::{Analyze, EndReason, Game, Outcome, Player, PlayerKind, PlayerSpec, Record, Seat, Status};

/// The per-worker cache of one game's engine (its tables are reused across moves and games);
/// each adapter decides what it keeps there.
pub type EngineSlot = Option<(String, Box<dyn Any>)>;

/// The server's caps on what one computer player may ask for.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    /// The longest thinking time.
    pub max_think: Duration,
    /// The most memory for one engine's tables, in bytes.
    pub engine_memory: u64,
}

/// A game in progress, whatever the game.
pub trait Session: Send {
    /// The game's name (`slide`, ...).
    fn game(&self) -> &'static str;
    /// Number of seats.
    fn num_seats(&self) -> usize;
    /// The seat to move, or `None` when the game is over.
    fn to_move(&self) -> Option<usize>;
    /// Plays a move given in the game's notation; returns it in canonical notation, or the
    /// same one-line reason the terminal gives.
    fn play(&mut self, text: &str) -> Result<String, String>;
    /// Takes back the last move; false at the start.
    fn undo(&mut self) -> bool;
    /// The number of moves played.
    fn ply(&self) -> usize;
    /// Every move so far in canonical notation (the server's own record: nothing filtered).
    fn moves(&self) -> Vec<String>;
    /// The seat that played move `ply`.
    fn mover_of(&self, ply: usize) -> Option<usize>;
    /// Does move `ply` reveal hidden information (a Mathable draw or exchange), so that it may
    /// not be taken back between people?
    fn reveals(&self, ply: usize) -> bool;
    /// Does the game hide information from some seats?
    fn hidden_information(&self) -> bool;
    /// Each seat's name as people know it (`Black`, `X`, `Player 2`).
    fn seat_names(&self) -> Vec<String>;
    /// Each seat's score where the game keeps one (Reversi discs, Mathable points).
    fn scores(&self) -> Option<Vec<i64>>;
    /// The board and status as JSON for `viewer` (a seat, or `None` for a spectator), with the
    /// move list as that viewer may see it.
    fn view(&self, viewer: Option<usize>) -> Value;
    /// The public board after `ply` moves (what a watcher saw then), for stepping through a game.
    fn board_at(&self, ply: usize) -> Result<Value, String>;
    /// The engine's best move and its value, within `budget`.
    fn hint(&self, slot: &mut EngineSlot, budget: Duration, caps: &Caps) -> Option<Value>;
    /// The value of every legal move at `ply` (the current position when `None`), within `budget`.
    fn analyze(&self, ply: Option<usize>, budget: Duration) -> Result<Value, String>;
    /// A computer player's move for the side to move, in notation.
    fn computer_move(&self, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<String, String>;
    /// The move that passes the turn of a seat that left (a resigned Mathable player), if any.
    fn pass_move(&self) -> Option<String>;
    /// Checks a computer player's spec completely (name, settings, values, ranges) and against
    /// the server's caps, with the reason the terminal gives.
    fn check_spec(&self, spec: &PlayerSpec, caps: &Caps) -> Result<(), String>;
    /// A copy, for thinking off the lock.
    fn boxed_clone(&self) -> Box<dyn Session>;
}

/// What a game must provide to be served.
pub trait Adapter<G: Game>: Send + Sync + 'static {
    /// The game's name.
    const NAME: &'static str;
    /// The option keys the game accepts at creation.
    const OPTION_KEYS: &'static [&'static str];
    /// The players it offers.
    fn player_kinds() -> &'static [PlayerKind];
    /// The starting position from the public options and the server's secret (validated, with a reason).
    fn start(options: &Value, secret: &Value) -> Result<G, String>;
    /// The board as JSON.
    fn board(record: &Record<G>, viewer: Option<usize>) -> Value;
    /// The engine's advice.
    fn hint(record: &Record<G>, slot: &mut EngineSlot, budget: Duration, caps: &Caps) -> Option<Value>;
    /// A move chosen by the player a spec names.
    fn choose(record: &Record<G>, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<G::Move, String>;
    /// Checks a spec's values (the library's own constructor where that is cheap) and the caps.
    fn check_spec(record: &Record<G>, spec: &PlayerSpec, caps: &Caps) -> Result<(), String>;
    /// Each seat's name.
    fn seat_name(seat: usize) -> String;
    /// Does the position hold information some seats must not see (Mathable's racks)? Then the
    /// legal moves and the position notation go only to the seat to move.
    const HIDDEN_INFORMATION: bool = false;
    /// A move as `viewer` may see it (`mover`: did the viewer play it?).
    fn public_move(mv: &G::Move, _mover: bool) -> String {
        mv.to_string()
    }
    /// Does this move reveal hidden information?
    fn reveals(_mv: &G::Move) -> bool {
        false
    }
    /// The scores, where the game keeps them.
    fn scores(_position: &G) -> Option<Vec<i64>> {
        None
    }
    /// The rules' reason for the end, in the page's words (the terminal's names sides by letter).
    fn describe_reason(reason: String) -> String {
        reason
    }
    /// The move that passes a departed seat's turn.
    fn pass_move(_position: &G) -> Option<G::Move> {
        None
    }
    /// Fills in what the server keeps secret (a random bag seed), before storing.
    fn complete_secret(_secret: &mut Value) {}
}

/// A [`Session`] for any game with an [`Adapter`].
pub struct GenericSession<G: Analyze, A: Adapter<G>> {
    record: Record<G>,
    adapter: std::marker::PhantomData<A>,
}

impl<G: Analyze, A: Adapter<G>> GenericSession<G, A> {
    /// The record as it was after `ply` moves.
    fn record_at(&self, ply: usize) -> Result<Record<G>, String> {
        let played = self.record.moves().len();
        if ply > played {
            return Err(format!("the game has {played} moves; there is no position after move {ply}"));
        }
        let mut record = Record::new(self.record.start().clone());
        for &mv in &self.record.moves()[..ply] {
            record.play(mv).map_err(|e| e.to_string())?;
        }
        Ok(record)
    }

    /// A new game from the page's options (unknown keys refused) and the server's secret.
    pub fn new(options: &Value, secret: &Value) -> Result<Self, String> {
        let Some(map) = options.as_object() else { return Err("options must be a JSON object".into()) };
        if let Some(key) = map.keys().find(|k| !A::OPTION_KEYS.contains(&k.as_str())) {
            let valid = if A::OPTION_KEYS.is_empty() { "none".to_string() } else { A::OPTION_KEYS.join(", ") };
            return Err(format!("{} has no option {key:?}; valid options: {valid}", A::NAME));
        }
        Ok(GenericSession { record: Record::new(A::start(options, secret)?), adapter: std::marker::PhantomData })
    }
}

fn status_json<G: Game>(record: &Record<G>, describe: impl Fn(String) -> String) -> Value {
    match record.status() {
        Status::ToMove(seat) => json!({"over": false, "to_move": seat.0}),
        Status::Over(outcome) => {
            let reason = match record.end_reason() {
                Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
                Some(EndReason::Rules(text)) => describe(text),
                None => String::new(),
            };
            let winners: Vec<u8> = match outcome {
                Outcome::Win(seat) => vec![seat.0],
                Outcome::Draw => vec![],
                Outcome::SharedWin(set) => set.seats().map(|s| s.0).collect(),
            };
            json!({"over": true, "to_move": null, "winners": winners, "reason": reason})
        }
    }
}

impl<G: Analyze, A: Adapter<G>> Session for GenericSession<G, A> {
    fn game(&self) -> &'static str {
        A::NAME
    }

    fn num_seats(&self) -> usize {
        self.record.current().num_seats()
    }

    fn to_move(&self) -> Option<usize> {
        self.record.status().to_move().map(|s| s.index())
    }

    fn play(&mut self, text: &str) -> Result<String, String> {
        let mv = self.record.current().parse_move(text).map_err(|e| e.to_string())?;
        self.record.play(mv).map_err(|e| e.to_string())?;
        Ok(mv.to_string())
    }

    fn undo(&mut self) -> bool {
        self.record.undo().is_some()
    }

    fn ply(&self) -> usize {
        self.record.moves().len()
    }

    fn moves(&self) -> Vec<String> {
        self.record.moves().iter().map(|m| m.to_string()).collect()
    }

    fn mover_of(&self, ply: usize) -> Option<usize> {
        self.record.positions().get(ply)?.status().to_move().map(|s| s.index())
    }

    fn reveals(&self, ply: usize) -> bool {
        self.record.moves().get(ply).is_some_and(A::reveals)
    }

    fn hidden_information(&self) -> bool {
        A::HIDDEN_INFORMATION
    }

    fn seat_names(&self) -> Vec<String> {
        (0..self.num_seats()).map(A::seat_name).collect()
    }

    fn scores(&self) -> Option<Vec<i64>> {
        A::scores(self.record.current())
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        let to_move = self.to_move();
        let may_see = !A::HIDDEN_INFORMATION || (viewer.is_some() && viewer == to_move);
        let mut legal = Vec::new();
        if to_move.is_some() && may_see {
            self.record.current().legal_moves(&mut legal);
        }
        let history: Vec<Value> = self
            .record
            .moves()
            .iter()
            .enumerate()
            .map(|(ply, mv)| {
                let seat = self.mover_of(ply);
                let text = A::public_move(mv, seat.is_some() && seat == viewer);
                json!({"ply": ply, "seat": seat, "move": text})
            })
            .collect();
        let moves: Vec<Value> = history.iter().map(|h| h["move"].clone()).collect();
        json!({
            "game": A::NAME,
            "status": status_json(&self.record, A::describe_reason),
            "board": A::board(&self.record, viewer),
            "legal": legal.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "moves": moves,
            "history": history,
            // A hidden-information notation (Mathable's save state) holds every rack, the bag and
            // its seed: it is for nobody, not even the seat to move.
            "position": if A::HIDDEN_INFORMATION { Value::Null } else { Value::from(self.record.current().notation()) },
        })
    }

    fn hint(&self, slot: &mut EngineSlot, budget: Duration, caps: &Caps) -> Option<Value> {
        A::hint(&self.record, slot, budget, caps)
    }

    fn board_at(&self, ply: usize) -> Result<Value, String> {
        Ok(A::board(&self.record_at(ply)?, None))
    }

    fn analyze(&self, ply: Option<usize>, budget: Duration) -> Result<Value, String> {
        let ply = ply.unwrap_or(self.record.moves().len());
        let record = self.record_at(ply)?;
        let analysis = G::analyze(&record, budget);
        let moves: Vec<Value> = analysis
            .moves
            .iter()
            .map(|m| json!({"move": m.notation, "value": m.text, "score": m.score, "exact": m.exact}))
            .collect();
        Ok(json!({"ply": ply, "moves": moves, "depth": analysis.depth}))
    }

    fn computer_move(&self, spec: &PlayerSpec, slot: &mut EngineSlot, caps: &Caps) -> Result<String, String> {
        A::choose(&self.record, spec, slot, caps).map(|m| m.to_string())
    }

    fn pass_move(&self) -> Option<String> {
        A::pass_move(self.record.current()).map(|m| m.to_string())
    }

    fn check_spec(&self, spec: &PlayerSpec, caps: &Caps) -> Result<(), String> {
        spec.check(A::player_kinds()).map_err(|e| format!("{e} (or human, open)"))?;
        if let Some(time) = spec.get_duration("time").map_err(|e| e.to_string())? {
            if time > caps.max_think {
                return Err(format!(
                    "time={} is over this server's longest thinking time, {} ms",
                    spec.settings.get("time").map_or("", String::as_str),
                    caps.max_think.as_millis()
                ));
            }
        }
        A::check_spec(&self.record, spec, caps)
    }

    fn boxed_clone(&self) -> Box<dyn Session> {
        Box::new(GenericSession::<G, A> { record: self.record.clone(), adapter: std::marker::PhantomData })
    }
}

/// The player in a slot when its key matches, else a new one from `make` (the old one is
/// dropped first, so a worker never holds two engines of one game).
fn slot_player<P: 'static>(
    slot: &mut EngineSlot,
    key: String,
    make: impl FnOnce() -> Result<P, String>,
) -> Result<&mut P, String> {
    let fits = matches!(slot, Some((k, v)) if *k == key && v.is::<P>());
    if !fits {
        *slot = None;
        *slot = Some((key, Box::new(make()?)));
    }
    slot.as_mut().and_then(|(_, v)| v.downcast_mut::<P>()).ok_or_else(|| "engine cache".to_string())
}

/// The games the server offers.
pub const GAMES: &[&str] = &["slide", "reversi", "connect", "mathable"];

/// Starts a session of a named game from its public options and the server's secret.
pub fn new_session(game: &str, options: &Value, secret: &Value) -> Result<Box<dyn Session>, String> {
    match game {
        "slide" => Ok(Box::new(GenericSession::<Slide, SlideAdapter>::new(options, secret)?)),
        "mathable" => Ok(Box::new(GenericSession::<Mathable, MathableAdapter>::new(options, secret)?)),
        "reversi" => Ok(Box::new(GenericSession::<Reversi, ReversiAdapter>::new(options, secret)?)),
        "connect" => Ok(Box::new(GenericSession::<Connect, ConnectAdapter>::new(options, secret)?)),
        other => Err(format!("unknown game {other:?}; available: {}", GAMES.join(", "))),
    }
}

/// Fills in what the server keeps to itself for a new game (see [`Adapter::complete_secret`]).
pub fn complete_secret(game: &str, secret: &mut Value) {
    if game == "mathable" {
        MathableAdapter::complete_secret(secret);
    }
}

fn option_usize(options: &Value, key: &str, default: usize) -> Result<usize, String> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|&n| n <= 1 << 16)
            .map(|n| n as usize)
            .ok_or_else(|| format!("option {key:?} must be a whole number")),
    }
}

fn option_str<'a>(options: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(format!("option {key:?} must be a string")),
    }
}

/// Slide on the web.
pub struct SlideAdapter;

impl SlideAdapter {
    /// The squares (0-based, row-major) of the winner's completed lines.
    fn winning_line(position: &Slide) -> Vec<usize> {
        let n = position.size();
        let winner = match position.status() {
            Status::Over(Outcome::Win(seat)) => {
                if seat.0 == 0 {
                    'b'
                } else {
                    'o'
                }
            }
            _ => return Vec::new(),
        };
        let owned = |r: usize, c: usize| position.cell(r, c).map(Cell::letter) == Some(winner);
        let mut cells = Vec::new();
        let lines = (0..n)
            .map(|r| (0..n).map(|c| (r, c)).collect::<Vec<_>>())
            .chain((0..n).map(|c| (0..n).map(|r| (r, c)).collect()))
            .chain([(0..n).map(|i| (i, i)).collect(), (0..n).map(|i| (i, n - 1 - i)).collect()]);
        for line in lines {
            if line.iter().all(|&(r, c)| owned(r, c)) {
                cells.extend(line.iter().map(|&(r, c)| r * n + c));
            }
        }
        cells.sort_unstable();
        cells.dedup();
        cells
    }
}

impl Adapter<Slide> for SlideAdapter {
    const NAME: &'static str = "slide";
    const OPTION_KEYS: &'static [&'static str] = &["size", "empty"];

    fn player_kinds() -> &'static [PlayerKind] {
        SLIDE_KINDS
    }

    fn start(options: &Value, _secret: &Value) -> Result<Slide, String> {
        let size = option_usize(options, "size", 3)?;
        let empty = option_usize(options, "empty", 1)?;
        let variant = SlideVariant::new(size, empty).map_err(|e| e.to_string())?;
        Ok(Slide::start(&variant))
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "Blue" } else { "Orange" }.to_string()
    }

    fn describe_reason(reason: String) -> String {
        // "b has 3 in a line" -> "Blue has 3 in a line".
        match reason.split_once(' ') {
            Some(("b", rest)) => format!("Blue {rest}"),
            Some(("o", rest)) => format!("Orange {rest}"),
            _ => reason,
        }
    }

    fn board(record: &Record<Slide>, _viewer: Option<usize>) -> Value {
        let position = record.current();
        let n = position.size();
        let cells: Vec<String> =
            (0..n * n).map(|sq| position.cell(sq / n, sq % n).map_or('g', Cell::letter).to_string()).collect();
        json!({
            "size": n,
            "empty": position.slide_variant().empty(),
            "cells": cells,
            "phase": if position.is_placement_phase() { "placement" } else { "slide" },
            "last_move": record.moves().last().map(|m| m.to_string()),
            "winning_line": Self::winning_line(position),
        })
    }

    fn hint(record: &Record<Slide>, slot: &mut EngineSlot, budget: Duration, _caps: &Caps) -> Option<Value> {
        let key = format!("hint:{}", budget.as_millis());
        let engine = slot_player(slot, key, || Ok(EnginePlayer::new(Some(budget), None))).ok()?;
        let advice = engine.advise(record)?;
        Some(json!({"move": advice.best.to_string(), "value": advice.value}))
    }

    fn choose(
        record: &Record<Slide>,
        spec: &PlayerSpec,
        slot: &mut EngineSlot,
        _caps: &Caps,
    ) -> Result<SlideMove, String> {
        // The player is kept for the next move of the same spec (its search table is reused).
        let player = slot_player(slot, spec.to_string(), || slide_player(spec).map_err(|e| e.to_string()))?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Slide>, spec: &PlayerSpec, _caps: &Caps) -> Result<(), String> {
        // Slide's players hold no big tables: building one checks every value.
        slide_player(spec).map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Mathable on the web: racks and the bag are hidden information.
pub struct MathableAdapter;

impl Adapter<Mathable> for MathableAdapter {
    const NAME: &'static str = "mathable";
    const OPTION_KEYS: &'static [&'static str] = &["preset", "players"];
    const HIDDEN_INFORMATION: bool = true;

    fn player_kinds() -> &'static [PlayerKind] {
        tabletop::games::mathable::PLAYER_KINDS
    }

    fn complete_secret(secret: &mut Value) {
        if secret.get("seed").and_then(Value::as_u64).is_none() {
            use rand::RngCore;
            secret["seed"] = json!(rand::rngs::OsRng.next_u64() >> 11);
        }
    }

    fn start(options: &Value, secret: &Value) -> Result<Mathable, String> {
        let preset = option_str(options, "preset")?.unwrap_or("classic");
        let mut settings: Settings =
            preset.parse().map_err(|e: tabletop::games::mathable::SettingsError| e.to_string())?;
        if let Some(players) = options.get("players").filter(|v| !v.is_null()) {
            settings.players =
                players.as_u64().filter(|p| (2..=4).contains(p)).ok_or("option \"players\" must be 2 to 4")? as u8;
        }
        settings.seed = secret.get("seed").and_then(Value::as_u64).unwrap_or(1);
        Mathable::new(&settings).map_err(|e| e.to_string())
    }

    fn seat_name(seat: usize) -> String {
        format!("Player {}", seat + 1)
    }

    fn public_move(mv: &MathableMove, mover: bool) -> String {
        match mv {
            MathableMove::Exchange(tokens) if !mover => {
                let n = tokens.as_slice().len();
                format!("exchanged {n} token{}", if n == 1 { "" } else { "s" })
            }
            other => other.to_string(),
        }
    }

    fn reveals(mv: &MathableMove) -> bool {
        matches!(mv, MathableMove::Draw | MathableMove::Exchange(_) | MathableMove::EndTurn)
    }

    fn scores(position: &Mathable) -> Option<Vec<i64>> {
        Some(position.scores().iter().map(|&s| i64::from(s)).collect())
    }

    fn pass_move(position: &Mathable) -> Option<MathableMove> {
        position.is_legal(MathableMove::EndTurn).then_some(MathableMove::EndTurn)
    }

    fn board(record: &Record<Mathable>, viewer: Option<usize>) -> Value {
        let game = record.current();
        let board = game.board();
        let n = board.size();
        let cells: Vec<Value> = board
            .cells()
            .map(|cell| {
                let mark = match board.square(cell) {
                    Square::Normal | Square::Start => None,
                    square => square.mark(),
                };
                json!({"cell": cell.to_string(), "token": board.get(cell), "mark": mark})
            })
            .collect();
        let seats = game.num_seats();
        let racks: Vec<Value> = (0..seats)
            .map(|s| {
                let rack = game.rack(Seat(s as u8));
                if viewer == Some(s) {
                    json!(rack.as_slice())
                } else {
                    json!(rack.len())
                }
            })
            .collect();
        // The placements of the current turn, to highlight them.
        let recent: Vec<String> = record
            .moves()
            .iter()
            .rev()
            .take(game.placed_this_turn())
            .filter_map(|m| match m {
                MathableMove::Place { cell, .. } => Some(cell.to_string()),
                _ => None,
            })
            .collect();
        // The mover's valid placements with their points (the rack is theirs to see).
        let mover_views = viewer.is_some() && viewer == record.status().to_move().map(|s| s.index());
        let placements: Vec<Value> = if mover_views {
            game.placements()
                .iter()
                .map(|p| json!({"cell": p.cell.to_string(), "token": p.token, "points": p.points}))
                .collect()
        } else {
            Vec::new()
        };
        json!({
            "size": n,
            "cells": cells,
            "racks": racks,
            "placements": placements,
            "scores": game.scores(),
            "bag": game.bag().len(),
            "placed_this_turn": game.placed_this_turn(),
            "can_exchange": mover_views && game.can_exchange(),
            "extra_draw": mover_views && game.extra_draw_pending(),
            "recent": recent,
        })
    }

    fn hint(record: &Record<Mathable>, _slot: &mut EngineSlot, _budget: Duration, _caps: &Caps) -> Option<Value> {
        let game = record.current();
        let best = game.placements().into_iter().max_by_key(|p| p.points)?;
        Some(json!({"move": format!("{}={}", best.cell, best.token), "value": format!("{} points", best.points)}))
    }

    fn choose(
        record: &Record<Mathable>,
        spec: &PlayerSpec,
        _slot: &mut EngineSlot,
        _caps: &Caps,
    ) -> Result<MathableMove, String> {
        let seed = record.current().settings().seed ^ record.moves().len() as u64;
        let mut player = mathable_player(spec, seed).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Mathable>, spec: &PlayerSpec, _caps: &Caps) -> Result<(), String> {
        mathable_player(spec, 0).map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Reversi on the web.
pub struct ReversiAdapter;

/// A worker's Reversi engine; its tables are allocated fallibly (an error, not an abort).
fn reversi_engine() -> Result<ReversiEnginePlayer, String> {
    ReversiEnginePlayer::try_new(None, None, "engine".into()).map_err(|e| e.to_string())
}

impl Adapter<Reversi> for ReversiAdapter {
    const NAME: &'static str = "reversi";
    const OPTION_KEYS: &'static [&'static str] = &[];

    fn player_kinds() -> &'static [PlayerKind] {
        tabletop::games::reversi::players::PLAYERS
    }

    fn start(_options: &Value, _secret: &Value) -> Result<Reversi, String> {
        Ok(Reversi::new())
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "Black" } else { "White" }.to_string()
    }

    fn scores(position: &Reversi) -> Option<Vec<i64>> {
        Some(vec![i64::from(position.discs(Color::Black)), i64::from(position.discs(Color::White))])
    }

    fn board(record: &Record<Reversi>, _viewer: Option<usize>) -> Value {
        let position = record.current();
        let letter = |c: Option<Color>| match c {
            Some(Color::Black) => "b",
            Some(Color::White) => "w",
            None => "-",
        };
        let cells: Vec<&str> = (0..64).map(|i| letter(position.occupant(i / 8, i % 8))).collect();
        // Discs that changed colour with the last move, for a brief flip animation.
        let flipped: Vec<usize> = match record.positions() {
            [.., before, _] => (0..64)
                .filter(|&i| {
                    let (was, now) = (before.occupant(i / 8, i % 8), position.occupant(i / 8, i % 8));
                    was.is_some() && was != now
                })
                .collect(),
            _ => Vec::new(),
        };
        let last = record.moves().last().map(|m| m.to_string());
        let passed = matches!(record.moves().last(), Some(ReversiMove::Pass));
        json!({
            "cells": cells,
            "discs": [position.discs(Color::Black), position.discs(Color::White)],
            "last_move": last,
            "last_was_pass": passed,
            "flipped": flipped,
        })
    }

    fn hint(record: &Record<Reversi>, slot: &mut EngineSlot, budget: Duration, _caps: &Caps) -> Option<Value> {
        let engine = slot_player(slot, "engine".into(), reversi_engine).ok()?.engine();
        engine.time = Some(budget);
        engine.depth = None;
        let analysis = engine.analyse(record.current());
        Some(json!({"move": analysis.best.to_string(), "value": analysis.describe()}))
    }

    fn choose(
        record: &Record<Reversi>,
        spec: &PlayerSpec,
        slot: &mut EngineSlot,
        caps: &Caps,
    ) -> Result<ReversiMove, String> {
        if spec.name == "engine" && (spec.settings.contains_key("level") || spec.settings.contains_key("seed")) {
            // A level on the worker's engine; its draws among near-equal moves are seeded by the
            // position and the ply (or the spec's seed), so a replayed game gets the same moves.
            let mut level = *reversi_levels::level_from_spec(spec).map_err(|e| e.to_string())?;
            // Never past this server's longest thinking time (the search keeps its last depth).
            level.time_cap = Some(level.time_cap.map_or(caps.max_think, |t| t.min(caps.max_think)));
            let seed = spec.get_u64("seed").map_err(|e| e.to_string())?.unwrap_or(0)
                ^ record.current().hash()
                ^ record.moves().len() as u64;
            let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
            let player = slot_player(slot, "engine".into(), reversi_engine)?;
            return Ok(reversi_levels::choose(player.engine(), &level, record.current(), &mut rng));
        }
        if spec.name == "engine" {
            // One engine per worker, its tables reused; the spec sets its limits for this move.
            let time = spec.get_duration("time").map_err(|e| e.to_string())?;
            let depth = spec.get_in_range("depth", 1..=60).map_err(|e| e.to_string())?.map(|d| d as u32);
            let player = slot_player(slot, "engine".into(), reversi_engine)?;
            let engine = player.engine();
            engine.time = if time.is_none() && depth.is_none() { Some(Duration::from_secs(1)) } else { time };
            engine.depth = depth;
            return Ok(player.choose_move(record));
        }
        let mut player = reversi_player(spec, record.moves().len() as u64).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }

    fn check_spec(_record: &Record<Reversi>, spec: &PlayerSpec, caps: &Caps) -> Result<(), String> {
        if spec.name == "engine" {
            // Checked without building an engine (its tables are tens of megabytes).
            if spec.settings.contains_key("level") || spec.settings.contains_key("seed") {
                // A level's time is capped by the server's longest thinking time when it plays.
                reversi_levels::level_from_spec(spec).map_err(|e| e.to_string())?;
            }
            spec.get_duration("time").map_err(|e| e.to_string())?;
            spec.get_in_range("depth", 1..=60).map_err(|e| e.to_string())?;
            let bytes = tabletop::games::reversi::engine::Engine::MEMORY_BYTES;
            if bytes > caps.engine_memory {
                return Err(format!(
                    "the engine needs {} MiB, over this server's limit of {} MiB per engine",
                    bytes >> 20,
                    caps.engine_memory >> 20
                ));
            }
            return Ok(());
        }
        reversi_player(spec, 0).map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Connect-N on the web.
pub struct ConnectAdapter;

/// The Connect engine's table when a spec names none, at most (2^23 entries, 64 MiB).
const CONNECT_DEFAULT_TABLE: u64 = 1 << 23;

/// The largest table (a power of two, at most the default) whose solver fits in `memory`.
fn connect_default_table(variant: ConnectVariant, memory: u64) -> u64 {
    let mut entries = CONNECT_DEFAULT_TABLE;
    while entries > 1 << 16 && ConnectSolver::memory_bytes(variant, entries as usize) > memory {
        entries /= 2;
    }
    entries
}

impl ConnectAdapter {
    /// The cells (row from the bottom, column) of every completed line, to highlight the win.
    fn winning_line(position: &Connect) -> Vec<(usize, usize)> {
        let variant = position.connect_variant();
        let (w, h, n) = (variant.width() as i64, variant.height() as i64, variant.line() as i64);
        let Some(winner) = position.winner() else { return Vec::new() };
        let owner = |r: i64, c: i64| {
            (0..h).contains(&r) && (0..w).contains(&c) && position.cell(r as usize, c as usize) == Some(Some(winner))
        };
        let mut cells = Vec::new();
        for r in 0..h {
            for c in 0..w {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..n).all(|i| owner(r + i * dr, c + i * dc)) {
                        cells.extend((0..n).map(|i| ((r + i * dr) as usize, (c + i * dc) as usize)));
                    }
                }
            }
        }
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// The engine in a worker's slot for this variant and table size.
    fn engine(slot: &mut EngineSlot, variant: ConnectVariant, table: u64) -> Result<&mut ConnectEngine, String> {
        let key = format!("{}x{}x{}:{table}", variant.width(), variant.height(), variant.line());
        slot_player(slot, key, || {
            ConnectEngine::try_with_table(variant, Duration::from_secs(1), table as usize).map_err(|e| e.to_string())
        })
    }
}

impl Adapter<Connect> for ConnectAdapter {
    const NAME: &'static str = "connect";
    const OPTION_KEYS: &'static [&'static str] = &["preset", "width", "height", "connect"];

    fn player_kinds() -> &'static [PlayerKind] {
        tabletop::games::connect::engine::PLAYER_KINDS
    }

    fn start(options: &Value, _secret: &Value) -> Result<Connect, String> {
        let variant: ConnectVariant = match option_str(options, "preset")? {
            Some(preset) => {
                if ["width", "height", "connect"].iter().any(|k| options.get(k).is_some_and(|v| !v.is_null())) {
                    return Err("give either \"preset\" or \"width\", \"height\" and \"connect\", not both".into());
                }
                preset.parse().map_err(|e: tabletop::games::connect::ConnectVariantError| e.to_string())?
            }
            None => ConnectVariant::new(
                option_usize(options, "width", 7)?,
                option_usize(options, "height", 6)?,
                option_usize(options, "connect", 4)?,
            )
            .map_err(|e| e.to_string())?,
        };
        Ok(Connect::new(variant))
    }

    fn seat_name(seat: usize) -> String {
        if seat == 0 { "X" } else { "O" }.to_string()
    }

    fn board(record: &Record<Connect>, _viewer: Option<usize>) -> Value {
        let position = record.current();
        let variant = position.connect_variant();
        // Rows top first, as drawn.
        let rows: Vec<Vec<&str>> = (0..variant.height())
            .rev()
            .map(|r| {
                (0..variant.width())
                    .map(|c| match position.cell(r, c) {
                        Some(Some(ConnectSide::X)) => "X",
                        Some(Some(ConnectSide::O)) => "O",
                        _ => "",
                    })
                    .collect()
            })
            .collect();
        let line: Vec<[usize; 2]> =
            Self::winning_line(position).into_iter().map(|(r, c)| [variant.height() - 1 - r, c]).collect();
        json!({
            "width": variant.width(),
            "height": variant.height(),
            "connect": variant.line(),
            "rows": rows,
            "winning_line": line,
            "last_move": record.moves().last().map(|m| m.to_string()),
        })
    }

    fn hint(record: &Record<Connect>, slot: &mut EngineSlot, budget: Duration, caps: &Caps) -> Option<Value> {
        let position = record.current();
        let variant = position.connect_variant();
        let engine = Self::engine(slot, variant, connect_default_table(variant, caps.engine_memory)).ok()?;
        let deadline = std::time::Instant::now() + budget;
        let side = position.side_to_move();
        match engine.best_exact(position, Some(deadline)) {
            Ok((column, score, _)) => Some(json!({
                "move": column.to_string(),
                "value": format!("{} {}", side.letter(), describe_score(position, score)),
            })),
            Err(_) => {
                // Not solved in time: the engine's own choice, with what it was based on.
                engine.set_time(budget);
                let mv = engine.choose_move(record);
                Some(json!({"move": mv.to_string(), "value": engine.last_note()}))
            }
        }
    }

    fn choose(
        record: &Record<Connect>,
        spec: &PlayerSpec,
        slot: &mut EngineSlot,
        caps: &Caps,
    ) -> Result<Column, String> {
        let variant = record.current().connect_variant();
        if spec.name == "engine" {
            let time = spec.get_duration("time").map_err(|e| e.to_string())?.unwrap_or(Duration::from_secs(1));
            let table = spec.get_in_range("table", 1 << 16..=1 << 30).map_err(|e| e.to_string())?;
            let table = table.unwrap_or_else(|| connect_default_table(variant, caps.engine_memory));
            let engine = Self::engine(slot, variant, table)?;
            engine.set_time(time);
            return Ok(engine.choose_move(record));
        }
        let mut player = connect_player(spec, variant, record.moves().len() as u64).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }

    fn check_spec(record: &Record<Connect>, spec: &PlayerSpec, caps: &Caps) -> Result<(), String> {
        if spec.name == "engine" {
            // Checked without building an engine: its table is what the caps bound.
            spec.get_duration("time").map_err(|e| e.to_string())?;
            if let Some(table) = spec.get_in_range("table", 1 << 16..=1 << 30).map_err(|e| e.to_string())? {
                let bytes = ConnectSolver::memory_bytes(record.current().connect_variant(), table as usize);
                if bytes > caps.engine_memory {
                    return Err(format!(
                        "table={table} needs {} MiB, over this server's limit of {} MiB per engine",
                        bytes.div_ceil(1 << 20),
                        caps.engine_memory >> 20
                    ));
                }
            }
            return Ok(());
        }
        connect_player(spec, ConnectVariant::connect4(), 0).map(|_| ()).map_err(|e| e.to_string())
    }
}
