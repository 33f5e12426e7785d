//! Stopping long work at safe points: the caller (the binary's signal handler, a test) sets a
//! shared flag; the work polls it where stopping loses nothing (self-play before each batch
//! of leaves, the trainer between steps, match games before each move, the komi estimate
//! before each evaluation) and returns [`Error::Interrupted`].

use crate::Error;
use hane_engine::{GameState, Rules, Turn};
use hane_eval::gtp::GtpError;
use hane_eval::referee::Player;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A request to stop at the next safe point, shared between threads.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A stop that `flag` requests.
    pub fn new(flag: Arc<AtomicBool>) -> Stop {
        Stop(flag)
    }

    /// Requests the stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// [`Error::Interrupted`] once a stop was requested.
    pub fn check(&self) -> Result<(), Error> {
        if self.requested() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }

    /// The flag itself, for the libraries that poll it on their own threads.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }

    /// The error of a game that ended with `e`: [`Error::Interrupted`] when a stop was
    /// requested (the game was abandoned, see [`Stoppable`]), else [`Error::Game`].
    pub fn game_error(&self, e: GtpError) -> Error {
        if self.requested() {
            Error::Interrupted
        } else {
            Error::Game(e)
        }
    }
}

/// A player that refuses to move once a stop is requested, ending its game with an error
/// before the next search (see [`Stop::game_error`]).
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
