//! Slide as an [environment](crate::environment) on an `n x n` board: action `s` places a tile
//! on square `s` (from 0, row by row), action `n² + from * n² + to` slides the tile on `from` to
//! `to`; the observation is three `n x n` planes (the player's tiles, the other's, empty).

use super::session::SlideAdapter;
use super::{Cell, Slide, SlideMove};
use crate::environment::{board_planes, Encoding, Environments};

/// Slide's action ids and observation.
pub struct SlideEncoding;

impl Encoding<Slide> for SlideEncoding {
    fn num_actions(start: &Slide) -> usize {
        let squares = start.size() * start.size();
        squares + squares * squares
    }

    fn encode(position: &Slide, mv: SlideMove) -> Option<usize> {
        let squares = position.size() * position.size();
        Some(match mv {
            SlideMove::Place(sq) => sq as usize,
            SlideMove::Slide { from, to } => squares + from as usize * squares + to as usize,
        })
    }

    fn decode(position: &Slide, action: usize) -> Option<SlideMove> {
        let squares = position.size() * position.size();
        if action < squares {
            return Some(SlideMove::Place(action as u8));
        }
        let slide = action - squares;
        (slide < squares * squares)
            .then(|| SlideMove::Slide { from: (slide / squares) as u8, to: (slide % squares) as u8 })
    }

    fn observation_shape(start: &Slide) -> Vec<usize> {
        vec![3, start.size(), start.size()]
    }

    fn observe(position: &Slide, player: usize, out: &mut [f32]) {
        let n = position.size();
        board_planes(out, n, n, player, |r, c| match position.cell(r, c) {
            Some(Cell::Tile(side)) => Some(side.seat().index()),
            _ => None,
        });
    }
}

/// Slide's environments, for the registry.
pub static ENVIRONMENT: Environments<Slide, SlideAdapter, SlideEncoding> = Environments::new();
