//! The scheduling attack: one address running many games against a computer thinking a second
//! a move, moving at once whenever its turn comes, so its computer moves queue up while the
//! ordinary people time their replies.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::long_thinking::long_thinker;
use super::{AbuseReport, Clients, Statuses};
use crate::scenarios;

/// Starts `games` games from `127.0.0.10` until `deadline`.
pub(super) fn start(addr: SocketAddr, games: usize, deadline: Instant) -> Clients<u64> {
    let statuses = Arc::new(Mutex::new(Statuses::new()));
    let tasks = (0..games)
        .map(|_| {
            let from = Ipv4Addr::new(127, 0, 0, 10);
            tokio::spawn(long_thinker(addr, from, scenarios::second_a_move(), deadline, statuses.clone()))
        })
        .collect();
    Clients { tasks, statuses }
}

/// Reports what creating the games was answered and the computer moves seen.
pub(super) async fn finish(games: Clients<u64>, report: &mut AbuseReport) {
    let (moves, statuses) = games.join().await;
    report.scheduling_computer_moves = moves.into_iter().fold(0, u64::saturating_add);
    report.scheduling_create_statuses = statuses;
}
