//! `hane match` loses nothing and never hangs: a GTP engine that does not answer within
//! `--gtp-timeout` forfeits and is killed; Ctrl-C during a wait on an engine exits with 130
//! at once and leaves no engine behind; an interrupted match with `--json` writes its
//! finished games, marked partial, and the same command resumes after them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn hane(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hane"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hane-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The ids of the live processes whose command line is `words`.
fn processes(words: &[&str]) -> Vec<u32> {
    let want: Vec<u8> = words.iter().flat_map(|w| w.bytes().chain([0])).collect();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let zombie = std::fs::read_to_string(e.path().join("stat"))
            .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, r)| r.trim_start().starts_with('Z')));
        if std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == want) && !zombie {
            out.push(pid);
        }
    }
    out
}

fn interrupt(pid: u32) {
    assert!(Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap().success());
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn an_engine_that_does_not_answer_in_time_forfeits_and_is_killed() {
    let out = hane(&["match", "--size", "5", "--a", "uniform", "--b", "gtp:sleep 987654"])
        .args(["--games", "2", "--visits", "2", "--gtp-timeout", "0.5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("by forfeit (sleep 987654 (").count(), 2, "{err}");
    assert!(err.contains("did not answer \"boardsize 5\" within 0.5 s"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("uniform/2: 2 wins, 0 draws, 0 losses"));
    assert!(processes(&["sleep", "987654"]).is_empty());
}

#[test]
fn ctrl_c_during_a_wait_on_an_engine_exits_at_once_with_130_and_kills_it() {
    let dir = temp_dir("match-wait");
    let file = dir.join("m.json");
    let child = hane(&["match", "--size", "5", "--a", "uniform", "--b", "gtp:sleep 987655", "--games", "2"])
        .args(["--gtp-timeout", "1000", "--json", file.to_str().unwrap()])
        .spawn()
        .unwrap();
    let start = Instant::now();
    while processes(&["sleep", "987655"]).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "the engine did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(200));
    interrupt(child.id());
    let sent = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(sent.elapsed() < Duration::from_secs(1), "stopping took {:?}", sent.elapsed());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(processes(&["sleep", "987655"]).is_empty(), "the engine outlived the match");
    let report = json(&file);
    assert_eq!(
        (report["partial"].as_bool(), report["games"].as_array().map(Vec::len)),
        (Some(true), Some(0))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interrupted_match_keeps_its_games_and_the_same_command_resumes_after_them() {
    let dir = temp_dir("match-resume");
    let file = dir.join("m.json");
    let args =
        ["match", "--size", "5", "--a", "rollout", "--b", "uniform", "--games", "300", "--visits", "16"];
    let json_arg = ["--json", file.to_str().unwrap()];
    let mut child = hane(&args).args(json_arg).spawn().unwrap();
    // Interrupted once its fifth game is reported.
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in stderr.lines().map_while(Result::ok) {
            if line.starts_with("game 5/") {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    rx.recv_timeout(Duration::from_secs(60)).expect("five games");
    interrupt(child.id());
    let status = child.wait().unwrap();
    let err = reader.join().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let partial = json(&file);
    let played = partial["games"].as_array().unwrap().clone();
    assert_eq!(partial["partial"].as_bool(), Some(true));
    assert!(!played.is_empty() && played.len() < 300, "{} games", played.len());
    assert!(err.contains(&format!("{} finished games written to", played.len())), "{err}");
    // Another seed is another match: refused, the file kept.
    let other = hane(&args).args(json_arg).args(["--seed", "2"]).output().unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("holds another match"));
    // The same command plays the games still missing.
    let out = hane(&args).args(json_arg).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("resuming: {} of 300 games already played", played.len())), "{err}");
    assert!(err.contains(&format!("game {}/300:", played.len() + 1)), "{err}");
    assert!(!err.contains("game 1/300:"), "{err}");
    let done = json(&file);
    assert_eq!(done["partial"].as_bool(), Some(false));
    let games = done["games"].as_array().unwrap();
    assert_eq!(games.len(), 300);
    assert_eq!(games[..played.len()], played[..]);
    let w = &done["a_results"];
    let total: u64 = ["wins", "draws", "losses"].iter().map(|k| w[k].as_u64().unwrap()).sum();
    assert_eq!(total, 300);
    std::fs::remove_dir_all(&dir).unwrap();
}
