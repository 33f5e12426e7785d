//! The names of a run's games on disk: `g00000012` for game 12, `g00000012-f034` for the
//! side game forked from its turn 34.

use hane_engine::range::Invalid;

/// A game's files are named `g{id:08}`, a side game's `g{id:08}-f{turn:03}` after the game
/// and the turn it forked from. Resuming counts the games' files only: a rerun replays an
/// unfinished game, and with it its side games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameName {
    /// The game's number.
    pub id: u64,
    /// For a side game, the turn of the game it forked from.
    pub fork_turn: Option<u32>,
}

impl std::str::FromStr for GameName {
    type Err = Invalid;

    /// Parses what [`GameName`]'s `Display` writes.
    fn from_str(s: &str) -> Result<GameName, Invalid> {
        let bad =
            || Invalid(format!("\"{}\" is not a game name (g00000012 or g00000012-f034)", s.escape_debug()));
        let (game, fork) = match s.split_once("-f") {
            Some((g, f)) => (g, Some(f)),
            None => (s, None),
        };
        let number = |digits: &str, width: usize| match digits.len() >= width
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            true => digits.parse().ok(),
            false => None,
        };
        let id = game.strip_prefix('g').and_then(|d| number(d, 8)).ok_or_else(bad)?;
        let fork_turn = match fork {
            Some(t) => Some(number(t, 3).and_then(|t| u32::try_from(t).ok()).ok_or_else(bad)?),
            None => None,
        };
        Ok(GameName { id, fork_turn })
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "g{:08}", self.id)?;
        match self.fork_turn {
            Some(t) => write!(f, "-f{t:03}"),
            None => Ok(()),
        }
    }
}
