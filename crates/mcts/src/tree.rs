//! The search tree as two arenas: `nodes` and `edges`, linked by `u32` indices.
//!
//! A node owns a contiguous run of edges, one per legal action, holding the action, its
//! prior and the child node once it has been created (`NONE` before). Child nodes are
//! created lazily the first time the search descends an edge, so an expanded node costs one
//! edge per legal action and a node only for the actions actually tried.
//!
//! Statistics are sums of [`BlackValue`]s (Black's view) over the visits that passed
//! through a node. Each node also records `to_move`, the player who decides there; in Sligo
//! that is the same player at a turn's slide node and at its placement node, so nothing here
//! assumes that players alternate along a path. Node 0 is the root.

use crate::value::BlackValue;
use hane_engine::Color;
use std::collections::VecDeque;

/// "No node": an edge without a child, or the root's parent.
pub(crate) const NONE: u32 = u32::MAX;

/// Where a node is in its life.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// Created, never handed out for evaluation.
    Unexpanded,
    /// Handed out by `gather`; its edges exist (priors 0) and wait for `apply`.
    Pending,
    /// Evaluated: edges carry priors and may be descended.
    Expanded,
    /// The game is over here; the exact value.
    Terminal(BlackValue),
}

/// Sums of values over a node's completed visits, Black's view, in f64 so long searches
/// do not drift.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Sums {
    pub wdl: [f64; 3],
    pub score: f64,
    /// Sum of the squared score margins (for the score's spread over the visits).
    pub score_sq: f64,
}

impl Sums {
    fn add(&mut self, v: BlackValue) {
        for (s, x) in self.wdl.iter_mut().zip(v.wdl) {
            *s += f64::from(x);
        }
        self.score += f64::from(v.score);
        self.score_sq += f64::from(v.score) * f64::from(v.score);
    }
}

/// One position in the tree.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub parent: u32,
    pub first_edge: u32,
    pub num_edges: u32,
    /// The player who chooses among this node's edges.
    pub to_move: Color,
    pub kind: Kind,
    /// Completed visits (evaluations and terminal hits backed up through this node).
    pub visits: u32,
    /// Evaluations gathered below (or at) this node and not yet applied.
    pub in_flight: u32,
    pub sums: Sums,
}

impl Node {
    /// Mean value over the completed visits, Black's view; `None` before the first.
    pub fn mean(&self) -> Option<BlackValue> {
        (self.visits > 0).then(|| {
            let n = f64::from(self.visits);
            BlackValue { wdl: self.sums.wdl.map(|s| (s / n) as f32), score: (self.sums.score / n) as f32 }
        })
    }

    /// Standard deviation of the score margin over the completed visits (0 before the first).
    pub fn score_stdev(&self) -> f32 {
        if self.visits == 0 {
            return 0.0;
        }
        let n = f64::from(self.visits);
        let mean = self.sums.score / n;
        (self.sums.score_sq / n - mean * mean).max(0.0).sqrt() as f32
    }
}

/// An action from a node, its prior and its child.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge<A> {
    pub action: A,
    pub prior: f32,
    pub child: u32,
}

/// The arenas.
#[derive(Clone, Debug)]
pub(crate) struct Tree<A> {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge<A>>,
}

impl<A: Copy> Tree<A> {
    /// A tree holding only a root.
    pub fn new(to_move: Color, kind: Kind) -> Tree<A> {
        let mut t = Tree { nodes: Vec::new(), edges: Vec::new() };
        t.add_node(NONE, to_move, kind);
        t
    }

    /// Appends a node without edges; returns its index.
    pub fn add_node(&mut self, parent: u32, to_move: Color, kind: Kind) -> u32 {
        let i = u32::try_from(self.nodes.len()).expect("search tree exceeds u32 nodes");
        self.nodes.push(Node {
            parent,
            first_edge: 0,
            num_edges: 0,
            to_move,
            kind,
            visits: 0,
            in_flight: 0,
            sums: Sums::default(),
        });
        i
    }

    /// Gives node `n` one edge per action, priors 0 and no children.
    pub fn add_edges(&mut self, n: u32, actions: &[A]) {
        let first = u32::try_from(self.edges.len()).expect("search tree exceeds u32 edges");
        self.edges.extend(actions.iter().map(|&action| Edge { action, prior: 0.0, child: NONE }));
        let node = &mut self.nodes[n as usize];
        node.first_edge = first;
        node.num_edges = actions.len() as u32;
    }

    /// Index range of node `n`'s edges in `edges`.
    pub fn edge_range(&self, n: u32) -> std::ops::Range<usize> {
        let node = &self.nodes[n as usize];
        let first = node.first_edge as usize;
        first..first + node.num_edges as usize
    }

    /// Node `n`'s edges.
    pub fn edges_of(&self, n: u32) -> &[Edge<A>] {
        &self.edges[self.edge_range(n)]
    }

    /// Adds a completed visit with value `v` to `n` and every ancestor; `leaf` says it
    /// completes a gathered evaluation, whose in-flight marks are removed on the way.
    pub fn backup(&mut self, n: u32, v: BlackValue, leaf: bool) {
        let mut i = n;
        while i != NONE {
            let node = &mut self.nodes[i as usize];
            node.visits += 1;
            if leaf {
                node.in_flight -= 1;
            }
            node.sums.add(v);
            i = node.parent;
        }
    }

    /// Marks one evaluation in flight at `n` and every ancestor.
    pub fn add_in_flight(&mut self, n: u32) {
        let mut i = n;
        while i != NONE {
            let node = &mut self.nodes[i as usize];
            node.in_flight += 1;
            i = node.parent;
        }
    }

    /// A compacted copy of the subtree under `root`, which becomes node 0 (breadth-first
    /// order, so the copy is as cache-friendly as a fresh tree).
    pub fn subtree(&self, root: u32) -> Tree<A> {
        let mut out = Tree { nodes: Vec::new(), edges: Vec::new() };
        let mut queue = VecDeque::from([(root, NONE)]);
        // Nodes are numbered when queued; breadth-first popping appends them in that order.
        let mut next = 1u32;
        while let Some((old, parent)) = queue.pop_front() {
            let new = out.nodes.len() as u32;
            let mut node = self.nodes[old as usize].clone();
            node.parent = parent;
            node.first_edge = out.edges.len() as u32;
            for e in self.edges_of(old) {
                let mut e = *e;
                if e.child != NONE {
                    queue.push_back((e.child, new));
                    e.child = next;
                    next += 1;
                }
                out.edges.push(e);
            }
            out.nodes.push(node);
        }
        out
    }
}
