//! The standalone HTML report of a tournament: the standings, the crosstable, the pairs and the
//! SPRT, and every game (opening, result, reason, moves) in one file with no external assets.

use super::results::GameResult;
use super::schedule::Settings;
use super::standings::Standings;

/// Escapes text for HTML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The report as one HTML page.
///
/// ```
/// use tabletop::tournament::{report::html, schedule::{Entrant, Format, Settings}, Standings};
/// let entrant = |name: &str| Entrant { name: name.into(), spec: "random".into() };
/// let settings = Settings {
///     game: "connect".into(), variant: String::new(), players: vec![entrant("a<b"), entrant("c")],
///     format: Format::RoundRobin, rounds: 1, games_per_pairing: 2, seed: 1, openings: String::new(),
///     sprt: None, max_failures: 3, tc: None,
/// };
/// let page = html(&settings, &Standings::new(&settings, &[], &[None, None]), &[]);
/// assert!(page.starts_with("<!DOCTYPE html>") && page.contains("a&lt;b") && !page.contains("<script src"));
/// ```
pub fn html(settings: &Settings, standings: &Standings, results: &[GameResult]) -> String {
    let mut page = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    page.push_str(&format!("<title>Tournament: {}</title>\n", escape(&settings.game)));
    page.push_str(
        "<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}\
         td,th{border:1px solid #ccc;padding:.25em .6em;text-align:right}td.l,th.l{text-align:left}\
         th{background:#f0f0f0}tr:nth-child(even) td{background:#fafafa}details{margin:.2em 0}\
         pre{white-space:pre-wrap;font-size:.85em;background:#f6f6f6;padding:.5em}.forfeit{color:#b00}</style>\n",
    );
    page.push_str("</head><body>\n");
    page.push_str(&format!(
        "<h1>Tournament: {}</h1>\n<p>{} {}, {} round(s), {} games per pairing, seed {}, openings: {}; {} games played.</p>\n",
        escape(&settings.game),
        escape(&settings.format.to_string()),
        escape(&settings.variant),
        settings.rounds,
        settings.games_per_pairing,
        settings.seed,
        escape(&settings.openings),
        standings.games
    ));
    page.push_str("<h2>Standings</h2>\n<table><tr><th>#</th><th class=\"l\">player</th><th class=\"l\">spec</th><th>points</th><th>games</th><th>score</th><th>W</th><th>D</th><th>L</th><th>forfeits</th><th>Elo</th><th>95%</th><th>LOS next</th></tr>\n");
    for (rank, r) in standings.rows.iter().enumerate() {
        let error = if r.error >= 2000.0 { "inf".to_string() } else { format!("&plusmn;{:.0}", r.error) };
        page.push_str(&format!(
            "<tr><td>{}</td><td class=\"l\">{}{}</td><td class=\"l\"><code>{}</code></td><td>{:.1}</td><td>{}</td><td>{:.1}%</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:+.0}</td><td>{}</td><td>{}</td></tr>\n",
            rank + 1,
            escape(&r.name),
            if r.withdrawn.is_some() { " (withdrawn)" } else { "" },
            escape(&r.spec),
            r.points,
            r.games,
            100.0 * r.score(),
            r.wins,
            r.draws,
            r.losses,
            r.forfeits,
            r.elo,
            error,
            r.los_next.map_or(String::new(), |l| format!("{:.1}%", 100.0 * l)),
        ));
    }
    page.push_str("</table>\n");
    for r in standings.rows.iter().filter_map(|r| r.withdrawn.as_ref()) {
        page.push_str(&format!("<p class=\"forfeit\">{}</p>\n", escape(r)));
    }
    let pairs = standings.pairs_text();
    if !pairs.is_empty() {
        page.push_str(&format!("<h2>Pairs and SPRT</h2>\n<pre>{}</pre>\n", escape(&pairs)));
    }
    page.push_str("<h2>Crosstable</h2>\n<table><tr><th></th><th class=\"l\">player</th>");
    for rank in 1..=standings.rows.len() {
        page.push_str(&format!("<th>{rank}</th>"));
    }
    page.push_str("</tr>\n");
    for (rank, row) in standings.rows.iter().enumerate() {
        page.push_str(&format!("<tr><td>{}</td><td class=\"l\">{}</td>", rank + 1, escape(&row.name)));
        for other in &standings.rows {
            let cell = match standings.crosstable[row.index][other.index] {
                _ if row.index == other.index => "&ndash;".to_string(),
                (_, 0) => String::new(),
                (points, games) => format!("{points}/{games}"),
            };
            page.push_str(&format!("<td>{cell}</td>"));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n<h2>Games</h2>\n");
    for g in results {
        let class = if g.forfeit.is_some() { " class=\"forfeit\"" } else { "" };
        page.push_str(&format!(
            "<details><summary{class}>{}. {} &ndash; {} {} ({}; {} plies; opening {})</summary><pre>{}</pre></details>\n",
            g.index + 1,
            escape(&g.names[0]),
            escape(&g.names[1]),
            g.result_text(),
            escape(&g.reason),
            g.plies,
            escape(&g.opening_text),
            escape(&g.text)
        ));
    }
    page.push_str("</body></html>\n");
    page
}
