//! The one stop request of every long piece of work: the binary's signal handler (or a test)
//! requests it, and the work polls it where stopping loses nothing (self-play before each
//! batch of leaves, the trainer between steps, a match before each move, the solver every few
//! thousand nodes, a book between expansions; a loader's and a progress bar's threads when their
//! owner is done) and ends with what it finished.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A request to stop at the next safe point, shared between threads and clones. The default
/// is a stop nobody has requested yet.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// Requests the stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_reaches_every_clone() {
        let stop = Stop::default();
        let seen_by_worker = stop.clone();
        assert!(!seen_by_worker.requested());
        stop.request();
        assert!(seen_by_worker.requested());
    }
}
