//! The conformance suite that every game runs.
//!
//! [`check_playouts`] plays seeded random games and checks, at every node:
//! - the legal moves equal an independent brute-force check of every candidate move
//!   ([`Conformance::candidate_moves`] filtered by [`Conformance::reference_is_legal`]), with no
//!   duplicates;
//! - checked play accepts every legal move and refuses every other candidate without changing
//!   the position;
//! - playing a move on a copy leaves the original (and its hash) untouched, and the incremental
//!   hash after the move equals the hash recomputed from scratch;
//! - move notation and position notation round-trip;
//! - undo in a [`Record`] walks back through exactly the positions played;
//! - the game's own invariants hold ([`Conformance::check_invariants`]).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::game::{Game, Status};
use crate::record::Record;

/// What a game provides so that the generic suite can check it.
pub trait Conformance: Game {
    /// Every move the move notation can name in this position's variant, legal or not.
    fn candidate_moves(&self) -> Vec<Self::Move>;
    /// An independent, deliberately simple check of legality, written straight from the rules
    /// (not sharing code with the fast move generator).
    fn reference_is_legal(&self, mv: Self::Move) -> bool;
    /// Game-specific invariants (token conservation, disc counts); an error says what broke.
    fn check_invariants(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Totals from a run of the suite, so tests can assert it really explored. Reports add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Positions checked.
    pub positions: u64,
    /// Legal moves played and checked.
    pub moves: u64,
    /// Games played to the end.
    pub finished_games: u64,
}

impl std::ops::Add for Report {
    type Output = Report;

    fn add(self, other: Report) -> Report {
        Report {
            positions: self.positions + other.positions,
            moves: self.moves + other.moves,
            finished_games: self.finished_games + other.finished_games,
        }
    }
}

/// Plays `games` random games from `start` (each at most `max_plies` plies) with a generator
/// seeded by `seed`, checking every node. Panics with a description of the first failure, so it
/// is meant for tests.
pub fn check_playouts<G: Conformance>(start: &G, games: usize, max_plies: usize, seed: u64) -> Report {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut report = Report::default();
    let mut moves = Vec::new();
    for game in 0..games {
        let mut record = Record::new(start.clone());
        for ply in 0..max_plies {
            let position = record.current();
            let context = format!("game {game}, ply {ply}, position {}", position.notation());
            check_position(position, &mut moves, &mut report).unwrap_or_else(|e| panic!("{context}: {e}"));
            if record.status().to_move().is_none() {
                report.finished_games += 1;
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            record.play(mv).unwrap_or_else(|e| panic!("{context}: legal move {mv} refused: {e}"));
        }
        // Undo takes the game back through exactly the positions it went through.
        let positions = record.positions().to_vec();
        for expected in positions.iter().rev().skip(1) {
            record.undo();
            assert!(
                record.current() == expected && record.current().hash() == expected.hash(),
                "game {game}: undo did not restore the position"
            );
        }
        assert!(record.undo().is_none() && record.current() == start, "game {game}: undo past the start");
    }
    report
}

/// Checks one position: every property listed in the module documentation.
pub fn check_position<G: Conformance>(
    position: &G,
    moves: &mut Vec<G::Move>,
    report: &mut Report,
) -> Result<(), String> {
    report.positions += 1;
    if position.hash() != position.recompute_hash() {
        return Err(format!("incremental hash {:#x} != recomputed {:#x}", position.hash(), position.recompute_hash()));
    }
    position.check_invariants()?;
    let text = position.notation();
    let reparsed =
        G::from_notation(&position.variant(), &text).map_err(|e| format!("notation {text:?} does not parse: {e}"))?;
    if reparsed.notation() != text || reparsed.hash() != position.hash() || reparsed.status() != position.status() {
        return Err(format!("notation {text:?} does not round-trip (got {:?})", reparsed.notation()));
    }

    position.legal_moves(moves);
    let mut seen = std::collections::HashSet::new();
    for mv in moves.iter() {
        if !seen.insert(*mv) {
            return Err(format!("move {mv} generated twice"));
        }
    }
    let over = matches!(position.status(), Status::Over(_));
    if over && !moves.is_empty() {
        return Err(format!("game over but {} legal moves", moves.len()));
    }
    if !over && moves.is_empty() {
        return Err("game goes on but no legal move".to_string());
    }
    for candidate in position.candidate_moves() {
        let generated = seen.contains(&candidate);
        let reference = !over && position.reference_is_legal(candidate);
        if generated != reference {
            return Err(format!("move {candidate}: generator says {generated}, reference says {reference}"));
        }
        if position.is_legal(candidate) != reference {
            return Err(format!("move {candidate}: is_legal disagrees with the reference"));
        }
        if !reference {
            let mut copy = position.clone();
            if copy.play(candidate).is_ok() || copy != *position {
                return Err(format!("illegal move {candidate} was accepted or changed the position"));
            }
        }
    }
    for &mv in moves.iter() {
        report.moves += 1;
        let written = mv.to_string();
        match position.parse_move(&written) {
            Ok(parsed) if parsed == mv => {}
            other => return Err(format!("move {mv:?} writes as {written:?} which reads back as {other:?}")),
        }
        let before = position.clone();
        let mut child = position.clone();
        child.play(mv).map_err(|e| format!("legal move {mv} refused: {e}"))?;
        if *position != before || position.hash() != before.hash() {
            return Err(format!("playing {mv} on a copy changed the original"));
        }
        if child.hash() != child.recompute_hash() {
            return Err(format!("after {mv}: incremental hash != recomputed"));
        }
    }
    Ok(())
}
