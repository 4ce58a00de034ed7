//! The midgame-accuracy benchmark (`games::reversi::accuracy`): its seeded positions, and
//! losses checked against every move's exact value from `Solver::solve_all`, on small
//! positions (12-14 empties) that solve in an instant.

use tabletop::games::reversi::accuracy::{measure, players_from_specs, positions, AccuracyError};
use tabletop::games::reversi::solver::Solver;
use tabletop::games::reversi::{Reversi, ReversiMove};
use tabletop::{Player, Record};

/// Plays the best (or the worst) move by every move's exact value.
struct Solved {
    solver: Solver,
    worst: bool,
}

impl Player<Reversi> for Solved {
    fn describe(&self) -> String {
        if self.worst { "worst" } else { "perfect" }.to_string()
    }

    fn choose_move(&mut self, record: &Record<Reversi>) -> ReversiMove {
        let values = self.solver.solve_all(record.current());
        // solve_all sorts best first.
        let pick = if self.worst { values.last() } else { values.first() };
        pick.expect("a legal move").0
    }
}

/// Passes whatever the position.
struct Passer;

impl Player<Reversi> for Passer {
    fn describe(&self) -> String {
        "passer".to_string()
    }

    fn choose_move(&mut self, _: &Record<Reversi>) -> ReversiMove {
        ReversiMove::Pass
    }
}

#[test]
fn positions_are_seeded_in_range_and_have_a_placement() {
    let set = positions(30, 1, 20..=24).unwrap();
    assert_eq!(set.len(), 30);
    assert_eq!(set, positions(30, 1, 20..=24).unwrap());
    assert_ne!(set, positions(30, 2, 20..=24).unwrap());
    assert!(set.iter().all(|p| (20..=24).contains(&p.open_squares()) && p.placements() != 0 && !p.is_over()));
    // The targets are drawn per position: every number of empties of the range occurs.
    for empties in 20..=24 {
        assert!(set.iter().any(|p| p.open_squares() == empties), "no position with {empties} empties");
    }
    // A shorter set is the start of a longer one (one stream for the whole set).
    assert_eq!(positions(10, 1, 20..=24).unwrap(), set[..10]);
    let small = positions(5, 3, 12..=14).unwrap();
    assert!(small.iter().all(|p| (12..=14).contains(&p.open_squares()) && p.placements() != 0));
}

#[test]
fn bad_ranges_are_refused() {
    assert_eq!(positions(1, 1, 0..=3), Err(AccuracyError::BadEmpties { start: 0, end: 3 }));
    assert_eq!(positions(1, 1, 30..=60), Err(AccuracyError::BadEmpties { start: 30, end: 60 }));
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = positions(1, 1, 24..=20);
    assert_eq!(reversed, Err(AccuracyError::BadEmpties { start: 24, end: 20 }));
    assert!(positions(0, 1, 20..=24).unwrap().is_empty());
}

#[test]
fn perfect_play_loses_nothing_and_the_worst_move_loses_best_minus_worst() {
    let set = positions(6, 5, 12..=14).unwrap();
    let mut reference = Solver::new(16);
    let (mut expected_total, mut expected_worst) = (0u64, 0i32);
    for position in &set {
        let values = reference.solve_all(position);
        let spread = values[0].1 - values[values.len() - 1].1;
        expected_total += spread as u64;
        expected_worst = expected_worst.max(spread);
    }
    assert!(expected_total > 0, "the positions should offer some bad moves");
    let mut players: Vec<Box<dyn Player<Reversi>>> = vec![
        Box::new(Solved { solver: Solver::new(16), worst: false }),
        Box::new(Solved { solver: Solver::new(16), worst: true }),
    ];
    let done = std::sync::atomic::AtomicUsize::new(0);
    let report =
        measure(&set, &mut players, &mut Solver::new(16), &|n| done.store(n, std::sync::atomic::Ordering::Relaxed))
            .unwrap();
    assert_eq!(done.into_inner(), 6);
    assert_eq!(report.positions, 6);
    let (perfect, worst) = (&report.players[0], &report.players[1]);
    assert_eq!((perfect.player.as_str(), worst.player.as_str()), ("perfect", "worst"));
    assert_eq!((perfect.positions, perfect.total_loss, perfect.best_moves, perfect.worst_loss), (6, 0, 6, 0));
    assert_eq!(perfect.mean_loss(), 0.0);
    assert_eq!(perfect.best_share(), 1.0);
    assert_eq!((worst.total_loss, worst.worst_loss), (expected_total, expected_worst));
    assert_eq!(worst.mean_loss(), expected_total as f64 / 6.0);
    assert!(worst.best_moves < 6);
    assert!(report.solve_nodes > 0);
}

#[test]
fn a_spec_players_losses_match_every_moves_exact_value() {
    // classic:depth=1 is deterministic and often wrong: its losses, computed from solve_all's
    // values of every move, are those the benchmark finds with its fewer solves.
    let set = positions(8, 9, 12..=14).unwrap();
    let spec = ["classic:depth=1".to_string()];
    let mut probe = players_from_specs(&spec).unwrap();
    let mut reference = Solver::new(16);
    let mut losses = Vec::new();
    for position in &set {
        let values = reference.solve_all(position);
        let mv = probe[0].choose_move(&Record::new(*position));
        let value = values.iter().find(|v| v.0 == mv).expect("a legal move").1;
        losses.push(values[0].1 - value);
    }
    assert!(losses.iter().any(|&l| l > 0), "classic:depth=1 should miss some best moves");
    let mut players = players_from_specs(&spec).unwrap();
    let report = measure(&set, &mut players, &mut Solver::new(16), &|_| {}).unwrap();
    let classic = &report.players[0];
    assert_eq!(classic.player, "classic:depth=1");
    assert_eq!(classic.total_loss, losses.iter().map(|&l| l as u64).sum::<u64>());
    assert_eq!(classic.total_squared_loss, losses.iter().map(|&l| (l * l) as u64).sum::<u64>());
    assert_eq!(classic.worst_loss, *losses.iter().max().unwrap());
    assert_eq!(classic.best_moves, losses.iter().filter(|&&l| l == 0).count() as u64);
}

#[test]
fn an_illegal_move_and_a_bad_spec_are_errors() {
    let set = positions(1, 1, 12..=14).unwrap();
    let mut players: Vec<Box<dyn Player<Reversi>>> = vec![Box::new(Passer)];
    let err = measure(&set, &mut players, &mut Solver::new(12), &|_| {}).unwrap_err();
    assert_eq!(
        err,
        AccuracyError::IllegalMove {
            player: "passer".to_string(),
            mv: ReversiMove::Pass,
            position: set[0].to_string()
        }
    );
    let err = players_from_specs(&["engine".to_string(), "gnubg".to_string()]).err().unwrap();
    assert!(err.to_string().starts_with("player \"gnubg\": unknown player \"gnubg\"; valid players: engine"), "{err}");
    // A finished game is skipped, not judged.
    let full: Reversi = "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX O".parse().unwrap();
    let mut players = players_from_specs(&["random".to_string()]).unwrap();
    let report = measure(&[full], &mut players, &mut Solver::new(12), &|_| {}).unwrap();
    assert_eq!((report.positions, report.players[0].positions), (0, 0));
}
