//! Mathable under the [`Game`] abstraction: the rules of `rules` and the position notation of
//! `save` (the JSON save format) brought together, so that neither of those modules needs the other
//! the wrong way round.

use super::board::{Cell, PlacementError, Square, Tokens, MAX_RACK};
use super::rules::*;
use super::save::SaveState;
use super::settings::Settings;
use crate::game::{Game, Seat, Status};

impl Game for Mathable {
    type Move = MathableMove;
    type Variant = Settings;
    type MoveError = MathableMoveError;
    type PositionError = MathablePositionError;

    const NAME: &'static str = "mathable";

    /// Starts a game; invalid settings are clamped into range (use [`Mathable::new`] to get an
    /// error instead).
    fn start(variant: &Settings) -> Self {
        let mut s = *variant;
        s.size = s.size.clamp(8, 14) & !1;
        s.players = s.players.clamp(2, 4);
        s.rack = s.rack.clamp(4, 8);
        Mathable::new(&s).expect("clamped settings are valid")
    }

    fn variant(&self) -> Settings {
        self.settings
    }

    fn num_seats(&self) -> usize {
        self.settings.players as usize
    }

    fn status(&self) -> Status {
        match self.end {
            None => Status::ToMove(Seat(self.to_move)),
            Some(_) => Status::Over(self.outcome()),
        }
    }

    fn legal_moves(&self, moves: &mut Vec<MathableMove>) {
        moves.clear();
        if self.end.is_some() {
            return;
        }
        for p in self.placements() {
            moves.push(MathableMove::Place { cell: p.cell, token: p.token });
        }
        if self.extra_draw && !self.bag.is_empty() {
            moves.push(MathableMove::Draw);
        }
        moves.push(MathableMove::EndTurn);
        if self.can_exchange() {
            let rack = self.racks[self.to_move as usize];
            let values = rack.as_slice();
            let mut seen = std::collections::HashSet::new();
            for subset in 1u32..(1 << values.len()) {
                if subset.count_ones() as usize > self.bag.len() {
                    continue;
                }
                let mut t = Tokens::EMPTY;
                for (i, &v) in values.iter().enumerate() {
                    if subset & (1 << i) != 0 {
                        t.insert(v);
                    }
                }
                if seen.insert(t) {
                    moves.push(MathableMove::Exchange(t));
                }
            }
        }
        moves.push(MathableMove::Terminate);
    }

    fn play_unchecked(&mut self, mv: MathableMove) {
        let mover = self.to_move as usize;
        match mv {
            MathableMove::Place { cell, token } => {
                let points = self.board.score(cell, token).unwrap_or(0);
                self.board.put(cell, token);
                self.racks[mover].remove(token);
                self.scores[mover] += points as i32;
                self.placed += 1;
                self.extra_draw = matches!(self.board.square(cell), Square::Restriction(_));
            }
            MathableMove::Draw => {
                if let Some(v) = self.bag.draw(&mut self.rng) {
                    self.racks[mover].insert(v);
                }
                self.extra_draw = false;
            }
            MathableMove::EndTurn => {
                self.scores[mover] += self.pending_bonus() as i32;
                self.idle_turns = if self.placed > 0 { 0 } else { self.idle_turns.saturating_add(1) };
                let size = self.settings.rack as usize;
                self.bag.fill_rack(&mut self.racks[mover], size, &mut self.rng);
                self.next_turn();
            }
            MathableMove::Exchange(tokens) => {
                self.do_exchange(tokens);
            }
            MathableMove::Terminate => self.finish(EndCause::Terminated),
        }
        self.hash = self.recompute_hash();
    }

    fn illegal_reason(&self, mv: MathableMove) -> Option<MathableMoveError> {
        if self.end.is_some() {
            return Some(MathableMoveError::GameOver);
        }
        let rack = &self.racks[self.to_move as usize];
        match mv {
            MathableMove::Place { cell, token } => {
                if let Err(e) = self.board.score(cell, token) {
                    if matches!(e, PlacementError::OffBoard(_) | PlacementError::Occupied(_)) || rack.contains(token) {
                        return Some(e.into());
                    }
                }
                if !rack.contains(token) {
                    return Some(MathableMoveError::NotOnRack(token));
                }
                None
            }
            MathableMove::Draw if !self.extra_draw => Some(MathableMoveError::NoDraw),
            MathableMove::Draw if self.bag.is_empty() => Some(MathableMoveError::BagEmpty),
            MathableMove::Exchange(tokens) => self.check_exchange(&tokens),
            MathableMove::Draw | MathableMove::EndTurn | MathableMove::Terminate => None,
        }
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn recompute_hash(&self) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325;
        fnv(&mut h, self.board.raw());
        for rack in &self.racks {
            fnv(&mut h, &[rack.len() as u8]);
            fnv(&mut h, rack.as_slice());
        }
        fnv(&mut h, self.bag.counts());
        for s in self.scores {
            fnv(&mut h, &s.to_le_bytes());
        }
        let end = self.end.map_or(0, |e| e as u8 + 1);
        fnv(&mut h, &[self.to_move, self.placed, self.started_full as u8, self.extra_draw as u8, self.idle_turns, end]);
        fnv(&mut h, &self.rng.get_word_pos().to_le_bytes());
        h
    }

    fn parse_move(&self, text: &str) -> Result<MathableMove, MathableMoveError> {
        let t = text.trim();
        let lower = t.to_ascii_lowercase();
        match lower.as_str() {
            "draw" | "d" => return Ok(MathableMove::Draw),
            "end" | "e" => return Ok(MathableMove::EndTurn),
            "terminate" | "t" => return Ok(MathableMove::Terminate),
            _ => {}
        }
        let parts: Vec<&str> =
            t.split(|c: char| c.is_whitespace() || c == ',' || c == '=').filter(|p| !p.is_empty()).collect();
        match parts.as_slice() {
            [word, tokens @ ..] if ["swap", "s", "exchange"].contains(&word.to_ascii_lowercase().as_str()) => {
                if tokens.is_empty() || tokens.len() > MAX_RACK {
                    return Err(MathableMoveError::ExchangeCount(self.settings.rack as usize));
                }
                let values = tokens.iter().map(|p| parse_token(p)).collect::<Result<Vec<u8>, _>>()?;
                Ok(MathableMove::Exchange(
                    Tokens::from_slice(&values).ok_or_else(|| MathableMoveError::Syntax(t.to_string()))?,
                ))
            }
            [cell, token] => {
                let cell: Cell = cell.parse()?;
                let token = parse_token(token)?;
                Ok(MathableMove::Place { cell, token })
            }
            [one] if one.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) => {
                let _: Cell = one.parse()?;
                Err(MathableMoveError::Syntax(t.to_string()))
            }
            _ => Err(MathableMoveError::Syntax(t.to_string())),
        }
    }

    fn notation(&self) -> String {
        SaveState::from_game(self, &[]).to_json(false)
    }

    fn from_notation(variant: &Settings, text: &str) -> Result<Self, MathablePositionError> {
        let game = SaveState::from_json(text)?.to_game()?;
        if game.settings != *variant {
            return Err(MathablePositionError::OtherVariant);
        }
        Ok(game)
    }

    fn end_reason(&self) -> Option<String> {
        self.end.map(|e| e.as_str().to_string())
    }
}
