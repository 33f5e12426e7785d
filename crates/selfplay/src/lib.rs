//! hane's self-play generator: many games in flight per worker thread, their search leaves
//! batched into one evaluator call, finished games written as training shards
//! ([`hane_data::shard`]) and SGF records.
//!
//! * [`config`]: the typed configuration (every field documented, TOML in `configs/`).
//! * [`komi`]: KataGo-style komi randomisation within each rule set's komi domain.
//! * [`opening`]: KataGo's openings from the raw policy.
//! * [`server`]: an inference thread that merges the batches of several workers.
//! * [`worker`]: the game loop (playout cap randomisation, temperature, resignation).
//! * [`record`]: turning a finished game into training rows and an SGF.
//! * [`run`]: the whole job: output folders, resuming, threads.
//! * [`shared`]: what the workers share: the games left, the progress counters, writing a
//!   finished game.
//! * [`name`]: the names of the games' files.
//! * [`pack`]: packing finished games many to a file.

pub mod config;
pub mod komi;
pub mod name;
pub mod opening;
pub mod pack;
pub mod record;
pub mod run;
pub mod server;
pub mod shared;
pub mod starts;
pub mod worker;

pub use config::SelfplayConfig;
pub use run::{run, RunSummary, SelfplayError, GAMES, MAX_GAMES};
pub use shared::Progress;
