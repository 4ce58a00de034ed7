//! [`Player`], anything that chooses moves (a person at the keyboard, a computer player), and the
//! computer players that work for every game.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::game::Game;
use crate::record::Record;

/// One player of a game: a person at the keyboard or a computer player.
pub trait Player<G: Game>: Send {
    /// A short description, e.g. `engine:time=1s`.
    fn describe(&self) -> String;
    /// Chooses a move for the side to move in the last position of `record`.
    fn choose_move(&mut self, record: &Record<G>) -> G::Move;
    /// Forgets anything remembered from an earlier game (called before each new game).
    fn reset(&mut self) {}
}

/// Plays a uniformly random legal move, from a seeded generator.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: ChaCha8Rng,
    seed: u64,
}

impl RandomPlayer {
    /// A random player seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        RandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed), seed }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn describe(&self) -> String {
        format!("random:seed={}", self.seed)
    }

    fn choose_move(&mut self, record: &Record<G>) -> G::Move {
        let mut moves = Vec::new();
        record.current().legal_moves(&mut moves);
        *moves.choose(&mut self.rng).expect("choose_move is only called while the game goes on")
    }
}
