//! Helpers shared by the CLI's integration tests.

use std::path::Path;

/// Writes an untrained checkpoint of a tiny net for `rules` (no training: the tests only need
/// a net that loads and evaluates).
pub fn tiny_checkpoint(rules: &str, path: &Path) {
    use hane_nn::{tch::Device, NetConfig, NetShape, Network};
    let rules: hane_engine::Rules = rules.parse().unwrap();
    Network::new(NetConfig::new(&rules, NetShape::tiny()), Device::Cpu).unwrap().save(path, &rules).unwrap();
}
