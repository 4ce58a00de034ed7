//! Cancellation (tabletop::cancel) stops every long search promptly, and the move it returns is
//! still legal. Each search here would take minutes or hours if it were not stopped.

use std::time::{Duration, Instant};

use tabletop::cancel::{run_cancellable, CancelFlag};
use tabletop::games::connect::{engine::Engine as ConnectEngine, Connect, ConnectVariant};
use tabletop::games::reversi::{classic::ClassicPlayer, engine::Engine as ReversiEngine, Reversi};
use tabletop::{Game, Player, Record};

/// Runs `work` under a flag raised after 200 ms; returns its result and how long it took.
fn cancelled_after_200ms<R>(work: impl FnOnce() -> R) -> (R, Duration) {
    let flag = CancelFlag::new();
    let raiser = flag.clone();
    let timer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        raiser.cancel();
    });
    let start = Instant::now();
    let result = run_cancellable(&flag, work);
    let elapsed = start.elapsed();
    timer.join().unwrap();
    (result, elapsed)
}

#[test]
fn reversi_engine_stops_when_cancelled() {
    let position = Reversi::new();
    let mut engine = ReversiEngine::new(Some(Duration::from_secs(3600)), None);
    let (analysis, elapsed) = cancelled_after_200ms(|| engine.analyse(&position));
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(position.is_legal(analysis.best));
}

#[test]
fn reversi_classic_depth_20_stops_when_cancelled() {
    let record = Record::new(Reversi::new());
    let mut player = ClassicPlayer { depth: 20 };
    let (mv, elapsed) = cancelled_after_200ms(|| player.choose_move(&record));
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(record.current().is_legal(mv));
}

#[test]
fn connect_engine_stops_when_cancelled() {
    let variant = ConnectVariant::new(8, 7, 4).unwrap();
    let record = Record::new(Connect::new(variant));
    let mut engine = ConnectEngine::with_table(variant, Duration::from_secs(3600), 1 << 16);
    let (mv, elapsed) = cancelled_after_200ms(|| engine.choose_move(&record));
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    assert!(record.current().is_legal(mv));
}

#[test]
fn nothing_is_cancelled_outside_run_cancellable() {
    let flag = CancelFlag::new();
    flag.cancel();
    assert!(!tabletop::cancel::cancelled());
    let mut engine = ReversiEngine::new(None, Some(3));
    let analysis = engine.analyse(&Reversi::new());
    assert_eq!(analysis.depth, 3, "a finished search is not cut short");
}
