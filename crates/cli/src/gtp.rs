//! `hane gtp`: a GTP version 2 engine on stdin/stdout ([`hane_front::gtp`] has the
//! commands and their rules).

use crate::nets::Nets;
use crate::output::errln;
use crate::Failure;
use hane_engine::Rules;
use hane_front::gtp::{serve, Engine};
use hane_mcts::VISITS;
use std::path::PathBuf;

/// Arguments of `hane gtp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Initial rule set (GTP `boardsize`/`komi` and `hane-rules` change it).
    #[arg(long, default_value = "ttakji")]
    rules: String,
    /// Search visits per move.
    #[arg(long)]
    visits: Option<u32>,
    /// Strength preset when --visits is not given: easy (16), normal (128), hard (800).
    #[arg(long, default_value = "normal")]
    level: String,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A checkpoint (.safetensors from `hane train`) to evaluate positions with instead of
    /// random rollouts: one for the rules of --rules, or for other Go rules of its size.
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
}

/// Runs the GTP loop on stdin/stdout.
pub fn run(a: Args, nets: &dyn Nets) -> Result<(), Failure> {
    let rules: Rules = a.rules.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
    let visits = match (a.visits, a.level.as_str()) {
        (Some(v), _) => {
            VISITS.check("--visits", v).map_err(Failure::input)?;
            v
        }
        (None, "easy") => 16,
        (None, "normal") => 128,
        (None, "hard") => 800,
        (None, other) => {
            return Err(Failure::input(format!(
                "--level \"{}\": allowed: easy, normal, hard",
                other.escape_debug()
            )))
        }
    };
    let brain = nets.brain(a.model.as_deref(), &rules, visits, a.seed, a.precision.get())?;
    if let Ok(Some(note)) = brain.check_rules(&rules) {
        errln!("hane: {note}");
    }
    let mut engine = Engine::new(rules, brain);
    serve(&mut engine, std::io::BufReader::new(std::io::stdin()), std::io::stdout().lock()).map_err(|e| {
        Failure::from(anyhow::Error::new(e).context("gtp: reading commands or writing responses"))
    })
}
