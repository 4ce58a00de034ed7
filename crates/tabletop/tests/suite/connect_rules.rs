//! Connect-N rules: conformance on several sizes, perft, notation errors.

use tabletop::conformance::check_playouts;
use tabletop::games::connect::{Connect, ConnectPositionError, ConnectVariant};
use tabletop::{perft, Game, Outcome, Seat, Status};

#[test]
fn conformance_on_several_sizes() {
    let sizes = [(4, 3, 3), (6, 4, 4), (7, 6, 4), (3, 3, 3), (9, 5, 5), (8, 7, 6), (5, 9, 4), (9, 6, 3), (3, 9, 6)];
    for (i, &(w, h, n)) in sizes.iter().enumerate() {
        let start = Connect::start(&ConnectVariant::new(w, h, n).unwrap());
        let report = check_playouts(&start, 40, 100, 1000 + i as u64);
        assert!(report.finished_games == 40, "{w}x{h}/{n}: {report:?}");
        assert!(report.positions > 40 * n as u64, "{w}x{h}/{n}: {report:?}");
    }
}

#[test]
fn perft_7x6_to_depth_8() {
    let start = Connect::start(&ConnectVariant::connect4());
    let expected = [7u64, 49, 343, 2401, 16807, 117649, 823536, 5686266];
    for (d, &e) in expected.iter().enumerate() {
        assert_eq!(perft(&start, d as u32 + 1), e, "depth {}", d + 1);
    }
}

#[test]
fn perft_7x6_depth_9() {
    let start = Connect::start(&ConnectVariant::connect4());
    assert_eq!(perft(&start, 9), 39452034);
}

#[test]
fn variants_and_presets() {
    assert!(ConnectVariant::new(9, 7, 4).is_err());
    assert!(ConnectVariant::new(8, 7, 4).is_ok());
    assert!(ConnectVariant::new(2, 7, 3).is_err());
    assert!(ConnectVariant::new(4, 3, 5).is_err());
    assert!(ConnectVariant::new(4, 3, 2).is_err());
    assert_eq!("connect3".parse::<ConnectVariant>().unwrap(), ConnectVariant::new(4, 3, 3).unwrap());
    assert_eq!("connect4-6x4".parse::<ConnectVariant>().unwrap(), ConnectVariant::new(6, 4, 4).unwrap());
    assert_eq!("5x4/3".parse::<ConnectVariant>().unwrap().to_string(), "5x4/3");
    assert!("connect9".parse::<ConnectVariant>().is_err());
}

#[test]
fn notation_errors_say_which_move_and_why() {
    let v = ConnectVariant::connect3();
    assert_eq!(Connect::from_notation(&v, "1111"), Err(ConnectPositionError::Full { index: 4, column: 1 }));
    assert_eq!(
        Connect::from_notation(&v, "125"),
        Err(ConnectPositionError::OffBoard { index: 3, column: 5, width: 4 })
    );
    assert_eq!(Connect::from_notation(&v, "12a"), Err(ConnectPositionError::Syntax { index: 3, found: 'a' }));
    // X plays 1, 1, 1 vertically (O plays 2, 2): X wins at move 5; move 6 is refused.
    let err = Connect::from_notation(&v, "121213").unwrap_err();
    assert_eq!(err, ConnectPositionError::AfterWin { index: 6, winner: 'X', won_at: 5 });
    assert!(err.to_string().contains("move 6"));
    let won = Connect::from_notation(&v, "12121").unwrap();
    assert_eq!(won.status(), Status::Over(Outcome::Win(Seat(0))));
}

#[test]
fn diagonal_and_horizontal_wins() {
    let v = ConnectVariant::connect4();
    // X: 1,2,3,4 on the bottom row.
    let p = Connect::from_notation(&v, "1122334").unwrap();
    assert_eq!(p.status(), Status::Over(Outcome::Win(Seat(0))));
    // Diagonal for X: (c1,r1) (c2,r2) (c3,r3) (c4,r4).
    let p = Connect::from_notation(&v, "12233434464").unwrap();
    assert_eq!(p.status(), Status::Over(Outcome::Win(Seat(0))), "{p}");
}
