//! Sabaki's GTP client `@sabaki/gtp` (from the node modules scripts/setup-tests.sh installs) runs
//! `analyze`, `lz-analyze` and `kata-analyze` against `hane gtp` on a tiny 5x5 net: see
//! `sabaki_client.js`.

mod common;

use common::{setup_dir, tiny_model};
use std::process::Command;

#[test]
fn sabakis_gtp_client_streams_hane_analysis() {
    let modules = setup_dir("HANE_NODE", "node").join("node_modules");
    let (dir, model) = tiny_model("sabaki");
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sabaki_client.js");
    let out = Command::new("node")
        .args([client, env!("CARGO_BIN_EXE_hane"), model.to_str().unwrap()])
        .env("NODE_PATH", &modules)
        .output()
        .expect("node runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("report lines checked"), "{stdout}");
    println!("{stdout}\n{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
