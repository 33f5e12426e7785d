//! Sligo turns: an optional slide of an own stone one king step to an empty point, then a
//! placement with captures; the turn must not leave a weak pair, and the canonical action
//! sequences keep two sequences from reaching the same turn.

use super::{GameState, Phase, PlayError, Refusal};
use crate::action::Action;
use crate::board::{Board, Color, EMPTY};
use crate::point::{Dir, Geometry, Point};

impl GameState {
    /// Sligo: the board after placing at `q` (the slide, if any, is already on `self.board`).
    pub(super) fn sligo_after(&self, q: Point) -> Result<Board, Refusal> {
        let Phase::Place(slide) = self.phase else {
            return Err(Refusal::WrongPhase);
        };
        let mut b = self.board.clone();
        sligo_place(&mut b, self.to_move, slide, q)?;
        Ok(b)
    }

    /// Sligo, in a placement phase: whether placing at `q` completes a legal turn, worked out
    /// on `scratch` (any board of this size; overwritten) instead of a fresh copy.
    pub(crate) fn sligo_placement_is_legal_on(&self, q: Point, scratch: &mut Board) -> bool {
        let Phase::Place(slide) = self.phase else {
            return false;
        };
        sligo_placement_ok(&self.board, self.to_move, slide, q, scratch)
    }

    /// Sligo: whether some placement completes a legal turn in the current placement phase.
    fn sligo_any_placement(&self) -> bool {
        self.sligo_any_placement_on(&mut self.board.clone())
    }

    /// [`GameState::sligo_any_placement`] worked out on `scratch` (any board of this size).
    pub(crate) fn sligo_any_placement_on(&self, scratch: &mut Board) -> bool {
        let Phase::Place(slide) = self.phase else {
            return false;
        };
        sligo_placement_exists(&self.board, self.to_move, slide, scratch)
    }

    /// Sligo, at the start of a turn: appends pass, `NoSlide` if a placement can follow it,
    /// and every slide after which a placement can complete a legal turn (unsorted).
    pub(super) fn sligo_first_actions(&self, out: &mut Vec<Action>) {
        let c = self.to_move;
        let mut slid = self.board.clone();
        let mut scratch = self.board.clone();
        out.push(Action::Pass);
        if sligo_placement_exists(&self.board, c, None, &mut scratch) {
            out.push(Action::NoSlide);
        }
        for f in self.geo().points().filter(|&f| self.board.color(f) == Some(c)) {
            for d in Dir::ALL {
                let Some(t) = self.slide_target(f, d) else { continue };
                slid.clone_from(&self.board);
                slid.slide(f, t);
                if sligo_placement_exists(&slid, c, Some((f, t)), &mut scratch) {
                    out.push(Action::Slide(f, d));
                }
            }
        }
    }

    /// Sligo, in a placement phase: appends every placement that completes a legal turn.
    pub(super) fn sligo_placements(&self, out: &mut Vec<Action>) {
        let mut scratch = self.board.clone();
        out.extend(
            self.board
                .empties()
                .filter(|&q| self.sligo_placement_is_legal_on(q, &mut scratch))
                .map(Action::Place),
        );
    }

    /// Sligo: plays the first action of a turn, `NoSlide` or a slide, checked: refused,
    /// changing nothing, when the slide is not one or no placement can complete the turn.
    pub(super) fn play_sligo_first(&mut self, a: Action) -> Result<(), PlayError> {
        if let Action::Slide(f, d) = a {
            self.check_slide(f, d)?;
        }
        let g = self.sligo_start(a);
        if !g.sligo_any_placement() {
            return Err(PlayError::NoLegalPlacement(a.name(self.geo())));
        }
        *self = g;
        Ok(())
    }

    /// Sligo: a state in the placement phase after the given first action (unchecked).
    fn sligo_start(&self, a: Action) -> GameState {
        let mut g = self.clone();
        g.begin_sligo_turn(a);
        g
    }

    /// Sligo: enters the placement phase after the given first action (unchecked).
    pub(crate) fn begin_sligo_turn(&mut self, a: Action) {
        match a {
            Action::NoSlide => self.phase = Phase::Place(None),
            Action::Slide(f, d) => {
                let t = self.geo().step(f, d).expect("slide target on board");
                self.board.slide(f, t);
                self.phase = Phase::Place(Some((f, t)));
            }
            _ => unreachable!("begin_sligo_turn takes NoSlide or Slide"),
        }
    }

    /// Sligo: whether the mover may slide the stone on `f` in direction `d`, and where to.
    fn check_slide(&self, f: Point, d: Dir) -> Result<Point, PlayError> {
        let geo = self.geo();
        if !geo.on_board(f) {
            return Err(PlayError::OffBoard);
        }
        if self.board.color(f) != Some(self.to_move) {
            return Err(PlayError::NotOwnStone(self.name(f)));
        }
        self.slide_target(f, d).ok_or_else(|| PlayError::SlideBlocked(Action::Slide(f, d).name(geo)))
    }

    /// Where the mover's stone on the on-board `f` lands when it slides in direction `d`, if
    /// that point is on the board and empty (no strings and no division: the candidate lists
    /// call this for every stone and direction).
    fn slide_target(&self, f: Point, d: Dir) -> Option<Point> {
        let t = self.geo().king_neighbour(f, d);
        (d.0 < 8 && self.board.at(t) == EMPTY).then_some(t)
    }

    /// Canonical Sligo actions for a turn given as an optional slide and a placement:
    /// placing on the vacated point is the plain placement, and a swapped slide/placement
    /// pair is normalised to the one listed by `legal_actions`.
    pub fn sligo_turn(&self, slide: Option<(Point, Point)>, place: Point) -> Result<[Action; 2], PlayError> {
        let geo = self.geo();
        let points = slide.map_or([place; 3], |(f, t)| [place, f, t]);
        if !points.iter().all(|&p| geo.on_board(p)) {
            return Err(PlayError::OffBoard);
        }
        match slide {
            None => Ok([Action::NoSlide, Action::Place(place)]),
            Some((f, t)) if place == f => {
                let _ = t;
                Ok([Action::NoSlide, Action::Place(t)])
            }
            Some((f, t)) => {
                let (t, q) = if king_adjacent(geo, f, place) && place < t { (place, t) } else { (t, place) };
                let (fx, fy) = geo.xy(f);
                let (tx, ty) = geo.xy(t);
                let d = Dir::from_delta(tx as i32 - fx as i32, ty as i32 - fy as i32)
                    .ok_or_else(|| PlayError::SlideBlocked(format!("{}>{}", geo.name(f), geo.name(t))))?;
                Ok([Action::Slide(f, d), Action::Place(q)])
            }
        }
    }

    /// Sligo: whether placing on `p` completes a legal turn. Never inlined, like
    /// [`GameState::loose_legal`].
    #[inline(never)]
    pub(super) fn sligo_legal(&self, p: Point) -> bool {
        self.sligo_placement_is_legal_on(p, &mut self.board.clone())
    }

    /// Sligo: `NoSlide` and every slide of an own stone to an empty point, before checking
    /// that a placement completes the turn.
    pub fn first_action_candidates(&self, out: &mut Vec<Action>) {
        out.push(Action::NoSlide);
        for f in self.geo().points().filter(|&f| self.board.color(f) == Some(self.to_move)) {
            for d in Dir::ALL {
                if self.slide_target(f, d).is_some() {
                    out.push(Action::Slide(f, d));
                }
            }
        }
    }
}

/// Sligo: places the mover `c`'s stone at `q` on `b` (the board after the turn's slide, if
/// any) with captures, and checks the turn: no duplicate of another action sequence, no
/// suicide of the placed or the slid stone, no weak pair. `b` is changed even when the
/// placement is refused.
pub(super) fn sligo_place(
    b: &mut Board,
    c: Color,
    slide: Option<(Point, Point)>,
    q: Point,
) -> Result<(), Refusal> {
    let changed = sligo_precheck(b, slide, q)?;
    b.put(q, c);
    b.capture_around(q, c.opp());
    if let Some((_, t)) = slide {
        b.capture_around(t, c.opp());
        if b.has_no_libs(t) {
            return Err(Refusal::Suicide);
        }
    }
    if b.has_no_libs(q) {
        return Err(Refusal::Suicide);
    }
    if changed.iter().any(|&x| weak_pair_near(b, x, c)) {
        return Err(Refusal::WeakPair);
    }
    Ok(())
}

/// Sligo: the checks of a placement at `q` that come before the stone is placed (an empty
/// point, not a duplicate of another action sequence); returns the points whose 2x2 squares
/// the turn changes (the placement, and the slide's origin and target).
fn sligo_precheck(b: &Board, slide: Option<(Point, Point)>, q: Point) -> Result<[Point; 3], Refusal> {
    if b.at(q) != EMPTY {
        return Err(Refusal::Occupied);
    }
    let Some((f, t)) = slide else {
        return Ok([q, q, q]);
    };
    if q == f {
        return Err(Refusal::SameAsNoSlide(t));
    }
    if king_adjacent(b.geo(), f, q) && q < t {
        return Err(Refusal::SameAsSlide(f, q, t));
    }
    Ok([q, f, t])
}

/// Sligo: whether [`sligo_place`] would accept placing `c` at `q` on `board`, without changing
/// `board` and mostly without a copy: captures remove only the other colour's stones, so
/// weak pairs can be judged before them; a placed stone with an empty neighbour survives, and
/// so does the slid stone's chain if it has a liberty now (it keeps it) or joins the placed
/// stone (which brings one). Other cases are played out on `scratch` (any board of this size).
fn sligo_placement_ok(
    board: &Board,
    c: Color,
    slide: Option<(Point, Point)>,
    q: Point,
    scratch: &mut Board,
) -> bool {
    let Ok(changed) = sligo_precheck(board, slide, q) else {
        return false;
    };
    if changed.iter().any(|&x| weak_pair_near_with(board, x, c, Some(q))) {
        return false;
    }
    if board.has_empty_neighbour(q) && slide.is_none_or(|(_, t)| !board.has_no_libs(t)) {
        return true;
    }
    scratch.clone_from(board);
    sligo_place(scratch, c, slide, q).is_ok()
}

/// Sligo: whether some placement of `c` on `board` (after the slide, if any) completes a
/// legal turn ([`sligo_placement_ok`]).
fn sligo_placement_exists(
    board: &Board,
    c: Color,
    slide: Option<(Point, Point)>,
    scratch: &mut Board,
) -> bool {
    board.empties().any(|q| sligo_placement_ok(board, c, slide, q, scratch))
}

/// Whether two points are one king step apart.
fn king_adjacent(geo: Geometry, a: Point, b: Point) -> bool {
    let (ax, ay) = geo.xy(a);
    let (bx, by) = geo.xy(b);
    a != b && ax.abs_diff(bx) <= 1 && ay.abs_diff(by) <= 1
}

/// Whether any 2x2 square with a corner at `x` holds a weak pair of colour `c`: two diagonal
/// stones of `c` whose two other corners hold no stone of `c`.
pub fn weak_pair_near(b: &Board, x: Point, c: Color) -> bool {
    weak_pair_near_with(b, x, c, None)
}

/// [`weak_pair_near`] with a stone of `c` also on `also` (a placement not yet made).
fn weak_pair_near_with(b: &Board, x: Point, c: Color, also: Option<Point>) -> bool {
    let s = b.geo().stride() as u16;
    [x.0 - s - 1, x.0 - s, x.0 - 1, x.0].into_iter().any(|tl| weak_square(b, Point(tl), c, also))
}

/// Whether the 2x2 square with top-left cell `tl` holds a weak pair of `c` (counting a stone
/// of `c` on `also`).
#[inline]
fn weak_square(b: &Board, tl: Point, c: Color, also: Option<Point>) -> bool {
    let s = b.geo().stride() as u16;
    let m = |i: u16| b.at(Point(i)) == c.cell() || also == Some(Point(i));
    let (a, bb, cc, d) = (m(tl.0), m(tl.0 + 1), m(tl.0 + s), m(tl.0 + s + 1));
    (a && d && !bb && !cc) || (bb && cc && !a && !d)
}

/// Whether the board holds a weak pair of `c` anywhere.
pub fn has_weak_pair(b: &Board, c: Color) -> bool {
    let geo = b.geo();
    (0..geo.size() - 1).any(|y| (0..geo.size() - 1).any(|x| weak_square(b, geo.point(x, y), c, None)))
}
