//! `hane komi --book-expansions`: the curve, then a book with the same net at the curve's
//! fair komi (and at the book's own where its margin rounds to another), reported beside it
//! with the verdict.

mod common;
mod run;

use run::hane;

/// `hane komi` on 5x5 Go with `model`, no sweep, into `out`, with `extra` arguments.
fn komi_args<'a>(model: &'a std::path::Path, out: &'a std::path::Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["komi", "--rules", "ttakji", "--size", "5", "--sweep-games", "0"];
    args.extend(["--model", model.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    args.extend(extra);
    args
}

#[test]
fn hane_komi_reports_a_book_beside_the_curve() {
    let (dir, model) = common::tiny_model("komi-book");
    let out = dir.join("out");
    let extra = ["--visits", "8", "--book-expansions", "3", "--book-visits", "8"];
    let (code, stdout, stderr) = hane(&komi_args(&model, &out, &extra));
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

#[test]
fn the_curve_is_the_same_on_one_thread_and_on_two() {
    let (dir, model) = common::tiny_model("komi-threads");
    let curve = |threads: &str| {
        let out = dir.join(format!("out-{threads}"));
        let (code, _, stderr) = hane(&komi_args(&model, &out, &["--visits", "16", "--threads", threads]));
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("komi.json")).unwrap()).unwrap();
        // Each komi value searched is logged once, the estimate's and the curve's.
        let logged: Vec<&str> = stderr.lines().filter(|l| l.starts_with("komi ")).collect();
        let distinct: std::collections::BTreeSet<&str> = logged.iter().copied().collect();
        assert_eq!(logged.len(), distinct.len(), "{stderr}");
        (report["estimate"].clone(), report["curve"].clone())
    };
    let one = curve("1");
    assert!(one.1.as_array().is_some_and(|c| c.len() >= 5), "{one:?}");
    assert_eq!(curve("2"), one);
    let (code, _, stderr) = hane(&["komi", "--evaluator", "rollout", "--threads", "0", "--out", "x"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--threads = 0: allowed 1..=1024"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
