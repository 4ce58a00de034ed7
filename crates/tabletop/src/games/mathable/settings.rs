//! Settings of a Mathable game: board size, players, rack size, token set, rule parts, presets.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The largest token value of any token set.
pub const MAX_TOKEN: u8 = 90;

/// Which tokens go into the bag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenSet {
    /// The 106 tokens of classic Mathable: seven each of 1..=10 and one each of 0, 11..=21, 24, 25,
    /// 27, 28, 30, 32, 35, 36, 40, 42, 45, 48, 49, 50, 54, 56, 60, 63, 64, 70, 72, 80, 81, 90.
    Classic,
    /// The 60 tokens of Mathable Junior: five each of 1..=10 and one each of 11..=20.
    Junior,
}

const CLASSIC_SINGLES: [u8; 36] = [
    0, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 27, 28, 30, 32, 35, 36, 40, 42, 45, 48, 49, 50, 54, 56, 60,
    63, 64, 70, 72, 80, 81, 90,
];

impl TokenSet {
    /// How many tokens of each value (index = value, 0..=90) the set holds.
    ///
    /// ```
    /// use tabletop::games::mathable::TokenSet;
    /// let counts = TokenSet::Classic.counts();
    /// assert_eq!((counts[7], counts[0], counts[81], counts[22]), (7, 1, 1, 0));
    /// assert_eq!(TokenSet::Classic.total(), 106);
    /// assert_eq!(TokenSet::Junior.total(), 60);
    /// ```
    pub fn counts(self) -> [u8; MAX_TOKEN as usize + 1] {
        let mut counts = [0u8; MAX_TOKEN as usize + 1];
        match self {
            TokenSet::Classic => {
                counts[1..=10].fill(7);
                for v in CLASSIC_SINGLES {
                    counts[v as usize] = 1;
                }
            }
            TokenSet::Junior => {
                counts[1..=10].fill(5);
                counts[11..=20].fill(1);
            }
        }
        counts
    }

    /// The number of tokens in the set.
    pub fn total(self) -> usize {
        self.counts().iter().map(|&c| c as usize).sum()
    }
}

/// Which special squares the board has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// The official 14x14 layout (2x, 3x and restriction squares); smaller boards use its
    /// central N x N part.
    Official,
    /// No special squares (only the four start tiles).
    Plain,
}

/// Which operations make equations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operations {
    /// Addition, subtraction, multiplication and division.
    All,
    /// Addition and subtraction only (Mathable Junior).
    AddSub,
}

/// A named set of settings that individual options can override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Official Mathable: 14x14 official board, 106 tokens, rack 7, bonus 50, deductions.
    Classic,
    /// Mathable Junior: 10x10 plain board, 60 tokens, rack 5, only + and -.
    Junior,
    /// The assignment's rules: no special squares, no bonus, no deductions.
    Simple,
}

/// Why a setting was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// The board size is odd or outside 8..=14.
    #[error("board size {0} is not allowed: it must be even, from 8 to 14")]
    Size(u8),
    /// The number of players is outside 2..=4.
    #[error("{0} players is not allowed: Mathable takes 2 to 4 players")]
    Players(u8),
    /// The rack size is outside 4..=8.
    #[error("rack size {0} is not allowed: it must be from 4 to 8")]
    Rack(u8),
    /// An unknown preset name.
    #[error("unknown preset {0:?}; valid presets: classic, junior, simple")]
    Preset(String),
    /// An unknown token set name.
    #[error("unknown token set {0:?}; valid token sets: classic, junior")]
    TokenSet(String),
    /// An unknown layout name.
    #[error("unknown layout {0:?}; valid layouts: official, plain")]
    Layout(String),
    /// An unknown operations name.
    #[error("unknown operations {0:?}; valid: all, addsub")]
    Operations(String),
}

macro_rules! word_enum {
    ($ty:ty, $err:ident, $($variant:ident => $word:literal),+) => {
        impl FromStr for $ty {
            type Err = SettingsError;
            fn from_str(text: &str) -> Result<Self, SettingsError> {
                match text.trim().to_ascii_lowercase().as_str() {
                    $($word => Ok(<$ty>::$variant),)+
                    _ => Err(SettingsError::$err(text.to_string())),
                }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(match self { $(<$ty>::$variant => $word,)+ })
            }
        }
    };
}

word_enum!(TokenSet, TokenSet, Classic => "classic", Junior => "junior");
word_enum!(Layout, Layout, Official => "official", Plain => "plain");
word_enum!(Operations, Operations, All => "all", AddSub => "addsub");
word_enum!(Preset, Preset, Classic => "classic", Junior => "junior", Simple => "simple");

/// Everything that fixes a Mathable game before the first move, the bag's seed included (so a
/// game is reproducible from its settings and its moves).
///
/// ```
/// use tabletop::games::mathable::{Preset, Settings};
/// let s = Settings::preset(Preset::Classic);
/// assert_eq!((s.size, s.players, s.rack, s.bonus), (14, 2, 7, 50));
/// assert!(Settings { size: 9, ..s }.validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Settings {
    /// Board side N (even, 8..=14).
    pub size: u8,
    /// Number of players (2..=4).
    pub players: u8,
    /// Rack size R (4..=8).
    pub rack: u8,
    /// The tokens in the bag.
    pub tokens: TokenSet,
    /// The special squares.
    pub layout: Layout,
    /// The operations that make equations.
    pub operations: Operations,
    /// Bonus for placing every token of a full rack in one turn (0 = none).
    pub bonus: u16,
    /// Whether each player loses the face value left on their rack when the game ends.
    pub deductions: bool,
    /// Seed of the bag's random generator.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings::preset(Preset::Classic)
    }
}

impl Settings {
    /// The settings of a preset, two players, seed 0.
    pub fn preset(preset: Preset) -> Settings {
        let classic = Settings {
            size: 14,
            players: 2,
            rack: 7,
            tokens: TokenSet::Classic,
            layout: Layout::Official,
            operations: Operations::All,
            bonus: 50,
            deductions: true,
            seed: 0,
        };
        match preset {
            Preset::Classic => classic,
            Preset::Junior => Settings {
                size: 10,
                rack: 5,
                tokens: TokenSet::Junior,
                layout: Layout::Plain,
                operations: Operations::AddSub,
                bonus: 0,
                deductions: false,
                ..classic
            },
            Preset::Simple => Settings { layout: Layout::Plain, bonus: 0, deductions: false, ..classic },
        }
    }

    /// Checks every setting, with an error naming the first bad one.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if self.size & 1 != 0 || !(8..=14).contains(&self.size) {
            return Err(SettingsError::Size(self.size));
        }
        if !(2..=4).contains(&self.players) {
            return Err(SettingsError::Players(self.players));
        }
        if !(4..=8).contains(&self.rack) {
            return Err(SettingsError::Rack(self.rack));
        }
        Ok(())
    }

    /// The settings with a different seed.
    pub fn with_seed(self, seed: u64) -> Settings {
        Settings { seed, ..self }
    }
}
