//! hane's product logic above the libraries: the `hane loop` run of generations (self-play,
//! training, gating, komi estimate, Elo anchors) resumable from its folder, the komi report
//! of `hane komi`, the players named on a command line, the GTP engine with its live
//! analysis, KataGo's JSON analysis engine (`hane analysis`), a person's game against hane
//! (`hane play`), and config files. The `hane` binary parses arguments, shows
//! progress and maps [`Error`]s to exit codes; everything it runs is here, so it can be
//! tested without spawning the binary.
//!
//! Long work takes a [`Stop`], polled at safe points, and reports progress through a
//! callback ([`run::Event`]), as `hane_train::train` does.

pub mod analysis;
pub mod bench;
pub mod candidates;
pub mod config;
mod error;
pub mod gtp;
pub mod input;
pub mod katago_cfg;
pub mod katago_rules;
pub mod komi;
pub mod match_report;
pub mod net_rules;
pub mod play;
pub mod players;
pub mod recipe;
pub mod run;
mod stop;

pub use config::{ConfigFile, LoopConfig};
pub use error::{write_file, write_json, Error};
pub use run::{Event, Run};
pub use stop::{Stop, Stoppable};
