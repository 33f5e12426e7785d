//! The `hane` command-line tool: one binary with a subcommand per job.
//!
//! Errors in user input (rules, moves, files) are reported as one clear message on stderr
//! with a non-zero exit code (2 for an illegal or malformed move or input); nothing panics on
//! input. A long command stopped by SIGINT or SIGTERM exits with 130 (see `stop`). A standard
//! output that cannot be written (a full disk, a closed pipe) is a failure with exit code 1, and
//! one of standard error is ignored (see `output`).

mod analysis_cmd;
mod bench;
mod gtp;
mod komi_cmd;
mod loop_cmd;
mod match_cmd;
mod output;
mod perft_cmd;
mod play;
mod progress;
mod replay;
mod rules_args;
mod selfplay_cmd;
mod solve_cmd;
mod stop;
mod train_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc serves every allocation of the process, libtorch's included (its `override`
/// feature replaces `malloc` and `free`): glibc's allocator took 13% of 5x5 self-play's
/// time, most of it freeing and reusing libtorch's short-lived activation buffers.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// hane: self-play training pipeline for Go, Loose and Sligo.
#[derive(Parser)]
#[command(name = "hane", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Replay moves (or an SGF file) and print the position as JSON.
    Replay(replay::Args),
    /// Count legal move sequences to a depth (rules-engine check).
    Perft(perft_cmd::Args),
    /// Generate self-play games into training shards and SGFs.
    Selfplay(selfplay_cmd::Args),
    /// Train a net on self-play shards.
    Train(train_cmd::Args),
    /// Run a GTP engine on stdin/stdout (for GUIs and match runners).
    Gtp(gtp::Args),
    /// Analyse positions with KataGo's JSON analysis protocol on stdin/stdout.
    Analysis(analysis_cmd::Args),
    /// Play against hane in the terminal (any rule set).
    Play(play::Args),
    /// Run generations of self-play, training and gating, with Elo and komi (resumable).
    Loop(loop_cmd::Args),
    /// A match between two players (nets, GNU Go, GTP engines), with Elo.
    Match(match_cmd::Args),
    /// Estimate the fair komi of a rule set (KataGo's method, plus a self-play sweep).
    Komi(komi_cmd::Args),
    /// Solve a tiny board exactly (minimax score and exact fair komi).
    Solve(solve_cmd::Args),
    /// Benchmarks.
    Bench(bench::Args),
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
fn not_a_command(e: &clap::Error) -> ExitCode {
    match e.print() {
        Err(write) if !e.use_stderr() => {
            output::errln!("hane: cannot write to standard output: {write}");
            ExitCode::FAILURE
        }
        _ => ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2)),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(analysis_cmd::katago_argv(std::env::args_os())) {
        Ok(cli) => cli,
        Err(e) => return not_a_command(&e),
    };
    let result = match cli.command {
        Command::Replay(a) => replay::run(a),
        Command::Perft(a) => perft_cmd::run(a),
        Command::Selfplay(a) => selfplay_cmd::run_cmd(a),
        Command::Train(a) => train_cmd::run(a),
        Command::Gtp(a) => gtp::run(a),
        Command::Analysis(a) => analysis_cmd::run(a),
        Command::Play(a) => play::run(a),
        Command::Loop(a) => loop_cmd::run(a),
        Command::Match(a) => match_cmd::run(a),
        Command::Komi(a) => komi_cmd::run(a),
        Command::Solve(a) => solve_cmd::run(a),
        Command::Bench(a) => bench::run(a),
    };
    match result.and_then(|()| output::check()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            output::errln!("hane: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
