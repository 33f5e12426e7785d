//! `hane loop` with `book_expansions`: a tiny 3x3 run continued with the book turned on
//! builds a minimax book with its best net once the generations are done, writes the book,
//! its SGF tree and its report into `book/`, and a rerun with more expansions grows it.

mod common;
mod run;

use run::hane;

fn config(expansions: u32) -> String {
    common::tiny_loop(1, &format!("book_expansions = {expansions}\nbook_visits = 16\nbook_komi = 9\n"))
}

#[test]
fn the_loop_builds_a_book_with_its_best_net() {
    let dir = std::env::temp_dir().join(format!("hane-loop-book-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cfg, out) = (dir.join("cfg.toml"), dir.join("run"));
    let hane_loop = |expansions| {
        std::fs::write(&cfg, config(expansions)).unwrap();
        hane(&["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()])
    };
    let (code, stdout, stderr) = hane_loop(0);
    assert_eq!(code, 0, "{stderr}");
    assert!(!out.join("book").exists() && !stdout.contains("the book"), "{stdout}");
    let (code, stdout, stderr) = hane_loop(4);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("== the book: 4 expansions with models/gen-000.safetensors at komi 9"),
        "{stdout}"
    );
    assert!(stdout.contains("komi 9: Black's margin"), "{stdout}");
    assert!(stdout.contains("fair komi "), "{stdout}");
    let stem = out.join("book/models-gen-000-komi9");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).unwrap()).unwrap();
    assert_eq!(report["expansions"], 4, "{report}");
    assert!(std::fs::read_to_string(stem.with_extension("sgf")).unwrap().starts_with("(;GM[1]"));
    // More expansions: the same book grows.
    let (code, stdout, stderr) = hane_loop(6);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("book: continuing"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).unwrap()).unwrap();
    assert_eq!(report["expansions"], 6, "{report}");
    // One generation more, the book's net the mean of the last two, and a cross-check: a new
    // book of that net, and one at the komi next to 9 that its margin leans to.
    let more = "book_average_nets = 2\nbook_cross_check = true\n";
    std::fs::write(&cfg, config(4).replace("generations = 1", "generations = 2") + more).unwrap();
    let (code, stdout, stderr) =
        hane(&["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let mean = "models/mean-gen-000-to-gen-001.safetensors";
    assert!(
        stdout.contains(&format!("book: its net is {mean}, the mean of the last 2 accepted nets")),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("== the book: 4 expansions with {mean} at komi 9")), "{stdout}");
    assert!(out.join(mean).exists() && out.join("book/models-mean-gen-000-to-gen-001-komi9.json").exists());
    let next =
        ["8", "10"].into_iter().find(|k| stdout.contains(&format!("leans towards komi {k}: a book there")));
    let next = next.unwrap_or_else(|| panic!("no cross-check book: {stdout}"));
    assert!(out.join(format!("book/models-mean-gen-000-to-gen-001-komi{next}.json")).exists());
    assert!(stdout.contains(&format!("the book at komi {next} reads")), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_book_every_generation_feeds_the_next_generations_self_play() {
    let dir = std::env::temp_dir().join(format!("hane-loop-book-every-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (cfg, out) = (dir.join("cfg.toml"), dir.join("run"));
    let text =
        config(4).replace("generations = 1", "generations = 3") + "book_every = 1\nbook_start_prob = 0.5\n";
    std::fs::write(&cfg, text).unwrap();
    let (code, stdout, stderr) =
        hane(&["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    // Books after generations 0 and 1 (the last one's is the run's final book).
    for g in ["gen-000", "gen-001"] {
        let starts = out.join(format!("book/starts-after-{g}.json"));
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&starts).unwrap()).unwrap();
        assert!(!file["positions"].as_array().unwrap().is_empty(), "{file}");
    }
    assert!(!out.join("book/starts-after-gen-002.json").exists());
    assert!(stdout.contains("self-play: 0.5 of the games from the book's positions"), "{stdout}");
    // Another book_every on a continued run is refused.
    std::fs::write(&cfg, config(4).replace("generations = 1", "generations = 3") + "book_every = 2\n")
        .unwrap();
    let (code, _, stderr) =
        hane(&["loop", "--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
