//! `hane analysis` checked by a small Python client (`analysis_client.py`) against the keys
//! and ranges of KataGo's JSON analysis protocol: a game with `analyzeTurns`, ownership and
//! policy from a net, Loose and Sligo positions, malformed queries, `terminate`.

mod common;

use common::tiny_model;
use std::process::Command;

#[test]
fn a_python_client_reads_every_response() {
    let (dir, model) = tiny_model("analysis");
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/analysis_client.py");
    let out = Command::new("python3")
        .args([client, env!("CARGO_BIN_EXE_hane"), model.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("responses checked"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
