//! End-to-end runs of the trainer on generated shards: it overfits a small fixed dataset,
//! its TensorBoard files read back with the Python `tensorboard` package, bad shards (damaged,
//! a FIFO, or holding NaN) are skipped or refused, and the benchmark runs.

mod common;

use common::{tiny, Temp};
use hane_data::shard;
use hane_engine::rng::Rng;
use hane_engine::Rules;
use hane_host::Stop;
use hane_train::synthetic::{game_rows, write_shards};
use hane_train::{bench, train, Progress, StepLog, TrainConfig, TrainError};
use std::path::{Path, PathBuf};
use std::process::Command;

fn logs(cfg: &TrainConfig, data: &Path, out: &Path) -> (Vec<StepLog>, Vec<String>) {
    let (mut logs, mut warnings) = (Vec::new(), Vec::new());
    train(cfg, data, out, Stop::default(), &mut |p| match p {
        Progress::Logged(l) => logs.push(l.clone()),
        Progress::Warning(w) => warnings.push(w.clone()),
        _ => {}
    })
    .unwrap();
    (logs, warnings)
}

#[test]
fn the_net_overfits_a_small_fixed_dataset() {
    let tmp = Temp::new("overfit");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let data = tmp.0.join("data");
    // Two games, 16 positions each: 32 rows, every head's target exactly representable
    // (one-hot policy and result, final area ownership).
    write_shards(&data, &rules, 2, 16, 5).unwrap();
    let cfg = TrainConfig {
        steps: 300,
        batch_size: 32,
        shuffle_rows: 32,
        augment: false,
        log_every: 1,
        histogram_every: 0,
        checkpoint_every: 1000,
        ..tiny("ttakji,size=5")
    };
    let (logs, _) = logs(&cfg, &data, &tmp.0.join("out"));
    let total = |l: &StepLog| l.get("loss/total").unwrap();
    let first = total(&logs[0]);
    let last = logs[logs.len() - 10..].iter().map(total).sum::<f64>() / 10.0;
    println!("overfit: total loss {first:.4} -> {last:.4} ({:.1}% lower)", 100.0 * (1.0 - last / first));
    assert!(last <= 0.1 * first, "loss fell from {first} to {last} only");
    assert!(logs.last().unwrap().get("metric/policy_top1").unwrap() > 0.95);
}

/// The venv's Python (`scripts/setup.sh`), with the `tensorboard` package that
/// `scripts/setup-tests.sh` adds.
fn python() -> PathBuf {
    let venv = std::env::var_os("VIRTUAL_ENV")
        .or_else(|| std::env::var_os("HANE_VENV"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/hane/venv"));
    venv.join("bin/python")
}

#[test]
fn tensorboard_reads_the_logged_scalars_and_histograms() {
    let tmp = Temp::new("tensorboard");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let data = tmp.0.join("data");
    write_shards(&data, &rules, 6, 20, 9).unwrap();
    let out = tmp.0.join("out");
    let cfg = TrainConfig { steps: 20, ..tiny("ttakji,size=5") };
    logs(&cfg, &data, &out);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/check_tensorboard.py");
    let mut cmd = Command::new(python());
    cmd.arg(script).arg(out.join("tensorboard"));
    for tag in
        hane_train::trainer::METRICS.iter().chain(&["train/lr", "train/samples_per_sec", "data/window_rows"])
    {
        cmd.args(["--scalar", tag]);
    }
    cmd.args(["--histogram", "weights/stem.conv.weight", "--histogram", "weights/value.wdl.bias"]);
    let res = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {:?} (run scripts/setup-tests.sh): {e}", python()));
    let text = String::from_utf8_lossy(&res.stdout);
    println!("{text}{}", String::from_utf8_lossy(&res.stderr));
    assert!(res.status.success(), "check_tensorboard.py failed");
    assert!(text.contains("scalar loss/policy: 4 points"));
}

#[test]
fn corrupt_shards_are_skipped_and_foreign_ones_refused() {
    let tmp = Temp::new("badshards");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let data = tmp.0.join("data");
    let paths = write_shards(&data, &rules, 3, 20, 3).unwrap();
    let mut bytes = std::fs::read(&paths[1]).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&paths[1], &bytes).unwrap();
    std::fs::write(data.join("garbage.npz"), b"not a zip at all").unwrap();
    // A FIFO without a writer: opening it would block the loader for ever.
    let made = Command::new("mkfifo").arg(data.join("x.npz")).status().unwrap();
    assert!(made.success());
    let cfg = TrainConfig { steps: 6, ..tiny("ttakji,size=5") };
    let (logs, warnings) = logs(&cfg, &data, &tmp.0.join("out"));
    assert_eq!(logs.last().unwrap().step, 6);
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("garbage.npz")));
    assert!(warnings
        .iter()
        .any(|w| w
            .ends_with("x.npz: not a valid shard: is a FIFO or pipe, and a shard must be a regular file")));

    // Another board size, another game, another encoder version: refused, with the reason.
    type Tweak = fn(&mut shard::ShardMeta);
    let cases: [(&str, Tweak, &str); 3] = [
        ("ttakji,size=7", |_| {}, "ttakji,size=7 data"),
        ("loose,size=5", |_| {}, "loose,size=5 data"),
        ("ttakji,size=5", |m| m.encoder_version += 1, "encoder version"),
    ];
    for (i, (other, tweak, expect)) in cases.into_iter().enumerate() {
        let dir = tmp.0.join(format!("foreign{i}"));
        write_shards(&dir, &rules, 1, 10, 4).unwrap();
        let other: Rules = other.parse().unwrap();
        let rows = game_rows(&other, &mut Rng::new(1), 8);
        let mut meta =
            shard::decode(&shard::encode(&rows, &other.to_string(), usize::from(other.size), 1, "t"))
                .unwrap();
        tweak(&mut meta.meta);
        let bytes = reencode(meta);
        shard::write_atomic(&dir.join("zz-foreign.npz"), &bytes).unwrap();
        let err =
            train(&cfg, &dir, &tmp.0.join(format!("out{i}")), Stop::default(), &mut |_| {}).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, TrainError::Incompatible(..)), "{msg}");
        assert!(msg.contains("zz-foreign.npz") && msg.contains(expect), "{msg}");
    }
    let empty = tmp.0.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(matches!(
        train(&cfg, &empty, &tmp.0.join("out-empty"), Stop::default(), &mut |_| {}),
        Err(TrainError::NoData(_))
    ));
}

#[test]
fn a_trainer_told_to_wait_for_data_starts_when_the_first_shards_come_and_stops_when_asked() {
    use std::time::{Duration, Instant};
    let tmp = Temp::new("waitdata");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let data = tmp.0.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let cfg = TrainConfig { steps: 4, wait_for_data: true, rescan_secs: 0.1, ..tiny("ttakji,size=5") };
    // The shards come 0.5 s after the trainer starts.
    let writer = {
        let data = data.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            write_shards(&data, &rules, 3, 20, 3).unwrap();
        })
    };
    let mut warnings = Vec::new();
    let s = train(&cfg, &data, &tmp.0.join("out"), Stop::default(), &mut |p| {
        if let Progress::Warning(w) = p {
            warnings.push(w.clone());
        }
    })
    .unwrap();
    writer.join().unwrap();
    assert_eq!((s.step, s.interrupted), (4, false));
    assert!(
        warnings.iter().any(|w| w.contains("no readable shards") && w.contains("every 0.1 s")),
        "{warnings:?}"
    );
    // Waiting on an empty folder, a stop request ends the run at once, with nothing trained.
    let empty = tmp.0.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let stop = Stop::default();
    let flag = stop.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.request();
    });
    let t = Instant::now();
    let s = train(&cfg, &empty, &tmp.0.join("out-empty"), stop, &mut |_| {}).unwrap();
    stopper.join().unwrap();
    assert_eq!((s.step, s.interrupted, s.checkpoint), (0, true, None));
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn a_shard_with_nan_among_good_ones_is_skipped_by_name() {
    let tmp = Temp::new("nanshard");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let data = tmp.0.join("data");
    write_shards(&data, &rules, 3, 20, 6).unwrap();
    // Checksummed NaN, as a writer fed by a broken search would write it.
    let mut rows = game_rows(&rules, &mut Rng::new(2), 20);
    rows[3].value = [f32::NAN; 3];
    let poisoned = data.join("g-poisoned.npz");
    shard::write_atomic(&poisoned, &shard::encode(&rows, &rules.to_string(), 5, 1, "t")).unwrap();
    let cfg = TrainConfig { steps: 20, ..tiny("ttakji,size=5") };
    let (logs, warnings) = logs(&cfg, &data, &tmp.0.join("out"));
    println!("{warnings:?}");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("g-poisoned.npz")
            && warnings[0].contains("value_nc row 3: NaN is not a finite number"),
        "{}",
        warnings[0]
    );
    assert_eq!(logs.last().unwrap().step, 20);
    assert!(logs.iter().all(|l| l.metrics.iter().all(|m| m.1.is_finite())), "{logs:?}");
}

/// Shard bytes with edited metadata (the checksum covers only the arrays).
fn reencode(s: shard::Shard) -> Vec<u8> {
    let json = serde_json::to_vec(&s.meta).unwrap();
    let mut arrays = s.arrays;
    arrays.push(hane_data::npz::Array::u8("meta", vec![json.len()], json));
    hane_data::npz::write(&arrays, hane_data::npz::Compression::Stored)
}

#[test]
fn the_benchmark_compares_training_with_the_bare_step() {
    let cfg = TrainConfig { batch_size: 32, ..tiny("ttakji,size=5") };
    let report = bench(&cfg, None, 10, &mut |_| {}).unwrap();
    println!("{report}");
    assert!(report.train_samples_per_sec > 0.0 && report.bare_samples_per_sec > 0.0);
    assert!(report.to_string().contains("ratio"));
}
