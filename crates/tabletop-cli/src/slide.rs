//! `tabletop ... slide`: being built (see its issue).

use clap::Args;

/// Options of `tabletop play slide`.
#[derive(Args)]
pub struct PlayArgs {}
/// Options of `tabletop match slide`.
#[derive(Args)]
pub struct MatchArgs {}
/// Options of `tabletop bench slide`.
#[derive(Args)]
pub struct BenchArgs {}

fn not_yet() -> anyhow::Result<()> {
    anyhow::bail!("slide is not available yet")
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

/// Options of `tabletop perft slide`.
#[derive(Args)]
pub struct PerftArgs {}
/// Options of `tabletop solve slide`.
#[derive(Args)]
pub struct SolveArgs {}

pub fn perft(_: PerftArgs) -> anyhow::Result<()> {
    not_yet()
}
pub fn solve(_: SolveArgs) -> anyhow::Result<()> {
    not_yet()
}
