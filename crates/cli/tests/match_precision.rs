//! `hane match` with a net against its own bf16 copy (`--b-precision`): the two show as
//! two players, the report records each one's precision, and a rerun in another precision
//! is refused rather than mixed into the games already played.

mod common;
mod run;

/// `hane ARGS...` through the shared runner (which rejects `Debug` dumps): exit code, stderr.
fn hane(args: &[&str]) -> (i32, String) {
    let (code, _, stderr) = run::hane(args);
    (code, stderr)
}

#[test]
fn a_net_plays_its_bf16_copy_and_the_report_keeps_both_precisions() {
    let (dir, model) = common::tiny_model("match-precision");
    let spec = format!("model:{}", model.to_str().unwrap());
    let json = dir.join("m.json");
    let run = |b_precision: &str| {
        let mut args = vec!["match", "--rules", "ttakji,size=5", "--a", &spec, "--b", &spec];
        args.extend(["--games", "2", "--visits", "4", "--json", json.to_str().unwrap()]);
        args.extend(["--b-precision", b_precision]);
        hane(&args)
    };
    let (code, err) = run("bf16");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(&format!("{spec} (bf16) (W)")), "the bf16 copy is named: {err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["args"]["a_precision"], "fp32");
    assert_eq!(report["args"]["b_precision"], "bf16");
    assert_eq!(report["games"].as_array().map(Vec::len), Some(2));

    // The finished match marked partial, then resumed in FP32: other games, refused.
    let mut partial = report.clone();
    partial["partial"] = true.into();
    partial["games"] = serde_json::json!([report["games"][0]]);
    std::fs::write(&json, partial.to_string()).unwrap();
    let (code, err) = run("fp32");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds another match"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
