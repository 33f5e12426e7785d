//! `cargo bench -p hane-train`: training throughput against the bare optimiser step, for the
//! default net (KataGo's b6c96) and batch (256) on 9x9 `ttakji` shards of random games —
//! the figure `hane bench train` prints. `HANE_BENCH_STEPS` sets the timed steps (default
//! 10), `HANE_BENCH_RULES` the rule set.

fn main() {
    let steps = std::env::var("HANE_BENCH_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let text = std::env::var("HANE_BENCH_RULES").unwrap_or_else(|_| "ttakji".into());
    let rules = match text.parse() {
        Ok(rules) => rules,
        Err(e) => {
            eprintln!("HANE_BENCH_RULES={text}: {e}");
            std::process::exit(2);
        }
    };
    let cfg = hane_train::TrainConfig { rules, ..hane_train::TrainConfig::default() };
    match hane_train::bench(&cfg, None, steps, &mut |_| {}) {
        Ok(report) => {
            println!("{report}");
            assert!(report.ratio() > 0.0);
        }
        Err(e) => {
            eprintln!("bench train: {e}");
            std::process::exit(1);
        }
    }
}
