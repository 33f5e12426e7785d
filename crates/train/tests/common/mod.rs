//! Helpers shared by the trainer's integration tests: temporary folders and a small,
//! fast configuration.

use hane_nn::NetShape;
use hane_train::{OptimizerKind, TrainConfig};
use std::path::PathBuf;

/// A fresh folder under the system's temporary directory, removed when dropped.
pub struct Temp(pub PathBuf);

impl Temp {
    pub fn new(name: &str) -> Temp {
        let p = std::env::temp_dir().join(format!("hane-train-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Temp(p)
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A b2c16 net on 5x5 ttakji with small batches: a step takes about a millisecond on a CPU.
pub fn tiny(rules: &str) -> TrainConfig {
    TrainConfig {
        rules: rules.parse().unwrap(),
        net: NetShape {
            blocks: 2,
            channels: 16,
            pool_channels: 8,
            head_channels: 8,
            value_channels: 8,
            pool_every: 2,
        },
        batch_size: 16,
        optimizer: OptimizerKind::AdamW,
        lr: 2e-3,
        warmup_steps: 0,
        weight_decay: 0.0,
        shuffle_rows: 64,
        log_every: 5,
        histogram_every: 10,
        checkpoint_every: 10,
        threads: 1,
        device: "cpu".into(),
        ..TrainConfig::default()
    }
}
