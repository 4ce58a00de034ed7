//! The Slide solver checked against an independent brute-force solver, and the document's
//! worked example.

use std::collections::HashMap;

use tabletop::games::slide::solver::{SlideSolver, SlideValue};
use tabletop::games::slide::{Side, Slide, SlideVariant};
use tabletop::{Game, Outcome, Status};

/// A deliberately different algorithm: enumerate every position reachable from `start` keyed by
/// its notation string, then settle values in rounds of increasing distance.
fn brute_force(start: &Slide) -> HashMap<String, SlideValue> {
    let mut children: HashMap<String, Vec<String>> = HashMap::new();
    let mut terminal: HashMap<String, Option<bool>> = HashMap::new(); // Some(true) = side to move lost
    let mut stack = vec![*start];
    let variant = start.variant();
    while let Some(position) = stack.pop() {
        let key = position.notation();
        if children.contains_key(&key) || terminal.contains_key(&key) {
            continue;
        }
        match position.status() {
            Status::Over(Outcome::Win(seat)) => {
                terminal.insert(key, Some(seat != position.side_to_move().seat()));
            }
            Status::Over(_) => {
                terminal.insert(key, None);
            }
            Status::ToMove(_) => {
                let mut moves = Vec::new();
                position.legal_moves(&mut moves);
                let mut next = Vec::new();
                for mv in moves {
                    let mut child = position;
                    child.play(mv).unwrap();
                    next.push(child.notation());
                    stack.push(child);
                }
                children.insert(key, next);
            }
        }
    }
    let mut values: HashMap<String, SlideValue> = HashMap::new();
    for (key, lost) in &terminal {
        values.insert(key.clone(), if *lost == Some(true) { SlideValue::Loss(0) } else { SlideValue::Draw });
    }
    let decided_draw: Vec<String> = terminal.iter().filter(|(_, l)| l.is_none()).map(|(k, _)| k.clone()).collect();
    for distance in 1.. {
        let mut changed = false;
        let mut new_values = Vec::new();
        for (key, next) in &children {
            if values.contains_key(key) {
                continue;
            }
            let child_values: Vec<Option<SlideValue>> = next
                .iter()
                .map(|c| values.get(c).copied().filter(|_| !decided_draw.contains(c) || true))
                .collect();
            if child_values.iter().any(|v| *v == Some(SlideValue::Loss(distance - 1))) {
                new_values.push((key.clone(), SlideValue::Win(distance)));
            } else if child_values.iter().all(|v| matches!(v, Some(SlideValue::Win(d)) if *d <= distance - 1)) {
                new_values.push((key.clone(), SlideValue::Loss(distance)));
            }
        }
        for (k, v) in new_values {
            changed = true;
            values.insert(k, v);
        }
        if !changed && distance > 200 {
            break;
        }
        if values.len() == children.len() + terminal.len() {
            break;
        }
        if distance > 400 {
            break;
        }
    }
    let _ = variant;
    for key in children.keys() {
        values.entry(key.clone()).or_insert(SlideValue::Draw);
    }
    values
}

#[test]
fn worked_example_from_the_document() {
    let variant = SlideVariant::new(3, 1).unwrap();
    let board = Slide::from_notation(&variant, "obbbogbog").unwrap();
    assert_eq!(board.side_to_move(), Side::Orange);
    // Computer plays square 8: the human has no tile next to the last empty square.
    let mut draw = board;
    draw.play(board.parse_move("8").unwrap()).unwrap();
    assert_eq!(draw.configuration(), "obbboobog");
    assert_eq!(draw.status(), Status::Over(Outcome::Draw));
    assert!(draw.is_draw_for(Side::Blue));
    assert_eq!(draw.classic_score(), 2);
    // Square 9 instead: the computer wins on the diagonal.
    let mut win = board;
    win.play(board.parse_move("9").unwrap()).unwrap();
    assert_eq!(win.configuration(), "obbbogboo");
    assert_eq!(win.status(), Status::Over(Outcome::Win(Side::Orange.seat())));
    assert_eq!(win.classic_score(), 3);
    let mut solver = SlideSolver::new(variant).unwrap();
    assert_eq!(solver.best_move(&board).unwrap().0.to_string(), "9");
}

#[test]
fn solver_matches_brute_force_on_every_3x3_variant() {
    for k in 0..=7 {
        let variant = SlideVariant::new(3, k).unwrap();
        let start = Slide::start(&variant);
        let expected = brute_force(&start);
        let mut solver = SlideSolver::new(variant).unwrap();
        let mut checked = 0;
        for (key, value) in &expected {
            let position = Slide::from_notation(&variant, key).unwrap();
            assert_eq!(solver.value(&position), *value, "k={k} position {key}");
            checked += 1;
        }
        assert!(checked > 100, "k={k}: only {checked} positions");
    }
}
