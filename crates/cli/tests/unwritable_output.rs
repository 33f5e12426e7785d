//! A standard output or error that cannot be written (`> /dev/full`) is a failure with exit
//! code 1 and a message, never a panic (exit code 101), for the commands' output and clap's
//! help alike; a failed write to standard error leaves the command's own exit code.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const TRAIN: &str = r#"
[train]
rules = "ttakji,size=5"
steps = 2
batch_size = 8
log_every = 1
threads = 1
histogram_every = 0
window_min_rows = 8
[train.net]
blocks = 1
channels = 8
"#;

fn full() -> Stdio {
    Stdio::from(File::create("/dev/full").unwrap())
}

/// `hane ARGS...` with its standard output on /dev/full.
fn stdout_full(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hane")).args(args).stdout(full()).output().unwrap()
}

/// A fresh folder with the shards of one 5x5 self-play game and a config training on them.
fn training_folder() -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("hane-unwritable-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let selfplay = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/ttakji-5x5.toml");
    let data = dir.join("data");
    let status = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["selfplay", "--config", selfplay, "--games", "1", "--out"])
        .arg(&data)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    std::fs::write(dir.join("train.toml"), TRAIN).unwrap();
    (dir, data)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_full_standard_output_is_exit_code_1_not_a_panic() {
    let (dir, data) = training_folder();
    let (config, out) = (dir.join("train.toml"), dir.join("train"));
    let commands: [&[&str]; 5] = [
        &["--help"],
        &["replay", "--size", "5", "C3"],
        &["perft", "--rules", "ttakji", "--size", "3", "--depth", "3"],
        &[
            "match", "--rules", "ttakji", "--size", "5", "--a", "uniform", "--b", "uniform", "--games", "2",
            "--visits", "2",
        ],
        &["train", "--config", path(&config), "--data", path(&data), "--out", path(&out)],
    ];
    for args in commands {
        let o = stdout_full(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("hane: cannot write to standard output: No space left on device"),
            "{args:?}: {err}"
        );
    }
    assert!(out.join("checkpoints").is_dir(), "the training itself went on");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_full_standard_error_keeps_the_exit_code() {
    let hane =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_hane")).args(args).stderr(full()).output().unwrap();
    let bad = hane(&["replay", "--size", "5", "Z9"]);
    assert_eq!(bad.status.code(), Some(2), "bad input, its message lost");
    let good = hane(&["perft", "--rules", "ttakji", "--size", "3", "--depth", "1"]);
    assert_eq!(good.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&good.stdout).contains("depth  1"));
}
