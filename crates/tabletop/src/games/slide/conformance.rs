//! Slide's part of the conformance suite: candidates and a from-the-rules legality check.

use super::rules::{Cell, Side, Slide, SlideMove, Square};
use crate::conformance::Conformance;
use crate::game::Game;

impl Conformance for Slide {
    fn candidate_moves(&self) -> Vec<SlideMove> {
        let squares = self.slide_variant().squares() as Square;
        let mut moves: Vec<SlideMove> = (0..squares).map(SlideMove::Place).collect();
        for from in 0..squares {
            for to in 0..squares {
                moves.push(SlideMove::Slide { from, to });
            }
        }
        moves
    }

    /// Straight from the rules text, on (row, col) coordinates: no bitboards, no masks.
    fn reference_is_legal(&self, mv: SlideMove) -> bool {
        let n = self.size();
        let at = |sq: Square| self.cell(sq as usize / n, sq as usize % n).expect("candidate on the board");
        let empty_squares = (0..n * n).filter(|&sq| at(sq as Square) == Cell::Empty).count();
        let someone_won = self.has_line(Side::Blue) || self.has_line(Side::Orange);
        if someone_won {
            return false;
        }
        let me = self.side_to_move();
        match mv {
            SlideMove::Place(sq) => empty_squares > self.slide_variant().empty() && at(sq) == Cell::Empty,
            SlideMove::Slide { from, to } => {
                let (fr, fc) = (from as i32 / n as i32, from as i32 % n as i32);
                let (tr, tc) = (to as i32 / n as i32, to as i32 % n as i32);
                let neighbours = (fr - tr).abs() <= 1 && (fc - tc).abs() <= 1 && from != to;
                empty_squares == self.slide_variant().empty()
                    && at(from) == Cell::Tile(me)
                    && at(to) == Cell::Empty
                    && neighbours
            }
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        let blue = self.tiles(Side::Blue).count_ones();
        let orange = self.tiles(Side::Orange).count_ones();
        if self.tiles(Side::Blue) & self.tiles(Side::Orange) != 0 {
            return Err("a square holds two tiles".into());
        }
        if blue != orange && blue != orange + 1 {
            return Err(format!("tile counts {blue} blue, {orange} orange"));
        }
        if self.empty_count() < self.slide_variant().empty() {
            return Err("fewer empty squares than k".into());
        }
        let _ = self.status();
        Ok(())
    }
}

/// The registry's conformance run: seeded playouts on 3x3 and 4x4 with one square kept empty.
pub fn check(seed: u64) -> crate::conformance::Report {
    let mut total = crate::conformance::Report::default();
    for (size, empty) in [(3, 1), (4, 1)] {
        let start = Slide::start(&super::SlideVariant::new(size, empty).expect("a valid variant"));
        let r = crate::conformance::check_playouts(&start, 8, 120, seed);
        total = total + r;
    }
    total
}
