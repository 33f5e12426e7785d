//! Helpers shared by the search tests: rules from strings, positions reached by real play.

#![allow(dead_code)]

use hane_engine::{Action, Game, GameState, Point, Rules};

/// Rules from a rule string such as `ttakji,size=5,komi=0.5`.
pub fn rules(s: &str) -> Rules {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// A GTP point of `g`'s board.
pub fn pt(g: &GameState, name: &str) -> Point {
    g.geo().parse(name).unwrap()
}

/// An action by name: `pass`, `noslide`, `C3`, or a Sligo slide `B2>C3`.
pub fn action(g: &GameState, name: &str) -> Action {
    match name {
        "pass" => Action::Pass,
        "noslide" => Action::NoSlide,
        _ => match name.split_once('>') {
            Some((f, t)) => {
                let (f, t) = (pt(g, f), pt(g, t));
                let (fx, fy) = g.geo().xy(f);
                let (tx, ty) = g.geo().xy(t);
                let d = hane_engine::Dir::from_delta(tx as i32 - fx as i32, ty as i32 - fy as i32)
                    .unwrap_or_else(|| panic!("{name} is not a slide"));
                Action::Slide(f, d)
            }
            None => Action::Place(pt(g, name)),
        },
    }
}

/// A game under `rules` after the given actions (see [`action`]); panics on an illegal one.
pub fn position(rules_str: &str, moves: &[&str]) -> GameState {
    let mut g = GameState::new(rules(rules_str));
    for m in moves {
        let a = action(&g, m);
        g.play(a).unwrap_or_else(|e| panic!("{m} refused: {e}\n{g}"));
    }
    g
}

/// Asserts the board rows (top first, `X` black, `O` white).
pub fn assert_rows(g: &GameState, want: &[&str]) {
    let want: Vec<String> = want.iter().map(|r| r.replace(' ', "")).collect();
    assert_eq!(g.board().rows(), want, "\n{g}");
}

/// The name of an action on `g`'s board.
pub fn name(g: &GameState, a: Action) -> String {
    a.name(g.geo())
}

/// A position with the stones of `rows` (top first, `X` black, `O` white) and `to_move` to
/// play, reached by real play: the colours take turns placing their stones in row order,
/// one passing when it has none left. The stones must be placeable in that order without
/// captures (Go) or flips (Loose).
pub fn from_rows(rules_str: &str, rows: &[&str], to_move: hane_engine::Color) -> GameState {
    use hane_engine::{Board, Color};
    let mut g = GameState::new(rules(rules_str));
    let b = Board::from_rows(rows).unwrap();
    let geo = b.geo();
    let stones = |c: Color| -> Vec<Point> { geo.points().filter(|&p| b.color(p) == Some(c)).collect() };
    let (mut black, mut white) = (stones(Color::Black).into_iter(), stones(Color::White).into_iter());
    loop {
        let next = match g.to_move() {
            Color::Black => black.next(),
            Color::White => white.next(),
        };
        let Some(p) = next else {
            if black.len() + white.len() == 0 {
                break;
            }
            g.play(Action::Pass).unwrap();
            continue;
        };
        g.play(Action::Place(p)).unwrap_or_else(|e| panic!("setting up {rows:?}: {e}\n{g}"));
    }
    if g.to_move() != to_move {
        g.play(Action::Pass).unwrap();
    }
    assert_rows(&g, rows);
    g
}
