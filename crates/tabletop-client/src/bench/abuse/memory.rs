//! What the abuse benchmark measures of memory: the server's (`/proc/PID/status`) and the
//! kernel's TCP buffers (`/proc/net/sockstat`, the whole host), sampled while the attacks run.

use std::time::{Duration, Instant};

/// The highest and last readings of a run, MiB.
pub(super) struct Samples {
    /// The highest VmHWM read.
    pub(super) peak_mib: f64,
    /// The last VmRSS read.
    pub(super) final_rss_mib: f64,
    /// The kernel's highest TCP memory (starting from the reading before the attacks).
    pub(super) tcp_peak_mib: f64,
}

/// Reads the memory of process `pid` and the kernel's TCP memory every 500 ms until `deadline`.
pub(super) async fn sample_until(pid: &str, tcp_memory_start: f64, deadline: Instant) -> Samples {
    let mut samples = Samples { peak_mib: 0.0, final_rss_mib: 0.0, tcp_peak_mib: tcp_memory_start };
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let (hwm, rss) = memory_of(pid);
        samples.peak_mib = samples.peak_mib.max(hwm);
        samples.final_rss_mib = rss;
        samples.tcp_peak_mib = samples.tcp_peak_mib.max(tcp_memory_mib());
    }
    samples
}

/// The kernel's TCP memory, MiB: `/proc/net/sockstat`'s `TCP: ... mem N` (pages of 4 KiB).
pub(super) fn tcp_memory_mib() -> f64 {
    let text = std::fs::read_to_string("/proc/net/sockstat").unwrap_or_default();
    let pages = text
        .lines()
        .find(|l| l.starts_with("TCP:"))
        .and_then(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.iter().position(|w| *w == "mem").and_then(|i| words.get(i + 1)).and_then(|n| n.parse::<f64>().ok())
        })
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

/// VmHWM and VmRSS of a process, in MiB.
pub(super) fn memory_of(pid: &str) -> (f64, f64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}
