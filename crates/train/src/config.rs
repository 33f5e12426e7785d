//! The trainer's configuration: a typed struct with a default and a doc comment per field,
//! read by the CLI from the `[train]` table of a TOML config file. Missing keys take their
//! defaults; unknown keys are errors.
//!
//! Every number's allowed values are declared once, as a constant below that its doc comment
//! links to, and checked by [`TrainConfig::validate`] before anything is allocated: sizes stop
//! far beyond any real machine (a batch of 65536 rows, a shuffle buffer of ten million), so a
//! typo is an error naming the key instead of memory growing until the process is killed, and
//! NaN or infinity is never allowed.

use hane_engine::range::{Allowed, Invalid, FRACTION};
use hane_engine::Rules;
use hane_host::show::list;
use hane_nn::{LossWeights, NetShape};
use serde::{Deserialize, Serialize};

/// The largest step count, warm-up, milestone or interval (a billion steps).
pub const MAX_STEPS: u64 = 1_000_000_000;

/// What `steps`, `warmup_steps`, `histogram_every` and each of `lr_milestones` allow: none
/// up to [`MAX_STEPS`].
pub const STEPS: Allowed<u64> = Allowed::closed(0, MAX_STEPS);
/// What `checkpoint_every` and `log_every` allow: 1 up to [`MAX_STEPS`].
pub const EVERY: Allowed<u64> = Allowed::closed(1, MAX_STEPS);
/// What `batch_size` allows.
pub const BATCH_SIZE: Allowed<usize> = Allowed::closed(1, 65536);
/// What `window_min_rows` allows.
pub const WINDOW_MIN_ROWS: Allowed<usize> = Allowed::closed(1, 1_000_000_000);
/// What `window_exponent` allows.
pub const WINDOW_EXPONENT: Allowed<f64> = Allowed::above(0.0, 1.0);
/// What `window_growth` allows.
pub const WINDOW_GROWTH: Allowed<f64> = Allowed::closed(0.0, 100.0);
/// What `shuffle_rows` allows.
pub const SHUFFLE_ROWS: Allowed<usize> = Allowed::closed(1, 10_000_000);
/// What `keep_checkpoints` allows.
pub const KEEP_CHECKPOINTS: Allowed<usize> = Allowed::closed(1, 10_000);
/// What `threads` allows (0: one per core).
pub const TORCH_THREADS: Allowed<usize> = Allowed::closed(0, 1024);
/// What `lr` and `lr_gamma` allow.
pub const LR: Allowed<f64> = Allowed::above(0.0, 10.0);
/// What `momentum` and each of `adam_betas` allow.
pub const MOMENTUM: Allowed<f64> = Allowed::below(0.0, 1.0);
/// What `adam_eps` allows.
pub const ADAM_EPS: Allowed<f64> = Allowed::above(0.0, 1.0);
/// What `weight_decay` allows.
pub const WEIGHT_DECAY: Allowed<f64> = Allowed::closed(0.0, 1.0);
/// What `grad_clip` allows.
pub const GRAD_CLIP: Allowed<f64> = Allowed::closed(0.0, 1e6);
/// What `rescan_secs` allows, in seconds.
pub const RESCAN_SECS: Allowed<f64> = Allowed::closed(0.0, 86400.0);
/// What each of `loss_weights` allows.
pub const LOSS_WEIGHT: Allowed<f64> = Allowed::closed(0.0, 100.0);

/// Which optimiser updates the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// Stochastic gradient descent with momentum, as KataGo trains; `weight_decay` is an L2
    /// term added to the gradient.
    Sgd,
    /// Adam with decoupled weight decay (Loshchilov & Hutter): each step shrinks the weights
    /// by `lr * weight_decay`.
    AdamW,
}

/// How the learning rate changes over the run (after warm-up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LrSchedule {
    /// `lr` throughout.
    Constant,
    /// Cosine decay from `lr` at the end of warm-up to `lr * lr_final_fraction` at `steps`.
    Cosine,
    /// `lr` multiplied by `lr_gamma` at each step in `lr_milestones`.
    Step,
}

/// Every setting of a training run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// Rule set of the data and the net, written as its text in a config file, e.g. `ttakji`
    /// or `sligo,size=7`. Shards of the same game with another komi or turn cap are accepted;
    /// anything else is refused.
    pub rules: Rules,
    /// Board sizes of the training data, each from 2 up to the rules' size and the rules' size among
    /// them: shards of the rules' game on any of them are accepted, and the net, built for the
    /// rules' size, sees a smaller board in the top-left corner of its own (one net for several
    /// sizes; see `hane_nn::Boards`). Empty: the rules' size alone.
    pub sizes: Vec<u8>,
    /// Shape of a new network (`[train.net]`; ranges in [`NetShape`]'s fields). A resumed run
    /// must use the checkpoint's shape.
    pub net: NetShape,
    /// Training steps to reach, counted over all runs into the same output folder: a run
    /// resumed from step 3000 with `steps = 5000` trains 2000 more ([`STEPS`]).
    pub steps: u64,
    /// The step at which the decaying schedules (`cosine`) start their cycle; set by `hane
    /// loop`, not by config files. A loop trains one cycle per generation, from the step the
    /// last generation ended at to `steps`, so every generation starts again at the peak rate
    /// instead of continuing one schedule stretched over all generations (where generation 6
    /// trained at 5–10% of the peak). 0: one cycle over the whole run.
    #[serde(skip)]
    pub cycle_start: u64,
    /// Rows per step ([`BATCH_SIZE`]).
    pub batch_size: usize,
    /// `sgd` or `adamw`.
    pub optimizer: OptimizerKind,
    /// Peak learning rate per step (after warm-up; [`LR`]).
    pub lr: f64,
    /// Steps of linear warm-up from `lr / warmup_steps` to `lr` ([`STEPS`]).
    pub warmup_steps: u64,
    /// `constant`, `cosine` or `step`.
    pub lr_schedule: LrSchedule,
    /// `step` schedule: the steps at which the rate is multiplied by `lr_gamma` (each
    /// [`STEPS`]).
    pub lr_milestones: Vec<u64>,
    /// `step` schedule: the factor at each milestone ([`LR`]).
    pub lr_gamma: f64,
    /// `cosine` schedule: the final rate as a fraction of `lr` ([`FRACTION`]).
    pub lr_final_fraction: f64,
    /// SGD momentum ([`MOMENTUM`]).
    pub momentum: f64,
    /// AdamW's decay rates of the first and second moment estimates (each [`MOMENTUM`]).
    pub adam_betas: [f64; 2],
    /// AdamW's denominator offset ([`ADAM_EPS`]).
    pub adam_eps: f64,
    /// Weight decay of convolution and linear weights (not biases or batch-norm scales); see
    /// [`OptimizerKind`] for its meaning per optimiser ([`WEIGHT_DECAY`]).
    pub weight_decay: f64,
    /// Largest global gradient norm; larger gradients are scaled down to it. 0: no clipping
    /// ([`GRAD_CLIP`]).
    pub grad_clip: f64,
    /// Weight of each head's loss (`[train.loss_weights]`; each [`LOSS_WEIGHT`]).
    pub loss_weights: LossWeights,
    /// The data window, KataGo's `c`: while there are fewer rows than this, all are used
    /// ([`WINDOW_MIN_ROWS`]).
    pub window_min_rows: usize,
    /// The data window's growth exponent (KataGo's α; [`WINDOW_EXPONENT`]).
    pub window_exponent: f64,
    /// The data window's growth rate (KataGo's β): with `N` rows in all, the newest
    /// `c·(1 + β·((N/c)^α − 1)/α)` are used ([`WINDOW_GROWTH`]).
    pub window_growth: f64,
    /// Rows held in the shuffle buffer: batches are drawn at random from it, and it is
    /// refilled with whole shards drawn at random from the window ([`SHUFFLE_ROWS`]).
    pub shuffle_rows: usize,
    /// Apply a random board symmetry to each row.
    pub augment: bool,
    /// Seconds between scans of the data folder for new shards ([`RESCAN_SECS`]).
    pub rescan_secs: f64,
    /// On a data folder without a readable shard: wait for one, looking every `rescan_secs`
    /// (a trainer started beside its self-play workers), instead of stopping with an error.
    pub wait_for_data: bool,
    /// Write a checkpoint every this many steps (and at the end of the run; [`EVERY`]).
    pub checkpoint_every: u64,
    /// Checkpoints to keep; older ones are deleted ([`KEEP_CHECKPOINTS`]).
    pub keep_checkpoints: usize,
    /// Log scalars every this many steps ([`EVERY`]).
    pub log_every: u64,
    /// Log weight histograms every this many steps (0: never; [`STEPS`]).
    pub histogram_every: u64,
    /// Seed of the initial weights, the shuffling and the symmetries (any 64-bit number).
    pub seed: u64,
    /// libtorch intra-op threads (0: one per core; [`TORCH_THREADS`]).
    pub threads: usize,
    /// `auto` (CUDA when present), `cpu`, `cuda` or `cuda:N` (another value is refused when
    /// the config is read; a CUDA device that is not there, when training starts).
    pub device: String,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            rules: Rules::preset("ttakji").expect("a preset"),
            sizes: Vec::new(),
            net: NetShape::default(),
            steps: 10_000,
            cycle_start: 0,
            batch_size: 256,
            optimizer: OptimizerKind::Sgd,
            lr: 0.02,
            warmup_steps: 200,
            lr_schedule: LrSchedule::Constant,
            lr_milestones: Vec::new(),
            lr_gamma: 0.1,
            lr_final_fraction: 0.05,
            momentum: 0.9,
            adam_betas: [0.9, 0.999],
            adam_eps: 1e-8,
            weight_decay: 1e-4,
            grad_clip: 5.0,
            loss_weights: LossWeights::default(),
            window_min_rows: 250_000,
            window_exponent: 0.75,
            window_growth: 0.4,
            shuffle_rows: 50_000,
            augment: true,
            rescan_secs: 60.0,
            wait_for_data: false,
            checkpoint_every: 1000,
            keep_checkpoints: 3,
            log_every: 100,
            histogram_every: 1000,
            seed: 1,
            threads: 0,
            device: "auto".into(),
        }
    }
}

impl TrainConfig {
    /// Checks every value against what its doc comment allows (the message names the key,
    /// the value and what is allowed).
    pub fn validate(&self) -> Result<(), Invalid> {
        let rules = self.rules;
        rules.validate().map_err(|e| Invalid(format!("rules = \"{rules}\": {e}")))?;
        self.net.validate().map_err(|e| Invalid(format!("net.{e}")))?;
        for &size in &self.sizes {
            Allowed::closed(2, rules.size).check("sizes", size)?;
        }
        if !self.sizes.is_empty() && !self.sizes.contains(&rules.size) {
            return Err(Invalid(format!(
                "sizes = [{}]: the net is built for the rules' size, {}, which must be among them",
                list(&self.sizes),
                rules.size
            )));
        }
        for (key, v) in [
            ("steps", self.steps),
            ("warmup_steps", self.warmup_steps),
            ("histogram_every", self.histogram_every),
        ] {
            STEPS.check(key, v)?;
        }
        for &m in &self.lr_milestones {
            STEPS.check("lr_milestones", m)?;
        }
        EVERY.check("checkpoint_every", self.checkpoint_every)?;
        EVERY.check("log_every", self.log_every)?;
        BATCH_SIZE.check("batch_size", self.batch_size)?;
        WINDOW_MIN_ROWS.check("window_min_rows", self.window_min_rows)?;
        SHUFFLE_ROWS.check("shuffle_rows", self.shuffle_rows)?;
        KEEP_CHECKPOINTS.check("keep_checkpoints", self.keep_checkpoints)?;
        TORCH_THREADS.check("threads", self.threads)?;
        self.device.parse::<hane_nn::DeviceName>()?;
        LR.check("lr", self.lr)?;
        LR.check("lr_gamma", self.lr_gamma)?;
        ADAM_EPS.check("adam_eps", self.adam_eps)?;
        WINDOW_EXPONENT.check("window_exponent", self.window_exponent)?;
        MOMENTUM.check("momentum", self.momentum)?;
        MOMENTUM.check("adam_betas[0]", self.adam_betas[0])?;
        MOMENTUM.check("adam_betas[1]", self.adam_betas[1])?;
        FRACTION.check("lr_final_fraction", self.lr_final_fraction)?;
        WEIGHT_DECAY.check("weight_decay", self.weight_decay)?;
        GRAD_CLIP.check("grad_clip", self.grad_clip)?;
        WINDOW_GROWTH.check("window_growth", self.window_growth)?;
        RESCAN_SECS.check("rescan_secs", self.rescan_secs)?;
        let w = &self.loss_weights;
        for (key, v) in [
            ("loss_weights.policy", w.policy),
            ("loss_weights.value", w.value),
            ("loss_weights.score", w.score),
            ("loss_weights.score_spread", w.score_spread),
            ("loss_weights.ownership", w.ownership),
        ] {
            LOSS_WEIGHT.check(key, v)?;
        }
        Ok(())
    }

    /// The board sizes of the data: `sizes`, or the rules' size alone.
    pub fn data_sizes(&self) -> Vec<u8> {
        if self.sizes.is_empty() {
            vec![self.rules.size]
        } else {
            self.sizes.clone()
        }
    }

    /// The learning rate of step `step` (0-based).
    pub fn lr_at(&self, step: u64) -> f64 {
        let warm = if step < self.warmup_steps { (step + 1) as f64 / self.warmup_steps as f64 } else { 1.0 };
        let decay = match self.lr_schedule {
            LrSchedule::Constant => 1.0,
            LrSchedule::Step => {
                self.lr_gamma.powi(self.lr_milestones.iter().filter(|&&m| step >= m).count() as i32)
            }
            LrSchedule::Cosine => {
                let start = self.cycle_start.max(self.warmup_steps);
                let span = self.steps.saturating_sub(start).max(1) as f64;
                let t = (step.saturating_sub(start) as f64 / span).min(1.0);
                let f = self.lr_final_fraction;
                f + (1.0 - f) * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
            }
        };
        self.lr * warm * decay
    }

    /// Rows in the window when the data folder holds `total` rows.
    pub fn window_rows(&self, total: usize) -> usize {
        let c = self.window_min_rows as f64;
        let n = total as f64;
        if n <= c {
            return total;
        }
        let a = self.window_exponent;
        let w = c * (1.0 + self.window_growth * ((n / c).powf(a) - 1.0) / a);
        (w.round() as usize).min(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_with_defaults_and_unknown_keys() {
        let parse = |s: &str| toml::from_str::<TrainConfig>(s).map_err(|e| e.to_string());
        let c = parse("rules = \"sligo,size=7\"\nbatch_size = 64\n[net]\nblocks = 2\n").unwrap();
        assert_eq!((c.batch_size, c.net.blocks, c.net.channels), (64, 2, 96));
        assert_eq!((c.validate(), c.rules.size), (Ok(()), 7));
        let e = parse("rules = \"loose,size=4\"").unwrap_err();
        assert!(e.contains("rules = \"loose,size=4\"") && e.contains("odd"), "{e}");
        assert!(parse("batchsize = 3").unwrap_err().contains("batchsize"));
        assert!(
            parse("optimizer = \"adamw\"\nlr_schedule = \"cosine\"").unwrap().optimizer
                == OptimizerKind::AdamW
        );
        assert!(parse("[loss_weights]\nvalue = 2.0\npolcy = 1.0").unwrap_err().contains("polcy"));
        assert!(TrainConfig { lr: 0.0, ..TrainConfig::default() }.validate().is_err());
        let e = parse("weight_decay = nan").unwrap().validate().unwrap_err().0;
        assert!(e.contains("weight_decay = NaN"), "{e}");
        let e = parse("[net]\nchannels = 100000").unwrap().validate().unwrap_err().0;
        assert!(e.contains("net.channels = 100000"), "{e}");
        let e = parse("batch_size = 1000000000000").unwrap().validate().unwrap_err().0;
        assert!(e.contains("batch_size") && e.contains("65536"), "{e}");
    }

    #[test]
    fn learning_rate_schedules() {
        let c = TrainConfig { lr: 1.0, warmup_steps: 10, steps: 110, ..TrainConfig::default() };
        assert_eq!(c.lr_at(0), 0.1);
        assert_eq!(c.lr_at(9), 1.0);
        assert_eq!(c.lr_at(50), 1.0);
        let step = TrainConfig { lr_schedule: LrSchedule::Step, lr_milestones: vec![20, 40], ..c.clone() };
        assert!((step.lr_at(30) - 0.1).abs() < 1e-12 && (step.lr_at(40) - 0.01).abs() < 1e-12);
        let cos = TrainConfig { lr_schedule: LrSchedule::Cosine, lr_final_fraction: 0.0, ..c };
        assert!((cos.lr_at(60) - 0.5).abs() < 1e-9);
        assert!(cos.lr_at(110) < 1e-12);
    }

    #[test]
    fn each_cycle_of_a_loop_starts_at_the_peak_rate() {
        // Generation g of a loop trains steps [100 g, 100 (g + 1)) as its own cosine cycle.
        let base = TrainConfig {
            lr: 1.0,
            warmup_steps: 10,
            lr_schedule: LrSchedule::Cosine,
            lr_final_fraction: 0.1,
            ..TrainConfig::default()
        };
        for g in 1..8u64 {
            let c = TrainConfig { cycle_start: 100 * g, steps: 100 * (g + 1), ..base.clone() };
            assert_eq!(c.lr_at(100 * g), 1.0, "generation {g} starts at the peak");
            assert!((c.lr_at(100 * g + 50) - 0.55).abs() < 1e-9, "half way: {}", c.lr_at(100 * g + 50));
            assert!((c.lr_at(100 * (g + 1)) - 0.1).abs() < 1e-9);
        }
    }

    #[test]
    fn the_window_grows_like_katagos() {
        let c = TrainConfig::default();
        assert_eq!(c.window_rows(1000), 1000);
        assert_eq!(c.window_rows(250_000), 250_000);
        // c = 250k, α = 0.75, β = 0.4: KataGo's 241M rows give its final ~23M window.
        let w = c.window_rows(241_000_000);
        assert!((22_000_000..24_000_000).contains(&w), "{w}");
        assert!(c.window_rows(1_000_000) < 1_000_000);
    }
}
