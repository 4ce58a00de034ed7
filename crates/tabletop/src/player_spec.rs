//! Player specifications: `engine`, `engine:time=100ms`, `engine:level=club`, `classic:depth=5`,
//! `random`, `human`.
//!
//! The same syntax is used by every front end (`play`, `match`, the web API). A spec is a name,
//! then optionally a colon and comma-separated `key=value` settings. Each game says which names
//! and settings it offers through a table of [`PlayerKind`]s, and [`PlayerSpec::check`] turns an
//! unknown name or setting into an error that lists the valid ones.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::clock::TimeControl;

/// A parsed player specification.
///
/// ```
/// use tabletop::PlayerSpec;
/// let spec: PlayerSpec = "engine:time=100ms,depth=8".parse().unwrap();
/// assert_eq!(spec.name, "engine");
/// assert_eq!(spec.to_string(), "engine:depth=8,time=100ms");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    /// The player's name (`engine`, `classic`, `random`, `human`, ...).
    pub name: String,
    /// Its settings, by key.
    pub settings: BTreeMap<String, String>,
}

/// Why a player specification was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The text is not `name[:key=value,...]`.
    #[error("bad player spec {0:?}: expected NAME or NAME:KEY=VALUE,... (e.g. engine:time=100ms)")]
    Syntax(String),
    /// The name is not offered by this game.
    #[error("unknown player {name:?}; valid players: {valid}")]
    UnknownName {
        /// The name given.
        name: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// The player has no such setting.
    #[error("player {name:?} has no setting {key:?}; valid settings: {valid}")]
    UnknownSetting {
        /// The player's name.
        name: String,
        /// The setting given.
        key: String,
        /// The valid settings, comma-separated (or "none").
        valid: String,
    },
    /// A setting's value could not be read.
    #[error("bad value {value:?} for {key}: {expected}")]
    BadValue {
        /// The setting.
        key: String,
        /// The value given.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// The player's tables (a setting such as `table=`) could not be allocated.
    #[error(transparent)]
    Memory(#[from] crate::memory::TableAllocError),
}

/// Why [`assign_seats`] refused an option.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeatError {
    /// `SEAT=SPEC` names no seat of the game.
    #[error("{text:?}: no seat {word:?}; seats: {seats}")]
    UnknownSeat {
        /// The whole option.
        text: String,
        /// The seat word given.
        word: String,
        /// The seats' names, e.g. `1 or b or blue; 2 or o or orange`.
        seats: String,
    },
    /// The spec is not valid.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

/// Reads seat assignments `SEAT=SPEC` (a seat by its number from 1, or by one of the words
/// `seat_words` gives for it) or a bare `SPEC`, which goes to the first seat whose default is
/// not `human`. `defaults` has one spec per seat; the result is `defaults` with the
/// assignments applied in order.
///
/// ```
/// use tabletop::player_spec::{assign_seats, PlayerSpec};
/// use tabletop::Seat;
/// let defaults = [PlayerSpec::named("human"), PlayerSpec::named("engine")];
/// let words = |s: Seat| if s.index() == 0 { &["x"][..] } else { &["o"][..] };
/// let options = ["x=random".to_string(), "engine:time=1s".to_string()];
/// let specs = assign_seats(&defaults, &options, words).unwrap();
/// assert_eq!((specs[0].to_string(), specs[1].to_string()), ("random".into(), "engine:time=1s".into()));
/// assert!(assign_seats(&defaults, &["3=random".to_string()], words).is_err());
/// ```
pub fn assign_seats<'w>(
    defaults: &[PlayerSpec],
    options: &[String],
    seat_words: impl Fn(crate::Seat) -> &'w [&'w str],
) -> Result<Vec<PlayerSpec>, SeatError> {
    let mut specs = defaults.to_vec();
    let seats = defaults.len() as u8;
    for text in options {
        match text.split_once('=') {
            // `engine:time=1s` has '=' inside its settings, after a ':'.
            Some((word, spec)) if !word.contains(':') => {
                let word = word.trim().to_ascii_lowercase();
                let seat = (0..seats)
                    .map(crate::Seat)
                    .find(|&s| word == (s.index() + 1).to_string() || seat_words(s).contains(&word.as_str()));
                let Some(seat) = seat else {
                    let names: Vec<String> = (0..seats)
                        .map(|s| {
                            let mut names = vec![(s + 1).to_string()];
                            names.extend(seat_words(crate::Seat(s)).iter().map(|w| w.to_string()));
                            names.join(" or ")
                        })
                        .collect();
                    return Err(SeatError::UnknownSeat { text: text.clone(), word, seats: names.join("; ") });
                };
                specs[seat.index()] = spec.parse()?;
            }
            _ => {
                let seat = defaults.iter().position(|s| s.name != "human").unwrap_or(specs.len() - 1);
                specs[seat] = text.parse()?;
            }
        }
    }
    Ok(specs)
}

/// One kind of player a game offers, for help texts and validation.
#[derive(Clone, Copy, Debug)]
pub struct PlayerKind {
    /// The name used in specs.
    pub name: &'static str,
    /// The settings it accepts.
    pub settings: &'static [&'static str],
    /// One line of help.
    pub help: &'static str,
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<Self, SpecError> {
        let text = text.trim();
        let (name, rest) = match text.split_once(':') {
            Some((n, r)) => (n, Some(r)),
            None => (text, None),
        };
        let valid_word =
            |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_word(name) {
            return Err(SpecError::Syntax(text.to_string()));
        }
        let mut settings = BTreeMap::new();
        if let Some(rest) = rest {
            for (k, v) in split_settings(rest).ok_or_else(|| SpecError::Syntax(text.to_string()))? {
                if !valid_word(&k) || v.is_empty() {
                    return Err(SpecError::Syntax(text.to_string()));
                }
                settings.insert(k.to_ascii_lowercase(), v);
            }
        }
        Ok(PlayerSpec { name: name.to_ascii_lowercase(), settings })
    }
}

/// Splits `key=value,key=value` into trimmed pairs. A value may be double-quoted, so that it can
/// hold commas, spaces and `=` (`cmd="engine --level=3, fast"`); inside the quotes `\"` is a
/// quote and `\\` a backslash. `None` when a pair has no `=` or a quote is not closed.
fn split_settings(text: &str) -> Option<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    let mut chars = text.chars();
    loop {
        let mut key = String::new();
        loop {
            match chars.next()? {
                '=' => break,
                ',' => return None,
                c => key.push(c),
            }
        }
        let rest = chars.as_str().trim_start();
        chars = rest.chars();
        let mut value = String::new();
        let more = if rest.starts_with('"') {
            chars.next();
            loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => value.push(chars.next()?),
                    c => value.push(c),
                }
            }
            // Only spaces may follow the closing quote, before the next pair or the end.
            loop {
                match chars.next() {
                    None => break false,
                    Some(',') => break true,
                    Some(c) if c.is_whitespace() => {}
                    Some(_) => return None,
                }
            }
        } else {
            let mut more = false;
            for c in chars.by_ref() {
                if c == ',' {
                    more = true;
                    break;
                }
                value.push(c);
            }
            value = value.trim().to_string();
            more
        };
        pairs.push((key.trim().to_string(), value));
        if !more {
            return Some(pairs);
        }
    }
}

impl fmt::Display for PlayerSpec {
    /// `name:key=value,...`; values with commas, quotes or spaces at either end are quoted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.settings.iter().enumerate() {
            write!(f, "{}{k}=", if i == 0 { ':' } else { ',' })?;
            if v.contains([',', '"']) || v.starts_with(char::is_whitespace) || v.ends_with(char::is_whitespace) {
                write!(f, "\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))?;
            } else {
                f.write_str(v)?;
            }
        }
        Ok(())
    }
}

impl PlayerSpec {
    /// A spec with no settings.
    pub fn named(name: &str) -> Self {
        PlayerSpec { name: name.to_string(), settings: BTreeMap::new() }
    }

    /// Checks the name and settings against the kinds a game offers; returns the matching kind.
    ///
    /// ```
    /// use tabletop::{PlayerKind, PlayerSpec};
    /// const KINDS: &[PlayerKind] = &[PlayerKind { name: "random", settings: &[], help: "" }];
    /// let spec: PlayerSpec = "random:depth=3".parse().unwrap();
    /// assert!(spec.check(KINDS).unwrap_err().to_string().contains("no setting"));
    /// ```
    pub fn check(&self, kinds: &'static [PlayerKind]) -> Result<&'static PlayerKind, SpecError> {
        let kind = kinds.iter().find(|k| k.name == self.name).ok_or_else(|| SpecError::UnknownName {
            name: self.name.clone(),
            valid: kinds.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
        })?;
        for key in self.settings.keys() {
            if !kind.settings.contains(&key.as_str()) {
                return Err(SpecError::UnknownSetting {
                    name: self.name.clone(),
                    key: key.clone(),
                    valid: if kind.settings.is_empty() { "none".to_string() } else { kind.settings.join(", ") },
                });
            }
        }
        Ok(kind)
    }

    /// A whole-number setting, or `None` if absent.
    pub fn get_u64(&self, key: &str) -> Result<Option<u64>, SpecError> {
        self.settings
            .get(key)
            .map(|v| {
                v.parse().map_err(|_| SpecError::BadValue {
                    key: key.to_string(),
                    value: v.clone(),
                    expected: "a whole number".to_string(),
                })
            })
            .transpose()
    }

    /// A whole-number setting that must lie in `range`, or `None` if absent.
    pub fn get_in_range(&self, key: &str, range: std::ops::RangeInclusive<u64>) -> Result<Option<u64>, SpecError> {
        let value = self.get_u64(key)?;
        match value {
            Some(v) if !range.contains(&v) => Err(SpecError::BadValue {
                key: key.to_string(),
                value: v.to_string(),
                expected: format!("a number from {} to {}", range.start(), range.end()),
            }),
            _ => Ok(value),
        }
    }

    /// Takes the `clock=` setting out of the spec: the player's own time control
    /// ([`TimeControl`], e.g. `engine:clock=5+3`) in front ends that keep game clocks (matches,
    /// tournaments, the terminal), which then tell the player its clock before each move. The
    /// rest of the spec builds the player as usual.
    ///
    /// ```
    /// use tabletop::PlayerSpec;
    /// let mut spec: PlayerSpec = "engine:clock=10+0.1,depth=4".parse().unwrap();
    /// assert_eq!(spec.take_clock().unwrap().unwrap().to_string(), "10+0.1");
    /// assert_eq!(spec.to_string(), "engine:depth=4");
    /// let mut bad: PlayerSpec = "engine:clock=fast".parse().unwrap();
    /// assert!(bad.take_clock().unwrap_err().to_string().contains("clock"));
    /// ```
    pub fn take_clock(&mut self) -> Result<Option<TimeControl>, SpecError> {
        let Some(text) = self.settings.remove("clock") else { return Ok(None) };
        text.parse().map(Some).map_err(|e: crate::clock::TimeControlError| SpecError::BadValue {
            key: "clock".to_string(),
            value: text.clone(),
            expected: format!("a time control such as 5+3, 0:30+0.2, 10+30x5 or 3d ({e})"),
        })
    }

    /// A duration setting such as `100ms`, `2s`, `1.5s` or a bare number of milliseconds.
    pub fn get_duration(&self, key: &str) -> Result<Option<Duration>, SpecError> {
        self.settings
            .get(key)
            .map(|v| {
                parse_duration(v).ok_or_else(|| SpecError::BadValue {
                    key: key.to_string(),
                    value: v.clone(),
                    expected: "a duration such as 100ms, 2s or 1.5s".to_string(),
                })
            })
            .transpose()
    }
}

/// Reads `100ms`, `2s`, `1.5s`, `1m` or a bare number of milliseconds.
///
/// ```
/// use std::time::Duration;
/// assert_eq!(tabletop::player_spec::parse_duration("1.5s"), Some(Duration::from_millis(1500)));
/// assert_eq!(tabletop::player_spec::parse_duration("fast"), None);
/// ```
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = text.strip_suffix('m') {
        (n, 60.0)
    } else {
        (text, 0.001)
    };
    let value: f64 = number.trim().parse().ok()?;
    if !value.is_finite() || value < 0.0 || value * scale > 1e7 {
        return None;
    }
    Some(Duration::from_secs_f64(value * scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_carry_commands_with_spaces_commas_quotes_and_equals() {
        let spec: PlayerSpec = r#"nboard:cmd="/path/tabletop nboard --x=1,2",depth=2"#.parse().unwrap();
        assert_eq!(spec.settings["cmd"], "/path/tabletop nboard --x=1,2");
        assert_eq!(spec.settings["depth"], "2");
        let back: PlayerSpec = spec.to_string().parse().unwrap();
        assert_eq!(back, spec);
        let spec: PlayerSpec = r#"nboard:depth=2, cmd = "say \"hi\" \\ there" "#.parse().unwrap();
        assert_eq!(spec.settings["cmd"], r#"say "hi" \ there"#);
        assert_eq!(spec.to_string(), r#"nboard:cmd="say \"hi\" \\ there",depth=2"#);
        assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
        // What a shell leaves of --player nboard:cmd="/bin/x nboard",depth=2 (no quotes).
        let spec: PlayerSpec = "nboard:cmd=/bin/x nboard --level=3,depth=2".parse().unwrap();
        assert_eq!(spec.settings["cmd"], "/bin/x nboard --level=3");
        for bad in [r#"nboard:cmd="open"#, r#"nboard:cmd="a"b"#, "nboard:cmd=a,", "nboard:cmd", r#"nboard:cmd="""#] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad}");
        }
    }
}
