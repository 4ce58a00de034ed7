//! Opening books: the exact score and a best move of positions near the start.
//!
//! Format (little-endian): the magic `TTC4`, a version byte (2), width, height, line length,
//! the deepest ply covered, a `u32` entry count, the entries as strictly increasing `u64`s,
//! and a 64-bit FNV-1a checksum of everything before it (version 1, as shipped, has no
//! checksum; both are checked for their sizes, order, columns and scores). An entry is
//! `key << 10 | (score + 32) << 4 | column`, where `key` is the smaller of the position's key
//! and its mirror image's key (Pons' key: the mover's stones plus every stone), and the column
//! (0-based) is a best move in that orientation. Keys must fit in 54 bits (7x6 uses 49).
//! A stored score of -32 means "not proven": the builder's solve ran out of its per-position
//! time, and the move is the heuristic search's choice (kept so that deeper plies follow it).
//!
//! ```
//! use tabletop::games::connect::book::Book;
//! use tabletop::games::connect::{Connect, ConnectVariant};
//! let book = Book::standard();
//! let start = Connect::new(ConnectVariant::connect4());
//! if let Some((column, _score)) = book.lookup(&start) {
//!     assert_eq!(column.0, 3); // the centre column
//! }
//! ```

use std::collections::BTreeMap;

use super::rules::{Column, Connect, ConnectVariant};
use crate::game::Game;

/// The stored score of an unproven entry.
const UNPROVEN: i8 = -32;

/// The 7x6 book shipped with the library.
static STANDARD: &[u8] = include_bytes!("../../../data/connect/book-7x6.bin");

/// Why a book could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookError {
    /// The data does not start with the magic and a known version.
    #[error("not a connect book (bad magic or version)")]
    Magic,
    /// The data ends early.
    #[error("the book is truncated")]
    Truncated,
    /// The board is too large for the book format.
    #[error("a {0} board is too large for a book")]
    TooLarge(ConnectVariant),
    /// The header names an unsupported board.
    #[error("the book's board is not valid: {0}")]
    Variant(String),
    /// The checksum does not match the contents.
    #[error("the book is corrupted (checksum mismatch)")]
    Checksum,
    /// The contents are inconsistent, described.
    #[error("the book is corrupted: {0}")]
    Corrupt(String),
}

/// 64-bit FNV-1a.
fn checksum(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// An opening book for one variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    variant: ConnectVariant,
    plies: u8,
    entries: BTreeMap<u64, (u8, i8)>,
}

/// The key of a position and whether it is the mirror image's key.
pub fn canonical_key(p: &Connect) -> (u64, bool) {
    let v = p.connect_variant();
    let key = p.key();
    let s = v.height() + 1;
    let col = (1u64 << s) - 1;
    let mut m = 0;
    for c in 0..v.width() {
        m |= ((key >> (c * s)) & col) << ((v.width() - 1 - c) * s);
    }
    if m < key {
        (m, true)
    } else {
        (key, false)
    }
}

impl Book {
    /// An empty book.
    pub fn new(variant: ConnectVariant) -> Result<Self, BookError> {
        if variant.width() * (variant.height() + 1) > 54 {
            return Err(BookError::TooLarge(variant));
        }
        Ok(Book { variant, plies: 0, entries: BTreeMap::new() })
    }

    /// The book shipped for standard 7x6 Connect Four.
    pub fn standard() -> Book {
        Book::from_bytes(STANDARD).unwrap_or_else(|_| Book::new(ConnectVariant::connect4()).expect("7x6 fits"))
    }

    /// The variant.
    pub fn variant(&self) -> ConnectVariant {
        self.variant
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Is the book empty?
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The deepest ply (stones on the board) of a position in the book.
    pub fn plies(&self) -> usize {
        self.plies as usize
    }

    /// A best move and the exact score of `p` (`None` when not proven), if the book has it.
    pub fn lookup(&self, p: &Connect) -> Option<(Column, Option<i32>)> {
        if p.connect_variant() != self.variant {
            return None;
        }
        let (key, mirrored) = canonical_key(p);
        let &(col, score) = self.entries.get(&key)?;
        let col = if mirrored { self.variant.width() as u8 - 1 - col } else { col };
        Some((Column(col), if score == UNPROVEN { None } else { Some(score as i32) }))
    }

    /// The number of proven entries.
    pub fn proven(&self) -> usize {
        self.entries.values().filter(|e| e.1 != UNPROVEN).count()
    }

    /// Does the book hold `p`?
    pub fn contains(&self, p: &Connect) -> bool {
        self.entries.contains_key(&canonical_key(p).0)
    }

    /// Adds (or replaces) `p` with its best move and exact score (`None`: not proven).
    pub fn insert(&mut self, p: &Connect, best: Column, score: Option<i32>) {
        let score = score.map_or(UNPROVEN, |s| s.clamp(-31, 31) as i8);
        let (key, mirrored) = canonical_key(p);
        let col = if mirrored { self.variant.width() as u8 - 1 - best.0 } else { best.0 };
        self.entries.insert(key, (col, score));
        self.plies = self.plies.max(p.moves_played() as u8);
    }

    /// The book in its file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16 + 8 * self.entries.len());
        out.extend_from_slice(b"TTC4");
        out.extend_from_slice(&[2, self.variant.width() as u8, self.variant.height() as u8, self.variant.line() as u8]);
        out.push(self.plies);
        out.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
        for (&key, &(col, score)) in &self.entries {
            let e = key << 10 | ((score as i64 + 32) as u64) << 4 | col as u64;
            out.extend_from_slice(&e.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a book from its file format, checking it: the checksum (version 2), the size, the
    /// order of the entries, their columns and scores.
    ///
    /// ```
    /// use tabletop::games::connect::book::{Book, BookError};
    /// let mut bytes = Book::standard().to_bytes();
    /// assert_eq!(Book::from_bytes(&bytes).unwrap(), Book::standard());
    /// bytes[20] ^= 1;
    /// assert_eq!(Book::from_bytes(&bytes), Err(BookError::Checksum));
    /// ```
    pub fn from_bytes(data: &[u8]) -> Result<Self, BookError> {
        if data.len() < 13 || &data[..4] != b"TTC4" || !matches!(data[4], 1 | 2) {
            return Err(BookError::Magic);
        }
        let version = data[4];
        let data = if version == 2 {
            let (body, sum) = data.split_at(data.len().saturating_sub(8).max(13));
            if sum.len() != 8 {
                return Err(BookError::Truncated);
            }
            if checksum(body).to_le_bytes() != sum {
                return Err(BookError::Checksum);
            }
            body
        } else {
            data
        };
        let variant = ConnectVariant::new(data[5] as usize, data[6] as usize, data[7] as usize)
            .map_err(|e| BookError::Variant(e.to_string()))?;
        let mut book = Book::new(variant)?;
        book.plies = data[8];
        let cells = variant.cells();
        if book.plies as usize > cells {
            return Err(BookError::Corrupt(format!("ply {} on a board of {cells} cells", book.plies)));
        }
        let count = u32::from_le_bytes([data[9], data[10], data[11], data[12]]) as u64;
        let body = &data[13..];
        match (body.len() as u64).cmp(&count.saturating_mul(8)) {
            std::cmp::Ordering::Less => return Err(BookError::Truncated),
            std::cmp::Ordering::Greater => {
                return Err(BookError::Corrupt(format!(
                    "{} bytes after {count} entries",
                    body.len() as u64 - count * 8
                )))
            }
            std::cmp::Ordering::Equal => {}
        }
        let key_bits = (variant.width() * (variant.height() + 1)) as u32;
        let max_score = (cells as i64 + 1) / 2;
        let mut previous = None;
        for chunk in body.chunks_exact(8) {
            let e = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            let (key, col, score) = (e >> 10, (e & 0xf) as u8, ((e >> 4) & 0x3f) as i64 - 32);
            if previous.is_some_and(|p| p >= e) {
                return Err(BookError::Corrupt("entries out of order".to_string()));
            }
            previous = Some(e);
            if key_bits < 54 && key >> key_bits != 0 {
                return Err(BookError::Corrupt(format!("key {key:#x} is not a position of {variant}")));
            }
            if col as usize >= variant.width() {
                return Err(BookError::Corrupt(format!(
                    "column {} on a board of {} columns",
                    col + 1,
                    variant.width()
                )));
            }
            if score != UNPROVEN as i64 && score.abs() > max_score {
                return Err(BookError::Corrupt(format!("score {score} beyond {max_score}")));
            }
            book.entries.insert(key, (col, score as i8));
        }
        Ok(book)
    }
}

/// Which side the book plays: the positions where that side is to move are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookSide {
    /// The first player, X: positions with an even number of stones.
    First,
    /// The second player, O: positions with an odd number of stones.
    Second,
    /// Every position, whoever is to move and whatever was played: with every position of
    /// plies `0..=n` proven, the book answers the exact analysis (every move's score) of every
    /// position of fewer than `n` stones.
    All,
}

/// The positions of `ply` stones the book needs for `side`: the side's moves are the book's
/// moves at earlier plies (which must be in the book), the other side's moves are all moves.
/// Finished positions are left out, and mirror images count once.
pub fn frontier(book: &Book, side: BookSide, ply: usize) -> Vec<Connect> {
    let first = match side {
        BookSide::First => 0,
        BookSide::Second => 1,
        BookSide::All => return every_position(book.variant(), ply),
    };
    if ply < first || (ply - first) % 2 == 1 {
        return Vec::new();
    }
    let v = book.variant();
    let start = Connect::new(v);
    let mut level: Vec<Connect> = if first == 0 {
        vec![start]
    } else {
        let mut seen = std::collections::HashSet::new();
        children(&start).into_iter().filter(|p| seen.insert(canonical_key(p).0)).collect()
    };
    let mut at = first;
    while at < ply {
        let mut next = Vec::new();
        for p in &level {
            let Some((col, _)) = book.lookup(p) else { continue };
            let mut after = p.clone();
            after.play_unchecked(col);
            if after.status().to_move().is_none() {
                continue;
            }
            next.extend(children(&after));
        }
        let mut seen = std::collections::HashSet::new();
        next.retain(|p| seen.insert(canonical_key(p).0));
        level = next;
        at += 2;
    }
    level
}

/// The most stones a book of [`BookSide::All`] is built to: every position is listed in
/// memory before it is solved, and 7x6 has 6.6 million of 12 stones after mirror merging.
pub const ALL_MAX_PLIES: usize = 12;

/// Every unfinished position of `ply` stones of `v`, mirror images once.
fn every_position(v: ConnectVariant, ply: usize) -> Vec<Connect> {
    let mut level = vec![Connect::new(v)];
    for _ in 0..ply {
        level = next_ply(&level);
    }
    level
}

/// The unfinished positions one stone after those of `level`, mirror images once.
fn next_ply(level: &[Connect]) -> Vec<Connect> {
    let mut seen = std::collections::HashSet::new();
    level.iter().flat_map(children).filter(|p| seen.insert(canonical_key(p).0)).collect()
}

/// How many plies from the empty board on the book holds completely: every unfinished
/// position of fewer stones is in it with a proven score (0 when the empty board is not).
///
/// ```
/// use tabletop::games::connect::book::{complete_plies, Book};
/// assert_eq!(complete_plies(&Book::standard()), 9);
/// ```
pub fn complete_plies(book: &Book) -> usize {
    let v = book.variant();
    let mut level = vec![Connect::new(v)];
    for ply in 0..=book.plies() {
        if !level.iter().all(|p| book.lookup(p).is_some_and(|(_, score)| score.is_some())) {
            return ply;
        }
        // The level past the book's deepest ply is never looked up: not built (it is the
        // largest: some 280,000 positions past a book of eight stones).
        if ply < book.plies() {
            level = next_ply(&level);
        }
    }
    book.plies() + 1
}

fn children(p: &Connect) -> Vec<Connect> {
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    moves
        .into_iter()
        .map(|m| {
            let mut c = p.clone();
            c.play_unchecked(m);
            c
        })
        .filter(|c| c.status().to_move().is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_book_passes_the_checks() {
        let book = Book::from_bytes(STANDARD).expect("the shipped book is valid");
        assert!(book.len() > 1000 && book.plies() == 12, "{} entries to ply {}", book.len(), book.plies());
        assert_eq!(Book::from_bytes(&book.to_bytes()).unwrap(), book);
    }

    #[test]
    fn corrupted_books_are_refused() {
        let bytes = Book::standard().to_bytes();
        // Every single flipped bit of the body is caught by the checksum.
        for i in [9, 13, 100, bytes.len() - 9, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert_eq!(Book::from_bytes(&bad), Err(BookError::Checksum), "byte {i}");
        }
        assert_eq!(Book::from_bytes(&bytes[..bytes.len() - 3]), Err(BookError::Checksum));
        assert_eq!(Book::from_bytes(&bytes[..14]), Err(BookError::Truncated));
        // Version 1 (no checksum): sizes, order and columns are checked.
        let v1 = |entries: &[u64], count: u32| {
            let mut out = b"TTC4\x01\x07\x06\x04\x02".to_vec();
            out.extend_from_slice(&count.to_le_bytes());
            entries.iter().for_each(|e| out.extend_from_slice(&e.to_le_bytes()));
            Book::from_bytes(&out)
        };
        let entry = |key: u64, score: i64, col: u64| key << 10 | ((score + 32) as u64) << 4 | col;
        assert!(v1(&[entry(5, 1, 3), entry(9, -2, 2)], 2).is_ok());
        assert_eq!(v1(&[entry(5, 1, 3)], 2), Err(BookError::Truncated));
        assert!(matches!(v1(&[entry(5, 1, 3), entry(9, 1, 3)], 1), Err(BookError::Corrupt(_))));
        assert!(matches!(v1(&[entry(9, 1, 3), entry(5, 1, 3)], 2), Err(BookError::Corrupt(_))));
        assert!(matches!(v1(&[entry(5, 1, 7)], 1), Err(BookError::Corrupt(_))));
        assert!(matches!(v1(&[entry(5, 30, 1)], 1), Err(BookError::Corrupt(_))));
        assert!(matches!(v1(&[entry(1 << 50, 1, 1)], 1), Err(BookError::Corrupt(_))));
    }
}
