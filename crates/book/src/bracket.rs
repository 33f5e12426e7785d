//! Where the root's bracket comes from: each end of a backed-up bracket is one entry's end,
//! copied up by the minimax, so following the entry that gives each node its end leads to
//! the one estimate (or exact value) that sets it, and to the line of book moves there. That
//! line is where the book is least sure; the report names it.

use crate::{values, Book, Estimate};
use hane_engine::symmetry::Symmetry;
use hane_engine::Action;

/// An end of a bracket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The lower end.
    Lower,
    /// The upper end.
    Upper,
}

/// The entry that sets an end of the root's bracket.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setter {
    /// A search's estimate of the best move not in the book at the line's last node.
    Estimate(Estimate),
    /// The exact value of the line's last node (Black's lead at the book's komi).
    Exact(f32),
}

/// One end of the root's bracket and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct BracketSource {
    /// The book moves from the root to the node whose entry sets the end, in the root's
    /// frame.
    pub line: Vec<Action>,
    /// That node's index.
    pub node: u32,
    /// That entry.
    pub setter: Setter,
}

impl Book {
    /// Where the root's `end` comes from; `None` for a book with nothing backed up yet.
    pub fn bracket_source(&self, end: End) -> Option<BracketSource> {
        let pick = |v: &values::Backed| match end {
            End::Lower => v.lower,
            End::Upper => v.upper,
        };
        let geo = self.nodes[0].state.geo();
        let (mut i, mut frame, mut line) = (0usize, Symmetry::IDENTITY, Vec::new());
        while line.len() <= 4 * geo.area() {
            let n = &self.nodes[i];
            let target = pick(&n.value);
            if let Some(x) = n.exact {
                return Some(BracketSource { line, node: i as u32, setter: Setter::Exact(x) });
            }
            if n.value.proven {
                return Some(BracketSource { line, node: i as u32, setter: Setter::Exact(n.value.lead) });
            }
            if let Some(e) = n.own.filter(|e| pick(&e.backed()) == target) {
                return Some(BracketSource { line, node: i as u32, setter: Setter::Estimate(e) });
            }
            // The main line's edge where it sets the end (a position can be reached by several
            // symmetric moves), else the first that does.
            let sets = |e: &crate::Edge| pick(&self.nodes[e.child as usize].value) == target;
            let edge = values::best_edge(&self.nodes, i)
                .filter(sets)
                .or_else(|| n.children.iter().copied().find(sets))?;
            line.push(frame.apply_action(geo, edge.action));
            frame = frame.compose(edge.sym);
            i = edge.child as usize;
        }
        None
    }
}

impl BracketSource {
    /// The line and the entry in words, `geo` naming the moves, with Black's margin at
    /// `komi`.
    pub fn describe(&self, geo: hane_engine::Geometry, komi: f32) -> String {
        let line = if self.line.is_empty() {
            "the root".to_string()
        } else {
            self.line.iter().map(|a| a.name(geo)).collect::<Vec<_>>().join(" ")
        };
        match self.setter {
            Setter::Estimate(e) => format!(
                "{line}: a search's estimate {} moves deep (Black's margin {:+.2} ± {:.2}, {} visits)",
                self.line.len(),
                komi + e.lead,
                e.error,
                e.visits
            ),
            Setter::Exact(x) => format!("{line}: exact (Black's margin {:+.1})", komi + x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::est;

    #[test]
    fn each_end_of_the_bracket_is_traced_to_the_entry_that_sets_it() {
        let (mut book, [b1, _, w1]) = crate::small_tree(6.0);
        let geo = book.nodes[0].state.geo();
        let place = |x: usize, y: usize| Action::Place(geo.from_dense(y * 3 + x));
        book.recompute();
        // Lower: max(0, min(4, 1), -4) = 1, White's reply's estimate 4 - 3 after B2 A2.
        let low = book.bracket_source(End::Lower).unwrap();
        assert_eq!(low.line, vec![place(1, 1), place(0, 1)]);
        assert_eq!(low.setter, Setter::Estimate(est(4.0, 3.0).unwrap()));
        assert_eq!(book.root().lower, 1.0);
        // Upper: max(2, min(8, 7), 8) = 8, the estimate after A3.
        let up = book.bracket_source(End::Upper).unwrap();
        assert_eq!(up.line, vec![place(0, 0)]);
        assert_eq!(up.setter, Setter::Estimate(est(2.0, 6.0).unwrap()));
        assert!(up
            .describe(geo, 0.5)
            .starts_with("A3: a search's estimate 1 moves deep (Black's margin +2.50 ± 6.00"));
        // Once White's node is proven (3), the lower end is that exact value.
        book.nodes[w1 as usize].exact = Some(3.0);
        book.nodes[b1 as usize].own = None;
        book.recompute();
        let low = book.bracket_source(End::Lower).unwrap();
        assert_eq!((low.line, low.setter), (vec![place(1, 1)], Setter::Exact(3.0)));
        assert_eq!(
            book.bracket_source(End::Lower).unwrap().describe(geo, 0.5),
            "B2: exact (Black's margin +3.5)"
        );
    }
}
