//! Which games the benchmarks play, as the JSON that creates them: for each role, the first game
//! in the registry that offers it (`GameEntry::load_tests`, declared in each game's folder), so
//! this crate names no game.

use serde_json::{json, Value};
use tabletop::registry::{LoadRole, GAMES};

/// The creation body of the first registered game offering `role`, with its `game` key.
fn scenario(role: LoadRole) -> Value {
    GAMES
        .iter()
        .find_map(|entry| {
            let (_, body) = entry.load_tests.iter().find(|(r, _)| *r == role)?;
            let mut body: Value = serde_json::from_str(body).ok()?;
            body["game"] = json!(entry.name);
            Some(body)
        })
        .unwrap_or_else(|| panic!("no registered game offers the benchmark role {role:?}"))
}

/// The first seat a person plays in a creation body.
fn person_seat(body: &Value) -> usize {
    body["seats"].as_array().and_then(|seats| seats.iter().position(|s| s == "human")).unwrap_or(0)
}

/// Games between two people for the load benchmark: long enough that every client keeps one
/// game going.
pub fn load_game() -> Value {
    scenario(LoadRole::LongBetweenPeople)
}

/// The ordinary players' games during the attacks: longer still.
pub fn ordinary_game() -> Value {
    scenario(LoadRole::LongerBetweenPeople)
}

/// A person against a quick computer (100 ms a move), whose replies are timed.
pub fn versus_quick_computer() -> Value {
    scenario(LoadRole::QuickComputer)
}

/// A person against the computer with its default settings (game creations in bulk).
pub fn versus_default_computer() -> Value {
    scenario(LoadRole::DefaultComputer)
}

/// The longest thinking a seat may ask for, alternately with the computer moving first and
/// second: the game and the person's seat.
pub fn longest_thinking(index: usize) -> (Value, usize) {
    let body = if index.is_multiple_of(2) {
        scenario(LoadRole::LongestThinkingFirst)
    } else {
        scenario(LoadRole::LongestThinkingSecond)
    };
    let seat = person_seat(&body);
    (body, seat)
}

/// The long game many watchers watch (`bench serve --watchers`).
pub fn watched_game() -> Value {
    scenario(LoadRole::LongBetweenPeople)
}

/// The scheduling attacker's games: a second a move, the computer first: the game and the
/// person's seat.
pub fn second_a_move() -> (Value, usize) {
    let body = scenario(LoadRole::SecondAMoveFirst);
    let seat = person_seat(&body);
    (body, seat)
}

/// The slow readers' game: between people, hundreds of plies of random moves (every event then
/// carries a growing state).
pub fn long_game() -> Value {
    scenario(LoadRole::HundredsOfPlies)
}

/// The per-address attacker's own game, whose event stream it opens again and again.
pub fn streams_game() -> Value {
    scenario(LoadRole::BetweenPeople)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_a_game_and_a_person_seat() {
        for (body, seat) in [longest_thinking(0), longest_thinking(1), second_a_move()] {
            assert_eq!(body["seats"][seat], "human", "{body}");
        }
        for body in [
            load_game(),
            ordinary_game(),
            versus_quick_computer(),
            versus_default_computer(),
            long_game(),
            streams_game(),
        ] {
            assert!(body["game"].is_string() && body["seats"].is_array(), "{body}");
        }
    }
}
