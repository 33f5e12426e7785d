//! Where the root's figures come from: the margin and each end of a backed-up bracket are
//! one entry's, copied up by the minimax, so following the entry that gives each node its
//! figure leads to the one estimate (or exact value) that sets it, and to the line of book
//! moves there. The ends' lines are where the book is least sure; the report names all three.

use crate::{values, Book, Estimate};
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Color, Game};

/// One of a backed-up value's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// The bracket's lower end.
    Lower,
    /// The margin (the lead).
    Margin,
    /// The bracket's upper end.
    Upper,
    /// The lower end of the main line: where Black takes the largest lower end of its
    /// entries, the one of its best move instead. Black's best line is the one whose lower
    /// end is likeliest to rise past the others' once it is searched deeper.
    MainLower,
    /// The upper end of the main line (White's best move where White takes the smallest).
    MainUpper,
}

impl Figure {
    /// The figure of `v`.
    fn of(self, v: &values::Backed) -> f32 {
        match self {
            Figure::Lower | Figure::MainLower => v.lower,
            Figure::Margin => v.lead,
            Figure::Upper | Figure::MainUpper => v.upper,
        }
    }

    /// Whether the trace follows the mover's best move at a node where `mover` is to move
    /// rather than the entry that sets the figure.
    fn follows_best(self, mover: Color) -> bool {
        matches!((self, mover), (Figure::MainLower, Color::Black) | (Figure::MainUpper, Color::White))
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Figure::Lower => "lower end",
            Figure::Margin => "margin",
            Figure::Upper => "upper end",
            Figure::MainLower => "main line's lower end",
            Figure::MainUpper => "main line's upper end",
        })
    }
}

/// The entry that sets one of the root's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setter {
    /// A search's estimate of the best move not in the book at the line's last node.
    Estimate(Estimate),
    /// The exact value of the line's last node (Black's lead at the book's komi).
    Exact(f32),
}

/// One of the root's figures and where it comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    /// The book moves from the root to the node whose entry sets the figure, in the root's
    /// frame.
    pub line: Vec<Action>,
    /// That node's index.
    pub node: u32,
    /// That entry.
    pub setter: Setter,
}

impl Book {
    /// Where the root's `figure` comes from; `None` for a book with nothing backed up yet.
    pub fn source(&self, figure: Figure) -> Option<Source> {
        let pick = |v: &values::Backed| figure.of(v);
        let geo = self.nodes[0].state.geo();
        let (mut i, mut frame, mut line) = (0usize, Symmetry::IDENTITY, Vec::new());
        while line.len() <= 4 * geo.area() {
            let n = &self.nodes[i];
            let target = pick(&n.value);
            if let Some(x) = n.exact {
                return Some(Source { line, node: i as u32, setter: Setter::Exact(x) });
            }
            if n.value.proven {
                return Some(Source { line, node: i as u32, setter: Setter::Exact(n.value.lead) });
            }
            let best = values::best_edge(&self.nodes, i);
            let edge = if figure.follows_best(n.state.to_move()) {
                match (best, n.own) {
                    (Some(edge), _) => edge,
                    (None, Some(e)) => {
                        return Some(Source { line, node: i as u32, setter: Setter::Estimate(e) })
                    }
                    (None, None) => return None,
                }
            } else {
                if let Some(e) = n.own.filter(|e| pick(&e.backed()) == target) {
                    return Some(Source { line, node: i as u32, setter: Setter::Estimate(e) });
                }
                // The main line's edge where it sets the figure (a position can be reached by
                // several symmetric moves), else the first that does.
                let sets = |e: &crate::Edge| pick(&self.nodes[e.child as usize].value) == target;
                best.filter(sets).or_else(|| n.children.iter().copied().find(sets))?
            };
            line.push(frame.apply_action(geo, edge.action));
            frame = frame.compose(edge.sym);
            i = edge.child as usize;
        }
        None
    }
}

impl Source {
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
    fn each_figure_of_the_root_is_traced_to_the_entry_that_sets_it() {
        let (mut book, [b1, b2, w1]) = crate::small_tree(6.0);
        let geo = book.nodes[0].state.geo();
        let place = |x: usize, y: usize| Action::Place(geo.from_dense(y * 3 + x));
        book.recompute();
        // Lower: max(0, min(4, 1), -4) = 1, White's reply's estimate 4 - 3 after B2 A2.
        let low = book.source(Figure::Lower).unwrap();
        assert_eq!(low.line, vec![place(1, 1), place(0, 1)]);
        assert_eq!(low.setter, Setter::Estimate(est(4.0, 3.0).unwrap()));
        assert_eq!(book.root().lower, 1.0);
        // Margin: max(1, min(6, 4), 2) = 4, the same estimate's lead.
        let margin = book.source(Figure::Margin).unwrap();
        assert_eq!((margin.line, margin.setter), (low.line.clone(), low.setter));
        assert_eq!(book.root().lead, 4.0);
        // Upper: max(2, min(8, 7), 8) = 8, the estimate after A3.
        let up = book.source(Figure::Upper).unwrap();
        assert_eq!(up.line, vec![place(0, 0)]);
        assert_eq!(up.setter, Setter::Estimate(est(2.0, 6.0).unwrap()));
        assert!(up
            .describe(geo, 0.5)
            .starts_with("A3: a search's estimate 1 moves deep (Black's margin +2.50 ± 6.00"));
        // A narrow estimate after A3 sets the root's lower end (2.3 over B2's 1); the main
        // line's lower end is still B2's, from White's reply's estimate.
        book.nodes[b2 as usize].own = est(2.5, 0.2);
        book.recompute();
        assert!((book.root().lower - 2.3).abs() < 1e-6);
        assert_eq!(book.source(Figure::Lower).unwrap().line, vec![place(0, 0)]);
        let main = book.source(Figure::MainLower).unwrap();
        assert_eq!((main.line, main.setter), (vec![place(1, 1), place(0, 1)], low.setter));
        // White's best reply at B2 is A2, which also sets that node's upper end (7).
        assert_eq!(book.source(Figure::MainUpper).unwrap().line, vec![place(1, 1), place(0, 1)]);
        // Once White's node is proven (3), the lower end is that exact value.
        book.nodes[w1 as usize].exact = Some(3.0);
        book.nodes[b1 as usize].own = None;
        book.recompute();
        let low = book.source(Figure::Lower).unwrap();
        assert_eq!((low.line, low.setter), (vec![place(1, 1)], Setter::Exact(3.0)));
        assert_eq!(book.source(Figure::Lower).unwrap().describe(geo, 0.5), "B2: exact (Black's margin +3.5)");
    }
}
