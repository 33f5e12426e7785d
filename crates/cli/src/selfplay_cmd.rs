//! `hane selfplay`: generate training games with a progress bar; Ctrl-C or SIGTERM stops
//! cleanly with exit code 130 (finished games are kept, games in flight are dropped, no
//! partial file is left) and a rerun of the same command resumes.

use crate::output::outln;
use crate::progress::SelfplayBar;
use crate::stop::{self, Second, RERUN};
use crate::Failure;
use hane_pipeline::config;
use hane_pipeline::players::selfplay_evaluators;
use hane_selfplay::{run, Progress};
use std::path::PathBuf;
use std::sync::Arc;

/// Arguments of `hane selfplay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Config file (a `hane loop` config: the top-level rules and seed and its [selfplay] table; see configs/).
    #[arg(long)]
    config: PathBuf,
    /// Games to play in total (a rerun only plays the unfinished ones; at most 10000000).
    #[arg(long)]
    games: u64,
    /// Seed of the run, replacing the config's: give every worker of a scaled-out run its
    /// own (for example its job index), or they play the same games.
    #[arg(long)]
    seed: Option<u64>,
    /// Output folder (shards/ and sgf/ are created inside).
    #[arg(long)]
    out: PathBuf,
    /// Evaluator without a network: uniform or rollout (ignored with --model).
    #[arg(long, default_value = "uniform")]
    evaluator: String,
    /// A checkpoint (.safetensors from `hane train`) to evaluate positions with, or a
    /// trainer's output folder, meaning its newest checkpoint.
    #[arg(long)]
    model: Option<PathBuf>,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
}

/// Runs `hane selfplay`.
pub fn run_cmd(a: Args) -> Result<(), Failure> {
    let mut cfg = config::load(&a.config)?.selfplay;
    hane_selfplay::GAMES.check("--games", a.games).map_err(Failure::input)?;
    cfg.seed = a.seed.unwrap_or(cfg.seed);
    cfg.precision = a.precision.or(cfg.precision);
    let (fac, source) = selfplay_evaluators(&mut cfg, a.model.as_deref(), &a.evaluator).map_err(|e| {
        if a.model.is_some() {
            Failure::input(format!("--model {e}"))
        } else {
            e.into()
        }
    })?;
    // Without a net nothing runs libtorch, and a second Ctrl-C may quit at once.
    let second = if a.model.is_some() { Second::Wait } else { Second::Exit };
    stop::install("after the moves in flight (finished games are kept)", second)?;
    // A bar of finished games (moves/s and rows in its message) until the run ends or stops.
    let progress = Arc::new(Progress::default());
    let bar = SelfplayBar::start(a.games, progress.clone());
    let result = run(&cfg, a.games, &a.out, fac, &source, progress, stop::stop());
    bar.finish();
    let s = result?;
    outln!("{s}");
    if s.interrupted && stop::requested() {
        return Err(stop::interrupted(RERUN));
    }
    Ok(())
}
