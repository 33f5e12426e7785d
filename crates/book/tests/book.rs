//! Books built with a net-free evaluator on boards the exact solver settles: the root's
//! minimax margin must equal the solver's, and a saved book must resume and refuse a wrong
//! or damaged file.

use hane_book::{Book, BookError, Builder, Event, Settings};
use hane_engine::GameState;
use hane_engine::Rules;
use hane_mcts::{Evaluator, RolloutEvaluator};
use hane_solver::{solve, SolveOptions};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn settings(size: usize, solve_from_ply: u32) -> Settings {
    let mut s = Settings::for_board(size);
    s.visits = 48;
    s.revisit = 24;
    s.batch = 8;
    s.solve_from_ply = solve_from_ply;
    s.solve_nodes = 2_000_000;
    s
}

fn grow(book: &mut Book, s: &Settings, until: u64) -> bool {
    let stop = Arc::new(AtomicBool::new(false));
    let factory = || -> Box<dyn Evaluator<GameState>> { Box::new(RolloutEvaluator::new(3)) };
    Builder::new(s.clone()).run(book, &factory, until, &stop, &mut |_: &Event| {}).unwrap()
}

#[test]
fn a_3x3_book_proves_the_solvers_margin() {
    let rules: Rules = "ttakji,size=3,komi=7".parse().unwrap();
    let exact = solve(&rules, &SolveOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(exact.margin, 9);
    let mut book = Book::new(&rules, "rollouts");
    // The solver settles positions from ply 4 (after two moves): the book must expand every
    // legal move of the first two plies to prove the root.
    assert!(grow(&mut book, &settings(3, 4), 500));
    let fair = book.fair_komi();
    assert!(fair.proven, "{fair} after {} expansions", book.expansions);
    assert_eq!(fair.margin, 9.0);
    assert!(book.expansions > 4, "{}", book.expansions);
    let sgf = hane_book::sgf::write(&book, 6, 1000);
    assert!(sgf.starts_with("(;GM[1]") && sgf.contains(";B[bb]"), "{sgf}");
}

#[test]
fn two_expansion_threads_prove_the_same_margin() {
    let rules: Rules = "ttakji,size=3,komi=7".parse().unwrap();
    let mut book = Book::new(&rules, "rollouts");
    let mut s = settings(3, 4);
    s.threads = 2;
    assert!(grow(&mut book, &s, 500));
    let fair = book.fair_komi();
    assert!(fair.proven && fair.margin == 9.0, "{fair}");
}

#[test]
fn a_saved_book_resumes_and_a_wrong_or_damaged_one_is_refused() {
    let dir = std::env::temp_dir().join(format!("hane-book-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("book.hbk");
    let rules: Rules = "ttakji,size=4,komi=2".parse().unwrap();
    let mut s = settings(4, u32::MAX);
    s.save = Some(path.clone());
    let mut book = Book::open(&path, &rules, "rollouts").unwrap();
    assert!(grow(&mut book, &s, 6));
    // Reloaded: the same nodes, values and totals; continuing goes on from there.
    let mut again = Book::open(&path, &rules, "rollouts").unwrap();
    assert_eq!(again.nodes.len(), book.nodes.len());
    assert_eq!(again.expansions, 6);
    assert_eq!(again.root(), book.root());
    for (a, b) in again.nodes.iter().zip(&book.nodes) {
        assert_eq!(
            (a.key, &a.moves, a.own, a.exact, &a.children),
            (b.key, &b.moves, b.own, b.exact, &b.children)
        );
    }
    assert!(grow(&mut again, &s, 9));
    assert_eq!(Book::open(&path, &rules, "rollouts").unwrap().expansions, 9);
    // Another komi, another net: refused, the field named.
    let other: Rules = "ttakji,size=4,komi=3".parse().unwrap();
    let e = Book::open(&path, &other, "rollouts").unwrap_err();
    assert!(matches!(e, BookError::Mismatch { field: "komi", .. }), "{e}");
    let e = Book::open(&path, &rules, "net-b").unwrap_err();
    assert!(matches!(e, BookError::Mismatch { field: "net", .. }), "{e}");
    // One byte changed, or the file cut short: refused as damaged.
    let bytes = std::fs::read(&path).unwrap();
    let mut flipped = bytes.clone();
    let last = flipped.len() - 10;
    flipped[last] ^= 0x01;
    std::fs::write(&path, &flipped).unwrap();
    let e = Book::open(&path, &rules, "rollouts").unwrap_err();
    assert!(matches!(e, BookError::Damaged(..)), "{e}");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = Book::open(&path, &rules, "rollouts").unwrap_err();
    assert!(e.to_string().contains("cut short"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
