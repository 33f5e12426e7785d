//! The `hane` command-line tool, as two binaries. `hane` runs what needs no net (`replay`,
//! `perft`, `solve`, and `gtp`, `analysis` and `play` without `--model`) in its own process
//! and never loads libtorch, so it starts at once; every other command, and those three with
//! a net, it hands over to `hane-torch` beside it, which links libtorch and runs every
//! command ([`handover`]). Both parse the same arguments ([`light::Light`] is the commands
//! they share).
//!
//! Errors in user input (rules, moves, files) are reported as one clear message on stderr
//! with a non-zero exit code (2 for an illegal or malformed move or input); nothing panics on
//! input. A long command stopped by SIGINT or SIGTERM exits with 130 (see the `stop` module). A
//! standard output that cannot be written (a full disk, a closed pipe) is a failure with exit
//! code 1, and one of standard error is ignored (see the `output` module).

// Every note goes through a writer that survives a closed or full stream (`cli::output`,
// the GTP engine's own), never through the printing macros, which panic there.
#![deny(clippy::print_stderr, clippy::print_stdout)]

pub mod analysis_cmd;
pub mod bench;
pub mod book_cmd;
pub mod gtp;
pub mod handover;
pub mod judge_cmd;
pub mod komi_cmd;
pub mod light;
pub mod loop_cmd;
pub mod match_cmd;
pub mod nets;
mod output;
pub mod perft_cmd;
pub mod play;
mod progress;
pub mod replay;
mod rules_args;
pub mod selfplay_cmd;
pub mod solve_cmd;
mod stop;
pub mod train_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// hane: self-play training pipeline for Go, Loose and Sligo.
#[derive(Parser, Debug)]
#[command(name = "hane", version, about)]
pub struct Cli<C: Subcommand> {
    /// The command.
    #[command(subcommand)]
    pub command: C,
}

/// An error with the process exit code it should produce.
#[derive(Debug)]
pub struct Failure {
    /// Exit code.
    pub code: u8,
    /// Message for stderr.
    pub message: String,
}

impl Failure {
    /// Bad input (exit code 2).
    pub fn input(message: impl Into<String>) -> Failure {
        Failure { code: 2, message: message.into() }
    }

    /// A failure of the work itself (exit code 1), with `e`'s whole chain of causes.
    pub fn other(e: impl std::error::Error) -> Failure {
        Failure { code: 1, message: causes(&e) }
    }

    /// `e` with its whole chain of causes: bad input (exit code 2) when `input`, else a failure
    /// of the work itself (exit code 1).
    fn of(e: &dyn std::error::Error, input: bool) -> Failure {
        Failure { code: if input { 2 } else { 1 }, message: causes(e) }
    }
}

impl From<hane_train::TrainError> for Failure {
    fn from(e: hane_train::TrainError) -> Failure {
        Failure::of(&e, e.is_input())
    }
}

impl From<hane_selfplay::SelfplayError> for Failure {
    fn from(e: hane_selfplay::SelfplayError) -> Failure {
        Failure::of(&e, e.is_input())
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure { code: 1, message: format!("{e:#}") }
    }
}

impl From<hane_pipeline::Error> for Failure {
    /// Exit code 2 for bad input, 130 for a stop at a safe point (a rerun continues), else 1;
    /// the message is the error with its whole chain of causes.
    fn from(e: hane_pipeline::Error) -> Failure {
        use hane_pipeline::Error;
        match e {
            Error::Interrupted => stop::interrupted(stop::RERUN),
            Error::Input(_) => Failure::input(causes(&e)),
            Error::Train(t) if t.is_input() => t.into(),
            Error::Selfplay(s) if s.is_input() => s.into(),
            _ => Failure { code: 1, message: causes(&e) },
        }
    }
}

/// `e` and each of its sources, joined by ": ".
fn causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// Writes `value` as pretty JSON to `path`, if one was given, by the policy of
/// [`hane_pipeline::write_file`] (a link stays a link, a device is written through; exit code 1
/// if it fails).
fn write_json(path: Option<&std::path::Path>, value: &impl serde::Serialize) -> Result<(), Failure> {
    match path {
        Some(path) => Ok(hane_pipeline::write_json(path, value)?),
        None => Ok(()),
    }
}

/// The exit code of arguments that are not a command: clap's (0 after `--help` or `--version`,
/// 2 after a usage error) once its text is printed, 1 if standard output cannot take it.
pub fn not_a_command(e: &clap::Error) -> ExitCode {
    match e.print() {
        Err(write) if !e.use_stderr() => {
            output::errln!("hane: cannot write to standard output: {write}");
            ExitCode::FAILURE
        }
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

/// The exit code of a command's `result`, after a last check that standard output took
/// everything ([`output::check`]); a failure's message goes to stderr.
pub fn exit(result: Result<(), Failure>) -> ExitCode {
    match result.and_then(|()| output::check()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            output::errln!("hane: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
