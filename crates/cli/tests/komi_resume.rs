//! An interrupted `hane komi` keeps its evaluations: it exits with 130 writing them to
//! `komi.json`, marked partial, and the same command reuses them and finishes the estimate;
//! other arguments are refused while the partial file is there.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn hane(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_hane"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn an_interrupted_estimate_keeps_its_evaluations_and_the_same_command_reuses_them() {
    let dir = std::env::temp_dir().join(format!("hane-komi-resume-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let args = ["komi", "--size", "5", "--evaluator", "rollout", "--visits", "3000", "--sweep-games", "0"];
    let mut child = hane(&args).args(["--out", out]).spawn().unwrap();
    // Interrupted after its third evaluation.
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut evaluations = 0;
        let mut all = String::new();
        for line in stderr.lines().map_while(Result::ok) {
            evaluations += usize::from(line.starts_with("komi "));
            if evaluations == 3 {
                let _ = tx.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    rx.recv_timeout(Duration::from_secs(120)).expect("three evaluations");
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let status = child.wait().unwrap();
    let err = reader.join().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let partial = json(&dir.join("komi.json"));
    assert_eq!(partial["partial"].as_bool(), Some(true));
    let saved = partial["progress"]["evaluations"].as_array().unwrap().len();
    assert!(saved >= 3, "{saved} evaluations saved\n{err}");
    assert!(err.contains(&format!("{saved} evaluations written to")), "{err}");
    // Other arguments would mix two estimates: refused, the file kept.
    let other = hane(&args).args(["--out", out, "--seed", "2"]).output().unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&other.stderr).contains("holds a partial estimate of other arguments"));
    // The same command reuses every saved evaluation and finishes.
    let done = hane(&args).args(["--out", out]).output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{err}");
    assert!(err.contains(&format!("resuming: {saved} evaluations")), "{err}");
    assert_eq!(err.matches("(saved)").count(), saved, "{err}");
    let report = json(&dir.join("komi.json"));
    assert!(report["partial"].is_null() && report["estimate"]["fair"].is_number(), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}
