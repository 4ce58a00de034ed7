//! Reversi's part of the conformance suite: a naive array-based legality check written straight
//! from the rules (no bitboards, no shifts).

use super::rules::{Color, Reversi, ReversiMove, Square};
use crate::conformance::Conformance;

/// The board as an 8x8 array of `Option<Color>`, read square by square.
fn grid(position: &Reversi) -> [[Option<Color>; 8]; 8] {
    let mut g = [[None; 8]; 8];
    for (r, row) in g.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = position.occupant(r, c);
        }
    }
    g
}

/// Does `me` placing at (r, c) bracket at least one line of opponent discs?
fn naive_legal(g: &[[Option<Color>; 8]; 8], me: Color, r: usize, c: usize) -> bool {
    if g[r][c].is_some() {
        return false;
    }
    for dr in -1i32..=1 {
        for dc in -1i32..=1 {
            if dr == 0 && dc == 0 {
                continue;
            }
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            let mut seen_opponent = false;
            while (0..8).contains(&rr) && (0..8).contains(&cc) {
                match g[rr as usize][cc as usize] {
                    Some(col) if col == me.other() => seen_opponent = true,
                    Some(_) => {
                        if seen_opponent {
                            return true;
                        }
                        break;
                    }
                    None => break,
                }
                rr += dr;
                cc += dc;
            }
        }
    }
    false
}

fn naive_has_placement(g: &[[Option<Color>; 8]; 8], me: Color) -> bool {
    (0..8).any(|r| (0..8).any(|c| naive_legal(g, me, r, c)))
}

impl Conformance for Reversi {
    fn candidate_moves(&self) -> Vec<ReversiMove> {
        let mut list: Vec<ReversiMove> = (0..64).filter_map(Square::from_index).map(ReversiMove::Place).collect();
        list.push(ReversiMove::Pass);
        list
    }

    fn reference_is_legal(&self, mv: ReversiMove) -> bool {
        let g = grid(self);
        let me = self.side_to_move();
        match mv {
            ReversiMove::Place(sq) => naive_legal(&g, me, sq.row(), sq.col()),
            ReversiMove::Pass => !naive_has_placement(&g, me) && naive_has_placement(&g, me.other()),
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        let (b, w) = (self.bitboard(Color::Black), self.bitboard(Color::White));
        if b & w != 0 {
            return Err("a square holds two discs".into());
        }
        let total = self.discs(Color::Black) + self.discs(Color::White);
        if total + self.open_squares() != 64 {
            return Err(format!("{total} discs and {} open squares", self.open_squares()));
        }
        // The four centre squares are never empty.
        if (b | w) & 0x0000_0018_1800_0000 != 0x0000_0018_1800_0000 {
            return Err("a centre square is empty".into());
        }
        Ok(())
    }
}

/// The registry's conformance run: seeded playouts from the start.
pub fn check(seed: u64) -> crate::conformance::Report {
    crate::conformance::check_playouts(&Reversi::new(), 8, 80, seed)
}
