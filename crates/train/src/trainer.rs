//! The training loop: batches from the [`Loader`], one optimiser step each, TensorBoard logs,
//! and crash-safe checkpoints.
//!
//! Output folder layout:
//!
//! ```text
//! OUT/checkpoints/step-000001000.safetensors   net + optimizer state + step (newest kept)
//! OUT/tensorboard/events.out.tfevents.*         one file per run (resumes add files)
//! ```
//!
//! A checkpoint is written every `checkpoint_every` steps and at the end, to a temporary name
//! then renamed, so a run killed at any moment (even by SIGKILL, even while saving) leaves
//! the previous checkpoint intact. Opening a trainer on an output folder with checkpoints
//! resumes from the newest readable one: same weights, batch-norm statistics, optimizer
//! buffers, step and sample count. Only the data order differs (the loader reseeds from the
//! step).
//!
//! A run that diverges stops with [`TrainError::Diverged`] and saves nothing more: the
//! metrics of every step (the loss terms and the gradient norm among them) are checked
//! finite at each log line and before each checkpoint, and a checkpoint with a NaN or
//! infinite tensor is never written ([`checkpoint::write`] refuses it). So the newest
//! checkpoint is always the last good one, and the rotation (which deletes only checkpoints
//! older than the one just written) never removes it. The metrics stay on the device
//! between checks, so the training step never waits for them; a diverged run stops at most
//! `log_every` steps late, having saved nothing in between.
//!
//! A run can also be stopped from another thread ([`Trainer::stop_on`]): the step in flight
//! finishes, and [`train`] writes a checkpoint of it, so libtorch is never interrupted
//! mid-step and the next run resumes exactly there.

use crate::config::TrainConfig;
use crate::loader::{Batch, Loader, Message, WindowInfo};
use crate::optim::Optimizer;
use crate::tensorboard::EventWriter;
use crate::TrainError;
use hane_data::features::ON_BOARD_PLANE;
use hane_engine::Rules;
use hane_host::Stop;
use hane_nn::checkpoint::{self, Checkpoint, ModelMeta};
use hane_nn::loss::losses;
use hane_nn::model::input_tensors;
use hane_nn::tch::{Device, Kind, Tensor};
use hane_nn::{Boards, NetConfig, Network, NnError, Targets};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Names of the per-step metrics, in the order the training step returns them.
pub const METRICS: [&str; 10] = [
    "loss/total",
    "loss/policy",
    "loss/value",
    "loss/score",
    "loss/score_spread",
    "loss/ownership",
    "metric/policy_top1",
    "metric/value_mse",
    "metric/score_abs_error",
    "train/grad_norm",
];

/// The `__metadata__` key of the trainer's state in a checkpoint.
const STATE_KEY: &str = "train";
/// The `__metadata__` key of the configuration that wrote a checkpoint (for reference).
const CONFIG_KEY: &str = "train_config";

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrainState {
    step: u64,
    samples: u64,
}

/// Averages over the steps since the previous log line.
#[derive(Clone, Debug, PartialEq)]
pub struct StepLog {
    /// Steps done (all runs).
    pub step: u64,
    /// Learning rate of the last step.
    pub lr: f64,
    /// Training samples per second since the previous log (data waits included).
    pub samples_per_sec: f64,
    /// Each of [`METRICS`] with its mean.
    pub metrics: Vec<(&'static str, f64)>,
}

impl StepLog {
    /// The mean of metric `name`, if logged.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.metrics.iter().find(|m| m.0 == name).map(|m| m.1)
    }
}

/// What the trainer reports while it runs.
#[derive(Clone, Debug)]
pub enum Progress {
    /// Training starts (or resumes, from the named checkpoint) at `step`.
    Started {
        /// The first step to train is `step + 1`.
        step: u64,
        /// The checkpoint resumed from, if any.
        resumed_from: Option<PathBuf>,
        /// Trainable weights.
        parameters: usize,
        /// The device, e.g. `cpu` or `cuda:0`.
        device: String,
    },
    /// The data window after a scan of the data folder.
    Window(WindowInfo),
    /// A log line (every `log_every` steps).
    Logged(StepLog),
    /// A checkpoint was written.
    Checkpoint {
        /// Its step.
        step: u64,
        /// Its path.
        path: PathBuf,
    },
    /// Something was skipped (a damaged shard or checkpoint).
    Warning(String),
}

/// What a finished run did.
#[derive(Clone, Debug)]
pub struct TrainSummary {
    /// Step the run started from.
    pub start_step: u64,
    /// Step reached.
    pub step: u64,
    /// Samples trained in this run.
    pub samples: u64,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// The last checkpoint written (or resumed from, if nothing was left to train).
    pub checkpoint: Option<PathBuf>,
    /// The last log line.
    pub last: Option<StepLog>,
    /// Whether the stop flag ended the run before `cfg.steps`.
    pub interrupted: bool,
}

impl std::fmt::Display for TrainSummary {
    /// The line `hane train` ends with.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let checkpoint = self.checkpoint.as_ref().map_or("none".into(), |p| p.display().to_string());
        write!(
            f,
            "trained steps {}..{} ({} samples) in {:.1}s; checkpoint {checkpoint}",
            self.start_step, self.step, self.samples, self.seconds
        )
    }
}

/// Input and target tensors of a batch, on `device`, and how its boards lie.
fn batch_tensors(net: &NetConfig, b: &Batch, device: Device) -> (Tensor, Tensor, Boards, Targets) {
    let (planes, globals) = input_tensors(net, &b.planes, &b.globals, b.rows, device);
    let (n, s) = (b.rows as i64, net.board_size as i64);
    let t = |v: &[f32], shape: &[i64]| Tensor::from_slice(v).view(shape).to_device(device);
    let boards = Boards::of(b.padded);
    let on_board = || planes.select(1, ON_BOARD_PLANE as i64);
    let targets = Targets {
        policy: t(&b.policy, &[n, net.action_space as i64]),
        wdl: t(&b.wdl, &[n, 3]),
        score: t(&b.score, &[n]),
        ownership: t(&b.ownership, &[n, s, s]),
        ownership_weight: b.padded.then(|| Targets::ownership_weight_of(&on_board())),
    };
    (planes, globals, boards, targets)
}

/// One optimiser step on a batch; returns the [`METRICS`] as one tensor (no device sync).
/// `t` is the 1-based number of this step.
pub(crate) fn train_step(
    net: &Network,
    opt: &mut Optimizer,
    cfg: &TrainConfig,
    inputs: &(Tensor, Tensor, Boards, Targets),
    lr: f64,
    t: u64,
) -> Tensor {
    let (planes, globals, boards, targets) = inputs;
    let out = net.forward_t(planes, globals, *boards, true);
    let l = losses(&out, targets, &cfg.loss_weights, net.config().score_scale());
    opt.zero_grad();
    l.total.backward();
    let norm = opt.clip_grad_norm(cfg.grad_clip);
    opt.step(lr, t);
    let mut parts: Vec<Tensor> = l.named().iter().map(|(_, t)| t.detach()).collect();
    parts.push(norm);
    Tensor::stack(&parts, 0)
}

/// Checkpoints in `out_dir`, newest first, as (step, path).
fn checkpoints(out_dir: &Path) -> Vec<(u64, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(out_dir.join("checkpoints")) else { return Vec::new() };
    let mut v: Vec<(u64, PathBuf)> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let step = name.strip_prefix("step-")?.strip_suffix(".safetensors")?.parse().ok()?;
            Some((step, e.path()))
        })
        .collect();
    v.sort_by(|a, b| b.cmp(a));
    v
}

/// The newest checkpoint in a trainer's output folder, if any: the file to hand to
/// self-play ([`Network::load`] reads it and ignores the optimizer state).
pub fn latest_checkpoint(out_dir: &Path) -> Option<PathBuf> {
    checkpoints(out_dir).into_iter().next().map(|c| c.1)
}

/// A network, its optimiser and its position in the run.
#[derive(Debug)]
pub struct Trainer {
    cfg: TrainConfig,
    rules: Rules,
    net: Network,
    opt: Optimizer,
    step: u64,
    samples: u64,
    data_dir: PathBuf,
    out_dir: PathBuf,
    resumed_from: Option<PathBuf>,
    last_checkpoint: Option<(u64, PathBuf)>,
    warnings: Vec<String>,
    loader: Option<Loader>,
    events: Option<EventWriter>,
    stop: Stop,
}

impl Trainer {
    /// Prepares a run: validates `cfg`, sets libtorch's threads (first call in the process
    /// wins) and resumes from the newest checkpoint in `out_dir`, or builds a new network.
    /// A checkpoint of another rule set, net shape or optimizer is an error.
    pub fn open(cfg: &TrainConfig, data_dir: &Path, out_dir: &Path) -> Result<Trainer, TrainError> {
        cfg.validate().map_err(|e| TrainError::Config(e.0))?;
        let rules = cfg.rules;
        hane_nn::init_threads(cfg.threads);
        let device = hane_nn::device(&cfg.device)?;
        let ck_dir = out_dir.join("checkpoints");
        std::fs::create_dir_all(&ck_dir).map_err(|e| TrainError::Io(ck_dir.clone(), e))?;
        // Temporary files of a save that was killed half-way.
        for e in std::fs::read_dir(&ck_dir).map_err(|e| TrainError::Io(ck_dir.clone(), e))?.flatten() {
            if e.file_name().to_string_lossy().contains(".tmp") {
                let _ = std::fs::remove_file(e.path());
            }
        }
        // Newest first: a damaged one is passed over for an older one, but a run whose every
        // checkpoint is damaged is refused rather than started afresh over them.
        let mut warnings = Vec::new();
        let mut unreadable = None;
        for (step, path) in checkpoints(out_dir) {
            match Checkpoint::read(&path) {
                Ok(ck) => return Trainer::resume(cfg, rules, ck, device, data_dir, out_dir, warnings, step),
                Err(e) => {
                    warnings.push(format!("skipping checkpoint: {e}"));
                    unreadable.get_or_insert((path, e.to_string()));
                }
            }
        }
        if let Some((path, why)) = unreadable {
            let m = format!(
                "no checkpoint in {} can be read ({why}); move them away to start afresh",
                ck_dir.display()
            );
            return Err(TrainError::Checkpoint(path, m));
        }
        hane_nn::tch::manual_seed(cfg.seed as i64);
        let net = Network::new(NetConfig::new(&rules, cfg.net), device)?;
        let opt = Optimizer::new(&net, cfg);
        Ok(Trainer {
            cfg: cfg.clone(),
            rules,
            net,
            opt,
            step: 0,
            samples: 0,
            data_dir: data_dir.to_path_buf(),
            out_dir: out_dir.to_path_buf(),
            resumed_from: None,
            last_checkpoint: None,
            warnings,
            loader: None,
            events: None,
            stop: Stop::default(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn resume(
        cfg: &TrainConfig,
        rules: Rules,
        ck: Checkpoint,
        device: Device,
        data_dir: &Path,
        out_dir: &Path,
        warnings: Vec<String>,
        file_step: u64,
    ) -> Result<Trainer, TrainError> {
        let refuse = |m: String| TrainError::Checkpoint(ck.path.clone(), m);
        // A net of the run's game on another board size continues on this one.
        let theirs = ck.meta.parsed_rules().map_err(|e| refuse(e.0))?;
        ck.meta.check_rules(&Rules { size: theirs.size, ..rules }).map_err(|e| refuse(e.0))?;
        if ck.meta.net.shape != cfg.net {
            return Err(refuse(format!(
                "it holds a net of {}, the config asks for {} (train into another folder to change the shape)",
                ck.meta.net.shape, cfg.net
            )));
        }
        let state: TrainState = ck
            .extra
            .get(STATE_KEY)
            .ok_or_else(|| refuse("no trainer state: a bare model, not a training checkpoint".into()))
            .and_then(|s| serde_json::from_str(s).map_err(|e| refuse(format!("trainer state: {e}"))))?;
        if state.step != file_step {
            return Err(refuse(format!("its name says step {file_step}, its state says {}", state.step)));
        }
        let net = ck.network_for_size(rules.size, device)?;
        let mut opt = Optimizer::new(&net, cfg);
        opt.load_state(&ck.tensors).map_err(refuse)?;
        Ok(Trainer {
            cfg: cfg.clone(),
            rules,
            net,
            opt,
            step: state.step,
            samples: state.samples,
            data_dir: data_dir.to_path_buf(),
            out_dir: out_dir.to_path_buf(),
            resumed_from: Some(ck.path.clone()),
            last_checkpoint: Some((state.step, ck.path)),
            warnings,
            loader: None,
            events: None,
            stop: Stop::default(),
        })
    }

    /// From now on [`Trainer::train_until`] returns early, between two steps, once `flag` is
    /// set (by a signal handler, say).
    pub fn stop_on(&mut self, stop: Stop) {
        self.stop = stop;
    }

    fn stop_requested(&self) -> bool {
        self.stop.requested()
    }

    /// Steps done so far (all runs into this output folder).
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The network being trained.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// The checkpoint this trainer resumed from, if any.
    pub fn resumed_from(&self) -> Option<&Path> {
        self.resumed_from.as_deref()
    }

    /// Everything a checkpoint stores as tensors: the network's variables, then the
    /// optimizer's buffers, by checkpoint name.
    pub fn named_state(&self) -> Vec<(String, Tensor)> {
        let mut v = self.net.named_variables();
        v.extend(self.opt.named_state());
        v
    }

    /// Writes a checkpoint of the current step and deletes the oldest beyond
    /// `keep_checkpoints`. Weights or optimizer buffers that are not finite are
    /// [`TrainError::Diverged`], and nothing is written or deleted.
    pub fn save_checkpoint(&mut self) -> Result<PathBuf, TrainError> {
        let path = self.out_dir.join("checkpoints").join(format!("step-{:09}.safetensors", self.step));
        let state = TrainState { step: self.step, samples: self.samples };
        let extra = BTreeMap::from([
            (STATE_KEY.to_string(), serde_json::to_string(&state).expect("state serialises")),
            (CONFIG_KEY.to_string(), serde_json::to_string(&self.cfg).expect("config serialises")),
        ]);
        let mut meta = ModelMeta::new(&self.rules, *self.net.config());
        let sizes = self.cfg.data_sizes();
        if sizes != [self.rules.size] {
            meta.sizes = sizes;
        }
        match checkpoint::write(&path, &meta, &self.named_state(), &extra) {
            Err(NnError::NonFinite { tensor, count, .. }) => {
                return Err(self.diverged(format!("{count} values of {tensor} are NaN or infinite")))
            }
            other => other?,
        }
        // Only checkpoints up to this one count: newer ones are left from a run this one did
        // not resume from (unreadable, or saved diverged by an older build) and are replaced
        // as this run reaches their steps. Counting them would delete good ones.
        let older = checkpoints(&self.out_dir).into_iter().filter(|c| c.0 < self.step);
        for (_, old) in older.skip(self.cfg.keep_checkpoints - 1) {
            let _ = std::fs::remove_file(old);
        }
        self.last_checkpoint = Some((self.step, path.clone()));
        Ok(path)
    }

    /// The error of a run that diverged at the current step.
    fn diverged(&self, what: String) -> TrainError {
        TrainError::Diverged {
            step: self.step,
            what,
            last_good: self.last_checkpoint.as_ref().map(|c| c.1.clone()),
        }
    }

    /// The metric sums of steps `first..=self.step`, read back from the device; one that is
    /// not finite means the run diverged.
    fn finite_sums(&self, sums: &Tensor, first: u64) -> Result<Vec<f32>, TrainError> {
        let v = Vec::<f32>::try_from(&sums.to_device(Device::Cpu)).expect("float metrics");
        let bad: Vec<&str> = METRICS.iter().zip(&v).filter(|m| !m.1.is_finite()).map(|m| *m.0).collect();
        if bad.is_empty() {
            return Ok(v);
        }
        Err(self.diverged(format!("{} not finite in steps {first}..={}", bad.join(", "), self.step)))
    }

    /// Trains until step `target` (all runs counted), logging and checkpointing on the way,
    /// or until the flag of [`Trainer::stop_on`] is set. Stops with [`TrainError::Diverged`]
    /// when a metric or the weights turn NaN or infinite (see the module docs).
    pub fn train_until(
        &mut self,
        target: u64,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Option<StepLog>, TrainError> {
        for w in self.warnings.drain(..) {
            progress(&Progress::Warning(w));
        }
        if self.step >= target {
            return Ok(None);
        }
        let device = self.net.device();
        let cfg = self.cfg.clone();
        let net_cfg = *self.net.config();
        if self.events.is_none() {
            let dir = self.out_dir.join("tensorboard");
            self.events = Some(EventWriter::create(&dir).map_err(|e| TrainError::Io(dir, e))?);
        }
        let (seed, step) = (cfg.seed, self.step);
        let (rules, data_dir) = (self.rules, self.data_dir.clone());
        // Held outside `self` during the loop (so checkpoints can borrow `self`), and put back
        // for the next call.
        let mut loader = self.loader.take().unwrap_or_else(|| {
            Loader::start(&cfg, rules, net_cfg, &data_dir, seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        });
        let mut sums = Tensor::zeros([METRICS.len() as i64], (Kind::Float, device));
        let mut counted = 0u64;
        let mut since = (Instant::now(), self.samples, self.step + 1);
        let mut last = None;
        while self.step < target {
            let batch = loop {
                // Before each step, and while a loader waiting for data (`wait_for_data`) sends
                // no batch.
                if self.stop_requested() {
                    break None;
                }
                let Some(message) = loader.recv_timeout(Duration::from_millis(200)) else { continue };
                match message {
                    Message::Batch(b) => break Some(b),
                    Message::Window(w) => {
                        let events = self.events.as_mut().expect("created above");
                        let io = |e| TrainError::Io(self.out_dir.join("tensorboard"), e);
                        events.scalar("data/window_rows", self.step, w.window_rows as f64).map_err(io)?;
                        events.scalar("data/total_rows", self.step, w.total_rows as f64).map_err(io)?;
                        progress(&Progress::Window(w));
                    }
                    Message::Warning(m) => progress(&Progress::Warning(m)),
                    Message::Failed(e) => return Err(e),
                }
            };
            let Some(batch) = batch else { break };
            let lr = cfg.lr_at(self.step);
            let inputs = batch_tensors(&net_cfg, &batch, device);
            let metrics = train_step(&self.net, &mut self.opt, &cfg, &inputs, lr, self.step + 1);
            sums += metrics;
            counted += 1;
            self.step += 1;
            self.samples += batch.rows as u64;

            let log_due = self.step % cfg.log_every == 0 || self.step == target;
            let means = if log_due { Some(self.finite_sums(&sums, since.2)?) } else { None };
            let io = |e| TrainError::Io(self.out_dir.join("tensorboard"), e);
            let events = self.events.as_mut().expect("created above");
            if let Some(means) = means {
                let secs = since.0.elapsed().as_secs_f64().max(1e-9);
                let log = StepLog {
                    step: self.step,
                    lr,
                    samples_per_sec: (self.samples - since.1) as f64 / secs,
                    metrics: METRICS
                        .iter()
                        .zip(means)
                        .map(|(&n, s)| (n, f64::from(s) / counted as f64))
                        .collect(),
                };
                for (name, v) in &log.metrics {
                    events.scalar(name, self.step, *v).map_err(io)?;
                }
                events.scalar("train/lr", self.step, lr).map_err(io)?;
                events.scalar("train/samples_per_sec", self.step, log.samples_per_sec).map_err(io)?;
                events.flush().map_err(io)?;
                progress(&Progress::Logged(log.clone()));
                last = Some(log);
                let _ = sums.zero_();
                counted = 0;
                since = (Instant::now(), self.samples, self.step + 1);
            }
            if cfg.histogram_every > 0 && self.step % cfg.histogram_every == 0 {
                for (name, t) in self.net.named_parameters() {
                    let values = Vec::<f32>::try_from(t.detach().to_device(Device::Cpu).flatten(0, -1))
                        .expect("float weights");
                    events.histogram(&format!("weights/{name}"), self.step, &values).map_err(io)?;
                }
                events.flush().map_err(io)?;
            }
            if self.step % cfg.checkpoint_every == 0 {
                if counted > 0 {
                    self.finite_sums(&sums, since.2)?;
                }
                let path = self.save_checkpoint()?;
                progress(&Progress::Checkpoint { step: self.step, path });
            }
        }
        self.loader = Some(loader);
        Ok(last)
    }

    /// Samples per second of the bare training step — forward, losses, backward, clipping and
    /// update — on one fixed random batch of the configured size, after `warmup` untimed
    /// steps. The weights change; use a throw-away trainer.
    pub fn bare_samples_per_sec(&mut self, warmup: u64, steps: u64) -> f64 {
        let (cfg, device) = (*self.net.config(), self.net.device());
        let (n, s, m) = (self.cfg.batch_size as i64, cfg.board_size as i64, cfg.action_space as i64);
        let opts = (Kind::Float, device);
        let inputs = (
            Tensor::rand([n, cfg.planes as i64, s, s], opts).round(),
            Tensor::rand([n, cfg.globals as i64], opts),
            Boards::Full,
            Targets {
                policy: Tensor::rand([n, m], opts).softmax(1, Kind::Float),
                wdl: Tensor::rand([n, 3], opts).softmax(1, Kind::Float),
                score: Tensor::randn([n], opts) * 10.0,
                ownership: Tensor::randint(3, [n, s, s], opts) - 1.0,
                ownership_weight: None,
            },
        );
        let mut run = |k: u64| {
            for i in 0..k {
                let _ = train_step(&self.net, &mut self.opt, &self.cfg, &inputs, 1e-4, i + 1);
            }
            // Wait for the device before the clock stops.
            let _ = self.net.named_parameters()[0].1.sum(Kind::Float).double_value(&[]);
        };
        run(warmup);
        let t = Instant::now();
        run(steps);
        (steps * n as u64) as f64 / t.elapsed().as_secs_f64()
    }
}

/// Trains `cfg.steps` steps (counting those of earlier runs into `out_dir`) on the shards in
/// `data_dir`, resuming from the newest checkpoint in `out_dir` if there is one, and writes a
/// final checkpoint. `progress` sees every log line, checkpoint, window change and warning.
/// Once `stop` is set the run ends after the step in flight, with a checkpoint of it (when it
/// trained any), and its summary says it was interrupted.
pub fn train(
    cfg: &TrainConfig,
    data_dir: &Path,
    out_dir: &Path,
    stop: Stop,
    progress: &mut dyn FnMut(&Progress),
) -> Result<TrainSummary, TrainError> {
    let started = Instant::now();
    let mut t = Trainer::open(cfg, data_dir, out_dir)?;
    t.stop_on(stop);
    let start_step = t.step;
    let start_samples = t.samples;
    progress(&Progress::Started {
        step: t.step,
        resumed_from: t.resumed_from.clone(),
        parameters: t.net.parameter_count(),
        device: hane_nn::device_name(t.net.device()),
    });
    let last = t.train_until(cfg.steps, progress)?;
    let interrupted = t.step < cfg.steps;
    let trained = t.step > start_step;
    if t.last_checkpoint.as_ref().map(|c| c.0) != Some(t.step) && (trained || !interrupted) {
        let path = t.save_checkpoint()?;
        progress(&Progress::Checkpoint { step: t.step, path });
    }
    Ok(TrainSummary {
        start_step,
        step: t.step,
        samples: t.samples - start_samples,
        seconds: started.elapsed().as_secs_f64(),
        checkpoint: t.last_checkpoint.map(|c| c.1),
        last,
        interrupted,
    })
}
