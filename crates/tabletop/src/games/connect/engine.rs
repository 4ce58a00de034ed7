//! Computer players: the engine (book, then exact solve, else heuristic search), weaker
//! levels, and the player table for specs.
//!
//! ```
//! use tabletop::games::connect::engine::Engine;
//! use tabletop::games::connect::{Connect, ConnectVariant};
//! use tabletop::{Player, Record};
//! let v = ConnectVariant::connect3();
//! let mut engine = Engine::new(v, std::time::Duration::from_secs(1));
//! let mv = engine.choose_move(&Record::new(Connect::new(v)));
//! assert!(engine.last_note().starts_with("perfect"));
//! # let _ = mv;
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::book::Book;
use super::rules::{winning_cells, Column, Connect, ConnectVariant};
use super::solver::{OutOfTime, Solver};
use crate::game::Game;
use crate::players::{forced_move, Player, TimeLeft};
use crate::memory::TableAllocError;
use crate::player_spec::{PlayerKind, PlayerSpec, SpecError};
use crate::players::RandomPlayer;
use crate::record::Record;
use crate::search::{Limits, MoveOrder, Options, Search};

/// The players `--player` accepts for Connect-N.
pub const PLAYER_KINDS: &[PlayerKind] = &[
    PlayerKind {
        name: "engine",
        settings: &["time", "table", "level", "seed"],
        help: "perfect when the solve (or the book) answers within `time` (default 1s), else heuristic; \
               or level=1..10 by number or name: 1 beginner, 2 novice, 3 casual, 4 intermediate, 5 club, \
               6 advanced, 7 expert, 8 master, 9 grandmaster, 10 maximum (seed= varies the levels' choices)",
    },
    PlayerKind {
        name: "connect",
        settings: &["level", "seed"],
        help: "the older spelling of engine:level=N for N = 1..5 (still accepted)",
    },
    PlayerKind { name: "level", settings: &["level", "seed"], help: "the older spelling of engine:level=N (still accepted)" },
    PlayerKind { name: "random", settings: &["seed"], help: "uniformly random legal moves" },
    PlayerKind { name: "human", settings: &[], help: "a person at the keyboard" },
];

/// Centre-first column order for a width.
pub fn centre_order(width: usize) -> Vec<usize> {
    let w = width as i64;
    (0..w).map(|i| (w / 2 + (1 - 2 * (i % 2)) * (i + 1) / 2) as usize).collect()
}

/// A static evaluation for the side to move: threats, their rows, and central stones.
pub fn evaluate(p: &Connect) -> i32 {
    let v = p.connect_variant();
    let me = p.current_stones();
    let opp = me ^ p.mask();
    let free = v.board_mask() & !p.mask();
    let mine = winning_cells(me, v) & free;
    let theirs = winning_cells(opp, v) & free;
    let mut score = 16 * (mine.count_ones() as i32 - theirs.count_ones() as i32);
    // Threats just above the next free cell of their column are urgent; count them double.
    let possible = (p.mask() + v.bottom_mask()) & v.board_mask();
    score += 8 * ((mine & possible).count_ones() as i32 - (theirs & possible).count_ones() as i32);
    let centre = (v.width() as i32 - 1) as f32 / 2.0;
    for col in 0..v.width() {
        let weight = (v.width() as f32 / 2.0 - (col as f32 - centre).abs()).max(0.0) as i32;
        let m = v.column_mask(col);
        score += weight * ((me & m).count_ones() as i32 - (opp & m).count_ones() as i32);
    }
    score
}

/// Orders moves centre first.
#[derive(Clone, Copy, Debug, Default)]
pub struct CentreFirst;

impl MoveOrder<Connect> for CentreFirst {
    fn order(&self, position: &Connect, moves: &mut [Column]) {
        let w = position.connect_variant().width() as i32;
        moves.sort_by_key(|c| (2 * c.0 as i32 - (w - 1)).abs());
    }
}

/// The heuristic search used when no exact result is available in time.
pub type Heuristic = Search<Connect, fn(&Connect) -> i32, CentreFirst>;

/// A heuristic searcher: [`evaluate`], centre-first ordering, the generic alpha-beta.
pub fn heuristic_search() -> Heuristic {
    Search::new(evaluate as fn(&Connect) -> i32, CentreFirst, Options::default())
}

/// Describes a score in words: "wins with its 5th piece", "draw", "loses ...".
pub fn describe_score(p: &Connect, score: i32) -> String {
    let cells = p.connect_variant().cells() as i32;
    let played = p.moves_played() as i32;
    if score > 0 {
        // A win on the mover's j-th move from now scores (cells + 1 - played) / 2 - (j - 1).
        let j = (cells + 1 - played) / 2 - score + 1;
        crate::value::wins_in(j.max(1) as u32)
    } else if score < 0 {
        let j = (cells - played) / 2 + score + 1;
        crate::value::loses_in(j.max(1) as u32)
    } else {
        "draw".to_string()
    }
}

/// The engine: the book, then an exact solve within the time budget, else a heuristic search.
pub struct Engine {
    variant: ConnectVariant,
    time: Duration,
    solver: Solver,
    book: Option<Arc<Book>>,
    heuristic: Heuristic,
    /// With a node budget, the solver's nodes and the heuristic search's depth per move (the
    /// same moves on any machine); without one, the clock `time`.
    node_budget: Option<(u64, u32)>,
    note: String,
    /// Under a game clock: the budget of the next move.
    clock_budget: Option<Duration>,
    /// Is `time` only the default (no `time=` given)? Under a clock it then plays by the clock
    /// alone; a time of its own caps the clock's budget.
    default_time: bool,
}

impl Engine {
    /// An engine for `variant` with a move budget and a 64 MB table; uses the shipped book on 7x6.
    pub fn new(variant: ConnectVariant, time: Duration) -> Self {
        Engine::with_table(variant, time, 1 << 23)
    }

    /// An engine with a table of about `entries` entries.
    ///
    /// Panics if the table cannot be allocated; [`Engine::try_with_table`] returns an error.
    pub fn with_table(variant: ConnectVariant, time: Duration, entries: usize) -> Self {
        Engine::try_with_table(variant, time, entries).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An engine with a table of about `entries` entries (its memory:
    /// [`Solver::memory_bytes`]), or an error when the table cannot be allocated.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::connect::engine::Engine;
    /// use tabletop::games::connect::ConnectVariant;
    /// let v = ConnectVariant::connect3();
    /// assert!(Engine::try_with_table(v, Duration::from_millis(10), 1 << 16).is_ok());
    /// assert!(Engine::try_with_table(v, Duration::from_millis(10), 1 << 60).is_err());
    /// ```
    pub fn try_with_table(variant: ConnectVariant, time: Duration, entries: usize) -> Result<Self, TableAllocError> {
        let solver = Solver::try_new(variant, entries)?;
        let book = if variant == ConnectVariant::connect4() { Some(Arc::new(Book::standard())) } else { None };
        Ok(Engine {
            variant,
            time,
            solver,
            book,
            heuristic: heuristic_search(),
            node_budget: None,
            note: String::new(),
            clock_budget: None,
            default_time: false,
        })
    }

    /// The same engine searching by a node budget instead of the clock: each move, the book,
    /// else the solver for at most `nodes` nodes, else the heuristic search to `depth` plies.
    /// It plays the same moves on an idle and a busy machine (level 9 of [`LEVELS`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tabletop::games::connect::engine::Engine;
    /// use tabletop::games::connect::{Connect, ConnectVariant};
    /// use tabletop::{Player, Record};
    /// let v = ConnectVariant::connect4();
    /// let record = Record::new(Connect::new(v));
    /// let mut a = Engine::with_table(v, Duration::ZERO, 1 << 16).with_node_budget(10_000, 6);
    /// let mut b = Engine::with_table(v, Duration::ZERO, 1 << 16).with_node_budget(10_000, 6);
    /// assert_eq!(a.choose_move(&record), b.choose_move(&record));
    /// ```
    pub fn with_node_budget(mut self, nodes: u64, depth: u32) -> Self {
        self.node_budget = Some((nodes, depth));
        self
    }

    /// The same engine without the opening book (the solver and the search from the first
    /// move; level 9 of [`LEVELS`]).
    pub fn without_book(mut self) -> Self {
        self.book = None;
        self
    }

    /// Changes the move budget (an engine, with its table, serves moves of any budget).
    pub fn set_time(&mut self, time: Duration) {
        self.time = time;
    }

    /// What the last move was based on: `book: ...`, `perfect: ...` or `heuristic: ...`.
    pub fn last_note(&self) -> &str {
        &self.note
    }

    /// The variant.
    pub fn variant(&self) -> ConnectVariant {
        self.variant
    }

    /// The solver (for hints and analysis).
    pub fn solver(&mut self) -> &mut Solver {
        &mut self.solver
    }

    /// A best move and the exact score, from the book or the solver, within `deadline`.
    pub fn best_exact(&mut self, p: &Connect, deadline: Option<Instant>) -> Result<(Column, i32, bool), OutOfTime> {
        if let Some((col, Some(score))) = self.book.as_ref().and_then(|b| b.lookup(p)) {
            return Ok((col, score, true));
        }
        self.solver.set_deadline(deadline);
        let result = self.solver.best_move(p).map(|(c, s)| (c, s, false));
        self.solver.set_deadline(None);
        result
    }
}

impl Player<Connect> for Engine {
    fn describe(&self) -> String {
        match self.node_budget {
            Some((nodes, depth)) => format!("engine:nodes={nodes},depth={depth}"),
            None => format!("engine:time={}ms", self.time.as_millis()),
        }
    }

    fn choose_move(&mut self, record: &Record<Connect>) -> Column {
        let p = record.current();
        let start = Instant::now();
        let time = match self.clock_budget {
            Some(budget) if self.default_time => budget,
            Some(budget) => budget.min(self.time),
            None => self.time,
        };
        if self.clock_budget.is_some() {
            if let Some(only) = forced_move(p) {
                self.note = "the only legal move".to_string();
                return only;
            }
        }
        // The exact solve gets a node budget, or 60% of the time; the heuristic search the
        // rest (with a margin on the clock).
        let exact = match self.node_budget {
            Some((nodes, _)) => {
                self.solver.reset_nodes();
                self.solver.set_node_limit(Some(nodes));
                let exact = self.best_exact(p, None);
                self.solver.set_node_limit(None);
                exact
            }
            None => self.best_exact(p, Some(start + time.mul_f64(0.6))),
        };
        if let Ok((col, score, from_book)) = exact {
            let source = if from_book { "book" } else { "perfect" };
            self.note = format!("{source}: {}", describe_score(p, score));
            return col;
        }
        if let Some((col, None)) = self.book.as_ref().and_then(|b| b.lookup(p)) {
            self.note = "book: heuristic move, not proven".to_string();
            return col;
        }
        let (limits, why) = match self.node_budget {
            Some((nodes, depth)) => (Limits::depth(depth), format!("within {nodes} nodes")),
            None => {
                // Leave a margin so the whole move stays inside the budget.
                let left = time.mul_f64(0.85).saturating_sub(start.elapsed()).max(Duration::from_millis(5));
                (Limits::time(left), "in time".to_string())
            }
        };
        let result = self.heuristic.search(p, &[], limits);
        self.note = format!("heuristic: no exact result {why} (depth {})", result.depth);
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        result.best_move.unwrap_or(moves[0])
    }

    fn set_clock(&mut self, time: Option<&TimeLeft>) {
        self.clock_budget = time.map(TimeLeft::budget);
    }
}

/// A deliberately weaker player of a given [`Style`]: random moves, wins in one taken and
/// losses in one blocked some or all of the time, or a heuristic search with noise. The lower
/// levels of [`LEVELS`] are such players; [`LevelPlayer::new`] builds the five styles of the
/// earlier five-level scale ([`Style::of_old_level`]).
pub struct LevelPlayer {
    style: Style,
    description: String,
    rng: ChaCha8Rng,
    heuristic: Heuristic,
}

/// How a [`LevelPlayer`] plays: the chance (in percent) that it takes a win in one, whether it
/// blocks a loss in one, and the depth of its heuristic search (0: random moves) with the
/// noise added to each move's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// The chance in percent that it takes a win in one.
    pub win: u32,
    /// Whether it blocks the opponent's win in one.
    pub block: bool,
    /// The depth of the heuristic search; 0 plays random moves.
    pub depth: u32,
    /// The largest random amount added to each move's searched value.
    pub noise: i32,
}

impl Style {
    /// The styles of the earlier five-level scale (1..=5): random moves taking half of the wins
    /// in one, then random moves taking wins and blocking losses in one, then searches of depth
    /// 2 (noise 60), 4 (noise 20) and 7.
    pub fn of_old_level(level: u8) -> Style {
        match level {
            1 => Style { win: 50, block: false, depth: 0, noise: 0 },
            2 => Style { win: 100, block: true, depth: 0, noise: 0 },
            3 => Style { win: 100, block: true, depth: 2, noise: 60 },
            4 => Style { win: 100, block: true, depth: 4, noise: 20 },
            _ => Style { win: 100, block: true, depth: 7, noise: 0 },
        }
    }
}

impl LevelPlayer {
    /// A player of `level` (1..=5) seeded with `seed`.
    pub fn new(level: u8, seed: u64) -> Self {
        let level = level.clamp(1, 5);
        let description = format!("engine:level={level},seed={seed}");
        LevelPlayer::with_style(Style::of_old_level(level), seed, description)
    }

    /// A player of `style`, seeded with `seed`, described as `description`.
    pub fn with_style(style: Style, seed: u64, description: String) -> Self {
        LevelPlayer {
            style,
            description,
            rng: ChaCha8Rng::seed_from_u64(seed),
            heuristic: heuristic_search(),
        }
    }
}

impl Player<Connect> for LevelPlayer {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn choose_move(&mut self, record: &Record<Connect>) -> Column {
        let p = record.current();
        let v = p.connect_variant();
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        let wins: Vec<Column> = moves.iter().copied().filter(|c| p.is_winning_move(c.0 as usize)).collect();
        let take_win = self.style.win >= 100 || self.rng.gen_bool(f64::from(self.style.win) / 100.0);
        if take_win && !wins.is_empty() {
            return wins[0];
        }
        if self.style.block {
            // Block the opponent's win in one.
            let opp = p.current_stones() ^ p.mask();
            let opp_win = winning_cells(opp, v) & v.board_mask() & !p.mask();
            let possible = (p.mask() + v.bottom_mask()) & v.board_mask();
            if let Some(c) = moves.iter().copied().find(|c| opp_win & possible & v.column_mask(c.0 as usize) != 0) {
                return c;
            }
        }
        if self.style.depth == 0 {
            return moves[self.rng.gen_range(0..moves.len())];
        }
        // A heuristic search with noise.
        let (depth, noise) = (self.style.depth, self.style.noise);
        let scored = self.heuristic.analyse_moves(p, &[], Limits::depth(depth));
        let mut best = (i32::MIN, moves[0]);
        for (mv, value) in scored {
            let jitter = if noise > 0 { self.rng.gen_range(0..=noise) } else { 0 };
            let value = value.saturating_add(jitter);
            if value > best.0 {
                best = (value, mv);
            }
        }
        best.1
    }
}

/// Builds a computer player from a spec (`engine`, `connect:level=3`, `random`), checked
/// against [`PLAYER_KINDS`]; `human` is refused here (front ends handle people). An engine
/// whose table cannot be allocated is an error ([`SpecError::Memory`]), not an abort.
///
/// ```
/// use tabletop::games::connect::engine::make_player;
/// use tabletop::games::connect::ConnectVariant;
/// let v = ConnectVariant::connect3();
/// assert!(make_player(&"engine:table=65536".parse().unwrap(), v, 1).is_ok());
/// assert!(make_player(&"engine:table=1".parse().unwrap(), v, 1).is_err());
/// ```
pub fn make_player(
    spec: &PlayerSpec,
    variant: ConnectVariant,
    default_seed: u64,
) -> Result<Box<dyn Player<Connect>>, SpecError> {
    let kind = spec.check(PLAYER_KINDS)?;
    let seed = spec.get_u64("seed")?.unwrap_or(default_seed);
    Ok(match kind.name {
        "engine" if spec.settings.contains_key("level") || spec.settings.contains_key("seed") => {
            let Some(level) = crate::levels::level_setting(spec)? else {
                return Err(crate::levels::seed_without_level(spec));
            };
            level_player(spec, level, variant, seed)?
        }
        "engine" => {
            let own_time = spec.get_duration("time")?;
            let table = spec.get_in_range("table", 1 << 16..=1 << 30)?.unwrap_or(1 << 23);
            {
                let table = table as usize;
                crate::memory::ensure_available(Solver::memory_bytes(variant, table))?;
                let mut engine = Engine::try_with_table(variant, own_time.unwrap_or(Duration::from_secs(1)), table)?;
                engine.default_time = own_time.is_none();
                Box::new(engine)
            }
        }
        "connect" | "level" => {
            // The older spellings: connect:level=N and level:level=N, N = 1..5, now engine:level=N.
            let level = spec.get_in_range("level", 1..=5)?.unwrap_or(3);
            level_player(spec, level as u8, variant, seed)?
        }
        "random" => Box::new(RandomPlayer::new(seed)),
        other => {
            return Err(SpecError::UnknownName { name: other.to_string(), valid: "engine, connect, random".into() })
        }
    })
}

/// Connect's ten levels: the [`Style`] of a level's own moves and the engine's share of the
/// moves (in percent). Level 1 plays random moves, 2 and 3 take wins (and 3 blocks losses) in
/// one, 4 to 6 search one ply with less and less noise, 7 and 8 search six and seven plies,
/// 9 is the engine on a node budget without its book ([`LEVEL_9_ENGINE`]), 10 is the engine
/// (a second a move, with the book). Calibrated with `scripts/levels-ladder connect`
/// (docs/CONNECT.md, "Levels").
pub const LEVELS: [(Style, u32); 10] = [
    (Style { win: 0, block: false, depth: 0, noise: 0 }, 0),
    (Style { win: 50, block: false, depth: 0, noise: 0 }, 0),
    (Style { win: 50, block: true, depth: 0, noise: 0 }, 0),
    (Style { win: 100, block: true, depth: 1, noise: 200 }, 0),
    (Style { win: 100, block: true, depth: 1, noise: 50 }, 0),
    (Style { win: 100, block: true, depth: 1, noise: 4 }, 0),
    (Style { win: 100, block: true, depth: 6, noise: 4 }, 0),
    (Style { win: 100, block: true, depth: 7, noise: 0 }, 0),
    (Style { win: 100, block: true, depth: 7, noise: 0 }, 100),
    (Style { win: 100, block: true, depth: 7, noise: 0 }, 100),
];

/// Level 9's engine: the solver for at most this many nodes a move, else the heuristic search
/// to this depth, and no opening book. A budget in nodes, not time, so that the level plays
/// the same moves on an idle and a busy machine; without the book, the opening is where level
/// 10 gains on it (with the book, level 10 scored only 62-67% against it).
pub const LEVEL_9_ENGINE: (u64, u32) = (60_000, 8);

/// The player of `level` (1..=10) for `variant`, seeded with `seed`.
fn level_player(
    spec: &PlayerSpec,
    level: u8,
    variant: ConnectVariant,
    seed: u64,
) -> Result<Box<dyn Player<Connect>>, SpecError> {
    let level = level.clamp(1, 10);
    let (style, percent) = LEVELS[level as usize - 1];
    let description = crate::levels::describe_level(spec, level);
    let weak = LevelPlayer::with_style(style, seed.wrapping_add(1), description.clone());
    if percent == 0 {
        return Ok(Box::new(weak));
    }
    let table = 1 << 21;
    crate::memory::ensure_available(Solver::memory_bytes(variant, table))?;
    let mut strong = Engine::try_with_table(variant, Duration::from_secs(1), table)?;
    if level == 9 {
        let (nodes, depth) = LEVEL_9_ENGINE;
        strong = strong.with_node_budget(nodes, depth).without_book();
    }
    Ok(Box::new(crate::levels::MixedPlayer::new(Box::new(strong), Box::new(weak), percent, seed, description)))
}

/// The result of [`first_player_match`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FirstPlayerReport {
    /// Games the engine (X) won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the engine lost.
    pub losses: u32,
    /// The slowest engine move.
    pub slowest: Duration,
    /// Engine moves that were not exact (neither book nor solve).
    pub heuristic_moves: u32,
    /// Engine moves taken from unproven book entries (exact solve out of time).
    pub unproven_moves: u32,
    /// Engine moves in all.
    pub engine_moves: u32,
}

/// Plays `games` games from the empty board with `engine` as X (first) against `opponent`.
pub fn first_player_match(engine: &mut Engine, opponent: &mut dyn Player<Connect>, games: u32) -> FirstPlayerReport {
    let mut report = FirstPlayerReport::default();
    for _ in 0..games {
        let mut record = Record::new(Connect::new(engine.variant()));
        engine.reset();
        opponent.reset();
        while let crate::Status::ToMove(seat) = record.status() {
            let mv = if seat.0 == 0 {
                let start = Instant::now();
                let mv = engine.choose_move(&record);
                report.slowest = report.slowest.max(start.elapsed());
                report.engine_moves += 1;
                if engine.last_note().starts_with("heuristic") {
                    report.heuristic_moves += 1;
                }
                if engine.last_note().contains("not proven") {
                    report.unproven_moves += 1;
                }
                mv
            } else {
                opponent.choose_move(&record)
            };
            record.play(mv).expect("players choose legal moves");
        }
        match record.status() {
            crate::Status::Over(crate::Outcome::Win(s)) if s.0 == 0 => report.wins += 1,
            crate::Status::Over(crate::Outcome::Win(_)) => report.losses += 1,
            _ => report.draws += 1,
        }
    }
    report
}

impl crate::players::Players for Connect {
    const PLAYER_KINDS: &'static [PlayerKind] = PLAYER_KINDS;

    fn make_player(spec: &PlayerSpec, start: &Connect, seed: u64) -> Result<Box<dyn Player<Connect>>, SpecError> {
        make_player(spec, start.connect_variant(), seed)
    }
}
