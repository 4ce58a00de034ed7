//! Reversi: conformance suite, perft counts (generic and specialised), notation.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop::conformance::check_playouts;
use tabletop::games::reversi::perft::{perft as fast_perft, perft_hashed};
use tabletop::games::reversi::{Reversi, ReversiMove};
use tabletop::{perft, Game, Record};

const PERFT: [u64; 14] =
    [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284, 212258800, 1939886636, 18429641748, 184042084512];

#[test]
fn reversi_passes_conformance() {
    let report = check_playouts(&Reversi::new(), 60, 80, 3);
    assert_eq!(report.finished_games, 60, "{report:?}");
    assert!(report.positions > 60 * 55, "{report:?}");
}

#[test]
fn conformance_around_passes_and_early_ends() {
    // A position where black must pass, and a wipe-out within a few moves.
    for text in [
        "OOOOOOX-OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO X",
        "---------------------------XX------XO--------------------------- X",
    ] {
        let pos: Reversi = text.trim().parse().unwrap();
        check_playouts(&pos, 20, 64, 9);
    }
}

#[test]
fn generic_perft_depths_1_to_8() {
    let start = Reversi::new();
    for depth in 1..=8 {
        assert_eq!(perft(&start, depth), PERFT[depth as usize - 1], "depth {depth}");
    }
}

#[test]
fn fast_perft_depths_1_to_10() {
    let start = Reversi::new();
    for depth in 1..=10 {
        assert_eq!(fast_perft(&start, depth), PERFT[depth as usize - 1], "depth {depth}");
    }
}

#[test]
fn hashed_perft_depths_1_to_11() {
    let start = Reversi::new();
    for depth in 1..=11 {
        assert_eq!(perft_hashed(&start, depth, 22).unwrap(), PERFT[depth as usize - 1], "depth {depth}");
    }
    // A tiny table: buckets overflow and entries are replaced all the time.
    for depth in 1..=10 {
        assert_eq!(perft_hashed(&start, depth, 10).unwrap(), PERFT[depth as usize - 1], "small table, depth {depth}");
    }
}

#[test]
fn hashed_perft_depth_12() {
    assert_eq!(perft_hashed(&Reversi::new(), 12, 20).unwrap(), PERFT[11]);
}

#[test]
fn hashed_perft_around_passes_and_game_ends() {
    // Positions with passes and early ends, and late positions of seeded random games counted
    // beyond the end of the game: the table must count passes and finished games as the plain
    // perft does.
    let mut positions: Vec<Reversi> = [
        "OOOOOOX-OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO X",
        "---------------------------XX------XO--------------------------- X",
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut moves = Vec::new();
    while positions.len() < 14 {
        let mut game = Reversi::new();
        while !game.is_over() && game.open_squares() > rng.gen_range(7..=10) {
            game.legal_moves(&mut moves);
            game.play_unchecked(moves[rng.gen_range(0..moves.len())]);
        }
        positions.push(game);
    }
    for position in &positions {
        for depth in [1, 2, 3, 4, 5, 7, 9, 12, 14] {
            let plain = fast_perft(position, depth);
            assert_eq!(perft_hashed(position, depth, 12).unwrap(), plain, "{position} depth {depth}");
            assert_eq!(perft(position, depth.min(9)), fast_perft(position, depth.min(9)), "{position}");
        }
    }
}

#[test]
fn generic_perft_depth_9_and_10() {
    let start = Reversi::new();
    assert_eq!(perft(&start, 9), PERFT[8]);
    assert_eq!(perft(&start, 10), PERFT[9]);
}

#[test]
fn pass_and_game_end() {
    // Black wipes white out with f6.
    let mut game: Reversi = "---------------------------XX------XO--------------------------- X".parse().unwrap();
    game.play_transcript("f6").unwrap();
    assert!(game.is_over());
    assert_eq!(game.status(), tabletop::Status::Over(tabletop::Outcome::Win(tabletop::Seat(0))));
    assert_eq!(game.final_score(tabletop::games::reversi::Color::Black), 64);
    let mut list = Vec::new();
    game.legal_moves(&mut list);
    assert!(list.is_empty());
    // A forced pass: white to move with no placement.
    let pos: Reversi = "OOOOOOX-OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO X".parse().unwrap();
    pos.legal_moves(&mut list);
    assert_eq!(list, vec![ReversiMove::Pass]);
    let mut record = Record::new(pos);
    assert!(record.play("h2".parse().unwrap()).is_err());
    record.play(ReversiMove::Pass).unwrap();
    assert_eq!(record.current().side_to_move(), tabletop::games::reversi::Color::White);
    // The transcript reader inserts the pass itself.
    let mut again = pos;
    assert_eq!(again.play_transcript("h1").unwrap(), vec![ReversiMove::Pass, "h1".parse().unwrap()]);
    assert!(again.is_over());
}
