//! The command-line options every `tabletop ... slide` command shares (feature `cli`): here,
//! below both the play loop ([`terminal`](super::terminal)) and the command table
//! ([`tools`](super::tools)), so that neither needs the other to read them.

use crate::games::slide::{Slide, SlideVariant};
use crate::tools::{invalid, Context, ToolResult};
use crate::Game;

/// Board size and empty squares, shared by every Slide command.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct VariantArgs {
    /// Board size n (3 to 8).
    #[arg(long, default_value_t = 3)]
    pub size: usize,
    /// Squares that must stay empty, k (0 to n*n - 2).
    #[arg(long, default_value_t = 1)]
    pub empty: usize,
}

impl VariantArgs {
    /// The variant, checked.
    pub fn variant(self) -> ToolResult<SlideVariant> {
        SlideVariant::new(self.size, self.empty).map_err(invalid)
    }

    /// The start, or the configuration given, checked.
    pub fn position(self, config: Option<&str>) -> ToolResult<Slide> {
        let variant = self.variant()?;
        match config {
            Some(text) => Slide::from_notation(&variant, text).with_context(|| format!("bad position {text:?}")),
            None => Ok(Slide::start(&variant)),
        }
    }
}
