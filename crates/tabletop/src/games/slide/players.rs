//! Slide's computer players: the document's classic minimax and the engine's player.
//!
//! Player specs: `engine` (default; settings `time`, `depth`, or `level=1..10` by number or
//! name, see docs/SLIDE.md, "Levels"), `classic` (setting `depth`, plies, default 5; `levels=N`, the
//! document's `max_levels`, is still read as `depth=N+1`), `random` (setting `seed`), `human`
//! (front ends only).

use std::time::Duration;

use super::dictionary::Dictionary;
use super::rules::{Side, Slide, SlideMove};
use super::solver::{SlideSolver, SlideValue};
use crate::game::Game;
use crate::players::{forced_move, Player, TimeLeft};
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::players::RandomPlayer;
use crate::record::Record;
use crate::search::{verdict, Evaluator, Limits, NoOrdering, Options, Search, SearchResult, Verdict};

/// The players Slide offers, for help texts and spec validation.
pub const PLAYER_KINDS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "depth", "level", "seed"],
        help: "perfect play where the solver reaches (3x3, 4x4), else search to `time` (default 1s) or `depth`; \
               or level=1..10 by number or name: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, \
               6 advanced, 7 expert, 8 master, 9 grandmaster, 10 maximum (seed= varies the lower levels)",
    },
    PlayerKind {
        name: "classic",
        settings: &["depth", "levels"],
        help: "the document's minimax with its four-valued evaluation, depth plies (default 5); \
               the older spelling levels=N (the document's max_levels) still works and means depth=N+1",
    },
    PlayerKind { name: "random", settings: &["seed"], help: "uniformly random legal moves" },
    PlayerKind { name: "human", settings: &[], help: "a person at the keyboard" },
];

/// Builds a computer player from a spec (`human` is for front ends and is refused here).
///
/// ```
/// use tabletop::games::slide::players::player_from_spec;
/// assert_eq!(player_from_spec(&"classic:depth=3".parse().unwrap()).unwrap().describe(), "classic:depth=3");
/// // The older spelling: the document's max_levels, one ply less than the depth.
/// assert_eq!(player_from_spec(&"classic:levels=2".parse().unwrap()).unwrap().describe(), "classic:depth=3");
/// assert_eq!(player_from_spec(&"engine:level=casual".parse().unwrap()).unwrap().describe(), "engine:level=3");
/// assert!(player_from_spec(&"classic:time=2s".parse().unwrap()).is_err());
/// ```
pub fn player_from_spec(spec: &PlayerSpec) -> Result<Box<dyn Player<Slide>>, SpecError> {
    seeded_player_from_spec(spec, 0)
}

/// [`player_from_spec`], with `default_seed` for the random choices of players whose spec sets
/// no seed (`random`, the levels).
pub fn seeded_player_from_spec(spec: &PlayerSpec, default_seed: u64) -> Result<Box<dyn Player<Slide>>, SpecError> {
    let kind = spec.check(PLAYER_KINDS)?;
    match kind.name {
        "engine" => {
            if let Some(level) = crate::levels::level_setting(spec)? {
                return Ok(level_player(spec, level, spec.get_u64("seed")?.unwrap_or(default_seed)));
            }
            if spec.settings.contains_key("seed") {
                return Err(crate::levels::seed_without_level(spec));
            }
            Ok(Box::new(EnginePlayer::new(spec.get_duration("time")?, spec.get_in_range("depth", 1..=64)?)))
        }
        "classic" => {
            let depth = match (spec.get_in_range("depth", 1..=13)?, spec.get_in_range("levels", 0..=12)?) {
                (Some(_), Some(_)) => {
                    return Err(SpecError::BadValue {
                        key: "levels".to_string(),
                        value: spec.settings["levels"].clone(),
                        expected: "nothing next to depth= (levels=N is the older spelling of depth=N+1)".to_string(),
                    })
                }
                (Some(depth), None) => depth,
                (None, Some(levels)) => levels + 1,
                (None, None) => 5,
            };
            Ok(Box::new(ClassicPlayer::new(depth as u32 - 1)))
        }
        "random" => Ok(Box::new(RandomPlayer::new(spec.get_u64("seed")?.unwrap_or(default_seed)))),
        _ => Err(SpecError::UnknownName {
            name: spec.name.clone(),
            valid: "engine, classic, random (human is played at the keyboard)".to_string(),
        }),
    }
}

/// The origin document's player: minimax with alpha-beta over its four-valued evaluation,
/// `levels + 1` plies deep, memoising configurations in the document's [`Dictionary`], ties
/// broken by the first move in square order. A deliberately weak, faithful baseline.
pub struct ClassicPlayer {
    levels: u32,
    memo: Dictionary,
}

/// Buckets of the classic player's dictionary: a prime in the document's suggested range.
pub const CLASSIC_DICTIONARY_BUCKETS: usize = 9887;

impl ClassicPlayer {
    /// A classic player looking `levels + 1` plies ahead (the document's max_levels).
    pub fn new(levels: u32) -> Self {
        ClassicPlayer { levels, memo: Dictionary::new(CLASSIC_DICTIONARY_BUCKETS).expect("non-zero size") }
    }

    /// The move the document's algorithm chooses in `position`.
    pub fn choose(&mut self, position: &Slide) -> Option<SlideMove> {
        self.memo.clear();
        let maximise = position.side_to_move() == Side::Orange;
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut best: Option<(SlideMove, u8)> = None;
        let (mut alpha, mut beta) = (0u8, 3u8);
        for mv in moves {
            let mut child = *position;
            child.play_unchecked(mv);
            let score = self.minimax(&child, self.levels, alpha, beta);
            let better = match best {
                None => true,
                Some((_, b)) => (maximise && score > b) || (!maximise && score < b),
            };
            if better {
                best = Some((mv, score));
                if maximise {
                    alpha = alpha.max(score);
                } else {
                    beta = beta.min(score);
                }
            }
        }
        best.map(|(mv, _)| mv)
    }

    /// Scores from the computer's ('o') point of view: 3 won, 0 lost, 2 draw, 1 undecided.
    fn minimax(&mut self, position: &Slide, depth: u32, mut alpha: u8, mut beta: u8) -> u8 {
        let score = position.classic_score();
        if score != 1 || depth == 0 {
            return score;
        }
        // A cancelled search (see crate::cancel) unwinds at once; its move is then discarded.
        if depth > 3 && crate::cancel::cancelled() {
            return 1;
        }
        let key = format!("{}{}{depth}", position.configuration(), position.side_to_move());
        if let Some(stored) = self.memo.get(&key) {
            // Stored as score * 4 + bound (0 exact, 1 lower, 2 upper).
            let (value, bound) = ((stored / 4) as u8, stored % 4);
            if bound == 0 || (bound == 1 && value >= beta) || (bound == 2 && value <= alpha) {
                return value;
            }
        }
        let (alpha_start, beta_start) = (alpha, beta);
        let maximise = position.side_to_move() == Side::Orange;
        let mut moves = Vec::new();
        position.legal_moves(&mut moves);
        let mut best = if maximise { 0 } else { 3 };
        for mv in moves {
            let mut child = *position;
            child.play_unchecked(mv);
            let value = self.minimax(&child, depth - 1, alpha, beta);
            if maximise {
                best = best.max(value);
                alpha = alpha.max(value);
            } else {
                best = best.min(value);
                beta = beta.min(value);
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha_start {
            2
        } else if best >= beta_start {
            1
        } else {
            0
        };
        let _ = self.memo.remove(&key);
        let _ = self.memo.put(&key, best as i32 * 4 + bound);
        best
    }
}

impl Player<Slide> for ClassicPlayer {
    fn describe(&self) -> String {
        format!("classic:depth={}", self.levels + 1)
    }

    fn choose_move(&mut self, record: &Record<Slide>) -> SlideMove {
        self.choose(record.current()).expect("choose_move is only called while the game goes on")
    }
}

/// One part of a Slide level.
#[derive(Clone, Copy, Debug)]
enum LevelPart {
    /// The move the solver values worst (random where no solver reaches): the lowest level is
    /// weaker than random moves, or a perfect engine would leave too little room for ten
    /// levels on the small boards (it wins 98.5% against random moves on 3x3).
    Worst,
    /// Uniformly random legal moves.
    Random,
    /// The engine.
    Engine,
    /// Perfect play where the game is decided within this many plies, a random choice among
    /// the other moves ([`HorizonPlayer`]).
    Horizon(u32),
    /// The worst move where the game is decided within this many plies, a random choice
    /// among the other moves ([`HorizonPlayer`]).
    Anti(u32),
}

impl LevelPart {
    fn player(self, seed: u64) -> Box<dyn Player<Slide>> {
        match self {
            LevelPart::Worst => Box::new(WorstPlayer { solver: None, random: RandomPlayer::new(seed) }),
            LevelPart::Random => Box::new(RandomPlayer::new(seed)),
            LevelPart::Engine => Box::new(EnginePlayer::new(None, None)),
            LevelPart::Horizon(plies) => Box::new(HorizonPlayer::new(plies, true, seed)),
            LevelPart::Anti(plies) => Box::new(HorizonPlayer::new(plies, false, seed)),
        }
    }
}

/// Slide's ten levels: (weak part, strong part, the strong part's share of the moves in
/// percent). Level 1 plays the worst move, 3 random moves, 4 to 9 see the game's outcome 1 to 6
/// plies ahead, 10 is the engine. Calibrated with `scripts/levels-ladder slide`
/// (docs/SLIDE.md, "Levels").
const LEVELS: [(LevelPart, LevelPart, u32); 10] = [
    (LevelPart::Worst, LevelPart::Random, 0),
    (LevelPart::Random, LevelPart::Anti(1), 100),
    (LevelPart::Random, LevelPart::Random, 100),
    (LevelPart::Random, LevelPart::Horizon(1), 100),
    (LevelPart::Horizon(1), LevelPart::Horizon(2), 50),
    (LevelPart::Random, LevelPart::Horizon(2), 100),
    (LevelPart::Random, LevelPart::Horizon(4), 100),
    (LevelPart::Random, LevelPart::Horizon(5), 100),
    (LevelPart::Random, LevelPart::Horizon(6), 100),
    (LevelPart::Random, LevelPart::Engine, 100),
];

/// The player of `level` (1..=10) drawing its random choices from `seed`.
fn level_player(spec: &PlayerSpec, level: u8, seed: u64) -> Box<dyn Player<Slide>> {
    let (weak, strong, percent) = LEVELS[level.clamp(1, 10) as usize - 1];
    let description = crate::levels::describe_level(spec, level);
    Box::new(crate::levels::MixedPlayer::new(
        strong.player(seed.wrapping_add(2)),
        weak.player(seed.wrapping_add(1)),
        percent,
        seed,
        description,
    ))
}

/// A level's player that sees the game's outcome a few plies ahead: where the solver reaches
/// (3x3, 4x4), each move whose game is decided within `horizon` plies is valued exactly, the
/// others alike (as a draw), and the player takes the best of these values (the worst, with
/// `best` false), a random one among equals. Where no solver reaches, it is the engine's
/// search to `horizon` plies (random moves for the worst).
struct HorizonPlayer {
    horizon: u32,
    best: bool,
    solver: Option<SlideSolver>,
    search: Option<EnginePlayer>,
    random: RandomPlayer,
    rng: rand_chacha::ChaCha8Rng,
}

impl HorizonPlayer {
    fn new(horizon: u32, best: bool, seed: u64) -> Self {
        use rand::SeedableRng;
        HorizonPlayer {
            horizon,
            best,
            solver: None,
            search: None,
            random: RandomPlayer::new(seed),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x5eed),
        }
    }
}

impl Player<Slide> for HorizonPlayer {
    fn describe(&self) -> String {
        format!("horizon:{}", self.horizon)
    }

    fn choose_move(&mut self, record: &Record<Slide>) -> SlideMove {
        use rand::seq::SliceRandom;
        let position = record.current();
        let variant = position.slide_variant();
        if self.solver.as_ref().is_none_or(|s| s.variant() != variant) {
            self.solver = SlideSolver::new(variant);
        }
        let Some(values) = self.solver.as_mut().and_then(|solver| solver.try_move_values(position)) else {
            if self.best {
                let horizon = u64::from(self.horizon);
                return self.search.get_or_insert_with(|| EnginePlayer::new(None, Some(horizon))).choose_move(record);
            }
            return self.random.choose_move(record);
        };
        let (horizon, best) = (self.horizon, self.best);
        let seen = |value: SlideValue| {
            let rank = match value {
                SlideValue::Win(plies) | SlideValue::Loss(plies) if plies <= horizon => value.rank(),
                _ => 0,
            };
            if best {
                rank
            } else {
                -rank
            }
        };
        let top = values.iter().map(|&(_, value)| seen(value)).max().expect("the game goes on");
        let choices: Vec<SlideMove> = values.iter().filter(|&&(_, v)| seen(v) == top).map(|&(mv, _)| mv).collect();
        *choices.choose(&mut self.rng).expect("the game goes on")
    }
}

/// The move the solver values worst for the side to move (the quickest loss), for the lowest
/// levels; random moves where no solver reaches.
struct WorstPlayer {
    solver: Option<SlideSolver>,
    random: RandomPlayer,
}

impl Player<Slide> for WorstPlayer {
    fn describe(&self) -> String {
        "worst".to_string()
    }

    fn choose_move(&mut self, record: &Record<Slide>) -> SlideMove {
        let position = record.current();
        let variant = position.slide_variant();
        if self.solver.as_ref().is_none_or(|s| s.variant() != variant) {
            self.solver = SlideSolver::new(variant);
        }
        let worst = self.solver.as_mut().and_then(|solver| {
            solver.try_move_values(position)?.into_iter().min_by_key(|(_, value)| value.rank()).map(|(mv, _)| mv)
        });
        match worst {
            Some(mv) => mv,
            None => self.random.choose_move(record),
        }
    }
}

/// The engine's heuristic for boards too large to solve: open lines weighted by how full they
/// are, and in the slide phase the number of tiles that can move.
#[derive(Clone, Copy, Debug, Default)]
pub struct SlideEvaluation;

impl Evaluator<Slide> for SlideEvaluation {
    fn evaluate(&self, position: &Slide) -> i32 {
        let me = position.side_to_move();
        let (mine, theirs) = (position.tiles(me), position.tiles(me.other()));
        let n = position.size() as u32;
        let mut score = 0;
        for &line in super::rules::lines(position.size()) {
            let (m, t) = ((mine & line).count_ones(), (theirs & line).count_ones());
            if t == 0 && m > 0 {
                score += 1 << (2 * m.min(n));
            } else if m == 0 && t > 0 {
                score -= 1 << (2 * t.min(n));
            }
        }
        score
    }
}

/// The engine's player. On variants the solver can handle (every 3x3 and 4x4) it plays
/// perfectly: the quickest win, else a draw, else the slowest loss. Otherwise it searches with
/// [`SlideEvaluation`] to its time budget (default 1 s) or depth, always finishing at least two
/// plies so it never misses a win in one nor allows a loss in one it can prevent.
pub struct EnginePlayer {
    time: Option<Duration>,
    depth: Option<u64>,
    solver: Option<SlideSolver>,
    search: Option<Search<Slide, SlideEvaluation, NoOrdering>>,
    /// The game clock, when the front end keeps one.
    clock: Option<TimeLeft>,
}

/// What the engine thinks of a position, for hints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineAdvice {
    /// The move it would play.
    pub best: SlideMove,
    /// Its value: exact from the solver, or a search verdict.
    pub value: String,
}

impl EnginePlayer {
    /// An engine with an optional time budget (default 1 s) and depth limit.
    pub fn new(time: Option<Duration>, depth: Option<u64>) -> Self {
        EnginePlayer { time, depth, solver: None, search: None, clock: None }
    }

    /// The best move in `record`'s current position and its value.
    pub fn advise(&mut self, record: &Record<Slide>) -> Option<EngineAdvice> {
        let position = record.current();
        record.status().to_move()?;
        let variant = position.slide_variant();
        if self.solver.as_ref().is_none_or(|s| s.variant() != variant) {
            self.solver = SlideSolver::new(variant);
        }
        if let Some(solver) = self.solver.as_mut() {
            let (best, value) = solver.best_move(position)?;
            return Some(EngineAdvice { best, value: format!("{value} (exact)") });
        }
        let search = self.search.get_or_insert_with(|| Search::new(SlideEvaluation, NoOrdering, Options::default()));
        let earlier = record.earlier_hashes();
        let safe = search.search(position, &earlier, Limits::depth(2));
        let limits = Limits {
            depth: self.depth.map(|d| d as u32),
            // Under a clock, its share of the time left (and no more than a time of its own).
            time: Some(match &self.clock {
                Some(_) => TimeLeft::cap(self.clock.as_ref(), self.time).unwrap_or(Duration::from_secs(1)),
                None => self.time.unwrap_or(Duration::from_secs(1)),
            }),
            nodes: None,
        };
        let timed = search.search(position, &earlier, limits);
        let result: SearchResult<SlideMove> = if timed.complete && timed.depth >= 2 { timed } else { safe };
        let value = match verdict(result.value) {
            Verdict::Score(s) if result.exact => format!("draw (exact, score {s})"),
            Verdict::Score(s) => format!("score {s} at depth {}", result.depth),
            forced => crate::value::forced_result(forced).unwrap_or_default(),
        };
        Some(EngineAdvice { best: result.best_move?, value })
    }
}

impl Player<Slide> for EnginePlayer {
    fn describe(&self) -> String {
        let mut text = "engine".to_string();
        let mut sep = ':';
        if let Some(t) = self.time {
            text.push_str(&format!("{sep}time={}ms", t.as_millis()));
            sep = ',';
        }
        if let Some(d) = self.depth {
            text.push_str(&format!("{sep}depth={d}"));
        }
        text
    }

    fn choose_move(&mut self, record: &Record<Slide>) -> SlideMove {
        if let (Some(_), Some(only)) = (&self.clock, forced_move(record.current())) {
            return only;
        }
        self.advise(record).expect("choose_move is only called while the game goes on").best
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock = time.cloned();
    }
}

/// The exact value of a position for the side to move, when the variant is solvable.
pub fn exact_value(position: &Slide) -> Option<SlideValue> {
    let mut solver = SlideSolver::new(position.slide_variant())?;
    Some(solver.value(position))
}

impl crate::players::Players for Slide {
    const PLAYER_KINDS: &'static [PlayerKind] = PLAYER_KINDS;

    fn make_player(spec: &PlayerSpec, _start: &Slide, seed: u64) -> Result<Box<dyn Player<Slide>>, SpecError> {
        seeded_player_from_spec(spec, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Horizon 1 takes a win in one whenever there is one; anti 1 never does while it has
    /// another move (levels 4 and 2), checked in the positions of random 3x3 games.
    #[test]
    fn horizon_one_takes_every_win_in_one_and_anti_one_none() {
        let start = Slide::new(3, 1).expect("a valid variant");
        let mut solver = SlideSolver::new(start.slide_variant()).expect("3x3 is solved");
        let mut random = RandomPlayer::new(3);
        let (mut best, mut worst) = (HorizonPlayer::new(1, true, 1), HorizonPlayer::new(1, false, 1));
        let mut checked = 0;
        for _ in 0..100 {
            let mut record = Record::new(start);
            while record.status().to_move().is_some() {
                let values = solver.try_move_values(record.current()).expect("3x3 is solved");
                let value = |mv: SlideMove| values.iter().find(|(m, _)| *m == mv).expect("a legal move").1;
                let wins = values.iter().filter(|(_, v)| *v == SlideValue::Win(1)).count();
                if wins > 0 && wins < values.len() {
                    checked += 1;
                    assert_eq!(value(best.choose_move(&record)), SlideValue::Win(1));
                    assert_ne!(value(worst.choose_move(&record)), SlideValue::Win(1));
                }
                let mv = random.choose_move(&record);
                record.play(mv).expect("a legal move");
            }
        }
        assert!(checked >= 10, "only {checked} positions with a choice of winning");
    }
}
