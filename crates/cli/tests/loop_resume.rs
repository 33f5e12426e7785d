//! `hane loop` killed with SIGKILL during its second generation and rerun: the run completes
//! with every game exactly once, the trainer's steps, checkpoints and logs consistent with the
//! config, every gating and anchor game recorded once, each gate played at the komi its
//! generation's self-play was centred on, and a komi estimate in every generation whether or
//! not its candidate passed the gate.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GAMES: usize = 24;
const STEPS: u64 = 20;

const CONFIG: &str = concat!(
    common::tiny_selfplay!(),
    r#"rules = "ttakji,size=5"
[train]
rules = "ttakji,size=5"
steps = 20
batch_size = 32
warmup_steps = 5
checkpoint_every = 10
log_every = 5
histogram_every = 20
window_min_rows = 100000
[train.net]
blocks = 1
channels = 8
[loop]
generations = 2
games = 24
gate_games = 4
# Every gated candidate is accepted, so later generations play generation 0's net as an anchor.
gate_threshold = 0.0
gate_visits = 4
komi_visits = 8
anchor_games = 2
anchor_visits = 4
"#
);

fn names(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == ext))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn all_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn hane_loop(cfg: &Path, out: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hane"));
    c.args(["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    c
}

fn state(out: &Path) -> serde_json::Value {
    std::fs::read_to_string(out.join("state.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

#[test]
fn a_killed_loop_resumes_without_losing_or_repeating_anything() {
    let dir = std::env::temp_dir().join(format!("hane-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, CONFIG).unwrap();
    let out = dir.join("run");

    // Kill as soon as the second generation has begun.
    let mut child = hane_loop(&cfg, &out).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let t = Instant::now();
    while state(&out)["generations"].as_array().map_or(0, |g| g.len()) < 2 {
        assert!(t.elapsed() < Duration::from_secs(120), "the first generation did not finish");
        assert!(child.try_wait().unwrap().is_none(), "hane loop ended before the second generation");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = state(&out);
    assert!(killed["generations"][1]["gate"].is_null(), "killed before the second generation finished");

    // A different config is refused; the same one continues.
    let other = dir.join("other.toml");
    std::fs::write(&other, CONFIG.replace("games = 24", "games = 30")).unwrap();
    let refused = hane_loop(&other, &out).output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("different config"));
    let rerun = hane_loop(&cfg, &out).output().unwrap();
    let stdout = String::from_utf8_lossy(&rerun.stdout);
    assert!(rerun.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&rerun.stderr));
    assert!(stdout.contains("generation 1:") && stdout.contains("run finished"), "{stdout}");
    assert!(!stdout.contains("generation 0:"), "generation 0 was finished before the kill:\n{stdout}");
    // The first line says what the nets compute in (the default, FP32).
    assert!(stdout.lines().next().is_some_and(|l| l.contains("nets playing in fp32")), "{stdout}");

    // Every game exactly once, and a shard only for a recorded game.
    let want: Vec<String> = (0..GAMES).map(|i| format!("g{i:08}.sgf")).collect();
    for g in ["gen-000", "gen-001"] {
        let sp = out.join("selfplay").join(g);
        assert_eq!(names(&sp.join("sgf"), "sgf"), want, "{g}");
        let shards = names(&sp.join("shards"), "npz");
        assert!(!shards.is_empty());
        for s in &shards {
            assert!(want.contains(&s.replace(".npz", ".sgf")), "{g}: stray shard {s}");
            hane_data::shard::read(&sp.join("shards").join(s)).unwrap();
        }
    }
    let mut files = Vec::new();
    all_files(&out, &mut files);
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        assert!(!name.contains(".tmp"), "temporary file left: {}", f.display());
    }

    // The state, checkpoints, models, gates and logs agree.
    let st = state(&out);
    let gens = st["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 2);
    for (i, g) in gens.iter().enumerate() {
        assert_eq!(g["index"], i);
        assert_eq!(g["selfplay"]["games"], GAMES);
        assert_eq!(g["train"]["step"], STEPS * (i as u64 + 1));
        assert!(g["selfplay"]["rows"].as_u64().unwrap() > 0);
        assert!(out.join(g["train"]["candidate"].as_str().unwrap()).is_file());
        let w = &g["gate"]["results"];
        let played =
            w["wins"].as_u64().unwrap() + w["draws"].as_u64().unwrap() + w["losses"].as_u64().unwrap();
        // A gate decided before its first game (threshold 0) leaves no file.
        let gate_games: Vec<serde_json::Value> =
            std::fs::read_to_string(out.join(format!("gates/gen-{i:03}.json")))
                .map_or(Vec::new(), |t| serde_json::from_str(&t).unwrap());
        assert_eq!(gate_games.len() as u64, played, "generation {i}: gate games recorded once");
        assert_eq!(g["gate"]["komi"], g["selfplay"]["komi"], "generation {i}: gated at the self-play komi");
        assert!(g["komi"]["estimate"]["crossing"].is_f64() || g["komi_error"].is_string(), "generation {i}");
        assert!(g["komi_error"] != "no net trained yet", "generation {i}: the candidate is estimated");
        for a in g["anchors"].as_array().unwrap() {
            let r = &a["results"];
            let n =
                r["wins"].as_u64().unwrap() + r["draws"].as_u64().unwrap() + r["losses"].as_u64().unwrap();
            assert_eq!(n, 2, "generation {i}: a fixed-size anchor match");
        }
        assert_eq!(anchor_names(g), expected_anchors(&gens[..=i]), "generation {i}");
    }
    // Generation 1 plays at the komi the estimate of generation 0 found (when it found one).
    if let Some(k) = gens[0]["komi"]["estimate"]["crossing"].as_f64() {
        let centre = gens[1]["selfplay"]["komi"].as_f64().unwrap();
        assert!((centre - k).abs() <= 0.5 || centre.abs() >= 25.0, "centre {centre}, estimate {k}");
    }
    assert_eq!(
        gens[1]["player"],
        serde_json::Value::String(if gens[0]["gate"]["accepted"] == true {
            "models/gen-000.safetensors".into()
        } else {
            "uniform".into()
        })
    );
    let ckpts = names(&out.join("train/checkpoints"), "safetensors");
    assert_eq!(ckpts.last().unwrap(), &format!("step-{:09}.safetensors", 2 * STEPS));
    let events: Vec<_> = files.iter().filter(|f| f.to_string_lossy().contains("tfevents")).collect();
    assert!(!events.is_empty(), "TensorBoard event files");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["generations"].as_array().unwrap().len(), 2);
    for png in ["elo.png", "losses.png"] {
        assert!(std::fs::read(out.join(png)).unwrap().starts_with(b"\x89PNG"), "{png}");
    }

    // Only the number of generations may change: a third generation continues the run.
    std::fs::write(&cfg, CONFIG.replace("generations = 2", "generations = 3")).unwrap();
    let longer = hane_loop(&cfg, &out).output().unwrap();
    let stdout = String::from_utf8_lossy(&longer.stdout);
    assert!(longer.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&longer.stderr));
    assert!(!stdout.contains("generation 1:"), "generation 1 was finished:\n{stdout}");
    let st = state(&out);
    let gens = st["generations"].as_array().unwrap();
    assert_eq!(gens.len(), 3);
    assert_eq!(anchor_names(&gens[2]), expected_anchors(gens), "generation 2");
    let _ = std::fs::remove_dir_all(&dir);
}

fn anchor_names(g: &serde_json::Value) -> Vec<String> {
    g["anchors"].as_array().unwrap().iter().map(|a| a["anchor"].as_str().unwrap().to_string()).collect()
}

/// The anchors of the last of `gens`: its best net plays the baseline and generation 0's net
/// (not itself); while the baseline is the best player, nothing.
fn expected_anchors(gens: &[serde_json::Value]) -> Vec<String> {
    let best =
        gens.iter().rev().find(|g| g["gate"]["accepted"] == true).map(|g| g["train"]["candidate"].clone());
    // The ladder: the net of the last generation before this one that played anchors, when it
    // is neither generation 0's net nor the best net itself.
    let before = &gens[..gens.len() - 1];
    let rung = before
        .iter()
        .rev()
        .find_map(|g| g["anchors"].as_array().and_then(|a| a.first()))
        .map(|m| m["net"].clone());
    match best.as_ref().and_then(|b| b.as_str()) {
        None => vec![],
        Some("models/gen-000.safetensors") => vec!["uniform".into()],
        Some(b) => {
            let mut v = vec!["uniform".to_string(), "gen-000".into()];
            if let Some(r) = rung.as_ref().and_then(|r| r.as_str()) {
                if r != b && r != "models/gen-000.safetensors" {
                    v.push("ladder".into());
                }
            }
            v
        }
    }
}
