//! Absurd numbers in a config file or on the command line are refused before any work starts:
//! exit code 2 and a message naming the key, never an abort, a hang or memory growing without
//! end. Every numeric key of `[selfplay]`, `[train]` (with `[train.net]` and
//! `[train.loss_weights]`) and `[loop]` is tried at an absurd value through `hane selfplay`,
//! which loads and checks the whole file before it plays anything.

mod run;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

/// (table, key, absurd value).
const CASES: &[(&str, &str, &str)] = &[
    ("selfplay", "threads", "1000000000000"),
    ("selfplay", "inference_threads", "100000"),
    ("selfplay", "games_in_flight", "100000"),
    ("selfplay", "batch_size", "1000000000000"),
    ("selfplay", "leaves_per_game", "100000"),
    ("selfplay", "full_visits", "4000000000"),
    ("selfplay", "fast_visits", "0"),
    ("selfplay", "p_full", "2.0"),
    ("selfplay", "start_prob", "2.0"),
    ("selfplay", "resign_threshold", "nan"),
    ("selfplay", "resign_turns", "4000000000"),
    ("selfplay", "resign_playthrough", "-1.0"),
    ("selfplay", "komi_stdev", "inf"),
    ("selfplay", "komi_wide", "1.5"),
    ("selfplay", "opening_moves", "1e9"),
    ("selfplay", "fork_prob", "nan"),
    ("selfplay", "temperature_early", "1e30"),
    ("selfplay", "temperature_late", "-inf"),
    ("selfplay", "temperature_halflife", "1e9"),
    ("selfplay", "score_utility", "nan"),
    ("selfplay", "value_search_mix", "2.0"),
    ("selfplay", "surprise_weight", "2.0"),
    ("selfplay", "exploration_cut", "2.0"),
    ("selfplay", "prior_temperature_early", "0.0"),
    ("selfplay", "prior_temperature_late", "nan"),
    ("selfplay", "max_turns", "4000000000"),
    ("selfplay", "pack_rows", "100000000"),
    ("selfplay", "seed", "-1"),
    ("train", "steps", "10000000000000"),
    ("train", "sizes", "[1, 9]"),
    ("train", "batch_size", "1000000000000"),
    ("train", "lr", "nan"),
    ("train", "warmup_steps", "10000000000000"),
    ("train", "lr_milestones", "[10, 10000000000000]"),
    ("train", "lr_gamma", "-1.0"),
    ("train", "lr_final_fraction", "2.0"),
    ("train", "momentum", "1.0"),
    ("train", "adam_betas", "[1.5, 0.999]"),
    ("train", "adam_eps", "0.0"),
    ("train", "weight_decay", "nan"),
    ("train", "grad_clip", "inf"),
    ("train", "window_min_rows", "0"),
    ("train", "window_exponent", "0.0"),
    ("train", "window_growth", "inf"),
    ("train", "shuffle_rows", "1000000000000"),
    ("train", "rescan_secs", "-1.0"),
    ("train", "checkpoint_every", "0"),
    ("train", "keep_checkpoints", "0"),
    ("train", "log_every", "0"),
    ("train", "histogram_every", "10000000000000"),
    ("train", "seed", "-1"),
    ("train", "threads", "100000"),
    ("train.net", "blocks", "1000"),
    ("train.net", "channels", "100000"),
    ("train.net", "pool_channels", "0"),
    ("train.net", "head_channels", "100000"),
    ("train.net", "value_channels", "0"),
    ("train.net", "pool_every", "1000"),
    ("train.loss_weights", "policy", "nan"),
    ("train.loss_weights", "value", "inf"),
    ("train.loss_weights", "score", "-1.0"),
    ("train.loss_weights", "score_spread", "1e9"),
    ("train.loss_weights", "ownership", "nan"),
    ("loop", "generations", "0"),
    ("loop", "games", "1000000000000"),
    ("loop", "gate_games", "10000000"),
    ("loop", "gate_threshold", "nan"),
    ("loop", "gate_visits", "0"),
    ("loop", "size_weights", "[-1.0]"),
    ("loop", "gate_opening_turns", "1000000"),
    ("loop", "komi_visits", "4000000000"),
    ("loop", "samples_per_row", "inf"),
    ("loop", "anchor_games", "10000000"),
    ("loop", "anchor_every", "0"),
    ("loop", "anchor_visits", "4000000000"),
    ("loop", "anchor_gnugo_level", "11"),
    ("loop", "anchor_opening_turns", "1000000"),
    ("loop", "anchor_komi", "0.3"),
    ("loop", "judge_positions", "1000000"),
    ("loop", "book_expansions", "100000000"),
    ("loop", "book_visits", "0"),
    ("loop", "book_refine_visits", "4000000000"),
    ("loop", "book_komi", "0.3"),
    ("loop", "book_average_nets", "0"),
    ("loop", "book_every", "1000000"),
    ("loop", "book_start_prob", "nan"),
    ("loop", "exploration_cut_from", "100000000"),
];

/// The `[loop]` keys that are unset by default, so absent from its serialised defaults.
const UNSET_LOOP_KEYS: &[&str] = &["anchor_gnugo_level", "anchor_komi", "book_komi"];

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("hane-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn hane(args: &[&str]) -> Output {
    run::output(args)
}

/// `hane selfplay` on the config `path`, which must be refused.
fn selfplay(path: &Path, out: &Path) -> Output {
    hane(&["selfplay", "--config", path.to_str().unwrap(), "--games", "1", "--out", out.to_str().unwrap()])
}

/// Asserts exit code 2 and a message on stderr containing every one of `words`.
fn refused(o: &Output, words: &[&str], what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    for w in words {
        assert!(err.contains(w), "{what}: the message does not name {w:?}: {err}");
    }
}

/// `prefix.key` for every number (or list of numbers) in `v`, nested tables included.
fn numeric_keys(prefix: &str, v: &serde_json::Value, out: &mut Vec<String>) {
    for (k, x) in v.as_object().unwrap() {
        let is_number = |x: &serde_json::Value| x.is_number();
        match x {
            serde_json::Value::Object(_) => numeric_keys(&format!("{prefix}.{k}"), x, out),
            serde_json::Value::Array(a) if a.iter().all(is_number) => out.push(format!("{prefix}.{k}")),
            x if is_number(x) => out.push(format!("{prefix}.{k}")),
            _ => {}
        }
    }
}

#[test]
fn every_numeric_key_has_an_absurd_case() {
    let mut keys = Vec::new();
    numeric_keys(
        "selfplay",
        &serde_json::to_value(hane_selfplay::SelfplayConfig::default()).unwrap(),
        &mut keys,
    );
    numeric_keys("train", &serde_json::to_value(hane_train::TrainConfig::default()).unwrap(), &mut keys);
    numeric_keys("loop", &serde_json::to_value(hane_pipeline::LoopConfig::default()).unwrap(), &mut keys);
    keys.extend(UNSET_LOOP_KEYS.iter().map(|k| format!("loop.{k}")));
    let cases: Vec<String> = CASES.iter().map(|(t, k, _)| format!("{t}.{k}")).collect();
    for k in &keys {
        assert!(cases.contains(k), "no absurd case for {k}");
    }
    assert_eq!(cases.len(), keys.len(), "a case for a key that does not exist");
}

#[test]
fn absurd_config_values_are_refused_with_the_key_named() {
    let tmp = TempDir::new("config-limits");
    let out = tmp.0.join("out");
    for (i, (table, key, value)) in CASES.iter().enumerate() {
        let path = tmp.0.join(format!("c{i}.toml"));
        std::fs::write(&path, format!("[{table}]\n{key} = {value}\n")).unwrap();
        let o = selfplay(&path, &out);
        refused(&o, &[key], &format!("[{table}] {key} = {value}"));
    }
    assert!(!out.exists(), "nothing was played");
}

#[test]
fn an_endless_or_huge_config_file_is_refused_fast() {
    let tmp = TempDir::new("config-size");
    let t = Instant::now();
    let o = selfplay(Path::new("/dev/zero"), &tmp.0.join("out"));
    refused(&o, &["/dev/zero", "larger than"], "/dev/zero");
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    let big = tmp.0.join("big.toml");
    std::fs::write(&big, format!("[selfplay]\n{}", "# padding\n".repeat(200_000))).unwrap();
    refused(&selfplay(&big, &tmp.0.join("out")), &["larger than"], "a 2 MB config");
}

#[test]
fn a_rule_given_twice_is_refused() {
    let tmp = TempDir::new("config-rules");
    let path = tmp.0.join("twice.toml");
    std::fs::write(&path, "[selfplay]\nrules = \"ttakji,size=5,size=6\"\n").unwrap();
    refused(&selfplay(&path, &tmp.0.join("out")), &["rules", "\"size\" given twice"], "size twice");
    let o = hane(&["match", "--rules", "ttakji,komi=1,komi=2", "--a", "uniform", "--b", "uniform"]);
    refused(&o, &["--rules", "\"komi\" given twice"], "komi twice");
}

#[test]
fn absurd_sizes_on_the_command_line_are_refused() {
    let tmp = TempDir::new("arg-limits");
    let out = tmp.0.join("out");
    let (cfg, out) =
        (concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/ttakji-5x5.toml"), out.to_str().unwrap());
    let m = ["match", "--rules", "ttakji,size=5", "--a", "uniform", "--b", "uniform"];
    let k = ["komi", "--rules", "ttakji,size=5", "--evaluator", "rollout", "--out", out];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["selfplay", "--config", cfg, "--out", out, "--games", "1000000000000"], "--games"),
        ([&m[..], &["--games", "1000000000"]].concat(), "--games"),
        ([&m[..], &["--visits", "4000000000"]].concat(), "--visits"),
        ([&m[..], &["--opening-turns", "4000000000"]].concat(), "--opening-turns"),
        ([&k[..], &["--visits", "4000000000"]].concat(), "--visits"),
        ([&k[..], &["--sweep-games", "4000000000"]].concat(), "--sweep-games"),
        ([&k[..], &["--sweep-visits", "4000000000"]].concat(), "--sweep-visits"),
        (vec!["solve", "--rules", "ttakji,size=3", "--table-bits", "60"], "--table-bits"),
        (vec!["gtp", "--visits", "4000000000"], "--visits"),
        (vec!["play", "--rules", "ttakji,size=5", "--visits", "0"], "--visits"),
    ];
    for (args, flag) in cases {
        refused(&hane(&args), &[flag], &args.join(" "));
    }
    assert!(!Path::new(out).exists(), "nothing was played");
}

#[test]
fn an_unknown_precision_is_refused_with_the_values_allowed() {
    let tmp = TempDir::new("precision");
    let path = tmp.0.join("fp16.toml");
    std::fs::write(&path, "[selfplay]\nprecision = \"fp16\"\n").unwrap();
    let allowed = "allowed fp32, bf16, auto";
    refused(&selfplay(&path, &tmp.0.join("out")), &["precision", "fp16", allowed], "[selfplay] precision");
    refused(&hane(&["gtp", "--precision", "fp16"]), &["--precision", "fp16", allowed], "gtp --precision");
    let m = ["match", "--rules", "ttakji,size=5", "--a", "uniform", "--b", "uniform", "--precision", "half"];
    refused(&hane(&m), &["--precision", "half", allowed], "match --precision");
    assert!(!tmp.0.join("out").exists(), "nothing was played");
}
