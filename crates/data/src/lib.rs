//! hane's training-data formats, shared by the self-play writer and the trainer's reader:
//! the versioned feature encoder ([`features`]) and the net's input batches built with it
//! ([`batch`]), an `.npz` codec on top of a deflate library ([`npz`]),
//! self-describing, checksummed shards of training rows, one game's or many ([`shard`]) and the eight board
//! symmetries as index maps over planes and actions ([`symmetries`]), which the trainer
//! augments its rows with and the net's evaluator randomises its inputs with.
//!
//! This crate sits between the engine and the heavy crates so that `selfplay` (no libtorch)
//! and `train` (libtorch) agree on one definition of the data without depending on each
//! other.

pub mod batch;
pub mod features;
pub mod npz;
pub mod shard;
pub mod symmetries;
