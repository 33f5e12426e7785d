//! `hane book` from the command line: a 3x3 book proves the solver's margin; a book killed
//! with SIGKILL continues with the same command, nothing saved lost; a book file of another
//! komi, or a damaged one, is refused with exit code 2.

mod run;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// 3x3 Go at komi 9, the 3x3 book's rules.
const RULES_3X3: [&str; 6] = ["--rules", "ttakji", "--size", "3", "--komi", "9"];

fn hane(args: &[&str]) -> Output {
    run::output(args)
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn a_3x3_book_proves_black_wins_by_nine() {
    let dir = std::env::temp_dir().join(format!("hane-book-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let book = dir.join("b3.book");
    let sgf = dir.join("b3.sgf");
    let starts = dir.join("starts.json");
    let o = hane(
        &[
            &["book"][..],
            &RULES_3X3,
            &[
                "--evaluator",
                "rollout",
                "--out",
                book.to_str().unwrap(),
                "--expansions",
                "500",
                "--visits",
                "32",
                "--solve-from-ply",
                "4",
                "--sgf",
                sgf.to_str().unwrap(),
                "--starts",
                starts.to_str().unwrap(),
            ][..],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("komi 9: Black's margin +9.0 (proven)"), "{out}");
    assert!(out.contains("main line: B2"), "{out}");
    // The start positions read back for self-play: every one legal, the root's hint B2.
    let rules: hane_engine::Rules = "ttakji,size=3".parse().unwrap();
    let read = hane_selfplay::starts::Starts::read(&starts, &rules).unwrap();
    assert!(out.contains(&format!("{} start positions in", read.len())) && !read.is_empty(), "{out}");
    let root = read.draw(0.0);
    assert!(root.actions.is_empty(), "{root:?}");
    assert_eq!(root.hint.map(|a| a.name(hane_engine::GameState::new(rules).geo())).as_deref(), Some("B2"));
    // A match with the book: its player opens with the book's move.
    let o = hane(
        &[
            &["match"][..],
            &RULES_3X3,
            &[
                "--a",
                "rollout",
                "--b",
                "rollout",
                "--a-book",
                book.to_str().unwrap(),
                "--games",
                "2",
                "--visits",
                "8",
                "--opening-turns",
                "0",
            ][..],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("rollout/8 with a book"), "{}", text(&o));
    let tree = std::fs::read_to_string(&sgf).unwrap();
    assert!(tree.starts_with("(;GM[1]FF[4]") && tree.contains("SZ[3]KM[9]"), "{tree}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_book_continues_and_a_wrong_or_damaged_file_is_refused() {
    let dir = std::env::temp_dir().join(format!("hane-book-kill-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("b4.book");
    let p = path.to_str().unwrap();
    let args = |komi: &'static str, until: &'static str| {
        vec![
            "book",
            "--rules",
            "ttakji",
            "--size",
            "4",
            "--komi",
            komi,
            "--evaluator",
            "rollout",
            "--out",
            p,
            "--expansions",
            until,
            "--visits",
            "64",
            "--solve-nodes",
            "0",
        ]
    };
    let rules: hane_engine::Rules = "ttakji,size=4,komi=2".parse().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(args("2", "100000"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let saved = || hane_book::Book::open(&path, &rules, "rollouts").map_or(0, |b| b.expansions);
    while saved() < 3 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = hane_book::Book::open(&path, &rules, "rollouts").unwrap();
    assert!(before.expansions >= 3, "{}", before.expansions);
    let until = Box::leak((before.expansions + 2).to_string().into_boxed_str());
    let o = hane(&args("2", until));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains(&format!("continuing {p} ({} nodes", before.nodes.len())), "{}", text(&o));
    let after = hane_book::Book::open(&path, &rules, "rollouts").unwrap();
    assert_eq!(after.expansions, before.expansions + 2);
    // Every node kept: the first nodes are the old ones.
    for (a, b) in before.nodes.iter().zip(&after.nodes) {
        assert_eq!(a.key, b.key);
    }
    // Another komi: refused, naming it.
    let o = hane(&args("3", until));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("the book's komi is 2, this run's is 3"), "{}", text(&o));
    // Damaged: refused.
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let o = hane(&args("2", until));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a usable book"), "{}", text(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}
