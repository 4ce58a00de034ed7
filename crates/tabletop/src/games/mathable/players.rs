//! Computer players: `greedy`, `random` and the engine (see [`engine`](super::engine)).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::board::Tokens;
use super::rules::{Mathable, MathableMove};
use crate::players::Player;
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::record::Record;

pub use super::engine::EnginePlayer;

/// The computer players Mathable offers (the front end adds `human`).
pub const PLAYER_KINDS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "samples", "seed", "level"],
        help: "plans whole turns and samples the opponents' racks (default; time=1s per turn); \
               or level=1..10 by number or name: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, \
               6 advanced, 7 expert, 8 master, 9 grandmaster, 10 maximum (seed= varies the levels' choices)",
    },
    PlayerKind { name: "greedy", settings: &[], help: "places the highest-scoring token again and again" },
    PlayerKind { name: "random", settings: &["seed"], help: "random valid placements" },
];

/// Builds a computer player from a spec (`engine:time=500ms`, `greedy`, `random:seed=3`).
pub fn from_spec(spec: &PlayerSpec, default_seed: u64) -> Result<Box<dyn Player<Mathable>>, SpecError> {
    spec.check(PLAYER_KINDS)?;
    let seed = spec.get_u64("seed")?.unwrap_or(default_seed);
    if spec.name == "engine" {
        if let Some(level) = crate::levels::level_setting(spec)? {
            let (weak, strong, percent) = LEVELS[level as usize - 1];
            let description = crate::levels::describe_level(spec, level);
            return Ok(Box::new(crate::levels::MixedPlayer::new(
                strong.player(seed),
                weak.player(seed.wrapping_add(1)),
                percent,
                seed,
                description,
            )));
        }
    }
    Ok(match spec.name.as_str() {
        "greedy" => Box::new(GreedyPlayer),
        "random" => Box::new(MathableRandomPlayer::new(seed)),
        _ => {
            let mut engine = EnginePlayer::new(seed);
            if let Some(t) = spec.get_duration("time")? {
                engine.time = t;
            }
            if let Some(s) = spec.get_in_range("samples", 1..=1000)? {
                engine.samples = s as usize;
            }
            Box::new(engine)
        }
    })
}

/// One part of a Mathable level.
#[derive(Clone, Copy, Debug)]
enum LevelPart {
    /// Random valid placements.
    Random,
    /// The greedy player.
    Greedy,
    /// The lowest-scoring placement, one a turn ([`WorstPlayer`]).
    Worst,
    /// The engine with this time per turn (milliseconds) and number of sampled racks.
    Engine(u64, usize),
}

impl LevelPart {
    fn player(self, seed: u64) -> Box<dyn Player<Mathable>> {
        match self {
            LevelPart::Random => Box::new(MathableRandomPlayer::new(seed)),
            LevelPart::Greedy => Box::new(GreedyPlayer),
            LevelPart::Worst => Box::new(WorstPlayer),
            LevelPart::Engine(millis, samples) => {
                let mut engine = EnginePlayer::new(seed);
                engine.time = std::time::Duration::from_millis(millis);
                engine.samples = samples;
                Box::new(engine)
            }
        }
    }
}

/// Mathable's ten levels: (weak part, strong part, the strong part's share of the moves in
/// percent; a turn is several moves). Level 1 places its lowest-scoring token once a turn, 6 is
/// random, 8 greedy, 10 the default engine (more time or sampled racks make it no stronger: it
/// decides in milliseconds). See docs/MATHABLE.md, "Levels", for the measured ladder.
const LEVELS: [(LevelPart, LevelPart, u32); 10] = [
    (LevelPart::Worst, LevelPart::Worst, 0),
    (LevelPart::Worst, LevelPart::Random, 20),
    (LevelPart::Worst, LevelPart::Random, 40),
    (LevelPart::Worst, LevelPart::Random, 60),
    (LevelPart::Worst, LevelPart::Random, 80),
    (LevelPart::Random, LevelPart::Random, 0),
    (LevelPart::Random, LevelPart::Greedy, 50),
    (LevelPart::Greedy, LevelPart::Greedy, 0),
    (LevelPart::Greedy, LevelPart::Engine(1000, 40), 40),
    (LevelPart::Greedy, LevelPart::Engine(1000, 40), 100),
];

/// The move the greedy player makes in a position: the extra draw when allowed, else the
/// highest-scoring placement (first in board order on ties), else (at the start of a turn) an
/// exchange of the whole rack, or of its largest tokens when the bag holds fewer, else end of
/// turn. (Passing never ends a game, so a player that cannot place exchanges whenever the bag
/// allows: a token in the bag may be the one that fits.)
///
/// ```
/// use tabletop::games::mathable::{players::greedy_move, Mathable, MathableMove, Preset, Settings};
/// use tabletop::Game;
/// let game = Mathable::start(&Settings::preset(Preset::Classic).with_seed(1));
/// let mv = greedy_move(&game);
/// assert!(game.is_legal(mv));
/// ```
pub fn greedy_move(game: &Mathable) -> MathableMove {
    if game.extra_draw_pending() && !game.bag().is_empty() {
        return MathableMove::Draw;
    }
    let mut best: Option<super::board::Placement> = None;
    for p in game.placements() {
        let better = match best {
            Some(b) => p.points > b.points,
            None => true,
        };
        if better {
            best = Some(p);
        }
    }
    if let Some(p) = best {
        return MathableMove::Place { cell: p.cell, token: p.token };
    }
    let rack = game.rack(game.turn());
    if game.can_exchange() && !rack.is_empty() && !game.bag().is_empty() {
        let mut largest = rack.as_slice().to_vec();
        largest.sort_unstable_by(|a, b| b.cmp(a));
        largest.truncate(game.bag().len());
        if let Some(tokens) = Tokens::from_slice(&largest) {
            return MathableMove::Exchange(tokens);
        }
    }
    MathableMove::EndTurn
}

/// The weakest player, Mathable's level 1: at the start of a turn its lowest-scoring placement
/// (or, when it cannot place, the greedy player's exchange or end of turn), then the end of the
/// turn; never an extra draw.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorstPlayer;

impl Player<Mathable> for WorstPlayer {
    fn describe(&self) -> String {
        "worst".to_string()
    }

    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        let game = record.current();
        if game.placed_this_turn() == 0 {
            if let Some(p) = game.placements().into_iter().min_by_key(|p| p.points) {
                return MathableMove::Place { cell: p.cell, token: p.token };
            }
            let mv = greedy_move(game);
            if !matches!(mv, MathableMove::Draw) {
                return mv;
            }
        }
        MathableMove::EndTurn
    }
}

/// The greedy player: see [`greedy_move`].
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyPlayer;

impl Player<Mathable> for GreedyPlayer {
    fn describe(&self) -> String {
        "greedy".to_string()
    }

    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        greedy_move(record.current())
    }
}

/// Random valid placements: takes extra draws half of the time, ends the turn after each
/// placement with probability 1/5, exchanges a random part of the rack when it cannot place.
#[derive(Clone, Debug)]
pub struct MathableRandomPlayer {
    rng: ChaCha8Rng,
    seed: u64,
}

impl MathableRandomPlayer {
    /// A random player with a seed.
    pub fn new(seed: u64) -> Self {
        MathableRandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed), seed }
    }
}

impl Player<Mathable> for MathableRandomPlayer {
    fn describe(&self) -> String {
        format!("random:seed={}", self.seed)
    }

    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        let game = record.current();
        if game.extra_draw_pending() && !game.bag().is_empty() && self.rng.gen_bool(0.5) {
            return MathableMove::Draw;
        }
        let placements = game.placements();
        if !placements.is_empty() && (game.placed_this_turn() == 0 || self.rng.gen_bool(0.8)) {
            let p = placements[self.rng.gen_range(0..placements.len())];
            return MathableMove::Place { cell: p.cell, token: p.token };
        }
        let rack = *game.rack(game.turn());
        if placements.is_empty() && game.can_exchange() && !game.bag().is_empty() && !rack.is_empty() {
            let mut t = Tokens::EMPTY;
            for &v in rack.as_slice() {
                if t.len() < game.bag().len() && self.rng.gen_bool(0.5) {
                    t.insert(v);
                }
            }
            if t.is_empty() {
                t.insert(rack.as_slice()[0]);
            }
            return MathableMove::Exchange(t);
        }
        MathableMove::EndTurn
    }

    fn reset(&mut self) {
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
    }
}

impl crate::players::Players for Mathable {
    const PLAYER_KINDS: &'static [PlayerKind] = PLAYER_KINDS;

    fn make_player(spec: &PlayerSpec, _start: &Mathable, seed: u64) -> Result<Box<dyn Player<Mathable>>, SpecError> {
        from_spec(spec, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::mathable::{Preset, Settings};

    /// Level 1's player: the lowest-scoring placement at the start of a turn, then the end of
    /// the turn.
    #[test]
    fn the_worst_player_places_its_lowest_scoring_token_once_a_turn() {
        let game = Mathable::start(&Settings::preset(Preset::Classic).with_seed(1));
        let placements = game.placements();
        let lowest = placements.iter().map(|p| p.points).min().expect("the first turn can place");
        let mut record = Record::new(game.clone());
        let mv = WorstPlayer.choose_move(&record);
        let MathableMove::Place { cell, token } = mv else { panic!("not a placement: {mv:?}") };
        assert!(placements.iter().any(|p| p.cell == cell && p.token == token && p.points == lowest), "{mv:?}");
        record.play(mv).expect("a legal placement");
        assert_eq!(WorstPlayer.choose_move(&record), MathableMove::EndTurn);
    }
}
