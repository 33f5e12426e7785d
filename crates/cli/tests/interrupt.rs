//! SIGINT (Ctrl-C) stops the long commands at a safe point with exit code 130: `hane loop`
//! during training (the step in flight finishes and is checkpointed; no crash inside
//! libtorch), gating and the komi estimate, `hane train`, and `hane selfplay`. Nothing
//! partial is left, and the same command then finishes the job.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const STEPS: u64 = 60;

const CONFIG: &str = concat!(
    common::tiny_selfplay!(),
    r#"rules = "ttakji,size=5"
[train]
rules = "ttakji,size=5"
steps = 60
batch_size = 32
warmup_steps = 5
checkpoint_every = 5
log_every = 5
threads = 1
histogram_every = 0
window_min_rows = 100000
[train.net]
blocks = 1
channels = 8
[loop]
generations = 1
games = 8
gate_games = 2
gate_visits = 4
komi_visits = 8
"#
);

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(name: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("hane-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

fn hane(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hane"));
    c.args(args);
    c
}

fn spawn(mut c: Command) -> Child {
    c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Waits (at most two minutes) until `ready`, then sends SIGINT and collects the output.
fn interrupt_when(mut child: Child, what: &str, ready: impl Fn() -> bool) -> Output {
    let t = Instant::now();
    while !ready() {
        assert!(t.elapsed() < Duration::from_secs(120), "{what} did not happen");
        assert!(child.try_wait().unwrap().is_none(), "the command ended before {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let sent = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(sent.elapsed() < Duration::from_secs(60), "stopping took {:?}", sent.elapsed());
    out
}

/// Asserts exit code 130 (not a crash, not success) and the message.
fn interrupted(o: &Output, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{what}: {:?}\n{err}", o.status);
    assert!(err.contains("interrupted"), "{what}: {err}");
}

/// Checkpoint steps in a trainer's output folder, in increasing order.
fn checkpoint_steps(out: &Path) -> Vec<u64> {
    let mut v: Vec<u64> = std::fs::read_dir(out.join("checkpoints"))
        .map(|r| {
            r.flatten()
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    name.strip_prefix("step-")?.strip_suffix(".safetensors")?.parse().ok()
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn no_temporary_files(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            no_temporary_files(&p);
        } else {
            assert!(!p.to_string_lossy().contains(".tmp"), "temporary file left: {}", p.display());
        }
    }
}

fn state(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("state.json")).unwrap()).unwrap()
}

#[test]
fn sigint_stops_loop_and_train_between_steps_and_a_rerun_finishes() {
    let tmp = temp_dir("interrupt-loop");
    let cfg = tmp.0.join("tiny.toml");
    std::fs::write(&cfg, CONFIG).unwrap();
    let (cfg, run) = (cfg.to_str().unwrap(), tmp.0.join("run"));
    let loop_args = ["loop", "--config", cfg, "--out", run.to_str().unwrap()];

    // `hane loop`, once training has written its first checkpoint.
    let train_dir = run.join("train");
    let child = spawn(hane(&loop_args));
    let o = interrupt_when(child, "a checkpoint", || !checkpoint_steps(&train_dir).is_empty());
    interrupted(&o, "hane loop during training");
    no_temporary_files(&run);
    let st = state(&run);
    assert!(st["generations"][0]["selfplay"]["games"] == 8, "self-play was recorded");
    assert!(st["generations"][0]["train"].is_null(), "training was not recorded as done");
    // The interrupted training's time is kept in the run's record, beside self-play's.
    for phase in ["self-play", "training"] {
        assert_eq!(st["time"][phase]["runs"], 1, "{phase}: {}", st["time"]);
        assert!(st["time"][phase]["wall"].as_f64().is_some_and(|w| w > 0.0), "{}", st["time"]);
        assert!(st["time"][phase]["cpu"].as_f64().is_some_and(|c| c >= 0.0), "{}", st["time"]);
    }
    let stopped_at = *checkpoint_steps(&train_dir).last().unwrap();
    assert!(stopped_at < STEPS, "stopped before the end, at step {stopped_at}");

    let rerun = hane(&loop_args).output().unwrap();
    let stdout = String::from_utf8_lossy(&rerun.stdout);
    assert!(rerun.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&rerun.stderr));
    assert!(stdout.contains(&format!("resuming at step {stopped_at}")), "{stdout}");
    assert!(stdout.contains("run finished"), "{stdout}");
    assert_eq!(state(&run)["generations"][0]["train"]["step"], STEPS);
    // Both parts of the training are accounted for, and the run's last line sums the phases.
    let time = &state(&run)["time"];
    assert_eq!((time["self-play"]["runs"].as_u64(), time["training"]["runs"].as_u64()), (Some(1), Some(2)));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("time by phase, every part of the run: self-play "), "{stdout}");
    assert!(last.contains("; training ") && last.contains("; in all "), "{last}");
    no_temporary_files(&run);

    // `hane train` on the loop's games, into a folder of its own.
    let out = tmp.0.join("train");
    let data = run.join("selfplay");
    let (data, out_arg) = (data.to_str().unwrap(), out.to_str().unwrap());
    let train_args = ["train", "--config", cfg, "--data", data, "--out", out_arg];
    let child = spawn(hane(&train_args));
    let o = interrupt_when(child, "a checkpoint", || !checkpoint_steps(&out).is_empty());
    interrupted(&o, "hane train");
    let stopped_at = *checkpoint_steps(&out).last().unwrap();
    assert!(stopped_at < STEPS, "stopped before the end, at step {stopped_at}");
    no_temporary_files(&out);
    let rerun = hane(&train_args).output().unwrap();
    let stdout = String::from_utf8_lossy(&rerun.stdout);
    assert!(rerun.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&rerun.stderr));
    assert!(stdout.contains(&format!("resuming at step {stopped_at}")), "{stdout}");
    assert_eq!(checkpoint_steps(&out).last(), Some(&STEPS));
}

#[test]
fn sigint_stops_loop_during_gating_and_the_komi_estimate() {
    // Short training, long searches: the gate and the komi estimate each take seconds.
    let config = CONFIG
        .replace("steps = 60", "steps = 5")
        .replace("gate_games = 2\ngate_visits = 4", "gate_games = 4\ngate_visits = 200")
        .replace("komi_visits = 8", "komi_visits = 3000");
    let tmp = temp_dir("interrupt-phases");
    let cfg = tmp.0.join("slow-searches.toml");
    std::fs::write(&cfg, config).unwrap();
    let run = tmp.0.join("run");
    let args = ["loop", "--config", cfg.to_str().unwrap(), "--out", run.to_str().unwrap()];
    let generation = |key: &str| state(&run)["generations"][0][key].clone();
    let phases: [(&str, &dyn Fn() -> bool); 2] = [
        ("gating", &|| !generation("train").is_null() && generation("gate").is_null()),
        ("the komi estimate", &|| !generation("gate").is_null() && generation("komi").is_null()),
    ];
    for (phase, during) in phases {
        let child = spawn(hane(&args));
        // A moment into the phase, so that it is under way (its own poll is before each move
        // or evaluation).
        let o = interrupt_when(child, phase, || {
            run.join("state.json").exists() && during() && {
                std::thread::sleep(Duration::from_millis(100));
                true
            }
        });
        interrupted(&o, phase);
        no_temporary_files(&run);
        assert!(during(), "{phase} was not recorded as done");
    }
    let rerun = hane(&args).output().unwrap();
    let stdout = String::from_utf8_lossy(&rerun.stdout);
    assert!(rerun.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&rerun.stderr));
    assert!(stdout.contains("run finished"), "{stdout}");
    let g = &state(&run)["generations"][0];
    let w = &g["gate"]["results"];
    let played = ["wins", "draws", "losses"].iter().map(|k| w[k].as_u64().unwrap()).sum::<u64>();
    let saved: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(run.join("gates/gen-000.json")).unwrap()).unwrap();
    assert_eq!(saved.len() as u64, played, "every gate game recorded once");
    assert!(g["komi"]["estimate"]["crossing"].is_f64() || g["komi_error"].is_string(), "{g}");
}

fn count(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .map(|r| r.flatten().filter(|e| e.path().extension().is_some_and(|x| x == ext)).count())
        .unwrap_or(0)
}

#[test]
fn sigint_stops_selfplay_with_code_130_keeping_finished_games() {
    let tmp = temp_dir("interrupt-selfplay");
    let out = tmp.0.join("out");
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/ttakji-9x9.toml");
    let args = ["selfplay", "--config", config, "--games", "60", "--out", out.to_str().unwrap()];
    let child = spawn(hane(&args));
    let o = interrupt_when(child, "a finished game", || count(&out.join("sgf"), "sgf") >= 1);
    interrupted(&o, "hane selfplay");
    no_temporary_files(&out);
    let finished = count(&out.join("sgf"), "sgf");
    assert!(finished < 60, "stopped before the end");
    for e in std::fs::read_dir(out.join("shards")).unwrap().flatten() {
        hane_data::shard::read(&e.path()).unwrap();
    }
    let rerun = hane(&args).output().unwrap();
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    // The config packs the games (`pack_rows`): count the games in each SGF collection.
    let games: usize = std::fs::read_dir(out.join("sgf"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap().matches("GN[").count())
        .sum();
    assert_eq!(games, 60);
}
