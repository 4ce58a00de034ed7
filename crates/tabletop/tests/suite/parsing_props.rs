//! Parsers never panic on arbitrary text, and what they print they read back.

use proptest::prelude::*;
use tabletop::games::connect::book::Book;
use tabletop::games::mathable::{Mathable, SaveState, Settings};
use tabletop::games::reversi::eval::{Weights, FEATURES};
use tabletop::games::slide::{Slide, SlideVariant};
use tabletop::{Game, PlayerSpec};

proptest! {
    #[test]
    fn slide_parsers_never_panic(text in "\\PC{0,20}", size in 3usize..=8, empty in 0usize..10) {
        if let Ok(variant) = SlideVariant::new(size, empty) {
            let start = Slide::start(&variant);
            if let Ok(mv) = start.parse_move(&text) {
                prop_assert_eq!(start.parse_move(&mv.to_string()).unwrap(), mv);
            }
            if let Ok(position) = Slide::from_notation(&variant, &text) {
                prop_assert_eq!(Slide::from_notation(&variant, &position.notation()).unwrap(), position);
            }
        }
    }

    #[test]
    fn configuration_strings_of_legal_shape_round_trip(cells in proptest::collection::vec(0u8..3, 9)) {
        let text: String = cells.iter().map(|c| ['g', 'b', 'o'][*c as usize]).collect();
        let variant = SlideVariant::new(3, 1).unwrap();
        if let Ok(position) = Slide::from_notation(&variant, &text) {
            prop_assert_eq!(position.configuration(), text);
        }
    }

    #[test]
    fn player_specs_round_trip(name in "[a-z]{1,8}", pairs in proptest::collection::btree_map("[a-z]{1,6}", "[a-z0-9]{1,6}", 0..4)) {
        let text = if pairs.is_empty() {
            name.clone()
        } else {
            format!("{name}:{}", pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","))
        };
        let spec: PlayerSpec = text.parse().unwrap();
        prop_assert_eq!(spec.to_string(), text);
    }

    #[test]
    fn player_specs_with_any_values_round_trip(name in "[a-z]{1,8}", pairs in proptest::collection::btree_map("[a-z]{1,6}", "\\PC{1,16}", 1..4)) {
        // Values with commas, quotes, spaces or '=' (commands for nboard:cmd=) are quoted.
        let spec = PlayerSpec { name, settings: pairs };
        let back: PlayerSpec = spec.to_string().parse().unwrap();
        prop_assert_eq!(back, spec);
    }

    #[test]
    fn player_spec_parser_never_panics(text in "\\PC{0,30}") {
        let _ = text.parse::<PlayerSpec>();
    }

    #[test]
    fn book_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200), version in 1u8..=2) {
        let mut data = b"TTC4".to_vec();
        data.push(version);
        data.extend_from_slice(&bytes);
        if let Ok(book) = Book::from_bytes(&data) {
            prop_assert_eq!(Book::from_bytes(&book.to_bytes()).unwrap(), book);
        }
    }

    #[test]
    fn corrupting_a_book_byte_is_caught(index in 0usize..1000, flip in 1u8..=255) {
        let mut bytes = Book::standard().to_bytes();
        let i = index % bytes.len();
        bytes[i] ^= flip;
        prop_assert!(Book::from_bytes(&bytes).is_err());
    }

    #[test]
    fn weight_file_reader_never_panics(numbers in proptest::collection::vec(any::<i64>(), 10), from in 0usize..70, to in 0usize..70, junk in "\\PC{0,12}") {
        let row: Vec<String> = numbers.iter().map(|n| n.to_string()).collect();
        let text = format!("empties {}\n{from}-{to} {}\n{junk}\n", FEATURES.join(" "), row.join(" "));
        if let Ok(w) = Weights::parse(&text) {
            prop_assert!(numbers.iter().all(|n| n.abs() <= 10_000));
            prop_assert_eq!(w.row(30)[0] as i64, numbers[0]);
        }
    }

    #[test]
    fn mathable_save_reader_never_panics(
        scores in proptest::collection::vec(any::<i32>(), 0..4),
        extra in proptest::collection::vec(any::<u8>(), 0..300),
        placed in any::<u8>(),
        idle in any::<u8>(),
        to_move in any::<u8>(),
        extra_draw in any::<bool>(),
        rack in proptest::collection::vec(any::<u8>(), 0..10),
    ) {
        let mut save = SaveState::from_game(&Mathable::start(&Settings::default()), &[]);
        save.scores = scores;
        save.bag.as_mut().unwrap().extend(extra);
        save.placed_this_turn = placed;
        save.idle_turns = idle;
        save.to_move = to_move;
        save.extra_draw = extra_draw;
        save.racks[0] = rack;
        if let Ok(game) = save.to_game() {
            // What loads plays on: every legal move can be played without overflow.
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            for mv in moves.into_iter().take(20) {
                let mut next = game.clone();
                next.play(mv).unwrap();
            }
        }
        let text = save.to_json(false);
        let _ = SaveState::from_json(&text[..text.len() / 2]);
    }
}
