//! Table slots that several search threads read and write at once, without locks: the
//! midgame search's table ([`engine`](super::engine)) and the endgame solver's
//! ([`solver`](super::solver)) are shared this way by the threads of one search.
//!
//! A slot is three 64-bit words written one by one: the position's two bitboards each xored
//! with the entry's data, and the data ("lockless hashing", as chess engines keep their
//! tables). A reader finds an entry only when both bitboards come back from the words it
//! read: a write of another thread half done (some words new, some old) reads as no entry,
//! never as a mixed one, so the key is checked in full and a probe never answers another
//! position's bounds.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One table entry: a position (`p`, `o`) and 64 bits of data, shared between threads.
///
/// ```
/// use tabletop::games::reversi::lockless::Slot;
/// let slot = Slot::default();
/// slot.set(0x10, 0x08, 42);
/// assert_eq!(slot.get(0x10, 0x08), Some(42));
/// assert_eq!(slot.get(0x10, 0x04), None);
/// ```
#[derive(Default)]
pub struct Slot {
    p: AtomicU64,
    o: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The data stored for the position, if this slot holds it (whole).
    #[inline]
    pub fn get(&self, p: u64, o: u64) -> Option<u64> {
        let data = self.data.load(Relaxed);
        (self.p.load(Relaxed) ^ data == p && self.o.load(Relaxed) ^ data == o).then_some(data)
    }

    /// The position and data the slot holds, without a check: for choosing which slot a new
    /// entry replaces (a write under way gives a wrong answer there, a harmless one).
    #[inline]
    pub fn peek(&self) -> (u64, u64, u64) {
        let data = self.data.load(Relaxed);
        (self.p.load(Relaxed) ^ data, self.o.load(Relaxed) ^ data, data)
    }

    /// Stores the position's entry.
    #[inline]
    pub fn set(&self, p: u64, o: u64, data: u64) {
        self.p.store(p ^ data, Relaxed);
        self.o.store(o ^ data, Relaxed);
        self.data.store(data, Relaxed);
    }

    /// Empties the slot (it then holds the empty board's entry with data 0, a position no
    /// search ever probes).
    #[inline]
    pub fn clear(&self) {
        self.set(0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_written_by_two_threads_at_once_answers_only_whole_entries() {
        // Two writers store two positions into one slot, each with data that says which
        // position it belongs to; a reader must never see one position's key with the
        // other's data.
        let slot = Slot::default();
        let (a, b) = ((0x0000_0018_1800_0000u64, 0x0000_0024_2400_0000u64), (0xFF00u64, 0x00FFu64));
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (mut hits, mut reads) = (0u64, 0u64);
        std::thread::scope(|scope| {
            for (key, tag) in [(a, 1u64), (b, 2u64)] {
                let (slot, stop) = (&slot, &stop);
                scope.spawn(move || {
                    let mut n = 0u64;
                    while !stop.load(Relaxed) {
                        n = n.wrapping_add(1);
                        // The data varies in every bit, so that torn reads are many.
                        slot.set(key.0, key.1, tag | n.wrapping_mul(0x9E37_79B9_7F4A_7C15) << 2);
                    }
                });
            }
            // Until enough whole entries were seen (the writers may start late on a busy
            // machine), within a minute.
            let started = std::time::Instant::now();
            while (hits < 10_000 || reads < 1_000_000) && started.elapsed() < std::time::Duration::from_secs(60) {
                reads += 1;
                if let Some(d) = slot.get(a.0, a.1) {
                    assert_eq!(d & 3, 1, "position a read with b's data");
                    hits += 1;
                }
                if let Some(d) = slot.get(b.0, b.1) {
                    assert_eq!(d & 3, 2, "position b read with a's data");
                    hits += 1;
                }
            }
            stop.store(true, Relaxed);
        });
        assert!(hits >= 10_000, "the reader saw only {hits} whole entries in {reads} reads");
    }
}
