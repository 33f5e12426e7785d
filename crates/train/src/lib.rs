//! hane's trainer: fits the policy/value network of `hane-nn` to self-play shards.
//!
//! * [`config`]: [`TrainConfig`], every knob with its default.
//! * [`loader`]: a background thread that keeps a KataGo-style growing window over the
//!   newest shards of a folder, shuffles rows through a buffer and applies a random board
//!   symmetry to each ([`hane_data::symmetries`]).
//! * [`optim`]: SGD with momentum and AdamW whose state is saved in checkpoints.
//! * [`trainer`]: the loop — steps, learning-rate schedule, gradient clipping, crash-safe
//!   checkpoints with resume, a stop on divergence that keeps the last good checkpoint,
//!   progress callbacks — and [`train`], the entry point.
//! * [`tensorboard`]: a small event-file writer (scalars, histograms).
//! * [`bench`](mod@bench): training throughput against the bare optimiser step.
//! * [`synthetic`]: shards of random games, for the benchmark and tests.
//!
//! For the CLI (`hane train`, `hane bench train`):
//!
//! ```no_run
//! # use std::path::Path;
//! # fn main() -> Result<(), hane_train::TrainError> {
//! let cfg = hane_train::TrainConfig::default(); // or the `[train]` table of a config file
//! let (data, out) = (Path::new("run/shards"), Path::new("run/train"));
//! let stop = hane_host::Stop::default(); // requested by a signal handler, to end after a step
//! let summary = hane_train::train(&cfg, data, out, stop, &mut |p| {
//!     if let hane_train::Progress::Logged(l) = p {
//!         eprintln!("step {} loss {:.3}", l.step, l.get("loss/total").unwrap_or(f64::NAN));
//!     }
//! })?;
//! println!("reached step {} in {:.0}s", summary.step, summary.seconds);
//! let report = hane_train::bench(&cfg, None, 20, &mut |_| {})?;
//! println!("{report}");
//! # Ok(()) }
//! ```
//!
//! Binaries that link this crate need the rpath `build.rs` of this crate (and a direct
//! `torch-sys` dependency) to run without `LD_LIBRARY_PATH`; see `build.rs`.

pub mod bench;
pub mod config;
pub mod loader;
pub mod optim;
pub mod synthetic;
pub mod tensorboard;
pub mod trainer;

pub use bench::{bench, bench_loader, BenchReport};
pub use config::{LrSchedule, OptimizerKind, TrainConfig};
pub use trainer::{latest_checkpoint, train, Progress, StepLog, TrainSummary, Trainer};

use hane_nn::NnError;
use std::fmt;
use std::path::PathBuf;

/// Why training stopped.
#[derive(Debug)]
pub enum TrainError {
    /// An invalid configuration value.
    Config(String),
    /// A file or folder could not be read or written.
    Io(PathBuf, std::io::Error),
    /// A shard of another game, board size or encoder version: the data folder is wrong.
    Incompatible(PathBuf, String),
    /// No usable shard in the data folder.
    NoData(PathBuf),
    /// The data loader failed.
    Data(String),
    /// A checkpoint in the output folder does not fit the configuration.
    Checkpoint(PathBuf, String),
    /// The network (building, loading, saving).
    Nn(NnError),
    /// The loss, the gradient norm or the weights turned NaN or infinite. Nothing was saved
    /// after it, so the newest checkpoint is the last good one.
    Diverged {
        /// The step reached when it was noticed.
        step: u64,
        /// What was not finite.
        what: String,
        /// The newest checkpoint, to resume from (with a lower learning rate, other data).
        last_good: Option<PathBuf>,
    },
}

impl TrainError {
    /// Whether it is bad input (a config value, a data folder of other shards, a checkpoint
    /// that cannot be used), which the command line reports with exit code 2.
    pub fn is_input(&self) -> bool {
        matches!(self, TrainError::Config(_) | TrainError::Incompatible(..) | TrainError::Checkpoint(..))
    }
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Config(m) => write!(f, "train config: {m}"),
            TrainError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            TrainError::Incompatible(p, m) => write!(f, "refusing shard {}: {m}", p.display()),
            TrainError::NoData(p) => write!(f, "no readable shards (*.npz) in {}", p.display()),
            TrainError::Data(m) => write!(f, "data: {m}"),
            TrainError::Checkpoint(p, m) => write!(f, "cannot resume from {}: {m}", p.display()),
            TrainError::Nn(e) => e.fmt(f),
            TrainError::Diverged { step, what, last_good } => {
                write!(f, "training diverged by step {step}: {what}; nothing saved since ")?;
                match last_good {
                    Some(p) => write!(f, "the last good checkpoint, {}", p.display()),
                    None => f.write_str("the start (no checkpoint yet)"),
                }
            }
        }
    }
}

impl std::error::Error for TrainError {}

impl From<NnError> for TrainError {
    fn from(e: NnError) -> TrainError {
        TrainError::Nn(e)
    }
}
