//! What a self-play job's workers share: the game numbers left to play, the live counters,
//! and the writing of each finished game (its shard and SGF, then the packs).

use crate::config::SelfplayConfig;
use crate::name::GameName;
use crate::pack::Packs;
use crate::record::{self, Ending, PendingRow};
use hane_data::shard;
use hane_engine::{Action, Color, GameState, Outcome, Rules};
use hane_host::Stop;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Live counters, readable from another thread for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    /// Games finished in this process.
    pub games: AtomicU64,
    /// Games already finished by an earlier run of the same job.
    pub resumed: AtomicU64,
    /// Side games forked from the games' positions (not counted in `games` or `results`).
    pub forks: AtomicU64,
    /// Moves (decisions) played.
    pub moves: AtomicU64,
    /// Training rows written.
    pub rows: AtomicU64,
    /// Games won by Black, by White, drawn.
    pub results: [AtomicU64; 3],
    /// Games ended by resignation.
    pub resigned: AtomicU64,
    /// Played-out games in which someone would have resigned.
    pub would_resign: AtomicU64,
    /// ... and in which that player won after all (false resignations).
    pub false_resign: AtomicU64,
}

/// State shared by the workers.
#[derive(Debug)]
pub struct Shared {
    /// The configuration.
    pub cfg: SelfplayConfig,
    /// Parsed rules (before komi randomisation).
    pub rules: Rules,
    pub(crate) todo: Mutex<VecDeque<u64>>,
    /// Counters.
    pub progress: Arc<Progress>,
    /// Set to stop starting and playing games.
    pub stop: Stop,
    pub(crate) shards: PathBuf,
    pub(crate) sgfs: PathBuf,
    pub(crate) source: String,
    pub(crate) packs: Packs,
    pub(crate) errors: Mutex<Vec<String>>,
    /// The start positions games may begin at (empty: none).
    pub(crate) starts: crate::starts::Starts,
}

impl Shared {
    /// The next game number to play, if any.
    pub fn claim(&self) -> Option<u64> {
        self.todo.lock().expect("todo lock").pop_front()
    }

    /// Writes a finished game's shard and SGF, named `name`, and updates the counters (a
    /// side game only counts as a fork and by its rows).
    pub fn finish(
        &self,
        name: GameName,
        game: &GameState,
        actions: &[Action],
        pending: Vec<PendingRow>,
        end: Ending,
        would_resign: Option<Color>,
    ) {
        let rows = record::rows(game, pending, end, self.cfg.value_search_mix, self.cfg.exploration_cut);
        let size = game.geo().size();
        let rules = game.rules().to_string();
        let result = (|| -> Result<(), String> {
            if !rows.is_empty() {
                let bytes = shard::encode(&rows, &rules, size, 1, &self.source);
                shard::write_atomic(&self.shards.join(format!("{name}.npz")), &bytes)
                    .map_err(|e| e.to_string())?;
            }
            let text = record::sgf(*game.rules(), actions, end).map_err(|e| e.to_string())?;
            shard::write_atomic(&self.sgfs.join(format!("{name}.sgf")), text.as_bytes())
                .map_err(|e| e.to_string())?;
            self.packs.add(name, rows.len()).map_err(|e| e.0)
        })();
        if let Err(e) = result {
            self.errors.lock().expect("errors lock").push(format!("game {name}: {e}"));
            self.stop.request();
            return;
        }
        let p = &self.progress;
        p.rows.fetch_add(rows.len() as u64, Ordering::Relaxed);
        if name.fork_turn.is_some() {
            p.forks.fetch_add(1, Ordering::Relaxed);
            return;
        }
        p.games.fetch_add(1, Ordering::Relaxed);
        let k = match end.winner {
            Outcome::Black => 0,
            Outcome::White => 1,
            Outcome::Draw => 2,
        };
        p.results[k].fetch_add(1, Ordering::Relaxed);
        if end.resigned.is_some() {
            p.resigned.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(c) = would_resign {
            p.would_resign.fetch_add(1, Ordering::Relaxed);
            if end.winner.value_for(c) > 0.0 {
                p.false_resign.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}
