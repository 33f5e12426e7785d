//! Every wait on a GTP engine is bounded: an engine that never answers (`sleep`), never ends
//! its answer (`cat` echoes commands without GTP's blank line; `yes` writes without end), or
//! is waited on when a stop is requested, is killed with its whole process group, and a
//! referee's game records the forfeit of the engine that did not answer.

use hane_eval::arena::{run_match, MatchSettings};
use hane_eval::gtp::{GtpEngine, GtpError, GtpLimits};
use hane_eval::referee::{GtpPlayer, SearchPlayer};
use hane_host::Stop;
use hane_mcts::UniformEvaluator;
use std::time::{Duration, Instant};

fn limits(secs: f64) -> GtpLimits {
    GtpLimits { timeout: Duration::from_secs_f64(secs), stop: Stop::default() }
}

/// The live processes (ids) in process group `group`, read from `/proc` (a zombie is dead:
/// only its parent has not reaped it yet).
fn group_members(group: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { continue };
        // pid (comm) state ppid pgrp ...: the command may hold spaces, so split after ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && fields[0] != "Z" && fields[2].parse() == Ok(group) {
            out.push(e.file_name().to_string_lossy().parse().unwrap());
        }
    }
    out
}

/// A shell script in a temporary file that starts a child `sleep` and then sleeps itself:
/// an engine with a process of its own that a kill of the engine alone would leave behind.
fn sleeper_with_a_child() -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("hane-gtp-sleeper-{}.sh", std::process::id()));
    std::fs::write(&path, "#!/bin/sh\nsleep 1000 &\nsleep 1000\n").unwrap();
    path
}

#[test]
fn an_engine_that_never_answers_forfeits_and_is_killed_with_its_group() {
    let script = sleeper_with_a_child();
    let engine = GtpEngine::spawn_with(&format!("sh {}", script.display()), limits(1.0)).unwrap();
    let group = engine.pid().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(group_members(group).len(), 3, "the shell and its two sleeps");
    let mut silent = GtpPlayer { engine };
    let mut hane = SearchPlayer { evaluator: UniformEvaluator, visits: 2, seed: 1, label: "hane".into() };
    let rules = "ttakji,size=5".parse().unwrap();
    let settings = MatchSettings { games: 2, opening_turns: 0, seed: 1 };
    let start = Instant::now();
    let rep = run_match(&rules, &mut hane, &mut silent, &settings, &mut |_, _| {}).unwrap();
    // Two games of one second each: the engine is started again for the second.
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert_eq!((rep.a_results.wins, rep.a_results.losses), (2, 0));
    for g in &rep.games {
        let why = g.forfeit.as_deref().unwrap();
        assert!(why.contains("did not answer \"boardsize 5\" within 1 s"), "{why}");
        assert_eq!(g.turns, 0);
    }
    assert!(group_members(group).is_empty(), "left behind: {:?}", group_members(group));
    drop(silent);
    std::fs::remove_file(script).unwrap();
}

#[test]
fn an_answer_without_its_end_is_bounded() {
    // `cat` echoes the command and never writes the blank line that ends an answer.
    let mut cat = GtpEngine::spawn_with("cat", limits(0.5)).unwrap();
    let e = cat.send("boardsize 5").unwrap_err();
    assert!(matches!(&e, GtpError::Unresponsive(m) if m.contains("within 0.5 s")), "{e}");
    assert!(cat.pid().is_none());
    // `yes` writes lines without end: refused by their number, long before the time is up.
    let start = Instant::now();
    let mut yes = GtpEngine::spawn_with("yes", limits(30.0)).unwrap();
    let group = yes.pid().unwrap();
    let e = yes.send("boardsize 5").unwrap_err();
    assert!(matches!(&e, GtpError::Unresponsive(m) if m.contains("went on beyond")), "{e}");
    assert!(start.elapsed() < Duration::from_secs(5), "{:?}", start.elapsed());
    assert!(group_members(group).is_empty());
    // A line without end is bounded too.
    let mut zeros = GtpEngine::spawn_with("cat /dev/zero", limits(30.0)).unwrap();
    let e = zeros.send("boardsize 5").unwrap_err();
    assert!(matches!(&e, GtpError::Unresponsive(m) if m.contains("a line longer than")), "{e}");
}

#[test]
fn a_stop_request_ends_a_wait_at_once_and_kills_the_engine() {
    let stop = Stop::default();
    let limits = GtpLimits { timeout: Duration::from_secs(1000), stop: stop.clone() };
    let mut engine = GtpEngine::spawn_with("sleep 1000", limits).unwrap();
    let group = engine.pid().unwrap();
    let flag = stop.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        flag.request();
    });
    let start = Instant::now();
    assert_eq!(engine.send("genmove b"), Err(GtpError::Stopped));
    assert!(start.elapsed() < Duration::from_secs(1), "{:?}", start.elapsed());
    assert!(group_members(group).is_empty());
}

#[test]
fn an_engine_that_ignores_quit_is_killed_when_dropped() {
    let engine = GtpEngine::spawn_with("sleep 1000", limits(1.0)).unwrap();
    let group = engine.pid().unwrap();
    let start = Instant::now();
    drop(engine);
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert!(group_members(group).is_empty());
}
