//! `hane analysis`: KataGo's JSON analysis protocol on stdin/stdout
//! ([`hane_front::analysis`] has the queries, responses and rules).
//!
//! It also takes KataGo's own command line, `analysis -model M -config C -override-config
//! K=V,...` (single-dash long options, which [`katago_argv`] turns into clap's), so a GUI
//! that starts KataGo (KaTrain) starts hane by its path alone. The config is read for the
//! keys hane has ([`hane_front::katago_cfg`]); the others are named in one warning on
//! stderr.

use crate::nets::Nets;
use crate::output::errln;
use crate::Failure;
use hane_engine::Rules;
use hane_front::analysis::{serve, Analyzer, Perspective};
use hane_front::katago_cfg::{self, EngineConfig};
use hane_host::read;
use hane_mcts::VISITS;
use std::ffi::OsString;
use std::path::PathBuf;

/// Arguments of `hane analysis`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// A checkpoint (.safetensors from `hane train`); without one, positions are evaluated
    /// with random rollouts, under any rules a query names. A Go net answers every Go rule
    /// set of its board size. Also `-model` (KataGo's spelling).
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
    /// The rule set of --model (default: the checkpoint's own; ttakji without a model).
    #[arg(long)]
    rules: Option<String>,
    /// Visits per analysed turn when a query gives no maxVisits (default 500, or the
    /// config's maxVisits).
    #[arg(long)]
    visits: Option<u32>,
    /// Seed of the searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Whose view the values are reported in: black, white or side-to-move (KataGo's
    /// reportAnalysisWinratesAs; default black, or the config's).
    #[arg(long)]
    report_as: Option<String>,
    /// A KataGo analysis config (`key = value` lines): maxVisits, maxTime,
    /// reportAnalysisWinratesAs and numSearchThreads are used, other keys ignored with a
    /// warning. Also `-config`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// KataGo's `key=value,key=value` overrides of the config. Also `-override-config`.
    #[arg(long)]
    override_config: Vec<String>,
    /// KataGo's human-style model: not supported, ignored with a warning. Also `-human-model`.
    #[arg(long)]
    human_model: Option<PathBuf>,
}

/// KataGo's single-dash long options of `analysis` as clap's double-dash ones; every other
/// argument, and every other subcommand's, as given.
pub fn katago_argv(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    const KATAGO: [&str; 4] = ["-model", "-config", "-override-config", "-human-model"];
    let args: Vec<OsString> = args.into_iter().collect();
    if args.get(1).and_then(|a| a.to_str()) != Some("analysis") {
        return args;
    }
    args.into_iter()
        .map(|a| match a.to_str() {
            Some(s) if KATAGO.contains(&s) => OsString::from(format!("-{s}")),
            _ => a,
        })
        .collect()
}

/// The config file and overrides read into the settings hane has, warning on stderr about
/// the keys it ignores.
fn engine_config(a: &Args) -> Result<EngineConfig, Failure> {
    let mut cfg = EngineConfig::new();
    let mut pairs = Vec::new();
    if let Some(path) = &a.config {
        let text = read::read_text(path, read::CONFIG).map_err(|e| Failure::input(format!("-config {e}")))?;
        let (kv, bad) = katago_cfg::pairs(&text);
        if !bad.is_empty() {
            errln!("hane: -config {}: lines without `=` ignored: {}", path.display(), bad.join(" | "));
        }
        pairs.extend(kv);
    }
    for o in &a.override_config {
        pairs.extend(katago_cfg::override_pairs(o));
    }
    let mut ignored = Vec::new();
    for (k, v) in &pairs {
        if !cfg.apply(k, v).map_err(|e| Failure::input(format!("config: {e}")))? {
            ignored.push(k.as_str());
        }
    }
    if !ignored.is_empty() {
        errln!("hane: config keys hane does not have, ignored: {}", ignored.join(", "));
    }
    Ok(cfg)
}

/// Runs the analysis engine on stdin/stdout until the input ends.
pub fn run(a: Args, nets: &dyn Nets) -> Result<(), Failure> {
    let cfg = engine_config(&a)?;
    if a.human_model.is_some() {
        errln!("hane: -human-model: hane has no human-style model; ignored");
    }
    let rules: Rules = match (&a.rules, &a.model) {
        (Some(r), _) => r.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?,
        (None, Some(model)) => nets.trained_rules(model)?,
        (None, None) => Rules::preset("ttakji").expect("a preset"),
    };
    let visits = a.visits.or(cfg.visits).unwrap_or(500);
    VISITS.check("--visits", visits).map_err(Failure::input)?;
    let perspective: Perspective = match &a.report_as {
        Some(p) => p.parse().map_err(|e| Failure::input(format!("--report-as {e}")))?,
        None => cfg.perspective.unwrap_or(Perspective::Black),
    };
    let brain = nets.brain(a.model.as_deref(), &rules, visits, a.seed, a.precision.get())?;
    let mut analyzer = Analyzer::new(brain, perspective)
        .with_max_time(cfg.max_time)
        .with_leaves_per_call(cfg.leaves_per_call.unwrap_or(8));
    serve(&mut analyzer, std::io::BufReader::new(std::io::stdin()), std::io::stdout().lock()).map_err(|e| {
        Failure::from(anyhow::Error::new(e).context("analysis: reading queries or writing responses"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(args: &[&str]) -> Vec<String> {
        katago_argv(args.iter().map(OsString::from)).into_iter().map(|a| a.into_string().unwrap()).collect()
    }

    #[test]
    fn katagos_single_dash_options_become_claps() {
        let katrain = ["hane", "analysis", "-model", "m", "-config", "c", "-override-config", "k=v"];
        assert_eq!(
            argv(&katrain),
            ["hane", "analysis", "--model", "m", "--config", "c", "--override-config", "k=v"]
        );
        assert_eq!(argv(&["hane", "analysis", "--model", "m"]), ["hane", "analysis", "--model", "m"]);
        assert_eq!(argv(&["hane", "gtp", "-model"]), ["hane", "gtp", "-model"], "other subcommands as given");
    }
}
