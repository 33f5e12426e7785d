//! `hane play` driven through stdin: boards, bad input, undo, the end of a game.

mod common;

use common::{spawn_piped, tiny_model};
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The position displays in `out` (board, turn line, score line), in order.
fn boards(out: &str) -> Vec<String> {
    out.split("\n\n")
        .filter(|b| b.contains("    A B C D E"))
        .map(|b| b.lines().take_while(|l| !l.contains("> ")).collect::<Vec<_>>().join("\n"))
        .collect()
}

/// The rows of a drawn board as `replay` prints them (`.X.O.`).
fn rows(board: &str) -> Vec<String> {
    board
        .lines()
        .filter(|l| l.starts_with(|c: char| c == ' ' || c.is_ascii_digit()) && !l.trim().starts_with('A'))
        .map(|l| l[3..].chars().filter(|c| !c.is_whitespace()).collect())
        .collect()
}

/// hane's turn announced in `out`.
fn reply(out: &str) -> String {
    let line =
        out.lines().find_map(|l| l.split_once(") plays ")).unwrap_or_else(|| panic!("no reply: {out}"));
    line.1.to_string()
}

/// `hane replay` of `turns`: the board rows and the legal turns.
fn replay(rules: &str, turns: &[&str]) -> (Vec<String>, Vec<String>) {
    let out = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["replay", "--rules", rules])
        .args(turns)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let strings = |k: &str| {
        v[k].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect::<Vec<_>>()
    };
    (strings("board"), strings("legal"))
}

#[test]
fn ttakji_game_with_a_net_bad_move_and_undo_runs_to_the_turn_cap() {
    let (dir, model) = tiny_model("play-model");
    let mut child = spawn_piped(&[
        "play",
        "--rules",
        "ttakji,size=5,cap=6",
        "--visits",
        "16",
        "--model",
        model.to_str().unwrap(),
    ]);
    // Turn 3 and later are passes, so the game is over by turn 6 (the cap) at the latest.
    let script = "C3\nC3\nundo\nhelp\nB2\npass\npass\npass\nquit\n";
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(out.status.success());
    let out = String::from_utf8(out.stdout).unwrap();
    let b = boards(&out);
    assert!(b.len() >= 4, "{out}");
    assert!(b[0].contains(" 3  . . . . .") && b[0].contains("Black to move, turn 0"), "{}", b[0]);
    assert!(b[0].contains("If the game ended now: Black 0, White 7: White wins by 7"), "{}", b[0]);
    assert_eq!(&rows(&b[1])[2][2..3], "X", "C3: {}", b[1]);
    assert!(b[1].contains("Black to move, turn 2"), "{}", b[1]);
    assert!(out.contains("error: C3 is occupied"), "{out}");
    assert_eq!(b[2], b[0], "undo takes back C3 and hane's reply");
    assert!(out.contains("undo       take back your last turn"), "help: {out}");
    assert_eq!(&rows(&b[3])[3][1..2], "X", "B2: {}", b[3]);
    assert!(out.contains("Game over. Final score: Black "), "{out}");
    assert!(!out.contains("Game stopped"), "the game ends before quit: {out}");
}

/// A running `hane play` read up to each prompt.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = spawn_piped(&[&["play"], args].concat());
        let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        Session { child, stdin, stdout }
    }

    /// The output up to the next prompt, or to the end.
    fn read(&mut self) -> String {
        let mut out = Vec::new();
        let mut byte = [0u8];
        while !out.ends_with(b"> ") && self.stdout.read(&mut byte).unwrap() == 1 {
            out.push(byte[0]);
        }
        String::from_utf8(out).unwrap()
    }

    /// Sends one line; the output up to the next prompt.
    fn send(&mut self, line: &str) -> String {
        writeln!(self.stdin, "{line}").unwrap();
        self.read()
    }
}

#[test]
fn sligo_game_with_a_slide_bad_input_undo_and_quit() {
    let rules = "sligo,size=5";
    let mut s = Session::start(&["--rules", rules, "--visits", "16"]);
    let start = s.read();
    assert!(boards(&start)[0].contains("Black to move, turn 0, rules sligo,size=5"), "{start}");
    assert!(start.ends_with("black> "), "{start}");

    let out = s.send("C3");
    let r1 = reply(&out);
    let b1 = boards(&out).remove(0);
    assert_eq!(rows(&b1), replay(rules, &["C3", &r1]).0, "{b1}");

    let out = s.send("C3>C4");
    assert!(out.contains("error: a slide must be followed by +PLACE"), "{out}");
    assert!(boards(&out).is_empty(), "no new position after bad input: {out}");
    let out = s.send("Z9");
    assert!(out.contains("error: not a vertex on this board"), "{out}");
    let out = s.send("help");
    assert!(out.contains("E5>F6+D4   slide your stone"), "{out}");

    let (_, legal) = replay(rules, &["C3", &r1]);
    let slide = legal.iter().find(|t| t.starts_with("C3>")).expect("C3 can slide");
    let out = s.send(slide);
    let r2 = reply(&out);
    let b2 = boards(&out).remove(0);
    assert_eq!(rows(&b2), replay(rules, &["C3", &r1, slide, &r2]).0, "after {slide}: {b2}");
    assert!(b2.contains("Black to move, turn 4"), "{b2}");

    let out = s.send("undo");
    assert!(out.contains("Took back your last turn."), "{out}");
    assert_eq!(boards(&out), [b1], "undo restores the position before {slide}");

    let out = s.send("quit");
    assert!(out.contains("Game stopped at turn 2. Final score: Black "), "{out}");
    assert!(s.child.wait().unwrap().success());
}

#[test]
fn end_of_input_stops_and_bad_arguments_are_errors() {
    let out = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["play", "--rules", "loose,size=5", "--visits", "8", "--color", "w"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.contains("you are White") && out.contains("hane (Black) plays "), "{out}");
    assert!(out.contains("White to move, turn 1") && out.contains("white> "), "{out}");
    assert!(out.contains("Game stopped at turn 1. Final score: "), "{out}");
    for (args, needle) in [
        (vec!["--rules", "nonsense"], "--rules"),
        (vec!["--rules", "loose,size=5", "--color", "green"], "--color"),
        (vec!["--rules", "loose,size=5", "--visits", "0"], "--visits"),
        (vec!["--rules", "loose,size=5", "--model", "/nonexistent.safetensors"], "/nonexistent.safetensors"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_hane")).arg("play").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle) && !err.contains("panicked"), "{args:?}: {err}");
    }
}
