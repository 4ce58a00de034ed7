//! The command-line inputs several `tabletop ... reversi` commands share (feature `cli`): the
//! `--position` text and pattern weight files. Here, below the play loop
//! ([`terminal`](super::terminal)), the command table ([`tools`](super::tools)) and `tabletop
//! tune` (`tune_command`, feature `tune`), so that none of them needs another for them.

use crate::games::reversi::patterns::PatternWeights;
use crate::games::reversi::Reversi;
use crate::tools::{Context, ToolError, ToolResult};

/// The largest pattern weight file read (the built-in one is 5 MB).
const PATTERN_FILE_MAX_BYTES: u64 = 64 << 20;

/// Reads the pattern weight file `path` that `option` named (`tabletop tune`'s
/// `--play-patterns` and `--refine`, `tabletop nboard --weights`), kept until the program
/// ends: the engine holds `'static` weights, like the built-in ones.
pub(crate) fn read_pattern_weights(option: &str, path: &std::path::Path) -> ToolResult<&'static PatternWeights> {
    let bytes = crate::tools::read_capped_bytes(path, PATTERN_FILE_MAX_BYTES)?;
    let weights = PatternWeights::parse(&bytes)
        .map_err(|e| ToolError::Invalid(format!("{option} {}: bad pattern weight file: {e}", path.display())))?;
    Ok(Box::leak(Box::new(weights)))
}

/// The position of `--position` (OBF form), or the start.
pub fn parse_position(text: Option<&str>) -> ToolResult<Reversi> {
    match text {
        None => Ok(Reversi::new()),
        Some(t) => t.parse::<Reversi>().with_context(|| format!("bad position {t:?}")),
    }
}
