//! `hane`: the commands that need no net run here, without libtorch, so they start at once;
//! every other command is handed over to `hane-torch` (see the `hane_cli` crate docs).

// Every note goes through a writer that survives a closed or full stream (`cli::output`,
// the GTP engine's own), never through the printing macros, which panic there.
#![deny(clippy::print_stderr, clippy::print_stdout)]

use clap::{CommandFactory, Parser};
use hane_cli::analysis_cmd::katago_argv;
use hane_cli::handover::hand_over;
use hane_cli::light::Light;
use hane_cli::nets::Rollouts;
use std::ffi::OsString;
use std::process::ExitCode;

/// mimalloc serves every allocation, as in `hane-torch`, so the searches run as fast in
/// either binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The command line of this binary.
type Cli = hane_cli::Cli<Light>;

/// Whether `hane` runs the command line `args` itself: `--version`, or one of its commands.
fn runs_here(args: &[OsString]) -> bool {
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else { return false };
    first == "--version"
        || first == "-V"
        || Cli::command().get_subcommands().any(|c| c.get_name() == first && c.get_name() != "help")
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if !runs_here(&args) {
        return hand_over(&args);
    }
    let cli = match Cli::try_parse_from(katago_argv(args.clone())) {
        Ok(cli) => cli,
        Err(e) => return hane_cli::not_a_command(&e),
    };
    if cli.command.needs_net() {
        return hand_over(&args);
    }
    hane_cli::exit(cli.command.run(&Rollouts))
}
