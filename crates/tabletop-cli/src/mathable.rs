//! `tabletop ... mathable`: being built (see its issue).

use clap::Args;

/// Options of `tabletop play mathable`.
#[derive(Args)]
pub struct PlayArgs {}
/// Options of `tabletop match mathable`.
#[derive(Args)]
pub struct MatchArgs {}
/// Options of `tabletop bench mathable`.
#[derive(Args)]
pub struct BenchArgs {}

fn not_yet() -> anyhow::Result<()> {
    anyhow::bail!("mathable is not available yet")
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

/// Options of `tabletop moves mathable`.
#[derive(Args)]
pub struct MovesArgs {}

pub fn moves(_: MovesArgs) -> anyhow::Result<()> {
    not_yet()
}
