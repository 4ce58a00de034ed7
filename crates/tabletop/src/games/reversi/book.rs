//! The opening book: positions near the start with the engine's own values and best moves,
//! built by the engine alone (no one else's book or games), stored compactly, checked on load.
//!
//! What it holds ([`BookParams`]): every position of up to `all_plies` plies (moves from the
//! start), and beyond them, up to `plies`, the positions the near-best moves lead to (a
//! "drop-out" expansion: a move is followed when its value is within `window` hundredths of a
//! disc of the position's best). Each position is valued by a fresh engine searching every
//! move to `depth` plies ([`Engine::move_values_to`]: one thread, no clock, so the values
//! depend on the position and the depth alone), and keeps the best value, a best move (the
//! first of the best in square order) and the set of near-best moves. Symmetric images (the
//! board's 8 symmetries) are one entry, under the canonical form of
//! [`symmetry::canonical`](super::symmetry::canonical); the moves are stored in that
//! orientation and mapped back on lookup.
//!
//! The file (little-endian): the magic `TTRVBOOK`, a version byte (1), a flags byte (bit 0: the
//! build is complete), `all_plies`, `plies`, `depth`, a zero byte, `window` (`u16`), the engine's
//! identity ([`engine_identity`]: a fingerprint of the evaluation's weights, the ProbCut
//! parameters and [`SEARCH_IDENTITY`]), the entry count (`u32`), the entries sorted by key (29
//! bytes each: the mover's discs `u64`, the opponent's `u64`, the value `i32`, the best move's
//! square `u8`, the near-best moves `u64`), and a 64-bit FNV-1a checksum of everything before
//! it. [`Book::from_bytes`] refuses a damaged file: wrong magic or version, bad sizes, checksum,
//! order, overlapping discs, an illegal move, a value out of range, a position beyond the plies.
//!
//! The book built into the program ([`Book::standard`]) is `data/reversi/book.bin`, made by
//! `tabletop book reversi` (docs/REVERSI.md, "Book"); the engine's players consult it through
//! [`Engine::book`](super::engine::Engine::book).
//!
//! ```
//! use tabletop::games::reversi::{book::Book, Reversi};
//! let book = Book::standard();
//! let start = book.lookup(&Reversi::new()).expect("the start is in the book");
//! assert!(["d3", "c4", "f5", "e6"].contains(&start.best.to_string().as_str()));
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::Instant;

use super::bitboard::{flips, moves, Bits};
use super::engine::{Engine, WON};
use super::patterns::PatternWeights;
use super::rules::{Color, Reversi, ReversiMove, Square};
use super::symmetry::{canonical, transform};

/// The first bytes of a book file.
pub const MAGIC: &[u8; 8] = b"TTRVBOOK";

/// The format version written and read.
pub const VERSION: u8 = 1;

/// The search's part of [`engine_identity`]: changed by hand when the search changes the
/// values of a fixed-depth search (the book must then be built again).
pub const SEARCH_IDENTITY: &str = "tabletop-reversi-search/issue-56";

/// Header: magic 8, version, flags, all_plies, plies, depth, zero, window 2, identity 8, count 4.
const HEADER_BYTES: usize = 28;
/// One entry: two `u64`s, an `i32`, a `u8`, a `u64`.
const ENTRY_BYTES: usize = 29;
/// The trailing checksum.
const CHECKSUM_BYTES: usize = 8;

/// The book built into the program (see the module documentation).
static STANDARD: &[u8] = include_bytes!("../../../data/reversi/book.bin");

/// Why a book could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// The data does not start with the magic.
    #[error("not a Reversi opening book (bad magic)")]
    Magic,
    /// The version is not the one this program reads.
    #[error("a Reversi opening book of format version {0}; this program reads version {VERSION}")]
    Version(u8),
    /// The data ends early.
    #[error("the book is truncated")]
    Truncated,
    /// The checksum does not match the contents.
    #[error("the book is corrupted (checksum mismatch)")]
    Checksum,
    /// The build parameters are not valid.
    #[error("the book's parameters are not valid: {0}")]
    Params(String),
    /// The contents are inconsistent, described.
    #[error("the book is corrupted: {0}")]
    Corrupt(String),
    /// Memory for the entries could not be reserved.
    #[error("no memory for {0} book entries")]
    Memory(usize),
}

/// What a book holds and how it was valued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookParams {
    /// Every position of up to this many plies is in the book.
    pub all_plies: u8,
    /// The deepest ply: past `all_plies`, the positions the near-best moves lead to.
    pub plies: u8,
    /// The depth in plies of the search that values each position.
    pub depth: u8,
    /// A move is near-best (followed, and marked "book") within this many hundredths of a disc
    /// of the best.
    pub window: u16,
}

impl BookParams {
    /// The parameters of the book built into the program (docs/REVERSI.md, "Book").
    pub const STANDARD: BookParams = BookParams { all_plies: 6, plies: 10, depth: 14, window: 50 };

    /// Checks the parameters: `all_plies <= plies <= 40`, depth 1 to 30.
    ///
    /// ```
    /// use tabletop::games::reversi::book::BookParams;
    /// assert!(BookParams::STANDARD.check().is_ok());
    /// assert!(BookParams { all_plies: 5, plies: 4, depth: 6, window: 0 }.check().is_err());
    /// assert!(BookParams { all_plies: 1, plies: 4, depth: 0, window: 0 }.check().is_err());
    /// ```
    pub fn check(&self) -> Result<(), BookError> {
        if self.all_plies > self.plies || self.plies > 40 {
            return Err(BookError::Params(format!(
                "all plies {} and plies {}: need all plies <= plies <= 40",
                self.all_plies, self.plies
            )));
        }
        if !(1..=30).contains(&self.depth) {
            return Err(BookError::Params(format!("depth {}: need 1 to 30", self.depth)));
        }
        Ok(())
    }
}

/// One position of the book, in its canonical orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The discs of the side to move.
    pub player: u64,
    /// The discs of its opponent.
    pub opponent: u64,
    /// The value for the side to move: hundredths of a disc, or [`WON`] plus the disc
    /// difference once a result is proved.
    pub value: i32,
    /// The square index of a best move (the first best in square order).
    pub best: u8,
    /// The near-best moves (within the window of the best; the best among them).
    pub near: u64,
}

impl Entry {
    /// The canonical key: (player, opponent).
    fn key(&self) -> (u64, u64) {
        (self.player, self.opponent)
    }

    /// Plies from the start: the discs beyond the first four.
    pub fn ply(&self) -> u32 {
        (self.player | self.opponent).count_ones().saturating_sub(4)
    }
}

impl super::engine::BookMoves for Book {
    fn book_move(&self, position: &Reversi) -> Option<(ReversiMove, i32, u32)> {
        self.lookup(position).map(|hit| (hit.best, hit.value, hit.depth))
    }
}

/// What the book says about a position, in the position's own orientation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// A best move.
    pub best: ReversiMove,
    /// Its value for the side to move (hundredths of a disc, or [`WON`] plus the margin).
    pub value: i32,
    /// The near-best moves, in square order (the best among them).
    pub near: Vec<ReversiMove>,
    /// The depth of the search that valued it.
    pub depth: u32,
}

/// 64-bit FNV-1a, continuing from `hash`.
fn fnv(hash: u64, data: &[u8]) -> u64 {
    data.iter().fold(hash, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// FNV-1a's starting value.
const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// The identity of the engine whose values a book holds: a fingerprint of [`SEARCH_IDENTITY`],
/// the built-in pattern weights and the built-in ProbCut parameters. A book of another
/// identity still gives sound moves (an earlier engine's), but is no longer what a fresh search
/// finds: `tabletop book reversi` refuses to resume it, and the tests ask for a rebuild.
pub fn engine_identity() -> u64 {
    static IDENTITY: OnceLock<u64> = OnceLock::new();
    *IDENTITY.get_or_init(|| {
        let hash = fnv(FNV_START, SEARCH_IDENTITY.as_bytes());
        let hash = fnv(hash, &PatternWeights::builtin().to_bytes());
        fnv(hash, include_str!("../../../data/reversi/probcut.txt").as_bytes())
    })
}

/// The symmetry that maps (`p`, `o`) onto its canonical form (the least such).
fn canonical_symmetry(p: u64, o: u64) -> usize {
    (0..8).min_by_key(|&s| ((transform(p, s) as u128) << 64) | transform(o, s) as u128).unwrap_or(0)
}

/// An opening book (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    params: BookParams,
    identity: u64,
    complete: bool,
    /// Sorted by key, keys distinct.
    entries: Vec<Entry>,
}

impl Book {
    /// An empty book to be built with `params` by the current engine.
    pub fn new(params: BookParams) -> Result<Book, BookError> {
        params.check()?;
        Ok(Book { params, identity: engine_identity(), complete: false, entries: Vec::new() })
    }

    /// The book built into the program; an empty one if it did not pass the checks (which a
    /// test forbids).
    pub fn standard() -> &'static Book {
        static BOOK: OnceLock<Book> = OnceLock::new();
        BOOK.get_or_init(|| {
            Book::from_bytes(STANDARD).unwrap_or_else(|_| Book {
                params: BookParams::STANDARD,
                identity: 0,
                complete: false,
                entries: Vec::new(),
            })
        })
    }

    /// The parameters it was built with.
    pub fn params(&self) -> BookParams {
        self.params
    }

    /// The identity of the engine that built it ([`engine_identity`]).
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// Has every position of its parameters been valued?
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Is the book empty?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, sorted by their canonical key.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry of the canonical position (`player`, `opponent`), if held.
    fn get(&self, key: (u64, u64)) -> Option<&Entry> {
        self.entries.binary_search_by_key(&key, Entry::key).ok().map(|i| &self.entries[i])
    }

    /// Does the book hold `position` (or one of its images)?
    pub fn contains(&self, position: &Reversi) -> bool {
        let (p, o) = position.player_opponent();
        self.get(canonical(p, o)).is_some()
    }

    /// What the book says about `position`, found through whichever of its 8 images is
    /// stored, with the moves mapped back onto `position`.
    pub fn lookup(&self, position: &Reversi) -> Option<BookMove> {
        let (p, o) = position.player_opponent();
        if self.entries.is_empty() || (p | o).count_ones() > 4 + u32::from(self.params.plies) {
            return None;
        }
        let s = canonical_symmetry(p, o);
        let entry = self.get((transform(p, s), transform(o, s)))?;
        // The square whose image under `s` is the stored square.
        let back = |sq: usize| -> Option<ReversiMove> {
            let q = (0..64).find(|&q| transform(1u64 << q, s) == 1u64 << sq)?;
            Square::from_index(q).map(ReversiMove::Place)
        };
        let best = back(entry.best as usize)?;
        let mut near: Vec<ReversiMove> = Bits(entry.near).filter_map(back).collect();
        near.sort_by_key(|m| match m {
            ReversiMove::Place(sq) => sq.index(),
            ReversiMove::Pass => 64,
        });
        Some(BookMove { best, value: entry.value, near, depth: u32::from(self.params.depth) })
    }

    /// Lets a resumed build go deeper: the book's deepest ply becomes `plies`, not fewer than
    /// before; a deeper book is incomplete until built again.
    ///
    /// ```
    /// use tabletop::games::reversi::book::{Book, BookParams};
    /// let mut book = Book::new(BookParams { all_plies: 1, plies: 2, depth: 2, window: 0 }).unwrap();
    /// assert!(book.set_plies(3).is_ok() && book.params().plies == 3 && !book.is_complete());
    /// assert!(book.set_plies(2).is_err());
    /// ```
    pub fn set_plies(&mut self, plies: u8) -> Result<(), BookError> {
        if plies < self.params.plies {
            return Err(BookError::Params(format!("plies {plies}: the book already reaches {}", self.params.plies)));
        }
        let params = BookParams { plies, ..self.params };
        params.check()?;
        if plies > self.params.plies {
            self.complete = false;
        }
        self.params = params;
        Ok(())
    }

    /// Adds (or replaces) an entry, keeping the order.
    fn insert(&mut self, entry: Entry) {
        match self.entries.binary_search_by_key(&entry.key(), Entry::key) {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
    }

    /// The book in its file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_BYTES + ENTRY_BYTES * self.entries.len() + CHECKSUM_BYTES);
        out.extend_from_slice(MAGIC);
        let p = self.params;
        out.extend_from_slice(&[VERSION, u8::from(self.complete), p.all_plies, p.plies, p.depth, 0]);
        out.extend_from_slice(&p.window.to_le_bytes());
        out.extend_from_slice(&self.identity.to_le_bytes());
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.player.to_le_bytes());
            out.extend_from_slice(&e.opponent.to_le_bytes());
            out.extend_from_slice(&e.value.to_le_bytes());
            out.push(e.best);
            out.extend_from_slice(&e.near.to_le_bytes());
        }
        let sum = fnv(FNV_START, &out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book from its file format, checking everything (see the module documentation).
    ///
    /// ```
    /// use tabletop::games::reversi::book::{Book, BookError};
    /// let mut bytes = Book::standard().to_bytes();
    /// assert_eq!(&Book::from_bytes(&bytes).unwrap(), Book::standard());
    /// bytes[40] ^= 1;
    /// assert_eq!(Book::from_bytes(&bytes), Err(BookError::Checksum));
    /// ```
    pub fn from_bytes(data: &[u8]) -> Result<Book, BookError> {
        if data.len() < MAGIC.len() || &data[..MAGIC.len()] != MAGIC {
            return Err(BookError::Magic);
        }
        if data.len() < HEADER_BYTES + CHECKSUM_BYTES {
            return Err(BookError::Truncated);
        }
        if data[8] != VERSION {
            return Err(BookError::Version(data[8]));
        }
        let (body, sum) = data.split_at(data.len() - CHECKSUM_BYTES);
        if fnv(FNV_START, body).to_le_bytes() != sum {
            return Err(BookError::Checksum);
        }
        let u64_at = |at: usize| -> u64 {
            let mut b = [0u8; 8];
            b.copy_from_slice(&body[at..at + 8]);
            u64::from_le_bytes(b)
        };
        let flags = body[9];
        if flags > 1 || body[13] != 0 {
            return Err(BookError::Corrupt(format!("header bytes {flags:#x} and {:#x}", body[13])));
        }
        let params = BookParams {
            all_plies: body[10],
            plies: body[11],
            depth: body[12],
            window: u16::from_le_bytes([body[14], body[15]]),
        };
        params.check()?;
        let identity = u64_at(16);
        let count = u32::from_le_bytes([body[24], body[25], body[26], body[27]]) as usize;
        let expected = count.checked_mul(ENTRY_BYTES).and_then(|n| n.checked_add(HEADER_BYTES));
        match expected {
            Some(n) if n == body.len() => {}
            Some(n) if n > body.len() => return Err(BookError::Truncated),
            _ => {
                return Err(BookError::Corrupt(format!(
                    "{count} entries announced in {} bytes",
                    body.len() - HEADER_BYTES
                )))
            }
        }
        let mut entries: Vec<Entry> = Vec::new();
        entries.try_reserve_exact(count).map_err(|_| BookError::Memory(count))?;
        let max_discs = 4 + u32::from(params.plies);
        for (i, chunk) in body[HEADER_BYTES..].chunks_exact(ENTRY_BYTES).enumerate() {
            let read = |at: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&chunk[at..at + 8]);
                u64::from_le_bytes(b)
            };
            let e = Entry {
                player: read(0),
                opponent: read(8),
                value: i32::from_le_bytes([chunk[16], chunk[17], chunk[18], chunk[19]]),
                best: chunk[20],
                near: read(21),
            };
            let bad = |what: String| Err(BookError::Corrupt(format!("entry {i}: {what}")));
            if entries.last().is_some_and(|last| last.key() >= e.key()) {
                return bad("out of order".to_string());
            }
            let discs = (e.player | e.opponent).count_ones();
            if e.player & e.opponent != 0 || discs < 4 || discs > max_discs {
                return bad(format!("not a position of up to {} plies", params.plies));
            }
            if canonical(e.player, e.opponent) != e.key() {
                return bad("not in its canonical orientation".to_string());
            }
            let legal = moves(e.player, e.opponent);
            if e.best >= 64 || legal & (1u64 << e.best) == 0 || e.near & !legal != 0 || e.near & (1u64 << e.best) == 0 {
                return bad(format!("moves {} and {:#x} are not legal", e.best, e.near));
            }
            if e.value.checked_abs().is_none_or(|v| v > WON + 64) {
                return bad(format!("value {} out of range", e.value));
            }
            entries.push(e);
        }
        Ok(Book { params, identity, complete: flags == 1, entries })
    }
}

/// The canonical positions at `ply` that a book with `book`'s parameters holds: the start at
/// ply 0; then the children of the book's positions at `ply - 1`, all of them up to
/// `all_plies`, the near-best ones beyond. Positions where the side to move must pass, or the
/// game is over, are left out. Sorted, distinct. Needs every position of `ply - 1` in the book.
pub fn frontier(book: &Book, ply: u32) -> Vec<(u64, u64)> {
    if ply == 0 {
        let (p, o) = Reversi::new().player_opponent();
        return vec![canonical(p, o)];
    }
    if ply > u32::from(book.params.plies) {
        return Vec::new();
    }
    let all = ply <= u32::from(book.params.all_plies);
    let mut level: Vec<(u64, u64)> = Vec::new();
    for e in book.entries.iter().filter(|e| e.ply() + 1 == ply) {
        let followed = if all { moves(e.player, e.opponent) } else { e.near };
        for sq in Bits(followed) {
            let f = flips(e.player, e.opponent, sq);
            let (cp, co) = (e.opponent & !f, e.player | f | (1u64 << sq));
            if moves(cp, co) != 0 {
                level.push(canonical(cp, co));
            }
        }
    }
    level.sort_unstable();
    level.dedup();
    level
}

/// Values one canonical position for a book with `params`: a fresh search of every move to
/// `depth` plies (the engine's tables cleared first, so the values depend on the position and
/// the depth alone). The position must have a legal move.
pub fn value_position(engine: &mut Engine, key: (u64, u64), params: BookParams) -> Entry {
    let (p, o) = key;
    engine.clear();
    let position = Reversi::from_bitboards(p, o, Color::Black);
    let (values, _) = engine.move_values_to(&position, u32::from(params.depth));
    let square = |mv: &ReversiMove| match mv {
        ReversiMove::Place(sq) => sq.index() as u8,
        ReversiMove::Pass => 64,
    };
    // The first best in square order (the moves come in square order).
    let (mut best, mut value) = (64u8, i32::MIN);
    for (mv, v) in &values {
        if *v > value {
            (best, value) = (square(mv), *v);
        }
    }
    let near = values
        .iter()
        .filter(|(_, v)| i64::from(*v) >= i64::from(value) - i64::from(params.window))
        .fold(0u64, |acc, (mv, _)| acc | 1u64.checked_shl(u32::from(square(mv))).unwrap_or(0));
    Entry { player: p, opponent: o, value, best, near }
}

/// What [`build`] reports while it works.
pub enum BuildEvent<'a> {
    /// Work on a ply starts: `todo` positions to value, `held` already in the book.
    Ply {
        /// Plies from the start.
        ply: u32,
        /// Positions still to value.
        todo: usize,
        /// Positions of this ply already in the book (a resumed build).
        held: usize,
    },
    /// One more position is valued: the book so far (a chance to save it).
    Position(&'a Book),
}

/// Builds `book` further to its parameters, ply by ply, calling `progress` as it goes; each
/// position is valued by one of `engines` (one thread each: a fresh search per position, so the
/// book is the same on any number of threads, in any order); stops at `deadline` (the book is
/// then incomplete, and resumable: building it again continues where it stopped and gives the
/// same book as an uninterrupted build). Returns the book and whether it is complete, or the
/// first error of `progress`. `engines` must not be empty.
pub fn build<E>(
    mut book: Book,
    engines: &mut [Engine],
    deadline: Option<Instant>,
    progress: &mut dyn FnMut(BuildEvent<'_>) -> Result<(), E>,
) -> Result<(Book, bool), E> {
    let past_deadline = || deadline.is_some_and(|d| Instant::now() >= d);
    for ply in 0..=u32::from(book.params.plies) {
        let level = frontier(&book, ply);
        let todo: Vec<(u64, u64)> = level.iter().copied().filter(|&k| book.get(k).is_none()).collect();
        progress(BuildEvent::Ply { ply, todo: todo.len(), held: level.len() - todo.len() })?;
        let params = book.params;
        let next = AtomicUsize::new(0);
        let stopped = std::thread::scope(|scope| -> Result<bool, E> {
            let (sender, results) = mpsc::channel::<Entry>();
            for engine in engines.iter_mut() {
                let (sender, todo, next) = (sender.clone(), &todo, &next);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= todo.len() || past_deadline() {
                        break;
                    }
                    // The receiver only goes away when progress failed: stop then.
                    if sender.send(value_position(engine, todo[i], params)).is_err() {
                        break;
                    }
                });
            }
            drop(sender);
            for entry in results {
                book.insert(entry);
                if let Err(e) = progress(BuildEvent::Position(&book)) {
                    // Tell the workers to stop after their current position.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    return Err(e);
                }
            }
            Ok(past_deadline())
        })?;
        if stopped {
            book.complete = false;
            return Ok((book, false));
        }
    }
    book.complete = true;
    Ok((book, true))
}

/// How many positions a book holds at each ply (index: ply).
///
/// ```
/// use tabletop::games::reversi::book::{per_ply, Book};
/// let counts = per_ply(Book::standard());
/// assert_eq!(counts[0], 1);
/// assert_eq!(counts[1], 1); // the four first moves are images of one another
/// ```
pub fn per_ply(book: &Book) -> Vec<usize> {
    let mut counts = vec![0; usize::from(book.params.plies) + 1];
    for e in &book.entries {
        if let Some(c) = counts.get_mut(e.ply() as usize) {
            *c += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const SMALL: BookParams = BookParams { all_plies: 2, plies: 5, depth: 3, window: 60 };

    fn small_book() -> Book {
        let mut engine = Engine::new(None, None);
        let (book, complete) =
            build(Book::new(SMALL).unwrap(), std::slice::from_mut(&mut engine), None, &mut |_| Ok::<(), ()>(())).unwrap();
        assert!(complete && book.is_complete());
        book
    }

    /// Each sampled entry equals a fresh search of its position: the best value, a best move
    /// and the near-best moves of [`Engine::move_values_to`] at the book's depth.
    fn check_against_fresh_searches(book: &Book, samples: usize, seed: u64) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let params = book.params();
        for _ in 0..samples {
            let e = book.entries()[rng.gen_range(0..book.len())];
            let position = Reversi::from_bitboards(e.player, e.opponent, Color::Black);
            let (values, _) = Engine::new(None, None).move_values_to(&position, u32::from(params.depth));
            let best = values.iter().map(|v| v.1).max().unwrap();
            assert_eq!(e.value, best, "{position}");
            let value_of = |sq: u8| values.iter().find(|v| v.0.to_string() == Square::from_index(sq as usize).unwrap().to_string()).unwrap().1;
            assert_eq!(value_of(e.best), best, "{position}");
            for (mv, v) in &values {
                let ReversiMove::Place(sq) = mv else { panic!("a pass in the book") };
                let near = e.near & sq.bit() != 0;
                assert_eq!(near, *v >= best - i32::from(params.window), "{position} {mv}");
            }
        }
    }

    #[test]
    fn a_small_book_equals_fresh_searches() {
        let book = small_book();
        let counts = per_ply(&book);
        // Every position to ply 2 (1, 1, 3 up to symmetry), then the near-best ones.
        assert_eq!(&counts[..3], &[1, 1, 3]);
        assert!(counts[3] > 0 && counts[5] > 0, "{counts:?}");
        check_against_fresh_searches(&book, 12, 7);
        assert_eq!(Book::from_bytes(&book.to_bytes()).unwrap(), book);
    }

    #[test]
    fn the_shipped_book_is_valid_and_equals_fresh_searches() {
        let book = Book::from_bytes(STANDARD).expect("the shipped book passes the checks");
        assert!(book.is_complete());
        assert_eq!(book.params(), BookParams::STANDARD);
        assert_eq!(
            book.identity(),
            engine_identity(),
            "the engine changed since the book was built: build it again (docs/REVERSI.md, \"Book\")"
        );
        assert_eq!(per_ply(&book)[..3], [1, 1, 3]);
        check_against_fresh_searches(&book, 3, 11);
    }

    #[test]
    fn damaged_books_are_refused() {
        let bytes = small_book().to_bytes();
        for i in [9, 12, 20, 30, HEADER_BYTES + 5, bytes.len() / 2, bytes.len() - 9, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x04;
            assert_eq!(Book::from_bytes(&bad), Err(BookError::Checksum), "byte {i}");
        }
        assert_eq!(Book::from_bytes(&bytes[..bytes.len() - 1]), Err(BookError::Checksum));
        assert_eq!(Book::from_bytes(&bytes[..20]), Err(BookError::Truncated));
        assert_eq!(Book::from_bytes(b"TTRVBOOX"), Err(BookError::Magic));
        let mut version = bytes.clone();
        version[8] = 2;
        assert_eq!(Book::from_bytes(&version), Err(BookError::Version(2)));
        // Damage behind a correct checksum (a file written wrongly) is caught by the checks.
        let resum = |mut data: Vec<u8>| {
            data.truncate(data.len() - CHECKSUM_BYTES);
            let sum = fnv(FNV_START, &data);
            data.extend_from_slice(&sum.to_le_bytes());
            Book::from_bytes(&data)
        };
        let mut count = bytes.clone();
        count[24] = count[24].wrapping_add(1);
        assert_eq!(resum(count), Err(BookError::Truncated));
        let mut huge = bytes.clone();
        huge[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(resum(huge).is_err());
        let mut illegal = bytes.clone();
        illegal[HEADER_BYTES + 20] = 0; // a1 is never a legal move near the start
        assert!(matches!(resum(illegal), Err(BookError::Corrupt(_))));
        let mut order = bytes.clone();
        order[HEADER_BYTES..HEADER_BYTES + 2 * ENTRY_BYTES].rotate_left(ENTRY_BYTES);
        assert!(matches!(resum(order), Err(BookError::Corrupt(_))));
        let mut depth = bytes;
        depth[12] = 0;
        assert!(matches!(resum(depth), Err(BookError::Params(_))));
    }

    #[test]
    fn symmetric_images_are_found() {
        let book = small_book();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20 {
            let e = book.entries()[rng.gen_range(0..book.len())];
            for s in 0..8 {
                let (p, o) = (transform(e.player, s), transform(e.opponent, s));
                let image = Reversi::from_bitboards(o, p, Color::White);
                let hit = book.lookup(&image).expect("every image is found");
                assert_eq!(hit.value, e.value);
                // The best move leads to an image of the stored best move's position.
                let ReversiMove::Place(sq) = hit.best else { panic!("a pass") };
                let child = |p: u64, o: u64, sq: usize| {
                    let f = flips(p, o, sq);
                    canonical(o & !f, p | f | (1u64 << sq))
                };
                assert_eq!(child(p, o, sq.index()), child(e.player, e.opponent, e.best as usize));
                assert_eq!(hit.near.len(), e.near.count_ones() as usize);
                assert!(image.legal_placements().contains(&sq));
            }
        }
        // A position past the book is not found.
        let mut deep = Reversi::new();
        for mv in ["f5", "d6", "c3", "d3", "c4", "f4", "f6"] {
            deep.play_unchecked(deep.parse_move(mv).unwrap());
        }
        assert!(book.lookup(&deep).is_none());
    }

    #[test]
    fn the_engine_and_the_top_levels_play_the_book() {
        use crate::games::reversi::levels::{Level, LevelPlayer};
        use crate::games::reversi::players::make_player;
        use crate::{Player, Record};
        let book = Book::standard();
        let specs = ["engine", "engine:time=5s", "engine:depth=30", "engine:clock=10m", "engine:level=7", "engine:level=10"];
        let mut players: Vec<Box<dyn Player<Reversi>>> =
            specs.iter().map(|s| make_player(&s.parse().unwrap(), 1).unwrap()).collect();
        let mut record = Record::new(Reversi::new());
        for ply in 0..=u32::from(book.params().plies) {
            let Some(hit) = book.lookup(record.current()) else {
                assert!(ply > u32::from(book.params().all_plies), "ply {ply} not in the book");
                break;
            };
            // Without the book these would think for seconds (depth 30: far longer).
            let started = Instant::now();
            for (spec, player) in specs.iter().zip(&mut players) {
                assert_eq!(player.choose_move(&record), hit.best, "{spec} at ply {ply}");
            }
            assert!(started.elapsed().as_secs() < 2, "{:?}", started.elapsed());
            // Along the book: its last near-best move (another line than the best, often).
            record.play(*hit.near.last().unwrap()).unwrap();
        }
        assert!(record.moves().len() >= usize::from(book.params().all_plies));
        // The lower levels, and book=off, do not consult it.
        let level = |spec: &str| LevelPlayer::try_new(Level::parse(spec).unwrap(), 1, String::new()).unwrap();
        assert!(level("7").with_book(true).uses_book() && level("10").with_book(true).uses_book());
        assert!(!level("6").with_book(true).uses_book() && !level("8").with_book(false).uses_book());
        let off = make_player(&"engine:level=8,book=off".parse().unwrap(), 1).unwrap();
        assert_eq!(off.describe(), "engine:level=8,book=off");
    }

    #[test]
    fn a_resumed_build_equals_an_uninterrupted_one() {
        let whole = small_book();
        // Stopped ("killed") after 9 positions, with the file as last saved.
        let mut saved = Vec::new();
        let mut done = 0;
        let stopped = build(Book::new(SMALL).unwrap(), &mut [Engine::new(None, None)], None, &mut |event| {
            if let BuildEvent::Position(book) = event {
                done += 1;
                saved = book.to_bytes();
                if done == 9 {
                    return Err("killed");
                }
            }
            Ok(())
        });
        assert_eq!(stopped, Err("killed"));
        let partial = Book::from_bytes(&saved).unwrap();
        assert!(!partial.is_complete() && partial.len() == 9);
        // Resumed on two threads, with engines whose tables hold other searches.
        let mut engines = [Engine::new(None, None), Engine::new(None, None)];
        engines[0].analyse(&Reversi::new());
        let (resumed, complete) = build(partial, &mut engines, None, &mut |_| Ok::<(), ()>(())).unwrap();
        assert!(complete);
        assert_eq!(resumed.to_bytes(), whole.to_bytes());
        // A deadline already past stops at once, the book incomplete.
        let (book, complete) =
            build(Book::new(SMALL).unwrap(), &mut engines, Some(Instant::now()), &mut |_| Ok::<(), ()>(())).unwrap();
        assert!(!complete && book.is_empty());
    }
}
