//! Gomoku's threats: the points that make five at once, the moves that make a four (a move
//! threatening five next), and the search for a victory by continuous fours (VCF): fours played
//! one after another, each answered by the only block, until a double four or a five. A VCF found
//! is a proof of a win, so the engine plays it at once and counts it as won at its horizon.
//!
//! The moves worth looking at ([`candidates`], the empty points near the stones) are here too:
//! the threat search needs them, and the engine, which uses this module, searches them.

use std::time::Instant;

use super::rules::{Gomoku, GomokuMove, Point, Stone, DIRECTIONS, FIVE};
use crate::game::Game;

/// The empty intersections within two of a stone (the centre on an empty board): the only moves
/// worth searching.
pub fn candidates(p: &Gomoku) -> Vec<usize> {
    let n = p.size() as i32;
    if p.stones_placed() == 0 {
        return vec![((n / 2) * n + n / 2) as usize];
    }
    let mut near = vec![false; (n * n) as usize];
    for q in 0..(n * n) as usize {
        if p.stone_at(q).is_none() {
            continue;
        }
        let (r, c) = (q as i32 / n, q as i32 % n);
        for dr in -2..=2 {
            for dc in -2..=2 {
                let (rr, cc) = (r + dr, c + dc);
                if rr >= 0 && rr < n && cc >= 0 && cc < n {
                    near[(rr * n + cc) as usize] = true;
                }
            }
        }
    }
    (0..(n * n) as usize).filter(|&q| near[q] && p.stone_at(q).is_none()).collect()
}

/// The move placing the side to move's stone at `point`.
pub(crate) fn mv(p: &Gomoku, point: usize) -> GomokuMove {
    GomokuMove { point: Point(point as u16), size: p.size() as u8 }
}

/// The empty points where `stone` makes five at once, in increasing order.
///
/// ```
/// use tabletop::games::gomoku::{threats::five_points, Gomoku, GomokuVariant, Stone};
/// use tabletop::Game;
/// let v = GomokuVariant::new(9).unwrap();
/// let p = Gomoku::from_notation(&v, "........./........./........./........./........./........./oooo...../........./.xxxx.... x").unwrap();
/// assert_eq!(five_points(&p, Stone::Black), vec![0, 5]); // a1 and f1: an open four
/// assert_eq!(five_points(&p, Stone::White), vec![22]); // e3
/// ```
pub fn five_points(p: &Gomoku, stone: Stone) -> Vec<usize> {
    let n = p.size() as i32;
    let mut out = Vec::new();
    for q in 0..(n * n) as usize {
        if p.stone_at(q).is_some() {
            continue;
        }
        // A point completing five always touches a stone of that colour.
        let (r, c) = (q as i32 / n, q as i32 % n);
        let touches = (-1..=1).any(|dr| {
            (-1..=1).any(|dc| {
                let (rr, cc) = (r + dr, c + dc);
                (dr, dc) != (0, 0) && rr >= 0 && rr < n && cc >= 0 && cc < n && p.stone_at((rr * n + cc) as usize) == Some(stone)
            })
        });
        if touches && p.makes_five(q, stone) {
            out.push(q);
        }
    }
    out
}

/// The five-points of `stone` on the lines through `point` (where `stone` stands), in
/// increasing order without repeats.
fn five_points_through(p: &Gomoku, point: usize, stone: Stone) -> Vec<usize> {
    let n = p.size() as i32;
    let (r, c) = (point as i32 / n, point as i32 % n);
    let mut out = Vec::new();
    for d in DIRECTIONS {
        for k in -(FIVE as i32 - 1)..FIVE as i32 {
            let (rr, cc) = (r + k * d.0, c + k * d.1);
            if k == 0 || rr < 0 || rr >= n || cc < 0 || cc >= n {
                continue;
            }
            let e = (rr * n + cc) as usize;
            if p.stone_at(e).is_none() && p.run_through(e, d, stone) >= FIVE {
                out.push(e);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The side to move's fours: `(point, five-points it creates)` for every empty point near the
/// stones where its stone threatens five next.
pub fn fours(p: &Gomoku) -> Vec<(usize, Vec<usize>)> {
    let me = p.side_to_move();
    let mut out = Vec::new();
    for q in candidates(p) {
        if p.makes_five(q, me) {
            continue;
        }
        let mut child = *p;
        child.play_unchecked(mv(p, q));
        let threats = five_points_through(&child, q, me);
        if !threats.is_empty() {
            out.push((q, threats));
        }
    }
    out
}

/// A victory by continuous fours for the side to move: the first move of a forced win found
/// within `fours_left` fours and `budget` nodes, with the win's length in plies.
///
/// ```
/// use tabletop::games::gomoku::{threats::vcf, Gomoku, GomokuVariant};
/// use tabletop::Game;
/// let v = GomokuVariant::new(9).unwrap();
/// // Black's three on row 1 and three on column e: fours win by force.
/// let p = Gomoku::from_notation(&v, "o.o.o.o../o.o....../........./........./........./....x..../....x..../....x..../.xxx..... x").unwrap();
/// let (_point, plies) = vcf(&p, 6, &mut 10_000).unwrap();
/// assert!(plies >= 3);
/// // With no four allowed, no win is found.
/// assert_eq!(vcf(&p, 0, &mut 10_000), None);
/// ```
pub fn vcf(p: &Gomoku, fours_left: u32, budget: &mut u32) -> Option<(usize, u32)> {
    vcf_until(p, fours_left, budget, None)
}

/// [`vcf`] that also stops at `deadline`: past it the search ends as if its node budget were
/// spent (the budget is then 0), so a player on a clock never overruns in a long search of fours.
///
/// ```
/// use std::time::Instant;
/// use tabletop::games::gomoku::{threats::vcf_until, Gomoku, GomokuVariant};
/// use tabletop::Game;
/// let v = GomokuVariant::new(9).unwrap();
/// let p = Gomoku::from_notation(&v, "o.o.o.o../o.o....../........./........./........./....x..../....x..../....x..../.xxx..... x").unwrap();
/// // With time, the win is found; with the deadline already past, the search stops at once.
/// assert!(vcf_until(&p, 6, &mut 10_000, None).is_some());
/// let mut budget = 10_000;
/// assert_eq!(vcf_until(&p, 6, &mut budget, Some(Instant::now())), None);
/// assert_eq!(budget, 0);
/// ```
pub fn vcf_until(p: &Gomoku, fours_left: u32, budget: &mut u32, deadline: Option<Instant>) -> Option<(usize, u32)> {
    let me = p.side_to_move();
    let them = me.other();
    if let Some(&win) = five_points(p, me).first() {
        return Some((win, 1));
    }
    if fours_left == 0 || *budget == 0 {
        return None;
    }
    // The clock is read at every node: a node (the fours over the board) costs far more.
    if deadline.is_some_and(|d| Instant::now() >= d) {
        *budget = 0;
        return None;
    }
    *budget -= 1;
    let theirs = five_points(p, them);
    if theirs.len() >= 2 {
        return None; // they win whatever is blocked
    }
    for (q, threats) in fours(p) {
        // Facing a four, only its block may attack.
        if theirs.len() == 1 && theirs[0] != q {
            continue;
        }
        let mut child = *p;
        child.play_unchecked(mv(p, q));
        if !five_points(&child, them).is_empty() {
            continue; // the defender makes five first
        }
        if threats.len() >= 2 {
            return Some((q, 3)); // two points to block: one is left for five
        }
        let mut reply = child;
        reply.play_unchecked(mv(&child, threats[0]));
        if let Some((_, plies)) = vcf_until(&reply, fours_left - 1, budget, deadline) {
            return Some((q, plies + 2));
        }
    }
    None
}
