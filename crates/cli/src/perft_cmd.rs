//! `hane perft`: legal move sequences per depth, with timing, for checking the engine
//! against published counts.

use crate::output::outln;
use crate::Failure;
use hane_engine::perft::perft_limited;
use hane_engine::{GameState, Rules};
use std::time::Instant;

/// Arguments of `hane perft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Rule set (preset name with optional ,key=value overrides).
    #[arg(long, default_value = "ttakji")]
    rules: String,
    /// Board size.
    #[arg(long, default_value_t = 5)]
    size: u8,
    /// Deepest depth to count.
    #[arg(long, default_value_t = 4)]
    depth: u32,
    /// Stop when a depth would visit more nodes than this.
    #[arg(long, default_value_t = 2_000_000_000)]
    limit: u64,
}

/// Runs `hane perft`.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules: Rules = format!("{},size={}", a.rules, a.size)
        .parse()
        .map_err(|e| Failure::input(format!("--rules/--size: {e}")))?;
    let g = GameState::new(rules);
    outln!("perft {rules} {}x{}", a.size, a.size);
    for d in 0..=a.depth {
        let t = Instant::now();
        match perft_limited(&g, d, a.limit) {
            Some(n) => {
                let secs = t.elapsed().as_secs_f64();
                outln!("depth {d:>2}  {n:>14}  {secs:>8.2}s  {:>10.0} leaves/s", n as f64 / secs.max(1e-9));
            }
            None => {
                outln!("depth {d:>2}  stopped: more than {} nodes", a.limit);
                break;
            }
        }
    }
    Ok(())
}
