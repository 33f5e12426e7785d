//! Perft counts from `tests/data/perft.txt`, some of them published by an independent
//! implementation. By default each line runs to its CI depth; `HANE_PERFT_DEEP=1` runs all.

use hane_engine::perft::perft;
use hane_engine::{GameState, Rules};

struct Line {
    rules: Rules,
    ci_depth: usize,
    counts: Vec<u64>,
    source: String,
}

fn lines() -> Vec<Line> {
    let text = include_str!("data/perft.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 4, "bad perft line {l:?}");
            Line {
                rules: f[0].parse().unwrap_or_else(|e| panic!("{l}: {e}")),
                ci_depth: f[1].parse().expect("ci depth"),
                counts: f[2].split_whitespace().map(|n| n.parse().expect("count")).collect(),
                source: f[3].to_string(),
            }
        })
        .collect()
}

#[test]
fn perft_counts_match_the_data_file() {
    let deep = std::env::var_os("HANE_PERFT_DEEP").is_some();
    let all = lines();
    assert!(all.iter().any(|l| l.source.starts_with("published:")));
    for line in all {
        let g = GameState::new(line.rules);
        let last = if deep { line.counts.len() - 1 } else { line.ci_depth.min(line.counts.len() - 1) };
        for d in 0..=last {
            let got = perft(&g, d as u32);
            assert_eq!(got, line.counts[d], "{} depth {d} ({})", line.rules, line.source);
        }
        println!("{}: depths 0..={last} match ({})", line.rules, line.source);
    }
}
