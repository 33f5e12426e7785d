//! `hane train`: fit a net to the shards in a folder, with a log line per `log_every` steps.
//! Ctrl-C or SIGTERM ends the run after the step in flight with a checkpoint of it and exit
//! code 130; killed or stopped, the same command resumes from the last checkpoint.

use crate::output::outln;
use crate::progress::print_train;
use crate::stop::{self, Second, RERUN};
use crate::Failure;
use hane_pipeline::config;
use hane_train::train;
use std::path::PathBuf;

/// Arguments of `hane train`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Config file (a `hane loop` config: the top-level rules and seed and its [train] table; see configs/).
    #[arg(long)]
    config: PathBuf,
    /// Folder with shards (searched recursively).
    #[arg(long)]
    data: PathBuf,
    /// Output folder: checkpoints/ and tensorboard/ are created inside.
    #[arg(long)]
    out: PathBuf,
}

/// Runs `hane train`.
pub fn run(a: Args) -> Result<(), Failure> {
    let cfg = config::load(&a.config)?.train;
    stop::install("after the training step in flight", Second::Wait)?;
    let s = train(&cfg, &a.data, &a.out, stop::stop(), &mut print_train)?;
    outln!("{s}");
    if s.interrupted {
        return Err(stop::interrupted(RERUN));
    }
    Ok(())
}
