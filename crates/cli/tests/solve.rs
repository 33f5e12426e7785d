//! `hane solve` end to end: the exact result, with and without a guess, and bad input.

mod run;

use run::hane;

#[test]
fn a_guess_changes_nothing_but_the_time() {
    // 3x3 area Go is Black +9 (value 4 * 9 + tie): a right, a wrong and no guess agree.
    let dir = std::env::temp_dir().join(format!("hane-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut results = Vec::new();
    for (i, guess) in [None, Some("36"), Some("-20")].into_iter().enumerate() {
        let json = dir.join(format!("{i}.json"));
        let mut args = vec!["solve", "--rules", "ttakji", "--size", "3", "--json", json.to_str().unwrap()];
        if let Some(g) = guess {
            args.extend(["--guess", g]);
        }
        let (code, out, err) = hane(&args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Black wins by 9"), "{out}");
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        results.push((v["margin"].clone(), v["value"].clone(), v["best"].clone()));
    }
    assert!(results.iter().all(|r| *r == results[0]), "{results:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_first_moves_values_and_a_principal_variation_as_sgf() {
    let dir = std::env::temp_dir().join(format!("hane-solve-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sgf = dir.join("pv.sgf");
    let args =
        ["solve", "--rules", "loose", "--size", "3", "--no-save", "--values", "--sgf", sgf.to_str().unwrap()];
    let (code, out, err) = hane(&args);
    assert_eq!(code, 0, "{err}");
    // Loose 3x3: Black +8 from the centre or an edge, -8 from a corner or by passing.
    for line in ["B2  +8", "A2  +8 (C2 B3 B1)", "A1  -8 (C1 A3 C3)", "pass  -8", "principal variation: "] {
        assert!(out.contains(line), "{line:?} in {out}");
    }
    let game = hane_engine::sgf::SgfGame::parse(&std::fs::read_to_string(&sgf).unwrap()).unwrap();
    assert_eq!(game.result.as_deref(), Some("B+8"));
    let pv = out.lines().find_map(|l| l.strip_prefix("principal variation: ")).unwrap();
    assert_eq!(game.turns.len(), pv.split(' ').count(), "{pv}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_a_clear_error() {
    let (code, _, err) = hane(&["solve", "--rules", "ttakji", "--size", "3", "--guess", "many"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = hane(&["solve", "--rules", "ttakji", "--size", "9"]);
    assert_ne!(code, 0);
    assert!(err.contains("up to 6x6"), "{err}");
}

#[test]
fn sigint_stops_the_search_at_once() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["solve", "--rules", "ttakji", "--size", "5", "--table-bits", "16", "--no-save"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.starts_with("solving"), "{line}");
    // Well inside the first progress report's millions of nodes.
    std::thread::sleep(Duration::from_secs(1));
    let pid = child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let sent = Instant::now();
    let status = child.wait().unwrap();
    let took = sent.elapsed();
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut err, &mut rest);
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(took < Duration::from_secs(2), "stopping took {took:?}");
    assert!(rest.contains("interrupted"), "{rest}");
}

#[test]
fn a_stopped_solve_continues_and_a_damaged_save_is_refused() {
    // Sligo 3x3 (about 36,000 nodes) stopped by a node limit, as by Ctrl-C: the save is
    // continued by the same command, to the uninterrupted value; a damaged save is exit 2.
    let dir = std::env::temp_dir().join(format!("hane-solve-save-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let save = dir.join("sligo3.table");
    let save = save.to_str().unwrap();
    let base = ["solve", "--rules", "sligo", "--size", "3", "--table-bits", "16", "--save", save];
    let (code, _, err) = hane(&[&base[..], &["--node-limit", "10000"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("unsolved") && std::path::Path::new(save).exists(), "{err}");
    let good = std::fs::read(save).unwrap();
    let (code, out, err) = hane(&base);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("continuing the saved solve"), "{err}");
    assert!(out.contains("Black wins by 9"), "{out}");
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 4;
    std::fs::write(save, &bad).unwrap();
    let (code, _, err) = hane(&base);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("checksum") || err.contains("damaged"), "{err}");
    let (code, _, err) = hane(&["solve", "--rules", "ttakji", "--size", "3", "--save", save]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
