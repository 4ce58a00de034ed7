//! Opening names: the well-known Othello lines by name (a table of names and move sequences,
//! written for this project from the names players use), found for a game's first moves and
//! for their symmetric images.
//!
//! The start position is kept by 4 of the board's 8 symmetries (the identity, the half turn
//! and the two diagonal reflections); the other 4 swap the colours of the centre, so no game
//! from the start is their image. A game follows a named line when its first moves, or their
//! image under one of the 4, are the line's moves: `f5 d6 c3 d3 c4` (the Tiger, as written
//! here, in the usual orientation starting at f5) is also `c4 e3 f6 e6 f5`, `d3 c5 f6 f5 e6`
//! and `e6 f4 c3 c4 d3`. The longest line followed names the game.
//!
//! ```
//! use tabletop::games::reversi::openings::opening_name;
//! use tabletop::games::reversi::ReversiMove;
//! let moves: Vec<ReversiMove> = ["c4", "e3", "f6", "e6", "f5", "c5"].iter().map(|m| m.parse().unwrap()).collect();
//! assert_eq!(opening_name(&moves), Some("Tiger"));
//! ```

use std::sync::OnceLock;

use super::rules::{Reversi, ReversiMove};
use super::symmetry::transform;

/// A named opening line.
#[derive(Clone, Copy, Debug)]
pub struct Opening {
    /// Its name (alternative names after commas).
    pub name: &'static str,
    /// Its moves from the start, black first, without spaces (`f5d6c3d3c4`).
    pub moves: &'static str,
}

/// The named lines, each from the start position (black first), in the orientation that
/// starts at f5.
pub const OPENINGS: &[Opening] = &[
    Opening { name: "Diagonal Opening", moves: "f5f6" },
    Opening { name: "X-square Opening", moves: "f5f6e6f4g7" },
    Opening { name: "Snake, Peasant", moves: "f5f6e6f4g6" },
    Opening { name: "Lysons", moves: "f5f6e6f4g6c6" },
    Opening { name: "Pyramid, Checkerboarding Peasant", moves: "f5f6e6f4g6c5g4g5f3e3c4" },
    Opening { name: "Heath, Tobidashi", moves: "f5f6e6f4g5" },
    Opening { name: "Mimura Variation II", moves: "f5f6e6f4g5e7f7c5e3f3c4d3c2" },
    Opening { name: "Heath-Bat", moves: "f5f6e6f4g5e7e3" },
    Opening { name: "Iwasaki Variation", moves: "f5f6e6f4g5e7d7" },
    Opening { name: "Heath-Chimney", moves: "f5f6e6f4g5d6" },
    Opening { name: "Raccoon Dog", moves: "f5f6e6f4g4" },
    Opening { name: "Rocket", moves: "f5f6e6f4g3" },
    Opening { name: "Hamilton", moves: "f5f6e6f4g3f3g4" },
    Opening { name: "Lollipop", moves: "f5f6e6f4g3d6" },
    Opening { name: "Cow", moves: "f5f6e6f4e3" },
    Opening { name: "Chimney", moves: "f5f6e6f4e3d6" },
    Opening { name: "Cow Bat, Bat, Cambridge", moves: "f5f6e6f4e3c5g5" },
    Opening { name: "Bat (Piau Continuation 2)", moves: "f5f6e6f4e3c5g5g3g4f3g6" },
    Opening { name: "Melnikov, Bat (Piau Continuation 1)", moves: "f5f6e6f4e3c5g5g3g4f3c4" },
    Opening { name: "Bat (Kling Continuation)", moves: "f5f6e6f4e3c5g5f3g4g6g3d6f7h5h4h3e7" },
    Opening { name: "Bat (Kling Alternative)", moves: "f5f6e6f4e3c5g5d6g6" },
    Opening { name: "Rose-v-Toth", moves: "f5f6e6f4e3c5c4" },
    Opening { name: "Tanida", moves: "f5f6e6f4e3c5c4e7" },
    Opening { name: "Aircraft, Feldborg", moves: "f5f6e6f4e3c5c4e7g4" },
    Opening { name: "Sailboat", moves: "f5f6e6f4e3c5c4e7b5e2" },
    Opening { name: "Maruoka", moves: "f5f6e6f4e3c5c4d3f3e2" },
    Opening { name: "Landau", moves: "f5f6e6f4e3c5c4d3c3" },
    Opening { name: "Buffalo, Kenichi Variation", moves: "f5f6e6f4c3" },
    Opening { name: "Maruoka Buffalo", moves: "f5f6e6f4c3d7f3" },
    Opening { name: "Tanida Buffalo", moves: "f5f6e6f4c3d6f3c4c5b4" },
    Opening { name: "Hokuriku Buffalo", moves: "f5f6e6f4c3c4" },
    Opening { name: "Wing Variation", moves: "f5f6d3f4" },
    Opening { name: "Semi-Wing Variation", moves: "f5f6c4f4" },
    Opening { name: "Parallel Opening", moves: "f5f4" },
    Opening { name: "Perpendicular Opening", moves: "f5d6" },
    Opening { name: "Mimura", moves: "f5d6c5f4e3d3" },
    Opening { name: "Shaman, Danish", moves: "f5d6c5f4e3c6f3" },
    Opening { name: "Inoue", moves: "f5d6c5f4e3c6e6" },
    Opening { name: "Iago", moves: "f5d6c5f4e3c6e6f6" },
    Opening { name: "Bhagat", moves: "f5d6c5f4e3c6d7" },
    Opening { name: "Rose", moves: "f5d6c5f4e3c6d3f6e6d7" },
    Opening { name: "Flat", moves: "f5d6c5f4e3c6d3f6e6d7g4" },
    Opening { name: "Rotating Flat", moves: "f5d6c5f4e3c6d3f6e6d7g4c4" },
    Opening { name: "Murakami Variation", moves: "f5d6c5f4e3c6d3f6e6d7g4c4g6" },
    Opening { name: "Rotating Flat (Kling Continuation)", moves: "f5d6c5f4e3c6d3f6e6d7g4c4g5c3f7d2e7f2" },
    Opening { name: "Rose-Birth", moves: "f5d6c5f4e3c6d3f6e6d7g3c4" },
    Opening { name: "Brightstein", moves: "f5d6c5f4e3c6d3f6e6d7g3c4g5c3b4e2" },
    Opening { name: "Rose-Birdie, Rose-Tamenori", moves: "f5d6c5f4e3c6d3f6e6d7g3c4b4" },
    Opening { name: "Rose-Tamenori-Kling", moves: "f5d6c5f4e3c6d3f6e6d7g3c4b4c3" },
    Opening { name: "Greenberg, Dawg", moves: "f5d6c5f4e3c6d3f6e6d7e7" },
    Opening { name: "Ralle", moves: "f5d6c5f4e3c6d3f3" },
    Opening { name: "Horse", moves: "f5d6c5f4d3" },
    Opening { name: "Ganglion, No-Cat", moves: "f5d6c4g5" },
    Opening { name: "Swallow", moves: "f5d6c4g5c6" },
    Opening { name: "No-Cat (Continuation)", moves: "f5d6c4g5c6c5d7d3b4c3e3f3" },
    Opening { name: "Italian", moves: "f5d6c4d3e6" },
    Opening { name: "Cat", moves: "f5d6c4d3c5" },
    Opening { name: "Sakaguchi", moves: "f5d6c4d3c5f4e3f3c2c6" },
    Opening { name: "Berner", moves: "f5d6c4d3c5f4e3f3c2b4b3" },
    Opening { name: "Bent Ganglion", moves: "f5d6c3g5" },
    Opening { name: "Tiger", moves: "f5d6c3d3c4" },
    Opening { name: "Stephenson", moves: "f5d6c3d3c4f4f6" },
    Opening { name: "No-Kung", moves: "f5d6c3d3c4f4f6g5" },
    Opening { name: "No-Kung (Continuation)", moves: "f5d6c3d3c4f4f6g5e3f3g4h3g3f2" },
    Opening { name: "Comp'Oth", moves: "f5d6c3d3c4f4f6f3" },
    Opening { name: "F.A.T. Draw", moves: "f5d6c3d3c4f4f6f3e6e7d7g6f8f7g5h6h4g4h3h5h7" },
    Opening { name: "Lightning Bolt", moves: "f5d6c3d3c4f4f6f3e3" },
    Opening { name: "Kung", moves: "f5d6c3d3c4f4f6b4" },
    Opening { name: "Leader's Tiger", moves: "f5d6c3d3c4f4e6" },
    Opening { name: "Brightwell", moves: "f5d6c3d3c4f4e3" },
    Opening { name: "Ishii", moves: "f5d6c3d3c4f4c5b4b5c6f3e6e3" },
    Opening { name: "Mainline Tiger", moves: "f5d6c3d3c4f4c5b4b5c6f3e6e3g6f6g5d7g3" },
    Opening { name: "Rose-Bill", moves: "f5d6c3d3c4f4c5b3c2" },
    Opening { name: "Tamenori", moves: "f5d6c3d3c4f4c5b3c2e6" },
    Opening { name: "Central Rose-Bill, Dead Draw", moves: "f5d6c3d3c4f4c5b3c2b4" },
    Opening { name: "Aubrey, Tanaka", moves: "f5d6c3d3c4b3" },
    Opening { name: "Aubrey (Feldborg Continuation)", moves: "f5d6c3d3c4b3d2f4" },
];

/// The squares (bit indices) of each line of [`OPENINGS`].
fn lines() -> &'static [Vec<u8>] {
    static LINES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    LINES.get_or_init(|| {
        OPENINGS
            .iter()
            .map(|opening| {
                (0..opening.moves.len() / 2)
                    .filter_map(|i| match opening.moves[2 * i..2 * i + 2].parse::<ReversiMove>() {
                        Ok(ReversiMove::Place(square)) => Some(square.bit().trailing_zeros() as u8),
                        _ => None,
                    })
                    .collect()
            })
            .collect()
    })
}

/// The symmetries (as [`transform`] numbers them) that keep the start position.
fn start_symmetries() -> &'static [usize] {
    static KEPT: OnceLock<Vec<usize>> = OnceLock::new();
    KEPT.get_or_init(|| {
        let (p, o) = Reversi::new().player_opponent();
        (0..8).filter(|&s| transform(p, s) == p && transform(o, s) == o).collect()
    })
}

/// The name of the longest named line that `moves` (a game from the start) begin with, or whose
/// image under a symmetry that keeps the start they begin with; `None` when no line fits.
///
/// ```
/// use tabletop::games::reversi::openings::opening_name;
/// use tabletop::games::reversi::ReversiMove;
/// let line = |text: &str| -> Vec<ReversiMove> { text.split(' ').map(|m| m.parse().unwrap()).collect() };
/// assert_eq!(opening_name(&line("f5 d6 c3 d3 c4 f4")), Some("Tiger"));
/// assert_eq!(opening_name(&line("f5 d6 c3 d3 c4 f4 f6")), Some("Stephenson"));
/// assert_eq!(opening_name(&line("f5 d6 c3 d3 c4 f4 c5 b3 c2")), Some("Rose-Bill"));
/// assert_eq!(opening_name(&line("f5")), None);
/// ```
pub fn opening_name(moves: &[ReversiMove]) -> Option<&'static str> {
    // The game's squares until its first pass (no named line has one).
    let squares: Vec<u64> = moves
        .iter()
        .map_while(|m| match m {
            ReversiMove::Place(square) => Some(square.bit()),
            ReversiMove::Pass => None,
        })
        .collect();
    let mut best: Option<(usize, &'static str)> = None;
    for &s in start_symmetries() {
        let image: Vec<u8> = squares.iter().map(|&bit| transform(bit, s).trailing_zeros() as u8).collect();
        for (line, opening) in lines().iter().zip(OPENINGS) {
            let longer = best.is_none_or(|(len, _)| line.len() > len);
            if longer && image.len() >= line.len() && image[..line.len()] == line[..] {
                best = Some((line.len(), opening.name));
            }
        }
    }
    best.map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    /// The moves of an opening line.
    fn parse(opening: &Opening) -> Vec<ReversiMove> {
        (0..opening.moves.len() / 2).map(|i| opening.moves[2 * i..2 * i + 2].parse().expect("a square")).collect()
    }

    /// The image of a move under symmetry `s`.
    fn image(mv: ReversiMove, s: usize) -> ReversiMove {
        match mv {
            ReversiMove::Place(square) => {
                let bit = transform(square.bit(), s);
                ReversiMove::Place(super::super::Square::from_index(bit.trailing_zeros() as usize).expect("on the board"))
            }
            ReversiMove::Pass => ReversiMove::Pass,
        }
    }

    #[test]
    fn every_line_is_legal_from_the_start_and_named_distinctly() {
        for opening in OPENINGS {
            let moves = parse(opening);
            assert_eq!(moves.len() * 2, opening.moves.len(), "{}", opening.name);
            let mut position = Reversi::new();
            for (ply, &mv) in moves.iter().enumerate() {
                assert!(position.play(mv).is_ok(), "{}: move {} ({mv}) is illegal", opening.name, ply + 1);
            }
        }
        for (i, a) in OPENINGS.iter().enumerate() {
            assert!(OPENINGS[i + 1..].iter().all(|b| b.name != a.name && b.moves != a.moves), "{} twice", a.name);
        }
    }

    #[test]
    fn the_start_is_kept_by_four_symmetries() {
        assert_eq!(start_symmetries().len(), 4);
    }

    #[test]
    fn each_line_and_its_images_are_named_and_a_longer_line_wins() {
        for opening in OPENINGS {
            let moves = parse(opening);
            // The line itself, and it followed by more moves, is named by it or by a longer line
            // that continues it (never by a shorter one).
            assert_eq!(opening_name(&moves), Some(opening.name), "{}", opening.moves);
            for &s in start_symmetries() {
                let imaged: Vec<ReversiMove> = moves.iter().map(|&m| image(m, s)).collect();
                assert_eq!(opening_name(&imaged), Some(opening.name), "{} under symmetry {s}", opening.name);
                // A legal game too: the image of a line is a line from the start.
                let mut position = Reversi::new();
                assert!(imaged.iter().all(|&m| position.play(m).is_ok()), "{} under symmetry {s}", opening.name);
            }
            // One move short: a shorter line's name, or none.
            let shorter = opening_name(&moves[..moves.len() - 1]);
            assert_ne!(shorter, Some(opening.name), "{}", opening.name);
        }
        // Four distinct images of the Tiger's first move: f5, c4, d3, e6.
        let tiger = parse(OPENINGS.iter().find(|o| o.name == "Tiger").expect("the Tiger"));
        let mut firsts: Vec<String> = start_symmetries().iter().map(|&s| image(tiger[0], s).to_string()).collect();
        firsts.sort();
        assert_eq!(firsts, ["c4", "d3", "e6", "f5"]);
    }
}
