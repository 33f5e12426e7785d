//! Books built with a net-free evaluator on boards the exact solver settles: the root's
//! minimax margin must equal the solver's, and a saved book must resume and refuse a wrong
//! or damaged file.

use hane_book::{Book, BookError, Builder, Event, Figure, Setter, Settings};
use hane_engine::GameState;
use hane_engine::Rules;
use hane_host::Stop;
use hane_mcts::{Evaluator, RolloutEvaluator};
use hane_solver::{solve, SolveOptions};

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
    let stop = Stop::default();
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
fn searches_too_small_to_visit_a_move_still_prove_only_the_true_margin() {
    // One visit re-searches only evaluate the root: the node keeps an estimate of the moves
    // left out whose bracket spans every score, and is proven only once every move is in the book.
    let rules: Rules = "ttakji,size=3,komi=7".parse().unwrap();
    let mut book = Book::new(&rules, "rollouts");
    let mut s = settings(3, 4);
    (s.visits, s.revisit) = (2, 1);
    assert!(grow(&mut book, &s, 2000));
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

#[test]
fn the_book_move_follows_the_game_in_any_of_its_symmetric_frames() {
    use hane_engine::symmetry::Symmetry;
    use hane_engine::Game;
    let rules: Rules = "ttakji,size=5,komi=24".parse().unwrap();
    let mut book = Book::new(&rules, "rollouts");
    assert!(grow(&mut book, &settings(5, u32::MAX), 12));
    let geo = book.nodes[0].state.geo();
    let mut checked = 0;
    for (i, n) in book.nodes.iter().enumerate() {
        let Some(best) = book.best_move(i as u32) else { continue };
        let after = |line: &[hane_engine::Action]| {
            let mut g = hane_engine::GameState::new(rules);
            for &a in line {
                g.play(a).unwrap();
            }
            g
        };
        for s in Symmetry::ALL {
            // The game reached the node by the image of its line: the book's move is the
            // image of the node's move, up to the position's own symmetries (the same
            // stones after it).
            let line: Vec<_> = n.moves.iter().map(|&a| s.apply_action(geo, a)).collect();
            let got = book.book_move(&line).unwrap();
            let mut with = line.clone();
            with.push(got);
            let mut want = line.clone();
            want.push(s.apply_action(geo, best));
            let (a, b) = (after(&with), after(&want));
            let images: Vec<u64> = Symmetry::ALL.iter().map(|t| t.apply_board(a.board()).hash()).collect();
            assert!(images.contains(&b.board().hash()), "node {i}, symmetry {s:?}");
            checked += 1;
        }
    }
    assert!(checked >= 16, "{checked}");
}

#[test]
fn refinement_searches_the_estimates_that_set_the_margin_and_bracket_again_until_all_are_deep() {
    let rules: Rules = "ttakji,size=4,komi=2".parse().unwrap();
    let mut plain = Book::new(&rules, "rollouts");
    let s = settings(4, u32::MAX);
    assert!(grow(&mut plain, &s, 12));
    // Grown to the same expansions with a refinement pass at every twentieth of the last
    // quarter of them, with one thread and with two (two refinements at once).
    let refined_book = |threads: usize| {
        let s = Settings { refine_visits: 400, threads, ..s.clone() };
        let mut book = Book::new(&rules, "rollouts");
        let stop = Stop::default();
        let factory = || -> Box<dyn Evaluator<GameState>> { Box::new(RolloutEvaluator::new(3)) };
        let mut refined = Vec::new();
        let done = Builder::new(s)
            .grow(&mut book, &factory, 12, &stop, &mut |e: &Event| {
                if let Event::Refined(r) = e {
                    refined.push(r.clone());
                }
            })
            .unwrap();
        assert!(done, "{threads} threads");
        (book, refined)
    };
    let one = refined_book(1);
    // One thread refines in one order: the same book and refinements on every run.
    let again = refined_book(1);
    assert_eq!(one.1, again.1);
    assert_eq!(one.0.root(), again.0.root());
    for (threads, (mut book, refined)) in [(1, one), (2, refined_book(2))] {
        assert!(!refined.is_empty(), "{threads} threads");
        assert_eq!(book.expansions, 12);
        assert!(book.evaluations >= plain.evaluations + 100 * refined.len() as u64, "{threads} threads");
        // The margin and both ends now come from estimates of at least a quarter of the visits
        // at their best move, and the root's figures are the ones they back up to.
        for figure in [Figure::Margin, Figure::Lower, Figure::Upper, Figure::MainLower, Figure::MainUpper] {
            let src = book.source(figure).unwrap();
            match src.setter {
                Setter::Estimate(e) => assert!(e.visits >= 100, "{threads} threads, {figure:?}: {e:?}"),
                Setter::Exact(_) => {}
            }
        }
        let root = *book.root();
        book.recompute();
        assert_eq!(root, *book.root());
    }
}
