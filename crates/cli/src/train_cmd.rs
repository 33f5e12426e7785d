//! `hane train`: fit a net to the shards in a folder, with a log line per `log_every` steps.
//! Ctrl-C or SIGTERM ends the run after the step in flight with a checkpoint of it and exit
//! code 130; killed or stopped, the same command resumes from the last checkpoint.

use crate::config;
use crate::stop::{self, Second, RERUN};
use crate::Failure;
use hane_train::{train, Progress};
use std::path::PathBuf;

/// Arguments of `hane train`.
#[derive(clap::Args)]
pub struct Args {
    /// Config file (TOML with a [train] table; see configs/).
    #[arg(long)]
    config: PathBuf,
    /// Folder with shards (searched recursively).
    #[arg(long)]
    data: PathBuf,
    /// Output folder: checkpoints/ and tensorboard/ are created inside.
    #[arg(long)]
    out: PathBuf,
}

/// Prints one trainer event as a line.
pub fn print_progress(p: &Progress) {
    match p {
        Progress::Started { step, resumed_from, parameters, device } => match resumed_from {
            Some(c) => println!(
                "train: resuming at step {step} from {} ({parameters} weights, {device})",
                c.display()
            ),
            None => println!("train: starting at step {step} ({parameters} weights, {device})"),
        },
        Progress::Window(w) => println!("train: data window {w:?}"),
        Progress::Logged(l) => {
            let m: Vec<String> = l.metrics.iter().map(|(k, v)| format!("{k} {v:.4}")).collect();
            println!(
                "step {:>7}  lr {:.2e}  {:>7.1} samples/s  {}",
                l.step,
                l.lr,
                l.samples_per_sec,
                m.join("  ")
            );
        }
        Progress::Checkpoint { step, path } => {
            println!("train: checkpoint at step {step}: {}", path.display())
        }
        Progress::Warning(w) => eprintln!("train: warning: {w}"),
    }
}

pub fn run(a: Args) -> Result<(), Failure> {
    let cfg = config::load(&a.config)?.train;
    stop::install("after the training step in flight", Second::Wait)?;
    let s = train(&cfg, &a.data, &a.out, Some(stop::flag()), &mut print_progress)
        .map_err(|e| Failure { code: 1, message: e.to_string() })?;
    println!(
        "trained steps {}..{} ({} samples) in {:.1}s; checkpoint {}",
        s.start_step,
        s.step,
        s.samples,
        s.seconds,
        s.checkpoint.map_or("none".into(), |p| p.display().to_string())
    );
    if s.interrupted {
        return Err(stop::interrupted(RERUN));
    }
    Ok(())
}
