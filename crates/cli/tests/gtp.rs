//! `hane gtp` driven through a scripted session, bad input included.

use std::io::Write;
use std::process::{Command, Stdio};

fn session(script: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["gtp", "--visits", "16"])
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
