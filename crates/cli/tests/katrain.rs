//! KaTrain 1.20.0's own engine class (`katrain.core.engine.KataGoEngine`, from the venv that
//! scripts/setup-tests.sh makes) drives `hane analysis` as it drives KataGo, headless, on a tiny
//! 5x5 ttakji net: see `katrain_client.py` for what it checks.

mod common;

use common::{setup_dir, tiny_model};
use std::process::Command;

#[test]
fn katrain_drives_hane_analysis_as_it_drives_katago() {
    let python = setup_dir("HANE_KATRAIN_VENV", "katrain-venv").join("bin/python");
    let (dir, model) = tiny_model("katrain");
    let client = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/katrain_client.py");
    let out = Command::new(python)
        .args([client, env!("CARGO_BIN_EXE_hane"), model.to_str().unwrap()])
        .env("TMPDIR", &dir)
        .output()
        .expect("KaTrain's python runs");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    assert!(stdout.contains("every check passed"), "{stdout}");
    println!("{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
