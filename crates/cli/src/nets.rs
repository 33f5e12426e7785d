//! Where the front-end commands (`gtp`, `analysis`, `play`) get the search they play with:
//! [`Loaded`] in `hane-torch`, which loads nets with libtorch, and [`Rollouts`] in `hane`,
//! which hands every command naming a net over to `hane-torch` before it runs
//! ([`crate::light::Light::needs_net`]).

use crate::Failure;
use hane_engine::Rules;
use hane_front::brain::Brain;
use hane_mcts::Precision;
use hane_pipeline::players::BoxedEvaluator;
use std::path::Path;

/// `--precision`, the argument of every command that runs a net.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct PrecisionArg {
    /// What the net computes in: fp32, bf16 (the trunk in bfloat16, the heads in FP32) or
    /// auto (bf16 where the processor has it); default fp32, or the config's `precision`.
    #[arg(long)]
    precision: Option<Precision>,
}

impl PrecisionArg {
    /// The precision given, else `default` (a config's).
    pub fn or(self, default: Precision) -> Precision {
        self.precision.unwrap_or(default)
    }

    /// The precision given, else FP32.
    pub fn get(self) -> Precision {
        self.or(Precision::Fp32)
    }
}

/// How a front-end command gets its search.
pub trait Nets: Sync {
    /// The search of `visits` visits per decision, with the net of the checkpoint at `model`
    /// (which must be able to play `rules`) computing in `precision` or, without one, random
    /// rollouts.
    fn brain(
        &self,
        model: Option<&Path>,
        rules: &Rules,
        visits: u32,
        seed: u64,
        precision: Precision,
    ) -> Result<Brain, Failure>;

    /// The rules the checkpoint at `model` was trained on.
    fn trained_rules(&self, model: &Path) -> Result<Rules, Failure>;

    /// The net of the checkpoint at `model` as an evaluator for `rules`, in `precision`.
    fn evaluator(&self, model: &Path, rules: &Rules, precision: Precision)
        -> Result<BoxedEvaluator, Failure>;
}

/// Nets loaded from their checkpoints ([`hane_pipeline::net_rules::load`]).
#[derive(Debug)]
pub struct Loaded;

impl Nets for Loaded {
    fn brain(
        &self,
        model: Option<&Path>,
        rules: &Rules,
        visits: u32,
        seed: u64,
        precision: Precision,
    ) -> Result<Brain, Failure> {
        let brain = match model {
            Some(path) => {
                let (ev, _) = hane_pipeline::net_rules::load(path, rules, precision)
                    .map_err(|e| hane_pipeline::Error::net_load(path, e))?;
                Brain::with_net(ev, visits, seed)
            }
            None => Brain::with_rollouts(visits, seed),
        };
        Ok(brain.map_err(hane_pipeline::Error::from)?)
    }

    fn trained_rules(&self, model: &Path) -> Result<Rules, Failure> {
        Ok(hane_pipeline::players::trained_rules(model)?)
    }

    fn evaluator(
        &self,
        model: &Path,
        rules: &Rules,
        precision: Precision,
    ) -> Result<BoxedEvaluator, Failure> {
        Ok(hane_pipeline::players::net(model, rules, precision)?)
    }
}

/// Random rollouts only: the process has no libtorch.
#[derive(Debug)]
pub struct Rollouts;

impl Rollouts {
    /// Why a net cannot be loaded here (`hane` hands such commands over before they run, so
    /// this is reached only if that check and the command disagree).
    fn refusal(model: &Path) -> Failure {
        Failure { code: 1, message: format!("{}: nets are loaded by hane-torch, not hane", model.display()) }
    }
}

impl Nets for Rollouts {
    fn brain(
        &self,
        model: Option<&Path>,
        _: &Rules,
        visits: u32,
        seed: u64,
        _: Precision,
    ) -> Result<Brain, Failure> {
        match model {
            Some(model) => Err(Rollouts::refusal(model)),
            None => Brain::with_rollouts(visits, seed).map_err(Failure::input),
        }
    }

    fn trained_rules(&self, model: &Path) -> Result<Rules, Failure> {
        Err(Rollouts::refusal(model))
    }

    fn evaluator(&self, model: &Path, _: &Rules, _: Precision) -> Result<BoxedEvaluator, Failure> {
        Err(Rollouts::refusal(model))
    }
}
