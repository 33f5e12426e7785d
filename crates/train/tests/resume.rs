//! Crash safety: a trainer killed at any moment resumes from its last checkpoint with the
//! same step, weights, batch-norm statistics and optimizer state; a diverging one stops with
//! an error and leaves its last good checkpoint as the newest.

mod common;

use common::{tiny, Temp};
use hane_engine::Rules;
use hane_host::Stop;
use hane_nn::tch::{Device, Tensor};
use hane_nn::{Checkpoint, Network};
use hane_train::synthetic::write_shards;
use hane_train::{latest_checkpoint, train, OptimizerKind, Progress, TrainConfig, TrainError, Trainer};
use std::path::Path;
use std::time::{Duration, Instant};

fn deep_copy(state: Vec<(String, Tensor)>) -> Vec<(String, Tensor)> {
    state.into_iter().map(|(n, t)| (n, t.copy())).collect()
}

fn assert_same(a: &[(String, Tensor)], b: &[(String, Tensor)]) {
    assert_eq!(a.len(), b.len());
    for ((na, ta), (nb, tb)) in a.iter().zip(b) {
        assert_eq!(na, nb);
        assert!(ta.equal(tb), "{na} differs after resuming");
    }
}

#[test]
fn a_dropped_trainer_resumes_at_its_last_checkpoint_exactly() {
    for optimizer in [OptimizerKind::Sgd, OptimizerKind::AdamW] {
        let tmp = Temp::new(&format!("resume-{optimizer:?}"));
        let rules: Rules = "sligo,size=5".parse().unwrap();
        let data = tmp.0.join("data");
        write_shards(&data, &rules, 4, 20, 2).unwrap();
        let out = tmp.0.join("out");
        let cfg = TrainConfig { optimizer, lr: 0.01, checkpoint_every: 5, ..tiny("sligo,size=5") };

        let mut a = Trainer::open(&cfg, &data, &out).unwrap();
        a.train_until(5, &mut |_| {}).unwrap();
        let at5 = deep_copy(a.named_state());
        assert!(at5.iter().any(|(n, _)| n.starts_with("optimizer.")));
        a.train_until(8, &mut |_| {}).unwrap();
        assert!(!a.named_state()[0].1.equal(&at5[0].1), "training moved the weights");
        drop(a); // "killed" at step 8: no checkpoint after step 5

        let mut b = Trainer::open(&cfg, &data, &out).unwrap();
        assert_eq!(b.step(), 5);
        assert_eq!(b.resumed_from(), latest_checkpoint(&out).as_deref());
        assert_same(&at5, &b.named_state());
        b.train_until(12, &mut |_| {}).unwrap();
        assert_eq!(b.step(), 12);

        // The shape or optimizer of a resumed run cannot change silently.
        let other = TrainConfig {
            optimizer: if optimizer == OptimizerKind::Sgd {
                OptimizerKind::AdamW
            } else {
                OptimizerKind::Sgd
            },
            ..cfg.clone()
        };
        let msg = Trainer::open(&other, &data, &out).err().unwrap().to_string();
        assert!(msg.contains("optimizer"), "{msg}");
        let mut wider = cfg.clone();
        wider.net.channels = 24;
        assert!(matches!(Trainer::open(&wider, &data, &out), Err(TrainError::Checkpoint(..))));
    }
}

/// A child process that is killed (SIGKILL) when dropped, so a failing test leaves none behind.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The child process of the SIGKILL test: trains "forever", checkpointing every 3 steps.
fn child(dir: &Path) {
    let cfg = TrainConfig { steps: 1_000_000, checkpoint_every: 3, log_every: 1, ..tiny("ttakji,size=5") };
    train(&cfg, &dir.join("data"), &dir.join("out"), Stop::default(), &mut |_| {}).unwrap();
}

#[test]
fn resume_after_sigkill() {
    if let Some(dir) = std::env::var_os("HANE_TRAIN_SIGKILL_CHILD") {
        child(Path::new(&dir));
        return;
    }
    let tmp = Temp::new("sigkill");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    write_shards(&tmp.0.join("data"), &rules, 4, 20, 8).unwrap();
    let out = tmp.0.join("out");
    // Kill it three times at arbitrary moments (possibly while it writes a checkpoint); each
    // restart must pick up the newest complete checkpoint.
    let mut last_step = 0;
    for round in 0..3 {
        let mut proc = Killed(
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["resume_after_sigkill", "--exact", "--nocapture", "--test-threads=1"])
                .env("HANE_TRAIN_SIGKILL_CHILD", &tmp.0)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        let deadline = Instant::now() + Duration::from_secs(120);
        let want = last_step + 6 + 2 * round;
        loop {
            let step = latest_checkpoint(&out)
                .and_then(|p| {
                    p.file_name()?.to_str()?.strip_prefix("step-")?.strip_suffix(".safetensors")?.parse().ok()
                })
                .unwrap_or(0);
            if step >= want {
                break;
            }
            assert!(proc.0.try_wait().unwrap().is_none(), "the child exited early");
            assert!(Instant::now() < deadline, "no checkpoint at step {want} within 120 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(7 * round));
        drop(proc); // SIGKILL

        let cfg = TrainConfig { checkpoint_every: 3, ..tiny("ttakji,size=5") };
        let newest = latest_checkpoint(&out).unwrap();
        let t = Trainer::open(&cfg, &tmp.0.join("data"), &out).unwrap();
        assert_eq!(t.resumed_from(), Some(newest.as_path()));
        let ck = Checkpoint::read(&newest).unwrap();
        let file_state: Vec<(String, Tensor)> = t
            .named_state()
            .into_iter()
            .map(|(n, _)| {
                let v = ck.tensors[&n].shallow_clone();
                (n, v)
            })
            .collect();
        assert_same(&file_state, &t.named_state());
        assert!(t.step() >= want && t.step() % 3 == 0, "resumed at step {}", t.step());
        last_step = t.step();
    }
    // And training goes on from there.
    let cfg = TrainConfig { steps: last_step + 4, checkpoint_every: 3, ..tiny("ttakji,size=5") };
    let s = train(&cfg, &tmp.0.join("data"), &out, Stop::default(), &mut |_| {}).unwrap();
    assert_eq!((s.start_step, s.step), (last_step, last_step + 4));
    let leftovers: Vec<_> = std::fs::read_dir(out.join("checkpoints"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn a_diverging_run_stops_with_an_error_and_keeps_its_last_good_checkpoint() {
    let tmp = Temp::new("diverge");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let data = tmp.0.join("data");
    write_shards(&data, &rules, 4, 20, 9).unwrap();
    let out = tmp.0.join("out");
    let names = || {
        let mut v: Vec<String> = std::fs::read_dir(out.join("checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    let good = TrainConfig { steps: 10, checkpoint_every: 5, keep_checkpoints: 2, ..tiny("ttakji,size=5") };
    train(&good, &data, &out, Stop::default(), &mut |_| {}).unwrap();
    let kept = ["step-000000005.safetensors", "step-000000010.safetensors"];
    assert_eq!(names(), kept);

    // A net on the edge of overflow: the last checkpoint's tensors scaled by 1e30 (still
    // finite, checksummed anew), so the first step from it (step 11) overflows. Noticed from
    // the metrics before a checkpoint and at a log line (a checkpoint of non-finite weights
    // is refused by the writer itself: hane-nn's tests).
    let last = out.join("checkpoints").join(kept[1]);
    let original = std::fs::read(&last).unwrap();
    let ck = Checkpoint::read(&last).unwrap();
    let scaled: Vec<(String, Tensor)> = ck.tensors.iter().map(|(n, t)| (n.clone(), t * 1e30)).collect();
    hane_nn::checkpoint::write(&last, &ck.meta, &scaled, &ck.extra).unwrap();
    let cases: [(u64, u64, u64, &str); 3] = [
        (1, 1000, 11, "not finite in steps 11..=11"),
        (5, 1000, 15, "not finite in steps 11..=15"),
        (1000, 3, 12, "not finite in steps 11..=12"),
    ];
    for (checkpoint_every, log_every, at, expect) in cases {
        let cfg = TrainConfig { steps: 30, checkpoint_every, log_every, ..good.clone() };
        let err = train(&cfg, &data, &out, Stop::default(), &mut |_| {}).unwrap_err();
        let msg = err.to_string();
        println!("{msg}");
        let TrainError::Diverged { step, last_good, .. } = &err else { panic!("{msg}") };
        assert!(msg.contains(expect), "{msg:?} should say {expect:?}");
        assert_eq!(*step, at);
        assert_eq!(last_good.as_deref(), Some(out.join("checkpoints").join(kept[1]).as_path()));
        assert_eq!(names(), kept, "nothing written, nothing deleted");
    }
    // The last good checkpoint loads, and training resumes from it.
    assert!(Network::load(&latest_checkpoint(&out).unwrap(), &rules, Device::Cpu).is_ok());
    assert_eq!(Trainer::open(&good, &data, &out).unwrap().step(), 10);
    std::fs::write(&last, original).unwrap();

    // A newer checkpoint this run cannot use (damaged, or saved diverged by an older build)
    // does not count against `keep_checkpoints`, so it cannot push good ones out.
    std::fs::write(out.join("checkpoints/step-000000020.safetensors"), b"garbage").unwrap();
    let mut warnings = Vec::new();
    let on = TrainConfig { steps: 15, ..good.clone() };
    train(&on, &data, &out, Stop::default(), &mut |p| {
        if let Progress::Warning(w) = p {
            warnings.push(w.clone());
        }
    })
    .unwrap();
    assert!(warnings.iter().any(|w| w.contains("step-000000020")), "{warnings:?}");
    assert_eq!(
        names(),
        ["step-000000010.safetensors", "step-000000015.safetensors", "step-000000020.safetensors"]
    );

    // A run whose every checkpoint is damaged is refused, not started afresh over them.
    let damaged = out.with_extension("damaged");
    std::fs::create_dir_all(damaged.join("checkpoints")).unwrap();
    std::fs::write(damaged.join("checkpoints/step-000000020.safetensors"), b"garbage").unwrap();
    let Err(err) = Trainer::open(&good, &data, &damaged) else {
        panic!("opened a run of damaged checkpoints")
    };
    assert!(err.is_input() && err.to_string().contains("move them away to start afresh"), "{err}");
    let _ = std::fs::remove_dir_all(damaged);
}
