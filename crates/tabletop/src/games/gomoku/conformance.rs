//! Gomoku's part of the conformance suite: a naive grid reference written from the rules.

use super::rules::{Gomoku, GomokuMove, Point, Stone};
use super::GomokuVariant;
use crate::conformance::{check_playouts, Conformance, Report};
use crate::game::Game;

/// The board as a plain grid, `grid[row][col]`, row 0 at the bottom.
fn grid(p: &Gomoku) -> Vec<Vec<Option<Stone>>> {
    let n = p.size();
    (0..n).map(|r| (0..n).map(|c| p.stone(r, c)).collect()).collect()
}

/// Straight from the rules: five of one colour in a row in any direction.
fn has_five(g: &[Vec<Option<Stone>>], stone: Stone) -> bool {
    let n = g.len() as i32;
    for r in 0..n {
        for c in 0..n {
            for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                let five = (0..5).all(|k| {
                    let (rr, cc) = (r + k * dr, c + k * dc);
                    rr >= 0 && rr < n && cc >= 0 && cc < n && g[rr as usize][cc as usize] == Some(stone)
                });
                if five {
                    return true;
                }
            }
        }
    }
    false
}

impl Conformance for Gomoku {
    fn candidate_moves(&self) -> Vec<GomokuMove> {
        let n = self.size();
        (0..n * n).map(|q| GomokuMove { point: Point(q as u16), size: n as u8 }).collect()
    }

    fn reference_is_legal(&self, mv: GomokuMove) -> bool {
        let g = grid(self);
        let n = self.size();
        let q = mv.point.0 as usize;
        let over = has_five(&g, Stone::Black) || has_five(&g, Stone::White) || g.iter().flatten().all(|c| c.is_some());
        q < n * n && !over && g[q / n][q % n].is_none()
    }

    fn check_invariants(&self) -> Result<(), String> {
        let g = grid(self);
        let black = g.iter().flatten().filter(|c| **c == Some(Stone::Black)).count();
        let white = g.iter().flatten().filter(|c| **c == Some(Stone::White)).count();
        if black != white && black != white + 1 {
            return Err(format!("{black} black and {white} white stones"));
        }
        if black + white != self.stones_placed() {
            return Err("stone count differs from stones placed".into());
        }
        let expected = match (has_five(&g, Stone::Black), has_five(&g, Stone::White)) {
            (true, true) => return Err("both sides have five".into()),
            (true, false) => Some(Stone::Black),
            (false, true) => Some(Stone::White),
            (false, false) => None,
        };
        if self.winner() != expected {
            return Err(format!("winner {:?} but the grid says {expected:?}", self.winner()));
        }
        Ok(())
    }
}

/// The registry's conformance run: seeded playouts on 7 x 7 (games fill the board) and 15 x 15.
pub fn check(seed: u64) -> Report {
    let mut total = Report::default();
    for size in [7, 15] {
        let start = Gomoku::start(&GomokuVariant::new(size).expect("a valid size"));
        total = total + check_playouts(&start, 4, 250, seed);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft;

    #[test]
    fn conformance_on_every_size_class() {
        for (i, size) in [7, 9, 15, 19].into_iter().enumerate() {
            let start = Gomoku::start(&GomokuVariant::new(size).unwrap());
            let report = check_playouts(&start, 6, 400, 40 + i as u64);
            assert_eq!(report.finished_games, 6, "{size}: {report:?}");
            assert!(report.positions > 6 * 9, "{size}: {report:?}");
        }
    }

    #[test]
    fn perft_counts_before_any_five_is_possible() {
        // No five before ply 9: perft(d) = N (N - 1) ... (N - d + 1).
        let start = Gomoku::start(&GomokuVariant::new(7).unwrap());
        assert_eq!([1, 2, 3].map(|d| perft(&start, d)), [49, 2352, 110544]);
        let start = Gomoku::start(&GomokuVariant::default());
        assert_eq!(perft(&start, 2), 225 * 224);
    }
}
