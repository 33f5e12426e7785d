//! An inference thread: it owns an evaluator (a network, or a stand-in), takes the leaf
//! batches of its worker threads, merges what is queued up to the batch size into one call,
//! and sends each worker its share back. A run may start several, each with its own copy of
//! the evaluator: on a CPU one inference thread keeps one core busy at most.

use hane_engine::GameState;
use hane_mcts::{EvalRequest, Evaluation, Evaluator};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Builds an evaluator inside each inference thread (so it need not be `Send`).
pub type EvaluatorFactory = Arc<dyn Fn() -> Box<dyn Evaluator<GameState>> + Send + Sync>;

struct Job {
    requests: Vec<EvalRequest<GameState>>,
    reply: Sender<Vec<Evaluation>>,
}

/// Counters of the inference threads (shared by those of one run).
#[derive(Debug, Default)]
pub struct ServerStats {
    /// Positions evaluated.
    pub evals: AtomicU64,
    /// Evaluator calls.
    pub calls: AtomicU64,
    /// Nanoseconds spent inside the evaluator.
    pub busy_ns: AtomicU64,
}

/// A running inference thread.
#[derive(Debug)]
pub struct Server {
    tx: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts the thread; `batch_size` caps one evaluator call.
    pub fn start(factory: EvaluatorFactory, batch_size: usize, stats: Arc<ServerStats>) -> Server {
        let (tx, rx) = channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("hane-inference".into())
            .spawn(move || serve(factory(), rx, batch_size.max(1), &stats))
            .expect("spawn inference thread");
        Server { tx: Some(tx), thread: Some(thread) }
    }

    /// A handle for one worker.
    pub fn handle(&self) -> ServerHandle {
        let (reply, rx) = channel();
        ServerHandle { tx: self.tx.clone().expect("server running"), reply, rx }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(mut ev: Box<dyn Evaluator<GameState>>, rx: Receiver<Job>, batch: usize, stats: &ServerStats) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        let mut queued = jobs[0].requests.len();
        while queued < batch {
            match rx.try_recv() {
                Ok(j) => {
                    queued += j.requests.len();
                    jobs.push(j);
                }
                Err(_) => break,
            }
        }
        let sizes: Vec<usize> = jobs.iter().map(|j| j.requests.len()).collect();
        let all: Vec<EvalRequest<GameState>> =
            jobs.iter_mut().flat_map(|j| std::mem::take(&mut j.requests)).collect();
        let t = Instant::now();
        let mut results = Vec::with_capacity(all.len());
        for chunk in all.chunks(batch) {
            results.extend(ev.evaluate(chunk));
            stats.calls.fetch_add(1, Ordering::Relaxed);
        }
        stats.busy_ns.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        stats.evals.fetch_add(all.len() as u64, Ordering::Relaxed);
        let mut results = results.into_iter();
        for (job, n) in jobs.iter().zip(sizes) {
            let part: Vec<Evaluation> = results.by_ref().take(n).collect();
            let _ = job.reply.send(part);
        }
    }
}

/// A worker's connection to the inference thread; an [`Evaluator`] like any other.
#[derive(Debug)]
pub struct ServerHandle {
    tx: Sender<Job>,
    reply: Sender<Vec<Evaluation>>,
    rx: Receiver<Vec<Evaluation>>,
}

impl Evaluator<GameState> for ServerHandle {
    fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
        self.tx
            .send(Job { requests: batch.to_vec(), reply: self.reply.clone() })
            .expect("inference thread alive");
        self.rx.recv().expect("inference thread answers")
    }
}
