//! `tabletop ... connect`: being built (see its issue).

use clap::Args;

/// Options of `tabletop play connect`.
#[derive(Args)]
pub struct PlayArgs {}
/// Options of `tabletop match connect`.
#[derive(Args)]
pub struct MatchArgs {}
/// Options of `tabletop bench connect`.
#[derive(Args)]
pub struct BenchArgs {}

fn not_yet() -> anyhow::Result<()> {
    anyhow::bail!("connect is not available yet")
}

pub fn play(_: PlayArgs) -> anyhow::Result<()> {
    not_yet()
}
pub fn run_match(_: MatchArgs) -> anyhow::Result<()> {
    not_yet()
}
pub fn bench(_: BenchArgs) -> anyhow::Result<()> {
    not_yet()
}

/// Options of `tabletop perft connect`.
#[derive(Args)]
pub struct PerftArgs {}
/// Options of `tabletop solve connect`.
#[derive(Args)]
pub struct SolveArgs {}

pub fn perft(_: PerftArgs) -> anyhow::Result<()> {
    not_yet()
}
pub fn solve(_: SolveArgs) -> anyhow::Result<()> {
    not_yet()
}

/// Options of `tabletop book connect`.
#[derive(Args)]
pub struct BookArgs {}

pub fn book(_: BookArgs) -> anyhow::Result<()> {
    not_yet()
}
