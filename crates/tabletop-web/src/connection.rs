//! What the server holds per connection, bounded: how many connections and event streams one
//! client address may hold ([`PerAddress`]), and how long a write may wait for a client that
//! stopped reading ([`WriteDeadline`]), so that a slow or dead reader is closed instead of
//! holding its buffers (and the kernel's) without end.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Counts of something held per key (a client address, a game), each at most `cap`.
#[derive(Debug)]
pub struct PerAddress<K: Hash + Eq + Clone> {
    counts: Mutex<HashMap<K, usize>>,
    cap: usize,
}

/// One unit held in a [`PerAddress`] count, given back when dropped.
#[derive(Debug)]
pub struct Held<K: Hash + Eq + Clone> {
    owner: Arc<PerAddress<K>>,
    key: K,
}

impl<K: Hash + Eq + Clone> PerAddress<K> {
    /// Counts capped at `cap` per key.
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(PerAddress { counts: Mutex::new(HashMap::new()), cap: cap.max(1) })
    }

    /// One more for `key`, unless it holds `cap` already.
    ///
    /// ```
    /// use tabletop_web::connection::PerAddress;
    /// let counts = PerAddress::new(2);
    /// let a = counts.try_hold("a").unwrap();
    /// let _b = counts.try_hold("a").unwrap();
    /// assert!(counts.try_hold("a").is_none());
    /// assert!(counts.try_hold("b").is_some()); // another key has its own count
    /// drop(a);
    /// assert!(counts.try_hold("a").is_some());
    /// ```
    pub fn try_hold(self: &Arc<Self>, key: K) -> Option<Held<K>> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(key.clone()).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(Held { owner: self.clone(), key })
    }
}

impl<K: Hash + Eq + Clone> Drop for Held<K> {
    fn drop(&mut self) {
        let mut counts = self.owner.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.key); // the map holds only keys in use
            }
        }
    }
}

/// A connection whose writes fail with `TimedOut` once one has waited `limit` for the client to
/// read (the socket's buffer full all that time).
pub struct WriteDeadline<S> {
    inner: S,
    limit: Duration,
    /// Armed while a write waits; it wakes the connection at the deadline.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> WriteDeadline<S> {
    /// `inner` with writes limited to waiting `limit`.
    pub fn new(inner: S, limit: Duration) -> Self {
        WriteDeadline { inner, limit, stalled: None }
    }

    /// After a write that could not proceed: the error once the wait is over `limit`.
    fn pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let limit = self.limit;
        let sleep = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client stopped reading"))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Pending => self.pending(cx).map(|r| r.map(|()| 0)),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Pending => self.pending(cx).map(|r| r.map(|()| 0)),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Pending => self.pending(cx),
            ready => {
                self.stalled = None;
                ready
            }
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
