//! The conformance suite on Slide, sizes 3x3 to 6x6 with several k.

use tabletop::conformance::check_playouts;
use tabletop::games::slide::{Slide, SlideVariant};
use tabletop::Game;

#[test]
fn slide_passes_conformance_on_many_sizes() {
    for size in 3..=6 {
        for empty in [0, 1, 2, 3, size * size - 2] {
            let start = Slide::start(&SlideVariant::new(size, empty).unwrap());
            let report = check_playouts(&start, 30, 120, (size * 100 + empty) as u64);
            assert!(report.positions > 30 * (size * size - empty - 1) as u64, "{size}x{size} k={empty}: {report:?}");
            assert!(report.finished_games > 0, "{size}x{size} k={empty}: no game finished");
        }
    }
}
