//! Which games the benchmarks play, as the JSON that creates them. Like the tests' own games,
//! these are data chosen for what they load (long games between people, a quick computer, the
//! longest thinking), so this is the one file of this crate that names games; the registry's
//! test allows it by name.

use serde_json::{json, Value};

/// Games between two people for the load benchmark: long enough (4 x 4 Slide with two empty
/// squares rarely ends within 40 moves) that every client keeps one game going.
pub fn load_game() -> Value {
    json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "human"]})
}

/// The ordinary players' games during the attacks: longer still (5 x 5).
pub fn ordinary_game() -> Value {
    json!({"game": "slide", "options": {"size": 5, "empty": 2}, "seats": ["human", "human"]})
}

/// A person against a quick computer (100 ms a move), whose replies are timed.
pub fn versus_quick_computer() -> Value {
    json!({"game": "reversi", "seats": ["human", "engine:time=100ms"]})
}

/// A person against the computer with its default settings (game creations in bulk).
pub fn versus_default_computer() -> Value {
    json!({"game": "reversi", "seats": ["human", "engine"]})
}

/// The longest thinking a seat may ask for, alternately as the first player (Reversi) and the
/// second (Connect Four, whose opening book would answer the first player at once): the game
/// and the person's seat.
pub fn longest_thinking(index: usize) -> (Value, usize) {
    if index.is_multiple_of(2) {
        (json!({"game": "reversi", "seats": ["engine:time=10s", "human"]}), 1)
    } else {
        (json!({"game": "connect", "options": {"preset": "connect4"}, "seats": ["human", "engine:time=10s"]}), 0)
    }
}

/// The long game many watchers watch (`bench serve --watchers`): 4 x 4 Slide with two empty
/// squares, whose sliding goes on for hundreds of moves without a win or a repetition.
pub fn watched_game() -> Value {
    json!({"game": "slide", "options": {"size": 4, "empty": 2}, "seats": ["human", "human"]})
}

/// The scheduling attacker's games: a second a move, the computer first (Reversi), the
/// person at seat 1. A second or less is an ordinary computer move, in the pool's main lane.
pub fn second_a_move() -> (Value, usize) {
    (json!({"game": "reversi", "seats": ["engine:time=1s", "human"]}), 1)
}

/// The slow readers' game: Gomoku on 19 x 19 between people, whose random moves go on for
/// hundreds of plies (every event then carries a growing state).
pub fn long_game() -> Value {
    json!({"game": "gomoku", "options": {"size": 19}, "seats": ["human", "human"]})
}

/// The per-address attacker's own game, whose event stream it opens again and again.
pub fn streams_game() -> Value {
    json!({"game": "reversi", "seats": ["human", "human"]})
}
