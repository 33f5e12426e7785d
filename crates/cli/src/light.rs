//! The commands `hane` runs in its own process, without libtorch: those that use no net, and
//! the front-ends when they are given none. `hane-torch` runs them too, as part of every
//! command it has.

use crate::nets::Nets;
use crate::{analysis_cmd, book_cmd, gtp, perft_cmd, play, replay, solve_cmd, Failure};
use clap::Subcommand;

/// The commands both binaries run.
#[derive(Subcommand, Debug)]
pub enum Light {
    /// Replay moves (or an SGF file) and print the position as JSON.
    Replay(replay::Args),
    /// Count legal move sequences to a depth (rules-engine check).
    Perft(perft_cmd::Args),
    /// Run a GTP engine on stdin/stdout (for GUIs and match runners).
    Gtp(gtp::Args),
    /// Analyse positions with KataGo's JSON analysis protocol on stdin/stdout.
    Analysis(analysis_cmd::Args),
    /// Play against hane in the terminal (any rule set).
    Play(play::Args),
    /// Solve a tiny board exactly (minimax score and exact fair komi).
    Solve(solve_cmd::Args),
    /// Build or extend a minimax opening book, and read the fair komi off it (resumable).
    Book(book_cmd::Args),
}

impl Light {
    /// Whether the command names a net, which only `hane-torch` can load.
    pub fn needs_net(&self) -> bool {
        match self {
            Light::Gtp(a) => a.model.is_some(),
            Light::Analysis(a) => a.model.is_some(),
            Light::Play(a) => a.model.is_some(),
            Light::Book(a) => a.model.is_some(),
            Light::Replay(_) | Light::Perft(_) | Light::Solve(_) => false,
        }
    }

    /// Runs the command, with the nets of `nets`.
    pub fn run(self, nets: &dyn Nets) -> Result<(), Failure> {
        match self {
            Light::Replay(a) => replay::run(a),
            Light::Perft(a) => perft_cmd::run(a),
            Light::Gtp(a) => gtp::run(a, nets),
            Light::Analysis(a) => analysis_cmd::run(a, nets),
            Light::Play(a) => play::run(a, nets),
            Light::Solve(a) => solve_cmd::run(a),
            Light::Book(a) => book_cmd::run(a, nets),
        }
    }
}
