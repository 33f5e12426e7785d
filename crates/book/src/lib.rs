//! A minimax opening book, KataGo's way of settling a small board's fair komi, with hane's
//! exact solver at the leaves.
//!
//! A [`Book`] is a graph of positions of one rule set, board size and komi, built with one
//! evaluator (a net). Each [`Node`] keeps a search's estimate of the best move that is *not*
//! in the book ([`Estimate`]), its book moves ([`Edge`]s to other nodes) and, where the game
//! is over or the solver settled it, its exact value. Values back up by plain minimax
//! (`values`): Black takes the largest of its entries, White the smallest, each of the lead,
//! its lower and upper bracket and the win probability separately, so a deep correction
//! changes the root as soon as it is found, however wrong the net was above it. A node is
//! *proven* when its value is exact: settled itself, or every legal action is in the book and
//! every child is proven.
//!
//! The next node to expand is the one on the cheapest path from the root (`cost`): a
//! constant per move, plus how far a move's optimistic bound falls short of the best one at
//! its node, plus its `-log` policy (KataGo's `cpp/book/book.cpp` formula, in points).
//! Expanding (`expand`) searches the node with its book moves excluded, adds the search's
//! best move as a child, and searches the node again without it to refresh its estimate.
//!
//! Positions are keyed by their canonical image under the board's symmetries, with what
//! ko, superko, the turn cap, prisoners and Loose's tie-break make part of the state (`key`),
//! so transpositions merge only where that is exact. The book is saved whole and atomically,
//! versioned and checksummed, and refuses to continue from another rule set's, komi's or
//! net's file (`file`). [`sgf`] writes it as an SGF tree a GUI can browse.

mod bracket;
mod cost;
mod expand;
mod file;
mod key;
mod refine;
pub mod sgf;
mod values;
mod workers;

pub use bracket::{Figure, Setter, Source};
pub use cost::CostWeights;
pub use expand::{Builder, EvaluatorFactory, Event, Settings, Status};
pub use file::{net_id, BookError, Header, FORMAT_VERSION};
pub use refine::{Checkpoints, Refined};
pub use values::Backed;

use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Game, GameState, Rules};
use key::History;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// A search's estimate of a position's best continuation, Black's view.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Black's expected lead at the book's komi, in points.
    pub lead: f32,
    /// Half the width of the bracket around `lead`.
    pub error: f32,
    /// Black's probability of winning, draws counted half.
    pub win: f32,
    /// The visits behind it.
    pub visits: u32,
    /// The largest raw policy among the moves not in the book (1 before the node's own
    /// search, when it is not known).
    pub max_prior: f32,
}

impl Estimate {
    /// As a value with its bracket (never proven).
    pub fn backed(&self) -> Backed {
        Backed {
            lead: self.lead,
            lower: self.lead - self.error,
            upper: self.lead + self.error,
            win: self.win,
            proven: false,
        }
    }
}

/// A book move: an action of the parent (in the parent's frame) and the node it leads to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    /// The action, in the frame of the parent's line.
    pub action: Action,
    /// The child's index.
    pub child: u32,
    /// The symmetry that maps the child's own line onto this edge's position.
    pub sym: Symmetry,
    /// The action's raw policy at the parent.
    pub prior: f32,
}

/// One position of the book.
#[derive(Clone, Debug)]
pub struct Node {
    /// The line from the root that reaches this node first; its frame is the node's frame.
    pub moves: Vec<Action>,
    /// The position after `moves`.
    pub state: GameState,
    /// Its canonical key.
    pub key: u64,
    /// The symmetry that maps its line onto the canonical frame.
    sym: Symmetry,
    history: History,
    /// The node whose line reached it first and the action from there (none: the root).
    from: Option<(u32, Action)>,
    /// The estimate of the best move not in the book; `None` once every legal action is.
    pub own: Option<Estimate>,
    /// Whether `own` comes from a search of this node (otherwise from its parent's search).
    pub searched: bool,
    /// The exact lead, where the game is over or the solver settled the position.
    pub exact: Option<f32>,
    /// Whether the solver was tried here (it is tried once).
    pub solve_tried: bool,
    /// The action the raw policy likes best here (once searched).
    pub raw_best: Option<Action>,
    /// The book moves.
    pub children: Vec<Edge>,
    /// The backed-up value (see [`Book::recompute`]).
    pub value: Backed,
}

impl Node {
    /// A fresh node for `state` reached by `moves` from `from`, with its history and key.
    fn new(
        moves: Vec<Action>,
        from: Option<(u32, Action)>,
        (state, history, canonical): (GameState, History, key::Canonical),
    ) -> Node {
        Node {
            moves,
            state,
            key: canonical.key,
            sym: canonical.sym,
            history,
            from,
            own: None,
            searched: false,
            exact: None,
            solve_tried: false,
            raw_best: None,
            children: Vec::new(),
            value: Backed::default(),
        }
    }

    /// Whether the node can be expanded: not settled, not over, some move not in the book.
    pub fn expandable(&self) -> bool {
        self.exact.is_none() && self.own.is_some() && !self.state.is_over() && !self.value.proven
    }

    /// The distinct children (symmetric book moves lead to one).
    pub fn distinct_children(&self) -> usize {
        let mut seen: Vec<u32> = self.children.iter().map(|e| e.child).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }
}

/// A minimax opening book (see the crate docs).
#[derive(Clone, Debug)]
pub struct Book {
    /// What the book is of.
    pub header: Header,
    /// The nodes; 0 is the root.
    pub nodes: Vec<Node>,
    index: HashMap<u64, u32>,
    /// Expansions done, over every run.
    pub expansions: u64,
    /// Net evaluations spent, over every run.
    pub evaluations: u64,
    /// Seconds spent, over every run.
    pub seconds: f64,
}

impl Book {
    /// An empty book (the root alone) of `rules` (its komi is the book's) with the net named
    /// `net`.
    pub fn new(rules: &Rules, net: &str) -> Book {
        let state = GameState::new(*rules);
        let history = History::default();
        let canonical = key::canonical(&state, &history);
        let root = Node::new(Vec::new(), None, (state, history, canonical));
        let index = HashMap::from([(root.key, 0)]);
        Book {
            header: Header::of(rules, net),
            nodes: vec![root],
            index,
            expansions: 0,
            evaluations: 0,
            seconds: 0.0,
        }
    }

    /// The book saved at `path` when there is one (it must be of `rules`, with their komi,
    /// and of the net named `net`: another is refused with the field named), else a new one.
    pub fn open(path: &Path, rules: &Rules, net: &str) -> Result<Book, BookError> {
        Ok(file::load(path, Some(&Header::of(rules, net)))?.unwrap_or_else(|| Book::new(rules, net)))
    }

    /// The book saved at `path`, whatever it is of (to play from: its header says what).
    pub fn read(path: &Path) -> Result<Book, BookError> {
        file::load(path, None)?.ok_or_else(|| BookError::Missing(path.into()))
    }

    /// The rules (with the book's komi).
    pub fn rules(&self) -> &Rules {
        self.nodes[0].state.rules()
    }

    /// The root's backed-up value.
    pub fn root(&self) -> &Backed {
        &self.nodes[0].value
    }

    /// The node of the position after `action` at node `parent`, created if new (its
    /// estimate left empty), and the edge's symmetry; `None` if the action is illegal.
    fn child(&mut self, parent: u32, action: Action) -> Option<(u32, Symmetry, bool)> {
        let p = &self.nodes[parent as usize];
        let reached = key::step(&p.state, &p.history, action)?;
        let k = reached.2.key;
        if let Some(&i) = self.index.get(&k) {
            return Some((i, self.frame_of(i, reached.2.sym), false));
        }
        let mut moves = p.moves.clone();
        moves.push(action);
        let i = self.nodes.len() as u32;
        self.nodes.push(Node::new(moves, Some((parent, action)), reached));
        self.index.insert(k, i);
        Some((i, Symmetry::IDENTITY, true))
    }

    /// The symmetry that maps node `i`'s line onto a line that reached it with canonical
    /// symmetry `reached`: `reached(line) = sym(node's line)`, so the line is
    /// `reached^-1(sym(node's line))`.
    fn frame_of(&self, i: u32, reached: Symmetry) -> Symmetry {
        reached.inverse().compose(self.nodes[i as usize].sym)
    }

    /// The nodes in the order of play (their ply), each before every node it leads to.
    fn by_ply(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.nodes.len() as u32).collect();
        order.sort_by_key(|&i| key::ply(&self.nodes[i as usize].state));
        order
    }

    /// The node index of a canonical key.
    pub fn find(&self, key: u64) -> Option<u32> {
        self.index.get(&key).copied()
    }

    /// Recomputes every node's backed-up value, deepest first (see [`Backed`]).
    pub fn recompute(&mut self) {
        for i in self.by_ply().into_iter().rev() {
            let v = values::back_up(&self.nodes, i as usize);
            self.nodes[i as usize].value = v;
        }
    }

    /// The book's main line: from the root, the best book move at each node (the mover's
    /// best child by lead) while it is better than the moves not in the book, as actions in
    /// the root's frame, each with the node it reaches.
    pub fn main_line(&self) -> Vec<(Action, u32)> {
        let geo = self.nodes[0].state.geo();
        let mut line = Vec::new();
        let (mut n, mut frame) = (0u32, Symmetry::IDENTITY);
        while let Some(e) = values::best_edge(&self.nodes, n as usize) {
            line.push((frame.apply_action(geo, e.action), e.child));
            frame = frame.compose(e.sym);
            n = e.child;
            if line.len() > 4 * geo.area() {
                break;
            }
        }
        line
    }

    /// The mover's best book move at node `i`, when it is at least as good as the moves not
    /// in the book, in the node's own frame.
    pub fn best_move(&self, i: u32) -> Option<Action> {
        values::best_edge(&self.nodes, i as usize).map(|e| e.action)
    }

    /// The share of searched nodes with book moves where the raw policy's favourite is the
    /// best book move, and how many such nodes there are.
    pub fn policy_agreement(&self) -> (f64, usize) {
        let mut agree = 0;
        let mut count = 0;
        for (i, n) in self.nodes.iter().enumerate() {
            let (Some(raw), Some(best)) = (n.raw_best, values::best_edge(&self.nodes, i)) else { continue };
            count += 1;
            let target = best.child;
            let same = n.children.iter().any(|e| e.action == raw && e.child == target);
            agree += usize::from(same);
        }
        (if count == 0 { 0.0 } else { agree as f64 / count as f64 }, count)
    }

    /// Black's margin (lead plus komi) at the root with its bracket, and whether it is proven.
    pub fn fair_komi(&self) -> FairKomi {
        let komi = self.rules().komi.as_f64();
        let v = self.root();
        FairKomi {
            margin: komi + f64::from(v.lead),
            lower: komi + f64::from(v.lower),
            upper: komi + f64::from(v.upper),
            win: f64::from(v.win),
            proven: v.proven,
        }
    }
}

/// Black's margin under the book's minimax (the fair komi where the rule set draws at an
/// equal count), with the bracket the book's error estimates back up to.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FairKomi {
    /// Black's minimaxed margin: komi plus the root's lead.
    pub margin: f64,
    /// The bracket's lower end.
    pub lower: f64,
    /// The bracket's upper end.
    pub upper: f64,
    /// Black's minimaxed probability of winning at the book's komi (draws half).
    #[serde(default)]
    pub win: f64,
    /// Whether the margin is proven (every line settled by the rules or the solver).
    pub proven: bool,
}

impl std::fmt::Display for FairKomi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.proven {
            write!(f, "Black's margin {:+.1} (proven)", self.margin)
        } else {
            write!(
                f,
                "Black's margin {:+.2} [{:+.2}, {:+.2}], wins {:.2} (bracket from the searches' spread, not a proof)",
                self.margin, self.lower, self.upper, self.win
            )
        }
    }
}

impl Book {
    /// The book's move in the position after `line` (actions from the empty board of the
    /// book's game), in the line's own frame: the mover's best book move where the book has
    /// the position and the move is at least as good as those not in the book.
    pub fn book_move(&self, line: &[Action]) -> Option<Action> {
        let start = GameState::new(*self.rules());
        let history = History::default();
        let here = key::canonical(&start, &history);
        let (g, _, here) =
            line.iter().try_fold((start, history, here), |(g, h, _), &a| key::step(&g, &h, a))?;
        let i = self.find(here.key)?;
        Some(self.frame_of(i, here.sym).apply_action(g.geo(), self.best_move(i)?))
    }

    /// The canonical key of the position after `action` at node `parent`, without adding it.
    fn key_after(&self, parent: u32, action: Action) -> Option<u64> {
        let p = &self.nodes[parent as usize];
        key::step(&p.state, &p.history, action).map(|(_, _, c)| c.key)
    }
}

/// A test estimate of `lead ± error`.
#[cfg(test)]
pub(crate) fn est(lead: f32, error: f32) -> Option<Estimate> {
    Some(Estimate { lead, error, win: 0.5, visits: 10, max_prior: 0.5 })
}

/// A hand-built book for tests: the root (Black, 3x3, komi 0) with two book moves, B2 and A3,
/// and its own estimate 1 ± 1; White's node after B2 has one book move, A2, and its estimate
/// 6 ± 2; the node after B2 A2 has 4 ± 3 and the one after A3 2 ± `a3_error`. Returns the
/// book (not yet backed up) and the nodes after B2, A3 and B2 A2.
#[cfg(test)]
pub(crate) fn small_tree(a3_error: f32) -> (Book, [u32; 3]) {
    let rules: Rules = "ttakji,size=3,komi=0".parse().unwrap();
    let mut book = Book::new(&rules, "test");
    let geo = book.nodes[0].state.geo();
    let place = |x: usize, y: usize| Action::Place(geo.from_dense(y * 3 + x));
    let (b1, _, _) = book.child(0, place(1, 1)).unwrap();
    let (b2, _, _) = book.child(0, place(0, 0)).unwrap();
    let (w1, _, _) = book.child(b1, place(0, 1)).unwrap();
    for (p, c) in [(0, b1), (0, b2), (b1, w1)] {
        let action = *book.nodes[c as usize].moves.last().unwrap();
        book.nodes[p as usize].children.push(Edge { action, child: c, sym: Symmetry::IDENTITY, prior: 0.3 });
    }
    book.nodes[0].own = est(1.0, 1.0);
    book.nodes[b1 as usize].own = est(6.0, 2.0);
    book.nodes[w1 as usize].own = est(4.0, 3.0);
    book.nodes[b2 as usize].own = est(2.0, a3_error);
    (book, [b1, b2, w1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(book: &Book, x: usize, y: usize) -> Action {
        let geo = book.nodes[0].state.geo();
        Action::Place(geo.from_dense(y * geo.size() + x))
    }

    #[test]
    fn symmetric_lines_share_a_node_and_other_histories_do_not() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let mut book = Book::new(&rules, "test");
        let corners = [(1, 1), (3, 1), (1, 3), (3, 3)];
        let keys: Vec<u32> =
            corners.iter().map(|&(x, y)| book.child(0, place(&book, x, y)).unwrap().0).collect();
        assert!(keys.iter().all(|&k| k == keys[0]), "{keys:?}");
        let centre = book.child(0, place(&book, 2, 2)).unwrap().0;
        let edge = book.child(0, place(&book, 2, 1)).unwrap().0;
        assert_ne!(centre, keys[0]);
        assert_ne!(edge, keys[0]);
        assert_eq!(book.nodes.len(), 4);
        // The symmetry on an edge maps the child's line onto the line played: B2 reached
        // from the root is the child's own line (identity); D4 is its image.
        let (n, sym, _) = book.child(0, place(&book, 3, 3)).unwrap();
        let geo = book.nodes[0].state.geo();
        let own = book.nodes[n as usize].moves[0];
        assert_eq!(sym.apply_action(geo, own), place(&book, 3, 3));
        // Same stones, other history: B B2, W D4, B D2 against B D2, W D4, B B2 (the
        // earlier positions differ, so superko may treat them differently).
        let line = |order: [(usize, usize); 3]| {
            let (mut g, mut h) = (book.nodes[0].state.clone(), History::default());
            let mut k = 0;
            for (x, y) in order {
                let c;
                (g, h, c) = key::step(&g, &h, place(&book, x, y)).unwrap();
                k = c.key;
            }
            (g.board().hash(), k)
        };
        let a = line([(1, 1), (3, 3), (3, 1)]);
        let b = line([(3, 1), (3, 3), (1, 1)]);
        assert_eq!(a.0, b.0);
        assert_ne!(a.1, b.1);
        // The mirror image of a line has the key of the line.
        assert_eq!(line([(3, 1), (1, 3), (1, 1)]).1, a.1);
    }

    #[test]
    fn values_back_up_by_minimax_with_brackets() {
        let (mut book, [b1, _, w1]) = small_tree(5.0);
        book.recompute();
        // White at b1 takes the smaller of 6 [4, 8] and 4 [1, 7], each statistic apart.
        let v = book.nodes[b1 as usize].value;
        assert_eq!((v.lead, v.lower, v.upper, v.proven), (4.0, 1.0, 7.0, false));
        // Black at the root: max of 1 [0, 2], 4 [1, 7] and 2 [-3, 7].
        let v = *book.root();
        assert_eq!((v.lead, v.lower, v.upper), (4.0, 1.0, 7.0));
        assert_eq!(values::best_edge(&book.nodes, 0).map(|e| e.child), Some(b1));
        // Settled children make White's node exact only once no move is left out of the book.
        book.nodes[w1 as usize].exact = Some(3.0);
        book.recompute();
        assert_eq!(book.nodes[b1 as usize].value.lead, 3.0);
        assert!(!book.nodes[b1 as usize].value.proven);
        book.nodes[b1 as usize].own = None;
        book.recompute();
        let v = book.nodes[b1 as usize].value;
        assert_eq!((v.lead, v.lower, v.upper, v.proven), (3.0, 3.0, 3.0, true));
        // The root: max(1 [0, 2], 3, 2 [-3, 7]) = 3, bracket [3, 7], not proven.
        let v = *book.root();
        assert_eq!((v.lead, v.lower, v.upper, v.proven), (3.0, 3.0, 7.0, false));
        assert_eq!(book.fair_komi().margin, 3.0);
    }
}
