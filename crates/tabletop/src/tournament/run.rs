//! Playing a tournament: worker threads take the scheduled games in order, each with fresh
//! players seeded from the tournament's seed and the game's number, and the calling thread
//! commits the results in the schedule's order, deciding there whether a player is withdrawn
//! (too many forfeits in a row) and whether the SPRT has decided, so that neither depends on
//! the number of threads or on which game finished first. Games played past such a point are
//! discarded. [`play_game`] is the one call into the arena.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use super::mix;
use super::openings::{Opening, Openings};
use super::results::GameResult;
use super::schedule::{ScheduledGame, Settings};
use crate::arena::{self, Finished};
use crate::clock::TimeControl;
use crate::game::{Game, Outcome, Seat};
use crate::players::{Forfeit, Player};
use crate::record::{EndReason, Record};
use crate::stats::{Pentanomial, SprtDecision};

/// What a game writer is told besides the finished game.
#[derive(Clone, Debug)]
pub struct GameInfo<'a> {
    /// The game's number in the schedule, from 0.
    pub index: usize,
    /// Its round, from 0.
    pub round: usize,
    /// The players' names in seat order.
    pub names: [&'a str; 2],
    /// `1-0`, `1/2-1/2` or `0-1`.
    pub result: &'a str,
    /// How it ended, in words.
    pub reason: &'a str,
    /// The opening in words.
    pub opening: &'a str,
    /// The moves of the opening (the players' moves follow them in the record).
    pub opening_plies: usize,
    /// The time each of the players' moves took, in the order played.
    pub move_times: &'a [Duration],
}

/// What a tournament tells its caller as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// A game was committed.
    Game {
        /// The game.
        result: &'a GameResult,
        /// Games committed so far.
        committed: usize,
        /// Games the tournament now expects in all (fewer after a withdrawal).
        expected: usize,
        /// Every player's points so far (settings' order).
        points: &'a [f64],
    },
    /// A player was withdrawn: its remaining games are not played.
    Withdrawn {
        /// The player's index.
        player: usize,
        /// Why.
        reason: &'a str,
    },
}

/// A tournament to play.
pub struct Tournament<'a, G: Game> {
    /// Its settings.
    pub settings: &'a Settings,
    /// Its openings.
    pub openings: &'a Openings<G>,
    /// Builds player `p` (settings' order) with a seed, fresh for every game.
    pub make: &'a (dyn Fn(usize, u64) -> Result<Box<dyn Player<G>>, String> + Sync),
    /// Writes a finished game as text (GGF, the saved-game text, ...).
    pub write: &'a (dyn Fn(&Finished<G>, &GameInfo) -> String + Sync),
    /// Games played at once.
    pub concurrency: usize,
    /// Each player's time control (settings' order; empty: no clocks).
    pub controls: &'a [TimeControl],
}

/// A tournament's end.
#[derive(Clone, Debug)]
pub struct Played {
    /// Every game committed, in order (a resumed file's first).
    pub results: Vec<GameResult>,
    /// Why each player was withdrawn, if it was.
    pub withdrawn: Vec<Option<String>>,
}

/// Why a tournament stopped early.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// The results given to resume from are not this tournament's.
    #[error("the results file does not fit this tournament: {0}")]
    Mismatch(String),
    /// The caller stopped it (a file could not be written).
    #[error("{0}")]
    Stopped(String),
}

/// The committed games and what follows from them.
struct State {
    max_failures: usize,
    sprt: Option<crate::stats::Sprt>,
    results: Vec<GameResult>,
    streak: Vec<usize>,
    withdrawn: Vec<Option<String>>,
    pairs: Pentanomial,
    decided: bool,
    points: Vec<f64>,
}

impl State {
    fn skips(&self, game: &ScheduledGame) -> bool {
        self.decided || game.seats.iter().any(|&p| self.withdrawn[p].is_some())
    }

    /// Commits a game; returns the players it withdraws.
    fn commit(&mut self, result: GameResult, names: &[String]) -> Vec<usize> {
        let mut withdrawn = Vec::new();
        for (seat, &p) in result.seats.iter().enumerate() {
            self.points[p] += if seat == 0 { result.score } else { 1.0 - result.score };
            if result.forfeit == Some(seat) {
                self.streak[p] += 1;
                if self.max_failures > 0 && self.streak[p] >= self.max_failures {
                    self.withdrawn[p] = Some(format!(
                        "{} withdrawn after forfeiting {} games in a row (the last, game {}: {}); its remaining games are not played",
                        names[p],
                        self.streak[p],
                        result.index + 1,
                        result.reason
                    ));
                    withdrawn.push(p);
                }
            } else {
                self.streak[p] = 0;
            }
        }
        if let (Some(sprt), Some(first)) = (self.sprt, self.results.last()) {
            if result.index % 2 == 1 && first.index + 1 == result.index && first.opening == result.opening {
                if let (Some(x), Some(y)) = (first.points_of(0), result.points_of(0)) {
                    self.pairs.add_pair(x, y);
                    self.decided = sprt.decide(&self.pairs) != SprtDecision::Continue;
                }
            }
        }
        self.results.push(result);
        withdrawn
    }
}

/// Plays `tournament`, first taking `done` (the games of a results file, in order) as already
/// played; `on_event` hears of every game committed and every player withdrawn (an error from
/// it stops the tournament after the games being played).
pub fn play_tournament<G: Game>(
    tournament: &Tournament<G>,
    done: Vec<GameResult>,
    on_event: &mut dyn FnMut(Event) -> Result<(), String>,
) -> Result<Played, TournamentError> {
    let settings = tournament.settings;
    let names: Vec<String> = settings.players.iter().map(|p| p.name.clone()).collect();
    let n = names.len();
    let schedule = settings.schedule();
    let mut state = State {
        max_failures: settings.max_failures,
        sprt: settings.sprt,
        results: Vec::new(),
        streak: vec![0; n],
        withdrawn: vec![None; n],
        pairs: Pentanomial::default(),
        decided: false,
        points: vec![0.0; n],
    };
    // The games already played, checked against the schedule and the decisions they imply.
    let mut start = 0;
    for result in done {
        let mismatch = |what: String| TournamentError::Mismatch(what);
        let Some(game) = schedule.get(result.index) else {
            return Err(mismatch(format!("game {} is not in the schedule", result.index + 1)));
        };
        if game.seats != result.seats || game.opening != result.opening {
            return Err(mismatch(format!("game {} has other players or another opening", result.index + 1)));
        }
        if let Some(missing) = (start..result.index).find(|&i| !state.skips(&schedule[i])) {
            return Err(mismatch(format!("game {} is missing", missing + 1)));
        }
        if state.skips(game) {
            return Err(mismatch(format!("game {} should not have been played", result.index + 1)));
        }
        start = result.index + 1;
        state.commit(result, &names);
    }
    let expected_total = |state: &State, from: usize| {
        state.results.len() + schedule[from.min(schedule.len())..].iter().filter(|g| !state.skips(g)).count()
    };
    let mut expected = expected_total(&state, start);
    // What the workers read to skip games: set only here, after a commit, so a worker never
    // skips a game that the commit order would play.
    let skip_flags = Mutex::new((vec![false; n], state.decided));
    let next = AtomicUsize::new(start);
    let mut outcome = Ok(());
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(usize, GameResult)>();
        for _ in 0..tournament.concurrency.max(1) {
            let sender = sender.clone();
            let (next, skip_flags, schedule) = (&next, &skip_flags, &schedule);
            scope.spawn(move || loop {
                let position = next.fetch_add(1, Ordering::SeqCst);
                let Some(game) = schedule.get(position) else { break };
                {
                    let flags = skip_flags.lock().unwrap_or_else(|e| e.into_inner());
                    if flags.1 {
                        break;
                    }
                    if game.seats.iter().any(|&p| flags.0[p]) {
                        continue;
                    }
                }
                let result = play_scheduled(tournament, game);
                if sender.send((position, result)).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        let mut pending = BTreeMap::new();
        'games: for (position, game) in schedule.iter().enumerate().skip(start) {
            if state.skips(game) {
                if state.decided {
                    break;
                }
                continue;
            }
            let result = loop {
                if let Some(result) = pending.remove(&position) {
                    break result;
                }
                match receiver.recv() {
                    Ok((p, result)) => {
                        pending.insert(p, result);
                    }
                    Err(_) => {
                        outcome = Err(TournamentError::Stopped(format!("game {} was not played", position + 1)));
                        break 'games;
                    }
                }
            };
            let withdrawn = state.commit(result, &names);
            if !withdrawn.is_empty() {
                expected = expected_total(&state, position + 1);
            }
            if state.decided {
                expected = state.results.len();
            }
            {
                let mut flags = skip_flags.lock().unwrap_or_else(|e| e.into_inner());
                for &p in &withdrawn {
                    flags.0[p] = true;
                }
                flags.1 = state.decided;
            }
            let last = state.results.last().expect("just committed");
            let mut report =
                on_event(Event::Game { result: last, committed: state.results.len(), expected, points: &state.points });
            for &p in &withdrawn {
                let reason = state.withdrawn[p].as_deref().unwrap_or_default();
                report = report.and_then(|()| on_event(Event::Withdrawn { player: p, reason }));
            }
            if let Err(e) = report {
                outcome = Err(TournamentError::Stopped(e));
                break;
            }
        }
        // Stop the workers after their current games (their results are not needed).
        skip_flags.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
    });
    outcome?;
    Ok(Played { results: state.results, withdrawn: state.withdrawn })
}

/// Plays one scheduled game with fresh players and describes it.
fn play_scheduled<G: Game>(tournament: &Tournament<G>, game: &ScheduledGame) -> GameResult {
    let settings = tournament.settings;
    let opening = tournament.openings.opening(game.opening, settings.seed);
    let game_seed = mix(settings.seed, game.index as u64);
    // A player that cannot even be built (a program that cannot start, say) forfeits at its
    // first move.
    let mut players: [Box<dyn Player<G>>; 2] = game.seats.map(|p| {
        (tournament.make)(p, mix(game_seed, p as u64))
            .unwrap_or_else(|reason| Box::new(Unbuilt { reason }) as Box<dyn Player<G>>)
    });
    let [a, b] = &mut players;
    let controls = game.seats.map(|p| tournament.controls.get(p).copied().unwrap_or(TimeControl::Unlimited));
    let (finished, move_times) = play_game(&opening, &mut [a.as_mut(), b.as_mut()], &controls);
    let names = game.seats.map(|p| settings.players[p].name.as_str());
    let score = match finished.outcome {
        Outcome::Win(Seat(0)) => 1.0,
        Outcome::Win(_) => 0.0,
        _ => 0.5,
    };
    let reason = match (&finished.forfeit, finished.out_of_time) {
        (Some((seat, why)), _) => format!("{} forfeits: {why}", names[seat.index()]),
        (None, Some(seat)) => format!("{} ran out of time", names[seat.index()]),
        (None, None) => match finished.record.end_reason() {
            Some(EndReason::Repetition) => "the same position occurred again (repetition)".to_string(),
            Some(EndReason::Rules(text)) => text,
            None => String::new(),
        },
    };
    let result_text = match score {
        1.0 => "1-0",
        0.0 => "0-1",
        _ => "1/2-1/2",
    };
    let opening_text = opening.text();
    let info = GameInfo {
        index: game.index,
        round: game.round,
        names,
        result: result_text,
        reason: &reason,
        opening: &opening_text,
        opening_plies: opening.moves.len(),
        move_times: &move_times,
    };
    let text = (tournament.write)(&finished, &info);
    GameResult {
        index: game.index,
        round: game.round,
        opening: game.opening,
        seats: game.seats,
        names: names.map(str::to_string),
        score,
        forfeit: finished.forfeit.as_ref().map(|(seat, _)| seat.index()),
        out_of_time: finished.out_of_time.map(Seat::index),
        reason,
        opening_text,
        plies: finished.record.moves().len(),
        moves: [0, 1].map(|s| finished.times.get(s).map_or(0, |t| t.moves)),
        time_ms: [0, 1].map(|s| finished.times.get(s).map_or(0.0, |t| t.total.as_secs_f64() * 1000.0)),
        text,
    }
}

/// The one call into the arena: plays `opening` to the end between `players` (seat order)
/// under their time controls (`controls[i]` for seat `i`; none for an untimed game), with the
/// time each of the players' moves took.
pub fn play_game<G: Game>(
    opening: &Opening<G>,
    players: &mut [&mut dyn Player<G>],
    controls: &[TimeControl],
) -> (Finished<G>, Vec<Duration>) {
    let mut move_times = Vec::new();
    let mut last = Instant::now();
    let finished = arena::play_timed(&opening.start, &opening.moves, players, controls, |_, _, _| {
        let now = Instant::now();
        move_times.push(now - last);
        last = now;
    });
    (finished, move_times)
}

/// A player that could not be built: it forfeits when it is to move.
struct Unbuilt {
    reason: String,
}

impl<G: Game> Player<G> for Unbuilt {
    fn describe(&self) -> String {
        "a player that could not be built".to_string()
    }

    fn choose_move(&mut self, record: &Record<G>) -> G::Move {
        // Never asked: the arena asks `choose_move_or_forfeit`. Any legal move would do.
        let mut moves = Vec::new();
        record.current().legal_moves(&mut moves);
        moves[0]
    }

    fn choose_move_or_forfeit(&mut self, _record: &Record<G>) -> Result<G::Move, Forfeit> {
        Err(Forfeit { reason: self.reason.clone() })
    }
}

/// The saved-game text of a finished game ([`Finished::to_text`]: with its clocks and result) with the tournament's notes as
/// `#` comments after its first line (which [`Record::from_text`] skips): the players, the
/// result and why, the opening, and every move's time.
///
/// ```
/// use tabletop::games::connect::{Connect, ConnectVariant};
/// use tabletop::tournament::run::{play_game, write_saved_game, GameInfo};
/// use tabletop::tournament::Opening;
/// use tabletop::players::RandomPlayer;
/// use tabletop::{Game, Record};
/// let start = Connect::new(ConnectVariant::connect3());
/// let opening = Opening { start: start.clone(), moves: vec![start.parse_move("2").unwrap()] };
/// let (mut a, mut b) = (RandomPlayer::new(1), RandomPlayer::new(2));
/// let (finished, times) = play_game(&opening, &mut [&mut a, &mut b], &[]);
/// let info = GameInfo { index: 0, round: 0, names: ["a", "b"], result: "1-0", reason: "why", opening: "2",
///     opening_plies: 1, move_times: &times };
/// let text = write_saved_game(&finished, &info);
/// assert!(text.starts_with("tabletop connect\n# game 1"));
/// let back = Record::<Connect>::from_text(&start.variant(), &text).unwrap();
/// assert_eq!(back.current(), finished.record.current());
/// ```
pub fn write_saved_game<G: Game>(finished: &Finished<G>, info: &GameInfo) -> String {
    let text = finished.to_text();
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let times: Vec<String> = info.move_times.iter().map(|t| format!("{:.0}", t.as_secs_f64() * 1000.0)).collect();
    format!(
        "{first}\n# game {} (round {}): {} (seat 1) - {} (seat 2): {} {}\n# opening: {} ({} plies)\n# move times in ms: {}\n{rest}\n",
        info.index + 1,
        info.round + 1,
        info.names[0],
        info.names[1],
        info.result,
        info.reason.replace('\n', " "),
        info.opening,
        info.opening_plies,
        times.join(" ")
    )
}
