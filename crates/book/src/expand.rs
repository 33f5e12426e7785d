//! Growing the book: pick the cheapest node, search it with its book moves excluded, add the
//! search's best move, search it again without that move (KataGo's `expandNode`), settle new
//! positions by the rules or the exact solver, back the values up, save.

use crate::cost::{cheapest, CostWeights};
use crate::key::{self, History};
use crate::workers::{with_workers, WorkerEvaluator};
use crate::{file, Book, BookError, Edge, Estimate, FairKomi};
use hane_engine::{Action, Color, Game, GameState};
use hane_host::Stop;
use hane_mcts::{ChildStats, EvalRequest, Evaluator, Search, SearchConfig};
use hane_solver::{solve_after, SolveOptions};
use std::path::PathBuf;
use std::time::Instant;

/// How the book grows.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Visits of the search that picks a node's next book move.
    pub visits: u32,
    /// Visits of the search that refreshes the node's estimate after the move is added.
    pub revisit: u32,
    /// Leaves per evaluator call.
    pub batch: usize,
    /// A bracket's half-width, per point of the score's spread over the best move's visits,
    /// for an estimate of 1,000 visits (see `error_decay`).
    pub error_factor: f32,
    /// How the half-width shrinks with the estimate's visits: it scales as `(1000 /
    /// visits)^error_decay`. Measured on 7x7 Go: a search 8 times deeper moves an estimate of
    /// 1,000 visits by 0.34 times its spread (rms), one of 8,000 by 0.17 (docs/book.md).
    pub error_decay: f32,
    /// At every twentieth of the expansions in the last quarter and at the end
    /// ([`Builder::grow`]), re-search the estimates that set the root's margin and bracket
    /// ends (and the main line's ends) with this many visits until all come from estimates
    /// that deep (or exact values) (0: no refinement).
    pub refine_visits: u32,
    /// The solver is tried on new positions from this ply on (`2 * turns`, plus one in a
    /// Sligo placement); `u32::MAX`: never.
    pub solve_from_ply: u32,
    /// The solver's node budget per position.
    pub solve_nodes: u64,
    /// The path cost's weights.
    pub weights: CostWeights,
    /// The searches' settings (no root noise: the book wants the best move, not variety).
    pub search: SearchConfig,
    /// Seed of the searches.
    pub seed: u64,
    /// Save here after every expansion (atomically).
    pub save: Option<PathBuf>,
    /// Expansions (and refinements) searched at once, each on a thread with its own evaluator
    /// (1: one at a time, and the book is the same on every run; more use more cores, and
    /// which node is expanded next then depends on which search ends first).
    pub threads: usize,
}

impl Settings {
    /// These settings with `visits` per search and half of them (at least one) to re-search.
    pub fn searching(self, visits: u32) -> Settings {
        Settings { visits, revisit: (visits / 2).max(1), ..self }
    }

    /// Defaults for a board of `size`: 800 visits, 400 to re-search, the solver from ply 40
    /// with 200,000 nodes.
    pub fn for_board(size: usize) -> Settings {
        let mut search = SearchConfig::for_board(size).with_noise(false);
        // Every legal action is searchable: a proven node must have had every one looked at.
        search.prune_premature_pass = false;
        Settings {
            visits: 800,
            revisit: 400,
            batch: 16,
            error_factor: 0.45,
            error_decay: 0.28,
            refine_visits: 0,
            solve_from_ply: 40,
            solve_nodes: 200_000,
            weights: CostWeights::default(),
            search,
            seed: 1,
            save: None,
            threads: 1,
        }
    }
}

/// What the builder reports.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The book continues a saved one of this size.
    Continuing {
        /// Its nodes.
        nodes: usize,
        /// Its expansions so far.
        expansions: u64,
    },
    /// An expansion is done.
    Expanded(Status),
    /// An estimate that set an end of the root's bracket was searched again, deeper.
    Refined(crate::refine::Refined),
    /// The solver settled a new position.
    Solved {
        /// The position's ply.
        ply: u32,
        /// Its exact lead for Black at the book's komi.
        lead: f32,
        /// Solver nodes.
        nodes: u64,
    },
}

/// Where the book stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// Expansions over every run.
    pub expansions: u64,
    /// Nodes in the book.
    pub nodes: usize,
    /// Black's margin at the root.
    pub fair: FairKomi,
    /// Net evaluations over every run.
    pub evaluations: u64,
    /// Evaluations per second in this run.
    pub evals_per_second: f64,
    /// Seconds to the expansion target at this run's pace.
    pub eta_seconds: f64,
    /// The expanded node's ply.
    pub ply: u32,
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expansion {}: {} nodes, {}, {} evaluations ({:.0}/s), ply {}, about {:.0} s to go",
            self.expansions,
            self.nodes,
            self.fair,
            self.evaluations,
            self.evals_per_second,
            self.ply,
            self.eta_seconds
        )
    }
}

/// Makes an evaluator; each expansion thread calls it once (so evaluators need not be
/// `Send`: a net is loaded on the thread that runs it).
pub type EvaluatorFactory<'a> = dyn Fn() -> Box<dyn Evaluator<GameState>> + Sync + 'a;

/// Grows a book with an evaluator.
#[derive(Debug)]
pub struct Builder {
    settings: Settings,
}

/// What an expansion thread needs of a node.
struct Work {
    node: u32,
    state: GameState,
    history: History,
    moves: Vec<Action>,
    in_book: Vec<Action>,
    seed: u64,
}

/// The value of a child an expansion added.
#[derive(Clone, Copy)]
struct NewChild {
    /// The parent's search's estimate of it.
    estimate: Estimate,
    /// Its exact lead, where the game is over or the solver settled it, and the solver's nodes.
    exact: Option<(f32, u64)>,
    /// Whether the solver was tried.
    tried: bool,
}

/// What an expansion found.
struct Outcome {
    node: u32,
    /// The action the raw policy likes best.
    raw_best: Option<Action>,
    /// The best move and its images under the position's symmetries, each with its raw policy.
    added: Vec<(Action, f32)>,
    /// The new child's value.
    child: Option<NewChild>,
    /// The node's estimate of the moves still not in the book.
    own: Option<Estimate>,
    evaluations: u64,
}

/// The legal actions of `g` (every one: the book does not prune passes).
fn legal(g: &GameState) -> Vec<Action> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

impl Builder {
    /// A builder with these settings.
    pub fn new(settings: Settings) -> Builder {
        Builder { settings }
    }

    /// Its settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Expands `book` until it has had `until` expansions in all, nothing is left to expand,
    /// or `stop` is set (expansions under way are then dropped), with evaluators from
    /// `factory` ([`Settings::threads`] of them); saves after every expansion when
    /// [`Settings::save`] is set. Returns whether the target was reached (or the book is
    /// complete).
    pub fn run(
        &self,
        book: &mut Book,
        factory: &EvaluatorFactory,
        until: u64,
        stop: &Stop,
        on: &mut dyn FnMut(&Event),
    ) -> Result<bool, BookError> {
        self.run_part(book, factory, until, until, stop, on)
    }

    /// [`Builder::run`] to `until` as part of a run to `target`, the time to go reported to
    /// `target` at this part's pace.
    pub(crate) fn run_part(
        &self,
        book: &mut Book,
        factory: &EvaluatorFactory,
        until: u64,
        target: u64,
        stop: &Stop,
        on: &mut dyn FnMut(&Event),
    ) -> Result<bool, BookError> {
        let clock = Instant::now();
        let (start_evals, start_expansions) = (book.evaluations, book.expansions);
        book.recompute();
        if book.expansions > 0 {
            on(&Event::Continuing { nodes: book.nodes.len(), expansions: book.expansions });
        }
        let threads = self.settings.threads.max(1);
        let work = |w, ev: &mut WorkerEvaluator| self.work(w, ev, stop);
        with_workers(threads, factory, work, |work_tx, done_rx| {
            let mut busy: Vec<u32> = Vec::new();
            let mut result = Ok(true);
            loop {
                // Hand out work while threads are free and expansions are due.
                while busy.len() < threads
                    && book.expansions + (busy.len() as u64) < until
                    && !stop.requested()
                {
                    let Some(i) = self.next(book, &busy) else { break };
                    busy.push(i);
                    let n = &book.nodes[i as usize];
                    let w = Work {
                        node: i,
                        state: n.state.clone(),
                        history: n.history,
                        moves: n.moves.clone(),
                        in_book: n.children.iter().map(|e| e.action).collect(),
                        seed: self.settings.seed ^ n.key ^ book.expansions.wrapping_mul(0x9E37_79B9),
                    };
                    if work_tx.send(w).is_err() {
                        break;
                    }
                }
                if busy.is_empty() {
                    if stop.requested() {
                        result = Ok(false);
                    }
                    break;
                }
                let t = Instant::now();
                let Ok(done) = done_rx.recv() else { break };
                let Some(outcome) = done else {
                    // Stopped mid-search: drop what is under way.
                    result = Ok(false);
                    break;
                };
                busy.retain(|&b| b != outcome.node);
                let i = outcome.node;
                self.apply(book, outcome, on);
                book.expansions += 1;
                book.seconds += t.elapsed().as_secs_f64();
                book.recompute();
                if let Some(path) = &self.settings.save {
                    if let Err(e) = file::save(book, path) {
                        result = Err(e);
                        break;
                    }
                }
                let secs = clock.elapsed().as_secs_f64().max(1e-9);
                let done = (book.expansions - start_expansions) as f64;
                on(&Event::Expanded(Status {
                    expansions: book.expansions,
                    nodes: book.nodes.len(),
                    fair: book.fair_komi(),
                    evaluations: book.evaluations,
                    evals_per_second: (book.evaluations - start_evals) as f64 / secs,
                    eta_seconds: secs / done * target.saturating_sub(book.expansions) as f64,
                    ply: key::ply(&book.nodes[i as usize].state),
                }));
            }
            result
        })
    }

    /// The next node to expand: the root before its first search, else the cheapest node
    /// not being expanded already.
    fn next(&self, book: &Book, busy: &[u32]) -> Option<u32> {
        let root = &book.nodes[0];
        if root.own.is_none() && root.children.is_empty() && root.exact.is_none() {
            return (!root.state.is_over() && busy.is_empty()).then_some(0);
        }
        cheapest(book, &self.settings.weights, busy.len() + 1)
            .into_iter()
            .map(|(i, _)| i)
            .find(|i| !busy.contains(i))
    }

    /// One expansion's searches (on an expansion thread); `None` when stopped.
    fn work(&self, w: Work, ev: &mut WorkerEvaluator, stop: &Stop) -> Option<Outcome> {
        let s = &self.settings;
        let g = &w.state;
        let legal = legal(g);
        let raw = ev.evaluate(&[EvalRequest { state: g.clone(), legal: legal.clone() }]).pop()?.policy;
        let mut evaluations = 1;
        let prior = |a: Action| legal.iter().position(|&b| b == a).map_or(0.0, |k| raw[k].max(0.0));
        let mut in_book = w.in_book;
        let first = self.search(g, &in_book, s.visits, w.seed, ev, stop, &mut evaluations)?;
        let mut added = Vec::new();
        let mut child = None;
        if let Some(best) = first.most_visited_child() {
            let (state, _, target) = key::step(g, &w.history, best.action)?;
            // The move and every image of it under the position's symmetries lead to one node.
            for a in legal.iter().copied().filter(|a| !in_book.contains(a)) {
                if a == best.action
                    || key::step(g, &w.history, a).is_some_and(|(_, _, c)| c.key == target.key)
                {
                    added.push((a, prior(a)));
                }
            }
            in_book.extend(added.iter().map(|&(a, _)| a));
            let estimate = self.estimate(&best, g.to_move(), 1.0);
            let (exact, tried) = if state.is_over() {
                (Some((state.score().margin_black() as f32, 0)), false)
            } else if key::ply(&state) >= s.solve_from_ply {
                let mut moves = w.moves.clone();
                moves.push(best.action);
                (self.solve(&state, &moves, stop), true)
            } else {
                (None, false)
            };
            child = Some(NewChild { estimate, exact, tried });
        }
        let rest: Vec<Action> = legal.iter().copied().filter(|a| !in_book.contains(a)).collect();
        let own = if rest.is_empty() {
            None
        } else {
            let max_prior = rest.iter().map(|&a| prior(a)).fold(0.0, f32::max);
            let again = self.search(g, &in_book, s.revisit, w.seed ^ 0x5EA2C4, ev, stop, &mut evaluations)?;
            // Moves are left out of the book, so the node keeps an estimate whatever the
            // searches saw (a search too small to visit a child gives one whose bracket spans
            // every score): a node without one would pass for one with every move in the book.
            let first_rest = || {
                let rest = first
                    .root_children()
                    .into_iter()
                    .filter(|c| c.visits > 0 && !in_book.contains(&c.action));
                rest.max_by_key(|c| c.visits)
            };
            let unknown = Estimate { lead: 0.0, error: 1.0e4, win: 0.5, visits: 0, max_prior };
            Some(
                again
                    .most_visited_child()
                    .or_else(first_rest)
                    .map_or(unknown, |c| self.estimate(&c, g.to_move(), max_prior)),
            )
        };
        let raw_best = legal.iter().zip(&raw).max_by(|a, b| a.1.total_cmp(b.1)).map(|(&a, _)| a);
        Some(Outcome { node: w.node, raw_best, added, child, own, evaluations })
    }

    /// The exact lead of the position after `moves` and the solver's nodes, if the solver
    /// settles it within its budget.
    fn solve(&self, state: &GameState, moves: &[Action], stop: &Stop) -> Option<(f32, u64)> {
        let rules = *state.rules();
        let opts = SolveOptions {
            table_bits: 18,
            node_limit: self.settings.solve_nodes,
            progress_every: u64::MAX,
            stop: stop.clone(),
            ..SolveOptions::default()
        };
        let sol = solve_after(&rules, moves, &opts, &mut |_| {}).ok()?;
        Some((sol.margin as f32 - rules.komi.as_f64() as f32, sol.stats.nodes))
    }

    /// Puts an expansion's outcome into the book.
    fn apply(&self, book: &mut Book, o: Outcome, on: &mut dyn FnMut(&Event)) {
        let i = o.node;
        for (k, &(a, prior)) in o.added.iter().enumerate() {
            let Some((c, sym, new)) = book.child(i, a) else { continue };
            book.nodes[i as usize].children.push(Edge { action: a, child: c, sym, prior });
            if let (0, true, Some(NewChild { estimate, exact, tried })) = (k, new, o.child) {
                let node = &mut book.nodes[c as usize];
                node.solve_tried = tried;
                match exact {
                    Some((lead, nodes)) => {
                        node.exact = Some(lead);
                        if tried {
                            on(&Event::Solved { ply: key::ply(&node.state), lead, nodes });
                        }
                    }
                    None => node.own = Some(estimate),
                }
            }
        }
        let node = &mut book.nodes[i as usize];
        node.own = o.own;
        node.searched = true;
        node.raw_best = o.raw_best;
        book.evaluations += o.evaluations;
    }

    /// A root child's statistics (from `mover`'s view) as an estimate, Black's view.
    pub(crate) fn estimate(&self, c: &ChildStats<Action>, mover: Color, max_prior: f32) -> Estimate {
        let (lead, win) = match mover {
            Color::Black => (c.score, c.wdl[0] + 0.5 * c.wdl[1]),
            Color::White => (-c.score, c.wdl[2] + 0.5 * c.wdl[1]),
        };
        let depth = (1000.0 / c.visits.max(1) as f32).powf(self.settings.error_decay);
        let error = self.settings.error_factor * c.score_stdev * depth;
        Estimate { lead, error, win, visits: c.visits, max_prior }
    }

    /// A search of `g` with `exclude` left out at its root, to `visits` visits (counted into
    /// `evaluations`); `None` when stopped.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn search(
        &self,
        g: &GameState,
        exclude: &[Action],
        visits: u32,
        seed: u64,
        ev: &mut Box<dyn Evaluator<GameState>>,
        stop: &Stop,
        evaluations: &mut u64,
    ) -> Option<Search<GameState>> {
        let s = &self.settings;
        let mut search = Search::new(g.clone(), s.search, seed);
        let ex = exclude.to_vec();
        search.set_move_filter(Box::new(move |depth, _, a| depth > 0 || !ex.contains(a)));
        let step = (s.batch as u32).saturating_mul(8).max(1);
        while search.root_visits() < visits {
            let before = search.root_visits();
            search.run(ev, before.saturating_add(step).min(visits), s.batch);
            *evaluations += u64::from(search.root_visits() - before);
            if stop.requested() {
                return None;
            }
            if search.root_visits() == before {
                break;
            }
        }
        Some(search)
    }
}
