//! hane's front-ends, the programs people and GUIs talk to: the GTP engine with its live
//! analysis (`hane gtp`: Sabaki, GoGui, Lizzie, match runners), KataGo's JSON analysis engine
//! (`hane analysis`: KaTrain), a game in the terminal (`hane play`), and what they share:
//! the search that plays ([`brain::Brain`]), the candidate moves it reports, KataGo's rule
//! names and config keys, and which rules a net may answer ([`net_rules`]).
//!
//! Nothing here loads a net: the caller brings the evaluator, so this crate builds and tests
//! without libtorch, and every front-end is served from any reader to any writer
//! (`gtp::serve`, `analysis::serve`, `play::play`), in-process.

// Every note goes through a writer that survives a closed or full stream (`cli::output`,
// the GTP engine's own), never through the printing macros, which panic there.
#![deny(clippy::print_stderr, clippy::print_stdout)]

pub mod analysis;
pub mod brain;
pub mod candidates;
pub mod gtp;
pub mod input;
pub mod katago_cfg;
pub mod katago_rules;
pub mod play;
