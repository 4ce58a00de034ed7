//! Openings: the positions games start from. A tournament takes them from a file (one
//! position a line in the game's notation, `#` comments and blank lines skipped), draws
//! random ones from its seed, or (for a game whose start holds chance, such as a shuffled bag)
//! deals a fresh start per opening from its seed; [`balanced`] finds random openings that a
//! short analysis values near zero (what `tabletop openings GAME` writes).

use std::collections::HashSet;
use std::ops::RangeInclusive;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::analysis::{AnalysisSettings, Analyze};
use crate::arena::random_opening;
use crate::game::{Game, Status};
use crate::record::Record;

/// Where a tournament's openings come from.
#[derive(Clone, Debug)]
pub enum Openings<G: Game> {
    /// Positions (from a file), used in turn: slot `k` plays position `k mod len`.
    Positions(Vec<G>),
    /// Random moves from `start`, their number drawn from `plies`, from the seed and the slot.
    Random {
        /// The position they start from.
        start: G,
        /// The number of random plies.
        plies: RangeInclusive<usize>,
    },
    /// A fresh start per slot, `deal(start, mix(seed, slot))`, with no moves played: for a
    /// game whose start holds chance (a shuffled bag, dealt hands), the deal is the opening.
    Deals {
        /// The start whose settings every deal keeps.
        start: G,
        /// The start of the same settings dealt from a seed.
        deal: fn(&G, u64) -> G,
    },
}

/// One opening: the start position and the moves played from it before the players move.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening<G: Game> {
    /// The position the game's record starts from.
    pub start: G,
    /// The moves already played.
    pub moves: Vec<G::Move>,
}

impl<G: Game> Opening<G> {
    /// The opening in words: the start's notation, then the moves, if any.
    pub fn text(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        match (self.start.notation(), moves.is_empty()) {
            (start, true) => format!("position {start:?}"),
            (start, false) => format!("position {start:?}, moves {}", moves.join(" ")),
        }
    }
}

/// Why an openings file was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    /// A line is not a position of the game.
    #[error("line {line}: {text:?} is not a position: {reason}")]
    BadLine {
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
        /// The notation's complaint.
        reason: String,
    },
    /// A line is a finished game.
    #[error("line {line}: {text:?} is a finished game")]
    Finished {
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// No positions at all.
    #[error("no positions (one a line, in the game's notation; # starts a comment)")]
    Empty,
}

/// Reads an openings file: one position a line in the game's notation; blank lines and lines
/// starting with `#` are skipped.
///
/// ```
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::tournament::openings::read_positions;
/// let v = ConnectVariant::connect4();
/// let positions = read_positions::<Connect>(&v, "# two openings\n44\n\n4453\n").unwrap();
/// assert_eq!(positions.len(), 2);
/// let err = read_positions::<Connect>(&v, "44\n49\n").unwrap_err();
/// assert!(err.to_string().starts_with("line 2: \"49\""), "{err}");
/// ```
pub fn read_positions<G: Game>(variant: &G::Variant, text: &str) -> Result<Vec<G>, OpeningsError> {
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let position = G::from_notation(variant, line).map_err(|e| OpeningsError::BadLine {
            line: i + 1,
            text: line.to_string(),
            reason: e.to_string(),
        })?;
        if !matches!(position.status(), Status::ToMove(_)) {
            return Err(OpeningsError::Finished { line: i + 1, text: line.to_string() });
        }
        positions.push(position);
    }
    if positions.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(positions)
}

impl<G: Game> Openings<G> {
    /// The opening of slot `slot` for the tournament seed `seed` (depends on nothing else).
    pub fn opening(&self, slot: usize, seed: u64) -> Opening<G> {
        match self {
            Openings::Positions(positions) => {
                Opening { start: positions[slot % positions.len()].clone(), moves: Vec::new() }
            }
            Openings::Random { start, plies } => {
                let mut rng = ChaCha8Rng::seed_from_u64(super::mix(seed, slot as u64));
                let n = rng.gen_range(plies.clone());
                Opening { start: start.clone(), moves: random_opening(start, n, &mut rng) }
            }
            Openings::Deals { start, deal } => {
                Opening { start: deal(start, super::mix(seed, slot as u64)), moves: Vec::new() }
            }
        }
    }

    /// Where the openings come from, for the results file's settings: the random plies, or
    /// the positions' count and a hash of their notations (FNV-1a).
    pub fn describe(&self) -> String {
        match self {
            Openings::Positions(positions) => {
                let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
                for byte in positions.iter().flat_map(|p| (p.notation() + "\n").into_bytes()) {
                    hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                }
                format!("{} positions, hash {hash:016x}", positions.len())
            }
            Openings::Random { plies, .. } => format!("random {}-{} plies", plies.start(), plies.end()),
            Openings::Deals { .. } => "a fresh deal per opening from the seed".to_string(),
        }
    }
}

/// How far from zero a balanced opening's value may be, in the game's analysis units (see
/// [`crate::analysis`]): one bound for estimates and one for exact values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    /// The largest absolute estimate.
    pub estimate: i32,
    /// The largest absolute exact value (0: exact draws only).
    pub exact: i32,
}

/// How [`balanced`] searches.
#[derive(Clone, Debug)]
pub struct BalancedSearch {
    /// Openings wanted.
    pub count: usize,
    /// The seed: try `t` draws its opening from `mix(seed, t)`.
    pub seed: u64,
    /// The number of random plies.
    pub plies: RangeInclusive<usize>,
    /// The analysis valuing each candidate (deterministic for the same settings).
    pub analysis: AnalysisSettings,
    /// The values kept.
    pub balance: Balance,
    /// Candidates tried at most.
    pub max_tries: usize,
}

/// Random openings from `start` whose best move a short analysis values near zero, without
/// duplicates: two positions with the same `key` (the game's least image under its symmetries,
/// or the exact position) count once. `progress` is told the openings found and the tries.
/// Stops after `max_tries` candidates with fewer openings if it must.
pub fn balanced<G: Analyze>(
    start: &G,
    search: &BalancedSearch,
    key: &dyn Fn(&G) -> u64,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<G> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for t in 0..search.max_tries {
        if found.len() >= search.count {
            break;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(super::mix(search.seed, t as u64));
        let n = rng.gen_range(search.plies.clone());
        let mut position = start.clone();
        for mv in random_opening(start, n, &mut rng) {
            position.play_unchecked(mv);
        }
        progress(found.len(), t + 1);
        if !matches!(position.status(), Status::ToMove(_)) || !seen.insert(key(&position)) {
            continue;
        }
        let analysis = G::analyze(&Record::new(position.clone()), search.analysis);
        let Some(best) = analysis.best() else { continue };
        let bound = if best.exact { search.balance.exact } else { search.balance.estimate };
        if best.score.abs() <= bound {
            found.push(position);
            progress(found.len(), t + 1);
        }
    }
    found
}
