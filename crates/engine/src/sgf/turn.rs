//! [`Turn`]: one turn of a game as a record holds it, with the slide and the placement of a
//! Sligo turn together, and its GTP-style notation (`D4`, `pass`, `E5>F6+D4`).

use crate::action::Action;
use crate::game::{Game, GameState, Phase, PlayError};
use crate::point::{Geometry, Point};
use crate::rules::Variant;

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

    /// Plays the turn on `g`; on error `g` is unchanged.
    pub fn play(self, g: &mut GameState) -> Result<(), PlayError> {
        let actions = self.actions(g)?;
        let mut next = g.clone();
        for a in actions {
            next.play(a)?;
        }
        *g = next;
        Ok(())
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
