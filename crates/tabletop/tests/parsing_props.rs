//! Parsers never panic on arbitrary text, and what they print they read back.

use proptest::prelude::*;
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
    fn player_spec_parser_never_panics(text in "\\PC{0,30}") {
        let _ = text.parse::<PlayerSpec>();
    }
}
