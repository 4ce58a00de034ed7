//! Cooperative cancellation of long searches from another thread.
//!
//! A server that thinks for a game must be able to stop when the game is resigned, undone or
//! evicted. Rather than thread a flag through every engine's API, the caller runs the engine
//! inside [`run_cancellable`]; every search's periodic deadline check also asks [`cancelled`],
//! and a cancelled search stops as if its time were up (it still returns a legal move when it has
//! one). Outside [`run_cancellable`] nothing is ever cancelled.
//!
//! ```
//! use tabletop::cancel::{cancelled, run_cancellable, CancelFlag};
//! let flag = CancelFlag::new();
//! assert!(!run_cancellable(&flag, cancelled));
//! flag.cancel();
//! assert!(run_cancellable(&flag, cancelled));
//! assert!(!cancelled()); // only inside run_cancellable
//! ```

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag shared between the thread that searches and the one that may cancel it.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A flag not yet raised.
    pub fn new() -> Self {
        CancelFlag::default()
    }

    /// Asks the search running under this flag to stop as soon as it next checks.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Is `other` this very flag (a clone of it), rather than another one?
    pub fn is_same(&self, other: &CancelFlag) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Has [`CancelFlag::cancel`] been called?
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<CancelFlag>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread with `flag` as the flag [`cancelled`] reads.
pub fn run_cancellable<R>(flag: &CancelFlag, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<CancelFlag>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| *c.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(flag.clone())));
    work()
}

/// The flag [`cancelled`] reads on this thread, if any: a search that spawns threads hands it
/// to them with [`run_cancellable`].
pub fn current() -> Option<CancelFlag> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Has the search running on this thread been cancelled? False outside [`run_cancellable`].
#[inline]
pub fn cancelled() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(CancelFlag::is_cancelled))
}
