//! The results file: one JSON line of settings, then one JSON line per game committed, each
//! written and flushed to the disk before the next game is committed. A tournament run again
//! with the same settings and file keeps those games and plays only the others, so a run
//! killed at any moment (even with `kill -9`, which may leave half a line at the end: it is
//! dropped) continues with no game played twice or lost.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::schedule::Settings;

/// One game's result, as committed and as written to the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// The game's number in the schedule, from 0.
    pub index: usize,
    /// Its round, from 0.
    pub round: usize,
    /// Its opening slot.
    pub opening: usize,
    /// The players by index in seat order.
    pub seats: [usize; 2],
    /// Their names in seat order.
    pub names: [String; 2],
    /// The first seat's points: 1, 0.5 or 0.
    pub score: f64,
    /// The seat (0 or 1) that forfeited, if one did.
    pub forfeit: Option<usize>,
    /// The seat (0 or 1) that ran out of time, if one did.
    #[serde(default)]
    pub out_of_time: Option<usize>,
    /// How the game ended, in words (the rules' reason or the forfeit's).
    pub reason: String,
    /// The opening, in the game's notation (the start position, then the moves played).
    pub opening_text: String,
    /// Moves played in all (the opening's too).
    pub plies: usize,
    /// Moves each seat chose.
    pub moves: [u64; 2],
    /// Milliseconds each seat took to choose them.
    pub time_ms: [f64; 2],
    /// The game as written to `--games-out` (GGF for Reversi, the saved-game text otherwise).
    pub text: String,
}

impl GameResult {
    /// `1-0`, `1/2-1/2` or `0-1` (the first seat's points first).
    pub fn result_text(&self) -> &'static str {
        if self.score > 0.75 {
            "1-0"
        } else if self.score < 0.25 {
            "0-1"
        } else {
            "1/2-1/2"
        }
    }

    /// Player `p`'s points in this game (`None` when it did not play it).
    pub fn points_of(&self, p: usize) -> Option<f64> {
        if self.seats[0] == p {
            Some(self.score)
        } else if self.seats[1] == p {
            Some(1.0 - self.score)
        } else {
            None
        }
    }

    /// The player (by index) that forfeited, if one did.
    pub fn forfeiter(&self) -> Option<usize> {
        self.forfeit.and_then(|seat| self.seats.get(seat).copied())
    }
}

/// Why a results file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The file is not a results file of these settings.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// A results file open for appending.
#[derive(Debug)]
pub struct ResultsFile {
    path: PathBuf,
    file: File,
}

/// The first line's marker and version.
const HEADER_KEY: &str = "tabletop_tournament";

impl ResultsFile {
    /// Opens `path` for the tournament `settings`: creates it with its settings line, or reads
    /// the games it holds (which must be of the same settings) and returns them in order.
    pub fn open(path: &Path, settings: &Settings) -> Result<(ResultsFile, Vec<GameResult>), ResultsError> {
        let io = |source| ResultsError::Io { path: path.to_path_buf(), source };
        let invalid = |reason: String| ResultsError::Invalid { path: path.to_path_buf(), reason };
        let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(io)?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(|_| invalid("not a text file".into()))?;
        let wanted = serde_json::json!({ HEADER_KEY: 1, "settings": settings });
        let mut games = Vec::new();
        if text.trim().is_empty() {
            file.set_len(0).map_err(io)?;
            let mut results = ResultsFile { path: path.to_path_buf(), file };
            results.write_line(&wanted.to_string()).map_err(io)?;
            return Ok((results, games));
        }
        // Only complete lines count: a run killed while writing leaves at most half a line.
        let complete = text.rfind('\n').map_or(0, |i| i + 1);
        let mut lines = text[..complete].lines();
        let header: serde_json::Value = lines
            .next()
            .and_then(|line| serde_json::from_str(line).ok())
            .filter(|h: &serde_json::Value| h.get(HEADER_KEY).is_some())
            .ok_or_else(|| invalid("not a tournament results file (its first line is not the settings)".into()))?;
        if header != wanted {
            let differs = differing_keys(&header["settings"], &wanted["settings"]);
            return Err(invalid(format!(
                "holds another tournament's results (settings that differ: {differs}); give the same options to resume, or another file"
            )));
        }
        for (i, line) in lines.enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let game: GameResult = serde_json::from_str(line).map_err(|e| invalid(format!("line {}: {e}", i + 2)))?;
            if games.last().is_some_and(|last: &GameResult| last.index >= game.index) {
                return Err(invalid(format!("line {}: game {} is out of order", i + 2, game.index + 1)));
            }
            games.push(game);
        }
        file.set_len(complete as u64).map_err(io)?;
        Ok((ResultsFile { path: path.to_path_buf(), file }, games))
    }

    /// Appends one game and waits until it is on the disk.
    pub fn append(&mut self, game: &GameResult) -> Result<(), ResultsError> {
        let line = serde_json::to_string(game).expect("a game result serialises");
        self.write_line(&line).map_err(|source| ResultsError::Io { path: self.path.clone(), source })
    }

    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        use std::io::Seek;
        self.file.seek(std::io::SeekFrom::End(0))?;
        self.file.write_all(format!("{line}\n").as_bytes())?;
        self.file.sync_data()
    }
}

/// The top-level keys whose values differ between two JSON objects, comma-separated.
fn differing_keys(a: &serde_json::Value, b: &serde_json::Value) -> String {
    let keys: std::collections::BTreeSet<&String> =
        a.as_object().into_iter().chain(b.as_object()).flat_map(|o| o.keys()).collect();
    let differ: Vec<&str> = keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).map(|k| k.as_str()).collect();
    if differ.is_empty() {
        "the file's version".to_string()
    } else {
        differ.join(", ")
    }
}
