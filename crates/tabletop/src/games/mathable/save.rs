//! The JSON save format of a game in progress (documented in docs/MATHABLE.md).
//!
//! ```json
//! {
//!   "format": "tabletop-mathable-1",
//!   "settings": {"size":14,"players":2,"rack":7,"tokens":"classic","layout":"official",
//!                "operations":"all","bonus":50,"deductions":true,"seed":7},
//!   "board": [". . . . . . . . . . . . . .", "...", "... 1 2 ...", ...],
//!   "racks": [[1,3,3,7,9,10,45],[2,2,5,6,8,12,40]],
//!   "bag": [0,1,1,...],
//!   "scores": [0,0],
//!   "to_move": 0,
//!   "placed_this_turn": 0, "turn_started_full": true, "extra_draw": false, "idle_turns": 0,
//!   "rng_word_pos": "1234",
//!   "ended": null,
//!   "history": ["G9=4", "end"]
//! }
//! ```
//!
//! `bag` may be left out: it is then the token set minus the board and the racks. Every other
//! field after `racks` has a default (zero, `true` for `turn_started_full`).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::board::{Board, Cell, Square, Tokens};
use super::rules::{Bag, EndCause, Mathable, MathablePositionError};
use super::settings::{Settings, MAX_TOKEN};

/// The largest score a save may hold, in absolute value (a whole game scores a few thousand
/// points at most), so that play can never overflow it.
pub const MAX_SAVED_SCORE: u32 = 10_000_000;

/// The format tag of version 1.
pub const FORMAT: &str = "tabletop-mathable-1";

fn yes() -> bool {
    true
}

/// A game in progress as stored in JSON.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SaveState {
    /// Always [`FORMAT`].
    pub format: String,
    /// The settings (seed included).
    pub settings: Settings,
    /// One string per row, top first: cells separated by spaces, `.` for an empty cell.
    pub board: Vec<String>,
    /// Each seat's rack.
    pub racks: Vec<Vec<u8>>,
    /// The bag's tokens (any order); computed from the token set when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bag: Option<Vec<u8>>,
    /// Each seat's score.
    #[serde(default)]
    pub scores: Vec<i32>,
    /// The seat to move (0-based).
    #[serde(default)]
    pub to_move: u8,
    /// Tokens placed in the current turn.
    #[serde(default)]
    pub placed_this_turn: u8,
    /// Whether the current turn began with a full rack.
    #[serde(default = "yes")]
    pub turn_started_full: bool,
    /// Whether the player may take the extra token of a restriction square now.
    #[serde(default)]
    pub extra_draw: bool,
    /// Consecutive turns without a placement.
    #[serde(default)]
    pub idle_turns: u8,
    /// Position of the bag's random generator (seeded by `settings.seed`), as a decimal string.
    #[serde(default)]
    pub rng_word_pos: String,
    /// Why the game ended, or null while it goes on.
    #[serde(default)]
    pub ended: Option<String>,
    /// The moves so far in move notation (information; loading uses the fields above).
    #[serde(default)]
    pub history: Vec<String>,
}

fn invalid(text: impl Into<String>) -> MathablePositionError {
    MathablePositionError::Invalid(text.into())
}

impl SaveState {
    /// The save of a position, with the moves that led to it.
    pub fn from_game(game: &Mathable, history: &[String]) -> SaveState {
        let board = game.board();
        let rows = (0..board.size())
            .map(|r| {
                (0..board.size())
                    .map(|c| board.get(Cell::new(r, c)).map_or(".".to_string(), |v| v.to_string()))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let players = game.settings().players as usize;
        SaveState {
            format: FORMAT.to_string(),
            settings: *game.settings(),
            board: rows,
            racks: game.racks[..players].iter().map(|r| r.as_slice().to_vec()).collect(),
            bag: Some(game.bag().tokens()),
            scores: game.scores().to_vec(),
            to_move: game.to_move,
            placed_this_turn: game.placed,
            turn_started_full: game.started_full,
            extra_draw: game.extra_draw,
            idle_turns: game.idle_turns,
            rng_word_pos: game.rng.get_word_pos().to_string(),
            ended: game.end.map(|e| e.as_str().to_string()),
            history: history.to_vec(),
        }
    }

    /// The JSON text, pretty or on one line.
    pub fn to_json(&self, pretty: bool) -> String {
        let text = if pretty { serde_json::to_string_pretty(self) } else { serde_json::to_string(self) };
        text.expect("a save state always serialises")
    }

    /// Reads the JSON text.
    pub fn from_json(text: &str) -> Result<SaveState, MathablePositionError> {
        Ok(serde_json::from_str(text)?)
    }

    /// Reads a save and the game it holds, with the moves that led to it: [`SaveState::from_json`]
    /// then [`SaveState::to_game`].
    ///
    /// ```
    /// use tabletop::games::mathable::{Mathable, Preset, SaveState, Settings};
    /// let game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(9)).unwrap();
    /// let text = SaveState::from_game(&game, &[]).to_json(false);
    /// let (back, history) = SaveState::read(&text).unwrap();
    /// assert!(back == game && history.is_empty());
    /// assert!(SaveState::read("{}").is_err());
    /// ```
    pub fn read(text: &str) -> Result<(Mathable, Vec<String>), MathablePositionError> {
        let save = SaveState::from_json(text)?;
        Ok((save.to_game()?, save.history))
    }

    /// Rebuilds the position, checking that it is consistent (token conservation included).
    pub fn to_game(&self) -> Result<Mathable, MathablePositionError> {
        if self.format != FORMAT {
            return Err(invalid(format!("format {:?}, expected {FORMAT:?}", self.format)));
        }
        let settings = self.settings;
        settings.validate()?;
        let n = settings.size as usize;
        let players = settings.players as usize;
        let mut board = Board::new(&settings);
        if self.board.len() != n {
            return Err(invalid(format!("the board has {} rows, expected {n}", self.board.len())));
        }
        for (r, row) in self.board.iter().enumerate() {
            let cells: Vec<&str> = row.split_whitespace().collect();
            if cells.len() != n {
                return Err(invalid(format!("row {} has {} cells, expected {n}", r + 1, cells.len())));
            }
            for (c, text) in cells.iter().enumerate() {
                let cell = Cell::new(r as u8, c as u8);
                let value = match *text {
                    "." => None,
                    t => match t.parse::<u8>() {
                        Ok(v) if v <= MAX_TOKEN => Some(v),
                        _ => return Err(invalid(format!("{cell} holds {t:?}, not a token"))),
                    },
                };
                if board.square(cell) == Square::Start {
                    if value != board.get(cell) {
                        return Err(invalid(format!("{cell} must hold its start tile")));
                    }
                } else {
                    board.set(cell, value);
                }
            }
        }
        if self.racks.len() != players {
            return Err(invalid(format!("{} racks for {players} players", self.racks.len())));
        }
        let mut racks = [Tokens::EMPTY; 4];
        for (seat, rack) in self.racks.iter().enumerate() {
            if rack.len() > settings.rack as usize {
                return Err(invalid(format!("rack {seat} holds more than {} tokens", settings.rack)));
            }
            racks[seat] = Tokens::from_slice(rack).ok_or_else(|| invalid(format!("rack {seat} is not valid")))?;
        }
        let bag = match &self.bag {
            Some(tokens) => {
                // Counted before the bag holds them: no count may exceed the token set's.
                let set = settings.tokens.counts();
                let mut counts = [0usize; MAX_TOKEN as usize + 1];
                for &v in tokens {
                    if v > MAX_TOKEN {
                        return Err(invalid(format!("bag token {v} is not a token")));
                    }
                    counts[v as usize] += 1;
                    if counts[v as usize] > set[v as usize] as usize {
                        return Err(invalid(format!(
                            "the bag holds more tokens of {v} than the set ({})",
                            set[v as usize]
                        )));
                    }
                }
                let mut bag = Bag::empty();
                for &v in tokens {
                    bag.put(v);
                }
                bag
            }
            None => {
                let mut bag = Bag::filled(settings.tokens);
                let placed = board.placed_counts();
                for (v, &count) in placed.iter().enumerate() {
                    for _ in 0..count {
                        if !bag.take(v as u8) {
                            return Err(invalid(format!("more tokens of {v} than the set holds")));
                        }
                    }
                }
                for rack in &racks[..players] {
                    for &v in rack.as_slice() {
                        if !bag.take(v) {
                            return Err(invalid(format!("more tokens of {v} than the set holds")));
                        }
                    }
                }
                bag
            }
        };
        let mut scores = [0; 4];
        if !self.scores.is_empty() && self.scores.len() != players {
            return Err(invalid(format!("{} scores for {players} players", self.scores.len())));
        }
        if let Some(&score) = self.scores.iter().find(|s| s.unsigned_abs() > MAX_SAVED_SCORE) {
            return Err(invalid(format!("score {score} is beyond +/-{MAX_SAVED_SCORE}")));
        }
        let rack_size = settings.rack as usize;
        let placed = self.placed_this_turn as usize;
        if placed > rack_size {
            return Err(invalid(format!("{placed} tokens placed this turn with a rack of {rack_size}")));
        }
        if self.extra_draw && placed == 0 {
            return Err(invalid("an extra draw is pending before any placement this turn"));
        }
        scores[..self.scores.len()].copy_from_slice(&self.scores);
        if self.to_move as usize >= players {
            return Err(invalid(format!("seat {} is not at the table", self.to_move)));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        if !self.rng_word_pos.is_empty() {
            let pos: u128 = self.rng_word_pos.parse().map_err(|_| invalid("rng_word_pos is not a number"))?;
            rng.set_word_pos(pos);
        }
        let end = match &self.ended {
            None => None,
            Some(text) => Some(EndCause::parse(text).ok_or_else(|| invalid(format!("unknown end {text:?}")))?),
        };
        // A turn that has not placed yet started full exactly when the rack is full.
        let full = self.turn_started_full
            && (self.placed_this_turn > 0 || racks[self.to_move as usize].len() >= settings.rack as usize);
        let turn = (self.placed_this_turn, full, self.extra_draw, self.idle_turns);
        let game = Mathable::from_parts(settings, board, racks, bag, rng, scores, self.to_move, turn, end);
        game.check_conservation().map_err(invalid)?;
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    fn save() -> SaveState {
        SaveState::from_game(&Mathable::start(&Settings::default()), &[])
    }

    fn refusal(save: &SaveState) -> String {
        match save.to_game() {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted: {save:?}"),
        }
    }

    #[test]
    fn a_fresh_save_loads_back() {
        let s = save();
        assert_eq!(s.to_game().unwrap(), Mathable::start(&Settings::default()));
    }

    #[test]
    fn scores_that_could_overflow_are_refused() {
        let mut s = save();
        s.scores = vec![i32::MAX - 5, 0];
        assert_eq!(refusal(&s), "bad save: score 2147483642 is beyond +/-10000000");
        s.scores = vec![0, i32::MIN];
        assert!(refusal(&s).contains("beyond"));
        s.scores = vec![10_000_000, -10_000_000];
        assert!(s.to_game().is_ok());
    }

    #[test]
    fn a_bag_beyond_the_token_set_is_refused() {
        let mut s = save();
        let mut bag = s.bag.clone().unwrap();
        bag.extend(std::iter::repeat_n(1, 256));
        s.bag = Some(bag);
        assert!(refusal(&s).starts_with("bad save: the bag holds more tokens of 1 than the set"), "{}", refusal(&s));
    }

    #[test]
    fn inconsistent_turn_flags_are_refused() {
        let mut s = save();
        s.placed_this_turn = 200;
        assert_eq!(refusal(&s), "bad save: 200 tokens placed this turn with a rack of 7");
        let mut s = save();
        s.extra_draw = true;
        assert_eq!(refusal(&s), "bad save: an extra draw is pending before any placement this turn");
    }
}
