//! Values and whose view they are in.
//!
//! The tree stores [`BlackValue`]s: win/draw/loss probabilities and the score margin as
//! Black sees them. Storing one absolute view means a backup adds the same numbers to every
//! node on the path, whoever moves where — which is what Sligo's two-decision turns need.
//! A value is turned into the deciding player's view ([`BlackValue::for_player`]) only where
//! it is compared, and the [`utility`] that PUCT maximises is computed from those averages.

use hane_engine::score::Score;
use hane_engine::{Color, Outcome};

/// Win, draw and loss probabilities plus the expected score margin, all from Black's view.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlackValue {
    /// P(Black wins), P(draw), P(White wins).
    pub wdl: [f32; 3],
    /// Expected final score, Black's total minus White's, in points.
    pub score: f32,
}

impl BlackValue {
    /// A value given from the view of `player` (win/draw/loss and score for `player`).
    pub fn from_player(player: Color, wdl: [f32; 3], score: f32) -> BlackValue {
        match player {
            Color::Black => BlackValue { wdl, score },
            Color::White => BlackValue { wdl: [wdl[2], wdl[1], wdl[0]], score: -score },
        }
    }

    /// The exact value of a finished game (or of a position scored as it stands).
    pub fn from_score(s: &Score) -> BlackValue {
        let wdl = match s.winner {
            Outcome::Black => [1.0, 0.0, 0.0],
            Outcome::Draw => [0.0, 1.0, 0.0],
            Outcome::White => [0.0, 0.0, 1.0],
        };
        BlackValue { wdl, score: s.margin_black() as f32 }
    }

    /// This value from `player`'s view: `(wdl, score)` with the win first.
    pub fn for_player(self, player: Color) -> ([f32; 3], f32) {
        match player {
            Color::Black => (self.wdl, self.score),
            Color::White => ([self.wdl[2], self.wdl[1], self.wdl[0]], -self.score),
        }
    }
}

/// The utility PUCT maximises, from the view of the player whose (win, loss, score) these are:
///
/// `utility = (win - loss) + weight * 2/pi * atan((score - center) / scale)`
///
/// The score term is KataGo's saturating score utility (paper App. F; `getScoreUtility`): it
/// prefers bigger wins and smaller losses, but can never outweigh a change in winning
/// chances, because it is bounded by `weight`. `center` is a score in the same view; the
/// search keeps it at the root's expected score so the term stays sensitive where the game
/// actually is (KataGo's "dynamic" score utility). It is odd around the center, so the
/// opponent's utility is exactly the negation when the center is negated with the score.
///
/// KataGo takes the expectation of the atan under the network's score distribution; our
/// evaluators give only a mean, so the search applies this to a node's mean score.
pub fn utility(win: f32, loss: f32, score: f32, center: f32, weight: f32, scale: f32) -> f32 {
    let score_term = if weight == 0.0 {
        0.0
    } else {
        std::f32::consts::FRAC_2_PI * ((score - center) / scale.max(1e-6)).atan()
    };
    (win - loss) + weight * score_term
}

/// What the search thinks of its root position, from the view of the player to move there.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RootValue {
    /// Win, draw, loss probabilities for the root player (mean over the root's visits).
    pub wdl: [f32; 3],
    /// Expected final score margin for the root player, in points.
    pub score: f32,
    /// The search utility of the root for the root player (see [`utility`]).
    pub utility: f32,
    /// Standard deviation of the score margin over the root's visits.
    pub score_stdev: f32,
    /// Visits behind these averages (0: nothing evaluated yet, all fields 0).
    pub visits: u32,
}
