//! `hane` handing a command over to `hane-torch`: the same arguments, the same process (an
//! `exec`, so its standard streams, its process id and its exit code are the command's), the
//! binary beside `hane`'s own file.

use crate::output::errln;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

/// The file name of the binary that runs every command, nets included.
pub const TORCH_BINARY: &str = "hane-torch";

/// Replaces this process with `hane-torch` run with `args` (the whole command line, the
/// program's name first); returns only when it cannot start, with exit code 1.
pub fn hand_over(args: &[OsString]) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name(TORCH_BINARY),
        Err(e) => {
            errln!("hane: cannot find {TORCH_BINARY}: where this binary is is unknown: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (name, rest) = args.split_first().map_or((OsString::from("hane"), &[][..]), |(n, r)| (n.clone(), r));
    let error = Command::new(&exe).arg0(name).args(rest).exec();
    errln!("hane: cannot start {}: {error} (it runs the commands that use libtorch)", exe.display());
    ExitCode::FAILURE
}
