//! The engine's player: plans whole turns and looks ahead at the next opponent by sampling.
//!
//! 1. **Turn planning** (beam search): from the current board and rack, sequences of
//!    placements are grown one token at a time (tokens placed earlier in the turn are operands
//!    for later ones), keeping the best `beam` distinct sets of placements at each depth. Each
//!    sequence is valued statically: points, the bonus if it empties a full rack, a value for
//!    each restriction-square extra draw, and the deduction risk of what stays on the rack.
//! 2. **Determinized look-ahead**: the best candidates are replayed against `samples` racks for
//!    the next opponent, drawn from the tokens the engine cannot see (bag and other racks; the
//!    engine never looks at hidden racks or at the bag's generator). The opponent's reply is
//!    played greedily on each sample; its mean is subtracted from the candidate's value.
//! 3. **Exchange** when no placement exists (as many tokens as the bag allows) or when the rack
//!    is poor (few points and several tokens that fit nowhere) and someone placed within the
//!    last round. When a placement exists the engine places at least one token: passing never
//!    ends the game, so computers that could place and waited could wait for ever.
//!
//! The plan is replayed move by move; after an extra draw (new information) it is rebuilt.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::board::{Board, Cell, Placement, Square, Tokens};
use super::rules::{Mathable, MathableMove};
use super::settings::MAX_TOKEN;
use crate::game::Game;
use crate::players::{Player, TimeLeft};
use crate::record::Record;

/// Value given to each extra draw a plan earns (a token to place later).
const DRAW_VALUE: f64 = 5.0;

/// The engine's player.
#[derive(Clone, Debug)]
pub struct EnginePlayer {
    /// Time limit per decision (a cap: the engine usually needs far less).
    pub time: Duration,
    /// Opponent racks sampled per candidate.
    pub samples: usize,
    /// Beam width of the turn planner.
    pub beam: usize,
    /// Candidates looked at with the opponent samples.
    pub candidates: usize,
    /// Weight of the opponent's expected reply.
    pub opponent_weight: f64,
    seed: u64,
    rng: ChaCha8Rng,
    plan: Vec<MathableMove>,
    expect: Option<u64>,
    bonus_planned: bool,
    /// The budget of the next decision under a game clock, if the front end keeps one.
    clock_budget: Option<Duration>,
}

/// One planned turn and its value.
#[derive(Clone, Debug)]
pub struct TurnPlan {
    /// The placements, in order.
    pub placements: Vec<Placement>,
    /// Points of the placements.
    pub points: u32,
    /// The bonus earned by emptying a full rack.
    pub bonus: u32,
    /// The value the engine gave the plan (points, bonus, draws, leave, opponent's reply).
    pub value: f64,
}

#[derive(Clone)]
struct Node {
    board: Board,
    rack: Tokens,
    points: u32,
    draws: u8,
    key: u64,
    placements: Vec<Placement>,
}

fn zobrist(cell: Cell, token: u8) -> u64 {
    let mut x = (cell.row as u64) << 16 | (cell.col as u64) << 8 | token as u64;
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Points of a greedy turn (best single placement again and again) with `rack` on `board`.
pub fn greedy_turn_points(board: &Board, rack: &Tokens, buf: &mut Vec<Placement>) -> u32 {
    let mut board = board.clone();
    let mut rack = *rack;
    let mut total = 0;
    loop {
        buf.clear();
        board.placements_into(rack.mask(), buf);
        let Some(best) = buf.iter().max_by_key(|p| p.points) else { break };
        total += best.points;
        board.put(best.cell, best.token);
        rack.remove(best.token);
    }
    total
}

impl EnginePlayer {
    /// An engine with the default settings (1 s cap, 40 samples).
    pub fn new(seed: u64) -> Self {
        EnginePlayer {
            time: Duration::from_secs(1),
            samples: 40,
            beam: 60,
            candidates: 24,
            opponent_weight: 1.0,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            plan: Vec::new(),
            expect: None,
            bonus_planned: false,
            clock_budget: None,
        }
    }

    /// The time limit of the next decision: [`EnginePlayer::time`], and under a game clock no
    /// more than its share of the time left.
    fn think_time(&self) -> Duration {
        self.clock_budget.map_or(self.time, |budget| budget.min(self.time))
    }

    /// The static value of what stays on the rack: its face value is lost at the end, more
    /// surely the emptier the bag.
    fn leave_value(game: &Mathable, rack: &Tokens) -> f64 {
        if !game.settings().deductions {
            return 0.0;
        }
        let bag = game.bag().len() as f64;
        let weight = (1.0 - bag / 40.0).clamp(0.05, 1.0);
        -weight * rack.sum() as f64
    }

    fn static_value(game: &Mathable, node: &Node) -> (f64, u32) {
        Self::value_of(game, &node.rack, node.points, node.draws)
    }

    fn value_of(game: &Mathable, rack: &Tokens, points: u32, draws: u8) -> (f64, u32) {
        let bonus = if game.settings().bonus > 0 && game.turn_started_full() && rack.is_empty() {
            game.settings().bonus as u32
        } else {
            0
        };
        let draws = if game.bag().is_empty() || bonus > 0 { 0.0 } else { draws as f64 * DRAW_VALUE };
        (points as f64 + bonus as f64 + draws + Self::leave_value(game, rack), bonus)
    }

    /// The tokens this player cannot see: the token set minus the board and its own rack.
    fn unseen(game: &Mathable) -> Vec<u8> {
        let mut counts: Vec<i32> = game.settings().tokens.counts().iter().map(|&c| c as i32).collect();
        for (v, &c) in game.board().placed_counts().iter().enumerate() {
            counts[v] -= c as i32;
        }
        for &v in game.rack(game.turn()).as_slice() {
            counts[v as usize] -= 1;
        }
        let mut out = Vec::new();
        for (v, &c) in counts.iter().enumerate().take(MAX_TOKEN as usize + 1) {
            out.resize(out.len() + c.max(0) as usize, v as u8);
        }
        out
    }

    /// Plans the rest of the current turn: the best sequence of placements found.
    pub fn plan_turn(&mut self, game: &Mathable) -> TurnPlan {
        let start = Instant::now();
        let root = Node {
            board: game.board().clone(),
            rack: *game.rack(game.turn()),
            points: 0,
            draws: 0,
            key: 0,
            placements: Vec::new(),
        };
        let mut all: Vec<(f64, u32, Node)> = Vec::new();
        let (v, b) = Self::static_value(game, &root);
        all.push((v, b, root.clone()));
        let mut beam = vec![root];
        let mut buf = Vec::new();
        let mut seen: HashMap<u64, u32> = HashMap::new();
        // The first depth always (every single placement is a candidate, however short the time).
        let mut first = true;
        while !beam.is_empty() && (first || (start.elapsed() < self.think_time() / 3 && !crate::cancel::cancelled())) {
            first = false;
            let mut children: Vec<(f64, usize, Placement)> = Vec::new();
            for (i, node) in beam.iter().enumerate() {
                buf.clear();
                node.board.placements_into(node.rack.mask(), &mut buf);
                for &p in &buf {
                    let key = node.key ^ zobrist(p.cell, p.token);
                    let points = node.points + p.points;
                    match seen.get(&key) {
                        Some(&best) if best >= points => continue,
                        _ => {
                            seen.insert(key, points);
                        }
                    }
                    let mut rack = node.rack;
                    rack.remove(p.token);
                    let restricted = matches!(node.board.square(p.cell), Square::Restriction(_));
                    let (value, _) = Self::value_of(game, &rack, points, node.draws + restricted as u8);
                    children.push((value, i, p));
                }
            }
            children.sort_by(|a, b| b.0.total_cmp(&a.0));
            children.truncate(self.beam);
            let mut next = Vec::with_capacity(children.len());
            for (_, i, p) in children {
                let parent = &beam[i];
                let mut node = parent.clone();
                node.board.put(p.cell, p.token);
                node.rack.remove(p.token);
                node.points += p.points;
                node.draws += matches!(parent.board.square(p.cell), Square::Restriction(_)) as u8;
                node.key ^= zobrist(p.cell, p.token);
                node.placements.push(p);
                let (v, b) = Self::static_value(game, &node);
                all.push((v, b, node.clone()));
                next.push(node);
            }
            beam = next;
        }
        all.sort_by(|a, b| b.0.total_cmp(&a.0));
        // A player that can place does: passing never ends the game, and two computers that
        // both preferred to wait would wait for ever.
        if all.iter().any(|(_, _, n)| !n.placements.is_empty()) {
            all.retain(|(_, _, n)| !n.placements.is_empty());
        }
        all.truncate(self.candidates.max(1));

        // Look-ahead: the next opponent's greedy reply on sampled racks.
        let players = game.settings().players as usize;
        let next_seat = (game.turn().index() + 1) % players;
        let opp_len = game.rack(crate::game::Seat(next_seat as u8)).len().max(1);
        let mut pool = Self::unseen(game);
        let mut samples = Vec::new();
        if self.opponent_weight > 0.0 && pool.len() >= opp_len {
            for _ in 0..self.samples {
                pool.shuffle(&mut self.rng);
                samples.push(Tokens::from_slice(&pool[..opp_len.min(8)]).expect("a rack-sized sample"));
            }
        }
        let mut best: Option<TurnPlan> = None;
        for (value, bonus, node) in all {
            let mut reply = 0.0;
            if !samples.is_empty() {
                let total: u32 = samples.iter().map(|s| greedy_turn_points(&node.board, s, &mut buf)).sum();
                reply = total as f64 / samples.len() as f64;
            }
            let value = value - self.opponent_weight * reply;
            let better = match &best {
                Some(b) => value > b.value,
                None => true,
            };
            if better {
                best = Some(TurnPlan { placements: node.placements, points: node.points, bonus, value });
            }
            if start.elapsed() > self.think_time().mul_f64(0.8) {
                break;
            }
        }
        best.expect("the empty plan or a placement is always a candidate")
    }

    /// The exchange the engine makes at the start of a turn, if any.
    fn exchange_choice(&self, game: &Mathable, plan: &TurnPlan) -> Option<Tokens> {
        if !game.can_exchange() || game.bag().is_empty() {
            return None;
        }
        let rack = *game.rack(game.turn());
        let placements = game.placements();
        let playable = |v: u8| placements.iter().any(|p| p.token == v);
        let mut dead: Vec<u8> = rack.as_slice().iter().copied().filter(|&v| !playable(v)).collect();
        if placements.is_empty() {
            // Nothing fits: change as much as the bag allows, largest first.
            let mut all = rack.as_slice().to_vec();
            all.sort_unstable_by(|a, b| b.cmp(a));
            all.truncate(game.bag().len());
            return Tokens::from_slice(&all);
        }
        // The exchange of a poor rack is a choice, not a need: only while someone placed within
        // the last round, so that computers exchanging dead tokens from a bag of dead tokens
        // (each hoping for better) come back to placing what fits.
        let players = game.settings().players as usize;
        let recent_placement = game.idle_turns() < players;
        if recent_placement && plan.points + plan.bonus < 8 && dead.len() >= 4 && game.bag().len() >= rack.len() {
            dead.sort_unstable_by(|a, b| b.cmp(a));
            return Tokens::from_slice(&dead);
        }
        None
    }

    /// The engine's choice of a whole turn from this position, as moves (placements then end of
    /// turn, or one exchange). Extra draws are not included: the engine takes them as they come
    /// and plans again.
    pub fn best_turn(&mut self, game: &Mathable) -> (Vec<MathableMove>, TurnPlan) {
        let plan = self.plan_turn(game);
        if let Some(t) = self.exchange_choice(game, &plan) {
            return (vec![MathableMove::Exchange(t)], plan);
        }
        let mut moves: Vec<MathableMove> =
            plan.placements.iter().map(|p| MathableMove::Place { cell: p.cell, token: p.token }).collect();
        moves.push(MathableMove::EndTurn);
        (moves, plan)
    }
}

impl Player<Mathable> for EnginePlayer {
    fn describe(&self) -> String {
        format!("engine:time={}ms", self.time.as_millis())
    }

    fn choose_move(&mut self, record: &Record<Mathable>) -> MathableMove {
        let game = record.current();
        if game.extra_draw_pending() && !game.bag().is_empty() && !self.bonus_planned {
            self.plan.clear();
            self.expect = None;
            return MathableMove::Draw;
        }
        if self.expect != Some(game.hash()) || self.plan.is_empty() {
            let (moves, plan) = self.best_turn(game);
            self.bonus_planned = plan.bonus > 0;
            self.plan = moves;
            self.plan.reverse();
        }
        let mv = self.plan.pop().unwrap_or(MathableMove::EndTurn);
        let mv = if game.is_legal(mv) { mv } else { MathableMove::EndTurn };
        let mut next = game.clone();
        next.play_unchecked(mv);
        self.expect = Some(next.hash());
        mv
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock_budget = time.map(TimeLeft::budget);
    }

    fn reset(&mut self) {
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
        self.plan.clear();
        self.expect = None;
        self.bonus_planned = false;
    }
}
