//! Runs the `hane` binary for the CLI's integration tests.

use std::process::Command;

/// Runs `hane` with `args`: its exit code, stdout and stderr.
pub fn hane(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hane")).args(args).output().expect("run hane");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
