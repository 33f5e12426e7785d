//! `hane match` and `hane komi` with a Go net under other Go rules of its board size: they
//! play under the rules asked for, and stderr says which rules the net was trained on; a net
//! of another game or size is refused before anything runs.

mod common;

use std::process::{Command, Stdio};

/// `hane ARGS...`: its exit code and stderr.
fn hane(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hane")).args(args).stdin(Stdio::null()).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

const NOTE: &str = "the net was trained on ttakji,size=5";

#[test]
fn match_and_komi_play_a_go_net_under_other_go_rules() {
    let (dir, model) = common::tiny_model("net-rules");
    let m = model.to_str().unwrap();
    let spec = format!("model:{m}");
    let play = |rules: &str| {
        hane(&["match", "--rules", rules, "--a", &spec, "--b", "uniform", "--games", "2", "--visits", "4"])
    };
    for rules in ["japanese,size=5", "chinese,size=5", "tromp-taylor,size=5"] {
        let (code, err) = play(rules);
        assert_eq!(code, Some(0), "{rules}: {err}");
        assert!(err.contains(&format!("hane: {spec}: {NOTE}")), "{rules}: {err}");
    }
    let (code, err) = play("ttakji,size=5,komi=3");
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains(NOTE), "its own game needs no note: {err}");
    for rules in ["loose,size=5", "japanese,size=7"] {
        let (code, err) = play(rules);
        assert_eq!(code, Some(2), "{rules}: {err}");
        assert!(err.contains("the loaded net plays only ttakji,size=5"), "{rules}: {err}");
    }

    // An untrained net's estimate may find no crossing; what counts is that it searched
    // territory komi values (x.5), which only the asked-for Japanese rules have on 5x5.
    let out = dir.join("komi");
    let komi = ["komi", "--rules", "japanese,size=5", "--model", m, "--visits", "8", "--sweep-games", "0"];
    let (_, err) = hane(&[&komi[..], &["--out", out.to_str().unwrap()]].concat());
    assert!(err.contains(&format!("hane: {NOTE}")), "{err}");
    let searched: Vec<f64> =
        err.lines().filter_map(|l| l.strip_prefix("komi ")?.split(':').next()?.trim().parse().ok()).collect();
    assert!(!searched.is_empty() && searched.iter().all(|k| k.fract().abs() == 0.5), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
