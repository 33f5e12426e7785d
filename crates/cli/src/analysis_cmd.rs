//! `hane analysis`: KataGo's JSON analysis protocol on stdin/stdout
//! ([`hane_pipeline::analysis`] has the queries, responses and rules).

use crate::Failure;
use hane_engine::range::in_range;
use hane_engine::Rules;
use hane_mcts::MAX_VISITS;
use hane_pipeline::analysis::{serve, Analyzer, Perspective};
use hane_pipeline::gtp::Brain;
use std::path::PathBuf;

/// Arguments of `hane analysis`.
#[derive(clap::Args)]
pub struct Args {
    /// A checkpoint (.safetensors from `hane train`) for the rules of --rules; without one,
    /// positions are evaluated with random rollouts, under any rules a query names.
    #[arg(long)]
    model: Option<PathBuf>,
    /// The rule set of --model (queries must name the same game).
    #[arg(long, default_value = "ttakji")]
    rules: String,
    /// Visits per analysed turn when a query gives no maxVisits.
    #[arg(long, default_value_t = 500)]
    visits: u32,
    /// Seed of the searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Whose view the values are reported in: black, white or side-to-move (KataGo's
    /// reportAnalysisWinratesAs).
    #[arg(long, default_value = "black")]
    report_as: String,
}

/// Runs the analysis engine on stdin/stdout until the input ends.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules: Rules = a.rules.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
    in_range("--visits", a.visits, 1..=MAX_VISITS).map_err(Failure::input)?;
    let perspective: Perspective =
        a.report_as.parse().map_err(|e| Failure::input(format!("--report-as {e}")))?;
    let brain = Brain::new(a.model.as_deref(), rules, a.visits, a.seed)?;
    let mut analyzer = Analyzer::new(brain, perspective);
    serve(&mut analyzer, std::io::BufReader::new(std::io::stdin()), std::io::stdout().lock()).map_err(|e| {
        Failure::from(anyhow::Error::new(e).context("analysis: reading queries or writing responses"))
    })
}
