//! The document's worked example (the solver is checked against a brute-force solver in the
//! CLI tests, through `tabletop solve slide --json`).

use tabletop::games::slide::solver::SlideSolver;
use tabletop::games::slide::{Side, Slide, SlideVariant};
use tabletop::{Game, Outcome, Status};

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
