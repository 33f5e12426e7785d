//! Light-playout throughput of the engine alone, for profiling: a fixed number of playouts
//! per rule set from the empty 9x9 board with a fixed seed. Prints playouts per second and
//! the total number of turns, which stays the same for a given seed as long as the engine's
//! behaviour does (a quick check that a speed-up changed nothing). `hane bench playouts`
//! is the user-facing, time-boxed version.
//!
//! `cargo bench -p hane-engine --bench playouts [-- PLAYOUTS] [RULES...]`

use hane_engine::playout::random_playout;
use hane_engine::rng::Rng;
use hane_engine::{GameState, Rules};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let n: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(20_000);
    let only: Vec<&String> = args.iter().filter(|a| a.parse::<u64>().is_err()).collect();
    println!("{:<10} {:>9} {:>12} {:>12}", "rules", "playouts", "playouts/s", "turns");
    for (name, scale) in [("ttakji", 1), ("brainking", 1), ("loose", 5), ("sligo", 200)] {
        if !only.is_empty() && !only.iter().any(|o| *o == name) {
            continue;
        }
        let rules: Rules = format!("{name},size=9").parse().expect("a preset");
        let start = GameState::new(rules);
        let mut rng = Rng::new(1);
        let count = (n / scale).max(1);
        let t = Instant::now();
        let turns: u64 = (0..count).map(|_| u64::from(random_playout(&mut start.clone(), &mut rng))).sum();
        let secs = t.elapsed().as_secs_f64();
        println!("{:<10} {:>9} {:>12.0} {:>12}", name, count, count as f64 / secs, turns);
    }
}
