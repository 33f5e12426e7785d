//! `hane loop`: runs the generations of a run ([`hane_pipeline::Run`]) with progress bars;
//! Ctrl-C or SIGTERM stops at the next safe point with exit code 130, and the same command
//! continues the run.

use crate::progress::RunDisplay;
use crate::stop::{self, Second};
use crate::Failure;
use hane_pipeline::Run;
use std::path::PathBuf;

/// Arguments of `hane loop`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Config file with [selfplay], [train] and [loop] tables (see configs/). Without it, the
    /// embedded default: a quick 5x5 ttakji run (configs/ttakji-5x5.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run folder; rerunning the same command continues the run.
    #[arg(long)]
    out: PathBuf,
    /// Seed of the run, in place of the config's `seed` (kept in the run's copy of the config,
    /// so a rerun without it continues the same run).
    #[arg(long)]
    seed: Option<u64>,
}

/// Runs `hane loop`.
pub fn run(a: Args) -> Result<(), Failure> {
    let mut run = Run::open(&a.out, a.config.as_deref(), a.seed)?;
    stop::install("at the next safe point of the phase in flight", Second::Wait)?;
    let mut display = RunDisplay::new();
    Ok(run.run(&stop::stop(), &mut |e| display.show(e))?)
}
