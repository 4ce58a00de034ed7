//! Gomoku's computer players: `engine` (alpha-beta over the moves near the stones, with
//! immediate wins and forced blocks found first and a line-window evaluation), `greedy` (the best
//! single move by the same patterns) and `random`.
//!
//! The evaluation scores every window of five intersections in the four directions that holds
//! stones of one colour only: more stones in a window are worth much more, so open fours and
//! threes dominate, and the opponent's windows count a little more than one's own (the side to
//! move must defend first).

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::rules::{Gomoku, GomokuMove, Stone, DIRECTIONS, FIVE};
use crate::game::{Game, Status};
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::players::{forced_move, Player, RandomPlayer, TimeLeft};
use crate::record::Record;
use crate::value::WIN;

/// The players Gomoku offers.
pub const PLAYER_KINDS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "depth", "level", "seed"],
        help: "alpha-beta over the moves near the stones, to `depth` plies or for `time` (default 1s); \
               or level=1..10 by number or name: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, \
               6 advanced, 7 expert, 8 master, 9 grandmaster, 10 maximum (seed= varies the levels' choices)",
    },
    PlayerKind { name: "greedy", settings: &["seed"], help: "the best single move by line patterns (wins, blocks)" },
    PlayerKind { name: "random", settings: &["seed"], help: "uniformly random legal moves" },
];

/// The value of a window of five holding `k` stones of one colour and none of the other.
const WINDOW: [i32; 6] = [0, 1, 12, 120, 1_500, 100_000];

/// The static value of a position for the side to move (well inside the decisive range).
///
/// ```
/// use tabletop::games::gomoku::{engine::evaluate, Gomoku, GomokuVariant};
/// use tabletop::Game;
/// let mut p = Gomoku::new(GomokuVariant::default());
/// assert_eq!(evaluate(&p), 0);
/// p.play(p.parse_move("h8").unwrap()).unwrap();
/// assert!(evaluate(&p) < 0); // black's stone counts against white, to move
/// ```
pub fn evaluate(p: &Gomoku) -> i32 {
    let n = p.size() as i32;
    let me = p.side_to_move();
    let mut total: i64 = 0;
    for r in 0..n {
        for c in 0..n {
            for (dr, dc) in DIRECTIONS {
                let (er, ec) = (r + 4 * dr, c + 4 * dc);
                if er < 0 || er >= n || ec < 0 || ec >= n {
                    continue;
                }
                let (mut mine, mut theirs) = (0, 0);
                for k in 0..FIVE as i32 {
                    match p.stone_at(((r + k * dr) * n + c + k * dc) as usize) {
                        Some(s) if s == me => mine += 1,
                        Some(_) => theirs += 1,
                        None => {}
                    }
                }
                if theirs == 0 {
                    total += WINDOW[mine] as i64;
                } else if mine == 0 {
                    total -= (WINDOW[theirs] as i64 * 11) / 10;
                }
            }
        }
    }
    total.clamp(-(WIN as i64) / 4, WIN as i64 / 4) as i32
}

/// How good `stone` at the empty `point` is by its lines alone: longest runs and their open ends.
pub fn point_value(p: &Gomoku, point: usize, stone: Stone) -> i32 {
    let n = p.size() as i32;
    let (r, c) = (point as i32 / n, point as i32 % n);
    let mut value = 0;
    for d in DIRECTIONS {
        let run = p.run_through(point, d, stone) as i32;
        if run >= FIVE as i32 {
            return 1_000_000;
        }
        // Open ends: the first intersection past each end of the run is empty.
        let mut open = 0;
        for sign in [1, -1] {
            let (mut rr, mut cc) = (r + sign * d.0, c + sign * d.1);
            while rr >= 0 && rr < n && cc >= 0 && cc < n && p.stone_at((rr * n + cc) as usize) == Some(stone) {
                rr += sign * d.0;
                cc += sign * d.1;
            }
            if rr >= 0 && rr < n && cc >= 0 && cc < n && p.stone_at((rr * n + cc) as usize).is_none() {
                open += 1;
            }
        }
        value += match (run, open) {
            (4, 2) => 50_000,
            (4, 1) => 5_000,
            (3, 2) => 4_000,
            (3, 1) => 400,
            (2, 2) => 200,
            (2, 1) => 30,
            (1, 2) => 8,
            _ => 1,
        };
    }
    value
}

use super::threats::{candidates, mv, vcf_until};

/// How many fours a victory by continuous fours may take where the engine looks for one: at the
/// root, inside the tree and at its horizon (fewer where positions are many).
const VCF_ROOT: (u32, u32) = (16, 50_000);
const VCF_INSIDE: (u32, u32) = (8, 400);
const VCF_HORIZON: (u32, u32) = (5, 60);

/// The moves to search, best first: an immediate win alone; else the blocks of the opponent's
/// immediate wins; else the candidates by attack plus defence, at most `width` of them.
pub fn ordered_moves(p: &Gomoku, width: usize) -> Vec<usize> {
    let me = p.side_to_move();
    let them = me.other();
    let cands = candidates(p);
    if let Some(&win) = cands.iter().find(|&&q| p.makes_five(q, me)) {
        return vec![win];
    }
    let blocks: Vec<usize> = cands.iter().copied().filter(|&q| p.makes_five(q, them)).collect();
    if !blocks.is_empty() {
        return blocks;
    }
    let mut scored: Vec<(i32, usize)> =
        cands.into_iter().map(|q| (point_value(p, q, me) + point_value(p, q, them) * 9 / 10, q)).collect();
    scored.sort_by_key(|&(v, q)| (std::cmp::Reverse(v), q));
    scored.truncate(width);
    scored.into_iter().map(|(_, q)| q).collect()
}

/// The engine's search: negamax alpha-beta with iterative deepening over [`ordered_moves`].
#[derive(Clone, Debug)]
pub struct Engine {
    /// The longest a move may take (iterations are not started past half of it).
    pub time: Option<Duration>,
    /// The deepest search in plies.
    pub depth: Option<u32>,
    /// How many moves a node searches at most (besides wins and forced blocks).
    pub width: usize,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
}

/// What a search found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The best move's intersection.
    pub point: usize,
    /// Its value for the side to move (decisive values are `WIN - plies`).
    pub value: i32,
    /// The depth of the last completed iteration.
    pub depth: u32,
}

impl Engine {
    /// An engine limited by `time` and/or `depth` (1 s when neither is given).
    pub fn new(time: Option<Duration>, depth: Option<u32>) -> Engine {
        let time = if time.is_none() && depth.is_none() { Some(Duration::from_secs(1)) } else { time };
        Engine { time, depth, width: 12, nodes: 0, deadline: None, stopped: false }
    }

    /// Nodes searched by the last call.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The best move of a position where the side to move can move, by iterative deepening.
    pub fn search(&mut self, p: &Gomoku) -> Option<Found> {
        // A finished game has no move to find.
        p.status().to_move()?;
        let start = Instant::now();
        self.deadline = self.time.map(|t| start + t);
        self.stopped = false;
        self.nodes = 0;
        let max_depth = self.depth.unwrap_or(64).max(1);
        // A forced win by fours is played at once: no search can do better.
        if let Some((point, plies)) = vcf_until(p, VCF_ROOT.0, &mut VCF_ROOT.1.clone(), self.deadline) {
            return Some(Found { point, value: WIN - plies as i32, depth: 0 });
        }
        let mut best = None;
        for depth in 1..=max_depth {
            let found = self.root(p, depth);
            if self.stopped {
                break;
            }
            best = found;
            if best.is_some_and(|f| f.value.abs() >= WIN - 1000) {
                break; // a forced result: deeper searches cannot change it
            }
            if let Some(t) = self.time {
                // The next iteration costs several times this one: do not start what cannot end.
                if start.elapsed() * 4 > t {
                    break;
                }
            }
        }
        best.or_else(|| ordered_moves(p, 1).first().map(|&q| Found { point: q, value: 0, depth: 0 }))
    }

    /// The value of `p` for the side to move searched to `depth` plies (for analysis).
    pub fn value(&mut self, p: &Gomoku, depth: u32) -> i32 {
        self.deadline = None;
        self.stopped = false;
        self.negamax(p, depth, -WIN - 1, WIN + 1, 0)
    }

    fn root(&mut self, p: &Gomoku, depth: u32) -> Option<Found> {
        let mut alpha = -WIN - 1;
        let mut best = None;
        for q in ordered_moves(p, self.width) {
            let mut child = *p;
            child.play_unchecked(mv(p, q));
            let value = -self.negamax(&child, depth - 1, -WIN - 1, -alpha, 1);
            if self.stopped {
                return best;
            }
            if value > alpha {
                alpha = value;
                best = Some(Found { point: q, value, depth });
            }
        }
        best
    }

    fn negamax(&mut self, p: &Gomoku, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        // Every node: one holds a search of fours and a move ordering over the board, which take
        // far longer than reading the clock, and a thousand of them could overrun a move's time
        // on a busy machine (two losses on time in 100 games at 0:10+0.1 under load 8 did).
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        match p.status() {
            Status::Over(crate::Outcome::Draw) => return 0,
            // The side that just moved won: the side to move lost.
            Status::Over(_) => return -(WIN - ply),
            Status::ToMove(_) => {}
        }
        // A win by fours is seen anywhere, the horizon included.
        let (fours, mut budget) = if depth == 0 { VCF_HORIZON } else { VCF_INSIDE };
        if let Some((_, plies)) = vcf_until(p, fours, &mut budget, self.deadline) {
            return WIN - ply - plies as i32;
        }
        if depth == 0 {
            return evaluate(p);
        }
        let moves = ordered_moves(p, self.width);
        let mut best = -WIN - 1;
        for q in moves {
            let mut child = *p;
            child.play_unchecked(mv(p, q));
            let value = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if value > best {
                best = value;
            }
            if value > alpha {
                alpha = value;
            }
            if alpha >= beta || self.stopped {
                break;
            }
        }
        best
    }
}

/// The `engine` player.
pub struct EnginePlayer {
    engine: Engine,
    describe: String,
    /// The `time=` given: it caps a game clock's budget (without one the engine plays by the
    /// clock alone).
    own_time: Option<Duration>,
    /// The game clock, when the front end keeps one.
    clock: Option<TimeLeft>,
}

impl EnginePlayer {
    /// An engine player limited by `time` and/or `depth`.
    pub fn new(time: Option<Duration>, depth: Option<u32>, describe: String) -> EnginePlayer {
        EnginePlayer { engine: Engine::new(time, depth), describe, own_time: time, clock: None }
    }

    /// The engine's best move and its value for the side to move.
    pub fn advise(&mut self, p: &Gomoku) -> Option<(GomokuMove, Found)> {
        self.engine.search(p).map(|f| (mv(p, f.point), f))
    }
}

impl Player<Gomoku> for EnginePlayer {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn choose_move(&mut self, record: &Record<Gomoku>) -> GomokuMove {
        let p = record.current();
        let usual = self.engine.time;
        if self.clock.is_some() {
            if let Some(only) = forced_move(p) {
                return only;
            }
            self.engine.time = TimeLeft::cap(self.clock.as_ref(), self.own_time);
        }
        let found = self.engine.search(p);
        self.engine.time = usual;
        match found {
            Some(f) => mv(p, f.point),
            None => first_legal(p),
        }
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock = time.cloned();
    }
}

fn first_legal(p: &Gomoku) -> GomokuMove {
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    moves[0]
}

/// The `greedy` player's move: a win at once, else a block of the opponent's win at once, else
/// the best single move by attack plus defence (ties broken by `rng`).
pub fn greedy_move(p: &Gomoku, rng: &mut ChaCha8Rng) -> GomokuMove {
    let me = p.side_to_move();
    let them = me.other();
    let cands = candidates(p);
    let mut best: Vec<usize> = Vec::new();
    let mut best_value = i32::MIN;
    for &q in &cands {
        let value = if p.makes_five(q, me) {
            i32::MAX
        } else if p.makes_five(q, them) {
            i32::MAX - 1
        } else {
            point_value(p, q, me) + point_value(p, q, them) * 9 / 10
        };
        if value > best_value {
            best_value = value;
            best.clear();
        }
        if value == best_value {
            best.push(q);
        }
    }
    match best.len() {
        0 => first_legal(p),
        len => mv(p, best[rng.gen_range(0..len)]),
    }
}

/// The `greedy` player.
pub struct GreedyPlayer {
    rng: ChaCha8Rng,
    seed: u64,
}

impl GreedyPlayer {
    /// A greedy player whose ties are broken by a generator seeded with `seed`.
    pub fn new(seed: u64) -> GreedyPlayer {
        GreedyPlayer { rng: ChaCha8Rng::seed_from_u64(seed), seed }
    }
}

impl Player<Gomoku> for GreedyPlayer {
    fn describe(&self) -> String {
        format!("greedy:seed={}", self.seed)
    }

    fn choose_move(&mut self, record: &Record<Gomoku>) -> GomokuMove {
        greedy_move(record.current(), &mut self.rng)
    }

    fn reset(&mut self) {
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
    }
}

/// Builds the player a spec names; `seed` seeds random choices unless the spec sets its own.
///
/// ```
/// use tabletop::games::gomoku::engine::make_player;
/// assert_eq!(make_player(&"engine:depth=2".parse().unwrap(), 1).unwrap().describe(), "engine:depth=2");
/// assert!(make_player(&"engine:depth=0".parse().unwrap(), 1).is_err());
/// assert!(make_player(&"classic".parse().unwrap(), 1).is_err());
/// ```
pub fn make_player(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Player<Gomoku>>, SpecError> {
    let kind = spec.check(PLAYER_KINDS)?;
    Ok(match kind.name {
        "engine" if spec.settings.contains_key("level") || spec.settings.contains_key("seed") => {
            let Some(level) = crate::levels::level_setting(spec)? else {
                return Err(crate::levels::seed_without_level(spec));
            };
            let seed = spec.get_u64("seed")?.unwrap_or(seed);
            let (weak, strong, percent) = LEVELS[level as usize - 1];
            let description = crate::levels::describe_level(spec, level);
            Box::new(crate::levels::MixedPlayer::new(
                strong.player(seed),
                weak.player(seed.wrapping_add(1)),
                percent,
                seed,
                description,
            ))
        }
        "engine" => {
            let time = spec.get_duration("time")?;
            let depth = spec.get_in_range("depth", 1..=12)?.map(|d| d as u32);
            let describe = if spec.settings.is_empty() { "engine:time=1s".to_string() } else { spec.to_string() };
            Box::new(EnginePlayer::new(time, depth, describe))
        }
        "greedy" => Box::new(GreedyPlayer::new(spec.get_u64("seed")?.unwrap_or(seed))),
        _ => Box::new(RandomPlayer::new(spec.get_u64("seed")?.unwrap_or(seed))),
    })
}

/// One part of a Gomoku level.
#[derive(Clone, Copy, Debug)]
enum LevelPart {
    /// Uniformly random legal moves.
    Random,
    /// The engine to this depth (no time limit: a level plays the same moves on any machine).
    Depth(u32),
}

impl LevelPart {
    fn player(self, seed: u64) -> Box<dyn Player<Gomoku>> {
        match self {
            LevelPart::Random => Box::new(RandomPlayer::new(seed)),
            LevelPart::Depth(depth) => {
                Box::new(EnginePlayer::new(None, Some(depth), format!("engine:depth={depth}")))
            }
        }
    }
}

/// Gomoku's ten levels: (weak part, strong part, the strong part's share of the moves in
/// percent). Levels 1 to 8 let the engine at depth 1 choose a growing share of the moves (none
/// at level 1, 4% at level 2 .. 93% at level 8) and random moves the others; level 9 is the
/// engine at depth 1, level 10 at depth 2 (fixed depths, no time limit: a level plays the same
/// moves on any machine). Greedy moves are not part of the ladder: the depth-1 engine beats the
/// greedy player in every game and mixtures of the two are barely apart. Calibrated with
/// `scripts/levels-ladder gomoku` (docs/GOMOKU.md, "Levels").
const LEVELS: [(LevelPart, LevelPart, u32); 10] = [
    (LevelPart::Random, LevelPart::Random, 0),
    (LevelPart::Random, LevelPart::Depth(1), 4),
    (LevelPart::Random, LevelPart::Depth(1), 10),
    (LevelPart::Random, LevelPart::Depth(1), 22),
    (LevelPart::Random, LevelPart::Depth(1), 45),
    (LevelPart::Random, LevelPart::Depth(1), 65),
    (LevelPart::Random, LevelPart::Depth(1), 82),
    (LevelPart::Random, LevelPart::Depth(1), 93),
    (LevelPart::Random, LevelPart::Depth(1), 100),
    (LevelPart::Random, LevelPart::Depth(2), 100),
];

impl crate::players::Players for Gomoku {
    const PLAYER_KINDS: &'static [PlayerKind] = PLAYER_KINDS;

    fn make_player(spec: &PlayerSpec, _start: &Gomoku, seed: u64) -> Result<Box<dyn Player<Gomoku>>, SpecError> {
        make_player(spec, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{run_match, MatchSettings};
    use crate::games::gomoku::{GomokuVariant, Point};

    #[test]
    fn the_engine_wins_at_once_and_blocks_a_four() {
        let v = GomokuVariant::new(9).unwrap();
        // Black to move with four in a row open at e1: wins there.
        let p = Gomoku::from_notation(&v, "........./........./........./........./........./........./oooo...../........./xxxx..... x").unwrap();
        let mut engine = Engine::new(None, Some(2));
        let found = engine.search(&p).unwrap();
        assert_eq!(p.point_name(Point(found.point as u16)), "e1");
        assert!(found.value >= WIN - 10);
        // White to move must block e1 (its own four at e3 loses to black's e1 first? no: white
        // wins at once at e3 itself, which comes first).
        let q = Gomoku::from_notation(&v, "........./........./........./........./........./........./oooo...../........./xxxx....x o").unwrap();
        let found = engine.search(&q).unwrap();
        assert_eq!(q.point_name(Point(found.point as u16)), "e3");
    }

    #[test]
    fn the_engine_beats_random_every_time_and_greedy_mostly() {
        let start = Gomoku::new(GomokuVariant::new(9).unwrap());
        let settings = MatchSettings::new(10, 1, None, None, 0..=2).unwrap();
        let mut engine = EnginePlayer::new(None, Some(2), "engine:depth=2".into());
        let mut random = RandomPlayer::new(3);
        let tally = run_match(&start, &mut engine, &mut random, &settings, |_, _| {});
        assert_eq!(tally.wins[0], 10, "{tally:?}");
        // Against greedy on the usual board, where defending alone does not fill it to a draw.
        let start = Gomoku::new(GomokuVariant::default());
        let settings = MatchSettings::new(20, 2, None, None, 0..=2).unwrap();
        let mut greedy = GreedyPlayer::new(5);
        let tally = run_match(&start, &mut engine, &mut greedy, &settings, |_, _| {});
        assert!(tally.score(0) >= 0.7, "{tally:?}");
    }

    #[test]
    fn each_level_beats_the_one_below_in_a_seeded_match() {
        // Levels 2 to 9 against the level below, 20 games each on 15x15 (10 vs 9, depth 2
        // against depth 1, is the ladder's costly pair: docs/GOMOKU.md). The earlier table's
        // depths 3 to 5 were barely apart (52.5-53.8% a step); the levels play without a time
        // limit, so each match is the same on any machine.
        let start = Gomoku::new(GomokuVariant::default());
        let settings = MatchSettings::new(20, 1, None, None, 0..=2).unwrap();
        for level in 2..=9u8 {
            let mut up = make_player(&format!("engine:level={level},seed=1").parse().unwrap(), 1).unwrap();
            let mut low = make_player(&format!("engine:level={},seed=2", level - 1).parse().unwrap(), 1).unwrap();
            let tally = run_match(&start, &mut *up, &mut *low, &settings, |_, _| {});
            assert!(tally.score(0) >= 0.6, "level {level} against {}: {tally:?}", level - 1);
        }
    }

    #[test]
    fn a_search_past_its_time_stops_at_the_next_node() {
        // A move's time already spent (a clock at its margin on a busy machine): the search
        // stops at its first node and still answers a move. Reading the clock every 1,024 nodes,
        // each with its own search of fours, made such a move overrun by seconds under load.
        let p = Gomoku::from_notation(
            &GomokuVariant::default(),
            &format!("{}/.......x......./.......ox....../......o.x....../{} o", ["..............."; 5].join("/"), ["..............."; 7].join("/")),
        )
        .unwrap();
        let mut engine = Engine::new(Some(Duration::ZERO), None);
        let found = engine.search(&p).expect("a move");
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        assert!(moves.contains(&mv(&p, found.point)), "{found:?}");
        assert!(engine.nodes() <= 1, "{} nodes searched after the deadline", engine.nodes());
    }
}
