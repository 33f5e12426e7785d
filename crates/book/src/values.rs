//! Minimax backup: a node's value is the best of its entries for the side to move, each
//! statistic on its own (KataGo's `recomputeNodeValues`).
//!
//! The entries are the node's exact value where it has one (then nothing else counts),
//! else its estimate of the moves not in the book (while some are not) and each book
//! child's backed-up value. Black takes the largest, White the smallest, of the lead, of the
//! lower bracket, of the upper bracket and of the win probability.

use crate::{Edge, Node};
use hane_engine::{Color, Game};
use serde::{Deserialize, Serialize};

/// A node's backed-up value, Black's view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Backed {
    /// Black's lead at the book's komi, in points.
    pub lead: f32,
    /// The bracket's lower end.
    pub lower: f32,
    /// The bracket's upper end.
    pub upper: f32,
    /// Black's probability of winning (draws half).
    pub win: f32,
    /// Whether `lead` is exact: the node is settled, or every legal action is in the book
    /// and every child is proven (then `lower == lead == upper`).
    pub proven: bool,
}

impl Backed {
    /// An exact value.
    pub fn exact(lead: f32) -> Backed {
        let win = match lead.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => 1.0,
            Some(std::cmp::Ordering::Less) => 0.0,
            _ => 0.5,
        };
        Backed { lead, lower: lead, upper: lead, win, proven: true }
    }

    /// The value from `mover`'s view of "better": larger is better for Black, smaller for
    /// White; its optimistic bound for the mover, as a number to maximise.
    pub fn optimistic(&self, mover: Color) -> f32 {
        match mover {
            Color::Black => self.upper,
            Color::White => -self.lower,
        }
    }
}

/// The entries of node `i`, as values.
fn entries<'a>(nodes: &'a [Node], i: usize) -> impl Iterator<Item = Backed> + 'a {
    let n = &nodes[i];
    let own = n.own.map(|e| e.backed());
    own.into_iter().chain(n.children.iter().map(move |e| nodes[e.child as usize].value))
}

/// Node `i`'s value from its entries (its children's values must be up to date).
pub fn back_up(nodes: &[Node], i: usize) -> Backed {
    let n = &nodes[i];
    if let Some(x) = n.exact {
        return Backed::exact(x);
    }
    let black = n.state.to_move() == Color::Black;
    let pick = |a: f32, b: f32| if black { a.max(b) } else { a.min(b) };
    let mut out: Option<Backed> = None;
    let mut all_proven = n.own.is_none() && !n.children.is_empty();
    for v in entries(nodes, i) {
        all_proven &= v.proven;
        out = Some(match out {
            None => v,
            Some(o) => Backed {
                lead: pick(o.lead, v.lead),
                lower: pick(o.lower, v.lower),
                upper: pick(o.upper, v.upper),
                win: pick(o.win, v.win),
                proven: false,
            },
        });
    }
    let mut v = out.unwrap_or(Backed {
        lead: 0.0,
        lower: f32::NEG_INFINITY,
        upper: f32::INFINITY,
        win: 0.5,
        proven: false,
    });
    if all_proven {
        v.lower = v.lead;
        v.upper = v.lead;
        v.proven = true;
    }
    v
}

/// The mover's best book move at node `i` when it is at least as good as the moves not in
/// the book (by lead), the first listed on a tie.
pub fn best_edge(nodes: &[Node], i: usize) -> Option<Edge> {
    let n = &nodes[i];
    let sign = if n.state.to_move() == Color::Black { 1.0 } else { -1.0 };
    let best = n.children.iter().copied().max_by(|a, b| {
        let (va, vb) = (sign * nodes[a.child as usize].value.lead, sign * nodes[b.child as usize].value.lead);
        va.total_cmp(&vb).then(b.child.cmp(&a.child))
    })?;
    let own = n.own.map_or(f32::NEG_INFINITY, |e| sign * e.lead);
    (sign * nodes[best.child as usize].value.lead >= own).then_some(best)
}
