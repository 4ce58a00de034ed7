//! Tournaments of computer players for every two-player game: who plays whom and with which
//! opening ([`schedule`]), the games played on worker threads and committed in order
//! ([`run`]), the results file a tournament appends to and resumes from ([`results`]), the
//! standings with Bradley-Terry ratings, the crosstable and the SPRT ([`standings`]), the
//! openings read from a file or drawn at random, and balanced openings found by analysis
//! ([`openings`]), and the standalone HTML report ([`report`]). Nothing here names a game: the
//! `tabletop tournament GAME` and `tabletop openings GAME` commands (`tools::tournament`) give
//! it the game's start, its players and its way of writing a game. docs/TOURNAMENTS.md has the
//! formats, the statistics and their sources.
//!
//! Results never depend on the number of threads: game `i`'s opening and players' seeds come
//! from the tournament's seed and `i` only, every game has fresh players, and results are
//! committed in the schedule's order (a player's withdrawal and the SPRT's stop are decided in
//! that order; games played past such a point are discarded).

pub mod openings;
pub mod report;
pub mod results;
pub mod run;
pub mod schedule;
pub mod standings;

pub use openings::{Opening, Openings};
pub use results::{GameResult, ResultsFile};
pub use run::{play_tournament, Event, GameInfo};
pub use schedule::{Format, ScheduledGame, Settings};
pub use standings::{SprtSummary, Standings};

/// One 64-bit value from two, well mixed (SplitMix64's finaliser): the seeds of game `i` and
/// of opening `k` are `mix(seed, i)` and the like, so they depend on nothing else.
///
/// ```
/// use tabletop::tournament::mix;
/// assert_ne!(mix(1, 2), mix(2, 1));
/// assert_eq!(mix(7, 3), mix(7, 3));
/// ```
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(b).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
