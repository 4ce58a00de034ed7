//! Gomoku as an [environment](crate::environment): action `p` puts a stone on intersection `p`
//! (`row * size + column`, row 0 at the bottom); the observation is three `size x size` planes
//! (the player's stones, the other's, empty).

use super::session::GomokuAdapter;
use super::{Gomoku, GomokuMove, Point};
use crate::environment::{board_planes, Encoding, Environments};

/// Gomoku's action ids and observation.
pub struct GomokuEncoding;

impl Encoding<Gomoku> for GomokuEncoding {
    fn num_actions(start: &Gomoku) -> usize {
        start.size() * start.size()
    }

    fn encode(_position: &Gomoku, mv: GomokuMove) -> Option<usize> {
        Some(mv.point.0 as usize)
    }

    fn decode(position: &Gomoku, action: usize) -> Option<GomokuMove> {
        let size = position.size();
        (action < size * size).then_some(GomokuMove { point: Point(action as u16), size: size as u8 })
    }

    fn observation_shape(start: &Gomoku) -> Vec<usize> {
        vec![3, start.size(), start.size()]
    }

    fn observe(position: &Gomoku, player: usize, out: &mut [f32]) {
        let n = position.size();
        board_planes(out, n, n, player, |r, c| position.stone(r, c).map(|s| s.seat().index()));
    }
}

/// Gomoku's environments, for the registry.
pub static ENVIRONMENT: Environments<Gomoku, GomokuAdapter, GomokuEncoding> = Environments::new();
