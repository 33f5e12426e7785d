//! Light-playout throughput of the engine alone, for profiling: a fixed number of playouts
//! per rule set from the empty 9x9 board with a fixed seed. Prints playouts per second and
//! the total number of turns, which stays the same as long as the engine's behaviour does:
//! at the default count the totals are checked against the recorded ones, so a speed-up
//! that changes a single move fails here. `hane bench playouts` is the user-facing,
//! time-boxed version.
//!
//! `cargo bench -p hane-engine --bench playouts [-- PLAYOUTS] [RULES...]`

use hane_engine::playout::random_playout;
use hane_engine::rng::Rng;
use hane_engine::{GameState, Rules};
use std::time::Instant;

/// Playouts of ttakji and brainking by default (a fifth of that for Loose, 1/200 for Sligo).
const DEFAULT: u64 = 20_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let n: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(DEFAULT);
    let only: Vec<&String> = args.iter().filter(|a| a.parse::<u64>().is_err()).collect();
    println!("{:<10} {:>9} {:>12} {:>12}", "rules", "playouts", "playouts/s", "turns");
    // Turns over the default count of playouts with seed 1 (recorded with the first version
    // of this bench; the engine's moves have not changed since).
    let recorded = [("ttakji", 2_213_480), ("brainking", 2_212_376), ("loose", 305_236), ("sligo", 15_767)];
    let mut changed = Vec::new();
    for (name, scale) in [("ttakji", 1), ("brainking", 1), ("loose", 5), ("sligo", 200)] {
        if !only.is_empty() && !only.iter().any(|o| *o == name) {
            continue;
        }
        let rules: Rules = format!("{name},size=9").parse().expect("a preset");
        let start = GameState::new(rules);
        let mut rng = Rng::new(1);
        let count = (n / scale).max(1);
        let t = Instant::now();
        let mut g = start.clone();
        let turns: u64 = (0..count)
            .map(|_| {
                g.clone_from(&start);
                u64::from(random_playout(&mut g, &mut rng))
            })
            .sum();
        let secs = t.elapsed().as_secs_f64();
        println!("{:<10} {:>9} {:>12.0} {:>12}", name, count, count as f64 / secs, turns);
        if n == DEFAULT && recorded.iter().any(|&(r, t)| r == name && t != turns) {
            changed.push(name);
        }
    }
    if !changed.is_empty() {
        eprintln!("the playouts of {changed:?} differ from the recorded ones: the engine's moves changed");
        std::process::exit(1);
    }
}
