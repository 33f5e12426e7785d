//! `hane solve`: the exact minimax result of a tiny board from the empty board (alpha-beta
//! with a transposition table, `hane_eval::solver`), hence its exact fair komi. Progress is
//! printed as the proven bounds narrow. Ctrl-C or SIGTERM gives up within a few thousand nodes
//! (milliseconds) and exits with code 130 (a second one at once: nothing here runs libtorch).

use crate::output::{errln, outln};
use crate::rules_args::RulesArgs;
use crate::stop::{self, Second};
use crate::Failure;
use hane_eval::solver::{solve_guessing, SolveOptions};
use std::path::PathBuf;

/// Arguments of `hane solve`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// The transposition table holds 2^BITS entries (about 100 bytes each).
    #[arg(long, default_value_t = 22)]
    table_bits: u32,
    /// Give up after this many nodes.
    #[arg(long)]
    node_limit: Option<u64>,
    /// Also write the solution as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// An expected value (4 * Black's margin + tie, as the progress lines print it), e.g.
    /// from a published result: tested first, so a right guess ends the search sooner. The
    /// result does not depend on it.
    #[arg(long, allow_hyphen_values = true)]
    guess: Option<i32>,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let rules = a.rules.rules()?;
    if rules.size > 6 {
        return Err(Failure::input(format!(
            "--size {}: the exact solver is for boards up to 6x6",
            rules.size
        )));
    }
    hane_engine::range::in_range("--table-bits", a.table_bits, 10..=30).map_err(Failure::input)?;
    let options = SolveOptions {
        table_bits: a.table_bits,
        progress_every: 1 << 22,
        node_limit: a.node_limit.unwrap_or(u64::MAX),
        stop: Some(stop::stop().flag()),
    };
    stop::install("the search", Second::Exit)?;
    errln!("solving {rules} from the empty board (value = 4 * margin + tie)");
    let s = solve_guessing(&rules, &[], a.guess, &options, &mut |p| errln!("{p}")).map_err(|e| {
        if stop::requested() {
            stop::interrupted("nothing was solved")
        } else {
            Failure::other(e)
        }
    })?;
    outln!("{s}");
    crate::write_json(a.json.as_deref(), &s)
}
