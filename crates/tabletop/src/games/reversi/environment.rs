//! Reversi as an [environment](crate::environment): action `8 * row + col` places a disc (row 0
//! is row 1, col 0 is column a: `a1` is 0, `h8` is 63), action 64 passes (OpenSpiel's numbering);
//! the observation is three 8 x 8 planes (the player's discs, the other's, empty).

use super::session::ReversiAdapter;
use super::{Reversi, ReversiMove, Square};
use crate::environment::{board_planes, Encoding, Environments};

/// The pass's action id.
pub const PASS_ACTION: usize = 64;

/// Reversi's action ids and observation.
pub struct ReversiEncoding;

impl Encoding<Reversi> for ReversiEncoding {
    fn num_actions(_start: &Reversi) -> usize {
        PASS_ACTION + 1
    }

    fn encode(_position: &Reversi, mv: ReversiMove) -> Option<usize> {
        Some(match mv {
            ReversiMove::Place(sq) => sq.index(),
            ReversiMove::Pass => PASS_ACTION,
        })
    }

    fn decode(_position: &Reversi, action: usize) -> Option<ReversiMove> {
        if action == PASS_ACTION {
            return Some(ReversiMove::Pass);
        }
        Square::from_index(action).map(ReversiMove::Place)
    }

    fn observation_shape(_start: &Reversi) -> Vec<usize> {
        vec![3, 8, 8]
    }

    fn observe(position: &Reversi, player: usize, out: &mut [f32]) {
        board_planes(out, 8, 8, player, |r, c| position.occupant(r, c).map(|color| color.seat().index()));
    }

    fn mark_legal(position: &Reversi, _moves: &mut Vec<ReversiMove>, row: &mut [bool]) {
        let mut placements = position.placements();
        if placements == 0 {
            // The game goes on, so the side to move without a placement passes.
            row[PASS_ACTION] = true;
        }
        while placements != 0 {
            row[placements.trailing_zeros() as usize] = true;
            placements &= placements - 1;
        }
    }
}

/// Reversi's environments, for the registry.
pub static ENVIRONMENT: Environments<Reversi, ReversiAdapter, ReversiEncoding> = Environments::new();
