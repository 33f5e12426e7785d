//! `hane selfplay` killed with SIGKILL mid-run: every visible shard is complete and valid,
//! and rerunning the same command finishes the job with exactly one record per game.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn count(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .map(|r| r.flatten().filter(|e| e.path().extension().is_some_and(|x| x == ext)).count())
        .unwrap_or(0)
}

/// Finished games in `dir`: one per single SGF, one per game tree of a pack's collection
/// (the config packs them, `pack_rows`).
fn finished_games(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "sgf"))
                .map(|e| std::fs::read_to_string(e.path()).map_or(0, |t| t.matches("GN[").count().max(1)))
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn sigkill_loses_only_games_in_flight() {
    let out = std::env::temp_dir().join(format!("hane-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/ttakji-9x9.toml");
    let games = "60";
    let args = ["selfplay", "--config", config, "--games", games, "--out", out.to_str().unwrap()];
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once some games are finished but (normally) long before all are.
    let t = Instant::now();
    while count(&out.join("sgf"), "sgf") < 3 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let shards = out.join("shards");
    for e in std::fs::read_dir(&shards).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "npz") {
            hane_data::shard::read(&p).unwrap_or_else(|err| panic!("visible shard is corrupt: {err}"));
        }
    }
    let finished = finished_games(&out.join("sgf"));
    assert!(finished >= 3);
    let status = Command::new(env!("CARGO_BIN_EXE_hane")).args(args).output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let report = String::from_utf8_lossy(&status.stdout);
    assert!(report.contains(&format!("({finished} already done)")) || finished == 60, "{report}");
    assert_eq!(finished_games(&out.join("sgf")), 60);
    for e in std::fs::read_dir(&shards).unwrap().flatten() {
        let name = e.file_name().into_string().unwrap();
        assert!(name.ends_with(".npz"), "leftover file {name}");
        hane_data::shard::read(&e.path()).unwrap();
    }
    std::fs::remove_dir_all(&out).ok();
}
