//! Building opening books with the solver: the positions each side's book needs, ply by ply,
//! solved by worker threads sharing one transposition table, resumable and time-limited.
//!
//! Positions the solver cannot prove within the per-position time get the heuristic search's
//! move, stored as "not proven" (so that deeper plies follow it); [`BuildSettings::reprove`]
//! tries those again later, deepest first.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use tabletop::games::connect::book::{Book, BookSide};
//! use tabletop::games::connect::build::{build, BuildSettings};
//! use tabletop::games::connect::solver::{Solver, Table};
//! use tabletop::games::connect::{Connect, ConnectVariant};
//!
//! let v = ConnectVariant::connect3();
//! let table = Arc::new(Table::try_new(1 << 16, Solver::key_bits(v)).unwrap());
//! let settings = BuildSettings { sides: vec![BookSide::First], plies: 2, ..BuildSettings::default() };
//! let (book, complete) = build(Book::new(v).unwrap(), &settings, table, &|_| Ok::<(), ()>(())).unwrap();
//! assert!(complete);
//! assert!(book.lookup(&Connect::new(v)).is_some_and(|(_, score)| score.is_some()));
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::book::{frontier, Book, BookSide};
use super::engine::heuristic_search;
use super::rules::{Column, Connect};
use super::solver::{OutOfTime, Solver, Table};
use crate::game::Game;
use crate::search::Limits;

/// How to build (or extend) a book.
#[derive(Clone, Debug)]
pub struct BuildSettings {
    /// The sides whose moves the book holds.
    pub sides: Vec<BookSide>,
    /// Positions with up to this many stones.
    pub plies: usize,
    /// Worker threads sharing the table.
    pub threads: usize,
    /// The time the solver may spend on one position.
    pub position_time: Duration,
    /// Depth of the heuristic search for unproven positions.
    pub heuristic_depth: u32,
    /// Stop (the book stays resumable) at this instant.
    pub deadline: Option<Instant>,
    /// Try again to prove the unproven entries (deepest first), keeping each stored move when
    /// it is optimal, instead of adding new positions.
    pub reprove: bool,
}

impl Default for BuildSettings {
    /// Both sides to ply 12, two threads, 3 s per position, heuristic depth 10, no deadline.
    fn default() -> Self {
        BuildSettings {
            sides: vec![BookSide::First, BookSide::Second],
            plies: 12,
            threads: 2,
            position_time: Duration::from_secs(3),
            heuristic_depth: 10,
            deadline: None,
            reprove: false,
        }
    }
}

/// What [`build`] reports while it works.
pub enum BuildEvent<'a> {
    /// Work on `positions` positions of `ply` stones starts.
    Ply {
        /// Stones on the board.
        ply: usize,
        /// Positions to solve.
        positions: usize,
    },
    /// One more position is done.
    Position,
    /// The book so far, every 20 seconds: a chance to save it (errors are ignored).
    Checkpoint(&'a Book),
    /// A ply is complete (or the deadline passed): save the book (an error stops the build).
    PlyDone(&'a Book),
}

/// Builds `book` further as `settings` say, calling `progress` as it goes. Returns the book and
/// whether it is complete (`false` when the deadline stopped it), or the first error `progress`
/// returned for [`BuildEvent::PlyDone`].
pub fn build<E>(
    book: Book,
    settings: &BuildSettings,
    table: Arc<Table>,
    progress: &(dyn Fn(BuildEvent<'_>) -> Result<(), E> + Sync),
) -> Result<(Book, bool), E> {
    let v = book.variant();
    let book = Mutex::new(book);
    let past_deadline = || settings.deadline.is_some_and(|d| Instant::now() >= d);
    let plies: Vec<usize> =
        if settings.reprove { (0..=settings.plies).rev().collect() } else { (0..=settings.plies).collect() };
    for ply in plies {
        for &side in &settings.sides {
            let todo: Vec<Connect> = {
                let b = book.lock().expect("book lock");
                let wanted = |p: &Connect| match b.lookup(p) {
                    None => !settings.reprove,
                    Some((_, score)) => settings.reprove && score.is_none(),
                };
                frontier(&b, side, ply).into_iter().filter(|p| wanted(p)).collect()
            };
            if todo.is_empty() {
                continue;
            }
            progress(BuildEvent::Ply { ply, positions: todo.len() })?;
            let next = AtomicUsize::new(0);
            let last_save = Mutex::new(Instant::now());
            std::thread::scope(|scope| {
                for _ in 0..settings.threads.max(1) {
                    scope.spawn(|| {
                        let mut solver = Solver::with_table(v, table.clone());
                        let mut heuristic = heuristic_search();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= todo.len() || past_deadline() {
                                break;
                            }
                            let cap = Instant::now() + settings.position_time;
                            solver.set_deadline(Some(settings.deadline.map_or(cap, |d| d.min(cap))));
                            let p = &todo[i];
                            let entry = if settings.reprove {
                                let stored = book.lock().expect("book lock").lookup(p).map(|e| e.0);
                                reprove(&mut solver, p, stored).ok().map(|(col, score)| (col, Some(score)))
                            } else {
                                match solver.best_move(p) {
                                    Ok((col, score)) => Some((col, Some(score))),
                                    Err(_) if past_deadline() => break,
                                    Err(_) => {
                                        let r = heuristic.search(p, &[], Limits::depth(settings.heuristic_depth));
                                        Some((r.best_move.expect("a legal move"), None))
                                    }
                                }
                            };
                            let mut b = book.lock().expect("book lock");
                            if let Some((col, score)) = entry {
                                b.insert(p, col, score);
                            }
                            let _ = progress(BuildEvent::Position);
                            let mut saved = last_save.lock().expect("save lock");
                            if !settings.reprove && saved.elapsed() > Duration::from_secs(20) {
                                let _ = progress(BuildEvent::Checkpoint(&b));
                                *saved = Instant::now();
                            }
                        }
                    });
                }
            });
            progress(BuildEvent::PlyDone(&book.lock().expect("book lock")))?;
            if past_deadline() {
                return Ok((book.into_inner().expect("book lock"), false));
            }
        }
    }
    Ok((book.into_inner().expect("book lock"), true))
}

/// Proves an unproven entry: the exact score, and the stored move when it is optimal, else a
/// best move.
fn reprove(solver: &mut Solver, p: &Connect, stored: Option<Column>) -> Result<(Column, i32), OutOfTime> {
    let score = solver.try_solve(p, false)?;
    match stored {
        Some(col) if !p.is_winning_move(col.0 as usize) => {
            let mut child = p.clone();
            child.play_unchecked(col);
            if !solver.try_score_above(&child, -score)? {
                return Ok((col, score));
            }
        }
        Some(col) => return Ok((col, score)),
        None => {}
    }
    solver.best_move(p)
}

/// One line of a book's [`coverage`]: how many positions a side needs at a ply, how many the
/// book holds, and how many of those are proven.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// The side whose moves these are.
    pub side: BookSide,
    /// Stones on the board.
    pub ply: usize,
    /// Positions the book needs ([`frontier`]).
    pub needed: usize,
    /// Of those, positions the book holds.
    pub held: usize,
    /// Of those, positions with a proven score.
    pub proven: usize,
}

/// What `book` holds for each side, ply by ply (plies where a side needs nothing are left out).
///
/// ```
/// use tabletop::games::connect::book::{Book, BookSide};
/// use tabletop::games::connect::build::coverage;
/// let rows = coverage(&Book::standard());
/// assert_eq!((rows[0].side, rows[0].ply, rows[0].needed), (BookSide::First, 0, 1));
/// assert!(rows.iter().all(|r| r.proven <= r.held && r.held <= r.needed));
/// ```
pub fn coverage(book: &Book) -> Vec<Coverage> {
    let mut rows = Vec::new();
    for side in [BookSide::First, BookSide::Second] {
        for ply in 0..=book.plies() {
            let f = frontier(book, side, ply);
            if f.is_empty() {
                continue;
            }
            let held: Vec<_> = f.iter().filter_map(|p| book.lookup(p)).collect();
            let proven = held.iter().filter(|e| e.1.is_some()).count();
            rows.push(Coverage { side, ply, needed: f.len(), held: held.len(), proven });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::connect::ConnectVariant;

    /// `--side all`: every position of up to 4 stones of Connect Three, proven, so that
    /// [`complete_plies`](crate::games::connect::book::complete_plies) reaches 5 (a first-player
    /// book alone reaches 1: the second player's replies are missing).
    #[test]
    fn a_book_of_every_position_is_complete() {
        use crate::games::connect::book::complete_plies;
        let v = ConnectVariant::connect3();
        let table = Arc::new(Table::try_new(1 << 16, Solver::key_bits(v)).unwrap());
        let first = BuildSettings { sides: vec![BookSide::First], plies: 4, ..BuildSettings::default() };
        let (book, _) = build(Book::new(v).unwrap(), &first, table.clone(), &|_| Ok::<(), ()>(())).unwrap();
        assert_eq!(complete_plies(&book), 1);
        let all = BuildSettings { sides: vec![BookSide::All], plies: 4, ..BuildSettings::default() };
        let (book, complete) = build(book, &all, table, &|_| Ok::<(), ()>(())).unwrap();
        assert!(complete);
        assert_eq!(complete_plies(&book), 5);
        let mut solver = Solver::new(v, 1 << 16);
        let p = Connect::from_notation(&v, "12").unwrap();
        assert_eq!(book.lookup(&p).and_then(|e| e.1), Some(solver.solve(&p)));
    }

    #[test]
    fn a_small_book_is_proven_and_resumable() {
        let v = ConnectVariant::connect3();
        let table = Arc::new(Table::try_new(1 << 16, Solver::key_bits(v)).unwrap());
        let settings = BuildSettings { plies: 4, threads: 2, ..BuildSettings::default() };
        let (book, complete) = build(Book::new(v).unwrap(), &settings, table.clone(), &|_| Ok::<(), ()>(())).unwrap();
        assert!(complete && book.len() > 3 && book.proven() == book.len());
        // Every needed position is held and proven; building again adds nothing.
        assert!(coverage(&book).iter().all(|r| r.held == r.needed && r.proven == r.needed));
        let again = build(book.clone(), &settings, table.clone(), &|_| Ok::<(), ()>(())).unwrap().0;
        assert_eq!(again, book);
        // Reproving a proven book changes nothing either.
        let reproved = BuildSettings { reprove: true, ..settings };
        assert_eq!(build(book.clone(), &reproved, table, &|_| Ok::<(), ()>(())).unwrap().0, book);
    }

    #[test]
    fn a_past_deadline_stops_the_build() {
        let v = ConnectVariant::connect3();
        let table = Arc::new(Table::try_new(1 << 16, Solver::key_bits(v)).unwrap());
        let settings = BuildSettings { deadline: Some(Instant::now()), ..BuildSettings::default() };
        let saves = AtomicUsize::new(0);
        let progress = |e: BuildEvent<'_>| {
            if let BuildEvent::PlyDone(_) = e {
                saves.fetch_add(1, Ordering::Relaxed);
            }
            Ok::<(), ()>(())
        };
        let (book, complete) = build(Book::new(v).unwrap(), &settings, table, &progress).unwrap();
        assert!(!complete && book.is_empty());
        assert_eq!(saves.load(Ordering::Relaxed), 1);
    }
}
