//! Whether passing is premature: area-scoring Go positions that still have a point worth
//! playing for the player to move.
//!
//! Under area scoring a pass while points are still open gives them away, and a search
//! with an untrained net passes early all the time: in hane's quick 5x5 run three passes in
//! four were answered by the opponent placing a stone. KataGo's self-play avoids such data
//! by ending games only once every point is settled (pass-alive); hane lets the search
//! leave the pass out instead ([`GameState::pass_is_premature`], applied through
//! [`Game::drop_premature_pass`]) while the mover has an *open* placement:
//!
//! * a legal placement on an empty point,
//! * that is not an eye of the mover (every orthogonal neighbour the mover's stone or the
//!   edge): filling it can only cost the group an eye,
//! * that is not a self-atari (after captures the chain through the new stone has at most
//!   one liberty): that keeps sekis and capturing races, where the only placements left
//!   are self-ataris, free to end with passes,
//! * and that is not inside either colour's pass-alive territory (Benson, see
//!   [`score::pass_alive`]): there a stone of the owner adds nothing and one of the
//!   opponent can never live.
//!
//! The first three tests are local and cheap; Benson runs at most once per call and only
//! when no candidate is obviously outside every territory, so that an open board (the
//! common case in a search) is decided without it.

use super::{Game, GameState};
use crate::action::Action;
use crate::board::{Board, Color, EMPTY, WALL};
use crate::point::Point;
use crate::rules::{Scoring, Variant};
use crate::score;

impl GameState {
    /// Whether a pass by the player to move would be premature: the rules are area-scoring
    /// Go, the game is not over, and the mover has an open placement (see the module docs).
    /// Always `false` for territory Go, Loose and Sligo, where passing has other costs and
    /// meanings.
    pub fn pass_is_premature(&self) -> bool {
        let rules = self.rules();
        if rules.variant != Variant::Go || rules.scoring != Scoring::Area || self.is_over() {
            return false;
        }
        let b = self.board();
        let me = self.to_move();
        let mut scratch: Option<Board> = None;
        // Open points whose territory status needs Benson.
        let mut doubtful: Vec<Point> = Vec::new();
        for p in b.empties() {
            if b.is_eye_shape(p, me)
                || !self.on_board_placement_is_legal(p)
                || self_atari(b, p, me, &mut scratch)
            {
                continue;
            }
            if !may_be_territory(b, p, Color::Black) && !may_be_territory(b, p, Color::White) {
                return true;
            }
            doubtful.push(p);
        }
        if doubtful.is_empty() {
            return false;
        }
        let black = score::pass_alive(b, Color::Black).territory;
        let white = score::pass_alive(b, Color::White).territory;
        doubtful.iter().any(|&p| !black.contains(p) && !white.contains(p))
    }
}

/// Whether `c` placing on the empty `p` (a legal point) leaves the chain through the new
/// stone with at most one liberty after captures (none: a suicide where the rules allow
/// it). Two empty neighbours are two liberties; otherwise the move is played on `scratch`.
fn self_atari(b: &Board, p: Point, c: Color, scratch: &mut Option<Board>) -> bool {
    if b.adj(p).into_iter().filter(|&q| b.at(q) == EMPTY).count() >= 2 {
        return false;
    }
    let s = scratch.get_or_insert_with(|| b.clone());
    s.clone_from(b);
    s.play_go(p, c);
    s.at(p) == EMPTY || s.libs(p) <= 1
}

/// Whether the empty `p` may lie in `c`'s pass-alive territory, by a local test: Benson's
/// territory is a region (connected points without a `c` stone) with at most one point that
/// has no `c` neighbour, so `p` is outside it when `p` and one of its neighbours both lack a
/// `c` neighbour (and that neighbour is not a `c` stone, i.e. lies in `p`'s region).
fn may_be_territory(b: &Board, p: Point, c: Color) -> bool {
    if b.has_neighbour(p, c) {
        return true;
    }
    !b.adj(p).into_iter().any(|q| {
        let v = b.at(q);
        v != WALL && v != c.cell() && !b.has_neighbour(q, c)
    })
}

/// Removes [`Action::Pass`] from `legal` (this state's legal actions) when it is premature
/// and something else is left; the [`Game::drop_premature_pass`] of [`GameState`].
pub(super) fn drop_premature_pass(g: &GameState, legal: &mut Vec<Action>) {
    if legal.len() > 1 && legal.contains(&Action::Pass) && g.pass_is_premature() {
        legal.retain(|&a| a != Action::Pass);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// A game under `rules` whose board holds `rows` (top first, `X` Black, `O` White),
    /// reached by real play without captures (passes fill in for the side with fewer
    /// stones), with `to_move` to move and the game not over.
    fn position(rules: &str, rows: &[&str], to_move: Color) -> GameState {
        let r: Rules = rules.parse().unwrap();
        let layout = Board::from_rows(rows).unwrap();
        let layout = &layout;
        let stones = |c: Color| layout.geo().points().filter(move |&p| layout.color(p) == Some(c));
        let (mut black, mut white) = (stones(Color::Black), stones(Color::White));
        // Black and White in turn, a pass for a side out of stones; then the side to move is
        // set by one more pass, or one fewer at the end, so no two passes meet.
        let mut turns = Vec::new();
        loop {
            let (b, w) = (black.next(), white.next());
            if b.is_none() && w.is_none() {
                break;
            }
            turns.push(b.map_or(Action::Pass, Action::Place));
            turns.push(w.map_or(Action::Pass, Action::Place));
        }
        if to_move == Color::White {
            if turns.last() == Some(&Action::Pass) {
                turns.pop();
            } else {
                turns.push(Action::Pass);
            }
        }
        let mut g = GameState::new(r);
        for a in turns {
            g.play(a).unwrap_or_else(|e| panic!("{e}\n{g}"));
        }
        assert_eq!(g.board().rows(), layout.rows());
        assert!(g.to_move() == to_move && !g.is_over());
        g
    }

    fn premature(g: &GameState) -> bool {
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let before = legal.len();
        g.drop_premature_pass(&mut legal);
        let dropped = legal.len() < before;
        assert_eq!(dropped, g.pass_is_premature(), "the filter follows the decision\n{g}");
        dropped
    }

    const EMPTY5: [&str; 5] = [".....", ".....", ".....", ".....", "....."];

    #[test]
    fn an_open_board_makes_a_pass_premature() {
        for c in [Color::Black, Color::White] {
            assert!(premature(&position("ttakji,size=5", &EMPTY5, c)));
            let one_stone = [".....", ".....", "..X..", ".....", "....."];
            assert!(premature(&position("ttakji,size=5", &one_stone, c)));
        }
        // Only area-scoring Go prunes.
        for rules in ["brainking,size=5", "japanese,size=5", "loose,size=5", "sligo,size=5"] {
            let g = GameState::new(rules.parse().unwrap());
            assert!(!premature(&g), "{rules}");
        }
        assert!(premature(&GameState::new("chinese,size=5".parse().unwrap())));
        assert!(premature(&GameState::new("tromp-taylor,size=5".parse().unwrap())));
    }

    /// Two pass-alive groups with an empty column between them: the column is worth a point
    /// per stone to either side (decided by Benson, as each point touches both colours).
    #[test]
    fn dame_between_living_groups_is_open() {
        let rows = [
            ".X.O.", //
            "XX.OO", //
            ".X.O.", //
            "XX.OO", //
            ".X.O.",
        ];
        for c in [Color::Black, Color::White] {
            assert!(premature(&position("ttakji,size=5", &rows, c)));
        }
    }

    /// Both sides pass-alive and touching; Black's three-point eye space on top is its
    /// pass-alive territory: a White stone on B6 (two liberties) could never live, and
    /// Black's own fills add nothing. No open placement for either side.
    ///
    /// ```text
    ///   A B C D E F
    /// 6 . . . X O .
    /// 5 X X X X O O
    /// 4 . X X X O .
    /// 3 X X X X O O
    /// 2 X X X X O .
    /// 1 X X X X O O
    /// ```
    #[test]
    fn pass_alive_territory_is_settled() {
        let rows = ["...XO.", "XXXXOO", ".XXXO.", "XXXXOO", "XXXXO.", "XXXXOO"];
        for c in [Color::Black, Color::White] {
            let g = position("ttakji,size=6", &rows, c);
            assert!(!premature(&g), "{g}");
        }
        // Without Black's D6 the eye space opens onto White's side: no territory, and D6
        // is worth a point to either side.
        let rows = ["....O.", "XXXXOO", ".XXXO.", "XXXXOO", "XXXXO.", "XXXXOO"];
        for c in [Color::Black, Color::White] {
            assert!(premature(&position("ttakji,size=6", &rows, c)));
        }
        // A whole-board Black group with two eyes: Black's eyes are not open, White's
        // placements are all suicide.
        let rows = ["XXXXX", "X.X.X", "XXXXX", "XXXXX", "XXXXX"];
        for c in [Color::Black, Color::White] {
            assert!(!premature(&position("ttakji,size=5", &rows, c)));
        }
    }

    /// A seki between the inner chains (White C, D1, D2; Black E, D4, D6, D7), each walled
    /// in by the other colour's pass-alive group: D3 and D5 are self-ataris for both, so
    /// neither side has an open placement and passing ends the game as it should.
    ///
    /// ```text
    ///   A B C D E F G
    /// 7 . X O X X O .
    /// 6 X X O X X O O
    /// 5 . X O . X O .
    /// 4 X X O X X O O
    /// 3 . X O . X O .
    /// 2 X X O O X O O
    /// 1 . X O O X O .
    /// ```
    #[test]
    fn seki_points_are_not_open() {
        let rows = [
            ".XOXXO.", //
            "XXOXXOO", //
            ".XO.XO.", //
            "XXOXXOO", //
            ".XO.XO.", //
            "XXOOXOO", //
            ".XOOXO.",
        ];
        for c in [Color::Black, Color::White] {
            let g = position("ttakji,size=7", &rows, c);
            assert!(!premature(&g), "{g}");
        }
    }
}
