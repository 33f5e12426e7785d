//! Players named on the command line, for `hane match` and `hane komi`, and the evaluators of
//! `hane selfplay`:
//!
//! - `model:PATH`: hane's search with the net in a checkpoint;
//! - `rollout` / `uniform`: hane's search with random playouts / no knowledge;
//! - `gnugo` or `gnugo:LEVEL`: GNU Go over GTP (Go rule sets only), told the scoring;
//! - `gtp:COMMAND`: any GTP engine started with COMMAND (for example `hane gtp ...`).

use crate::Error;
use hane_engine::rules::{Scoring, Variant};
use hane_engine::{GameState, Rules};
use hane_eval::gtp::{gnugo_program, GtpEngine, GtpLimits, GNUGO_LEVELS};
use hane_eval::referee::{GtpPlayer, Player, SearchPlayer};
use hane_mcts::{Evaluator, Precision, RolloutEvaluator, UniformEvaluator};
use hane_selfplay::server::EvaluatorFactory;
use hane_selfplay::SelfplayConfig;
use std::path::Path;
use std::sync::Arc;

/// A boxed evaluator for hane's search: the net of a checkpoint, or a stand-in.
pub type BoxedEvaluator = Box<dyn Evaluator<GameState>>;

/// Loads the net of a checkpoint for `rules` on the best device in `precision`, reporting a
/// bad file as input error. Its searches evaluate a few positions at a time, which one
/// libtorch thread serves best (more spend their time waking each other). A Go net also plays
/// the other Go rules of its board size ([`crate::net_rules`]; [`net_note`] says so).
pub fn net(path: &Path, rules: &Rules, precision: Precision) -> Result<BoxedEvaluator, Error> {
    let (ev, _) = crate::net_rules::load(path, rules, precision).map_err(|e| Error::net_load(path, e))?;
    Ok(Box::new(ev))
}

/// Which rules the net of `path` was trained on, when [`net`] plays it under other Go rules
/// `rules`; nothing for its own game, or a checkpoint that does not read ([`net`] says why).
pub fn net_note(path: &Path, rules: &Rules) -> Option<String> {
    let (trained, sizes) = crate::net_rules::trained_rules(path).ok()?;
    hane_mcts::net_rules::check(&trained, &sizes, rules).ok().flatten()
}

/// The rules the checkpoint at `model` was trained on (an error by its kind when it does not
/// read: [`Error::net_load`]).
pub fn trained_rules(model: &Path) -> Result<Rules, Error> {
    crate::net_rules::trained_rules(model).map(|(rules, _)| rules).map_err(|e| Error::net_load(model, e))
}

/// The player named by `spec` (see the module docs), searching with `visits` visits (a net
/// computing in `precision`); a GTP engine's waits are bounded by `gtp`.
pub fn player(
    spec: &str,
    rules: &Rules,
    visits: u32,
    seed: u64,
    gtp: &GtpLimits,
    precision: Precision,
) -> Result<Box<dyn Player>, Error> {
    let search = |evaluator: BoxedEvaluator, label: String| -> Box<dyn Player> {
        Box::new(SearchPlayer { evaluator, visits, seed, label })
    };
    let (kind, arg) = spec.split_once(':').unwrap_or((spec, ""));
    match kind {
        "model" => {
            // The precision is part of the name where it is not the default, so that a net
            // against its own bf16 copy shows as two players.
            let name = match precision {
                Precision::Fp32 => spec.to_string(),
                p => format!("{spec} ({p})"),
            };
            Ok(search(net(Path::new(arg), rules, precision)?, name))
        }
        "rollout" => Ok(search(Box::new(RolloutEvaluator::new(seed)), format!("rollout/{visits}"))),
        "uniform" => Ok(search(Box::new(UniformEvaluator), format!("uniform/{visits}"))),
        "gnugo" | "gtp" => {
            if rules.variant != Variant::Go {
                return Err(Error::Input(format!("{spec}: GTP engines play only the Go rule sets")));
            }
            let command = if kind == "gtp" {
                arg.to_string()
            } else {
                let level: u8 = if arg.is_empty() {
                    1
                } else {
                    arg.parse().ok().filter(|&l| GNUGO_LEVELS.contains(l)).ok_or_else(|| {
                        Error::Input(format!("{spec}: GNU Go's level is one of {GNUGO_LEVELS}"))
                    })?
                };
                let scoring = match rules.scoring {
                    Scoring::Territory => "--japanese-rules",
                    _ => "--chinese-rules",
                };
                format!("{} --mode gtp --level {level} {scoring}", gnugo_program())
            };
            let engine =
                GtpEngine::spawn_with(&command, gtp.clone()).map_err(|e| Error::Input(e.to_string()))?;
            Ok(Box::new(GtpPlayer { engine }))
        }
        _ => Err(Error::Input(format!(
            "player \"{}\": allowed: model:PATH, rollout, uniform, gnugo[:LEVEL], gtp:COMMAND",
            spec.escape_debug()
        ))),
    }
}

/// An evaluator factory for self-play with the net of a checkpoint; the net is loaded on the
/// inference thread and runs every forward pass on `batch` rows (the config's `batch_size`),
/// so that the games do not depend on how the inference thread happened to batch them, in
/// `precision`. A checkpoint that does not load, or belongs to other rules, is refused before
/// any game.
pub fn model_factory(
    path: &Path,
    rules: Rules,
    batch: usize,
    precision: Precision,
) -> Result<EvaluatorFactory, Error> {
    hane_nn::NetEvaluator::load(path, &rules, "auto", 1)
        .map_err(|e| Error::net_load(path, crate::net_rules::LoadError::Net(e)))?;
    let path = path.to_path_buf();
    Ok(Arc::new(move || {
        Box::new(
            hane_nn::NetEvaluator::load(&path, &rules, "auto", 1)
                .expect("checkpoint loaded a moment ago")
                .with_precision(precision)
                .with_random_symmetries()
                .with_fixed_batch(batch),
        )
    }))
}

/// The evaluators of a self-play run, and a label for its reports: the net of `model` (a
/// checkpoint, or a trainer's output folder meaning its newest checkpoint) for `cfg`'s rules
/// in its precision, else the evaluator named `evaluator` ([`named_factory`]). The uniform
/// evaluator values every leaf as a draw, so its games take no target from their searches
/// ([`SelfplayConfig::without_search_targets`]).
pub fn selfplay_evaluators(
    cfg: &mut SelfplayConfig,
    model: Option<&Path>,
    evaluator: &str,
) -> Result<(EvaluatorFactory, String), Error> {
    match model {
        Some(path) => {
            let ckpt = if path.is_dir() {
                hane_train::latest_checkpoint(path).ok_or_else(|| {
                    Error::Input(format!(
                        "{}: no checkpoint in {}/checkpoints",
                        path.display(),
                        path.display()
                    ))
                })?
            } else {
                path.to_path_buf()
            };
            let rules = cfg.played_rules();
            Ok((model_factory(&ckpt, rules, cfg.batch_size, cfg.precision)?, ckpt.display().to_string()))
        }
        None => {
            if evaluator == "uniform" {
                cfg.without_search_targets();
            }
            Ok((named_factory(evaluator, cfg.seed)?, evaluator.to_string()))
        }
    }
}

/// A self-play evaluator factory without a net, named on the command line: `uniform` or
/// `rollout` (random playouts seeded with `seed`).
pub fn named_factory(name: &str, seed: u64) -> Result<EvaluatorFactory, Error> {
    match name {
        "uniform" => Ok(Arc::new(|| Box::new(UniformEvaluator))),
        "rollout" => Ok(Arc::new(move || Box::new(RolloutEvaluator::new(seed)))),
        _ => Err(Error::Input(format!("evaluator \"{}\": allowed: uniform, rollout", name.escape_debug()))),
    }
}
