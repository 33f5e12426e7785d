//! hane's rules engine: exact, fast implementations of the rule sets in `docs/rules.md` —
//! `ttakji` (Go, area scoring, positional superko), `brainking` (Go, territory scoring, simple
//! ko, dead stones, handicap), `loose` (captures flip stones; false liberties) and `sligo`
//! (a slide, then a placement; no weak pairs) — plus the `chinese`, `japanese` and
//! `tromp-taylor` presets.
//!
//! Two layers: [`Board`] holds stones, chains with exact liberties and an incremental Zobrist
//! hash; [`GameState`] adds the [`Rules`], history, passes and scoring, and implements the
//! [`Game`] trait that searches are generic over. Rule sets are data ([`Rules`] fields and
//! named presets), not types. The crate depends on nothing but `std`.

pub mod action;
pub mod board;
pub mod fuzz;
pub mod game;
pub mod komi_domain;
pub mod message;
pub mod perft;
pub mod playout;
pub mod point;
pub mod range;
pub mod rng;
pub mod rules;
pub mod score;
pub mod sgf;
pub mod symmetry;
pub mod turn;
mod zobrist;

pub use action::{Action, PolicyLayout};
pub use board::{Board, Color};
pub use game::{Game, GameState, Phase, PlayError};
pub use komi_domain::KomiDomain;
pub use point::{Dir, Geometry, Point};
pub use rules::{Komi, Rules, RulesError};
pub use score::{Outcome, Score};
pub use turn::{Turn, TurnError};
