//! `hane judge`: the exact solver as the judge of a run's nets (see
//! [`hane_pipeline::judge`]): positions from the run's self-play that the solver settles, and
//! per generation the share where the net's raw policy and its search keep the exact value
//! and the result. Writes `judge/positions.json`, `judge/scores.json`, `judge.png` and `judge-points.png` into the
//! run's folder. Ctrl-C or SIGTERM stops it before the next position or net, keeping what is
//! done (exit code 130); the same command goes on from there.

use crate::output::{errln, outln};
use crate::stop::{self, Second};
use crate::Failure;
use hane_mcts::VISITS;
use hane_pipeline::judge::{judge_run, JudgeEvent, JudgeSettings};
use std::path::PathBuf;

/// Arguments of `hane judge`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The run's folder (as `hane loop --out` made it).
    #[arg(long)]
    run: PathBuf,
    /// Positions to judge the nets on.
    #[arg(long, default_value_t = 200)]
    positions: usize,
    /// Draw positions at least this many turns into their game [default: three fifths of the
    /// board's points, where the solver settles most 5x5 positions in seconds].
    #[arg(long)]
    min_turn: Option<usize>,
    /// Node budget of the solve of one position and its turns; one it does not settle is
    /// skipped.
    #[arg(long, default_value_t = JudgeSettings::NODES)]
    nodes: u64,
    #[arg(long, default_value_t = JudgeSettings::VISITS, help = format!("Visits of the searched turn ({VISITS})"))]
    visits: u32,
    /// Seed of the sampling and the searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `hane judge`.
pub fn run(a: Args) -> Result<(), Failure> {
    VISITS.check("--visits", a.visits).map_err(Failure::input)?;
    if a.positions == 0 || a.nodes == 0 {
        return Err(Failure::input("--positions and --nodes: at least one"));
    }
    if !a.run.is_dir() {
        return Err(Failure::input(format!("--run {}: not a folder", a.run.display())));
    }
    let settings = JudgeSettings {
        positions: a.positions,
        min_turn: a.min_turn,
        nodes: a.nodes,
        visits: a.visits,
        seed: a.seed,
    };
    stop::install("before the next position or net", Second::Wait)?;
    let mut report = |e: JudgeEvent| {
        if e.worth_a_line() {
            errln!("{e}");
        }
    };
    let scores = judge_run(&a.run, &settings, &stop::stop(), &mut report)?;
    let n = scores.first().map_or(0, |g| g.raw.positions);
    outln!("{} generations judged on {n} solved positions", scores.len());
    outln!(
        "scores: {}; plots: {}, {}",
        a.run.join("judge/scores.json").display(),
        a.run.join("judge.png").display(),
        a.run.join("judge-points.png").display()
    );
    Ok(())
}
