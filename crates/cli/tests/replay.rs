//! `hane replay` end to end: JSON shape, legality, exit codes.

mod run;

use run::hane;

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = hane(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

#[test]
fn superko_sequence_is_refused_under_ttakji_and_allowed_under_brainking() {
    let moves = ["A2", "B1", "B2", "C2", "B3", "D1", "A3", "A1", "C1"];
    let mut args = vec!["replay", "--rules", "ttakji", "--size", "9"];
    args.extend(moves);
    let v = json(&args);
    assert_eq!(v["to_move"], "w");
    let legal: Vec<&str> = v["legal"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert!(!legal.contains(&"B1"), "B1 recreates the position after B B2");
    assert_eq!(legal.last(), Some(&"pass"));
    args.push("B1");
    let (code, _, err) = hane(&args);
    assert_eq!(code, 2);
    assert!(err.contains("move 10") && err.contains("superko"), "{err}");
    args[2] = "brainking";
    let v = json(&args);
    assert_eq!(v["board"][8], ".O.O.....", "B1 recaptured C1, back to the position after move 7");
}

#[test]
fn json_shape_and_final_score() {
    let v = json(&["replay", "--rules", "ttakji", "--size", "5", "--komi", "0.5", "C3", "pass", "pass"]);
    assert_eq!(v["over"], true);
    assert_eq!(v["board"].as_array().unwrap().len(), 5);
    assert_eq!(v["board"][2], "..X..");
    assert_eq!(v["score"]["black"], 25.0);
    assert_eq!(v["score"]["white"], 0.5);
    assert_eq!(v["score"]["winner"], "b");
    assert_eq!(v["legal"].as_array().unwrap().len(), 0);
}

#[test]
fn sligo_turns_use_slide_notation() {
    let v = json(&["replay", "--rules", "sligo", "--size", "5", "C3", "D4", "C3>B4+B3"]);
    assert_eq!(v["board"][1], ".X.O.");
    assert_eq!(v["board"][2], ".X...");
    let legal = v["legal"].as_array().unwrap();
    assert!(legal.iter().any(|m| m.as_str().unwrap().contains('>')));
    let (code, _, err) = hane(&["replay", "--rules", "sligo", "--size", "5", "C3", "D4", "C3>B4+C3"]);
    assert_eq!(code, 2, "placing on the vacated point is the plain placement B4: a weak pair");
    assert!(err.contains("move 3") && err.contains("weak pair"), "{err}");
}

#[test]
fn bad_input_is_a_clear_error() {
    for (args, needle) in [
        (vec!["replay", "--size", "9", "Z9"], "move 1"),
        (vec!["replay", "--size", "9", "E5", "E5"], "occupied"),
        (vec!["replay", "--rules", "loose", "--size", "8"], "odd"),
        (vec!["replay", "--rules", "loose", "--size", "9", "--komi", "3"], "even"),
        (vec!["replay", "--rules", "nonsense"], "unknown rule set"),
        (vec!["replay", "--sgf", "/nonexistent.sgf"], "cannot read"),
    ] {
        let (code, _, err) = hane(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn sgf_files_replay() {
    let dir = std::env::temp_dir().join(format!("hane-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.sgf");
    std::fs::write(&good, "(;GM[1]FF[4]SZ[5]KM[0.5]RU[ttakji];B[cc];W[dd])").unwrap();
    let v = json(&["replay", "--sgf", good.to_str().unwrap()]);
    assert_eq!(v["board"][2], "..X..");
    assert_eq!(v["board"][3], "...O.");
    let bad = dir.join("bad.sgf");
    std::fs::write(&bad, "(;GM[1]SZ[5];B[cc];W[cc])").unwrap();
    let (code, _, err) = hane(&["replay", "--sgf", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
