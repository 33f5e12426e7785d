//! [`Turn`]: one turn of a game, with the slide and the placement of a Sligo turn together,
//! as records, GTP, `hane play` and `hane replay` hold it, and its notation (`D4`, `pass`,
//! `E5>F6+D4`: slide E5 to F6, then place D4). The engine itself plays [`Action`]s; a turn
//! is one action, or two in Sligo.

use crate::action::Action;
use crate::game::{Game, GameState, Phase, PlayError};
use crate::point::{CoordError, Geometry, Point};
use crate::rules::Variant;
use std::fmt;

/// Why a text is not a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnError {
    /// A point that is not a coordinate of the board.
    Point(CoordError),
    /// A slide without its placement, or a malformed slide.
    Syntax(String),
    /// A well-formed turn that the rules do not allow here.
    Illegal(PlayError),
}

impl fmt::Display for TurnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnError::Point(e) => write!(f, "{e}"),
            TurnError::Syntax(m) => f.write_str(m),
            TurnError::Illegal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for TurnError {}

impl From<CoordError> for TurnError {
    fn from(e: CoordError) -> TurnError {
        TurnError::Point(e)
    }
}

/// One turn of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// The player passes.
    Pass,
    /// A placement without a slide (every Go and Loose move; a Sligo turn without a slide).
    Place(Point),
    /// Sligo: slide the own stone at `from` one step to `to`, then place at `place`.
    Slide {
        /// The stone that slides.
        from: Point,
        /// Where it slides to (a king step away).
        to: Point,
        /// The placement that completes the turn.
        place: Point,
    },
}

impl Turn {
    /// The turn written `text` on a board of geometry `geo`: `pass` (any case), a point such
    /// as `D4`, or a Sligo slide and placement `E5>F6+D4`. Whether it is legal is for
    /// [`Turn::actions`] to say.
    pub fn parse(text: &str, geo: Geometry) -> Result<Turn, TurnError> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("pass") {
            return Ok(Turn::Pass);
        }
        match t.split_once('+') {
            Some((slide, place)) => {
                let (from, to) = slide.split_once('>').ok_or_else(|| {
                    TurnError::Syntax(format!("expected FROM>TO+PLACE, got \"{}\"", t.escape_debug()))
                })?;
                Ok(Turn::Slide { from: geo.parse(from)?, to: geo.parse(to)?, place: geo.parse(place)? })
            }
            None if t.contains('>') => Err(TurnError::Syntax(format!(
                "a slide must be followed by +PLACE, got \"{}\"",
                t.escape_debug()
            ))),
            None => Ok(Turn::Place(geo.parse(t)?)),
        }
    }

    /// Reads the turn written `text` ([`Turn::parse`]) and plays it on `g`; on error `g` is
    /// unchanged.
    pub fn play_named(g: &mut GameState, text: &str) -> Result<Turn, TurnError> {
        let t = Turn::parse(text, g.geo())?;
        t.play(g).map_err(TurnError::Illegal)?;
        Ok(t)
    }

    /// The turn that `actions`, a whole turn played from `g`, make (`None` if they are not
    /// one: nothing, a lone Sligo slide, or a slide off the board).
    pub fn of_actions(g: &GameState, actions: &[Action]) -> Option<Turn> {
        match *actions {
            [Action::Pass] => Some(Turn::Pass),
            [Action::Place(p)] | [Action::NoSlide, Action::Place(p)] => Some(Turn::Place(p)),
            [Action::Slide(from, d), Action::Place(place)] => {
                Some(Turn::Slide { from, to: g.geo().step(from, d)?, place })
            }
            _ => None,
        }
    }

    /// The name of the turn that `actions` make from `g` ([`Turn::of_actions`]), `pass` when
    /// they make none (an engine that played nothing because the game had ended).
    pub fn name_of(g: &GameState, actions: &[Action]) -> String {
        Turn::of_actions(g, actions).map_or_else(|| "pass".into(), |t| t.name(g.geo()))
    }

    /// Every legal turn of the side to move, sorted by the placement's column, then its row
    /// from the bottom, then the slide; a pass last while the game goes on.
    pub fn legal(g: &GameState) -> Vec<Turn> {
        let geo = g.geo();
        let key = |p: Point| {
            let (x, y) = geo.xy(p);
            [x, geo.size() - y]
        };
        let mut firsts = Vec::new();
        g.legal_actions(&mut firsts);
        let mut turns: Vec<([usize; 6], Turn)> = Vec::new();
        for a in firsts {
            match a {
                Action::Pass => {}
                Action::Place(p) => {
                    let [x, y] = key(p);
                    turns.push(([x, y, 0, 0, 0, 0], Turn::Place(p)));
                }
                Action::NoSlide | Action::Slide(..) => {
                    let mut next = g.clone();
                    next.play_unchecked(a);
                    let mut places = Vec::new();
                    next.legal_actions(&mut places);
                    for b in places {
                        let Action::Place(q) = b else { continue };
                        let [qx, qy] = key(q);
                        turns.push(match a {
                            Action::Slide(from, d) => {
                                let to = geo.step(from, d).expect("a listed slide stays on the board");
                                let ([fx, fy], [tx, ty]) = (key(from), key(to));
                                ([qx, qy, fx, fy, tx, ty], Turn::Slide { from, to, place: q })
                            }
                            _ => ([qx, qy, 0, 0, 0, 0], Turn::Place(q)),
                        });
                    }
                }
            }
        }
        turns.sort_by_key(|(k, _)| *k);
        let mut out: Vec<Turn> = turns.into_iter().map(|(_, t)| t).collect();
        if !g.is_over() {
            out.push(Turn::Pass);
        }
        out
    }

    /// The turn that action `a` completes when played in state `g` (before playing it), or
    /// `None` if `a` only starts a Sligo turn (`NoSlide`, `Slide`). Use it to record a game
    /// action by action.
    pub fn from_action(g: &GameState, a: Action) -> Option<Turn> {
        match (g.phase(), a) {
            (_, Action::Pass) => Some(Turn::Pass),
            (Phase::Start | Phase::Place(None), Action::Place(p)) => Some(Turn::Place(p)),
            (Phase::Place(Some((from, to))), Action::Place(place)) => Some(Turn::Slide { from, to, place }),
            _ => None,
        }
    }

    /// The engine actions that play this turn in state `g` (Sligo turns are canonicalised with
    /// [`GameState::sligo_turn`]).
    pub fn actions(self, g: &GameState) -> Result<Vec<Action>, PlayError> {
        let sligo = g.rules().variant == Variant::Sligo;
        match self {
            Turn::Pass => Ok(vec![Action::Pass]),
            Turn::Place(p) if sligo => Ok(g.sligo_turn(None, p)?.to_vec()),
            Turn::Place(p) => Ok(vec![Action::Place(p)]),
            Turn::Slide { from, to, place } if sligo => Ok(g.sligo_turn(Some((from, to)), place)?.to_vec()),
            Turn::Slide { .. } => Err(PlayError::WrongPhase("slides exist only in Sligo".to_string())),
        }
    }

    /// Plays the turn on `g` and returns the actions that played it ([`Turn::actions`]); on
    /// error `g` is unchanged.
    pub fn play(self, g: &mut GameState) -> Result<Vec<Action>, PlayError> {
        let actions = self.actions(g)?;
        let mut next = g.clone();
        for &a in &actions {
            next.play(a)?;
        }
        *g = next;
        Ok(actions)
    }

    /// GTP-style notation: `D4`, `pass`, `E5>F6+D4`.
    pub fn name(self, geo: Geometry) -> String {
        let name = |p: Point| {
            if geo.on_board(p) {
                geo.name(p)
            } else {
                format!("<off-board point {}>", p.0)
            }
        };
        match self {
            Turn::Pass => "pass".to_string(),
            Turn::Place(p) => name(p),
            Turn::Slide { from, to, place } => {
                format!("{}>{}+{}", name(from), name(to), name(place))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::Rules;

    #[test]
    fn every_legal_turn_reads_back_from_its_name_and_its_actions() {
        for rules in ["ttakji,size=5", "loose,size=5", "sligo,size=5", "brainking,size=5"] {
            let rules: Rules = rules.parse().unwrap();
            let mut rng = Rng::new(3);
            let mut g = GameState::new(rules);
            for _ in 0..12 {
                let turns = Turn::legal(&g);
                assert!(!turns.is_empty(), "{rules}");
                for &t in &turns {
                    assert_eq!(Turn::parse(&t.name(g.geo()), g.geo()), Ok(t), "{rules}");
                    let actions = t.actions(&g).unwrap();
                    assert_eq!(Turn::of_actions(&g, &actions), Some(t), "{rules}: {actions:?}");
                }
                let t = turns[rng.below(turns.len())];
                t.play(&mut g).unwrap();
                if g.is_over() {
                    break;
                }
            }
        }
    }

    #[test]
    fn malformed_turns_are_refused_with_what_was_expected() {
        let geo = GameState::new("sligo,size=5".parse().unwrap()).geo();
        assert_eq!(Turn::parse(" PASS ", geo), Ok(Turn::Pass));
        let e = Turn::parse("C3>C4", geo).unwrap_err().to_string();
        assert!(e.contains("+PLACE"), "{e}");
        let e = Turn::parse("C3+D4", geo).unwrap_err().to_string();
        assert!(e.contains("FROM>TO+PLACE"), "{e}");
        assert!(matches!(Turn::parse("Z9", geo), Err(TurnError::Point(_))));
        let go = GameState::new("ttakji,size=5".parse().unwrap());
        let slide = Turn::parse("C3>C4+D4", go.geo()).unwrap();
        assert!(slide.actions(&go).is_err(), "slides exist only in Sligo");
    }
}
