//! Where a solve's nodes go: `cargo run --release -p hane-solver --example where_nodes_go --
//! RULES [--bits B] [--guess V | --at-least T ... [--expect yes|no]] [MOVES...]` prints the
//! nodes per null-window test, prover and depth (sampled every 1024 nodes), then the result.

use hane_engine::{Action, GameState, Rules};
use hane_solver::{solve_guessing, test_at_least, Progress, SolveOptions};
use std::collections::BTreeMap;

fn main() {
    let mut args = std::env::args().skip(1);
    let rules: Rules = args.next().expect("RULES").parse().expect("rules");
    let (mut bits, mut guess, mut tests, mut moves, mut expect) = (22, None, Vec::new(), Vec::new(), None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--bits" => bits = args.next().expect("B").parse().expect("bits"),
            "--guess" => guess = Some(args.next().expect("V").parse().expect("guess")),
            "--at-least" => tests.push(args.next().expect("T").parse::<i32>().expect("threshold")),
            "--expect" => expect = Some(args.next().expect("yes or no") == "yes"),
            m => moves.push(Action::Place(GameState::new(rules).geo().parse(m).expect("a point"))),
        }
    }
    let every = 1 << 10;
    let options = SolveOptions { table_bits: bits, progress_every: every, ..SolveOptions::default() };
    let mut by: BTreeMap<(i32, String, u32), u64> = BTreeMap::new();
    let mut record = |p: Progress| {
        *by.entry((p.test, format!("{:?}", p.prover), p.depth)).or_default() += every;
    };
    if tests.is_empty() {
        let s = solve_guessing(&rules, &moves, guess, &options, &mut record).unwrap();
        println!("value {} ({} nodes, {:.1} s)", s.value, s.stats.nodes, s.stats.seconds);
    } else {
        // One table for every test, as a solve would have: each test a separate search here.
        for t in tests {
            let v = test_at_least(&rules, &moves, t, expect, &options, &mut record).unwrap();
            println!(
                "at least {t}: {} in [{}, {}] ({} nodes, {:.1} s)",
                v.holds, v.lower, v.upper, v.stats.nodes, v.stats.seconds
            );
        }
    }
    for ((test, prover, depth), nodes) in by {
        println!("  >= {test:>4} {prover:>6} depth {depth:>3}: {nodes:>12}");
    }
}
