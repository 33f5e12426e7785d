//! Growing the book: pick the cheapest node, search it with its book moves excluded, add the
//! search's best move, search it again without that move (KataGo's `expandNode`), settle new
//! positions by the rules or the exact solver, back the values up, save.

use crate::cost::{cheapest, CostWeights};
use crate::{file, Book, BookError, Edge, Estimate, FairKomi};
use hane_engine::{Action, Color, Game, GameState};
use hane_mcts::{ChildStats, EvalRequest, Evaluator, Search, SearchConfig};
use hane_solver::{solve_after, SolveOptions};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
    /// A bracket's half-width, per point of the score's spread over the best move's visits.
    pub error_factor: f32,
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
}

impl Settings {
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
            error_factor: 0.5,
            solve_from_ply: 40,
            solve_nodes: 200_000,
            weights: CostWeights::default(),
            search,
            seed: 1,
            save: None,
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

/// Grows a book with an evaluator.
#[derive(Debug)]
pub struct Builder {
    settings: Settings,
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

    /// Expands `book` until it has had `until` expansions in all, nothing is left to expand,
    /// or `stop` is set (the expansion under way is then dropped); saves after every
    /// expansion when [`Settings::save`] is set. Returns whether the target was reached (or
    /// the book is complete).
    pub fn run<E: Evaluator<GameState>>(
        &self,
        book: &mut Book,
        ev: &mut E,
        until: u64,
        stop: &Arc<AtomicBool>,
        on: &mut dyn FnMut(&Event),
    ) -> Result<bool, BookError> {
        let clock = Instant::now();
        let start_evals = book.evaluations;
        let start_expansions = book.expansions;
        book.recompute();
        if book.expansions > 0 {
            on(&Event::Continuing { nodes: book.nodes.len(), expansions: book.expansions });
        }
        while book.expansions < until {
            if stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let t = Instant::now();
            let root = &book.nodes[0];
            let next = if root.own.is_none() && root.children.is_empty() && root.exact.is_none() {
                if root.state.is_over() {
                    None
                } else {
                    Some(0)
                }
            } else {
                cheapest(book, &self.settings.weights, 1).first().map(|&(i, _)| i)
            };
            let Some(i) = next else { return Ok(true) };
            if self.expand(book, i, ev, stop, on).is_none() {
                return Ok(false);
            }
            book.expansions += 1;
            book.seconds += t.elapsed().as_secs_f64();
            book.recompute();
            if let Some(path) = &self.settings.save {
                file::save(book, path)?;
            }
            let secs = clock.elapsed().as_secs_f64().max(1e-9);
            let done = (book.expansions - start_expansions) as f64;
            on(&Event::Expanded(Status {
                expansions: book.expansions,
                nodes: book.nodes.len(),
                fair: book.fair_komi(),
                evaluations: book.evaluations,
                evals_per_second: (book.evaluations - start_evals) as f64 / secs,
                eta_seconds: secs / done * (until - book.expansions) as f64,
                ply: crate::key::ply(&book.nodes[i as usize].state),
            }));
        }
        Ok(true)
    }

    /// One expansion of node `i`; `None` when stopped (nothing changed then).
    fn expand<E: Evaluator<GameState>>(
        &self,
        book: &mut Book,
        i: u32,
        ev: &mut E,
        stop: &Arc<AtomicBool>,
        on: &mut dyn FnMut(&Event),
    ) -> Option<()> {
        let s = &self.settings;
        let g = book.nodes[i as usize].state.clone();
        let legal = legal(&g);
        let raw = ev.evaluate(&[EvalRequest { state: g.clone(), legal: legal.clone() }]).pop()?;
        book.evaluations += 1;
        let prior = |a: Action| legal.iter().position(|&b| b == a).map_or(0.0, |k| raw.policy[k].max(0.0));
        let mut in_book: Vec<Action> = book.nodes[i as usize].children.iter().map(|e| e.action).collect();
        let seed = s.seed ^ book.nodes[i as usize].key ^ book.expansions.wrapping_mul(0x9E37_79B9);
        let first = self.search(&g, &in_book, s.visits, seed, ev, stop, book)?;
        let best = first.most_visited_child();
        if let Some(best) = best {
            let (child, _, new) = book.child(i, best.action)?;
            let target = book.nodes[child as usize].key;
            // The move and every image of it under the position's symmetries lead to one node.
            let open: Vec<Action> = legal.iter().copied().filter(|a| !in_book.contains(a)).collect();
            for a in open {
                let same = a == best.action || book.key_after(i, a) == Some(target);
                if same {
                    let (c, sym, _) = book.child(i, a)?;
                    book.nodes[i as usize].children.push(Edge { action: a, child: c, sym, prior: prior(a) });
                    in_book.push(a);
                }
            }
            if new {
                self.settle(book, child, &best, g.to_move(), stop, on);
            }
        }
        let rest: Vec<Action> = legal.iter().copied().filter(|a| !in_book.contains(a)).collect();
        let own = if rest.is_empty() {
            None
        } else {
            let max_prior = rest.iter().map(|&a| prior(a)).fold(0.0, f32::max);
            let again = self.search(&g, &in_book, s.revisit, seed ^ 0x5EA2C4, ev, stop, book);
            let fallback = || {
                first
                    .root_children()
                    .into_iter()
                    .filter(|c| c.visits > 0 && !in_book.contains(&c.action))
                    .max_by_key(|c| c.visits)
            };
            let stats = match &again {
                Some(s2) => s2.most_visited_child(),
                None => fallback(),
            };
            stats.map(|c| self.estimate(&c, g.to_move(), max_prior))
        };
        let node = &mut book.nodes[i as usize];
        node.own = own;
        node.searched = true;
        node.raw_best = legal.iter().zip(&raw.policy).max_by(|a, b| a.1.total_cmp(b.1)).map(|(&a, _)| a);
        Some(())
    }

    /// Sets a new node's estimate from its parent's search (`stats`, from `mover`'s view),
    /// or its exact value where the game is over or the solver settles it.
    fn settle(
        &self,
        book: &mut Book,
        child: u32,
        stats: &ChildStats<Action>,
        mover: Color,
        stop: &Arc<AtomicBool>,
        on: &mut dyn FnMut(&Event),
    ) {
        let s = &self.settings;
        let node = book.nodes[child as usize].clone();
        if node.state.is_over() {
            let lead = node.state.score().margin_black() as f32;
            book.nodes[child as usize].exact = Some(lead);
            return;
        }
        book.nodes[child as usize].own = Some(self.estimate(stats, mover, 1.0));
        let ply = crate::key::ply(&node.state);
        if ply < s.solve_from_ply {
            return;
        }
        let rules = *node.state.rules();
        let opts = SolveOptions {
            table_bits: 18,
            node_limit: s.solve_nodes,
            progress_every: u64::MAX,
            stop: Some(Arc::clone(stop)),
            ..SolveOptions::default()
        };
        book.nodes[child as usize].solve_tried = true;
        if let Ok(sol) = solve_after(&rules, &node.moves, &opts, &mut |_| {}) {
            let lead = sol.margin as f32 - rules.komi.as_f64() as f32;
            book.nodes[child as usize].exact = Some(lead);
            on(&Event::Solved { ply, lead, nodes: sol.stats.nodes });
        }
    }

    /// A root child's statistics (from `mover`'s view) as an estimate, Black's view.
    fn estimate(&self, c: &ChildStats<Action>, mover: Color, max_prior: f32) -> Estimate {
        let (lead, win) = match mover {
            Color::Black => (c.score, c.wdl[0] + 0.5 * c.wdl[1]),
            Color::White => (-c.score, c.wdl[2] + 0.5 * c.wdl[1]),
        };
        Estimate { lead, error: self.settings.error_factor * c.score_stdev, win, visits: c.visits, max_prior }
    }

    /// A search of `g` with `exclude` left out at its root, to `visits` visits (counted into
    /// the book's evaluations); `None` when stopped.
    #[allow(clippy::too_many_arguments)]
    fn search<E: Evaluator<GameState>>(
        &self,
        g: &GameState,
        exclude: &[Action],
        visits: u32,
        seed: u64,
        ev: &mut E,
        stop: &AtomicBool,
        book: &mut Book,
    ) -> Option<Search<GameState>> {
        let s = &self.settings;
        let mut search = Search::new(g.clone(), s.search, seed);
        let ex = exclude.to_vec();
        search.set_move_filter(Box::new(move |depth, _, a| depth > 0 || !ex.contains(a)));
        let step = (s.batch as u32).saturating_mul(8).max(1);
        while search.root_visits() < visits {
            let before = search.root_visits();
            search.run(ev, before.saturating_add(step).min(visits), s.batch);
            book.evaluations += u64::from(search.root_visits() - before);
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            if search.root_visits() == before {
                break;
            }
        }
        Some(search)
    }
}
