//! Go placements: whether one is legal (occupied, suicide, simple ko, positional superko),
//! decided without allocation because light playouts ask it for most empty points of every
//! position, and the placement itself with its capture counts.

use super::{GameState, PlayError};
use crate::board::{is_true_eye, EMPTY};
use crate::point::Point;
use crate::rules::KoRule;

/// Why a Go placement is illegal, without the allocation of a [`PlayError`].
#[derive(Clone, Copy)]
pub(super) enum GoViolation {
    Occupied,
    Suicide,
    Ko,
    Superko,
}

impl GameState {
    /// Go: which rule forbids the mover's stone on the on-board `p` (occupied, suicide, ko,
    /// superko); `None` when the placement is legal. Allocates nothing: `legal_actions` and
    /// light playouts ask it for every empty point.
    #[inline]
    pub(super) fn go_why_illegal(&self, p: Point) -> Option<GoViolation> {
        if self.board.at(p) != EMPTY {
            return Some(GoViolation::Occupied);
        }
        // A never-vacated point with an empty neighbour: the stone survives and the position
        // is new, so no rule can forbid it (the common case, decided without a probe, and
        // inlined into the callers' loops).
        if self.board.fresh_with_empty_neighbour(p) {
            return None;
        }
        self.go_why_illegal_slow(p)
    }

    /// Go light playouts: whether the mover may place on the empty `p` (legal) and should
    /// (not its own true eye).
    #[inline(always)]
    pub(crate) fn go_legal_and_not_own_eye(&self, p: Point) -> bool {
        // The fast path of `go_why_illegal` first, as one branch: a point with an empty
        // neighbour is no eye either.
        if self.board.fresh_with_empty_neighbour(p) {
            return true;
        }
        !is_true_eye(&self.board, p, self.to_move) && self.go_why_illegal_slow(p).is_none()
    }

    /// Go: places on `p`, a legal point, or passes (`None`); the playout loop's
    /// [`Game::play_unchecked`](super::Game::play_unchecked), without its dispatch on the rules and the action.
    #[inline(always)]
    pub(crate) fn play_go_unchecked(&mut self, p: Option<Point>) {
        match p {
            Some(p) => self.apply_go(p),
            None => self.finish_turn(None),
        }
    }

    /// [`GameState::go_why_illegal`] where its one-word test does not decide: `p` must be
    /// empty, and vacated before or without an empty neighbour. The probe and the suicide
    /// test here, the ko rules out of line.
    #[inline(always)]
    fn go_why_illegal_slow(&self, p: Point) -> Option<GoViolation> {
        let c = self.to_move;
        let fresh = !self.board.was_vacated(p);
        let has_empty = self.board.has_empty_neighbour(p);
        // With an empty neighbour and no enemy one, the stone survives and captures nothing.
        let (no_suicide, captured) = if has_empty && !self.board.has_neighbour(p, c.opp()) {
            (true, 0)
        } else {
            self.board.go_probe(p, c)
        };
        if !self.rules.suicide && !no_suicide {
            return Some(GoViolation::Suicide);
        }
        if fresh && no_suicide {
            return None;
        }
        self.go_ko_forbids(p, no_suicide, captured)
    }

    /// Go: whether the ko rule forbids the position that the mover's stone on the empty `p`
    /// makes (`Ko`, `Superko`, or `None` when it allows it), given what the probe found:
    /// whether the stone survives, and the chains it captures as a mask from
    /// [`Board::go_probe`](crate::board::Board::go_probe).
    fn go_ko_forbids(&self, p: Point, no_suicide: bool, captured: u32) -> Option<GoViolation> {
        let c = self.to_move;
        match self.rules.ko {
            KoRule::None => {}
            KoRule::Simple => {
                // Without a capture the new position has the mover's stone on p where the
                // position before the opponent's last move had none, so only captures can
                // recreate it.
                if captured != 0
                    && Some(self.board.hash_after_captures(p, c, captured)) == self.history.before_last()
                {
                    return Some(GoViolation::Ko);
                }
            }
            KoRule::Positional => {
                let h = if !no_suicide {
                    self.board.go_hash_after(p, c)
                } else if captured == 0 {
                    self.board.hash_with_stone(p, c)
                } else {
                    self.board.hash_after_captures(p, c, captured)
                };
                if self.history.contains(h) {
                    return Some(GoViolation::Superko);
                }
            }
        }
        None
    }

    /// Go: whether the mover may place on the on-board `p`, with a descriptive error.
    pub(super) fn check_go(&self, p: Point) -> Result<(), PlayError> {
        let name = self.name(p);
        match self.go_why_illegal(p) {
            None => Ok(()),
            Some(GoViolation::Occupied) => Err(PlayError::Occupied(name)),
            Some(GoViolation::Suicide) => Err(PlayError::Suicide(name)),
            Some(GoViolation::Ko) => Err(PlayError::Ko(name)),
            Some(GoViolation::Superko) => Err(PlayError::Superko(name)),
        }
    }

    /// Go: places the mover's stone on `p`, a legal point, with its captures, and finishes
    /// the turn.
    #[inline]
    pub(super) fn apply_go(&mut self, p: Point) {
        let c = self.to_move;
        let (n, lost) = self.board.play_go_counted(p, c);
        self.captured[c.opp().index()] += n as u32;
        // A suicide (where allowed) removes the mover's own chain: those count as captured too.
        self.captured[c.index()] += lost as u32;
        self.finish_turn(Some(p));
    }
}
