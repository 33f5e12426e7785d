//! `hane-torch`: every command of `hane`, with libtorch for the nets. `hane` hands it the
//! commands it does not run itself (see the `hane_cli` crate docs); it can also be run
//! directly.

// Every note goes through a writer that survives a closed or full stream (`cli::output`,
// the GTP engine's own), never through the printing macros, which panic there.
#![deny(clippy::print_stderr, clippy::print_stdout)]

use clap::{Parser, Subcommand};
use hane_cli::analysis_cmd::katago_argv;
use hane_cli::light::Light;
use hane_cli::nets::Loaded;
use hane_cli::{bench, judge_cmd, komi_cmd, loop_cmd, match_cmd, selfplay_cmd, train_cmd};
use std::process::ExitCode;

/// mimalloc serves every allocation of the process, libtorch's included (its `override`
/// feature replaces `malloc` and `free`): glibc's allocator took 13% of 5x5 self-play's
/// time, most of it freeing and reusing libtorch's short-lived activation buffers.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The command line of this binary.
type Cli = hane_cli::Cli<Command>;

#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Light(Light),
    /// Generate self-play games into training shards and SGFs.
    Selfplay(selfplay_cmd::Args),
    /// Train a net on self-play shards.
    Train(train_cmd::Args),
    /// Run generations of self-play, training and gating, with Elo and komi (resumable).
    Loop(loop_cmd::Args),
    /// A match between two players (nets, GNU Go, GTP engines), with Elo.
    Match(match_cmd::Args),
    /// Estimate the fair komi of a rule set (KataGo's method, plus a self-play sweep).
    Komi(komi_cmd::Args),
    /// Judge a run's nets by the exact solver on positions from its self-play.
    Judge(judge_cmd::Args),
    /// Benchmarks.
    Bench(bench::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(katago_argv(std::env::args_os())) {
        Ok(cli) => cli,
        Err(e) => return hane_cli::not_a_command(&e),
    };
    hane_cli::exit(match cli.command {
        Command::Light(c) => c.run(&Loaded),
        Command::Selfplay(a) => selfplay_cmd::run_cmd(a),
        Command::Train(a) => train_cmd::run(a),
        Command::Loop(a) => loop_cmd::run(a),
        Command::Match(a) => match_cmd::run(a),
        Command::Komi(a) => komi_cmd::run(a),
        Command::Judge(a) => judge_cmd::run(a),
        Command::Bench(a) => bench::run(a),
    })
}
