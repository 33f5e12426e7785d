//! The book as an SGF tree that Sabaki and other editors browse: every book move as a
//! variation, best first, each node's comment giving Black's margin (komi plus the backed-up
//! lead) with its bracket, whether it is proven, the visits behind its estimate and the raw
//! policy of the move. A position reached by several lines is written under the first; the
//! others say so. Sligo's slide decision is a node of its own whose comment names the slide.

use crate::{values, Book};
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Color, Game, Geometry};
use std::collections::HashSet;
use std::fmt::Write;

/// The book as SGF text: at most `max_nodes` nodes, `max_depth` moves deep.
pub fn write(book: &Book, max_depth: usize, max_nodes: usize) -> String {
    let r = book.rules();
    let mut out = String::new();
    let _ = write!(
        out,
        "(;GM[1]FF[4]CA[UTF-8]AP[hane]SZ[{}]KM[{}]RU[{}]C[{}]",
        r.size,
        r.komi,
        escape(&r.to_string()),
        escape(&format!(
            "hane book: {} nodes, {} expansions, {} evaluations\nnet: {}\n{}",
            book.nodes.len(),
            book.expansions,
            book.evaluations,
            book.header.net,
            comment(book, 0, None)
        ))
    );
    let mut writer = Writer { book, out, seen: HashSet::from([0]), left: max_nodes, max_depth };
    writer.children(0, Symmetry::IDENTITY, 0);
    writer.out.push_str(")\n");
    writer.out
}

struct Writer<'a> {
    book: &'a Book,
    out: String,
    seen: HashSet<u32>,
    left: usize,
    max_depth: usize,
}

impl Writer<'_> {
    /// The variations below node `n`, shown in `frame`, at `depth`.
    fn children(&mut self, n: u32, frame: Symmetry, depth: usize) {
        if depth >= self.max_depth {
            return;
        }
        let nodes = &self.book.nodes;
        let node = &nodes[n as usize];
        let mover = node.state.to_move();
        let mut edges = node.children.clone();
        // One edge per child (symmetric moves lead to one node), best for the mover first.
        edges.sort_by_key(|e| e.child);
        edges.dedup_by_key(|e| e.child);
        let sign = if mover == Color::Black { 1.0 } else { -1.0 };
        edges.sort_by(|a, b| {
            let va = sign * nodes[a.child as usize].value.lead;
            let vb = sign * nodes[b.child as usize].value.lead;
            vb.total_cmp(&va)
        });
        let several = edges.len() > 1;
        for e in edges {
            if self.left == 0 {
                return;
            }
            self.left -= 1;
            let geo = node.state.geo();
            let action = frame.apply_action(geo, e.action);
            if several {
                self.out.push('(');
            }
            let first_time = self.seen.insert(e.child);
            let mut text = comment(self.book, e.child, Some(e.prior));
            if !first_time {
                text.push_str("\n(reached by another line too; its book moves are shown there)");
            }
            let _ = write!(self.out, "\n;{}C[{}]", move_text(geo, mover, action), escape(&text));
            if first_time {
                self.children(e.child, frame.compose(e.sym), depth + 1);
            }
            if several {
                self.out.push(')');
            }
        }
    }
}

/// An SGF move property (or a comment-only node for a Sligo slide decision).
fn move_text(geo: Geometry, mover: Color, a: Action) -> String {
    let c = if mover == Color::Black { 'B' } else { 'W' };
    match a {
        Action::Place(p) => {
            let (x, y) = geo.xy(p);
            format!("{c}[{}{}]", (b'a' + x as u8) as char, (b'a' + y as u8) as char)
        }
        Action::Pass => format!("{c}[]"),
        Action::NoSlide | Action::Slide(..) => format!("N[{}]", a.name(geo)),
    }
}

/// A node's comment.
fn comment(book: &Book, n: u32, prior: Option<f32>) -> String {
    let komi = book.rules().komi.as_f64() as f32;
    let node = &book.nodes[n as usize];
    let v = node.value;
    let mut s = if v.proven {
        format!("Black's margin {:+} (proven)", komi + v.lead)
    } else {
        format!(
            "Black's margin {:+.2} [{:+.2}, {:+.2}], Black wins {:.1}%",
            komi + v.lead,
            komi + v.lower,
            komi + v.upper,
            100.0 * v.win
        )
    };
    if let Some(e) = node.own {
        let _ = write!(s, "\nbest move not in the book: {:+.2} ({} visits)", komi + e.lead, e.visits);
    }
    if let Some(p) = prior {
        let _ = write!(s, "\nraw policy of this move: {:.1}%", 100.0 * p);
    }
    if let Some(best) = values::best_edge(&book.nodes, n as usize) {
        let _ = write!(s, "\nbook move: {}", best.action.name(node.state.geo()));
    }
    s
}

/// Escapes an SGF text value.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}
