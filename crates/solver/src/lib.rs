//! The exact solver: proved results for tiny boards of every rule set.
//!
//! A satellite of exact results beside the rules crate, as shakmaty-syzygy is beside shakmaty:
//! it depends on `hane-engine` alone (and serde). Whatever needs the ground truth (the judge
//! and the komi checks in `hane-eval`, the opening book's leaves, the pipeline's komi reports,
//! `hane solve`) takes it from here, and proving a result builds neither the search nor the
//! net.
//!
//! [`solve`] runs a fail-soft alpha-beta (minimax over Black's value) with a transposition
//! table from the empty board, with komi 0 and a score-maximising objective: the value is
//! `4 * margin + tie` (see [`crate::domain`]), so one search gives the outcome at every komi
//! and hence the exact [`FairKomi`]. The game is the engine's: its legal actions, its scoring
//! (dead-stone removal included) and its move cap are part of what is solved. How the search
//! proceeds (null-window tests of the value, at a guess first if [`solve_guessing`] has one;
//! each test a proof-number search under positional superko, elsewhere
//! iterative deepening with Benson bounds where they apply, each test a proof search for one
//! side at a time; move ordering and enhanced transposition cutoffs) is described in
//! `search`. With [`SolveOptions::save`], what is proved is saved to a file and a later solve
//! of the same position continues from it (`checkpoint`).
//!
//! # Transpositions and history
//!
//! [`Game::state_hash`] covers stones, side to move, Sligo phase and passes, but the value of
//! a position can depend on more; the table handles each dependency soundly:
//!
//! - **Simple ko** bans at most the moves that recreate the previous position; deeper nodes
//!   only look back into the searched line. The key adds a hash of the legal-action set, so
//!   an entry is exact for (state, ban).
//! - **Positional superko** can ban a move because of any earlier position. Each result
//!   carries a summary of its dependencies (`deps`): the earlier positions that banned a move
//!   in its subtree (kept exactly), and an over-approximation of every position whose presence
//!   in the history was tested there. An entry is reused only where the current history
//!   agrees on all of them, so a reused result is the one a fresh search would return. This
//!   keeps move-order transpositions (whose earlier positions differ) usable, which a key over
//!   the whole history would not (the reference [`minimax`] does that, and finds few).
//! - **The move cap** ends the game after a number of turns, which the state hash does not
//!   hold. Each result carries the interval of turn counts at which its subtree is the same.
//! - **Territory scoring** counts prisoners taken so far; entries are stored relative to them.
//! - **Symmetry**: the eight images of a position share one entry, stored in a canonical
//!   frame with its best action and dependencies mapped (`symmetry`).
//!
//! Under positional superko positions never repeat, and Loose games only add stones, so those
//! games are finite without a cap (simple ko and Sligo can cycle and rely on the cap).
//! [`Solution::capped`] tells whether any searched line reached the cap; if none did, the
//! result is that of the uncapped game.
//!
//! # Checks
//!
//! [`minimax`] is the independent check: minimax over the engine's own game tree with no
//! pruning, bounds or symmetry, memoised on the complete state including the history; it
//! solves whole tiny games without a ko rule (Loose 3x3, Sligo 2x2 and 3x3) and small
//! endgames with simple ko. The tests also compare the solver with itself without its table,
//! and with published values for Go (2x2 +1, 3x3 +9, 4x4 +2).

mod checkpoint;
mod deps;
pub mod domain;
mod lines;
mod reference;
mod search;
mod symmetry;
mod table;

use hane_engine::rules::{Scoring, Variant};
use hane_engine::KomiDomain;
use hane_engine::{Action, Color, Game, GameState, Komi, Outcome, PlayError, Rules};
use hane_host::Stop;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Instant;

pub use checkpoint::{SaveTo, FORMAT_VERSION};
pub use domain::FairKomi;
pub use reference::minimax;

/// Bytes of one transposition-table entry in memory, to size [`SolveOptions::table_entries`]
/// from a memory budget.
pub const TABLE_ENTRY_BYTES: usize = table::Table::ENTRY_SIZE;

/// The table sizes a solve may be capped at, as a power of two of its entries.
pub const TABLE_BITS: hane_engine::range::Allowed<u32> = hane_engine::range::Allowed::closed(10, 34);

/// Solver settings.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// The transposition table grows up to `2^table_bits` entries ([`TABLE_ENTRY_BYTES`]
    /// each) as it fills; 0 turns the table off.
    pub table_bits: u32,
    /// A limit in entries instead of `table_bits` (any count, e.g. from a memory budget).
    pub table_entries: Option<usize>,
    /// Save what is proved to this file, and continue from it if it exists (see
    /// [`SaveTo`]); an unusable file is [`SolveError::Resume`].
    pub save: Option<SaveTo>,
    /// Report progress every this many nodes.
    pub progress_every: u64,
    /// Give up after this many nodes.
    pub node_limit: u64,
    /// Give up once this is set (from another thread, e.g. a signal handler), as at the node
    /// limit ([`SolveError::Unfinished`]): it is polled at each progress report and every few
    /// thousand nodes.
    pub stop: Stop,
    /// Once the value is proved, also prove the value of every first turn, one per class of
    /// turns that the position's symmetries map onto each other ([`Solution::values`]).
    pub values: bool,
    /// Once the value is proved, also find a principal variation: from the position to the
    /// end of the game, a turn at each step that keeps the value ([`Solution::line`]).
    pub line: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            table_bits: 20,
            table_entries: None,
            save: None,
            progress_every: 1 << 20,
            node_limit: u64::MAX,
            stop: Stop::default(),
            values: false,
            line: false,
        }
    }
}

/// Who the proof search of the current test is for (see `search`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Prover {
    /// Neither: a plain search decides the test.
    #[default]
    Both,
    /// Black, trying to prove "at least the test".
    Black,
    /// White, trying to prove "below the test".
    White,
}

/// Search statistics, reported while solving and in the [`Solution`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Nodes visited in this run (each call on a position, leaves and table hits included).
    pub nodes: u64,
    /// Nodes of the earlier runs whose save this one continues.
    pub resumed_nodes: u64,
    /// Seconds of those runs.
    pub resumed_seconds: f64,
    /// Positions answered by the transposition table.
    pub table_hits: u64,
    /// Table entries found for a position but not reused, because its history or turn count
    /// differs in a way that could matter.
    pub table_refused: u64,
    /// Wall-clock seconds since the start.
    pub seconds: f64,
    /// The value is proven to be at least this (see [`crate::domain`] for the encoding).
    pub lower: i32,
    /// The value is proven to be at most this.
    pub upper: i32,
    /// The current search depth in plies (`u32::MAX`: to the end of every line).
    pub depth: u32,
    /// The current null-window test: is the value at least this?
    pub test: i32,
    /// Who the current test's search tries to prove it for.
    pub prover: Prover,
    /// Root actions whose subtree the current test's search has finished, of `root_moves`
    /// (the search may prove the test before all are done).
    pub root_done: u32,
    /// The root's legal actions.
    pub root_moves: u32,
    /// Table entries occupied.
    pub table_used: u64,
    /// Table entries allocated.
    pub table_capacity: u64,
    /// The most entries the table may grow to.
    pub table_limit: u64,
}

impl fmt::Display for Progress {
    /// A progress line of `hane solve`: time and nodes (earlier runs included), the rate of
    /// this run, the bounds, the test under way and how far its search is at the root, and
    /// the table's fill.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let depth = if self.depth == u32::MAX { "full".to_string() } else { self.depth.to_string() };
        let rate = self.nodes as f64 / self.seconds.max(1e-9);
        let who = match self.prover {
            Prover::Both => "",
            Prover::Black => " (Black proving)",
            Prover::White => " (White proving)",
        };
        let fill = 100.0 * self.table_used as f64 / (self.table_capacity.max(1)) as f64;
        write!(
            f,
            "{:>8.1}s {:>8} nodes {:>6}/s  value in [{}, {}]  depth {depth}: >= {}?{who} root {}/{}  \
             table {fill:.0}% of {} (limit {})",
            self.resumed_seconds + self.seconds,
            si(self.resumed_nodes + self.nodes),
            si(rate as u64),
            self.lower,
            self.upper,
            self.test,
            self.root_done,
            self.root_moves,
            si(self.table_capacity),
            si(self.table_limit),
        )
    }
}

/// A count with an SI suffix: 1234567 as `1.23M`.
fn si(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.2}M", n as f64 / 1e6),
        _ => format!("{:.2}G", n as f64 / 1e9),
    }
}

/// The exact result of a game under perfect play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    /// The rules solved (komi set to 0).
    pub rules: String,
    /// The moves played before the solved position (empty: the empty board).
    pub moves: Vec<String>,
    /// Black's final count minus White's, without komi, under perfect score-maximising play.
    pub margin: i32,
    /// Who wins an equal count at the solution (`b`, `w`; `draw` where equal counts draw).
    pub tie: String,
    /// `4 * margin + tie`, the value searched (see [`crate::domain`]).
    pub value: i32,
    /// A best first action.
    pub best: Option<String>,
    /// The exact fair komi in the rule set's domain.
    pub fair: FairKomi,
    /// Whether some searched line ended at the move cap (then the cap is part of the result).
    pub capped: bool,
    /// With [`SolveOptions::values`]: the exact value after each first turn, one per class of
    /// symmetric turns, the best for the side to move first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<TurnValue>,
    /// With [`SolveOptions::line`]: a principal variation, turns that keep the value from the
    /// position to the end of the game (`C3`, `pass`; a Sligo slide as `D3-D4 C3`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub line: Vec<String>,
    /// Search statistics.
    pub stats: Progress,
}

/// The exact value after one first turn ([`Solution::values`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnValue {
    /// The turn, and its images under the symmetries of the position (which have its value),
    /// the turn first.
    pub turns: Vec<String>,
    /// Black's margin after it under perfect play (komi 0).
    pub margin: i32,
    /// `4 * margin + tie`.
    pub value: i32,
}

impl Solution {
    /// The result of perfect play at komi `k`.
    pub fn outcome_at(&self, k: Komi) -> Outcome {
        outcome_at(self.value, k)
    }
}

/// The result of perfect play at komi `k` in a position of value `value` (`4 * margin +
/// tie`).
pub fn outcome_at(value: i32, k: Komi) -> Outcome {
    match value.cmp(&(2 * k.0)) {
        std::cmp::Ordering::Greater => Outcome::Black,
        std::cmp::Ordering::Less => Outcome::White,
        std::cmp::Ordering::Equal => Outcome::Draw,
    }
}

impl fmt::Display for Solution {
    /// The result, the exact fair komi and the search's cost, a line each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = if self.margin >= 0 { "wins" } else { "loses" };
        let best = self.best.as_deref().unwrap_or("-");
        writeln!(
            f,
            "{}: Black {result} by {} under perfect play (ties: {}), best first move {best}",
            self.rules,
            self.margin.abs(),
            self.tie
        )?;
        match self.fair.draw {
            Some(k) => writeln!(f, "exact fair komi: {k} (perfect play draws)")?,
            None => writeln!(
                f,
                "exact fair komi: none draws; Black wins at komi {} and below, White at {} and above",
                self.fair.black_wins_up_to, self.fair.white_wins_from
            )?,
        }
        let capped =
            if self.capped { "; some lines reached the move cap, which is part of this result" } else { "" };
        let earlier = match self.stats.resumed_nodes {
            0 => String::new(),
            n => format!(
                " (and {n} nodes in {:.1}s before, continued from a save)",
                self.stats.resumed_seconds
            ),
        };
        if !self.values.is_empty() {
            writeln!(f, "Black's margin after each first move under perfect play (its images in brackets):")?;
            for v in &self.values {
                let images = match &v.turns[1..] {
                    [] => String::new(),
                    more => format!(" ({})", more.join(" ")),
                };
                writeln!(f, "  {:>6}  {:+}{images}", v.turns[0], v.margin)?;
            }
        }
        if !self.line.is_empty() {
            writeln!(f, "principal variation: {}", self.line.join(" "))?;
        }
        write!(
            f,
            "{} nodes, {} table hits in {:.1}s{earlier}{capped}",
            self.stats.nodes, self.stats.table_hits, self.stats.seconds
        )
    }
}

/// Why no solution came out.
#[derive(Clone, Debug, PartialEq)]
pub enum SolveError {
    /// A move before the position to solve is illegal.
    Illegal(PlayError),
    /// The node limit was reached, or [`SolveOptions::stop`] was set; the statistics and
    /// bounds proven so far (saved, with the table, if [`SolveOptions::save`] is set).
    Unfinished(Progress),
    /// The transposition table of this many bytes could not be allocated.
    Table(usize),
    /// The save file exists but cannot be used: another position's, another format's, or
    /// damaged.
    Resume(String),
    /// Saving failed (the search stopped there).
    Save(String),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::Illegal(e) => write!(f, "illegal move before the position to solve: {e}"),
            SolveError::Unfinished(p) => write!(
                f,
                "unsolved after {} nodes: the value lies in [{}, {}] (4 * margin + tie)",
                p.resumed_nodes + p.nodes,
                p.lower,
                p.upper
            ),
            SolveError::Table(bytes) => {
                write!(f, "cannot allocate a transposition table of {} MiB", bytes >> 20)
            }
            SolveError::Resume(e) | SolveError::Save(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SolveError {}

/// Solves the game from the empty board.
pub fn solve(
    rules: &Rules,
    options: &SolveOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Solution, SolveError> {
    solve_after(rules, &[], options, progress)
}

/// Solves the game after the given moves from the empty board (the history matters for ko).
pub fn solve_after(
    rules: &Rules,
    moves: &[Action],
    options: &SolveOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Solution, SolveError> {
    solve_guessing(rules, moves, None, options, progress)
}

/// [`solve_after`] that tests an expected value first (`4 * margin + tie`, e.g. from a
/// published result): two null-window searches, "at least `guess`?" and "at least
/// `guess + 1`?", prove it when it is right, instead of a bisection from the widest bounds.
/// Each runs only the proof search of the side the guess says wins it ([`test_at_least`]).
/// The result does not depend on the guess, only the time to find it.
pub fn solve_guessing(
    rules: &Rules,
    moves: &[Action],
    guess: Option<i32>,
    options: &SolveOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Solution, SolveError> {
    let (start, line, mut search) = search_after(rules, moves, options, progress)?;
    let geo = start.geo();
    let names: Vec<String> = moves.iter().map(|a| a.name(geo)).collect();
    let gave_up = |search: &search::Search, value: Option<i32>| {
        let mut stats = search.stats();
        if let Some(v) = value {
            (stats.lower, stats.upper) = (v, v);
        }
        match search.save_error() {
            Some(e) => SolveError::Save(e.into()),
            None => SolveError::Unfinished(stats),
        }
    };
    let Some((value, best, capped)) = search.run(&start, guess) else {
        return Err(gave_up(&search, None));
    };
    let values = match options.values {
        true => {
            lines::values(&mut search, &start, &line, value).ok_or_else(|| gave_up(&search, Some(value)))?
        }
        false => Vec::new(),
    };
    let principal = match options.line {
        true => lines::principal(&mut search, &start, &line, value)
            .ok_or_else(|| gave_up(&search, Some(value)))?,
        false => Vec::new(),
    };
    let mut stats = search.stats();
    (stats.lower, stats.upper) = (value, value);
    Ok(Solution {
        rules: start.rules().to_string(),
        moves: names,
        margin: margin(value),
        tie: match value.rem_euclid(4) {
            1 => "b",
            3 => "w",
            _ => "draw",
        }
        .into(),
        value,
        best: best.map(|a| a.name(geo)),
        fair: FairKomi::from_value(value, KomiDomain::of(rules)),
        capped,
        values,
        line: principal,
        stats,
    })
}

/// The answer to one predicate test ([`test_at_least`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The threshold tested: is the value (`4 * margin + tie`) at least this?
    pub threshold: i32,
    /// The answer, proved.
    pub holds: bool,
    /// Proven bounds on the value after the test (one side of them decides it).
    pub lower: i32,
    /// See `lower`.
    pub upper: i32,
    /// Search statistics.
    pub stats: Progress,
}

/// Proves or refutes "the value after `moves` is at least `threshold`" (`4 * margin + tie`,
/// komi 0): one null-window test, as [`solve`] runs a sequence of, with the same table, saves
/// and options ([`SolveOptions::values`] and [`SolveOptions::line`] are ignored). "Black's
/// margin is at least `m`" is the threshold `4 * m - 1` where Black wins equal counts (Loose)
/// and `4 * m` elsewhere.
///
/// `expect`, if any, is the answer expected: then each deepening runs only that side's proof
/// search (Black's for yes), which decides the test either way once deep enough, up to a depth
/// of twice the board's points, and that side's first beyond; a wrong expectation costs time,
/// never the answer. Without one, each deepening tries Black's proof, then White's.
pub fn test_at_least(
    rules: &Rules,
    moves: &[Action],
    threshold: i32,
    expect: Option<bool>,
    options: &SolveOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<Verdict, SolveError> {
    let (start, _, mut search) = search_after(rules, moves, options, progress)?;
    let Some(holds) = search.test(
        &start,
        threshold,
        match expect {
            None => search::Expect::Unknown,
            Some(true) => search::Expect::Yes,
            Some(false) => search::Expect::No,
        },
    ) else {
        let stats = search.stats();
        return Err(match search.save_error() {
            Some(e) => SolveError::Save(e.into()),
            None => SolveError::Unfinished(stats),
        });
    };
    let stats = search.stats();
    Ok(Verdict { threshold, holds, lower: stats.lower, upper: stats.upper, stats })
}

/// Black's margin of a value `4 * margin + tie`.
fn margin(value: i32) -> i32 {
    value.div_euclid(4) + i32::from(value.rem_euclid(4) == 3)
}

/// The rules with komi 0, and the state after `moves` with every position on the way.
/// The position after `moves` (komi 0), the positions before it, and a search of it named
/// by its rules and moves (for its saves), its clock started.
fn search_after<'a>(
    rules: &Rules,
    moves: &[Action],
    options: &SolveOptions,
    progress: &'a mut dyn FnMut(Progress),
) -> Result<(GameState, Vec<GameState>, search::Search<'a>), SolveError> {
    let (start, line) = replay(rules, moves).map_err(SolveError::Illegal)?;
    let clock = Instant::now();
    let geo = start.geo();
    let names: Vec<String> = moves.iter().map(|a| a.name(geo)).collect();
    let position = format!("{} after [{}]", start.rules(), names.join(" "));
    let search = search::Search::new(&start, &line, &position, options, progress, clock)?;
    Ok((start, line, search))
}

fn replay(rules: &Rules, moves: &[Action]) -> Result<(GameState, Vec<GameState>), PlayError> {
    let mut r = *rules;
    r.komi = Komi(0);
    let mut g = GameState::new(r);
    let mut line = Vec::with_capacity(moves.len());
    for &a in moves {
        line.push(g.clone());
        g.play(a)?;
    }
    Ok((g, line))
}

/// The value of a finished game (komi 0): `4 * margin + tie`. Only Loose breaks ties: against
/// the last placer, and against White if nobody placed (`docs/rules.md` §3).
fn final_value(g: &GameState) -> i32 {
    let s = g.score();
    let margin = (s.black - s.white).round() as i32;
    let tie = match (g.rules().variant, g.last_placer()) {
        (Variant::Loose, Some(Color::Black)) => -1,
        (Variant::Loose, _) => 1,
        _ => 0,
    };
    debug_assert!(margin != 0 || s.winner == Outcome::Black || tie <= 0);
    debug_assert!(margin != 0 || s.winner == Outcome::White || tie >= 0);
    4 * margin + tie
}

/// A bound on the absolute value: every point Black's and ties Black's, plus, under
/// territory scoring, every turn a capture of one stone.
fn max_value(rules: &Rules) -> i32 {
    let area = i32::from(rules.size) * i32::from(rules.size);
    let prisoners = if rules.scoring == Scoring::Territory { rules.max_turns() as i32 } else { 0 };
    4 * (area + prisoners) + i32::from(rules.variant == Variant::Loose)
}
