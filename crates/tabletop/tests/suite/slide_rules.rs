//! Slide rules edge cases, notation and perft.

use tabletop::games::slide::{Side, Slide, SlideMove, SlideMoveError, SlidePositionError, SlideVariant};
use tabletop::{perft, Game, Outcome, Status};

fn variant(n: usize, k: usize) -> SlideVariant {
    SlideVariant::new(n, k).unwrap()
}

#[test]
fn three_by_three_without_empties_is_tic_tac_toe() {
    let start = Slide::start(&variant(3, 0));
    let counts: Vec<u64> = (1..=6).map(|d| perft(&start, d)).collect();
    // Tic-tac-toe: 1,440 games end at ply 5 and count as leaves at depth 6.
    assert_eq!(counts, [9, 72, 504, 3024, 15120, 54720 + 1440]);
    assert_eq!(perft(&start, 9), 255_168, "every tic-tac-toe game");
}

#[test]
fn variants_are_validated() {
    assert!(SlideVariant::new(2, 0).is_err());
    assert!(SlideVariant::new(9, 0).is_err());
    assert!(SlideVariant::new(4, 14).is_ok());
    assert!(SlideVariant::new(4, 15).is_err());
}

#[test]
fn moves_parse_print_and_explain_refusals() {
    let board = Slide::start(&variant(3, 1));
    assert_eq!(board.parse_move("5").unwrap(), SlideMove::Place(4));
    assert_eq!(board.parse_move(" 3-6 ").unwrap().to_string(), "3-6");
    assert_eq!(board.parse_move("10"), Err(SlideMoveError::OffBoard { square: 10, squares: 9 }));
    assert!(matches!(board.parse_move("five"), Err(SlideMoveError::Syntax(_))));
    assert!(matches!(board.parse_move("0"), Err(SlideMoveError::OffBoard { .. })));
    let mut copy = board;
    assert_eq!(copy.play(SlideMove::Slide { from: 0, to: 1 }), Err(SlideMoveError::NotSlidePhase(1)));
    copy.play(SlideMove::Place(4)).unwrap();
    assert_eq!(copy.play(SlideMove::Place(4)), Err(SlideMoveError::Occupied(5)));
}

#[test]
fn slides_must_be_own_tiles_into_adjacent_empty_squares() {
    // Rows b b o / o o b / b g g with k = 2: every tile is placed, so tiles slide.
    let v = variant(3, 2);
    let board = Slide::from_notation(&v, "bobbogobg").unwrap();
    assert!(!board.is_placement_phase());
    let mut moves = Vec::new();
    board.legal_moves(&mut moves);
    assert!(!moves.is_empty());
    for mv in &moves {
        let SlideMove::Slide { from, to } = *mv else { panic!("placement in slide phase") };
        assert!(board.adjacent(from, to));
    }
    assert_eq!(board.illegal_reason(SlideMove::Place(8)), Some(SlideMoveError::NotPlacementPhase));
}

#[test]
fn configuration_strings_round_trip_and_reject_nonsense() {
    let v = variant(3, 1);
    for text in ["ggggggggg", "obbbogbog", "obbboobog"] {
        assert_eq!(Slide::from_notation(&v, text).unwrap().notation(), text);
    }
    assert!(matches!(Slide::from_notation(&v, "obb"), Err(SlidePositionError::Length { .. })));
    assert!(matches!(Slide::from_notation(&v, "obbbogbox"), Err(SlidePositionError::BadChar { index: 9, .. })));
    assert!(matches!(Slide::from_notation(&v, "oooogggbg"), Err(SlidePositionError::Counts { .. })));
    assert!(matches!(Slide::from_notation(&v, "bobobobob"), Err(SlidePositionError::TooFewEmpty { .. })));
    // The slide-phase side to move is written only when it is not the default.
    let k2 = variant(3, 2);
    let default = Slide::from_notation(&k2, "bobbogobg").unwrap();
    let other = Slide::from_notation(&k2, &format!("bobbogobg:{}", default.side_to_move().other())).unwrap();
    assert_ne!(default.hash(), other.hash());
    assert_eq!(Slide::from_notation(&k2, &other.notation()).unwrap(), other);
}

#[test]
fn full_board_without_line_is_a_draw_when_no_empty_square_must_stay() {
    let board = Slide::from_notation(&variant(3, 0), "bbooobbob").unwrap();
    assert_eq!(board.status(), Status::Over(Outcome::Draw));
    assert_eq!(board.end_reason().unwrap(), "the board is full with no line");
}

#[test]
fn lines_are_rows_columns_and_main_diagonals_only() {
    let v = variant(4, 2);
    // Column-major: the first four characters are column 1, top to bottom.
    let column = Slide::from_notation(&v, "bbbboooggggggggg").unwrap();
    assert!(column.has_line(Side::Blue) && !column.has_line(Side::Orange));
    // An anti-diagonal of the wrong length (3 of 4 squares) is not a line.
    let short = Slide::from_notation(&v, "gbggbgggoggogggg").unwrap();
    assert!(!short.has_line(Side::Blue));
}
