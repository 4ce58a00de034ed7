//! The m,n,k-game's part of the conformance suite: a naive grid reference written from the rules.

use super::rules::{Mnk, MnkVariant};
use crate::grid::CellMove;
use crate::conformance::{check_playouts, Conformance, Report};
use crate::game::{Game, Seat};
use crate::grid::Grid;

/// Straight from the rules: k pieces of `seat` in a row in any direction, on a plain grid.
fn has_line(p: &Mnk, seat: Seat) -> bool {
    let (m, n) = p.dimensions();
    let at = |c: i32, r: i32| c >= 0 && r >= 0 && c < m as i32 && r < n as i32 && p.piece(r as usize * m + c as usize) == Some(seat);
    (0..m as i32).any(|c| {
        (0..n as i32).any(|r| [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|(dc, dr)| (0..p.k() as i32).all(|s| at(c + s * dc, r + s * dr))))
    })
}

impl Conformance for Mnk {
    fn candidate_moves(&self) -> Vec<CellMove> {
        let (m, n) = self.dimensions();
        (0..m * n).map(|cell| CellMove { cell: cell as u16, cols: m as u8 }).collect()
    }

    fn reference_is_legal(&self, mv: CellMove) -> bool {
        let (m, n) = self.dimensions();
        let full = (0..m * n).all(|q| self.piece(q).is_some());
        !full && !has_line(self, Seat(0)) && !has_line(self, Seat(1)) && self.piece(mv.cell as usize).is_none()
    }

    fn check_invariants(&self) -> Result<(), String> {
        let (m, n) = self.dimensions();
        let count = |s: u8| (0..m * n).filter(|&q| self.piece(q) == Some(Seat(s))).count();
        if count(0) != count(1) && count(0) != count(1) + 1 {
            return Err(format!("{} x and {} o", count(0), count(1)));
        }
        let winner = self.status().outcome().and_then(|o| match o {
            crate::Outcome::Win(seat) => Some(seat),
            _ => None,
        });
        let expected = [Seat(0), Seat(1)].into_iter().find(|&s| has_line(self, s));
        if winner != expected {
            return Err(format!("winner {winner:?} but the grid says {expected:?}"));
        }
        Ok(())
    }
}

/// The registry's conformance run: seeded playouts of tic-tac-toe, 4 in a row on 5 x 4 and
/// five in a row on 15 x 15.
pub fn check(seed: u64) -> Report {
    [(3, 3, 3), (5, 4, 4), (15, 15, 5)].into_iter().fold(Report::default(), |total, (m, n, k)| {
        let start = Mnk::start(&MnkVariant::new(m, n, k).expect("a valid variant"));
        total + check_playouts(&start, 6, 250, seed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perft;

    /// The move paths of exactly `depth` plies (a finished game is not expanded).
    fn paths(p: &Mnk, depth: u32) -> u64 {
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        match depth {
            0 => 1,
            _ => moves.iter().map(|&mv| paths(&{ let mut c = *p; c.play_unchecked(mv); c }, depth - 1)).sum(),
        }
    }

    #[test]
    fn tic_tac_toe_perft_counts_the_known_sequence() {
        let start = Mnk::start(&MnkVariant::default());
        let counts: Vec<u64> = (1..=9).map(|d| paths(&start, d)).collect();
        assert_eq!(counts, [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]);
        // perft counts a finished game as a leaf at every deeper depth: all 255,168 games.
        assert_eq!([perft(&start, 6), perft(&start, 9)], [54720 + 1440, 255_168]);
    }

    #[test]
    fn conformance_on_small_and_large_boards() {
        for (i, (m, n, k)) in [(1, 1, 1), (3, 3, 3), (4, 2, 3), (7, 6, 4), (15, 15, 5)].into_iter().enumerate() {
            let start = Mnk::start(&MnkVariant::new(m, n, k).unwrap());
            let report = check_playouts(&start, 5, 400, 40 + i as u64);
            assert_eq!(report.finished_games, 5, "{m},{n},{k}: {report:?}");
        }
    }
}
