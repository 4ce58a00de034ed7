//! The standings of a tournament from its games: points, wins, draws and losses, Elo with a
//! 95% interval from one Bradley-Terry fit over all games ([`crate::stats::bradley_terry`]),
//! the likelihood of superiority of each player over the next, the crosstable, and for two
//! players the pentanomial counts of the game pairs and the SPRT's state.

use serde::Serialize;

use super::results::GameResult;
use super::schedule::Settings;
use crate::stats::{bradley_terry, normal_cdf, Game, Pentanomial, Sprt, SprtDecision, Z95};

/// One player's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standing {
    /// The player's index in the settings.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its spec.
    pub spec: String,
    /// Games played.
    pub games: u64,
    /// Points (a draw is half a point).
    pub points: f64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost (forfeits included).
    pub losses: u64,
    /// Games lost by forfeit.
    pub forfeits: u64,
    /// Elo from the Bradley-Terry fit, the players' mean 0.
    pub elo: f64,
    /// Half the width of its 95% interval.
    pub error: f64,
    /// The likelihood that it is stronger than the next player of the table.
    pub los_next: Option<f64>,
    /// Why it was withdrawn, if it was.
    pub withdrawn: Option<String>,
}

impl Standing {
    /// Points over games (0.5 before any game).
    pub fn score(&self) -> f64 {
        if self.games == 0 {
            0.5
        } else {
            self.points / self.games as f64
        }
    }
}

/// A two-player match's pentanomial counts and SPRT.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtSummary {
    /// The test, when one was asked for.
    pub sprt: Option<Sprt>,
    /// The first player's pairs: `counts[k]` pairs scored `k / 2` points out of 2.
    pub pentanomial: Pentanomial,
    /// The first player's Elo and its 95% interval from the pairs, `(low, elo, high)`.
    pub elo: (f64, f64, f64),
    /// The log-likelihood ratio, with the SPRT.
    pub llr: Option<f64>,
    /// Its bounds `(lower, upper)`, with the SPRT.
    pub bounds: Option<(f64, f64)>,
    /// Its decision, with the SPRT.
    pub decision: Option<SprtDecision>,
}

impl SprtSummary {
    /// The summary of `pairs` for the test `sprt` (if any).
    pub fn new(sprt: Option<Sprt>, pairs: Pentanomial) -> SprtSummary {
        SprtSummary {
            sprt,
            pentanomial: pairs,
            elo: pairs.elo_interval(),
            llr: sprt.map(|s| s.llr(&pairs)),
            bounds: sprt.map(|s| s.bounds()),
            decision: sprt.map(|s| s.decide(&pairs)),
        }
    }
}

/// The pentanomial counts of player 0 of a two-player tournament: game `2k` and `2k + 1` of the
/// schedule share an opening with the seats swapped; pairs with both games played count.
pub fn pentanomial(results: &[GameResult]) -> Pentanomial {
    let mut pairs = Pentanomial::default();
    for two in results.windows(2) {
        let (a, b) = (&two[0], &two[1]);
        if a.index % 2 == 0 && b.index == a.index + 1 && a.opening == b.opening {
            if let (Some(x), Some(y)) = (a.points_of(0), b.points_of(0)) {
                pairs.add_pair(x, y);
            }
        }
    }
    pairs
}

/// The standings of a tournament.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Standings {
    /// The players, best first (by Elo, then points).
    pub rows: Vec<Standing>,
    /// `crosstable[i][j]`: player `i`'s points and games against player `j` (settings' order).
    pub crosstable: Vec<Vec<(f64, u64)>>,
    /// Games played.
    pub games: usize,
    /// For two players: the pairs and the SPRT.
    pub pairs: Option<SprtSummary>,
}

impl Standings {
    /// The standings after `results` (in schedule order); `withdrawn[i]` says why player `i`
    /// was withdrawn, if it was.
    pub fn new(settings: &Settings, results: &[GameResult], withdrawn: &[Option<String>]) -> Standings {
        let n = settings.players.len();
        let mut rows: Vec<Standing> = settings
            .players
            .iter()
            .enumerate()
            .map(|(index, p)| Standing {
                index,
                name: p.name.clone(),
                spec: p.spec.clone(),
                games: 0,
                points: 0.0,
                wins: 0,
                draws: 0,
                losses: 0,
                forfeits: 0,
                elo: 0.0,
                error: 0.0,
                los_next: None,
                withdrawn: withdrawn.get(index).cloned().flatten(),
            })
            .collect();
        let mut crosstable = vec![vec![(0.0, 0u64); n]; n];
        for r in results {
            for (seat, &p) in r.seats.iter().enumerate() {
                let points = if seat == 0 { r.score } else { 1.0 - r.score };
                let row = &mut rows[p];
                row.games += 1;
                row.points += points;
                match points {
                    x if x > 0.75 => row.wins += 1,
                    x if x < 0.25 => row.losses += 1,
                    _ => row.draws += 1,
                }
                if r.forfeit == Some(seat) {
                    row.forfeits += 1;
                }
                let cell = &mut crosstable[p][r.seats[1 - seat]];
                cell.0 += points;
                cell.1 += 1;
            }
        }
        let games: Vec<Game> = results.iter().map(|r| Game { a: r.seats[0], b: r.seats[1], score: r.score }).collect();
        for (row, rating) in rows.iter_mut().zip(bradley_terry(n, &games)) {
            row.elo = rating.elo;
            row.error = rating.error;
        }
        rows.sort_by(|a, b| b.elo.total_cmp(&a.elo).then(b.points.total_cmp(&a.points)).then(a.index.cmp(&b.index)));
        for i in 0..rows.len().saturating_sub(1) {
            // The difference's standard error, the two ratings taken as independent.
            let (a, b) = (&rows[i], &rows[i + 1]);
            let spread = ((a.error / Z95).powi(2) + (b.error / Z95).powi(2)).sqrt();
            rows[i].los_next = Some(if spread > 0.0 { normal_cdf((a.elo - b.elo) / spread) } else { 0.5 });
        }
        let pairs = (n == 2).then(|| SprtSummary::new(settings.sprt, pentanomial(results)));
        Standings { rows, crosstable, games: results.len(), pairs }
    }

    /// The standings as a text table.
    pub fn table(&self) -> String {
        let width = self.rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(4).max(6);
        let mut out = format!(
            "{:>3}  {:<width$}  {:>7} {:>6} {:>6}  {:>15}  {:>15}  {:>6}\n",
            "#", "player", "points", "games", "score", "W / D / L", "Elo (95%)", "LOS"
        );
        for (rank, r) in self.rows.iter().enumerate() {
            let wdl = format!("{} / {} / {}", r.wins, r.draws, r.losses);
            let elo = if r.error >= 2000.0 {
                format!("{:+.0} +- inf", r.elo)
            } else {
                format!("{:+.0} +- {:.0}", r.elo, r.error)
            };
            let los = r.los_next.map_or(String::new(), |l| format!("{:.1}%", 100.0 * l));
            out.push_str(&format!(
                "{:>3}  {:<width$}  {:>7.1} {:>6} {:>5.1}%  {:>15}  {:>15}  {:>6}",
                rank + 1,
                r.name,
                r.points,
                r.games,
                100.0 * r.score(),
                wdl,
                elo,
                los
            ));
            if r.forfeits > 0 {
                out.push_str(&format!("  ({} lost by forfeit)", r.forfeits));
            }
            if r.withdrawn.is_some() {
                out.push_str("  withdrawn");
            }
            out.push('\n');
        }
        out
    }

    /// The crosstable as text: a row per player (in the standings' order), its points and games
    /// against each other player.
    pub fn crosstable_text(&self) -> String {
        let order: Vec<usize> = self.rows.iter().map(|r| r.index).collect();
        let width = self.rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(4).max(6);
        let cell = 11;
        let mut out = format!("{:>3}  {:<width$}", "", "");
        for rank in 1..=order.len() {
            out.push_str(&format!(" {:>cell$}", rank));
        }
        out.push('\n');
        for (rank, &i) in order.iter().enumerate() {
            out.push_str(&format!("{:>3}  {:<width$}", rank + 1, self.rows[rank].name));
            for &j in &order {
                let text = match self.crosstable[i][j] {
                    _ if i == j => "-".to_string(),
                    (_, 0) => ".".to_string(),
                    (points, games) => format!("{points}/{games}"),
                };
                out.push_str(&format!(" {text:>cell$}"));
            }
            out.push('\n');
        }
        out
    }

    /// The two-player summary as text: the pairs, the Elo and the SPRT (empty for more players).
    pub fn pairs_text(&self) -> String {
        let Some(s) = &self.pairs else { return String::new() };
        let c = s.pentanomial.counts;
        let (low, elo, high) = s.elo;
        let mut out = format!(
            "pairs {} (pentanomial 0-2: {}, {}, {}, {}, {}); Elo of {} from the pairs {elo:+.1} [{low:+.1}, {high:+.1}]\n",
            s.pentanomial.pairs(),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4],
            self.rows.iter().find(|r| r.index == 0).map_or("", |r| r.name.as_str()),
        );
        if let (Some(sprt), Some(llr), Some((lower, upper)), Some(decision)) = (s.sprt, s.llr, s.bounds, s.decision) {
            let verdict = match decision {
                SprtDecision::H1 => "H1 accepted",
                SprtDecision::H0 => "H0 accepted",
                SprtDecision::Continue => "no decision yet",
            };
            out.push_str(&format!("SPRT {sprt}: LLR {llr:.2} [{lower:.2}, {upper:.2}]: {verdict}\n"));
        }
        out
    }
}
