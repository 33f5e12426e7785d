//! hane's training-data formats, shared by the self-play writer and the trainer's reader:
//! the versioned feature encoder ([`features`]), a dependency-free `.npz` codec ([`npz`]) and
//! self-describing, checksummed shards of training rows ([`shard`]).
//!
//! This crate sits between the engine and the heavy crates so that `selfplay` (no libtorch)
//! and `train` (libtorch) agree on one definition of the data without depending on each
//! other.

pub mod features;
pub mod npz;
pub mod shard;
