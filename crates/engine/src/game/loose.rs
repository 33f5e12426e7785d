//! Loose placements: captures flip the enemy groups left without a true liberty, and a
//! placement is legal when every group of the mover keeps one.

use super::{GameState, Refusal};
use crate::board::{Board, Color, PointSet, EMPTY};
use crate::point::Point;
use crate::score;

impl GameState {
    /// Loose: plays `p` on a copy of the board; `Err` if the turn is illegal.
    pub(super) fn loose_after(&self, p: Point) -> Result<Board, Refusal> {
        if self.board.at(p) != EMPTY {
            return Err(Refusal::Occupied);
        }
        let mut b = self.board.clone();
        loose_place(&mut b, self.to_move, p)?;
        Ok(b)
    }

    /// Loose: whether placing on the empty-or-not `p` is legal; [`GameState::loose_after`]
    /// without its copy of the board where no enemy group would flip. Never inlined: the
    /// board it may get back would give every caller, the Go hot path included, a stack
    /// frame of several pages to probe.
    #[inline(never)]
    pub(super) fn loose_legal(&self, p: Point) -> bool {
        self.board.at(p) == EMPTY
            && loose_without_flips(&self.board, p, self.to_move)
                .unwrap_or_else(|| self.loose_after(p).is_ok())
    }
}

/// Loose, for `c` placing on the empty `p`: `None` if some enemy group would flip, else
/// whether the placement is legal. Decided on the board before the placement: only `p` and
/// its empty neighbours change their true-liberty status (see [`true_liberty_after`]), the
/// mover's chains next to `p` join `p`'s group, and with no flip only the groups touching
/// `p` or its empty neighbours can lose their last true liberty.
fn loose_without_flips(b: &Board, p: Point, c: Color) -> Option<bool> {
    let chain_ok = |q: Point| {
        b.chain_stones(q)
            .any(|s| b.adj(s).into_iter().any(|x| b.at(x) == EMPTY && true_liberty_after(b, x, p, c)))
    };
    let enemy = c.opp().cell();
    let touches_p = |q: Point| b.adj(p).into_iter().any(|r| b.at(r) == c.cell() && b.chain(r) == b.chain(q));
    // p's group: p with the mover's chains next to it.
    let group_ok = b.adj(p).into_iter().any(|x| b.at(x) == EMPTY && true_liberty_after(b, x, p, c))
        || b.adj(p).into_iter().any(|q| b.at(q) == c.cell() && chain_ok(q));
    let mut legal = group_ok;
    for q in b.adj(p) {
        match b.at(q) {
            v if v == enemy && !chain_ok(q) => return None,
            EMPTY => {
                for r in b.adj(q) {
                    let v = b.at(r);
                    if v == enemy && !chain_ok(r) {
                        return None;
                    }
                    if v == c.cell() && !touches_p(r) && !chain_ok(r) {
                        legal = false;
                    }
                }
            }
            _ => {}
        }
    }
    Some(legal)
}

/// Loose: whether the empty `x` is a true liberty once `c` is placed on the empty `p` and
/// nothing else changes.
fn true_liberty_after(b: &Board, x: Point, p: Point, c: Color) -> bool {
    if x == p {
        return false;
    }
    if !b.adj(x).contains(&p) {
        return score::is_true_liberty(b, x);
    }
    let empty = b.adj(x).into_iter().any(|y| y != p && b.at(y) == EMPTY);
    let black = c == Color::Black || b.has_neighbour(x, Color::Black);
    let white = c == Color::White || b.has_neighbour(x, Color::White);
    empty || !(black && white)
}

/// Loose: places `c`'s stone on the empty `p` of `b` with its flips, and checks that every
/// group of the mover keeps a true liberty. `b` is changed even when the placement is refused.
pub(super) fn loose_place(b: &mut Board, c: Color, p: Point) -> Result<(), Refusal> {
    b.put(p, c);
    // Enemy groups that can newly lack a true liberty touch p or an empty neighbour of p:
    // at most 4 + 4 * 3 chains.
    let mut candidates = [Point(0); 16];
    let mut n = 0;
    let mut seen = PointSet::default();
    let enemy = c.opp().cell();
    let mut consider = |q: Point, b: &Board| {
        if b.at(q) == enemy && seen.insert(b.chain(q)) {
            candidates[n] = q;
            n += 1;
        }
    };
    for q in b.adj(p) {
        consider(q, b);
        if b.at(q) == EMPTY {
            for r in b.adj(q) {
                consider(r, b);
            }
        }
    }
    // Decide every candidate before flipping any: a flip can change the others' test.
    let mut doomed = [false; 16];
    for (d, &q) in doomed.iter_mut().zip(&candidates[..n]) {
        *d = !score::has_true_liberty(b, q);
    }
    for (&d, &q) in doomed.iter().zip(&candidates[..n]) {
        if d {
            b.flip_chain(q);
        }
    }
    // Only the mover's groups at p or next to p's empty neighbours can lack one now.
    if !score::has_true_liberty(b, p) {
        return Err(Refusal::NoTrueLiberty);
    }
    for q in b.adj(p) {
        if b.at(q) == EMPTY {
            for r in b.adj(q) {
                if b.at(r) == c.cell() && !score::has_true_liberty(b, r) {
                    return Err(Refusal::NoTrueLiberty);
                }
            }
        }
    }
    Ok(())
}
