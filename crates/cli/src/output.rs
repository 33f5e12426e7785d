//! The binary's one way to print, instead of `println!` and `eprintln!`, which panic when their
//! stream cannot be written (`hane replay > /dev/full` died with exit code 101).
//!
//! [`outln!`] writes a line to standard output. A failed write (a full disk, a closed pipe) does
//! not stop the command: the work goes on, so nothing it writes to files is lost, and the first
//! failure is remembered; when the command ends, [`check`] turns its success into exit code 1
//! with the failure's message on standard error. [`errln!`] writes a line to standard error and
//! drops a failure, as there is nowhere left to report it.

use crate::Failure;
use std::fmt::Arguments;
use std::io::Write;
use std::sync::OnceLock;

/// The first failed write to standard output.
static STDOUT_FAILURE: OnceLock<String> = OnceLock::new();

/// Writes `args` and a newline to standard output, remembering a failure for [`check`].
pub fn stdout_line(args: Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.write_all(b"\n")).and_then(|()| out.flush()) {
        let _ = STDOUT_FAILURE.set(e.to_string());
    }
}

/// Writes `args` and a newline to standard error; a failure is dropped.
pub fn stderr_line(args: Arguments) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// Exit code 1 if a write to standard output failed.
pub fn check() -> Result<(), Failure> {
    match STDOUT_FAILURE.get() {
        Some(e) => Err(Failure { code: 1, message: format!("cannot write to standard output: {e}") }),
        None => Ok(()),
    }
}

/// `println!` that never panics (see the module docs).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::stdout_line(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics (see the module docs).
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::stderr_line(format_args!($($arg)*))
    };
}

pub(crate) use {errln, outln};
