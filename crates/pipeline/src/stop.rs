//! Stopping the pipeline's work at safe points: the caller (the binary's signal handler, a
//! test) requests the [`Stop`]; the work polls it where stopping loses nothing (match games
//! before each move, the komi estimate before each evaluation) and returns
//! [`Error::Interrupted`] ([`Interrupt`]).

use crate::Error;
use hane_engine::{GameState, Rules, Turn};
use hane_eval::gtp::GtpError;
use hane_eval::referee::Player;
use hane_host::Stop;

/// What the pipeline's work makes of a [`Stop`]: the error it returns once the stop was
/// requested.
pub trait Interrupt {
    /// [`Error::Interrupted`] once a stop was requested.
    fn check(&self) -> Result<(), Error>;

    /// The error of a game that ended with `e`: [`Error::Interrupted`] when a stop was
    /// requested (the game was abandoned, see [`Stoppable`]), else [`Error::Game`].
    fn game_error(&self, e: GtpError) -> Error;
}

impl Interrupt for Stop {
    fn check(&self) -> Result<(), Error> {
        if self.requested() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }

    fn game_error(&self, e: GtpError) -> Error {
        if self.requested() {
            Error::Interrupted
        } else {
            Error::Game(e)
        }
    }
}

/// A player that refuses to move once a stop is requested, ending its game with an error
/// before the next search (see [`Interrupt::game_error`]).
pub struct Stoppable<'a> {
    /// The player.
    pub player: &'a mut dyn Player,
    /// The stop it obeys.
    pub stop: &'a Stop,
}

impl std::fmt::Debug for Stoppable<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("Stoppable").field("player", &self.player.name()).field("stop", &self.stop).finish()
    }
}

impl Player for Stoppable<'_> {
    fn name(&self) -> String {
        self.player.name()
    }

    fn new_game(&mut self, rules: &Rules) -> Result<(), GtpError> {
        self.player.new_game(rules)
    }

    fn choose(&mut self, g: &GameState) -> Result<Turn, GtpError> {
        if self.stop.requested() {
            return Err(GtpError::Stopped);
        }
        self.player.choose(g)
    }

    fn observe(&mut self, before: &GameState, turn: Turn) -> Result<(), GtpError> {
        self.player.observe(before, turn)
    }
}
