//! Mathable as an [environment](crate::environment). On an `n x n` board (`cells = n²`):
//!
//! | action | move |
//! |---|---|
//! | `(row * n + col) * 91 + token` | place `token` on the cell (row and column from 0) |
//! | `cells * 91` | draw the extra token |
//! | `cells * 91 + 1` | end the turn |
//! | `cells * 91 + 2` | terminate |
//! | `cells * 91 + 3 + mask` | exchange the rack tokens whose places (in the sorted rack) are the bits of `mask`; of equal tokens, the first ones |
//!
//! The observation is what the player may see, flat: the board (a plane of occupied cells, a
//! plane of their values / 90), the player's own rack (how many of each value 0..=90), each
//! seat's score / 100, a one-hot of the seat to move, the bag's size / 100, the tokens placed
//! this turn / 8 and whether the extra draw is open. The other racks and the bag's tokens are
//! not in it. The bag's order comes from the `seed` option.

use super::session::MathableAdapter;
use super::{Cell, Mathable, MathableMove, Tokens, MAX_TOKEN};
use crate::environment::{Encoding, Environments};
use crate::game::{Game, Seat};

/// Token values 0..=90.
const VALUES: usize = MAX_TOKEN as usize + 1;

/// Mathable's action ids and observation.
pub struct MathableEncoding;

impl MathableEncoding {
    fn cells(position: &Mathable) -> usize {
        let n = position.settings().size as usize;
        n * n
    }

    /// The rack of the seat to move.
    fn rack(position: &Mathable) -> Tokens {
        *position.rack(position.turn())
    }
}

impl Encoding<Mathable> for MathableEncoding {
    fn num_actions(start: &Mathable) -> usize {
        Self::cells(start) * VALUES + 3 + (1 << start.settings().rack)
    }

    fn encode(position: &Mathable, mv: MathableMove) -> Option<usize> {
        let base = Self::cells(position) * VALUES;
        let n = position.settings().size as usize;
        match mv {
            MathableMove::Place { cell, token } => {
                let (row, col) = (cell.row as usize, cell.col as usize);
                (row < n && col < n).then_some((row * n + col) * VALUES + token as usize)
            }
            MathableMove::Draw => Some(base),
            MathableMove::EndTurn => Some(base + 1),
            MathableMove::Terminate => Some(base + 2),
            MathableMove::Exchange(tokens) => {
                let rack = Self::rack(position);
                let mut mask = 0usize;
                for &v in tokens.as_slice() {
                    let place = rack.as_slice().iter().enumerate().position(|(i, &r)| r == v && mask & (1 << i) == 0)?;
                    mask |= 1 << place;
                }
                (mask != 0).then_some(base + 3 + mask)
            }
        }
    }

    fn decode(position: &Mathable, action: usize) -> Option<MathableMove> {
        let base = Self::cells(position) * VALUES;
        let n = position.settings().size as usize;
        if action < base {
            let (cell, token) = (action / VALUES, action % VALUES);
            return Some(MathableMove::Place { cell: Cell::new((cell / n) as u8, (cell % n) as u8), token: token as u8 });
        }
        match action - base {
            0 => Some(MathableMove::Draw),
            1 => Some(MathableMove::EndTurn),
            2 => Some(MathableMove::Terminate),
            m => {
                let mask = m - 3;
                let rack = Self::rack(position);
                if mask == 0 || mask >> rack.len() != 0 {
                    return None;
                }
                let chosen: Vec<u8> =
                    rack.as_slice().iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &v)| v).collect();
                let mv = MathableMove::Exchange(Tokens::from_slice(&chosen)?);
                // Only the canonical mask of a multiset stands for its exchange.
                (Self::encode(position, mv) == Some(action)).then_some(mv)
            }
        }
    }

    fn observation_shape(start: &Mathable) -> Vec<usize> {
        let players = start.num_seats();
        vec![2 * Self::cells(start) + VALUES + 2 * players + 3]
    }

    fn observe(position: &Mathable, player: usize, out: &mut [f32]) {
        let n = position.settings().size as usize;
        let cells = n * n;
        let board = position.board();
        for row in 0..n {
            for col in 0..n {
                if let Some(value) = board.get(Cell::new(row as u8, col as u8)) {
                    out[row * n + col] = 1.0;
                    out[cells + row * n + col] = value as f32 / MAX_TOKEN as f32;
                }
            }
        }
        let mut at = 2 * cells;
        for &v in position.rack(Seat(player as u8)).as_slice() {
            out[at + v as usize] += 1.0;
        }
        at += VALUES;
        let players = position.num_seats();
        for (seat, &score) in position.scores().iter().enumerate() {
            out[at + seat] = score as f32 / 100.0;
        }
        at += players;
        if let Some(seat) = position.status().to_move() {
            out[at + seat.index()] = 1.0;
        }
        at += players;
        out[at] = position.bag().len() as f32 / 100.0;
        out[at + 1] = position.placed_this_turn() as f32 / 8.0;
        out[at + 2] = if position.extra_draw_pending() { 1.0 } else { 0.0 };
    }
}

/// Mathable's environments, for the registry.
pub static ENVIRONMENT: Environments<Mathable, MathableAdapter, MathableEncoding> = Environments::new();
