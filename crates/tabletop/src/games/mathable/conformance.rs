//! Mathable's side of the conformance suite: candidate moves, a brute-force legality check
//! written straight from the rules, and token conservation.

use super::board::{Cell, Op, Square, Tokens};
use super::rules::{Mathable, MathableMove};
use super::settings::Operations;
use crate::conformance::Conformance;

impl Mathable {
    /// Reference check of a placement, by rows and columns, sharing nothing with the generator.
    fn reference_place(&self, cell: Cell, token: u8) -> bool {
        let n = self.settings.size as i32;
        let (r, c) = (cell.row as i32, cell.col as i32);
        let at = |r: i32, c: i32| -> Option<i64> {
            if r < 0 || c < 0 || r >= n || c >= n {
                None
            } else {
                self.board.get(Cell::new(r as u8, c as u8)).map(i64::from)
            }
        };
        if r >= n || c >= n || at(r, c).is_some() || !self.racks[self.to_move as usize].contains(token) {
            return false;
        }
        let allowed = |op: Op| match (self.board.square(cell), self.settings.operations) {
            (_, Operations::AddSub) if matches!(op, Op::Mul | Op::Div) => false,
            (Square::Restriction(only), _) => only == op,
            _ => true,
        };
        let t = i64::from(token);
        for (dr, dc) in [(0, -1), (0, 1), (-1, 0), (1, 0)] {
            let (Some(a), Some(b)) = (at(r + dr, c + dc), at(r + 2 * dr, c + 2 * dc)) else { continue };
            let mut results = vec![(Op::Add, a + b), (Op::Sub, (a - b).abs()), (Op::Mul, a * b)];
            if b != 0 && a % b == 0 {
                results.push((Op::Div, a / b));
            }
            if a != 0 && b % a == 0 {
                results.push((Op::Div, b / a));
            }
            if results.iter().any(|&(op, v)| v == t && allowed(op)) {
                return true;
            }
        }
        false
    }
}

impl Conformance for Mathable {
    fn candidate_moves(&self) -> Vec<MathableMove> {
        let counts = self.settings.tokens.counts();
        let n = self.settings.size;
        let mut out = Vec::new();
        for r in 0..n {
            for c in 0..n {
                for (v, &count) in counts.iter().enumerate() {
                    if count > 0 {
                        out.push(MathableMove::Place { cell: Cell::new(r, c), token: v as u8 });
                    }
                }
            }
        }
        out.extend([MathableMove::Draw, MathableMove::EndTurn, MathableMove::Terminate]);
        let rack = self.racks[self.to_move as usize];
        let values = rack.as_slice();
        for subset in 1u32..(1 << values.len()) {
            let picked: Vec<u8> =
                values.iter().enumerate().filter(|(i, _)| subset & (1 << i) != 0).map(|(_, &v)| v).collect();
            out.push(MathableMove::Exchange(Tokens::from_slice(&picked).expect("a subset of a rack")));
        }
        // Exchanges of tokens that are not (all) on the rack.
        for extra in [0u8, 13, 90] {
            if let Some(t) = Tokens::from_slice(&[extra, extra]) {
                out.push(MathableMove::Exchange(t));
            }
        }
        out.sort_by_key(|m| m.to_string());
        out.dedup();
        out
    }

    fn reference_is_legal(&self, mv: MathableMove) -> bool {
        if self.end.is_some() {
            return false;
        }
        let rack = &self.racks[self.to_move as usize];
        match mv {
            MathableMove::Place { cell, token } => self.reference_place(cell, token),
            MathableMove::Draw => self.extra_draw && !self.bag.is_empty(),
            MathableMove::EndTurn | MathableMove::Terminate => true,
            MathableMove::Exchange(tokens) => {
                let mut left = rack.as_slice().to_vec();
                let all_on_rack = tokens.as_slice().iter().all(|v| match left.iter().position(|x| x == v) {
                    Some(i) => {
                        left.remove(i);
                        true
                    }
                    None => false,
                });
                self.placed == 0
                    && !self.extra_draw
                    && !tokens.is_empty()
                    && all_on_rack
                    && self.bag.len() >= tokens.len()
            }
        }
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.check_conservation()?;
        for seat in 0..self.settings.players as usize {
            if self.racks[seat].len() > self.settings.rack as usize {
                return Err(format!("seat {seat} holds {} tokens", self.racks[seat].len()));
            }
        }
        if self.end.is_none() && self.racks[self.to_move as usize].is_empty() && self.placed == 0 {
            return Err("a turn starts with an empty rack".to_string());
        }
        Ok(())
    }
}

/// The registry's conformance run: two seeded games on a small Junior board, one by the random
/// player and one by the greedy player (they rarely terminate, so games reach the end of the bag),
/// every position checked.
pub fn check(seed: u64) -> crate::conformance::Report {
    use crate::players::Player;
    let settings = super::Settings { size: 8, rack: 4, ..super::Settings::preset(super::Preset::Junior) };
    let mut report = crate::conformance::Report::default();
    let mut moves = Vec::new();
    for g in 0..2 {
        let start = Mathable::new(&settings.with_seed(seed.wrapping_add(g))).expect("a valid preset");
        let mut record = crate::Record::new(start);
        let mut random = super::MathableRandomPlayer::new(seed.wrapping_add(g));
        for ply in 0..2000 {
            let position = record.current().clone();
            crate::conformance::check_position(&position, &mut moves, &mut report)
                .unwrap_or_else(|e| panic!("game {g} ply {ply}: {e}"));
            if record.status().to_move().is_none() {
                report.finished_games += 1;
                break;
            }
            let mv = if g == 0 { random.choose_move(&record) } else { super::players::greedy_move(&position) };
            record.play(mv).unwrap_or_else(|e| panic!("game {g} ply {ply}: {mv}: {e}"));
        }
    }
    report
}
