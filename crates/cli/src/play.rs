//! `hane play`: a game against hane in the terminal, under any rule set
//! ([`hane_front::play`]). hane's turns come from the same search as `hane gtp` ([`hane_front::brain::Brain`]):
//! `--visits` visits per decision, evaluated by the net of `--model` (a checkpoint for these
//! rules) or by random rollouts.

use crate::nets::Nets;
use crate::output::errln;
use crate::Failure;
use hane_engine::{Color, GameState, Rules};
use hane_front::play::play;
use hane_mcts::VISITS;
use std::io;
use std::path::PathBuf;

/// Arguments of `hane play`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set, e.g. `ttakji,size=9`, `loose,size=7` or `sligo,size=5`.
    #[arg(long)]
    rules: String,
    /// A checkpoint (.safetensors from `hane train`) for these rules; without one hane
    /// evaluates positions with random rollouts.
    #[arg(long)]
    pub(crate) model: Option<PathBuf>,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
    /// Search visits per decision of hane.
    #[arg(long, default_value_t = 128)]
    visits: u32,
    /// Your colour: b (you move first) or w.
    #[arg(long, default_value = "b")]
    color: String,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `hane play` on stdin/stdout.
pub fn run(a: Args, nets: &dyn Nets) -> Result<(), Failure> {
    let rules: Rules = a.rules.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
    let human = match a.color.to_ascii_lowercase().as_str() {
        "b" | "black" => Color::Black,
        "w" | "white" => Color::White,
        other => return Err(Failure::input(format!("--color \"{}\": allowed: b, w", other.escape_debug()))),
    };
    VISITS.check("--visits", a.visits).map_err(Failure::input)?;
    let mut brain = nets.brain(a.model.as_deref(), &rules, a.visits, a.seed, a.precision.get())?;
    if let Ok(Some(note)) = brain.check_rules(&rules) {
        errln!("hane: {note}");
    }
    let mut out = io::stdout().lock();
    play(GameState::new(rules), human, &mut brain, io::stdin().lock(), &mut out)
        .map_err(|e| anyhow::anyhow!("hane play: {e}"))?;
    Ok(())
}
