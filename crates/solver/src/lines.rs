//! What makes a solution checkable beyond its value: the value after every first turn and a
//! principal variation. Both are further searches of the solved position's [`Search`], its
//! table kept ([`Search::reroot`]), so they reuse what the solve proved.
//!
//! Turns, not actions: a Sligo turn (a slide or none, then a placement) is one step, so the
//! values are those of whole first turns, as in Go.

use super::deps::Stones;
use super::search::{Expect, Search};
use super::symmetry::Frames;
use super::{margin, TurnValue};
use hane_engine::symmetry::Symmetry;
use hane_engine::{Color, Game, GameState, Geometry, Turn};

/// The state after turn `t` from `g` (reached through `line`), and the positions on the way.
fn after(g: &GameState, line: &[GameState], t: Turn) -> (GameState, Vec<GameState>) {
    let mut child = g.clone();
    let mut path = line.to_vec();
    for a in t.actions(g).expect("a legal turn") {
        path.push(child.clone());
        child.play_unchecked(a);
    }
    (child, path)
}

/// The symmetries that map every position of the game so far, `g` last, onto itself: they map
/// each turn from `g` onto one of equal value.
fn fixing(g: &GameState, line: &[GameState]) -> Vec<Symmetry> {
    let frames = Frames::new(g.geo());
    let fixed =
        |s: Symmetry, st: Stones| frames.map(s, st.black) == st.black && frames.map(s, st.white) == st.white;
    Symmetry::ALL
        .into_iter()
        .filter(|&s| line.iter().chain([g]).all(|p| fixed(s, Stones::of(p.board()))))
        .collect()
}

/// The image of a turn under `s` on a board of geometry `geo`.
fn image(geo: Geometry, t: Turn, s: Symmetry) -> Turn {
    let p = |q| s.apply_point(geo, q);
    match t {
        Turn::Pass => Turn::Pass,
        Turn::Place(q) => Turn::Place(p(q)),
        Turn::Slide { from, to, place } => Turn::Slide { from: p(from), to: p(to), place: p(place) },
    }
}

/// The exact value after each first turn from `g` (whose value is `value`), one per class of
/// turns that the position's symmetries map onto each other, best for the mover first;
/// `None` if the search gives up.
pub(super) fn values(
    search: &mut Search,
    g: &GameState,
    line: &[GameState],
    value: i32,
) -> Option<Vec<TurnValue>> {
    let geo = g.geo();
    let symmetries = fixing(g, line);
    let mut seen: Vec<Turn> = Vec::new();
    let mut out = Vec::new();
    for t in Turn::legal(g) {
        if seen.contains(&t) {
            continue;
        }
        let mut class = vec![t];
        for &s in &symmetries {
            let u = image(geo, t, s);
            if !class.contains(&u) {
                class.push(u);
            }
        }
        seen.extend(&class);
        let (child, path) = after(g, line, t);
        search.reroot(&child, &path);
        let (v, _, _) = search.run(&child, Some(value))?;
        out.push(TurnValue {
            turns: class.iter().map(|u| u.name(geo)).collect(),
            margin: margin(v),
            value: v,
        });
    }
    let black = g.to_move() == Color::Black;
    out.sort_by_key(|v| if black { -v.value } else { v.value });
    Some(out)
}

/// A principal variation from `g` (whose value is `value`) to the end of the game: at each
/// step the first turn, the table's best first, after which the value is still `value`;
/// `None` if the search gives up.
pub(super) fn principal(
    search: &mut Search,
    g: &GameState,
    line: &[GameState],
    value: i32,
) -> Option<Vec<String>> {
    let (mut g, mut line) = (g.clone(), line.to_vec());
    let mut out = Vec::new();
    while !g.is_over() {
        let mut turns = Turn::legal(&g);
        let hint = search.hint(&g);
        if let Some(i) =
            turns.iter().position(|t| t.actions(&g).ok().and_then(|a| a.first().copied()) == hint)
        {
            turns[..=i].rotate_right(1);
        }
        let black = g.to_move() == Color::Black;
        let mut next = None;
        for t in turns {
            let (child, path) = after(&g, &line, t);
            search.reroot(&child, &path);
            // Black's turns lead to at most the value, White's to at least it.
            let keeps = match black {
                true => search.decide(&child, value, Expect::Unknown)?,
                false => !search.decide(&child, value + 1, Expect::LeanNo)?,
            };
            if keeps {
                next = Some((t, child, path));
                break;
            }
        }
        let (t, child, path) = next.expect("a position of value v has a turn to a child of value v");
        out.push(t.name(g.geo()));
        (g, line) = (child, path);
    }
    Some(out)
}
