//! One path for SIGINT (Ctrl-C) and SIGTERM in the long commands (`selfplay`, `train`, `loop`,
//! `match`, `komi`, `solve`): the signal handler only sets a process-wide flag, the work
//! polls it at safe points ([`hane_host::Stop`]), and the command returns
//! [`interrupted`], so the process leaves through `main` with exit code 130 (as a shell
//! reports a job killed by SIGINT, so `a && b` stops after `a`).
//!
//! The safe points: self-play's workers before each batch of leaves (games in flight are
//! dropped, finished games are kept); the trainer between steps (it then writes a checkpoint
//! of the last finished step); match games before each move ([`hane_pipeline::Stoppable`]) or
//! during a wait for a GTP engine, which is killed ([`hane_eval::gtp`]); the komi estimate
//! before each evaluation; the solver every few thousand nodes. Files are only ever written
//! whole (a temporary name, then a rename), so stopping at any of these points leaves the
//! last finished game, step or evaluation on disk and no half-written file (`match --json`
//! and `komi` write what they finished in a report marked partial), and a rerun of a
//! resumable command continues from there.
//!
//! Why the handler does not exit: it runs on a thread of its own, and `std::process::exit`
//! there runs libtorch's static destructors while another thread may be inside a
//! convolution, which crashed `hane loop` with SIGSEGV (exit 139). A second signal therefore
//! exits at once only in a process that never runs libtorch ([`Second::Exit`]: the solver,
//! self-play and matches without a net); there a forced exit is as safe as SIGKILL, which
//! every writer tolerates (at worst a temporary file is left, and the next run removes or
//! ignores it). Elsewhere ([`Second::Wait`]) the second signal only says that the stop is
//! under way; SIGKILL remains for the impatient, with the same guarantees.

use crate::output::errln;
use crate::Failure;
use hane_pipeline::Stop;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::LazyLock;

/// What to do after an interrupted run of a resumable command.
pub const RERUN: &str = "rerun the same command to continue";

/// Set by the first SIGINT or SIGTERM.
static REQUESTED: LazyLock<Stop> = LazyLock::new(Stop::default);

/// What a second signal does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Second {
    /// Exit with code 130 at once: only for work that never runs libtorch.
    Exit,
    /// Say that the stop is under way, and keep waiting for the safe point.
    Wait,
}

/// Installs the handler of SIGINT and SIGTERM for the rest of the process (once per
/// process); `what` says what the first signal stops, e.g. "after the training step in
/// flight".
pub fn install(what: &'static str, second: Second) -> Result<(), Failure> {
    let signals = AtomicU32::new(0);
    ctrlc::set_handler(move || {
        REQUESTED.request();
        match (signals.fetch_add(1, Ordering::SeqCst), second) {
            (0, Second::Exit) => errln!("\nstopping {what} (Ctrl-C again to quit now)"),
            (0, Second::Wait) => errln!("\nstopping {what}"),
            (_, Second::Exit) => {
                // Destructors do not run: GTP engines in process groups of their own would
                // outlive the exit.
                hane_eval::gtp::kill_all();
                std::process::exit(130)
            }
            (_, Second::Wait) => errln!("\nstill stopping {what}: libtorch must finish first"),
        }
    })
    .map_err(|e| Failure { code: 1, message: format!("cannot install the signal handler: {e}") })
}

/// Whether a stop was requested.
pub fn requested() -> bool {
    REQUESTED.requested()
}

/// The stop the signal handler requests, for the libraries' work.
pub fn stop() -> Stop {
    REQUESTED.clone()
}

/// The failure of a command that stopped at a safe point: exit code 130, with what to do
/// next (`hint`, e.g. "rerun the same command to continue").
pub fn interrupted(hint: &str) -> Failure {
    Failure { code: 130, message: format!("interrupted: {hint}") }
}
