//! `hane bench`: speed measurements that print numbers (never pass/fail).

use crate::Failure;
use hane_engine::playout::random_playout;
use hane_engine::rng::Rng;
use hane_engine::{GameState, Rules};
use std::time::{Duration, Instant};

/// Arguments of `hane bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Uniformly random light playouts per second on one core, from the empty board.
    Playouts {
        /// Rule sets to measure (default: ttakji, brainking, loose, sligo).
        #[arg(long, value_delimiter = ',')]
        rules: Vec<String>,
        /// Board size.
        #[arg(long, default_value_t = 9)]
        size: u8,
        /// Seconds to measure each rule set.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

pub fn run(a: Args) -> Result<(), Failure> {
    match a.what {
        What::Playouts { rules, size, seconds, seed } => playouts(rules, size, seconds, seed),
    }
}

fn playouts(names: Vec<String>, size: u8, seconds: f64, seed: u64) -> Result<(), Failure> {
    let names = if names.is_empty() {
        ["ttakji", "brainking", "loose", "sligo"].map(String::from).to_vec()
    } else {
        names
    };
    if !(seconds > 0.0 && seconds < 1e6) {
        return Err(Failure::input("--seconds must be positive"));
    }
    println!("light playouts from the empty {size}x{size} board, one thread, {seconds} s each");
    println!("{:<14} {:>12} {:>12} {:>14}", "rules", "playouts", "playouts/s", "avg turns");
    for name in names {
        let rules: Rules =
            format!("{name},size={size}").parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
        let start = GameState::new(rules);
        let mut rng = Rng::new(seed);
        let budget = Duration::from_secs_f64(seconds);
        let t = Instant::now();
        let (mut games, mut turns) = (0u64, 0u64);
        while t.elapsed() < budget {
            for _ in 0..16 {
                let mut g = start.clone();
                turns += u64::from(random_playout(&mut g, &mut rng));
                games += 1;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "{:<14} {:>12} {:>12.0} {:>14.1}",
            name,
            games,
            games as f64 / secs,
            turns as f64 / games as f64
        );
    }
    Ok(())
}
