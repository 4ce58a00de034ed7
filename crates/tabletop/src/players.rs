//! Computer players that work for every game.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::game::{Game, Player};
use crate::record::Record;

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
