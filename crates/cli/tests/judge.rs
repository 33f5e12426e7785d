//! `hane judge` end to end on a run folder made by hand: two generations' checkpoints (an
//! untrained tiny net) and self-play records of random 5x5 games; the scores, the plot, a
//! rerun that reuses everything, and bad input.

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
    assert!(std::fs::read(dir.join("judge.png")).unwrap().starts_with(b"\x89PNG"));
    let positions = std::fs::read(dir.join("judge/positions.json")).unwrap();
    // A rerun solves nothing and scores nothing again.
    let (code, out, err) = hane(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 generations judged on 3 solved positions") && !err.contains("generation 0:"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("judge/positions.json")).unwrap(), positions);
    // Other sampling settings than the saved positions' are refused, naming them.
    let other = ["judge", "--run", dir.to_str().unwrap(), "--positions", "3", "--min-turn", "10"];
    let (code, _, err) = hane(&other);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--min-turn 19"), "{err}");
    let (code, _, err) = hane(&["judge", "--run", dir.join("nothing").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
