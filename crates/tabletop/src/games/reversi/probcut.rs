//! Multi-ProbCut's fitted parameters, shared by the midgame search ([`engine`](super::engine))
//! and the endgame solver's selective stages ([`solver`](super::solver)), and written by the
//! tuning (`tabletop tune reversi --patterns`): in a module of their own so that neither search module
//! needs the other.

/// ProbCut applies from this depth on.
pub const PROBCUT_MIN_DEPTH: u32 = 3;
/// Its parameters are fitted up to this depth; deeper searches use this depth's.
pub const PROBCUT_MAX_DEPTH: u32 = 8;
/// Empties per ProbCut stage.
pub const PROBCUT_STAGE: u32 = 10;

/// The depth of the shallow search that predicts a search of `depth` plies (about half,
/// with the same parity).
///
/// ```
/// use tabletop::games::reversi::probcut::probcut_shallow;
/// assert_eq!(probcut_shallow(8), 4);
/// assert_eq!(probcut_shallow(7), 3);
/// assert_eq!(probcut_shallow(3), 1);
/// ```
pub fn probcut_shallow(depth: u32) -> u32 {
    (2 * (depth / 4) + (depth & 1)).max(1)
}

/// One depth and stage of ProbCut: `deep ~ a * shallow + b`, with residual `sigma`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CutParams {
    /// The shallow search's depth.
    pub shallow: u32,
    /// Slope.
    pub a: f32,
    /// Intercept, hundredths of a disc.
    pub b: f32,
    /// Standard deviation of the residual, hundredths of a disc.
    pub sigma: f32,
}

/// What is wrong with a ProbCut file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbCutError {
    /// A row is not `STAGE DEPTH SHALLOW A B SIGMA` (or `end EMPTIES SHALLOW A B SIGMA`) with
    /// sensible values.
    #[error("line {line}: expected `STAGE DEPTH SHALLOW A B SIGMA` (stage 0-6, depth {PROBCUT_MIN_DEPTH}-{PROBCUT_MAX_DEPTH}, shallow as probcut_shallow) or `end EMPTIES SHALLOW A B SIGMA` (empties 1-60, shallow 0-{END_SHALLOW_MAX} and below empties), with a in 0.2..5, b in -5000..5000, sigma in 0..5000")]
    Row {
        /// 1-based line number.
        line: usize,
    },
}

const STAGES: usize = (60 / PROBCUT_STAGE) as usize + 1;

/// The deepest shallow search fitted for the endgame solver's ProbCut.
pub const END_SHALLOW_MAX: u32 = 6;

/// The fitted Multi-ProbCut parameters: for the midgame search by stage (empties /
/// [`PROBCUT_STAGE`]) and depth, and for the endgame solver's selective stages by empties and
/// shallow depth (there the deep value is the exact score). A text file
/// (`data/reversi/probcut.txt`) written by `tabletop tune reversi --patterns`.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbCut {
    table: [[Option<CutParams>; PROBCUT_MAX_DEPTH as usize + 1]; STAGES],
    end: [[Option<CutParams>; END_SHALLOW_MAX as usize + 1]; 61],
}

impl Default for ProbCut {
    fn default() -> ProbCut {
        ProbCut { table: Default::default(), end: [[None; END_SHALLOW_MAX as usize + 1]; 61] }
    }
}

impl ProbCut {
    /// The parameters built into the program.
    pub fn builtin() -> &'static ProbCut {
        static P: std::sync::OnceLock<ProbCut> = std::sync::OnceLock::new();
        P.get_or_init(|| {
            ProbCut::parse(include_str!("../../../data/reversi/probcut.txt"))
                .expect("the built-in file is valid (tested)")
        })
    }

    /// The parameters for a search of `depth` plies with `empties` empty squares, if fitted.
    pub fn get(&self, depth: u32, empties: u32) -> Option<CutParams> {
        if depth < PROBCUT_MIN_DEPTH {
            return None;
        }
        let stage = (empties / PROBCUT_STAGE) as usize;
        let mut c = (*self.table.get(stage)?.get(depth.min(PROBCUT_MAX_DEPTH) as usize)?)?;
        if depth > PROBCUT_MAX_DEPTH {
            c.shallow = probcut_shallow(depth);
        }
        Some(c)
    }

    /// Sets the parameters of a stage and depth.
    pub fn set(&mut self, stage: usize, depth: u32, params: CutParams) {
        if let Some(slot) = self.table.get_mut(stage).and_then(|row| row.get_mut(depth as usize)) {
            *slot = Some(params);
        }
    }

    /// The endgame parameters for `empties` empties and a shallow search of `params.shallow`
    /// plies: the exact score ~ `a * shallow + b`. Positions with more empties than any fitted
    /// row use the nearest fitted row below.
    ///
    /// ```
    /// use tabletop::games::reversi::probcut::ProbCut;
    /// let cut = ProbCut::parse("end 20 3 1.0 5 400\n").unwrap();
    /// assert_eq!(cut.get_end(24, 3).map(|c| c.sigma), Some(400.0));
    /// assert!(cut.get_end(19, 3).is_none());
    /// assert!(cut.get_end(20, 2).is_none());
    /// ```
    pub fn get_end(&self, empties: u32, shallow: u32) -> Option<CutParams> {
        let column = shallow as usize;
        (0..=empties.min(60) as usize).rev().find_map(|e| *self.end[e].get(column)?)
    }

    /// Sets the endgame parameters for `empties` empties (and `params.shallow`).
    pub fn set_end(&mut self, empties: u32, params: CutParams) {
        if let Some(slot) = self.end.get_mut(empties as usize).and_then(|row| row.get_mut(params.shallow as usize)) {
            *slot = Some(params);
        }
    }

    /// Parses the text file: `#` comments, then rows `STAGE DEPTH SHALLOW A B SIGMA`.
    ///
    /// ```
    /// use tabletop::games::reversi::probcut::ProbCut;
    /// let cut = ProbCut::parse("# test\n3 8 4 1.0 5 300\n").unwrap();
    /// assert_eq!(cut.get(8, 35).map(|c| c.shallow), Some(4));
    /// assert!(cut.get(8, 45).is_none());
    /// assert!(ProbCut::parse("3 8 5 1.0 5 300\n").is_err());
    /// // Endgame rows: the shallow search must be shallower than the empties.
    /// assert!(ProbCut::parse("end 20 3 1.0 5 400\n").is_ok());
    /// assert!(ProbCut::parse("end 3 3 1.0 5 400\n").is_err());
    /// // The built-in file survives a round trip through its text.
    /// let builtin = ProbCut::builtin();
    /// assert_eq!(&ProbCut::parse(&builtin.to_text(&[])).unwrap(), builtin);
    /// assert!(builtin.get_end(20, 3).is_some());
    /// ```
    pub fn parse(text: &str) -> Result<ProbCut, ProbCutError> {
        let mut cut = ProbCut::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = ProbCutError::Row { line: i + 1 };
            let words: Vec<&str> = line.split_whitespace().collect();
            if words.len() != 6 {
                return Err(bad);
            }
            let int = |w: &str| w.parse::<u32>().map_err(|_| bad.clone());
            let float = |w: &str| w.parse::<f32>().map_err(|_| bad.clone());
            let (a, b, sigma) = (float(words[3])?, float(words[4])?, float(words[5])?);
            if !(0.2..5.0).contains(&a) || !(-5000.0..5000.0).contains(&b) || !(0.0..5000.0).contains(&sigma) {
                return Err(bad);
            }
            if words[0] == "end" {
                let (empties, shallow) = (int(words[1])?, int(words[2])?);
                if !(1..=60).contains(&empties) || shallow > END_SHALLOW_MAX || shallow >= empties {
                    return Err(bad);
                }
                cut.set_end(empties, CutParams { shallow, a, b, sigma });
                continue;
            }
            let (stage, depth, shallow) = (int(words[0])? as usize, int(words[1])?, int(words[2])?);
            if stage >= STAGES
                || !(PROBCUT_MIN_DEPTH..=PROBCUT_MAX_DEPTH).contains(&depth)
                || shallow != probcut_shallow(depth)
            {
                return Err(bad);
            }
            cut.set(stage, depth, CutParams { shallow, a, b, sigma });
        }
        Ok(cut)
    }

    /// The text file for these parameters, with `comment` lines on top.
    pub fn to_text(&self, comment: &[String]) -> String {
        let mut text: String = comment.iter().map(|c| format!("# {c}\n")).collect();
        text += "# stage (empties / 10), depth, shallow depth, a, b, sigma: deep ~ a * shallow + b (hundredths of a disc)\n";
        for (stage, row) in self.table.iter().enumerate() {
            for (depth, c) in row.iter().enumerate() {
                if let Some(c) = c {
                    text += &format!("{stage} {depth} {} {:.4} {:.1} {:.1}\n", c.shallow, c.a, c.b, c.sigma);
                }
            }
        }
        if self.end.iter().flatten().any(Option::is_some) {
            text +=
                "# end, empties, shallow depth, a, b, sigma: exact score ~ a * shallow + b (hundredths of a disc)\n";
            for (empties, row) in self.end.iter().enumerate() {
                for c in row.iter().flatten() {
                    text += &format!("end {empties} {} {:.4} {:.1} {:.1}\n", c.shallow, c.a, c.b, c.sigma);
                }
            }
        }
        text
    }
}
