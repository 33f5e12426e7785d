//! The loop as a library, without the binary: a run stopped between phases resumes where it
//! stopped and repeats nothing, a rejected candidate leaves the best player as it was, and a
//! run on two board sizes plays, trains and estimates on both.

use hane_pipeline::run::{RunState, BASELINE};
use hane_pipeline::{Error, Event, Run, Stop};
use std::path::{Path, PathBuf};

/// A tiny run of two generations of 8 games on 3x3: seconds per generation.
fn config(gate: &str) -> String {
    let komi = if gate.contains("gate_games = 0") { 7 } else { -20 };
    tiny(
        &format!("ttakji,size=3,komi={komi}"),
        "rules = \"ttakji,size=3\"",
        &format!("komi_visits = 0\n{gate}"),
    )
}

/// A tiny run of two generations of 8 games under `rules`, with more keys for `[train]` and
/// `[loop]`.
fn tiny(rules: &str, train: &str, run: &str) -> String {
    format!(
        r#"
[selfplay]
rules = "{rules}"
games_in_flight = 4
batch_size = 8
full_visits = 8
fast_visits = 4
resign_threshold = 0.0
[train]
{train}
steps = 6
batch_size = 16
warmup_steps = 2
checkpoint_every = 3
log_every = 3
histogram_every = 6
[train.net]
blocks = 1
channels = 8
[loop]
generations = 2
games = 8
{run}
"#
    )
}

/// A fresh folder for a test, with `text` as its config file.
fn setup(name: &str, text: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("hane-pipeline-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("run.toml");
    std::fs::write(&cfg, text).unwrap();
    (cfg, dir.join("run"))
}

/// Runs (or continues) the run in `out`, stopping it when a line starts with `stop_at`;
/// returns the lines and the result.
fn run(cfg: &Path, out: &Path, stop_at: Option<&str>) -> (Vec<String>, Result<(), Error>) {
    let mut run = Run::open(out, Some(cfg), None).unwrap();
    let stop = Stop::default();
    let mut lines = Vec::new();
    let result = run.run(&stop, &mut |e| {
        if let Event::Line(l) = e {
            if stop_at.is_some_and(|s| l.starts_with(s)) {
                stop.request();
            }
            lines.push(l);
        }
    });
    (lines, result)
}

fn state(out: &Path) -> RunState {
    serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap()
}

fn sgfs(out: &Path, generation: &str) -> usize {
    std::fs::read_dir(out.join("selfplay").join(generation).join("sgf")).unwrap().count()
}

#[test]
fn a_stopped_run_resumes_where_it_stopped() {
    let (cfg, out) = setup("resume", &config("gate_games = 0"));
    // Stopped once generation 1's self-play is recorded, before its training.
    let (lines, result) = run(&cfg, &out, Some("== generation 1: training"));
    assert!(matches!(result, Err(Error::Interrupted)), "{result:?}\n{lines:?}");
    let stopped = state(&out);
    assert_eq!(stopped.generations.len(), 2);
    assert!(stopped.generations[1].selfplay.is_some() && stopped.generations[1].train.is_none());

    let (lines, result) = run(&cfg, &out, None);
    result.unwrap();
    assert!(!lines.iter().any(|l| l.contains("generation 0:")), "generation 0 was finished: {lines:?}");
    assert!(
        !lines.iter().any(|l| l.contains("generation 1: self-play")),
        "its self-play was kept: {lines:?}"
    );
    assert!(lines.iter().any(|l| l.starts_with("== generation 1: training")), "{lines:?}");
    let done = state(&out);
    for (i, g) in done.generations.iter().enumerate() {
        assert_eq!(g.selfplay.as_ref().unwrap().games, 8, "generation {i}");
        assert_eq!(sgfs(&out, &format!("gen-{i:03}")), 8, "generation {i}: every game once");
        assert_eq!(g.train.as_ref().unwrap().step, 6 * (i as u64 + 1), "generation {i}");
        assert!(g.gate.as_ref().unwrap().accepted, "ungated");
    }
    assert_eq!(done.generations[1].player, "models/gen-000.safetensors");
    assert_eq!(done.best_after(2), "models/gen-001.safetensors");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn a_rejected_candidate_leaves_the_best_player() {
    // At komi -20 on 3x3 Black wins every game, and the gate's two games swap colours: 1-1
    // is a score of 0.5, under the threshold of 0.55.
    let (cfg, out) =
        setup("reject", &config("gate_games = 2\ngate_threshold = 0.55\ngate_opening_turns = 0"));
    let (lines, result) = run(&cfg, &out, None);
    result.unwrap();
    let st = state(&out);
    for (i, g) in st.generations.iter().enumerate() {
        let gate = g.gate.as_ref().unwrap();
        assert_eq!((gate.results.wins, gate.results.losses), (1, 1), "generation {i}: {lines:?}");
        assert!(!gate.accepted, "generation {i}");
        assert_eq!(g.player, BASELINE, "generation {i}: self-play by the baseline still");
    }
    assert_eq!(st.best_after(2), BASELINE);
    assert_eq!(lines.iter().filter(|l| l.ends_with("rejected")).count(), 2, "{lines:?}");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}

#[test]
fn a_run_on_two_sizes_plays_trains_and_estimates_on_each() {
    // The rules' 4x4 and a 3x3 board with the same weight: the 3x3 games get half of a
    // generation's 8 × 16 board points, 64 / 9 ≈ 7 games; generation 1 plays both with the
    // net generation 0 trained on both.
    let text = tiny("ttakji,size=4", "sizes = [3, 4]", "gate_games = 0\nkomi_visits = 8");
    let (cfg, out) = setup("sizes", &text);
    let (lines, result) = run(&cfg, &out, None);
    result.unwrap();
    assert!(lines[0].contains("4 games and 7 games on 3x3"), "{lines:?}");
    let st = state(&out);
    for (i, g) in st.generations.iter().enumerate() {
        assert_eq!(g.selfplay.as_ref().unwrap().games, 4, "generation {i}");
        assert_eq!(g.others.len(), 1, "generation {i}");
        let o = &g.others[0];
        assert_eq!((o.size, o.selfplay.as_ref().unwrap().games), (3, 7), "generation {i}");
        assert_eq!(sgfs(&out, &format!("gen-{i:03}-3x3")), 7, "generation {i}");
        assert!(o.komi.is_some() || o.komi_error.is_some(), "generation {i}: {lines:?}");
        let rows: u64 = [g.selfplay.as_ref(), o.selfplay.as_ref()].iter().flatten().map(|s| s.rows).sum();
        assert!(rows > 0 && o.selfplay.as_ref().unwrap().rows > 0, "generation {i}");
    }
    let on_3x3 = |l: &String| l.starts_with("== generation 1: self-play on 3x3 by models/gen-000");
    assert!(lines.iter().any(on_3x3), "the net plays the smaller board: {lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("== generation 1: komi estimate on 3x3")), "{lines:?}");
    let net = out.join("models/gen-001.safetensors");
    let (_, sizes) = hane_pipeline::net_rules::trained_rules(&net).unwrap();
    assert_eq!(sizes, [3, 4]);
    // A rerun has nothing left to do.
    let (lines, result) = run(&cfg, &out, None);
    result.unwrap();
    assert!(!lines.iter().any(|l| l.starts_with("==")), "{lines:?}");
    let _ = std::fs::remove_dir_all(out.parent().unwrap());
}
