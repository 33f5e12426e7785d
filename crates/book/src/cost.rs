//! Which node to expand next: the one at the end of the cheapest path from the root, plus
//! what adding one more move there costs (KataGo's `recomputeNodeCost`, with the gaps in
//! points and in win probability instead of KataGo's error-head bounds).
//!
//! An edge from P to C costs `per_move`, plus `per_point` times how far C's optimistic
//! bound (the upper bracket for Black, the lower for White) falls short of the best
//! optimistic bound among P's entries (capped at `point_cap`), plus `per_win` times the same
//! gap in win probability, plus `per_log_policy` times `-ln` of the move's raw policy. A
//! node's expansion cost is its cost from the root plus the same terms for its estimate of
//! the moves not in the book (with the largest raw policy among them), plus
//! `per_child * m + per_child_sq * m^2` for its `m` book moves: nodes with many book moves
//! already are widened less readily.

use crate::{Backed, Book};
use hane_engine::Game;
use serde::{Deserialize, Serialize};

/// The weights of the path cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CostWeights {
    /// Per move along the path.
    pub per_move: f32,
    /// Per point of optimistic-bound gap.
    pub per_point: f32,
    /// The largest point gap counted.
    pub point_cap: f32,
    /// Per unit of win-probability gap.
    pub per_win: f32,
    /// Per unit of `-ln(policy)`.
    pub per_log_policy: f32,
    /// Per book move already at the node.
    pub per_child: f32,
    /// Per squared book move already at the node.
    pub per_child_sq: f32,
    /// The share of its cost that an edge on the node's best line (the mover's best book
    /// move, by lead) is spared, so the book deepens its main lines (KataGo's PV bonus, up to
    /// 0.5 there).
    pub pv_discount: f32,
}

impl CostWeights {
    /// Sets weights from `key=value` pairs separated by commas (`per_child=1,pv_discount=0.5`).
    pub fn parse_into(&mut self, text: &str) -> Result<(), String> {
        for pair in text.split(',').filter(|p| !p.is_empty()) {
            let (k, v) =
                pair.split_once('=').ok_or_else(|| format!("\"{}\": not key=value", pair.escape_debug()))?;
            let v: f32 = v.parse().map_err(|_| format!("\"{}\": not a number", pair.escape_debug()))?;
            if !(0.0..=1000.0).contains(&v) {
                return Err(format!("\"{}\": allowed 0 to 1000", pair.escape_debug()));
            }
            let slot = match k {
                "per_move" => &mut self.per_move,
                "per_point" => &mut self.per_point,
                "point_cap" => &mut self.point_cap,
                "per_win" => &mut self.per_win,
                "per_log_policy" => &mut self.per_log_policy,
                "per_child" => &mut self.per_child,
                "per_child_sq" => &mut self.per_child_sq,
                "pv_discount" if v <= 1.0 => &mut self.pv_discount,
                _ => return Err(format!("\"{}\": not a cost weight (or out of range)", k.escape_debug())),
            };
            *slot = v;
        }
        Ok(())
    }
}

impl Default for CostWeights {
    /// KataGo's 7x7 constants (genbook7tt.cfg) where they carry over: 0.45 per move, 0.75
    /// per `-ln` policy, 0.25 and 0.05 per book move and its square, 4.5 per unit of
    /// win-rate gap (KataGo's 4.5 per unit of a [-1, 1] scale, here on [0, 1] halved: 2.25
    /// would be the same; the larger weight favours lines that stay close); 0.75 per point
    /// of gap, capped at 6 points.
    fn default() -> Self {
        CostWeights {
            per_move: 0.45,
            per_point: 0.75,
            point_cap: 6.0,
            per_win: 4.5,
            per_log_policy: 0.75,
            per_child: 0.25,
            per_child_sq: 0.05,
            pv_discount: 0.0,
        }
    }
}

fn neg_log(p: f32) -> f32 {
    -(p.clamp(1e-6, 1.0)).ln()
}

/// The expansion cost of every node (`f32::INFINITY` where a node cannot be expanded),
/// computed from the root in the order of play.
pub fn expansion_costs(book: &Book, w: &CostWeights) -> Vec<f32> {
    let nodes = &book.nodes;
    let order = book.by_ply();
    let mut path = vec![f32::INFINITY; nodes.len()];
    let mut expand = vec![f32::INFINITY; nodes.len()];
    path[0] = 0.0;
    for i in order {
        let n = &nodes[i as usize];
        let here = path[i as usize];
        if !here.is_finite() {
            continue;
        }
        let mover = n.state.to_move();
        let own = n.own.map(|e| e.backed());
        let win = |v: &Backed| if mover == hane_engine::Color::Black { v.win } else { 1.0 - v.win };
        let entries = own.iter().copied().chain(n.children.iter().map(|e| nodes[e.child as usize].value));
        let (best_opt, best_win) = entries.fold((f32::NEG_INFINITY, f32::NEG_INFINITY), |(o, wn), v| {
            (o.max(v.optimistic(mover)), wn.max(win(&v)))
        });
        let gap = |v: &Backed| {
            // A bracket that spans every score (no estimate yet) makes no gap, not a NaN.
            let gap_of = |d: f32| if d.is_nan() { 0.0 } else { d };
            let points = gap_of(best_opt - v.optimistic(mover)).clamp(0.0, w.point_cap);
            let wins = gap_of(best_win - win(v)).max(0.0);
            w.per_move + w.per_point * points + w.per_win * wins
        };
        let best = crate::values::best_edge(nodes, i as usize).map(|e| e.child);
        for e in &n.children {
            let mut step = gap(&nodes[e.child as usize].value) + w.per_log_policy * neg_log(e.prior);
            if Some(e.child) == best {
                step *= 1.0 - w.pv_discount;
            }
            let c = here + step;
            let slot = &mut path[e.child as usize];
            *slot = slot.min(c);
        }
        if let (true, Some(own), Some(est)) = (n.expandable(), own, n.own) {
            let m = n.distinct_children() as f32;
            expand[i as usize] = here
                + gap(&own)
                + w.per_log_policy * neg_log(est.max_prior)
                + w.per_child * m
                + w.per_child_sq * m * m;
        }
    }
    expand
}

/// The `k` cheapest nodes to expand, cheapest first.
pub fn cheapest(book: &Book, w: &CostWeights, k: usize) -> Vec<(u32, f32)> {
    let costs = expansion_costs(book, w);
    let mut open: Vec<(u32, f32)> =
        costs.iter().enumerate().filter(|(_, c)| c.is_finite()).map(|(i, &c)| (i as u32, c)).collect();
    open.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    open.truncate(k);
    open
}
