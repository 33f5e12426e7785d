//! The book's searches on worker threads: the expansions (`expand`) and the refinements
//! (`refine`) both hand jobs to a pool of threads, each with its own evaluator, while the
//! caller's thread chooses the work and applies the results to the book.

use crate::expand::EvaluatorFactory;
use hane_engine::GameState;
use hane_mcts::Evaluator;
use std::sync::{mpsc, Mutex};

/// An evaluator of one worker thread.
pub(crate) type WorkerEvaluator = Box<dyn Evaluator<GameState>>;

/// Runs `drive` beside `threads` worker threads. `drive` sends jobs through the sender it is
/// given and receives each job's result (`None`: the job gave up, e.g. at a stop); a worker
/// runs `work` on a job with its own evaluator, made by `factory` at its first job (a pass
/// may have fewer jobs than threads, or none). The workers end once `drive` has returned and
/// the jobs under way are done.
pub(crate) fn with_workers<J: Send, R: Send, T>(
    threads: usize,
    factory: &EvaluatorFactory,
    work: impl Fn(J, &mut WorkerEvaluator) -> Option<R> + Sync,
    drive: impl FnOnce(&mpsc::Sender<J>, &mpsc::Receiver<Option<R>>) -> T,
) -> T {
    let (work_tx, work_rx) = mpsc::channel::<J>();
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Option<R>>();
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            let (done_tx, work_rx, work) = (done_tx.clone(), &work_rx, &work);
            scope.spawn(move || {
                let mut ev = None;
                loop {
                    let Ok(job) = work_rx.lock().map_err(drop).and_then(|rx| rx.recv().map_err(drop)) else {
                        return;
                    };
                    let ev = ev.get_or_insert_with(factory);
                    if done_tx.send(work(job, ev)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let result = drive(&work_tx, &done_rx);
        // Ends the threads: no more work; searches under way see the stop, or finish.
        drop(work_tx);
        result
    })
}
