//! The alpha-beta search behind [`super::solve_after`].
//!
//! Every node returns proven bounds `lower <= value <= upper` (Black's value; fail-soft:
//! a bound outside the window is all a cutoff proves). Under area scoring with pass-alive
//! removal, Benson's analysis bounds every position ([`benson_bounds`]); there the search is
//! depth-limited and deepened [`DEPTH_STEP`] plies at a time, a position at the horizon
//! answering with its static bounds, so that short proofs are found before the long lines
//! positional superko allows are walked. Elsewhere the search goes to the end of every line
//! at once. After a pass, a Go player may end the game by passing too, so the count of the
//! position bounds the mover's result there (at the horizon as well).
//!
//! The root value is found with null-window searches ("is the value at least x?"): first at
//! a guessed value and one above it if the caller has a guess, else by bisection; the table
//! carries what each search proved into the next. One such test is also a run of its own
//! (`crate::test_at_least`, `hane solve --at-least`).
//!
//! Under positional superko (Go), each test is a proof-number search instead
//! (`proof_numbers`): it has no horizon and goes where a proof is cheapest. 4x4 Go is pinned in a quarter of the nodes of the proof searches below
//! (docs/solver.md). Both store the same proven bounds in the same table. The rest of this
//! page is the alpha-beta search, which the other rule sets use.
//!
//! # Proof searches
//!
//! A depth-limited test is run as a proof search for one side at a time, the *prover*
//! (Black for "at least x", White for "below x"). At the prover's nodes any action may prove
//! the test; at the opponent's nodes every action must be refuted, so the first child the
//! prover has not won yet (decided against it, or undecided at the horizon) ends the node:
//! the prover cannot win it at this depth. This prunes what a plain search would go on
//! exploring there only to prove the opposite, which the other side's own proof search does
//! directly. The bounds returned stay proven either way (an opponent's node searched in part
//! keeps only its static bound on the opponent's side), so the table stores them as usual; an
//! undecided entry stands in for a new search only for the same prover and test, searched at
//! least as deep.
//!
//! Each deepening runs Black's proof search, then White's; with an expected answer
//! ([`Expect`]), only the expected winner's up to a depth of twice the board's points, and
//! that one first beyond. One prover's search decides the test by itself once deep enough (a
//! line it has not won, decided against it, refutes it), so a wrong expectation costs time,
//! never the answer.
//!
//! With an expected answer, a proof search skips the prover's passes that do not end the
//! game, except where its only other moves fill its own eyes (not in a bisection: a search
//! that skips them cannot refute the test, and those searches order the other side's).
//! Skipping some of the prover's actions can only make its proof fail, never make it wrong:
//! such a node's bound on the prover's side still comes from the actions searched, and its
//! bound on the other side is the static one, as at any node searched in part. So the
//! table's entries stay proven bounds; an undecided one stands in only for a search that
//! skips the same (its scope says so). A
//! proof may need a pass (a seki where every move of the prover's loses), so beyond a depth of
//! twice the board's points nothing is skipped: the test is still decided (4x4 Go's "below
//! 9" is proved so, at depth 33: docs/solver.md).
//!
//! Within a node: the table first, then the best action the table remembers, a pass that ends
//! the game, the other actions by how often they caused a cutoff so far for the side to move
//! (the history heuristic), and a pass last; but first, if the table already holds a child's
//! bound beyond the window on the mover's side, that child (an enhanced transposition
//! cutoff, which only reorders: the child's search is then one table hit).
//!
//! Every few minutes, and when it stops, the search saves its table and the root's state
//! (`checkpoint`); only results of subtrees searched to the end of their scope are stored, so
//! a search cut short by a stop leaves no entry that claims more than was searched.

mod proof_numbers;

use super::checkpoint::{self, Root, SaveTo};
use super::deps::{Deps, Step, Stones};
use super::symmetry::Frames;
use super::table::{Entry, Scope, Table};
use super::{final_value, Progress, Prover, SolveError, SolveOptions};
use hane_engine::board::WALL;
use hane_engine::rules::{DeadStones, KoRule, Scoring, Variant};
use hane_engine::score::pass_alive;
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Color, Game, GameState};
use hane_host::Stop;
use std::time::Instant;

/// Plies added to the depth limit when a search ends undecided at the horizon.
const DEPTH_STEP: u32 = 4;

/// Nodes between two looks at the stop flag: about a hundredth of a second of search on 5x5
/// (progress reports, millions of nodes apart, came 12 s apart there).
const STOP_POLL: u64 = 1 << 12;

/// Entries of the cache of Benson bounds by board (24 bytes each).
const BENSON_CACHE: usize = 1 << 20;

/// What a test's answer is expected to be: which proof searches each iteration of
/// [`Search::decide`] runs. One prover's search alone decides the test once it is deep enough
/// (a line it has not won, decided against it, refutes it as the other side's proof would),
/// so a wrong expectation costs time, never the answer; beyond twice the board's points
/// both run, the expected winner's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// Black's proof, then White's.
    Unknown,
    /// White's proof, then Black's.
    LeanNo,
    /// Black's proof alone ("at least x" expected).
    Yes,
    /// White's proof alone ("below x" expected).
    No,
}

/// Proven bounds on a node's value, what they depend on, and the best action found.
struct Node {
    lower: i32,
    upper: i32,
    deps: Deps,
    best: Option<Action>,
}

/// Where a search saves what it proved (see `checkpoint`).
struct Saver {
    to: SaveTo,
    /// The solved position as the file names it.
    position: String,
    last: Instant,
    /// Whether the file exists: this run saved, or continues a save.
    saved: bool,
}

/// One search: the table, the current line's positions and the statistics.
pub(super) struct Search<'a> {
    table: Option<Table>,
    save: Option<Saver>,
    /// The first root's state once the search has moved on to others ([`Search::reroot`]):
    /// what the saves record as the root.
    first_root: Option<Root>,
    /// Why the last save failed; the search then gives up.
    save_error: Option<String>,
    /// The root's best action and whether a searched line hit the cap, so far.
    best: Option<Action>,
    capped: bool,
    /// Plies below the root of the node being searched.
    ply: u32,
    frames: Frames,
    /// Positions of the game so far, for positional superko (empty otherwise).
    path: Vec<Stones>,
    superko: bool,
    simple_ko: bool,
    /// Area scoring with pass-alive dead-stone removal: Benson bounds apply.
    benson: bool,
    territory: bool,
    /// Go: passing is always legal.
    go: bool,
    max_turns: u32,
    max_value: i32,
    /// In a proof search, the side trying to prove the test (see the module docs).
    prover: Option<Color>,
    /// In a proof search, the prover's passes that do not end the game are skipped (see the
    /// module docs).
    prune: bool,
    /// Cutoffs caused per side and action index (the history heuristic).
    history: Vec<u64>,
    /// Tests are decided by proof-number search (`proof_numbers`): under positional superko
    /// (no position repeats within a line, so the table's keys need no ko ban). Loose would
    /// allow it too, but there it costs more nodes than the alpha-beta search (docs/solver.md).
    proof_numbers: bool,
    /// Proof and disproof numbers of undecided nodes, made at the first proof-number search.
    numbers: Option<proof_numbers::Numbers>,
    /// Benson bounds and the count by board hash (direct-mapped).
    benson_cache: Vec<(u64, i32, i32, i32)>,
    stats: Progress,
    every: u64,
    node_limit: u64,
    /// [`SolveOptions::stop`], polled at each progress report and every [`STOP_POLL`] nodes.
    stop: Stop,
    /// The stop flag was seen set: the search gives up as at the node limit.
    stopped: bool,
    progress: &'a mut dyn FnMut(Progress),
    clock: Instant,
    /// Game states to reuse for children: the search recurses once per ply, and a state per
    /// frame on the stack would overflow it on long lines.
    spare: Vec<Box<GameState>>,
}

impl<'a> Search<'a> {
    /// A search from `start`, reached through the positions `line`; `position` names them
    /// in a saved solve. An existing save of the same position (see [`SolveOptions::save`])
    /// is loaded, and the search continues from it.
    pub fn new(
        start: &GameState,
        line: &[GameState],
        position: &str,
        options: &SolveOptions,
        progress: &'a mut dyn FnMut(Progress),
        clock: Instant,
    ) -> Result<Search<'a>, SolveError> {
        let rules = start.rules();
        assert!(rules.size <= 8, "the solver handles boards of up to 8x8");
        let superko = rules.ko == KoRule::Positional && rules.variant == Variant::Go;
        let path = if superko {
            line.iter().chain([start]).map(|g| Stones::of(g.board())).collect()
        } else {
            Vec::new()
        };
        let entries = options.table_entries.unwrap_or(if options.table_bits == 0 {
            0
        } else {
            1 << options.table_bits
        });
        let table = match entries {
            0 => None,
            n => Some(Table::new(n).map_err(|e| SolveError::Table(e.bytes))?),
        };
        let mut search = Search {
            table,
            save: None,
            first_root: None,
            save_error: None,
            best: None,
            capped: false,
            ply: 0,
            frames: Frames::new(start.geo()),
            path,
            superko,
            simple_ko: rules.ko == KoRule::Simple,
            benson: rules.variant == Variant::Go
                && rules.scoring == Scoring::Area
                && rules.dead == DeadStones::PassAlive,
            territory: rules.scoring == Scoring::Territory,
            go: rules.variant == Variant::Go,
            max_turns: rules.max_turns(),
            max_value: super::max_value(rules),
            prover: None,
            prune: false,
            history: vec![0; 2 * start.action_space()],
            proof_numbers: superko,
            numbers: None,
            benson_cache: vec![
                (0, 0, 0, 0);
                if rules.dead == DeadStones::PassAlive { BENSON_CACHE } else { 0 }
            ],
            stats: Progress::default(),
            every: options.progress_every.max(1),
            node_limit: options.node_limit,
            stop: options.stop.clone(),
            stopped: false,
            progress,
            clock,
            spare: Vec::new(),
        };
        search.stats.lower = -search.max_value;
        search.stats.upper = search.max_value;
        search.stats.depth = if search.benson { 1 } else { u32::MAX };
        search.stats.prover = Prover::Both;
        if let Some(to) = &options.save {
            let resumed = checkpoint::load(&to.path, position, start.action_space(), search.table.as_mut())
                .map_err(|e| SolveError::Resume(format!("{}: {e}", to.path.display())))?;
            let saved = resumed.is_some();
            if let Some((root, numbers)) = resumed {
                if !numbers.is_empty() {
                    search.numbers = Some(proof_numbers::Numbers::loaded(search.table.as_ref(), &numbers));
                }
                let s = &mut search.stats;
                (s.lower, s.upper, s.depth) = (root.lower, root.upper, root.depth);
                (s.resumed_nodes, s.resumed_seconds) = (root.nodes, root.seconds);
                search.best = Action::from_index(start.geo(), usize::from(root.best));
                search.capped = root.capped;
                search.history = root.history;
            }
            search.save =
                Some(Saver { to: to.clone(), position: position.into(), last: Instant::now(), saved });
        }
        search.table_stats();
        Ok(search)
    }

    /// The root's state as a save records it.
    fn root_record(&self) -> Root {
        Root {
            lower: self.stats.lower,
            upper: self.stats.upper,
            depth: self.stats.depth,
            best: self.best.map_or(u16::MAX, |a| a.index(self.frames.geo()) as u16),
            capped: self.capped,
            nodes: self.stats.resumed_nodes + self.stats.nodes,
            seconds: self.stats.resumed_seconds + self.clock.elapsed().as_secs_f64(),
            history: self.history.clone(),
        }
    }

    /// Saves what the search has proved (see `checkpoint`); a failure ends the search.
    fn write_save(&mut self) {
        let mut root = self.root_record();
        if let Some(first) = &self.first_root {
            root = Root { nodes: root.nodes, seconds: root.seconds, history: root.history, ..first.clone() };
        }
        let Some(save) = &mut self.save else { return };
        let numbers = self.numbers.as_ref().map(|n| n.entries()).unwrap_or_default();
        if let Err(e) = checkpoint::save(&save.to.path, &save.position, &root, self.table.as_ref(), &numbers)
        {
            self.save_error = Some(format!("cannot save the solve to {}: {e}", save.to.path.display()));
        }
        save.last = Instant::now();
        save.saved = true;
    }

    /// Why the search gave up, if a save failed.
    pub fn save_error(&self) -> Option<&str> {
        self.save_error.as_deref()
    }

    /// The table's fill, into the statistics.
    fn table_stats(&mut self) {
        if let Some(t) = &self.table {
            let s = &mut self.stats;
            (s.table_used, s.table_capacity, s.table_limit) =
                (t.used() as u64, t.capacity() as u64, t.limit() as u64);
        }
    }

    /// At the end of a run: the time, and a save if the run was cut short or there is one
    /// (so that it records the result).
    fn finish(&mut self, unfinished: bool) {
        self.stats.seconds = self.clock.elapsed().as_secs_f64();
        self.table_stats();
        if self.save_error.is_none() && self.save.as_ref().is_some_and(|s| unfinished || s.saved) {
            self.write_save();
        }
    }

    /// A copy of `g` on the heap, in a state from [`Search::spare`] when there is one.
    fn copy_of(&mut self, g: &GameState) -> Box<GameState> {
        match self.spare.pop() {
            Some(mut copy) => {
                copy.as_mut().clone_from(g);
                copy
            }
            None => Box::new(g.clone()),
        }
    }

    /// Solves `g`: its value, a best action and whether a searched line hit the cap; `None`
    /// at the node limit. `guess`, if any, is tested first: "is the value at least `guess`?",
    /// then "at least `guess + 1`?"; when it is right, those two null-window searches prove
    /// it. Otherwise, or without a guess, the remaining interval is bisected.
    pub fn run(&mut self, g: &GameState, guess: Option<i32>) -> Option<(i32, Option<Action>, bool)> {
        while self.stats.lower < self.stats.upper {
            let (lo, hi) = (self.stats.lower, self.stats.upper);
            // Is the value at least x?
            let x = match guess {
                Some(v) if lo < v && v <= hi => v,
                Some(v) if lo == v && v < hi => v + 1,
                _ => lo + (hi - lo + 1) / 2,
            };
            let expect = match guess {
                Some(v) if x == v => Expect::Yes,
                Some(v) if v.checked_add(1) == Some(x) => Expect::No,
                _ => Expect::Unknown,
            };
            self.decide(g, x, expect)?;
        }
        self.finish(false);
        Some((self.stats.lower, self.best, self.capped))
    }

    /// [`Search::decide`] as a whole run: whether the value of `g` is at least `x`, with
    /// the proven bounds in the statistics and the table saved as at the end of a solve;
    /// `None` when the search gives up.
    pub fn test(&mut self, g: &GameState, x: i32, expect: Expect) -> Option<bool> {
        let holds = self.decide(g, x, expect)?;
        self.finish(false);
        Some(holds)
    }

    /// Whether the value of `g` is at least `x`: deepens until a search decides it, and
    /// narrows the proven bounds in the statistics; `None` when the search gives up. Each
    /// iteration of a depth-limited search runs the proof searches `expect` asks for.
    pub fn decide(&mut self, g: &GameState, x: i32, expect: Expect) -> Option<bool> {
        let maximize = g.to_move() == Color::Black;
        self.stats.test = x;
        if self.proof_numbers {
            return self.prove(g, x);
        }
        // Skipping the prover's passes only weakens its proof; beyond `prune_depth` none is
        // skipped, so that a proof that needs one is still found. Nor does an expectation
        // leave out the other side's proof there, so that a wrong one costs little.
        let prune_depth = 2 * self.frames.geo().area() as u32;
        // Only with an expectation: in a bisection (no guess), a proof search that skips passes
        // cannot refute a test, and 4x4 Go took 325M nodes, not 91.6M.
        let expected = matches!(expect, Expect::Yes | Expect::No);
        loop {
            // Depth-limited, each side in turn tries to prove its side of the test (or only the
            // expected winner); to the end of every line, one search decides it.
            let alone = self.stats.depth <= prune_depth;
            let provers: &[Option<Color>] = match (self.stats.depth, expect) {
                (u32::MAX, _) => &[None],
                (_, Expect::Yes) if alone => &[Some(Color::Black)],
                (_, Expect::No) if alone => &[Some(Color::White)],
                (_, Expect::Unknown | Expect::Yes) => &[Some(Color::Black), Some(Color::White)],
                (_, Expect::LeanNo | Expect::No) => &[Some(Color::White), Some(Color::Black)],
            };
            for &prover in provers {
                self.prover = prover;
                self.prune = expected && prover.is_some() && self.stats.depth <= prune_depth;
                self.stats.prover = match prover {
                    None => Prover::Both,
                    Some(Color::Black) => Prover::Black,
                    Some(Color::White) => Prover::White,
                };
                let node = self.search(g, x - 1, x, self.stats.depth);
                if self.giving_up() {
                    self.finish(true);
                    return None;
                }
                self.capped |= node.deps.capped;
                if maximize && node.lower >= x || !maximize && node.upper < x {
                    self.best = node.best;
                }
                let s = &mut self.stats;
                (s.lower, s.upper) = (s.lower.max(node.lower), s.upper.min(node.upper));
                if node.lower >= x || node.upper < x {
                    return Some(node.lower >= x);
                }
            }
            self.stats.depth = self.stats.depth.saturating_add(DEPTH_STEP);
        }
    }

    /// Makes `g`, reached through the positions `line`, the root of the next [`Search::run`]
    /// or [`Search::decide`], with the table kept: its entries are proven bounds, reused only
    /// where the new history agrees with what they depend on. The saves from now on record
    /// the first root's state as it is now (solved, when this follows its run), so that a
    /// rerun continues from them with the searches of the new roots in the table.
    pub fn reroot(&mut self, g: &GameState, line: &[GameState]) {
        if self.first_root.is_none() {
            self.first_root = Some(self.root_record());
        }
        if self.superko {
            self.path = line.iter().chain([g]).map(|s| Stones::of(s.board())).collect();
        }
        let s = &mut self.stats;
        (s.lower, s.upper) = (-self.max_value, self.max_value);
        s.depth = if self.benson { 1 } else { u32::MAX };
        s.prover = Prover::Both;
        (self.best, self.capped) = (None, false);
    }

    /// The action the table remembers as best for `g`, if it holds an entry for it.
    pub fn hint(&self, g: &GameState) -> Option<Action> {
        let stones = Stones::of(g.board());
        let frame = self.frames.canonical(stones);
        let legal = self.simple_ko.then(|| legal_actions(g));
        self.best_stored(self.frames.key(g, stones, frame, legal.as_deref()), frame)
    }

    /// The best action of the first entry under `key` that has one, mapped back from the
    /// canonical frame through `frame`.
    fn best_stored(&self, key: u64, frame: Symmetry) -> Option<Action> {
        let table = self.table.as_ref()?;
        table.get(key).find_map(|e| self.frames.action_from(frame, e.best))
    }

    /// `g` after `a` (from the stones `stones`), with its position on the searched line under
    /// superko; and how it was reached. Undone by [`Search::leave`].
    fn play(&mut self, g: &GameState, a: Action, stones: Stones) -> (Box<GameState>, Step) {
        let mut child = self.copy_of(g);
        child.play_unchecked(a);
        let step = match a {
            Action::NoSlide | Action::Slide(..) => Step::Within,
            Action::Place(p) if self.superko => {
                Step::Place { at: g.geo().dense(p), parent: stones, child: Stones::of(child.board()) }
            }
            _ => Step::Turn,
        };
        if self.superko {
            self.path.push(match step {
                Step::Place { child, .. } => child,
                _ => stones,
            });
        }
        (child, step)
    }

    /// Undoes [`Search::play`]: the line's last position goes, the state is kept for reuse.
    fn leave(&mut self, child: Box<GameState>) {
        if self.superko {
            self.path.pop();
        }
        self.spare.push(child);
    }

    /// The statistics so far.
    pub fn stats(&self) -> Progress {
        self.stats
    }

    /// Prisoners so far in value units (territory scoring counts them; area scoring not).
    fn offset(&self, g: &GameState) -> i32 {
        if self.territory {
            4 * (g.captured(Color::White) as i32 - g.captured(Color::Black) as i32)
        } else {
            0
        }
    }

    /// [`benson_bounds`] and the value were the game to end now (which, for Go under area
    /// scoring, depends on the stones alone), cached by board.
    fn static_bounds(&mut self, g: &GameState) -> (i32, i32, i32) {
        let h = g.board().hash();
        let slot = h as usize & (self.benson_cache.len() - 1);
        let (key, lower, upper, now) = self.benson_cache[slot];
        if key == h && h != 0 {
            return (lower, upper, now);
        }
        let (lower, upper) = benson_bounds(g);
        let now = final_value(g);
        self.benson_cache[slot] = (h, lower, upper, now);
        (lower, upper, now)
    }

    /// Bounds on the value of `g` (not over) before any search: Benson's where they apply,
    /// and after a pass the count, since a Go player may pass too and end the game.
    fn static_window(&mut self, g: &GameState) -> (i32, i32) {
        let (mut floor, mut ceiling, now) =
            if self.benson { self.static_bounds(g) } else { (-self.max_value, self.max_value, 0) };
        if self.go && g.passes() == 1 {
            let v = if self.benson {
                now
            } else {
                let mut ended = self.copy_of(g);
                ended.play_unchecked(Action::Pass);
                let v = final_value(&ended);
                self.spare.push(ended);
                v
            };
            if g.to_move() == Color::Black {
                floor = floor.max(v);
            } else {
                ceiling = ceiling.min(v);
            }
        }
        (floor, ceiling)
    }

    fn count_node(&mut self) {
        self.stats.nodes += 1;
        let report = self.stats.nodes % self.every == 0;
        if report {
            self.stats.seconds = self.clock.elapsed().as_secs_f64();
            self.table_stats();
            (self.progress)(self.stats);
        }
        if report || self.stats.nodes % STOP_POLL == 0 {
            self.stopped |= self.stop.requested();
            if self.save.as_ref().is_some_and(|s| s.last.elapsed() >= s.to.every) && !self.giving_up() {
                self.write_save();
            }
        }
    }

    /// Past the node limit, stopped, or unable to save: every node returns trivial bounds.
    fn giving_up(&self) -> bool {
        self.stopped || self.save_error.is_some() || self.stats.nodes > self.node_limit
    }

    /// The first of `actions` after the first whose child has a table entry, valid for its
    /// history, beyond the window (at or above `beta` for Black to move, at or below `alpha`
    /// for White): searched first, it ends the node at once. Not under simple ko, whose keys
    /// hold the legal set, which a child does not have yet.
    fn transposition_cut(
        &mut self,
        g: &GameState,
        actions: &[Action],
        alpha: i32,
        beta: i32,
        stones: Stones,
    ) -> Option<usize> {
        self.table.as_ref()?;
        let maximize = g.to_move() == Color::Black;
        for (i, &a) in actions.iter().enumerate().skip(1) {
            let mut child = self.copy_of(g);
            child.play_unchecked(a);
            let cut = !child.is_over() && self.refutes(&child, a, stones, maximize, alpha, beta);
            self.spare.push(child);
            if cut {
                return Some(i);
            }
        }
        None
    }

    /// Whether the table holds, for `child` (reached by `a` from the stones `parent`), a
    /// bound beyond the window on the mover's side.
    fn refutes(
        &mut self,
        child: &GameState,
        a: Action,
        parent: Stones,
        maximize: bool,
        alpha: i32,
        beta: i32,
    ) -> bool {
        let stones = Stones::of(child.board());
        let frame = self.frames.canonical(stones);
        let key = self.frames.key(child, stones, frame, None);
        let offset = self.offset(child);
        if self.superko {
            self.path.push(if matches!(a, Action::Place(_)) { stones } else { parent });
        }
        let frames = &self.frames;
        let from_canonical = |m| frames.map(frame.inverse(), m);
        let cut = self.table.as_ref().is_some_and(|t| {
            t.get(key).any(|e| {
                let beyond = if maximize { e.lower + offset >= beta } else { e.upper + offset <= alpha };
                beyond && e.holds(child.turns(), &self.path, from_canonical)
            })
        });
        if self.superko {
            self.path.pop();
        }
        cut
    }

    /// Bounds on the value of `g`, searched `depth` plies deep: decisive for the window
    /// `alpha..beta` (exact inside it, or beyond one end) unless the horizon intervened.
    fn search(&mut self, g: &GameState, mut alpha: i32, mut beta: i32, depth: u32) -> Node {
        let beta_in = beta;
        self.count_node();
        if self.giving_up() {
            // Giving up: trivial bounds are true and end the search quickly.
            return Node { lower: -self.max_value, upper: self.max_value, deps: Deps::none(), best: None };
        }
        if g.is_over() {
            let v = final_value(g);
            return Node { lower: v, upper: v, deps: Deps::leaf(g.passes(), g.turns()), best: None };
        }
        let (floor, ceiling) = self.static_window(g);
        if floor >= beta || ceiling <= alpha || floor == ceiling {
            return Node { lower: floor, upper: ceiling, deps: Deps::none(), best: None };
        }
        let mut actions = legal_actions(g);
        let offset = self.offset(g);
        let stones = Stones::of(g.board());
        let frame = self.frames.canonical(stones);
        // A ko ban shows in the legal set, and nothing deeper looks further back.
        let key = self.frames.key(g, stones, frame, self.simple_ko.then_some(&actions[..]));
        let frames = &self.frames;
        let from_canonical = |m| frames.map(frame.inverse(), m);
        let mut hint = None;
        if let Some(table) = &self.table {
            for e in table.get(key) {
                let best = frames.action_from(frame, e.best);
                if !e.holds(g.turns(), &self.path, from_canonical) {
                    self.stats.table_refused += 1;
                    hint = hint.or(best);
                    continue;
                }
                let lower = (e.lower + offset).max(floor);
                let upper = (e.upper + offset).min(ceiling);
                // A depth-limited search would not tighten bounds from as deep a search of the
                // same test.
                let scope = Scope { depth, prover: self.prover, test: beta - offset, pruned: self.prune };
                let deep = self.benson
                    && e.scope.depth >= depth
                    && e.scope.prover == scope.prover
                    && e.scope.test == scope.test
                    && e.scope.pruned == scope.pruned;
                if lower >= beta || upper <= alpha || lower == upper || deep {
                    self.stats.table_hits += 1;
                    return Node { lower, upper, deps: e.deps(from_canonical), best };
                }
                hint = best.or(hint);
            }
        }
        if depth == 0 {
            return Node { lower: floor, upper: ceiling, deps: Deps::none(), best: None };
        }
        let pass_ends = g.passes() == 1;
        let history = &self.history;
        let side = g.to_move().index() * g.action_space();
        actions.sort_by_key(|a| {
            let i = g.action_index(*a);
            match a {
                _ if Some(*a) == hint => (0, 0),
                Action::Pass if pass_ends => (1, 0),
                Action::Pass => (4, 0),
                _ => (3, u64::MAX - history[side + i]),
            }
        });

        // Enhanced transposition cutoff: a child whose table entry already refutes the window
        // is searched first (its search is then one table hit).
        if depth >= 2 && !self.simple_ko {
            if let Some(i) = self.transposition_cut(g, &actions, alpha, beta, stones) {
                actions[..=i].rotate_right(1);
            }
        }

        let start_nodes = self.stats.nodes;
        let mut deps = Deps::inner(self.max_turns);
        if self.superko {
            probe_bans(g, &actions, stones, &mut deps);
        }
        let maximize = g.to_move() == Color::Black;
        // The best bound proven so far for the mover, and the best the others could give.
        let (mut lower, mut upper) =
            if maximize { (-self.max_value, -self.max_value) } else { (self.max_value, self.max_value) };
        let mut best = None;
        let total = actions.len();
        // The prover's pass is skipped, unless filling its own eyes is all it could do
        // otherwise (the end of a game): skipping only weakens a proof.
        if self.prune
            && self.prover == Some(g.to_move())
            && !pass_ends
            && !(self.go && only_eye_fills(g, &actions))
        {
            actions.retain(|&a| a != Action::Pass);
        }
        let mut searched = 0;
        if self.ply == 0 {
            (self.stats.root_done, self.stats.root_moves) = (0, total as u32);
        }
        for a in actions {
            let (child, step) = self.play(g, a, stones);
            self.ply += 1;
            let sub = self.search(&child, alpha, beta, depth - 1);
            self.ply -= 1;
            self.leave(child);
            if self.ply == 0 {
                self.stats.root_done += 1;
            }
            searched += 1;
            deps.add_child(&sub.deps, &step);
            if let Step::Place { parent, child, .. } = step {
                deps.add_probe(parent, child);
            }
            if maximize {
                if sub.lower > lower || best.is_none() {
                    best = Some(a);
                }
                lower = lower.max(sub.lower);
                upper = upper.max(sub.upper);
                alpha = alpha.max(sub.lower);
            } else {
                if sub.upper < upper || best.is_none() {
                    best = Some(a);
                }
                upper = upper.min(sub.upper);
                lower = lower.min(sub.lower);
                beta = beta.min(sub.upper);
            }
            if alpha >= beta {
                self.history[g.to_move().index() * g.action_space() + g.action_index(a)] += 1;

                break;
            }
            // In a proof search, one line the prover has not won yet ends an opponent's node.
            if self.prover.is_some_and(|p| p != g.to_move()) && sub.lower < beta && sub.upper > alpha {
                break;
            }
        }
        // Actions not searched could be better for the mover: only the static bound holds.
        if searched < total {
            if maximize {
                upper = ceiling;
            } else {
                lower = floor;
            }
        }
        let (lower, upper) = (lower.max(floor), upper.min(ceiling));

        // A search cut short by giving up is not one to the depth its scope would claim.
        if self.giving_up() {
            return Node { lower, upper, deps, best };
        }
        if let Some(table) = &mut self.table {
            let index = best.map_or(u16::MAX, |a| self.frames.action_index(g, frame, a));
            let work = self.stats.nodes - start_nodes;
            let bounds = (lower - offset, upper - offset);
            let frames = &self.frames;
            let stored = deps.mapped(|m| frames.map(frame, m));
            let scope = Scope { depth, prover: self.prover, test: beta_in - offset, pruned: self.prune };
            if let Some(e) = Entry::new(key, bounds, index, scope, work, &stored) {
                table.put(e);
            }
        }
        Node { lower, upper, deps, best }
    }
}

/// The legal actions of `g`, as [`Game::legal_actions`] lists them. For Go the placements are
/// tested with [`GameState::placement_is_legal`], which skips the error messages the engine's
/// list builds for every refused point.
fn legal_actions(g: &GameState) -> Vec<Action> {
    let mut actions = Vec::new();
    if g.rules().variant == Variant::Go {
        actions.extend(g.board().empties().filter(|&p| g.placement_is_legal(p)).map(Action::Place));
        actions.push(Action::Pass);
    } else {
        g.legal_actions(&mut actions);
    }
    actions
}

/// Records, under positional superko, the placements banned because their position occurred
/// before: each is a probe answered "yes".
fn probe_bans(g: &GameState, legal: &[Action], root: Stones, deps: &mut Deps) {
    let b = g.board();
    let c = g.to_move();
    for p in b.empties() {
        if legal.contains(&Action::Place(p)) || (!g.rules().suicide && !b.go_legal_no_suicide(p, c)) {
            continue;
        }
        let mut q = b.clone();
        q.play_go(p, c);
        let q = Stones::of(&q);
        deps.add_probe(root, q);
        deps.add_found(q);
    }
}

/// Whether every action of `actions` but a pass fills an eye of the side to move: an empty
/// point whose neighbours are all its stones (or the edge), none of them in atari, so that the
/// stone saves nothing (a false eye's connecting move is not one).
fn only_eye_fills(g: &GameState, actions: &[Action]) -> bool {
    let (board, own) = (g.board(), g.to_move().cell());
    let eye = |p| {
        board
            .adj(p)
            .iter()
            .all(|&q| board.at(q) == WALL || (board.at(q) == own && board.atari_point(q).is_none()))
    };
    actions.iter().all(|&a| match a {
        Action::Pass => true,
        Action::Place(p) => eye(p),
        _ => false,
    })
}

/// Bounds on the value from Benson's pass-alive analysis, for area scoring that removes stones
/// inside pass-alive territory. If Black passes from now on, its pass-alive chains survive and
/// its pass-alive territory stays so (only its own moves could spoil either), and at the end
/// the stones there are removed: Black counts at least its pass-alive area `a_b`, so White at
/// most `N² - a_b`; likewise for White. Hence `2 a_b - N² <= margin <= N² - 2 a_w`, whatever
/// the history or turn count.
fn benson_bounds(g: &GameState) -> (i32, i32) {
    let b = g.board();
    let geo = b.geo();
    let area = |c| {
        let pa = pass_alive(b, c);
        geo.points().filter(|&p| pa.stones.contains(p) || pa.territory.contains(p)).count() as i32
    };
    let n = geo.area() as i32;
    (4 * (2 * area(Color::Black) - n), 4 * (n - 2 * area(Color::White)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{replay, solve_after, solve_guessing};
    use hane_engine::rng::Rng;
    use hane_engine::Rules;

    /// The bounds of the position after `moves` before any search: a depth-0 search.
    fn static_bounds(rules: &Rules, moves: &[Action]) -> (i32, i32) {
        let (start, line) = replay(rules, moves).unwrap();
        let options = SolveOptions { table_bits: 0, ..SolveOptions::default() };
        let mut quiet = |_| ();
        let mut s = Search::new(&start, &line, "", &options, &mut quiet, Instant::now()).unwrap();
        let max = s.max_value;
        let node = s.search(&start, -max, max, 0);
        (node.lower, node.upper)
    }

    /// Plays up to `n` random legal placements (fewer if none is left); returns them.
    fn random_placements(g: &mut GameState, n: usize, rng: &mut Rng) -> Vec<Action> {
        let mut line = Vec::new();
        for _ in 0..n {
            let moves: Vec<Action> = legal_actions(g).into_iter().filter(|&a| a != Action::Pass).collect();
            if moves.is_empty() {
                break;
            }
            let a = moves[rng.below(moves.len())];
            g.play(a).unwrap();
            line.push(a);
        }
        line
    }

    #[test]
    fn proof_searches_agree_with_a_plain_search_after_random_openings() {
        // The depth-limited proof searches with Benson's and the pass bounds, skipping the
        // prover's passes, against one alpha-beta search to the end of every line without
        // them, for the rule sets where Benson's bounds apply (area scoring that removes stones
        // in pass-alive territory: positional superko, and simple ko with a cap).
        for (rules, seed) in [("ttakji,size=3,cap=none", 3), ("chinese,size=3,cap=24", 4)] {
            agree_with_a_plain_search(rules.parse().unwrap(), seed);
        }
    }

    fn agree_with_a_plain_search(rules: Rules, seed: u64) {
        let mut rng = Rng::new(seed);
        let (mut done, mut tries) = (0, 0);
        while done < 10 {
            tries += 1;
            assert!(tries < 300, "{rules}: too few openings small enough for the plain search");
            let mut g = GameState::new(rules);
            let n = 6 + rng.below(4);
            let line = random_placements(&mut g, n, &mut rng);
            let (start, history) = replay(&rules, &line).unwrap();
            let options = SolveOptions { table_bits: 16, node_limit: 100_000, ..SolveOptions::default() };
            let mut quiet = |_| ();
            let mut plain = Search::new(&start, &history, "", &options, &mut quiet, Instant::now()).unwrap();
            // To the end of every line at once: no proof searches, so nothing is skipped.
            (plain.benson, plain.go, plain.stats.depth) = (false, false, u32::MAX);
            plain.proof_numbers = false;
            let Some((value, _, _)) = plain.run(&start, None) else { continue };
            // Without a guess, and with guesses (whose tests skip the prover's passes).
            let options = SolveOptions { table_bits: 16, ..SolveOptions::default() };
            for guess in [None, Some(value), Some(value - 4), Some(value + 4)] {
                let proved = solve_guessing(&rules, &line, guess, &options, &mut |_| ()).unwrap();
                assert_eq!(proved.value, value, "{rules} after {:?}, guess {guess:?}", proved.moves);
            }
            done += 1;
        }
    }

    #[test]
    fn static_bounds_hold_the_searched_value() {
        // Random 3x3 positions, half of them right after a pass: Benson's bounds and the count
        // a pass would end the game with must contain the exact value.
        let mut rng = Rng::new(5);
        let (mut checked, mut after_pass_binding) = (0, 0);
        for rules in ["ttakji,size=3,cap=none", "chinese,size=3,cap=30"] {
            let rules: Rules = rules.parse().unwrap();
            let max = super::super::max_value(&rules);
            for _ in 0..40 {
                let mut g = GameState::new(rules);
                let n = 3 + rng.below(8);
                let mut line = random_placements(&mut g, n, &mut rng);
                if rng.below(2) == 0 {
                    g.play(Action::Pass).unwrap();
                    line.push(Action::Pass);
                }
                if g.is_over() {
                    continue;
                }
                let (lower, upper) = static_bounds(&rules, &line);
                let options = SolveOptions { table_bits: 16, ..SolveOptions::default() };
                let exact = solve_after(&rules, &line, &options, &mut |_| ()).unwrap();
                assert!(lower <= exact.value && exact.value <= upper, "{rules} after {:?}", exact.moves);
                checked += 1;
                let bound = if g.to_move() == Color::Black { lower } else { -upper };
                after_pass_binding += usize::from(g.passes() == 1 && bound > -max);
            }
        }
        assert!(
            checked >= 60 && after_pass_binding >= 10,
            "{checked} positions, {after_pass_binding} bound by a pass"
        );
    }
}
