//! What the `tabletop` command runs (feature `cli`), shared by every game. The binary only
//! builds its command tree from the [registry](crate::registry) and dispatches here; each game's
//! own commands, options and terminal presenter live in its folder (`games/<game>/terminal.rs`
//! and `games/<game>/tools.rs`) and are listed by its [`GameCommands`].
//!
//! - [`commands`]: [`Verb`], [`Tool`] and [`GameCommands`]: how a game offers commands.
//! - [`play`]: the terminal play loop every game shares ([`play::Table`], [`play::Presenter`]).
//! - [`common`]: line input, colour, and matches with a progress bar.
//! - [`position`]: `moves` and `analyze` for every game.
//! - [`review`]: `review` for every game (a saved game, move by move).
//! - [`standard`]: the commands of a grid game with no command-line code of its own.
//! - [`tournament`]: `tournament` and `openings` for every two-player game.
//! - this module: [`ToolError`], capped file reads and option checks.

use std::io::Read;
use std::path::Path;

pub mod commands;
pub mod common;
pub mod play;
pub mod position;
pub mod review;
pub mod standard;
pub mod tournament;

pub use commands::{GameCommands, Tool, Verb};

/// Why a tool stopped: one line, printed once by the binary.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// Reading or writing failed.
    #[error("{context}: {cause}")]
    Io {
        /// What was being read or written.
        context: String,
        /// The failure: written in the message, and not also the error's `source()`, which
        /// `error: {:#}` would print a second time ("Is a directory (os error 21)" twice).
        cause: std::io::Error,
    },
    /// An option, an input or a file is not acceptable.
    #[error("{0}")]
    Invalid(String),
    /// The tool ran and found something wrong (a wrong score, failed lines).
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// An [`Invalid`](ToolError::Invalid) error from anything displayable, after `context`.
    pub fn invalid(context: impl std::fmt::Display, error: impl std::fmt::Display) -> ToolError {
        ToolError::Invalid(format!("{context}: {error}"))
    }
}

impl From<crate::memory::TableAllocError> for ToolError {
    fn from(error: crate::memory::TableAllocError) -> Self {
        ToolError::Invalid(error.to_string())
    }
}

impl From<crate::player_spec::SpecError> for ToolError {
    fn from(error: crate::player_spec::SpecError) -> Self {
        ToolError::Invalid(error.to_string())
    }
}

impl From<crate::player_spec::SeatError> for ToolError {
    fn from(error: crate::player_spec::SeatError) -> Self {
        ToolError::Invalid(error.to_string())
    }
}

impl From<std::io::Error> for ToolError {
    fn from(source: std::io::Error) -> Self {
        ToolError::Io { context: "output".into(), cause: source }
    }
}

/// A tool's result.
pub type ToolResult<T = ()> = Result<T, ToolError>;

/// The largest saved game or position file read (a Mathable save is a few kilobytes).
pub const SAVE_MAX_BYTES: u64 = 1 << 20;

/// Reads a file of at most `max` bytes: a larger file (or an endless one such as `/dev/zero`)
/// is an error instead of a read that never ends.
///
/// ```
/// use tabletop::tools::read_capped_bytes;
/// let err = read_capped_bytes(std::path::Path::new("/dev/zero"), 1024).unwrap_err();
/// assert_eq!(err.to_string(), "/dev/zero is larger than 1 KiB");
/// ```
pub fn read_capped_bytes(path: &Path, max: u64) -> ToolResult<Vec<u8>> {
    let io = |cause| ToolError::Io { context: format!("cannot read {}", path.display()), cause };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(ToolError::Invalid(format!("{} is larger than {} KiB", path.display(), max / 1024)));
    }
    Ok(bytes)
}

/// Reads a text file of at most `max` bytes (see [`read_capped_bytes`]).
pub fn read_capped(path: &Path, max: u64) -> ToolResult<String> {
    String::from_utf8(read_capped_bytes(path, max)?)
        .map_err(|_| ToolError::Invalid(format!("{} is not UTF-8 text", path.display())))
}

/// Checks a `--threads` option: at least 1, at most four times the cores.
pub fn check_threads(threads: usize) -> ToolResult<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads == 0 || threads > 4 * cores {
        return Err(ToolError::Invalid(format!("--threads {threads}: give 1 to {} (4 x {cores} cores)", 4 * cores)));
    }
    Ok(threads)
}

/// Reads a duration option (`500ms`, `2s`, `1.5s`): finite, not negative.
pub fn parse_duration_arg(text: &str) -> Result<std::time::Duration, String> {
    crate::player_spec::parse_duration(text).ok_or_else(|| format!("{text:?} is not a duration such as 500ms or 2s"))
}

/// `with_context` for any result whose error can be displayed: the error becomes one line,
/// `context: error` (as `anyhow` prints it in the binary).
pub trait Context<T> {
    /// Wraps the error with the context `f` gives.
    fn with_context<C: std::fmt::Display>(self, f: impl FnOnce() -> C) -> ToolResult<T>;
    /// Wraps the error with a fixed context.
    fn context<C: std::fmt::Display>(self, context: C) -> ToolResult<T>
    where
        Self: Sized,
    {
        self.with_context(|| context)
    }
}

impl<T, E: std::fmt::Display> Context<T> for Result<T, E> {
    fn with_context<C: std::fmt::Display>(self, f: impl FnOnce() -> C) -> ToolResult<T> {
        self.map_err(|e| ToolError::invalid(f(), e))
    }
}

/// Any displayable error as an [`Invalid`](ToolError::Invalid) one, for `map_err(invalid)`.
pub fn invalid(error: impl std::fmt::Display) -> ToolError {
    ToolError::Invalid(error.to_string())
}

/// Returns early with a formatted [`ToolError::Invalid`].
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::tools::ToolError::Invalid(format!($($arg)*)))
    };
}
pub(crate) use bail;

/// A formatted [`ToolError::Invalid`].
macro_rules! tool_error {
    ($($arg:tt)*) => {
        $crate::tools::ToolError::Invalid(format!($($arg)*))
    };
}
pub(crate) use tool_error;
