//! Connect-N's part of the conformance suite: a naive 2-D array reference.

use super::rules::{Column, Connect, Side};
use crate::conformance::Conformance;
use crate::game::Game;

/// The board as a plain grid, `grid[row][col]`, row 0 at the bottom.
fn grid(p: &Connect) -> Vec<Vec<Option<Side>>> {
    let v = p.connect_variant();
    (0..v.height()).map(|r| (0..v.width()).map(|c| p.cell(r, c).flatten()).collect()).collect()
}

/// Straight from the rules: is there a run of `n` equal pieces in any direction?
fn grid_has_line(g: &[Vec<Option<Side>>], n: usize, side: Side) -> bool {
    let (h, w) = (g.len() as i32, g[0].len() as i32);
    for r in 0..h {
        for c in 0..w {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let run = (0..n as i32).all(|k| {
                    let (rr, cc) = (r + k * dr, c + k * dc);
                    rr >= 0 && rr < h && cc >= 0 && cc < w && g[rr as usize][cc as usize] == Some(side)
                });
                if run {
                    return true;
                }
            }
        }
    }
    false
}

impl Conformance for Connect {
    fn candidate_moves(&self) -> Vec<Column> {
        (0..9).map(Column).collect()
    }

    fn reference_is_legal(&self, mv: Column) -> bool {
        let v = self.connect_variant();
        let g = grid(self);
        let col = mv.0 as usize;
        let someone_won = grid_has_line(&g, v.line(), Side::X) || grid_has_line(&g, v.line(), Side::O);
        col < v.width() && !someone_won && g[v.height() - 1][col].is_none()
    }

    fn check_invariants(&self) -> Result<(), String> {
        let v = self.connect_variant();
        let g = grid(self);
        let x = g.iter().flatten().filter(|c| **c == Some(Side::X)).count();
        let o = g.iter().flatten().filter(|c| **c == Some(Side::O)).count();
        if x != o && x != o + 1 {
            return Err(format!("{x} X and {o} O"));
        }
        if x + o != self.moves_played() {
            return Err("stone count differs from moves played".into());
        }
        for col in 0..v.width() {
            let column: Vec<Option<Side>> = g.iter().map(|row| row[col]).collect();
            if let Some(first_gap) = column.iter().position(|c| c.is_none()) {
                if column[first_gap..].iter().any(|c| c.is_some()) {
                    return Err(format!("floating piece in column {}", col + 1));
                }
            }
        }
        if self.mask() & !v.board_mask() != 0 {
            return Err("stone outside the board".into());
        }
        let lx = grid_has_line(&g, v.line(), Side::X);
        let lo = grid_has_line(&g, v.line(), Side::O);
        let expected = if lx {
            Some(Side::X)
        } else if lo {
            Some(Side::O)
        } else {
            None
        };
        if lx && lo {
            return Err("both sides have a line".into());
        }
        if self.winner() != expected {
            return Err(format!("winner {:?} but the grid says {expected:?}", self.winner()));
        }
        let full = x + o == v.cells();
        let over = self.status().to_move().is_none();
        if over != (expected.is_some() || full) {
            return Err("status disagrees with the grid".into());
        }
        Ok(())
    }
}

/// The registry's conformance run: seeded playouts on Connect Three and Connect Four.
pub fn check(seed: u64) -> crate::conformance::Report {
    use super::ConnectVariant;
    let mut total = crate::conformance::Report::default();
    for variant in [ConnectVariant::connect3(), ConnectVariant::connect4()] {
        total = total + crate::conformance::check_playouts(&Connect::start(&variant), 8, 100, seed);
    }
    total
}
