//! Settling the root's figures where they are set: the margin and each end of the bracket
//! come from one estimate each (`bracket`), so searching that node again, deeper, replaces
//! the estimate with one whose error is smaller (the half-width shrinks with the visits,
//! `Settings::error_decay`) and whose value is better. Then the figure moves to the next
//! estimate that sets it, and so on until all come from estimates searched that deep,
//! or from exact values. The margin matters as much as the ends: the minimax picks its
//! estimate as the best for one side and the worst for the other among many shallow ones,
//! so a shallow estimate there is the one most likely to be off. And where the root's lower
//! end comes from a side line whose estimate is already deep, the main line's own lower end
//! is the one that can still rise past it: it is refined too (and the upper end likewise).

use crate::bracket::{Figure, Setter};
use crate::expand::{Builder, EvaluatorFactory, Event};
use crate::workers::{with_workers, WorkerEvaluator};
use crate::{file, Book, BookError, Estimate};
use hane_engine::{Action, Game, GameState};
use hane_host::Stop;
use std::collections::HashSet;
use std::sync::mpsc;
use std::time::Instant;

/// A refinement done.
#[derive(Clone, Debug, PartialEq)]
pub struct Refined {
    /// The figure whose estimate was searched again.
    pub figure: Figure,
    /// The searched node's moves from the root.
    pub depth: usize,
    /// Its estimate before and after, Black's margin at the book's komi with the half-width.
    pub before: (f32, f32),
    /// After.
    pub after: (f32, f32),
    /// The root's margin and bracket now.
    pub fair: crate::FairKomi,
    /// Refinements in this run.
    pub count: usize,
}

impl std::fmt::Display for Refined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "refinement {}: the {}'s estimate {} moves deep, {:+.2} ± {:.2} -> {:+.2} ± {:.2}; {}",
            self.count,
            self.figure,
            self.depth,
            self.before.0,
            self.before.1,
            self.after.0,
            self.after.1,
            self.fair
        )
    }
}

/// Where a book grown to `until` expansions is refined and its figures are reported: at every
/// twentieth of `until` in the last quarter, and at `until`. Before the last quarter the
/// book is still changing under the figures, and a refinement there is mostly spent on
/// estimates that later ones replace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoints {
    step: u64,
    from: u64,
    until: u64,
}

impl Checkpoints {
    /// The checkpoints of a book grown to `until` expansions.
    pub fn of(until: u64) -> Checkpoints {
        Checkpoints { step: (until / 20).max(1), from: until - until / 4, until }
    }

    /// Whether `expansions` is a twentieth of the last quarter.
    pub fn holds(&self, expansions: u64) -> bool {
        expansions >= self.from && expansions % self.step == 0
    }

    /// The first checkpoint after `expansions` (at most `until`).
    fn after(&self, expansions: u64) -> u64 {
        let next = if expansions < self.from {
            self.from.div_ceil(self.step) * self.step
        } else {
            (expansions / self.step + 1) * self.step
        };
        self.until.min(next)
    }
}

impl Builder {
    /// Expands `book` to `until` expansions in all ([`Builder::run`]), and where
    /// [`crate::Settings::refine_visits`] is set, refines its figures ([`Builder::refine`])
    /// at its [`Checkpoints`], so that the figures reported there are refined ones. Returns
    /// whether the target was reached (or the book is complete).
    pub fn grow(
        &self,
        book: &mut Book,
        factory: &EvaluatorFactory,
        until: u64,
        stop: &Stop,
        on: &mut dyn FnMut(&Event),
    ) -> Result<bool, BookError> {
        if self.settings().refine_visits == 0 {
            return self.run(book, factory, until, stop, on);
        }
        let checkpoints = Checkpoints::of(until);
        loop {
            let before = book.expansions;
            let next = checkpoints.after(book.expansions);
            if !self.run_part(book, factory, next, until, stop, on)?
                || !self.refine(book, factory, stop, on)?
            {
                return Ok(false);
            }
            if book.expansions >= until || book.expansions == before {
                return Ok(true);
            }
        }
    }

    /// Searches the estimates that set the root's margin and bracket ends again with
    /// [`crate::Settings::refine_visits`] visits, the margin's first, then the end farther
    /// from the margin, then the main line's ends ([`Figure::MainLower`]), until all of them
    /// come from estimates of at least a quarter of those visits at their best move (or exact
    /// values), or `stop` is set. As many at once as the book has expansion threads, each on
    /// its own thread and evaluator (with one, the order and the book are the same on every
    /// run); a refinement chosen while another was under way is applied even where that one
    /// moved the figures elsewhere (a deeper estimate is never worse). Saves after each.
    /// Returns whether it got there (false: stopped).
    pub fn refine(
        &self,
        book: &mut Book,
        factory: &EvaluatorFactory,
        stop: &Stop,
        on: &mut dyn FnMut(&Event),
    ) -> Result<bool, BookError> {
        let visits = self.settings().refine_visits;
        if visits == 0 {
            return Ok(true);
        }
        book.recompute();
        let threads = self.settings().threads.max(1);
        let work = |job: Job, ev: &mut WorkerEvaluator| {
            let mut evaluations = 0;
            let search = self.search(&job.state, &job.in_book, visits, job.seed, ev, stop, &mut evaluations);
            search.map(|search| Searched {
                node: job.node,
                estimate: search
                    .most_visited_child()
                    .map(|best| self.estimate(&best, job.state.to_move(), job.max_prior)),
                evaluations,
            })
        };
        with_workers(threads, factory, work, |work_tx, done_rx| {
            self.refine_jobs(book, work_tx, done_rx, threads, stop, on)
        })
    }

    /// Hands out the refinements to `threads` searches and applies what they find (see
    /// [`Builder::refine`]).
    fn refine_jobs(
        &self,
        book: &mut Book,
        work: &mpsc::Sender<Job>,
        done_rx: &mpsc::Receiver<Option<Searched>>,
        threads: usize,
        stop: &Stop,
        on: &mut dyn FnMut(&Event),
    ) -> Result<bool, BookError> {
        let visits = self.settings().refine_visits;
        let deep = |v: u32| u64::from(v) * 4 >= u64::from(visits);
        let mut done: HashSet<u32> = HashSet::new();
        let mut busy: Vec<(u32, Figure, Estimate)> = Vec::new();
        let komi = book.header.komi as f32;
        loop {
            while busy.len() < threads && !stop.requested() {
                let Some((figure, i, before)) =
                    next_refinement(book, &deep, |i| done.contains(&i) || busy.iter().any(|b| b.0 == i))
                else {
                    break;
                };
                let n = &book.nodes[i as usize];
                let job = Job {
                    node: i,
                    state: n.state.clone(),
                    in_book: n.children.iter().map(|e| e.action).collect(),
                    seed: self.settings().seed ^ n.key ^ 0x2EF1_4E5D,
                    max_prior: before.max_prior,
                };
                if work.send(job).is_err() {
                    return Ok(false);
                }
                busy.push((i, figure, before));
            }
            if busy.is_empty() {
                return Ok(!stop.requested());
            }
            let t = Instant::now();
            let Ok(Some(searched)) = done_rx.recv() else { return Ok(false) };
            let Some(k) = busy.iter().position(|b| b.0 == searched.node) else { return Ok(false) };
            let (i, figure, before) = busy.swap_remove(k);
            book.evaluations += searched.evaluations;
            book.seconds += t.elapsed().as_secs_f64();
            done.insert(i);
            let Some(after) = searched.estimate else { continue };
            let node = &mut book.nodes[i as usize];
            node.own = Some(after);
            node.searched = true;
            book.recompute();
            if let Some(path) = &self.settings().save {
                file::save(book, path)?;
            }
            on(&Event::Refined(Refined {
                figure,
                depth: book.nodes[i as usize].moves.len(),
                before: (komi + before.lead, before.error),
                after: (komi + after.lead, after.error),
                fair: book.fair_komi(),
                count: done.len(),
            }));
        }
    }
}

/// A refinement's search, handed to a thread.
struct Job {
    node: u32,
    state: GameState,
    /// The node's book moves, left out of the search.
    in_book: Vec<Action>,
    seed: u64,
    /// The node's estimate's, kept in the new one.
    max_prior: f32,
}

/// What a refinement's search found: the node's new estimate (`None`: no move was visited).
struct Searched {
    node: u32,
    estimate: Option<Estimate>,
    evaluations: u64,
}

/// The next estimate to search again: the margin's while it is shallow, else the refinable
/// end farther from the margin (the lower one on a tie), else the main line's ends; among
/// those not deep and not `skip`ped. With its figure and the estimate as it is.
fn next_refinement(
    book: &Book,
    deep: &dyn Fn(u32) -> bool,
    skip: impl Fn(u32) -> bool,
) -> Option<(Figure, u32, Estimate)> {
    let root = *book.root();
    [Figure::Margin, Figure::Lower, Figure::Upper, Figure::MainLower, Figure::MainUpper]
        .into_iter()
        .filter_map(|figure| {
            let src = book.source(figure)?;
            let Setter::Estimate(e) = src.setter else { return None };
            (!deep(e.visits) && !skip(src.node)).then(|| {
                // (rank, the end's distance from the margin): the smallest rank first, then the
                // largest distance.
                let order = match figure {
                    Figure::Margin => (0, 0.0),
                    Figure::Lower => (1, root.lead - root.lower),
                    Figure::Upper => (1, root.upper - root.lead),
                    Figure::MainLower => (2, 0.0),
                    Figure::MainUpper => (3, 0.0),
                };
                (order, figure, src.node, e)
            })
        })
        .min_by(|(a, ..), (b, ..)| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .map(|(_, figure, node, e)| (figure, node, e))
}
