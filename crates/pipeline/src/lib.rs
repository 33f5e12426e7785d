//! hane's product logic above the libraries: the `hane loop` run of generations (self-play,
//! training, gating, komi estimate, Elo anchors) resumable from its folder, the komi report
//! of `hane komi`, the solver's judgement of a run's nets (`hane judge`), the players named on
//! a command line, the nets loaded for the front-ends ([`net_rules::load`]), and config files.
//! It does not know the front-ends (`hane_front`): the `hane` binary joins the two, parses
//! arguments, shows progress and maps [`Error`]s to exit codes; everything it runs is here or
//! in `hane_front`, so it can be tested without spawning the binary.
//!
//! Long work takes a [`Stop`], polled at safe points, and reports progress through a
//! callback ([`run::Event`]), as `hane_train::train` does.

pub mod bench;
pub mod book;
pub mod config;
mod error;
pub mod judge;
pub mod komi;
pub mod match_report;
pub mod net_rules;
pub mod players;
pub mod precision_check;
pub mod recipe;
pub mod run;
mod stop;

pub use config::{ConfigFile, LoopConfig};
pub use error::{read_report, write_file, write_json, Error};
pub use hane_host::Stop;
pub use run::{Event, Run};
pub use stop::{Interrupt, Stoppable};
