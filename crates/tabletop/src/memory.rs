//! Memory for the solvers' large transposition tables.
//!
//! A table probe is a random access into hundreds of megabytes: with 4 KB pages nearly every
//! one also misses the TLB, and a miss to memory costs as much as hundreds of instructions.
//! Huge pages for the tables remove most of the TLB misses; they are a hint that changes no
//! contents. [`prefetch`] asks for a probe's cache line ahead of the probe.
//!
//! Tables are allocated fallibly ([`try_large_vec`]): a size that the address space or the
//! system refuses is an error ([`TableAllocError`]) that front ends report, not an abort.
//!
//! ```
//! use tabletop::memory::try_large_vec;
//! let table = try_large_vec(1 << 10, || 0u64).unwrap();
//! assert_eq!(table.len(), 1024);
//! let err = try_large_vec(1 << 60, || 0u64).unwrap_err();
//! assert!(err.to_string().starts_with("cannot allocate a table of "));
//! ```

use std::fmt;

/// A table could not be allocated: its size overflows the address space, or the allocator
/// refused it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot allocate a table of {} MiB: {reason}", Mib(*.bytes))]
pub struct TableAllocError {
    /// The size asked for in bytes (entries times the size of one; exact, even beyond `usize`).
    pub bytes: u128,
    /// Why it failed.
    pub reason: String,
}

/// Whole mebibytes, rounded up (so a refused table never reads as "0 MiB").
struct Mib(u128);

impl fmt::Display for Mib {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.div_ceil(1 << 20))
    }
}

/// A vector of `len` values made by `make`, allocated fallibly: an error when `len` times the
/// size of `T` overflows the address space or the allocator refuses the memory. On Linux, huge
/// pages are asked for before the memory is first touched, when it is large enough to matter.
///
/// Note that on systems that overcommit memory, an allocation that succeeds may still fail
/// when touched; front ends should bound sizes by [`available_memory`] as well.
pub fn try_large_vec<T>(len: usize, make: impl FnMut() -> T) -> Result<Vec<T>, TableAllocError> {
    let exact = len as u128 * std::mem::size_of::<T>() as u128;
    let bytes = len
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| TableAllocError { bytes: exact, reason: "the size exceeds the address space".into() })?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|e| TableAllocError { bytes: exact, reason: e.to_string() })?;
    advise_huge_pages(v.as_ptr() as usize, bytes);
    v.resize_with(len, make);
    Ok(v)
}

/// The memory the system says is available for new allocations without swapping, in bytes
/// (Linux: `MemAvailable` of `/proc/meminfo`); `None` where it is not known.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&text)
}

/// An error when a table of `bytes` bytes is more than the memory available now
/// ([`available_memory`]; nothing is checked where that is unknown). Front ends call this
/// before allocating a table whose size a user chose: on systems that overcommit memory, an
/// allocation larger than the free memory may succeed and only fail (or invite the
/// out-of-memory killer) when it is filled.
///
/// ```
/// use tabletop::memory::ensure_available;
/// assert!(ensure_available(1 << 20).is_ok());
/// assert!(ensure_available(u64::MAX).is_err());
/// ```
pub fn ensure_available(bytes: u64) -> Result<(), TableAllocError> {
    match available_memory() {
        Some(free) if bytes > free => Err(TableAllocError {
            bytes: bytes.into(),
            reason: format!("only {} MiB of memory is available", free >> 20),
        }),
        _ => Ok(()),
    }
}

/// The `MemAvailable:` line of a `/proc/meminfo` text, in bytes.
fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let kib: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => kib.checked_mul(1024),
        _ => None,
    }
}

/// Asks the processor to bring the cache line of `value` in ahead of its use: a table probe
/// that would stall on memory finds it in the cache when enough work comes between. A hint
/// that changes nothing else (a no-op off x86-64).
///
/// ```
/// let table = vec![0u64; 1 << 16];
/// tabletop::memory::prefetch(&table[12_345]);
/// assert_eq!(table[12_345], 0);
/// ```
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and never changes memory; the address comes from a
    // reference. Measured: the Reversi engine's children's buckets fetched while a node
    // orders its moves made its midgame search about 9% faster for the same nodes (the
    // endgame solver gained nothing measurable); see docs/REVERSI.md.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    const PAGE: usize = 4096;
    if bytes < 1 << 22 {
        return;
    }
    // madvise takes whole pages: from the allocation's first aligned page.
    let aligned = start.div_ceil(PAGE) * PAGE;
    let end = start + bytes;
    if aligned < end {
        // SAFETY: the range lies inside an allocation of ours that nothing reads yet; the
        // advice changes no contents. Measured: Reversi's FFO #40-#49 ran 9% faster with it.
        // A failure (no transparent huge pages) only costs speed, so the result is ignored.
        unsafe { libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_vectors_hold_their_value() {
        let v = try_large_vec(3 << 20, || 7u16).unwrap();
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().all(|&x| x == 7));
        assert_eq!(try_large_vec(0, || 1u8).unwrap(), Vec::<u8>::new());
    }

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        // 2^60 entries of 8 bytes: the product overflows a 64-bit usize.
        let e = try_large_vec(1usize << 60, || 0u64).unwrap_err();
        assert_eq!(e.bytes, 1u128 << 63);
        assert_eq!(e.to_string(), "cannot allocate a table of 8796093022208 MiB: the size exceeds the address space");
        // usize::MAX one-byte entries: beyond isize::MAX.
        assert!(try_large_vec(usize::MAX, || 0u8).is_err());
        // 2^59 entries of 8 bytes (4 EiB) is a valid size, but beyond any virtual address space
        // (even with overcommit): the allocator refuses it.
        let e = try_large_vec(1usize << 59, || 0u64).unwrap_err();
        assert_eq!(e.bytes, 1u128 << 62);
        assert!(
            e.to_string().starts_with("cannot allocate a table of 4398046511104 MiB: memory allocation failed"),
            "{e}"
        );
    }

    #[test]
    fn mem_available_is_read_from_meminfo() {
        let text = "MemTotal:       16314420 kB\nMemFree:  1 kB\nMemAvailable:    8000 kB\n";
        assert_eq!(parse_mem_available(text), Some(8000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: x kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: 18446744073709551615 kB\n"), None);
    }
}
