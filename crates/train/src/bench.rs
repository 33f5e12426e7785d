//! `hane bench train`: is the data pipeline fast enough?
//!
//! Two figures for the same network, batch size, device and thread count:
//!
//! 1. **training**: the real loop — shards read, shuffled and augmented by the loader
//!    thread, converted to tensors, one optimiser step each;
//! 2. **bare**: the same optimiser step (forward, losses, backward, clipping, update) on
//!    one fixed batch of random tensors, with no data work at all.
//!
//! Their ratio says how much the data path costs; the target is at least 0.9. The two are
//! timed in interleaved rounds and the best round of each counts, so that other work on the
//! machine (which only ever slows a round down) does not favour whichever ran in a quiet
//! moment. Without a data folder the benchmark writes shards of random games
//! ([`crate::synthetic`]) to a temporary folder first. Everything it writes is removed at the
//! end.
//!
//! [`bench_loader`] times the loader alone (`hane bench train --loader`): the samples per
//! second its one thread delivers.

use crate::config::{TrainConfig, MAX_STEPS};
use crate::loader::{Loader, Message};
use crate::trainer::{Progress, Trainer};
use crate::{synthetic, TrainError};
use hane_nn::NetConfig;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Untimed steps before the measurements (allocator and cache warm-up).
const WARMUP_STEPS: u64 = 3;
/// Interleaved rounds of each measurement.
const ROUNDS: u64 = 5;

/// The benchmark's result.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// The net, e.g. `b6c96`.
    pub net: String,
    /// Its trainable weights.
    pub parameters: usize,
    /// Rows per step.
    pub batch_size: usize,
    /// The device, e.g. `cpu` or `cuda:0`.
    pub device: String,
    /// libtorch intra-op threads.
    pub threads: usize,
    /// Timed steps of each loop (over all rounds).
    pub steps: u64,
    /// Samples per second of the training loop (best round).
    pub train_samples_per_sec: f64,
    /// Samples per second of the bare step on random tensors (best round).
    pub bare_samples_per_sec: f64,
}

impl BenchReport {
    /// Training over bare throughput.
    pub fn ratio(&self) -> f64 {
        self.train_samples_per_sec / self.bare_samples_per_sec
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "train bench: {} ({} weights), batch {}, {}, {} threads, {} timed steps each, best of {ROUNDS} rounds",
            self.net, self.parameters, self.batch_size, self.device, self.threads, self.steps
        )?;
        writeln!(
            f,
            "  training loop (shards, shuffle, symmetries, step): {:9.1} samples/s",
            self.train_samples_per_sec
        )?;
        writeln!(
            f,
            "  bare forward+backward+update on random tensors:    {:9.1} samples/s",
            self.bare_samples_per_sec
        )?;
        write!(f, "  ratio {:.3} (target >= 0.9)", self.ratio())
    }
}

/// A temporary folder removed on drop.
/// The shards a benchmark reads: `data_dir`, or generated random games in a temporary folder
/// (removed when the returned guard drops), enough for a few batches.
fn bench_data(cfg: &TrainConfig, data_dir: Option<&Path>) -> Result<(TempDir, PathBuf), TrainError> {
    cfg.validate().map_err(|e| TrainError::Config(e.0))?;
    let rules = cfg.rules;
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let tmp = TempDir(std::env::temp_dir().join(format!("hane-bench-train-{}-{nanos}", std::process::id())));
    let data = match data_dir {
        Some(d) => d.to_path_buf(),
        None => {
            let d = tmp.0.join("data");
            let games = (4 * cfg.batch_size).div_ceil(64).max(8);
            synthetic::write_shards(&d, &rules, games, 64, cfg.seed)
                .map_err(|e| TrainError::Data(e.to_string()))?;
            d
        }
    };
    Ok((tmp, data))
}

/// Samples per second of the data loader alone (its one thread reading the window's shards,
/// shuffling, augmenting with symmetries and assembling batches), no training: the best of
/// [`ROUNDS`] rounds of `batches` batches each, after a warm-up batch.
pub fn bench_loader(cfg: &TrainConfig, data_dir: Option<&Path>, batches: u64) -> Result<f64, TrainError> {
    cfg.validate().map_err(|e| TrainError::Config(e.0))?;
    let rules = cfg.rules;
    let (_tmp, data) = bench_data(cfg, data_dir)?;
    let mut loader = Loader::start(cfg, rules, NetConfig::new(&rules, cfg.net), &data, cfg.seed);
    let mut next_rows = || loop {
        match loader.recv() {
            Message::Batch(b) => return Ok(b.rows),
            Message::Failed(e) => return Err(e),
            Message::Window(_) | Message::Warning(_) => {}
        }
    };
    next_rows()?;
    let mut best = 0.0f64;
    for _ in 0..ROUNDS {
        let clock = Instant::now();
        let mut rows = 0;
        for _ in 0..batches.max(1) {
            rows += next_rows()?;
        }
        best = best.max(rows as f64 / clock.elapsed().as_secs_f64());
    }
    Ok(best)
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Measures training and bare samples per second over `steps` steps each, in five
/// interleaved rounds (see the module docs). `cfg` gives the net, batch, device and
/// threads; checkpoints and histograms are off. With `data_dir` `None`, shards of random
/// games are generated for `cfg.rules`.
pub fn bench(
    cfg: &TrainConfig,
    data_dir: Option<&Path>,
    steps: u64,
    progress: &mut dyn FnMut(&Progress),
) -> Result<BenchReport, TrainError> {
    let (tmp, data) = bench_data(cfg, data_dir)?;
    let run_cfg =
        TrainConfig { checkpoint_every: MAX_STEPS, histogram_every: 0, log_every: MAX_STEPS, ..cfg.clone() };
    let mut t = Trainer::open(&run_cfg, &data, &tmp.0.join("out"))?;
    t.train_until(WARMUP_STEPS, progress)?;
    t.bare_samples_per_sec(WARMUP_STEPS, 0);
    let per_round = steps.div_ceil(ROUNDS).max(1);
    let (mut train, mut bare) = (0.0f64, 0.0f64);
    for _ in 0..ROUNDS {
        let clock = Instant::now();
        t.train_until(t.step() + per_round, progress)?;
        train = train.max((per_round * cfg.batch_size as u64) as f64 / clock.elapsed().as_secs_f64());
        bare = bare.max(t.bare_samples_per_sec(0, per_round));
    }
    Ok(BenchReport {
        net: cfg.net.name(),
        parameters: t.network().parameter_count(),
        batch_size: cfg.batch_size,
        device: hane_nn::device_name(t.network().device()),
        threads: hane_nn::init_threads(cfg.threads),
        steps: per_round * ROUNDS,
        train_samples_per_sec: train,
        bare_samples_per_sec: bare,
    })
}
