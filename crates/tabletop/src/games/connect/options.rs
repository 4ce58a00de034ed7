//! The command-line options every `tabletop ... connect` command shares (feature `cli`): here,
//! below both the play loop ([`terminal`](super::terminal)) and the command table
//! ([`tools`](super::tools)), so that neither needs the other to read them.

use crate::games::connect::ConnectVariant;
use crate::tools::{ToolError, ToolResult};

/// Board size options shared by every connect command.
#[derive(clap::Args, Clone, Debug)]
pub struct SizeArgs {
    /// A preset: connect3 (4x3, line 3), connect4-6x4, connect4 (7x6, the default), or WxH/N.
    #[arg(long)]
    pub preset: Option<String>,
    /// Number of columns (3 to 9).
    #[arg(long)]
    pub width: Option<usize>,
    /// Number of rows (3 to 9; width * (height + 1) at most 64).
    #[arg(long)]
    pub height: Option<usize>,
    /// Line length to win (3 to 6).
    #[arg(long)]
    pub connect: Option<usize>,
}

impl SizeArgs {
    /// The variant: the preset (default connect4) with any of width/height/connect overridden.
    pub fn variant(&self) -> ToolResult<ConnectVariant> {
        let base: ConnectVariant = match &self.preset {
            Some(p) => p.parse().map_err(|e| ToolError::invalid("--preset", e))?,
            None => ConnectVariant::connect4(),
        };
        if self.width.is_none() && self.height.is_none() && self.connect.is_none() {
            return Ok(base);
        }
        ConnectVariant::new(
            self.width.unwrap_or(base.width()),
            self.height.unwrap_or(base.height()),
            self.connect.unwrap_or(base.line()),
        )
        .map_err(|e| ToolError::Invalid(e.to_string()))
    }
}
