//! `tabletop moves` and `tabletop analyze` for every game: the listed moves are exactly the
//! moves the conformance suite's naive legality check accepts, on random positions.

use crate::common;

use std::collections::BTreeSet;

use common::tabletop;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop::conformance::Conformance;
use tabletop::games::connect::{Connect, ConnectVariant};
use tabletop::games::mathable::{Mathable, Settings};
use tabletop::games::reversi::Reversi;
use tabletop::games::slide::{Slide, SlideVariant};
use tabletop::Game;

/// A position after `plies` random legal moves (fewer if the game ends), and the moves.
fn random_position<G: Game>(start: &G, plies: usize, rng: &mut ChaCha8Rng) -> (G, Vec<G::Move>) {
    let mut position = start.clone();
    let mut played = Vec::new();
    let mut moves = Vec::new();
    for _ in 0..plies {
        position.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.gen_range(0..moves.len())];
        position.play_unchecked(mv);
        played.push(mv);
    }
    (position, played)
}

/// The moves the naive reference accepts, in notation.
fn reference_moves<G: Conformance>(position: &G) -> BTreeSet<String> {
    position.candidate_moves().into_iter().filter(|&m| position.reference_is_legal(m)).map(|m| m.to_string()).collect()
}

/// The moves `tabletop moves ... --json` lists (checked for duplicates).
fn listed_moves(args: &[&str]) -> BTreeSet<String> {
    let run = tabletop(args, "");
    assert!(run.ok, "{args:?}: {}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
    let list: Vec<String> = json["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
    let set: BTreeSet<String> = list.iter().cloned().collect();
    assert_eq!(set.len(), list.len(), "duplicates in {list:?}");
    set
}

#[test]
fn moves_match_the_naive_legality_check_for_every_game() {
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut checked = 0;
    for plies in [0, 3, 7, 12, 30] {
        let v = SlideVariant::new(4, 2).unwrap();
        let (p, _) = random_position(&Slide::start(&v), plies, &mut rng);
        let notation = p.notation();
        let args = ["moves", "slide", "--size", "4", "--empty", "2", "--position", &notation, "--json"];
        assert_eq!(listed_moves(&args), reference_moves(&p), "slide {notation}");

        let (p, _) = random_position(&Reversi::new(), plies * 2, &mut rng);
        let notation = p.notation();
        assert_eq!(listed_moves(&["moves", "reversi", "--position", &notation, "--json"]), reference_moves(&p));

        let v = ConnectVariant::connect4();
        let (p, _) = random_position(&Connect::new(v), plies, &mut rng);
        let notation = p.notation();
        let args = ["moves", "connect", "--position", &notation, "--json"];
        assert_eq!(listed_moves(&args), reference_moves(&p), "connect {notation}");

        let start = Mathable::start(&Settings { seed: rng.gen(), ..Settings::default() });
        let (p, _) = random_position(&start, plies, &mut rng);
        let notation = p.notation();
        assert_eq!(listed_moves(&["moves", "mathable", "--position", &notation, "--json"]), reference_moves(&p));
        checked += 4;
    }
    assert_eq!(checked, 20);
}

#[test]
fn moves_in_text_and_errors() {
    let run = tabletop(&["moves", "connect", "--preset", "connect3", "--position", "1122"], "");
    assert_eq!(run.stdout, "4 legal moves: 1 2 3 4\n");
    let run = tabletop(&["moves", "connect", "--preset", "connect3", "--position", "12121"], "");
    assert_eq!(run.stdout, "The game is over: no legal moves.\n");
    let run = tabletop(&["moves", "slide", "--position", "xyz"], "");
    assert!(!run.ok);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("error: bad position \"xyz\""), "{}", run.stderr);
}

/// Runs `tabletop analyze ARGS --json` and returns (move, score, exact) best first, and depth.
fn analysis(args: &[&str]) -> (Vec<(String, i64, bool)>, serde_json::Value) {
    let mut all = vec!["analyze"];
    all.extend_from_slice(args);
    all.push("--json");
    let run = tabletop(&all, "");
    assert!(run.ok, "{args:?}: {}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
    let moves = json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert!(!m["value"].as_str().unwrap().is_empty());
            (m["move"].as_str().unwrap().to_string(), m["score"].as_i64().unwrap(), m["exact"].as_bool().unwrap())
        })
        .collect();
    (moves, json["depth"].clone())
}

#[test]
fn analyze_values_every_move_of_every_game() {
    // Connect Three: the solver's scores.
    let (moves, depth) = analysis(&["connect", "--preset", "connect3", "--position", "1122"]);
    assert_eq!(depth, serde_json::Value::Null);
    assert_eq!(moves[0], ("3".to_string(), 4, true)); // (12 + 1 - 4) / 2: a win with the next piece
    assert_eq!(moves.len(), 4);
    // Slide 3x3: exact.
    let (moves, _) = analysis(&["slide", "--position", "obbbogbog"]);
    assert_eq!(moves, vec![("9".to_string(), 999_999, true), ("8".to_string(), 0, true)]);
    // Reversi at the start: the engine, with a depth, each of the four moves.
    let (moves, depth) = analysis(&["reversi", "--time", "400ms"]);
    let names: BTreeSet<String> = moves.iter().map(|m| m.0.clone()).collect();
    assert_eq!(names, ["c4", "d3", "e6", "f5"].iter().map(|s| s.to_string()).collect());
    assert!(depth.as_u64().is_some_and(|d| d >= 2), "{depth}");
    // Mathable: every placement valued, best first.
    let game = Mathable::start(&Settings::default());
    let notation = game.notation();
    let (moves, _) = analysis(&["mathable", "--position", &notation, "--time", "300ms"]);
    assert_eq!(moves.len(), game.placements().len() + 1);
    assert!(moves.windows(2).all(|w| w[0].1 >= w[1].1));
}

#[test]
fn reversi_images_analysed_in_separate_processes_agree() {
    // Each analysis in its own process, with the same settings (the depth picked from --time by
    // the calibration, not from the clock): a position and its 8 images get the same values on
    // mapped moves, and the start position's four moves one value.
    use tabletop::games::reversi::symmetry::transform;
    use tabletop::games::reversi::{Color, Square};
    let (start_moves, _) = analysis(&["reversi", "--time", "300ms"]);
    assert!(start_moves.iter().all(|m| m.1 == start_moves[0].1), "{start_moves:?}");
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    for plies in [9, 17, 26] {
        let (position, _) = random_position(&Reversi::new(), plies, &mut rng);
        let (black, white) = (position.bitboard(Color::Black), position.bitboard(Color::White));
        let mut seen: Option<Vec<(String, i64, bool)>> = None;
        for s in 0..8 {
            let image = Reversi::from_bitboards(transform(black, s), transform(white, s), position.side_to_move());
            let (moves, _) = analysis(&["reversi", "--position", &image.notation(), "--time", "300ms"]);
            // Back to the position's own squares.
            let mut back: Vec<(String, i64, bool)> = moves
                .into_iter()
                .map(|(name, score, exact)| {
                    let name = (0..64)
                        .filter_map(Square::from_index)
                        .find(|q| {
                            Square::from_index(transform(q.bit(), s).trailing_zeros() as usize)
                                .is_some_and(|i| i.to_string() == name)
                        })
                        .map_or(name, |q| q.to_string());
                    (name, score, exact)
                })
                .collect();
            back.sort();
            match &seen {
                None => seen = Some(back),
                Some(first) => assert_eq!(&back, first, "plies {plies}, image {s}"),
            }
        }
    }
}
