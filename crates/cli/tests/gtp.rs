//! `hane gtp` driven through a scripted session, bad input included.

mod common;

use common::tiny_checkpoint;
use std::io::Write;
use std::process::{Command, Stdio};

fn session(script: &str) -> Vec<String> {
    session_with(&[], script)
}

/// The replies of `hane gtp --visits 16 EXTRA...` to `script`.
fn session_with(extra: &[&str], script: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["gtp", "--visits", "16"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .split("\n\n")
        .map(str::to_string)
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn scripted_game_with_bad_input() {
    let script = "protocol_version\n\
        2 name\n\
        boardsize 7\n\
        komi 6.5\n\
        play b D4\n\
        genmove w\n\
        play b D4\n\
        play purple D5\n\
        bogus_command\n\
        boardsize 99\n\
        komi abc\n\
        \u{1}\u{7}garbage \u{ff}\n\
        undo\n\
        undo\n\
        undo\n\
        undo\n\
        fixed_handicap 2\n\
        play w C5\n\
        genmove b\n\
        final_score\n\
        final_status_list dead\n\
        hane-rules loose,size=5\n\
        hane-play b C3\n\
        hane-rules sligo,size=5\n\
        hane-play b C3\n\
        hane-play w B4\n\
        hane-play b C3>C4+C5\n\
        time_settings 60 5 1\n\
        known_command genmove\n\
        quit\n\
        name\n";
    let r = session(script);
    let expect_ok = |i: usize| assert!(r[i].starts_with('='), "reply {i}: {:?}\nall: {r:?}", r[i]);
    let expect_err = |i: usize| assert!(r[i].starts_with('?'), "reply {i}: {:?}\nall: {r:?}", r[i]);
    assert_eq!(r[0], "= 2");
    assert_eq!(r[1], "=2 hane");
    expect_ok(2);
    expect_ok(3);
    expect_ok(4);
    assert!(r[5].len() > 2, "genmove answers a vertex: {:?}", r[5]);
    expect_err(6); // occupied
    expect_err(7); // bad colour
    expect_err(8); // unknown command
    expect_err(9); // bad size
    expect_err(10); // bad komi
    expect_err(11); // garbage
    expect_ok(12);
    expect_ok(13);
    expect_err(14); // nothing left to undo
    expect_err(15);
    assert_eq!(r[16], "= E5 C3", "7x7 handicap 2: the 3-3 points");
    expect_ok(17);
    expect_ok(18);
    assert!(r[19].starts_with("= B+") || r[19].starts_with("= W+") || r[19] == "= 0", "{:?}", r[19]);
    expect_ok(20);
    expect_ok(21);
    expect_ok(22);
    expect_ok(23);
    expect_ok(24);
    expect_ok(25);
    expect_ok(26); // slide C3 to C4, then place C5
    expect_ok(27);
    assert_eq!(r[28], "= true");
    assert_eq!(r[29], "=");
    assert_eq!(r.len(), 30, "nothing after quit");
}

#[test]
fn a_net_plays_its_own_rules_only() {
    let dir = std::env::temp_dir().join(format!("hane-gtp-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("tiny.safetensors");
    tiny_checkpoint("ttakji,size=5", &model);
    let m = model.to_str().unwrap();
    let r = session_with(
        &["--rules", "ttakji,size=5", "--model", m],
        "komi 3.5\n\
        genmove b\n\
        boardsize 7\n\
        hane-rules sligo,size=5\n\
        showboard\n\
        hane-rules ttakji,size=5,komi=0.5\n\
        genmove b\n\
        boardsize 5\n\
        quit\n",
    );
    assert_eq!(r.len(), 9, "{r:?}");
    assert_eq!(r[0], "=", "komi is an input of the net: {r:?}");
    for i in [1, 6] {
        let v = r[i].strip_prefix("= ").unwrap_or_else(|| panic!("genmove: {r:?}"));
        let on_board = v.len() == 2 && ("A"..="E").contains(&&v[..1]) && ("1"..="5").contains(&&v[1..]);
        assert!(on_board || v == "pass", "a move on the empty 5x5 board: {v:?}");
    }
    for i in [2, 3] {
        assert!(r[i].starts_with("? the loaded net plays only ttakji,size=5"), "reply {i}: {r:?}");
    }
    assert!(r[4].contains("turn 1") && r[4].contains("    A B C D E\n"), "state kept: {:?}", r[4]);
    assert!(r[4].contains(" 5 ") && !r[4].contains(" 7 "), "still 5x5: {:?}", r[4]);
    assert_eq!(r[5], "=", "other komi, same game: {r:?}");
    assert_eq!(r[7], "=", "the net's own size: {r:?}");

    // A checkpoint for other rules, and a damaged one, stop the engine before it starts.
    let run = |rules: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_hane"))
            .args(["gtp", "--rules", rules, "--model", m])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run("ttakji,size=7");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(m) && err.contains("the net plays ttakji,size=5"), "{err}");
    std::fs::write(&model, b"\x08\0\0\0\0\0\0\0{garbage}").unwrap();
    let (code, err) = run("ttakji,size=5");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(m) && err.contains("not a valid checkpoint"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
