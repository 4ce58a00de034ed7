//! Games as the server sees them: a uniform, object-safe [`Session`] over any [`Game`], with a
//! small [`Adapter`] per game for what only that game knows (its options, its board as JSON,
//! its players and hints).

use serde_json::{json, Value};
use tabletop::games::connect::engine::{describe_score, make_player as connect_player, Engine as ConnectEngine};
use tabletop::games::connect::{Column, Connect, ConnectVariant, Side as ConnectSide};
use tabletop::games::mathable::{players::from_spec as mathable_player, Mathable, MathableMove, Settings, Square};
use tabletop::games::reversi::{engine::Engine as ReversiEngine, players::make_player as reversi_player};
use tabletop::games::reversi::{Color, Reversi, ReversiMove};
use tabletop::games::slide::players::{player_from_spec as slide_player, EnginePlayer, PLAYER_KINDS as SLIDE_KINDS};
use tabletop::games::slide::{Cell, Slide, SlideVariant};
use tabletop::{EndReason, Game, Outcome, Player, PlayerKind, PlayerSpec, Record, Seat, Status};

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
    /// The moves so far, in notation.
    fn moves(&self) -> Vec<String>;
    /// The board and status as JSON for `viewer` (a seat, or `None` for a spectator).
    fn view(&self, viewer: Option<usize>) -> Value;
    /// The engine's best move and its value.
    fn hint(&self) -> Option<Value>;
    /// A computer player's move for the side to move, in notation.
    fn computer_move(&self, spec: &PlayerSpec) -> Result<String, String>;
    /// Checks a player spec against the players this game offers (`human` included).
    fn check_spec(&self, spec: &PlayerSpec) -> Result<(), String>;
    /// A copy, for thinking off the lock.
    fn boxed_clone(&self) -> Box<dyn Session>;
}

/// What a game must provide to be served.
pub trait Adapter<G: Game>: Send + Sync + 'static {
    /// The game's name.
    const NAME: &'static str;
    /// The players it offers.
    fn player_kinds() -> &'static [PlayerKind];
    /// The starting position from the options sent by the page (validated, with a reason).
    fn start(options: &Value) -> Result<G, String>;
    /// The board as JSON.
    fn board(record: &Record<G>, viewer: Option<usize>) -> Value;
    /// The engine's advice.
    fn hint(record: &Record<G>) -> Option<Value>;
    /// A move chosen by the player a spec names.
    fn choose(record: &Record<G>, spec: &PlayerSpec) -> Result<G::Move, String>;
    /// Does the position hold information some seats must not see (Mathable's racks)? Then the
    /// legal moves and the position notation go only to the seat to move.
    const HIDDEN_INFORMATION: bool = false;
    /// Fills in options the game needs fixed for replay (a random bag seed), before storing.
    fn complete_options(_options: &mut Value) {}
}

/// A [`Session`] for any game with an [`Adapter`].
pub struct GenericSession<G: Game, A: Adapter<G>> {
    record: Record<G>,
    adapter: std::marker::PhantomData<A>,
}

impl<G: Game, A: Adapter<G>> GenericSession<G, A> {
    /// A new game from the page's options.
    pub fn new(options: &Value) -> Result<Self, String> {
        Ok(GenericSession { record: Record::new(A::start(options)?), adapter: std::marker::PhantomData })
    }
}

fn status_json<G: Game>(record: &Record<G>) -> Value {
    match record.status() {
        Status::ToMove(seat) => json!({"over": false, "to_move": seat.0}),
        Status::Over(outcome) => {
            let reason = match record.end_reason() {
                Some(EndReason::Repetition) => "the same position occurred a third time".to_string(),
                Some(EndReason::Rules(text)) => text,
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

impl<G: Game, A: Adapter<G>> Session for GenericSession<G, A> {
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

    fn moves(&self) -> Vec<String> {
        self.record.moves().iter().map(|m| m.to_string()).collect()
    }

    fn view(&self, viewer: Option<usize>) -> Value {
        let to_move = self.to_move();
        let may_see = !A::HIDDEN_INFORMATION || (viewer.is_some() && viewer == to_move);
        let mut legal = Vec::new();
        if to_move.is_some() && may_see {
            self.record.current().legal_moves(&mut legal);
        }
        json!({
            "game": A::NAME,
            "status": status_json(&self.record),
            "board": A::board(&self.record, viewer),
            "legal": legal.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            "moves": self.moves(),
            "position": if may_see { Value::from(self.record.current().notation()) } else { Value::Null },
        })
    }

    fn hint(&self) -> Option<Value> {
        A::hint(&self.record)
    }

    fn computer_move(&self, spec: &PlayerSpec) -> Result<String, String> {
        A::choose(&self.record, spec).map(|m| m.to_string())
    }

    fn check_spec(&self, spec: &PlayerSpec) -> Result<(), String> {
        if spec.name == "human" && spec.settings.is_empty() {
            return Ok(()); // every game can be played by people
        }
        spec.check(A::player_kinds()).map(|_| ()).map_err(|e| format!("{e} (or human)"))
    }

    fn boxed_clone(&self) -> Box<dyn Session> {
        Box::new(GenericSession::<G, A> { record: self.record.clone(), adapter: std::marker::PhantomData })
    }
}

/// The games the server offers.
pub const GAMES: &[&str] = &["slide", "reversi", "connect", "mathable"];

/// Starts a session of a named game.
pub fn new_session(game: &str, options: &Value) -> Result<Box<dyn Session>, String> {
    match game {
        "slide" => Ok(Box::new(GenericSession::<Slide, SlideAdapter>::new(options)?)),
        "mathable" => Ok(Box::new(GenericSession::<Mathable, MathableAdapter>::new(options)?)),
        "reversi" => Ok(Box::new(GenericSession::<Reversi, ReversiAdapter>::new(options)?)),
        "connect" => Ok(Box::new(GenericSession::<Connect, ConnectAdapter>::new(options)?)),
        other => Err(format!("unknown game {other:?}; available: {}", GAMES.join(", "))),
    }
}

/// Fills in the options a game needs fixed before they are stored (see [`Adapter::complete_options`]).
pub fn complete_options(game: &str, options: &mut Value) {
    match game {
        "slide" => SlideAdapter::complete_options(options),
        "mathable" => MathableAdapter::complete_options(options),
        _ => {}
    }
}

/// Slide on the web.
pub struct SlideAdapter;

fn option_usize(options: &Value, key: &str, default: usize) -> Result<usize, String> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_u64().map(|n| n as usize).ok_or_else(|| format!("option {key:?} must be a whole number")),
    }
}

impl Adapter<Slide> for SlideAdapter {
    const NAME: &'static str = "slide";

    fn player_kinds() -> &'static [PlayerKind] {
        SLIDE_KINDS
    }

    fn start(options: &Value) -> Result<Slide, String> {
        let size = option_usize(options, "size", 3)?;
        let empty = option_usize(options, "empty", 1)?;
        let variant = SlideVariant::new(size, empty).map_err(|e| e.to_string())?;
        Ok(Slide::start(&variant))
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
        })
    }

    fn hint(record: &Record<Slide>) -> Option<Value> {
        let advice = EnginePlayer::new(Some(std::time::Duration::from_millis(500)), None).advise(record)?;
        Some(json!({"move": advice.best.to_string(), "value": advice.value}))
    }

    fn choose(record: &Record<Slide>, spec: &PlayerSpec) -> Result<tabletop::games::slide::SlideMove, String> {
        let mut player = slide_player(spec).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }
}

/// Mathable on the web: racks are hidden information.
pub struct MathableAdapter;

impl Adapter<Mathable> for MathableAdapter {
    const NAME: &'static str = "mathable";
    const HIDDEN_INFORMATION: bool = true;

    fn player_kinds() -> &'static [PlayerKind] {
        tabletop::games::mathable::PLAYER_KINDS
    }

    fn complete_options(options: &mut Value) {
        if options.get("seed").and_then(Value::as_u64).is_none() {
            use rand::RngCore;
            options["seed"] = json!(rand::rngs::OsRng.next_u64() >> 11);
        }
    }

    fn start(options: &Value) -> Result<Mathable, String> {
        let preset = options.get("preset").and_then(Value::as_str).unwrap_or("classic");
        let mut settings: Settings =
            preset.parse().map_err(|e: tabletop::games::mathable::SettingsError| e.to_string())?;
        if let Some(players) = options.get("players").filter(|v| !v.is_null()) {
            settings.players = players.as_u64().filter(|&p| p <= 8).ok_or("option \"players\" must be 2 to 4")? as u8;
        }
        settings.seed = options.get("seed").and_then(Value::as_u64).unwrap_or(1);
        Mathable::new(&settings).map_err(|e| e.to_string())
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
        let placements: Vec<Value> = if viewer.is_some() && viewer == record.status().to_move().map(|s| s.index()) {
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
            "can_exchange": game.can_exchange(),
            "extra_draw": game.extra_draw_pending(),
            "recent": recent,
        })
    }

    fn hint(record: &Record<Mathable>) -> Option<Value> {
        let game = record.current();
        let best = game.placements().into_iter().max_by_key(|p| p.points)?;
        Some(json!({"move": format!("{}={}", best.cell, best.token), "value": format!("{} points", best.points)}))
    }

    fn choose(record: &Record<Mathable>, spec: &PlayerSpec) -> Result<MathableMove, String> {
        let seed = record.current().settings().seed ^ record.moves().len() as u64;
        let mut player = mathable_player(spec, seed).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }
}

/// Reversi on the web.
pub struct ReversiAdapter;

impl Adapter<Reversi> for ReversiAdapter {
    const NAME: &'static str = "reversi";

    fn player_kinds() -> &'static [PlayerKind] {
        tabletop::games::reversi::players::PLAYERS
    }

    fn start(_options: &Value) -> Result<Reversi, String> {
        Ok(Reversi::new())
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

    fn hint(record: &Record<Reversi>) -> Option<Value> {
        let analysis = ReversiEngine::new(Some(std::time::Duration::from_millis(500)), None).analyse(record.current());
        Some(json!({"move": analysis.best.to_string(), "value": analysis.describe()}))
    }

    fn choose(record: &Record<Reversi>, spec: &PlayerSpec) -> Result<ReversiMove, String> {
        let mut player = reversi_player(spec, record.moves().len() as u64).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }
}

/// Connect-N on the web.
pub struct ConnectAdapter;

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
}

impl Adapter<Connect> for ConnectAdapter {
    const NAME: &'static str = "connect";

    fn player_kinds() -> &'static [PlayerKind] {
        tabletop::games::connect::engine::PLAYER_KINDS
    }

    fn start(options: &Value) -> Result<Connect, String> {
        let variant: ConnectVariant = match options.get("preset").and_then(Value::as_str) {
            Some(preset) => preset.parse().map_err(|e: tabletop::games::connect::ConnectVariantError| e.to_string())?,
            None => ConnectVariant::new(
                option_usize(options, "width", 7)?,
                option_usize(options, "height", 6)?,
                option_usize(options, "connect", 4)?,
            )
            .map_err(|e| e.to_string())?,
        };
        Ok(Connect::new(variant))
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

    fn hint(record: &Record<Connect>) -> Option<Value> {
        let position = record.current();
        let mut engine = ConnectEngine::new(position.connect_variant(), std::time::Duration::from_millis(800));
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(800);
        let side = position.side_to_move();
        match engine.best_exact(position, Some(deadline)) {
            Ok((column, score, _)) => Some(json!({
                "move": column.to_string(),
                "value": format!("{} {}", side.letter(), describe_score(position, score)),
            })),
            Err(_) => {
                // Not solved in time: the engine's own choice, with what it was based on.
                let mv = engine.choose_move(record);
                Some(json!({"move": mv.to_string(), "value": engine.last_note()}))
            }
        }
    }

    fn choose(record: &Record<Connect>, spec: &PlayerSpec) -> Result<Column, String> {
        let variant = record.current().connect_variant();
        let mut player = connect_player(spec, variant, record.moves().len() as u64).map_err(|e| e.to_string())?;
        Ok(player.choose_move(record))
    }
}
