//! Mathable's openings for tournaments: an opening is a deal, the start of the tournament's
//! settings with its own bag seed (the racks dealt and the order of every later draw). A
//! tournament deals a fresh one per opening from its seed, or reads them from a file
//! ([`read_openings`]: one a line, the start's save JSON or `seed N`); [`balanced_deals`] finds
//! deals on which the first player has no measured advantage (what `tabletop openings mathable`
//! writes). docs/TOURNAMENTS.md, "Mathable", has the measure.

use std::collections::HashSet;

use super::matches::Bounded;
use super::rules::Mathable;
use super::save::SaveState;
use super::settings::Settings;
use crate::game::{Game, Seat, Status};
use crate::players::Player;
use crate::tournament::mix;
use crate::tournament::openings::OpeningsError;

/// The start of `start`'s settings dealt from `seed` (the tournament's deals: see
/// [`crate::tournament::Openings::Deals`]).
///
/// ```
/// use tabletop::games::mathable::openings::deal;
/// use tabletop::games::mathable::{Mathable, Preset, Settings};
/// use tabletop::Game;
/// let start = Mathable::start(&Settings::preset(Preset::Simple));
/// let dealt = deal(&start, 7);
/// assert_eq!(dealt, Mathable::start(&Settings::preset(Preset::Simple).with_seed(7)));
/// assert_ne!(dealt, deal(&start, 8));
/// ```
pub fn deal(start: &Mathable, seed: u64) -> Mathable {
    // The settings are a game's, so valid: the fallback is never taken.
    Mathable::new(&start.settings().with_seed(seed)).unwrap_or_else(|_| start.clone())
}

/// Two settings that differ at most in the seed.
fn same_but_seed(a: &Settings, b: &Settings) -> bool {
    a.with_seed(0) == b.with_seed(0)
}

/// Reads an openings file for a tournament of `settings`: one opening a line, either `seed N`
/// (the deal of `settings` with the bag seed N; a bare number too) or a position in Mathable's
/// notation (its save JSON on one line, as `tabletop openings mathable` writes; its settings
/// must be the tournament's but for the seed). Blank lines and lines starting with `#` are
/// skipped.
///
/// ```
/// use tabletop::games::mathable::openings::read_openings;
/// use tabletop::games::mathable::{Preset, Settings};
/// use tabletop::Game;
/// let settings = Settings::preset(Preset::Simple);
/// let deals = read_openings(&settings, "# two deals\nseed 5\n\n12\n").unwrap();
/// assert_eq!(deals.len(), 2);
/// let again = read_openings(&settings, &format!("{}\n", deals[0].notation())).unwrap();
/// assert_eq!(again[0], deals[0]);
/// let err = read_openings(&settings, "seed 5\nseed five\n").unwrap_err();
/// assert!(err.to_string().starts_with("line 2: \"seed five\" is not a position"), "{err}");
/// ```
pub fn read_openings(settings: &Settings, text: &str) -> Result<Vec<Mathable>, OpeningsError> {
    let start = Mathable::start(settings);
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason: String| OpeningsError::BadLine { line: i + 1, text: line.to_string(), reason };
        let seed = line.strip_prefix("seed").unwrap_or(line).trim();
        let game = if line.starts_with('{') {
            let game = SaveState::from_json(line).and_then(|s| s.to_game()).map_err(|e| bad(e.to_string()))?;
            if !same_but_seed(game.settings(), settings) {
                return Err(bad(format!(
                    "its settings ({}) are not the tournament's ({}) but for the seed: give the same game options",
                    describe(game.settings()),
                    describe(settings)
                )));
            }
            game
        } else if let Ok(seed) = seed.parse::<u64>() {
            deal(&start, seed)
        } else {
            return Err(bad("expected `seed N` or a position (Mathable's save JSON on one line)".to_string()));
        };
        if !matches!(game.status(), Status::ToMove(_)) {
            return Err(OpeningsError::Finished { line: i + 1, text: line.to_string() });
        }
        openings.push(game);
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(openings)
}

/// The settings in words (without the seed).
pub fn describe(s: &Settings) -> String {
    format!(
        "{}x{} board, {} players, rack {}, {} tokens, {} squares, {} operations, bonus {}, deductions {}",
        s.size,
        s.size,
        s.players,
        s.rack,
        s.tokens,
        s.layout,
        s.operations,
        s.bonus,
        if s.deductions { "on" } else { "off" }
    )
}

/// The first seat's margin (its score minus the second seat's) when `judge` plays both seats
/// of `start` to the end (two copies built with the same seed), and every seat's score.
pub fn self_play_margin(start: &Mathable, judge: &dyn Fn() -> Box<dyn Player<Mathable>>) -> i32 {
    let (mut a, mut b) = (Bounded(judge()), Bounded(judge()));
    let finished = crate::arena::play_timed(start, &[], &mut [&mut a, &mut b], &[], |_, _, _| {});
    let end = finished.record.current();
    end.score(Seat(0)) - end.score(Seat(1))
}

/// One balanced deal.
#[derive(Clone, Debug, PartialEq)]
pub struct BalancedDeal {
    /// Its bag seed.
    pub seed: u64,
    /// The start.
    pub start: Mathable,
    /// The first seat's margin in the judge's self-play.
    pub margin: i32,
}

/// Deals of `settings` (two players) on which `judge`, playing both seats, ends within
/// `max_margin` points: try `t` deals the seed `mix(seed, t)`; two deals with the same racks
/// and bag (the same position hash) count once. Stops after `max_tries` deals with fewer if it
/// must; `progress` is told the deals found and tried.
pub fn balanced_deals(
    settings: &Settings,
    count: usize,
    seed: u64,
    max_margin: i32,
    max_tries: usize,
    judge: &dyn Fn() -> Box<dyn Player<Mathable>>,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<BalancedDeal> {
    let start = Mathable::start(settings);
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for t in 0..max_tries {
        if found.len() >= count {
            break;
        }
        let seed = mix(seed, t as u64);
        let dealt = deal(&start, seed);
        progress(found.len(), t + 1);
        if !seen.insert(dealt.hash()) {
            continue;
        }
        let margin = self_play_margin(&dealt, judge);
        if margin.abs() <= max_margin {
            found.push(BalancedDeal { seed, start: dealt, margin });
            progress(found.len(), t + 1);
        }
    }
    found
}
