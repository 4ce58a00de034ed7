//! Mathable rules: every scoring rule, restriction squares, zero and division, the bonus, the
//! end of the game and its deductions, ties, exchanges, notation and the save format.

use tabletop::games::mathable::{
    Cell, EndCause, EndRefusal, Layout, Mathable, MathableMove, MathableMoveError, Operations, PlacementError, Preset,
    SaveState, Settings,
};
use tabletop::{Game, Outcome, Seat, SeatSet, Status};

/// A position of `settings` with extra tokens on the board, the given racks and the rest of the
/// token set in the bag.
fn setup(settings: Settings, tokens: &[(&str, u8)], racks: &[&[u8]]) -> Mathable {
    let game = Mathable::new(&settings).unwrap();
    let mut save = SaveState::from_game(&game, &[]);
    let mut grid: Vec<Vec<String>> = save.board.iter().map(|r| r.split(' ').map(String::from).collect()).collect();
    for (cell, v) in tokens {
        let c: Cell = cell.parse().unwrap();
        grid[c.row as usize][c.col as usize] = v.to_string();
    }
    save.board = grid.iter().map(|r| r.join(" ")).collect();
    save.racks = racks.iter().map(|r| r.to_vec()).collect();
    save.bag = None;
    save.to_game().unwrap()
}

fn classic() -> Settings {
    Settings::preset(Preset::Classic)
}

fn simple() -> Settings {
    Settings::preset(Preset::Simple)
}

fn place(cell: &str, token: u8) -> MathableMove {
    MathableMove::Place { cell: cell.parse().unwrap(), token }
}

fn points(game: &Mathable, cell: &str, token: u8) -> Result<u32, PlacementError> {
    game.board().score(cell.parse().unwrap(), token)
}

#[test]
fn one_two_three_and_four_equations() {
    // G9 is below G8=3, G7=1: 3+1 = 4 is one equation.
    let g = setup(simple(), &[], &[&[4], &[]]);
    assert_eq!(points(&g, "G9", 4), Ok(4));
    // Left of G9: F9=2, E9=2 gives 4 by + and by x: one more direction, counted once.
    let g = setup(simple(), &[("F9", 2), ("E9", 2)], &[&[4], &[]]);
    assert_eq!(points(&g, "G9", 4), Ok(8));
    // Right: H9=1, I9=4 (1x4).
    let g = setup(simple(), &[("F9", 2), ("E9", 2), ("H9", 1), ("I9", 4)], &[&[4], &[]]);
    assert_eq!(points(&g, "G9", 4), Ok(12));
    // Down: G10=8, G11=2 (8/2).
    let mut g = setup(simple(), &[("F9", 2), ("E9", 2), ("H9", 1), ("I9", 4), ("G10", 8), ("G11", 2)], &[&[4], &[]]);
    assert_eq!(points(&g, "G9", 4), Ok(16));
    g.play(place("G9", 4)).unwrap();
    assert_eq!(g.score(Seat(0)), 16);
}

#[test]
fn a_token_between_two_tokens_does_not_use_them() {
    // F7 sits between E7 and G7: E7=3 and G7=1 do not make an equation for F7.
    let g = setup(simple(), &[("E7", 3)], &[&[4], &[]]);
    // F7's left pair is E7=3, D7 empty; its right pair is G7=1, H7=2 (3, 1, 2, 2).
    assert!(points(&g, "F7", 4).is_err());
    assert_eq!(points(&g, "F7", 3), Ok(3));
}

#[test]
fn double_and_triple_squares() {
    // E5 is 2x: E4=5, E3=2 above it.
    let g = setup(classic(), &[("E4", 5), ("E3", 2)], &[&[7], &[]]);
    assert_eq!(points(&g, "E5", 7), Ok(14));
    // A1 is 3x: B1=6, C1=3 to its right give 9, 3, 18 and 2.
    let g = setup(classic(), &[("B1", 6), ("C1", 3)], &[&[9], &[]]);
    assert_eq!(points(&g, "A1", 9), Ok(27));
    assert_eq!(points(&g, "A1", 2), Ok(6));
    // Two equations on a 2x square: both apply.
    let g = setup(classic(), &[("E4", 5), ("E3", 2), ("F5", 3), ("G5", 4)], &[&[7], &[]]);
    assert_eq!(points(&g, "E5", 7), Ok(28));
}

#[test]
fn each_restriction_square_takes_only_its_operation() {
    // G4 is +: G5=3, G6=4 below it.
    let g = setup(classic(), &[("G5", 3), ("G6", 4)], &[&[7, 12, 1], &[]]);
    assert_eq!(points(&g, "G4", 7), Ok(7));
    assert!(matches!(points(&g, "G4", 12), Err(PlacementError::Restriction { .. })));
    assert!(matches!(points(&g, "G4", 1), Err(PlacementError::Restriction { .. })));
    assert_eq!(
        g.illegal_reason(place("G4", 12)).unwrap().to_string(),
        "G4 is a + square: 12 must be the sum of the two tokens next to it"
    );
    // F3 is -: F4=9, F5=4.
    let g = setup(classic(), &[("F4", 9), ("F5", 4)], &[&[5, 13], &[]]);
    assert_eq!(points(&g, "F3", 5), Ok(5));
    assert!(matches!(points(&g, "F3", 13), Err(PlacementError::Restriction { .. })));
    // H4 is x: H5=3, H6=4.
    let g = setup(classic(), &[("H5", 3), ("H6", 4)], &[&[12, 7], &[]]);
    assert_eq!(points(&g, "H4", 12), Ok(12));
    assert!(matches!(points(&g, "H4", 7), Err(PlacementError::Restriction { .. })));
    // E2 is /: E3=8, E4=2.
    let g = setup(classic(), &[("E3", 8), ("E4", 2)], &[&[4, 10], &[]]);
    assert_eq!(points(&g, "E2", 4), Ok(4));
    assert!(matches!(points(&g, "E2", 10), Err(PlacementError::Restriction { .. })));
    // On a + square only + equations count: F4=14, E4=7 to the left of G4 give 7 by - only.
    let g = setup(classic(), &[("G5", 3), ("G6", 4), ("F4", 14), ("E4", 7)], &[&[7], &[]]);
    assert_eq!(points(&g, "G4", 7), Ok(7));
    let g = setup(classic(), &[("G5", 3), ("G6", 4), ("F4", 3), ("E4", 4)], &[&[7], &[]]);
    assert_eq!(points(&g, "G4", 7), Ok(14));
}

#[test]
fn a_restriction_square_allows_one_extra_draw_at_once() {
    let mut g = setup(classic(), &[("G5", 3), ("G6", 4)], &[&[7, 1, 1], &[]]);
    let bag = g.bag().len();
    assert_eq!(g.illegal_reason(MathableMove::Draw), Some(MathableMoveError::NoDraw));
    g.play(place("G4", 7)).unwrap();
    assert!(g.extra_draw_pending());
    g.play(MathableMove::Draw).unwrap();
    assert_eq!((g.rack(Seat(0)).len(), g.bag().len()), (3, bag - 1));
    assert!(g.play(MathableMove::Draw).is_err(), "only one extra draw");
    // The draw is optional and lapses with the next move.
    let mut g = setup(classic(), &[("G5", 3), ("G6", 4)], &[&[7, 2], &[]]);
    g.play(place("G4", 7)).unwrap();
    g.play(place("G9", 2)).unwrap();
    assert!(!g.extra_draw_pending() && g.play(MathableMove::Draw).is_err());
}

#[test]
fn zero_and_division_edge_cases() {
    // 5 and 5: 0 = 5-5 and 1 = 5/5.
    let g = setup(simple(), &[("G9", 5), ("G10", 5)], &[&[0, 1], &[]]);
    assert_eq!(points(&g, "G11", 0), Ok(0));
    assert_eq!(points(&g, "G11", 1), Ok(1));
    // 0 and 7 (0 nearer): 0 = 0x7 = 0/7, 7 = 7+0 = 7-0; 7/0 is never taken.
    let g = setup(simple(), &[("G9", 0), ("G10", 7)], &[&[7], &[]]);
    // G9=0 is below G8=3 too, but G9 is occupied; look below G10: pair (7, 0).
    assert_eq!(points(&g, "G11", 0), Ok(0));
    assert_eq!(points(&g, "G11", 7), Ok(7));
    assert!(points(&g, "G11", 1).is_err());
    // 7 nearer and 0 farther: 7/0 is never taken either.
    let g = setup(simple(), &[("A2", 0), ("A1", 7)], &[&[], &[]]);
    assert_eq!(points(&g, "A3", 7), Ok(7));
    assert!(points(&g, "A3", 1).is_err());
    // Inexact division is refused: 7 and 2 give 9, 5, 14 but not 3.
    let g = setup(simple(), &[("G9", 7), ("G10", 2)], &[&[3], &[]]);
    assert!(matches!(points(&g, "G11", 3), Err(PlacementError::NoEquation { .. })));
    assert_eq!(points(&g, "G11", 14), Ok(14));
}

#[test]
fn junior_allows_only_addition_and_subtraction() {
    let junior = Settings::preset(Preset::Junior);
    let g = setup(junior, &[], &[&[7, 12], &[]]);
    // Junior's 10x10 board: start tiles E5=1, F5=2, E6=3, F6=4; F7 below F6, F5 is 4+2, 4-2.
    assert_eq!(points(&g, "F7", 6), Ok(6));
    assert!(points(&g, "F7", 8).is_err(), "4x2 is not allowed in junior");
    assert_eq!(Operations::AddSub, junior.operations);
}

#[test]
fn the_bonus_needs_a_full_rack_placed_in_one_turn() {
    let settings = Settings { layout: Layout::Plain, ..classic() };
    let pairs = [
        ("A1", 1),
        ("B1", 3),
        ("A3", 2),
        ("B3", 2),
        ("A5", 8),
        ("B5", 2),
        ("A10", 5),
        ("B10", 1),
        ("A12", 9),
        ("B12", 5),
        ("A14", 6),
        ("B14", 2),
        ("N1", 12),
        ("N2", 3),
    ];
    let spots = ["C1", "C3", "C5", "C10", "C12", "C14", "N3"];
    let mut g = setup(settings, &pairs, &[&[4; 7], &[]]);
    for spot in spots {
        g.play(place(spot, 4)).unwrap();
    }
    assert_eq!(g.score(Seat(0)), 28);
    assert_eq!(g.pending_bonus(), 50);
    g.play(MathableMove::EndTurn).unwrap();
    assert_eq!(g.score(Seat(0)), 78);
    assert_eq!(g.rack(Seat(0)).len(), 7, "refilled");
    // A turn that began with 6 tokens earns no bonus.
    let mut g = setup(settings, &pairs, &[&[4; 6], &[]]);
    for spot in &spots[..6] {
        g.play(place(spot, 4)).unwrap();
    }
    g.play(MathableMove::EndTurn).unwrap();
    assert_eq!(g.score(Seat(0)), 24);
}

/// An 8x8 junior position (rack 4) with every token on the board except those of the racks and
/// the bag: the empty cells are row 1 and H8, and the cells next to them (rows 2 and 3, G8, F8,
/// H7, H6) hold the smallest tokens, so that only small sums and differences fit there.
fn nearly_full(deductions: bool, racks: [&[u8]; 2], bag: &[u8], scores: [i32; 2]) -> Mathable {
    let settings = Settings { size: 8, rack: 4, deductions, ..Settings::preset(Preset::Junior) };
    let mut tokens: Vec<u8> = (1..=10).flat_map(|v| [v; 5]).chain(11..=20).collect();
    for &v in racks.iter().flat_map(|r| r.iter()).chain(bag) {
        let at = tokens.iter().position(|&t| t == v).unwrap();
        tokens.remove(at);
    }
    tokens.sort_unstable();
    let game = Mathable::new(&settings).unwrap();
    let cell = |name: &str| name.parse::<Cell>().unwrap();
    let empty: Vec<Cell> = ["A1", "B1", "C1", "D1", "E1", "F1", "G1", "H1", "H8"].map(cell).to_vec();
    let mut order: Vec<Cell> =
        ["2", "3"].iter().flat_map(|r| "ABCDEFGH".chars().map(move |c| cell(&format!("{c}{r}")))).collect();
    order.extend(["G8", "F8", "H7", "H6"].map(cell));
    let board = game.board();
    let rest: Vec<Cell> =
        board.cells().filter(|c| board.get(*c).is_none() && !empty.contains(c) && !order.contains(c)).collect();
    order.extend(rest);
    assert_eq!(order.len(), tokens.len());
    let mut save = SaveState::from_game(&game, &[]);
    let mut grid: Vec<Vec<String>> = save.board.iter().map(|r| r.split(' ').map(String::from).collect()).collect();
    for (c, v) in order.iter().zip(&tokens) {
        grid[c.row as usize][c.col as usize] = v.to_string();
    }
    save.board = grid.iter().map(|r| r.join(" ")).collect();
    save.racks = racks.iter().map(|r| r.to_vec()).collect();
    save.bag = Some(bag.to_vec());
    save.scores = scores.to_vec();
    save.to_game().unwrap()
}

/// Issue 25: passing alone never ends a game (it used to after every player passed twice).
#[test]
fn four_passes_at_the_start_do_not_end_a_two_player_game() {
    let mut g = Mathable::new(&classic().with_seed(3)).unwrap();
    for _ in 0..4 {
        g.play(MathableMove::EndTurn).unwrap();
    }
    assert_eq!(g.end_cause(), None);
    assert_eq!(g.status(), Status::ToMove(Seat(0)));
    assert_eq!(g.idle_turns(), 4);
    // Four exchanges neither.
    for _ in 0..4 {
        let rack = *g.rack(g.turn());
        g.play(MathableMove::Exchange(rack)).unwrap();
    }
    assert_eq!(g.status(), Status::ToMove(Seat(0)));
}

/// Issue 25: when no token off the board (racks and bag) fits any empty cell, no equation can
/// ever be made again: the game ends after the turn, the bag still holding a token, and each
/// player loses the face value left on the rack.
#[test]
fn a_position_where_nothing_fits_ends_after_the_turn_with_deductions() {
    let racks: [&[u8]; 2] = [&[12, 13, 14, 15], &[16, 17, 18, 19]];
    let mut g = nearly_full(true, racks, &[20], [100, 90]);
    assert!(!g.equations_left());
    assert_eq!(g.end_cause(), None, "a saved position ends after a turn");
    g.play(MathableMove::EndTurn).unwrap();
    assert_eq!(g.end_cause(), Some(EndCause::Blocked));
    assert_eq!(g.bag().len(), 1);
    assert_eq!(g.scores(), &[100 - 54, 90 - 70]);
    assert_eq!(g.status(), Status::Over(Outcome::Win(Seat(0))));
    assert_eq!(g.end_reason().as_deref(), Some("no more equations can be made"));
    // Without deductions the scores stand.
    let mut g = nearly_full(false, racks, &[20], [0, 0]);
    g.play(MathableMove::EndTurn).unwrap();
    assert_eq!(g.end_cause(), Some(EndCause::Blocked));
    assert_eq!(g.scores(), &[0, 0]);
    assert_eq!(g.status(), Status::Over(Outcome::Draw));
}

/// Issue 25: when only a token in the bag fits, the game goes on however often players pass,
/// and an exchange brings that token to a rack.
#[test]
fn a_position_where_only_the_bag_fits_goes_on() {
    let mut g = nearly_full(false, [&[12, 13, 14, 15], &[16, 17, 18, 19]], &[1], [0, 0]);
    assert!(g.equations_left());
    assert!(g.placements().is_empty());
    for _ in 0..6 {
        g.play(MathableMove::EndTurn).unwrap();
        assert_eq!(g.end_cause(), None);
    }
    g.play(MathableMove::Exchange("12".parse().unwrap())).unwrap();
    assert_eq!(g.rack(Seat(0)).as_slice(), &[1, 13, 14, 15]);
    g.play(MathableMove::EndTurn).unwrap();
    let fits = g.placements();
    assert!(fits.iter().any(|p| p.token == 1), "{fits:?}");
    g.play(MathableMove::Place { cell: fits[0].cell, token: 1 }).unwrap();
    g.play(MathableMove::EndTurn).unwrap();
    assert_eq!(g.status().to_move().is_some(), g.equations_left());
}

/// Saves of games that ended by the old passing rule, or blocked under its old name, load as
/// finished.
#[test]
fn old_saves_that_ended_by_passes_stay_finished() {
    let mut save = SaveState::from_game(&Mathable::new(&classic()).unwrap(), &[]);
    save.idle_turns = 4;
    save.ended = Some("every player passed twice".to_string());
    let g = save.to_game().unwrap();
    assert_eq!(g.end_cause(), Some(EndCause::Passes));
    assert_eq!(g.status(), Status::Over(Outcome::Draw));
    assert_eq!(SaveState::from_game(&g, &[]).ended.as_deref(), Some("every player passed twice"));
    save.ended = Some("bag empty and no player can place".to_string());
    assert_eq!(save.to_game().unwrap().end_cause(), Some(EndCause::Blocked));
    // A game in progress with many passes behind it loads (passing no longer ends games).
    save.ended = None;
    save.idle_turns = 200;
    assert_eq!(save.to_game().unwrap().status(), Status::ToMove(Seat(0)));
}

/// Issue 25: terminate against the computer is the computer's to accept.
#[test]
fn the_computer_agrees_to_end_only_when_it_leads_or_cannot_catch_up() {
    // Early in the game, behind by a placement: it can still catch up; level: it can still win.
    let mut g = Mathable::new(&classic().with_seed(3)).unwrap();
    assert_eq!(g.agrees_to_end(Seat(1)), Err(EndRefusal::SharesTheLead));
    let p = g.placements()[0];
    g.play(MathableMove::Place { cell: p.cell, token: p.token }).unwrap();
    assert_eq!(g.agrees_to_end(Seat(1)), Err(EndRefusal::CanCatchUp));
    // Ahead, it agrees (ending makes it win).
    assert_eq!(g.agrees_to_end(Seat(0)), Ok(()));
    // Nobody can place: it agrees even far behind.
    let g = nearly_full(true, [&[12, 13, 14, 15], &[16, 17, 18, 19]], &[20], [500, 0]);
    assert_eq!(g.agrees_to_end(Seat(1)), Ok(()));
    // It cannot catch up: 1 + 12 + ... + 19 = 125 left, 4 directions, no 2x or 3x square on the
    // plain board, no bonus: at most 500 more points.
    let racks: [&[u8]; 2] = [&[12, 13, 14, 15], &[16, 17, 18, 19]];
    let g = nearly_full(false, racks, &[1], [501, 0]);
    assert_eq!(g.most_points_left(), 500);
    assert_eq!(g.agrees_to_end(Seat(1)), Ok(()));
    let g = nearly_full(false, racks, &[1], [500, 0]);
    assert_eq!(g.agrees_to_end(Seat(1)), Err(EndRefusal::CanCatchUp));
    // With deductions the leader may still lose the largest rack of unplaced tokens (19 + 18 +
    // 17 + 16 = 70): the computer agrees only when the lead is above 500 + 70.
    let g = nearly_full(true, racks, &[1], [570, 0]);
    assert_eq!(g.agrees_to_end(Seat(1)), Err(EndRefusal::CanCatchUp));
    let g = nearly_full(true, racks, &[1], [571, 0]);
    assert_eq!(g.agrees_to_end(Seat(1)), Ok(()));
}

#[test]
fn greedy_games_end_by_the_rules_with_deductions() {
    use tabletop::games::mathable::players::greedy_move;
    let mut causes = Vec::new();
    for seed in 0..6 {
        let mut g = Mathable::new(&classic().with_seed(seed)).unwrap();
        let mut before = [0; 2];
        while g.status().to_move().is_some() {
            before = [g.score(Seat(0)), g.score(Seat(1))];
            let mv = greedy_move(&g);
            g.play(mv).unwrap();
        }
        let cause = g.end_cause().unwrap();
        causes.push(cause);
        g.check_conservation().unwrap();
        if cause == EndCause::RackEmptied {
            assert!(g.bag().is_empty());
        }
        if cause == EndCause::Blocked {
            assert!(!g.equations_left());
        }
        // The last move scored nothing more (end of turn without bonus) and the racks were deducted.
        for (s, &b) in before.iter().enumerate() {
            let left = g.rack(Seat(s as u8)).sum() as i32;
            assert!(g.score(Seat(s as u8)) <= b - left + 50, "seed {seed}");
        }
    }
    assert!(causes.iter().any(|c| *c != EndCause::Terminated), "{causes:?}");
}

#[test]
fn ties_are_draws_or_shared_wins() {
    let mut save = SaveState::from_game(&Mathable::new(&classic()).unwrap(), &[]);
    save.scores = vec![10, 10];
    let mut g = save.to_game().unwrap();
    g.play(MathableMove::Terminate).unwrap();
    assert_eq!(g.status(), Status::Over(Outcome::Draw));
    assert_eq!(g.scores(), &[10, 10], "terminate ranks by current scores, no deductions");
    let three = Settings { players: 3, ..classic() };
    let mut save = SaveState::from_game(&Mathable::new(&three).unwrap(), &[]);
    save.scores = vec![10, 5, 10];
    let mut g = save.to_game().unwrap();
    g.play(MathableMove::Terminate).unwrap();
    assert_eq!(g.status(), Status::Over(Outcome::SharedWin(SeatSet::from_seats([Seat(0), Seat(2)]))));
}

#[test]
fn exchanges() {
    let mut g = Mathable::new(&classic().with_seed(3)).unwrap();
    let rack = *g.rack(Seat(0));
    let two = tabletop::games::mathable::Tokens::from_slice(&rack.as_slice()[..2]).unwrap();
    let swapped = g.exchange(two).unwrap();
    assert_eq!(swapped.len(), 2);
    assert_eq!(g.turn(), Seat(1), "an exchange ends the turn");
    assert_eq!(g.bag().len(), 106 - 14);
    // Not after a placement.
    let mut g = setup(classic(), &[], &[&[4, 5], &[]]);
    g.play(place("G9", 4)).unwrap();
    let five = tabletop::games::mathable::Tokens::from_slice(&[5]).unwrap();
    assert_eq!(g.illegal_reason(MathableMove::Exchange(five)), Some(MathableMoveError::ExchangeAfterPlacement));
    // Not when the bag is short.
    let g = Mathable::new(&classic()).unwrap();
    let mut save = SaveState::from_game(&g, &[]);
    let bag = save.bag.take().unwrap();
    let rack0 = save.racks[0].clone();
    // Move all but 3 bag tokens onto the board.
    let mut grid: Vec<Vec<String>> = save.board.iter().map(|r| r.split(' ').map(String::from).collect()).collect();
    let mut rest = bag.iter();
    'fill: for row in grid.iter_mut() {
        for cell in row.iter_mut() {
            if rest.len() <= 3 {
                break 'fill;
            }
            if cell == "." {
                *cell = rest.next().unwrap().to_string();
            }
        }
    }
    save.board = grid.iter().map(|r| r.join(" ")).collect();
    save.bag = Some(rest.copied().collect());
    let g = save.to_game().unwrap();
    let four = tabletop::games::mathable::Tokens::from_slice(&rack0[..4]).unwrap();
    assert_eq!(
        g.illegal_reason(MathableMove::Exchange(four)).unwrap().to_string(),
        "the bag holds only 3 tokens, fewer than the 4 you want to exchange"
    );
}

#[test]
fn cells_and_moves_read_case_insensitively() {
    let g = Mathable::new(&classic()).unwrap();
    assert_eq!(g.parse_move("g9 4"), Ok(place("G9", 4)));
    assert_eq!(g.parse_move("G9=4").unwrap().to_string(), "G9=4");
    assert!(g.parse_move("Q9 4").unwrap_err().to_string().contains("off the board"));
    assert!(g.parse_move("G9 x").unwrap_err().to_string().contains("not a token"));
    assert_eq!(g.parse_move("swap 14 32").unwrap().to_string(), "swap=14,32");
    assert_eq!(g.parse_move("E"), Ok(MathableMove::EndTurn));
    let small = Mathable::new(&Settings { size: 8, ..simple() }).unwrap();
    assert!(matches!(
        small.illegal_reason(place("K2", 3)),
        Some(MathableMoveError::Placement(PlacementError::OffBoard(_)))
    ));
}

#[test]
fn settings_are_validated() {
    for bad in [
        Settings { size: 9, ..classic() },
        Settings { size: 16, ..classic() },
        Settings { players: 5, ..classic() },
        Settings { rack: 3, ..classic() },
    ] {
        assert!(Mathable::new(&bad).is_err());
    }
    assert_eq!("Junior".parse::<Preset>(), Ok(Preset::Junior));
    assert!("blitz".parse::<Preset>().unwrap_err().to_string().contains("valid presets"));
}

#[test]
fn a_game_replays_from_its_seed_and_saves_round_trip() {
    let settings = classic().with_seed(11);
    let mut a = Mathable::new(&settings).unwrap();
    let mut moves = Vec::new();
    for _ in 0..30 {
        if a.status().to_move().is_none() {
            break;
        }
        let mv = tabletop::games::mathable::players::greedy_move(&a);
        a.play(mv).unwrap();
        moves.push(mv);
    }
    let mut b = Mathable::new(&settings).unwrap();
    for mv in &moves {
        b.play(*mv).unwrap();
    }
    assert_eq!(a, b);
    let history: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let text = SaveState::from_game(&a, &history).to_json(true);
    let loaded = SaveState::from_json(&text).unwrap();
    assert_eq!(loaded.history, history);
    let c = loaded.to_game().unwrap();
    assert_eq!(c, a);
    // The bag goes on identically after loading.
    let (mut a2, mut c2) = (a.clone(), c.clone());
    a2.play(MathableMove::EndTurn).unwrap();
    c2.play(MathableMove::EndTurn).unwrap();
    assert_eq!(a2, c2);
}
