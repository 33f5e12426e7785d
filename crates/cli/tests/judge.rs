//! `hane judge` end to end on a run folder made by hand: two generations' checkpoints (an
//! untrained tiny net) and self-play records of random 5x5 games; the scores, the plot, a
//! rerun that reuses everything, and bad input; and `hane loop` with `judge_positions`, on a
//! tiny 3x3 run continued with the judge turned on.

mod common;
mod run;

use hane_engine::rng::Rng;
use hane_engine::sgf::SgfGame;
use hane_engine::{Game, GameState, Rules, Turn};
use run::hane;
use std::path::Path;

/// Writes `n` random 5x5 games of 22 placements (then two passes) as self-play records.
fn records(dir: &Path, n: usize) {
    let rules: Rules = "ttakji,size=5,komi=24".parse().unwrap();
    let sgf = dir.join("selfplay").join("gen-000").join("sgf");
    std::fs::create_dir_all(&sgf).unwrap();
    let mut rng = Rng::new(5);
    for i in 0..n {
        let mut g = GameState::new(rules);
        let mut game = SgfGame::new(rules);
        while game.turns.len() < 22 && !g.is_over() {
            let legal: Vec<Turn> = Turn::legal(&g).into_iter().filter(|&t| t != Turn::Pass).collect();
            let t = if legal.is_empty() { Turn::Pass } else { legal[rng.below(legal.len())] };
            t.play(&mut g).unwrap();
            game.turns.push(t);
        }
        game.turns.extend([Turn::Pass, Turn::Pass]);
        std::fs::write(sgf.join(format!("g{i:08}.sgf")), game.to_sgf().unwrap()).unwrap();
    }
}

#[test]
fn the_nets_of_a_run_are_judged_once_and_a_rerun_reuses_everything() {
    let (dir, model) = common::tiny_model("judge");
    let models = dir.join("models");
    std::fs::create_dir_all(&models).unwrap();
    for g in ["gen-000", "gen-001"] {
        std::fs::copy(&model, models.join(format!("{g}.safetensors"))).unwrap();
    }
    records(&dir, 4);
    let args =
        ["judge", "--run", dir.to_str().unwrap(), "--positions", "3", "--min-turn", "19", "--visits", "8"];
    let (code, out, err) = hane(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 generations judged on 3 solved positions"), "{out}");
    assert!(err.contains("positions: 3 of 3 solved"), "{err}");
    let scores: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("judge/scores.json")).unwrap()).unwrap();
    let generations = scores["generations"].as_array().unwrap();
    assert_eq!(generations.len(), 2, "{scores}");
    for g in generations {
        for player in ["raw", "searched"] {
            let (value, result) =
                (g[player]["value"].as_f64().unwrap(), g[player]["result"].as_f64().unwrap());
            assert!((0.0..=1.0).contains(&value) && (0.0..=1.0).contains(&result), "{g}");
        }
    }
    // The same net twice: the same scores.
    assert_eq!(generations[0]["raw"], generations[1]["raw"], "{scores}");
    for plot in ["judge.png", "judge-points.png"] {
        assert!(std::fs::read(dir.join(plot)).unwrap().starts_with(b"\x89PNG"), "{plot}");
    }
    let positions = std::fs::read(dir.join("judge/positions.json")).unwrap();
    // A rerun solves nothing and scores nothing again.
    let (code, out, err) = hane(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 generations judged on 3 solved positions") && !err.contains("generation 0:"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("judge/positions.json")).unwrap(), positions);
    // A scores file from before the points lost were measured is scored again.
    let mut old = scores.clone();
    old.as_object_mut().unwrap().remove("format");
    for g in old["generations"].as_array_mut().unwrap() {
        for player in ["raw", "searched"] {
            g[player].as_object_mut().unwrap().retain(|k, _| !k.ends_with("points_lost"));
        }
    }
    std::fs::write(dir.join("judge/scores.json"), old.to_string()).unwrap();
    let (code, _, err) = hane(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("generation 0: raw policy") && err.contains("points (Black"), "{err}");
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("judge/scores.json")).unwrap()).unwrap();
    assert_eq!(again, scores);
    // Other sampling settings than the saved positions' are refused, naming them.
    let other = ["judge", "--run", dir.to_str().unwrap(), "--positions", "3", "--min-turn", "10"];
    let (code, _, err) = hane(&other);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--min-turn 19"), "{err}");
    let (code, _, err) = hane(&["judge", "--run", dir.join("nothing").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tiny 3x3 loop of `generations` with `judge_positions`.
fn loop_config(generations: u32, judge_positions: u32) -> String {
    common::tiny_loop(generations, &format!("judge_positions = {judge_positions}\n"))
}

#[test]
fn the_loop_judges_its_nets_once_the_generations_are_done() {
    let dir = std::env::temp_dir().join(format!("hane-loop-judge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cfg, out) = (dir.join("cfg.toml"), dir.join("run"));
    let hane_loop = |generations, positions| {
        std::fs::write(&cfg, loop_config(generations, positions)).unwrap();
        hane(&["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()])
    };
    let scored = || -> Vec<u64> {
        let text = std::fs::read_to_string(out.join("judge/scores.json")).unwrap();
        let scores: serde_json::Value = serde_json::from_str(&text).unwrap();
        scores["generations"].as_array().unwrap().iter().map(|g| g["generation"].as_u64().unwrap()).collect()
    };
    let (code, stdout, stderr) = hane_loop(1, 0);
    assert_eq!(code, 0, "{stderr}");
    assert!(!out.join("judge").exists() && !stdout.contains("exact judge"), "{stdout}");
    // Continued with the judge on: the finished generation is judged.
    let (code, stdout, stderr) = hane_loop(1, 3);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("== the exact judge: 3 positions"), "{stdout}");
    assert!(
        stdout.contains("positions: 3 of 3 solved") && stdout.contains("generation 0: raw policy"),
        "{stdout}"
    );
    assert_eq!(scored(), [0]);
    assert!(std::fs::read(out.join("judge.png")).unwrap().starts_with(b"\x89PNG"));
    // One more generation: only the new net is judged, on the same positions.
    let positions = std::fs::read(out.join("judge/positions.json")).unwrap();
    let (code, stdout, stderr) = hane_loop(2, 3);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("generation 1: raw policy") && !stdout.contains("generation 0: raw policy"),
        "{stdout}"
    );
    assert_eq!(scored(), [0, 1]);
    assert_eq!(std::fs::read(out.join("judge/positions.json")).unwrap(), positions);
    // Another key than generations and judge_positions is still refused.
    std::fs::write(&cfg, loop_config(2, 3).replace("komi_visits = 8", "komi_visits = 9")).unwrap();
    let (code, _, stderr) =
        hane(&["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("only [loop] generations, judge_positions and the book_ keys may change"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
