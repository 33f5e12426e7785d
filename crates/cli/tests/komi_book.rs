//! `hane komi --book-expansions`: the curve, then a book with the same net at the curve's
//! fair komi (and at the book's own where its margin rounds to another), reported beside it
//! with the verdict.

mod common;
mod run;

use run::hane;

#[test]
fn hane_komi_reports_a_book_beside_the_curve() {
    let (dir, model) = common::tiny_model("komi-book");
    let out = dir.join("out");
    let args = [
        "komi",
        "--rules",
        "ttakji",
        "--size",
        "5",
        "--model",
        model.to_str().unwrap(),
        "--visits",
        "8",
        "--sweep-games",
        "0",
        "--out",
        out.to_str().unwrap(),
        "--book-expansions",
        "3",
        "--book-visits",
        "8",
    ];
    let (code, stdout, stderr) = hane(&args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("expansions") && stdout.contains("Black's margin"), "{stdout}");
    assert!(stdout.contains("fair komi "), "{stdout}");
    // An unproven book names where its margin and each end of its bracket come from.
    for figure in ["the margin comes from ", "the bracket's lower end from ", "its upper end from "] {
        assert!(stdout.contains(figure), "{figure}: {stdout}");
    }
    let books: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "book"))
        .collect();
    // A second book where the first one's margin rounds to another komi, and only then.
    let second = stdout.contains("a second book at komi ");
    assert_eq!(books.len(), 1 + usize::from(second), "{books:?}: {stdout}");
    assert!(std::fs::read(out.join("komi.png")).unwrap().starts_with(b"\x89PNG"));
    std::fs::remove_dir_all(&dir).unwrap();
}
