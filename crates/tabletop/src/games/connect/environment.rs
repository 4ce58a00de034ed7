//! Connect-N as an [environment](crate::environment): action `c` drops into column `c` (from 0);
//! the observation is three `height x width` planes (the player's pieces, the other's, empty),
//! row 0 at the bottom.

use super::session::ConnectAdapter;
use super::{Column, Connect};
use crate::environment::{board_planes, Encoding, Environments};

/// Connect-N's action ids and observation.
pub struct ConnectEncoding;

impl Encoding<Connect> for ConnectEncoding {
    fn num_actions(start: &Connect) -> usize {
        start.connect_variant().width()
    }

    fn encode(_position: &Connect, mv: Column) -> Option<usize> {
        Some(mv.0 as usize)
    }

    fn decode(position: &Connect, action: usize) -> Option<Column> {
        (action < position.connect_variant().width()).then_some(Column(action as u8))
    }

    fn observation_shape(start: &Connect) -> Vec<usize> {
        let v = start.connect_variant();
        vec![3, v.height(), v.width()]
    }

    fn observe(position: &Connect, player: usize, out: &mut [f32]) {
        let v = position.connect_variant();
        board_planes(out, v.height(), v.width(), player, |r, c| position.cell(r, c).flatten().map(|s| s.seat().index()));
    }

    fn mark_legal(position: &Connect, _moves: &mut Vec<Column>, row: &mut [bool]) {
        for (col, legal) in row.iter_mut().enumerate() {
            *legal = position.can_play(col);
        }
    }
}

/// Connect-N's environments, for the registry.
pub static ENVIRONMENT: Environments<Connect, ConnectAdapter, ConnectEncoding> = Environments::new();
