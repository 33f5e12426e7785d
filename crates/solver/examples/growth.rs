//! How a solve's cost grows with the moves left: `cargo run --release -p hane-solver --example
//! growth -- RULES [--seed S] [--budget NODES] [--bits B]` plays one seeded random line of
//! placements (slides too, in Sligo) to the end of the game, then solves the positions along it
//! from the last back towards the empty board, printing the moves played, the empty points, the
//! value and the nodes of each, until a solve needs more than the budget. The nodes per extra
//! move, fitted on the solved positions, say what the empty board would cost.

use hane_engine::rng::Rng;
use hane_engine::{Action, Game, GameState, Rules};
use hane_solver::{solve_after, SolveError, SolveOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let rules: Rules = args.next().expect("RULES").parse().expect("rules");
    let (mut seed, mut budget, mut bits) = (1u64, 100_000_000u64, 22u32);
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("a value").parse::<u64>().expect("a number");
        match a.as_str() {
            "--seed" => seed = value(),
            "--budget" => budget = value(),
            "--bits" => bits = value() as u32,
            other => panic!("unknown argument {other}"),
        }
    }
    let line = random_line(&rules, seed);
    let geo = GameState::new(rules).geo();
    let words: Vec<String> = line.iter().map(|a| a.name(geo)).collect();
    println!("{rules}, seed {seed}: a line of {} actions: {}", line.len(), words.join(" "));
    println!("moves  empty  value  nodes  seconds");
    let mut solved: Vec<(usize, u64)> = Vec::new();
    for k in (0..=line.len()).rev() {
        let options = SolveOptions { table_bits: bits, node_limit: budget, ..SolveOptions::default() };
        let mut g = GameState::new(rules);
        for &a in &line[..k] {
            g.play(a).expect("the line is legal");
        }
        let empty = g.board().empties().count();
        match solve_after(&rules, &line[..k], &options, &mut |_| ()) {
            Ok(s) => {
                println!("{k:5}  {empty:5}  {:5}  {:>12}  {:8.1}", s.value, s.stats.nodes, s.stats.seconds);
                solved.push((k, s.stats.nodes));
            }
            Err(SolveError::Unfinished(p)) => {
                println!(
                    "{k:5}  {empty:5}  [{}, {}] after {} nodes: over the budget",
                    p.lower, p.upper, p.nodes
                );
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    // Growth per move over the solved positions that cost at least 10,000 nodes (below that
    // the fixed costs dominate): the geometric mean of successive ratios.
    let big: Vec<&(usize, u64)> = solved.iter().filter(|(_, n)| *n >= 10_000).collect();
    if let (Some(first), Some(last)) = (big.first(), big.last()) {
        let moves = (first.0 - last.0) as f64;
        if moves > 0.0 {
            let per_move = (last.1 as f64 / first.1 as f64).powf(1.0 / moves);
            let to_empty = last.1 as f64 * per_move.powf(last.0 as f64);
            println!(
                "growth: x{per_move:.2} per move from {} to {} moves; the empty board at that rate: {to_empty:.2e} nodes",
                first.0, last.0
            );
        }
    }
}

/// A seeded random line to the end of the game: at each turn a uniformly random legal
/// action other than a pass, while there is one.
fn random_line(rules: &Rules, seed: u64) -> Vec<Action> {
    let mut rng = Rng::new(seed);
    let mut g = GameState::new(*rules);
    let mut line = Vec::new();
    let mut actions = Vec::new();
    while !g.is_over() {
        actions.clear();
        g.legal_actions(&mut actions);
        actions.retain(|&a| a != Action::Pass);
        if actions.is_empty() {
            break;
        }
        let a = actions[rng.below(actions.len())];
        g.play(a).expect("a legal action");
        line.push(a);
    }
    line
}
