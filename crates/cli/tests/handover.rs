//! `hane` and `hane-torch`: the commands that need no net start without libtorch (the dynamic
//! loader's own account, `LD_DEBUG=libs`, names every library it loads), the others are handed
//! over to `hane-torch` unchanged, and a `hane` without its `hane-torch` says so.

use std::process::{Command, Output, Stdio};

/// `hane ARGS...` with the loader reporting its libraries on stderr, stdin empty.
fn traced(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(args)
        .env("LD_DEBUG", "libs")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn loads_libtorch(out: &Output) -> bool {
    String::from_utf8_lossy(&out.stderr).contains("libtorch")
}

#[test]
fn the_commands_without_a_net_run_without_libtorch() {
    for args in [
        &["--version"][..],
        &["replay", "--rules", "ttakji,size=5", "C3", "C2"],
        &["perft", "--rules", "ttakji", "--size", "3", "--depth", "2"],
        &["gtp"],
        &["analysis"],
        &["gtp", "--help"],
    ] {
        let out = traced(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!loads_libtorch(&out), "{args:?} loaded libtorch");
    }
}

#[test]
fn every_other_command_is_handed_to_hane_torch_with_its_arguments() {
    let out = traced(&["match", "--help"]);
    assert!(out.status.success());
    assert!(loads_libtorch(&out), "hane-torch runs `match`");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: hane match"));
    // A net named to a front-end sends it there too, where a missing file is bad input.
    let out = traced(&["gtp", "--model", "/nonexistent/net.safetensors"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(loads_libtorch(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/net.safetensors"));
    // The whole help is hane-torch's, with every command.
    let out = Command::new(env!("CARGO_BIN_EXE_hane")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for command in ["replay", "gtp", "loop", "train", "komi", "solve"] {
        assert!(help.contains(command), "{command} missing from:\n{help}");
    }
}

#[test]
fn a_hane_without_hane_torch_says_what_is_missing() {
    let dir = std::env::temp_dir().join(format!("hane-handover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let alone = dir.join("hane");
    std::fs::copy(env!("CARGO_BIN_EXE_hane"), &alone).unwrap();
    let out = Command::new(&alone).args(["loop", "--out", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot start") && err.contains("hane-torch"), "{err}");
    // What it runs itself still works.
    let out = Command::new(&alone).args(["replay", "--rules", "ttakji,size=5"]).output().unwrap();
    assert!(out.status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}
