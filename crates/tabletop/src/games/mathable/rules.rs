//! The game: bag, racks, turns, scoring, the end of the game, and the [`Game`] implementation.

use std::fmt;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::board::{Board, Cell, CellError, Placement, PlacementError, Tokens, MAX_RACK};
use super::settings::{Settings, SettingsError, MAX_TOKEN};
use crate::game::{Game, Outcome, Seat, SeatSet};

/// The bag: a multiset of tokens; drawing takes a uniformly random one, which is the same as
/// shuffling the bag and drawing from the top.
///
/// ```
/// use tabletop::games::mathable::{Bag, TokenSet};
/// let bag = Bag::filled(TokenSet::Classic);
/// assert_eq!(bag.len(), 106);
/// assert_eq!(bag.count(7), 7);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bag {
    counts: [u8; MAX_TOKEN as usize + 1],
    len: u8,
}

impl fmt::Debug for Bag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bag({:?})", self.tokens())
    }
}

impl Bag {
    /// An empty bag.
    pub fn empty() -> Bag {
        Bag { counts: [0; MAX_TOKEN as usize + 1], len: 0 }
    }

    /// A bag filled with every token of a set.
    pub fn filled(set: super::settings::TokenSet) -> Bag {
        let counts = set.counts();
        Bag { counts, len: counts.iter().map(|&c| c as u32).sum::<u32>() as u8 }
    }

    /// The number of tokens in the bag (bag size).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Is the bag empty?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many tokens of a value are in the bag.
    pub fn count(&self, token: u8) -> usize {
        self.counts.get(token as usize).map_or(0, |&c| c as usize)
    }

    /// Puts a token in.
    pub fn put(&mut self, token: u8) {
        self.counts[token as usize] += 1;
        self.len += 1;
    }

    /// Takes out a given token; false if there is none.
    pub fn take(&mut self, token: u8) -> bool {
        match self.counts.get_mut(token as usize) {
            Some(c) if *c > 0 => {
                *c -= 1;
                self.len -= 1;
                true
            }
            _ => false,
        }
    }

    /// Draws a random token, or `None` from an empty bag.
    pub fn draw(&mut self, rng: &mut impl Rng) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let mut k = rng.gen_range(0..self.len as u32);
        for (v, c) in self.counts.iter_mut().enumerate() {
            if k < *c as u32 {
                *c -= 1;
                self.len -= 1;
                return Some(v as u8);
            }
            k -= *c as u32;
        }
        unreachable!("the counts add up to len")
    }

    /// Draws tokens until the rack holds `size` tokens or the bag is empty; returns how many
    /// were drawn.
    pub fn fill_rack(&mut self, rack: &mut Tokens, size: usize, rng: &mut impl Rng) -> usize {
        let mut drawn = 0;
        while rack.len() < size.min(MAX_RACK) {
            match self.draw(rng) {
                Some(v) => {
                    rack.insert(v);
                    drawn += 1;
                }
                None => break,
            }
        }
        drawn
    }

    /// Swaps one rack token with a random bag token (the new one is drawn before the old one
    /// goes in); returns the new token, or `None` if the token is not on the rack or the bag is
    /// empty.
    pub fn swap_token(&mut self, rack: &mut Tokens, token: u8, rng: &mut impl Rng) -> Option<u8> {
        if !rack.contains(token) || self.is_empty() {
            return None;
        }
        let new = self.draw(rng)?;
        rack.remove(token);
        rack.insert(new);
        self.put(token);
        Some(new)
    }

    /// The tokens in the bag, sorted.
    pub fn tokens(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for (v, &c) in self.counts.iter().enumerate() {
            out.resize(out.len() + c as usize, v as u8);
        }
        out
    }

    pub(crate) fn counts(&self) -> &[u8; MAX_TOKEN as usize + 1] {
        &self.counts
    }
}

/// A move: a placement, the extra draw after a restriction square, ending the turn, an
/// exchange (which ends the turn) or terminating the game.
///
/// Notation: `G9=4` (the input `G9 4` is read too), `draw`, `end`, `swap=14,32`, `terminate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathableMove {
    /// Put a token from the rack on a cell.
    Place {
        /// Where.
        cell: Cell,
        /// Which token.
        token: u8,
    },
    /// Take the extra token allowed right after a placement on a restriction square.
    Draw,
    /// End the turn (with no placement this is a pass); the rack is refilled.
    EndTurn,
    /// Exchange these rack tokens with the bag (only at the start of a turn; ends it).
    Exchange(Tokens),
    /// End the game at once, ranking players by their current scores.
    Terminate,
}

impl fmt::Display for MathableMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MathableMove::Place { cell, token } => write!(f, "{cell}={token}"),
            MathableMove::Draw => f.write_str("draw"),
            MathableMove::EndTurn => f.write_str("end"),
            MathableMove::Exchange(t) => {
                f.write_str("swap=")?;
                for (i, v) in t.as_slice().iter().enumerate() {
                    write!(f, "{}{v}", if i > 0 { "," } else { "" })?;
                }
                Ok(())
            }
            MathableMove::Terminate => f.write_str("terminate"),
        }
    }
}

/// Why a move could not be read or played. Each message is one line for the player.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MathableMoveError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// A bad cell.
    #[error(transparent)]
    Cell(#[from] CellError),
    /// A token that is not a number 0..=90.
    #[error("{0:?} is not a token: tokens are numbers from 0 to 90")]
    Token(String),
    /// Not a move at all.
    #[error("cannot read {0:?}: write a cell and a token (G9 4), draw, end, swap 14 32 or terminate")]
    Syntax(String),
    /// The token is not on the rack of the player to move.
    #[error("{0} is not on your rack")]
    NotOnRack(u8),
    /// The equation rule refuses the placement.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// No extra draw is allowed now.
    #[error("no extra draw now: it is allowed only right after a placement on a restriction square")]
    NoDraw,
    /// The bag is empty.
    #[error("the bag is empty")]
    BagEmpty,
    /// Exchange after a placement this turn.
    #[error("you cannot exchange after placing a token this turn")]
    ExchangeAfterPlacement,
    /// Exchange of no tokens or more than the rack holds.
    #[error("exchange 1 to {0} tokens")]
    ExchangeCount(usize),
    /// Exchange of tokens that are not on the rack.
    #[error("you can only exchange tokens on your rack ({0})")]
    ExchangeNotOnRack(Tokens),
    /// The bag holds fewer tokens than the exchange asks for.
    #[error("the bag holds only {bag} tokens, fewer than the {wanted} you want to exchange")]
    BagShort {
        /// Tokens asked for.
        wanted: usize,
        /// Tokens in the bag.
        bag: usize,
    },
}

/// Why a saved position could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MathablePositionError {
    /// Not valid JSON for the save format.
    #[error("not a Mathable save: {0}")]
    Json(#[from] serde_json::Error),
    /// The settings are invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The save's settings differ from the expected variant.
    #[error("the save is for other settings")]
    OtherVariant,
    /// Something inconsistent, described.
    #[error("bad save: {0}")]
    Invalid(String),
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndCause {
    /// The bag is empty and a player emptied their rack.
    RackEmptied,
    /// No more equations can be made: no token that is not on the board (on any rack or in the
    /// bag) fits any empty cell, so no rack, now or after any exchange, can ever place again.
    /// This includes an empty bag with no rack able to place.
    Blocked,
    /// Every player passed or exchanged twice in a row. Games no longer end this way (passing
    /// alone never ends a game); the cause is kept so that games saved finished that way load
    /// as finished.
    Passes,
    /// A player terminated the game.
    Terminated,
}

impl EndCause {
    /// Short text for messages and the save format.
    pub fn as_str(self) -> &'static str {
        match self {
            EndCause::RackEmptied => "rack emptied",
            EndCause::Blocked => "no more equations can be made",
            EndCause::Passes => "every player passed twice",
            EndCause::Terminated => "terminated",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<EndCause> {
        // Saves written before the blocked end covered a bag with tokens in it name it so.
        if text == "bag empty and no player can place" {
            return Some(EndCause::Blocked);
        }
        [EndCause::RackEmptied, EndCause::Blocked, EndCause::Passes, EndCause::Terminated]
            .into_iter()
            .find(|c| c.as_str() == text)
    }
}

/// Why a computer seat does not agree to end the game now (see [`Mathable::agrees_to_end`]).
/// Each message is one sentence for the person who proposed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EndRefusal {
    /// The seat is behind but could still reach the leader's score.
    #[error("The computer does not agree to end the game: it can still catch up.")]
    CanCatchUp,
    /// The seat shares the lead: ending now would throw away the chance to win.
    #[error("The computer does not agree to end the game: it shares the lead and can still win.")]
    SharesTheLead,
}

/// A Mathable position: settings, board, racks, bag with its seeded generator, scores and the
/// state of the current turn.
///
/// ```
/// use tabletop::games::mathable::{Mathable, MathableMove, Preset, Settings};
/// use tabletop::{Game, Seat, Status};
/// let mut game = Mathable::start(&Settings::preset(Preset::Classic).with_seed(7));
/// assert_eq!(game.rack(Seat(0)).len(), 7);
/// assert_eq!(game.bag().len(), 106 - 14);
/// let best = game.placements().into_iter().max_by_key(|p| p.points);
/// if let Some(p) = best {
///     game.play(MathableMove::Place { cell: p.cell, token: p.token }).unwrap();
///     assert_eq!(game.score(Seat(0)), p.points as i32);
/// }
/// game.play(MathableMove::EndTurn).unwrap();
/// assert_eq!(game.status(), Status::ToMove(Seat(1)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Mathable {
    pub(crate) settings: Settings,
    pub(crate) board: Board,
    pub(crate) racks: [Tokens; 4],
    pub(crate) bag: Bag,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) scores: [i32; 4],
    pub(crate) to_move: u8,
    pub(crate) placed: u8,
    pub(crate) started_full: bool,
    pub(crate) extra_draw: bool,
    pub(crate) idle_turns: u8,
    pub(crate) end: Option<EndCause>,
    pub(crate) hash: u64,
}

impl Mathable {
    /// Starts a game, or explains which setting is bad.
    pub fn new(settings: &Settings) -> Result<Mathable, SettingsError> {
        settings.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut bag = Bag::filled(settings.tokens);
        let mut racks = [Tokens::EMPTY; 4];
        for rack in racks.iter_mut().take(settings.players as usize) {
            bag.fill_rack(rack, settings.rack as usize, &mut rng);
        }
        let mut game = Mathable {
            settings: *settings,
            board: Board::new(settings),
            racks,
            bag,
            rng,
            scores: [0; 4],
            to_move: 0,
            placed: 0,
            started_full: true,
            extra_draw: false,
            idle_turns: 0,
            end: None,
            hash: 0,
        };
        game.hash = game.recompute_hash();
        Ok(game)
    }

    /// The racks of [`Mathable::new`] in the order their tokens were drawn (the racks
    /// themselves are kept sorted): the simplified rules' program shows racks in drawn order.
    pub fn dealt_in_order(settings: &Settings) -> Result<Vec<Vec<u8>>, SettingsError> {
        settings.validate()?;
        // The same draws as `new`: the same seed, bag and rack size, seat after seat.
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut bag = Bag::filled(settings.tokens);
        let size = (settings.rack as usize).min(MAX_RACK);
        Ok((0..settings.players).map(|_| (0..size).map_while(|_| bag.draw(&mut rng)).collect()).collect())
    }

    /// The tokens `mv` draws from the bag, in the order they are drawn: the refill after
    /// [`MathableMove::EndTurn`], the extra [`MathableMove::Draw`], or one new token for each
    /// token of an [`MathableMove::Exchange`] (the first drawn replaces the first token given).
    /// Empty for other moves.
    pub fn draws_of(&self, mv: MathableMove) -> Vec<u8> {
        let rack = self.racks[self.to_move as usize].len();
        let count = match mv {
            MathableMove::EndTurn => (self.settings.rack as usize).min(MAX_RACK).saturating_sub(rack),
            MathableMove::Draw => 1,
            MathableMove::Exchange(tokens) => tokens.len(),
            MathableMove::Place { .. } | MathableMove::Terminate => 0,
        };
        // The same generator and bag as `play` uses, on copies.
        let (mut bag, mut rng) = (self.bag.clone(), self.rng.clone());
        (0..count).map_while(|_| bag.draw(&mut rng)).collect()
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// A seat's rack.
    pub fn rack(&self, seat: Seat) -> &Tokens {
        &self.racks[seat.index()]
    }

    /// The bag.
    pub fn bag(&self) -> &Bag {
        &self.bag
    }

    /// A seat's score (end-of-game deductions included once the game is over).
    pub fn score(&self, seat: Seat) -> i32 {
        self.scores[seat.index()]
    }

    /// Every seat's score.
    pub fn scores(&self) -> &[i32] {
        &self.scores[..self.settings.players as usize]
    }

    /// The seat whose turn it is (the last mover once the game is over).
    pub fn turn(&self) -> Seat {
        Seat(self.to_move)
    }

    /// Tokens placed so far in the current turn.
    pub fn placed_this_turn(&self) -> usize {
        self.placed as usize
    }

    /// Did the current turn begin with a full rack (a condition of the bonus)?
    pub fn turn_started_full(&self) -> bool {
        self.started_full
    }

    /// May the player to move take an extra token now (right after a restriction square)?
    pub fn extra_draw_pending(&self) -> bool {
        self.extra_draw
    }

    /// Consecutive turns without a placement (information: passing never ends the game; the
    /// count stops at 255).
    pub fn idle_turns(&self) -> usize {
        self.idle_turns as usize
    }

    /// Why the game ended, if it did.
    pub fn end_cause(&self) -> Option<EndCause> {
        self.end
    }

    /// May the player to move exchange now (no placement yet this turn)?
    pub fn can_exchange(&self) -> bool {
        self.end.is_none() && self.placed == 0 && !self.extra_draw
    }

    /// Every valid placement for the player to move, with points.
    pub fn placements(&self) -> Vec<Placement> {
        if self.end.is_some() {
            return Vec::new();
        }
        self.board.placements(&self.racks[self.to_move as usize])
    }

    /// The bonus the player to move would get by ending the turn now.
    pub fn pending_bonus(&self) -> u32 {
        let rack = &self.racks[self.to_move as usize];
        if self.settings.bonus > 0 && self.started_full && self.placed > 0 && rack.is_empty() {
            self.settings.bonus as u32
        } else {
            0
        }
    }

    fn start_turn(&mut self) {
        self.placed = 0;
        self.extra_draw = false;
        self.started_full = self.racks[self.to_move as usize].len() >= self.settings.rack as usize;
    }

    pub(super) fn finish(&mut self, cause: EndCause) {
        self.end = Some(cause);
        self.extra_draw = false;
        if cause != EndCause::Terminated && self.settings.deductions {
            for seat in 0..self.settings.players as usize {
                self.scores[seat] -= self.racks[seat].sum() as i32;
            }
        }
    }

    /// Checks after a turn whether the game goes on; moves the turn to the next seat.
    pub(super) fn next_turn(&mut self) {
        let players = self.settings.players;
        let mover = self.to_move as usize;
        if self.bag.is_empty() && self.racks[mover].is_empty() {
            return self.finish(EndCause::RackEmptied);
        }
        // The board only changes by placements: once no token off the board fits any cell,
        // nothing ever will (exchanges only move tokens between the racks and the bag).
        if !self.equations_left() {
            return self.finish(EndCause::Blocked);
        }
        self.to_move = (self.to_move + 1) % players;
        self.start_turn();
    }

    /// The values of every token not on the board (every rack and the bag), one bit per value.
    fn unplaced_mask(&self) -> u128 {
        let mut mask = self.racks[..self.settings.players as usize].iter().fold(0, |m, r| m | r.mask());
        for (v, &c) in self.bag.counts().iter().enumerate() {
            if c > 0 {
                mask |= 1 << v;
            }
        }
        mask
    }

    /// Can an equation still be made: does some token not on the board (on any rack or in the
    /// bag) fit some empty cell? When not, the game is over (it ends as
    /// [`EndCause::Blocked`] after the turn in which this became so).
    ///
    /// ```
    /// use tabletop::games::mathable::{Mathable, Preset, Settings};
    /// let game = Mathable::new(&Settings::preset(Preset::Classic)).unwrap();
    /// assert!(game.equations_left());
    /// ```
    pub fn equations_left(&self) -> bool {
        self.board.can_place_mask(self.unplaced_mask())
    }

    /// The most points one player could still add to their score, a bound that is simple to
    /// check rather than tight: every token not on the board, placed by that player, completing
    /// an equation in all four directions on the largest multiplier among the empty cells, plus
    /// the bonus for every full rack those tokens could make.
    ///
    /// ```
    /// use tabletop::games::mathable::{Mathable, Preset, Settings};
    /// let game = Mathable::new(&Settings::preset(Preset::Classic)).unwrap();
    /// // 106 tokens worth 1,762 in all, 4 directions, 3x squares, 15 bonuses of 50.
    /// assert_eq!(game.most_points_left(), 1762 * 4 * 3 + 15 * 50);
    /// ```
    pub fn most_points_left(&self) -> i64 {
        let board = &self.board;
        let empty = board.cells().filter(|&c| board.get(c).is_none());
        let multiplier = empty.map(|c| board.square(c).multiplier()).max().unwrap_or(0);
        let racks = &self.racks[..self.settings.players as usize];
        let on_racks: i64 = racks.iter().map(|r| i64::from(r.sum())).sum();
        let values = on_racks + self.bag.tokens().iter().map(|&v| i64::from(v)).sum::<i64>();
        let count = racks.iter().map(|r| r.len()).sum::<usize>() + self.bag.len();
        let bonuses = (count / usize::from(self.settings.rack.max(1))) as i64;
        values * 4 * i64::from(multiplier) + bonuses * i64::from(self.settings.bonus)
    }

    /// Does the computer at `seat` agree to end the game now (Mathable's terminate, proposed by
    /// someone else)? It agrees when no more equations can be made (see
    /// [`equations_left`](Self::equations_left)), when it leads alone (ending now makes it win),
    /// and when it cannot catch up: its score plus [`most_points_left`](Self::most_points_left)
    /// is below the score another player is sure to keep (their score, less with deductions the
    /// largest rack they could be left holding). Otherwise it refuses, with the reason.
    ///
    /// ```
    /// use tabletop::games::mathable::{EndRefusal, Mathable, MathableMove, Preset, Settings};
    /// use tabletop::{Game, Seat};
    /// let mut game = Mathable::new(&Settings::preset(Preset::Classic).with_seed(3)).unwrap();
    /// let p = game.placements()[0];
    /// game.play(MathableMove::Place { cell: p.cell, token: p.token }).unwrap();
    /// // Early in the game, a few points behind: the computer can still catch up.
    /// assert_eq!(game.agrees_to_end(Seat(1)), Err(EndRefusal::CanCatchUp));
    /// ```
    pub fn agrees_to_end(&self, seat: Seat) -> Result<(), EndRefusal> {
        let players = self.settings.players as usize;
        // A seat that is not at the table has nothing to refuse.
        let Some(me) = self.scores().get(seat.index()).map(|&s| i64::from(s)) else { return Ok(()) };
        let others = (0..players).filter(|&s| s != seat.index());
        let best_other = others.map(|s| i64::from(self.scores[s])).max().unwrap_or(i64::MIN);
        if self.end.is_some() || !self.equations_left() || me > best_other {
            return Ok(());
        }
        // With deductions, another player keeps at least their score less the largest rack of
        // unplaced tokens they could end with.
        let at_risk: i64 = if self.settings.deductions {
            let mut unplaced: Vec<u8> = self.bag.tokens();
            for rack in &self.racks[..players] {
                unplaced.extend_from_slice(rack.as_slice());
            }
            unplaced.sort_unstable_by(|a, b| b.cmp(a));
            unplaced.iter().take(usize::from(self.settings.rack)).map(|&v| i64::from(v)).sum()
        } else {
            0
        };
        if me + self.most_points_left() < best_other - at_risk {
            return Ok(());
        }
        Err(if me == best_other { EndRefusal::SharesTheLead } else { EndRefusal::CanCatchUp })
    }

    pub(super) fn outcome(&self) -> Outcome {
        let scores = self.scores();
        let best = *scores.iter().max().expect("at least two players");
        let winners = SeatSet::from_seats((0..scores.len()).filter(|&s| scores[s] == best).map(|s| Seat(s as u8)));
        match winners.seats().count() {
            1 => Outcome::Win(winners.seats().next().expect("one winner")),
            n if n == scores.len() => Outcome::Draw,
            _ => Outcome::SharedWin(winners),
        }
    }

    pub(super) fn check_exchange(&self, tokens: &Tokens) -> Option<MathableMoveError> {
        let rack = &self.racks[self.to_move as usize];
        if !self.can_exchange() {
            return Some(MathableMoveError::ExchangeAfterPlacement);
        }
        if tokens.is_empty() || tokens.len() > rack.len() {
            return Some(MathableMoveError::ExchangeCount(rack.len().max(1)));
        }
        if !rack.contains_all(tokens) {
            return Some(MathableMoveError::ExchangeNotOnRack(*rack));
        }
        if self.bag.len() < tokens.len() {
            return Some(MathableMoveError::BagShort { wanted: tokens.len(), bag: self.bag.len() });
        }
        None
    }

    /// Plays an exchange and returns the new tokens in the order of the old ones (for messages
    /// such as `Swapped 14 -> 32`).
    pub fn exchange(&mut self, tokens: Tokens) -> Result<Vec<(u8, u8)>, MathableMoveError> {
        if let Some(err) = self.illegal_reason(MathableMove::Exchange(tokens)) {
            return Err(err);
        }
        Ok(self.do_exchange(tokens))
    }

    pub(super) fn do_exchange(&mut self, tokens: Tokens) -> Vec<(u8, u8)> {
        let mover = self.to_move as usize;
        let new: Vec<u8> = tokens.as_slice().iter().filter_map(|_| self.bag.draw(&mut self.rng)).collect();
        let mut pairs = Vec::new();
        for (&old, &nv) in tokens.as_slice().iter().zip(&new) {
            self.racks[mover].remove(old);
            self.racks[mover].insert(nv);
            pairs.push((old, nv));
        }
        for &old in tokens.as_slice() {
            self.bag.put(old);
        }
        self.idle_turns = self.idle_turns.saturating_add(1);
        self.next_turn();
        pairs
    }

    /// Rebuilds a position from its parts (used by the save format); checks consistency.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        settings: Settings,
        board: Board,
        racks: [Tokens; 4],
        bag: Bag,
        rng: ChaCha8Rng,
        scores: [i32; 4],
        to_move: u8,
        turn: (u8, bool, bool, u8),
        end: Option<EndCause>,
    ) -> Mathable {
        let (placed, started_full, extra_draw, idle_turns) = turn;
        let mut game = Mathable {
            settings,
            board,
            racks,
            bag,
            rng,
            scores,
            to_move,
            placed,
            started_full,
            extra_draw,
            idle_turns,
            end,
            hash: 0,
        };
        game.hash = game.recompute_hash();
        game
    }

    /// Token conservation: the bag, the racks and the board (start tiles aside) hold exactly the
    /// token set.
    pub fn check_conservation(&self) -> Result<(), String> {
        let mut counts = self.board.placed_counts();
        for (v, &c) in self.bag.counts().iter().enumerate() {
            counts[v] += c as u32;
        }
        for rack in &self.racks[..self.settings.players as usize] {
            for &v in rack.as_slice() {
                counts[v as usize] += 1;
            }
        }
        let expected = self.settings.tokens.counts();
        for v in 0..=MAX_TOKEN as usize {
            if counts[v] != expected[v] as u32 {
                return Err(format!("{} tokens of value {v} in play, the set has {}", counts[v], expected[v]));
            }
        }
        Ok(())
    }
}

/// FNV-1a over bytes.
pub(super) fn fnv(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= b as u64;
        *hash = hash.wrapping_mul(0x100_0000_01b3);
    }
}

pub(super) fn parse_token(text: &str) -> Result<u8, MathableMoveError> {
    match text.trim().parse::<u8>() {
        Ok(v) if v <= MAX_TOKEN => Ok(v),
        _ => Err(MathableMoveError::Token(text.trim().to_string())),
    }
}

impl FromStr for Settings {
    type Err = SettingsError;

    /// Reads a preset name (`classic`, `junior`, `simple`).
    fn from_str(text: &str) -> Result<Settings, SettingsError> {
        Ok(Settings::preset(text.parse()?))
    }
}
