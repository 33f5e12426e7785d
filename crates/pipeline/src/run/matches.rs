//! The loop's matches (gates and anchor matches), saved game by game to a JSON file under a
//! temporary name and renamed, so that a rerun resumes after the last finished game. A gate
//! decides after every game whether to go on, so it plays one game at a time; a match of a
//! fixed size plays several at once, each thread with its own pair of players. A stop request
//! abandons the games in flight before their next move ([`Stoppable`]); finished games stay
//! saved.

use crate::{read_report, write_json, Error, Interrupt, Stop, Stoppable};
use hane_engine::Rules;
use hane_eval::arena::{play_match_game, tally, MatchSettings};
use hane_eval::elo::Wdl;
use hane_eval::referee::{GameResult, Player};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::channel;

/// Where and how a match is played: its rules and settings, the file its games are saved to
/// (and resumed from), and the run's stop request.
#[derive(Debug)]
pub struct MatchFile<'a> {
    /// The rules of every game.
    pub rules: &'a Rules,
    /// Games, openings and seed.
    pub settings: &'a MatchSettings,
    /// The JSON file of the finished games.
    pub file: &'a Path,
    /// Abandons the games in flight before their next move.
    pub stop: &'a Stop,
}

/// Plays the match of `a` against `b` from the games already in `m.file`, while `more` says
/// so for `a`'s results so far, saving every game; returns `a`'s results. `on_game` hears the
/// number of games and the results after each new one.
pub fn play_resumable(
    m: &MatchFile,
    (a, b): (&mut dyn Player, &mut dyn Player),
    more: &mut dyn FnMut(Wdl) -> bool,
    on_game: &mut dyn FnMut(u32, &Wdl),
) -> Result<Wdl, Error> {
    let (mut games, mut w) = load(m.file)?;
    let stop = m.stop;
    while more(w) {
        let i = games.len() as u32;
        let (a, b) = (&mut Stoppable { player: &mut *a, stop }, &mut Stoppable { player: &mut *b, stop });
        let r = play_match_game(m.rules, a, b, m.settings, i).map_err(|e| stop.game_error(e))?;
        tally(&mut w, i, &r);
        games.push(r);
        save(m.file, &games)?;
        on_game(i + 1, &w);
    }
    Ok(w)
}

/// The first player's pair of players for one thread of [`play_parallel`]: (first, second).
pub type PlayerPair = (Box<dyn Player>, Box<dyn Player>);

/// Plays the `m.settings.games` games of a match, resuming from `m.file`, on `threads`
/// threads that each build their own players with `players`. Games are saved in order, so a
/// rerun resumes after the longest finished prefix; returns the first player's results.
pub fn play_parallel(
    m: &MatchFile,
    players: &(dyn Fn() -> Result<PlayerPair, Error> + Sync),
    threads: usize,
    on_game: &mut dyn FnMut(u32, &Wdl),
) -> Result<Wdl, Error> {
    let MatchFile { rules, settings, file, stop } = *m;
    let (mut games, mut w) = load(file)?;
    let next = AtomicU32::new(games.len() as u32);
    let left = settings.games.saturating_sub(games.len() as u32) as usize;
    let (tx, rx) = channel::<Result<(u32, GameResult), Error>>();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, left.max(1)) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let (mut a, mut b) = match players() {
                    Ok(p) => p,
                    Err(e) => return tx.send(Err(e)).unwrap_or(()),
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= settings.games {
                        return;
                    }
                    let a = &mut Stoppable { player: a.as_mut(), stop };
                    let b = &mut Stoppable { player: b.as_mut(), stop };
                    let r = play_match_game(rules, a, b, settings, i)
                        .map(|r| (i, r))
                        .map_err(|e| stop.game_error(e));
                    let failed = r.is_err();
                    if tx.send(r).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut done: BTreeMap<u32, GameResult> = BTreeMap::new();
        for r in rx {
            let (i, r) = match r {
                Ok(x) => x,
                Err(e) => {
                    // The other threads stop at their next game.
                    next.store(settings.games, Ordering::Relaxed);
                    return Err(e);
                }
            };
            done.insert(i, r);
            while let Some(r) = done.remove(&(games.len() as u32)) {
                let i = games.len() as u32;
                tally(&mut w, i, &r);
                games.push(r);
                save(file, &games)?;
                on_game(i + 1, &w);
            }
        }
        Ok(w)
    })
}

/// The games saved in `file` (none when it does not exist) and the first player's results.
fn load(file: &Path) -> Result<(Vec<GameResult>, Wdl), Error> {
    let games: Vec<GameResult> = match read_report(file)? {
        Some(t) => serde_json::from_str(&t)
            .map_err(|e| Error::Input(format!("{} is damaged: {e}", file.display())))?,
        None => Vec::new(),
    };
    let mut w = Wdl::default();
    for (i, r) in games.iter().enumerate() {
        tally(&mut w, i as u32, r);
    }
    Ok((games, w))
}

fn save(file: &Path, games: &[GameResult]) -> Result<(), Error> {
    write_json(file, &games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::players::player;

    fn pair(rules: &Rules) -> Result<PlayerPair, Error> {
        let gtp = hane_eval::gtp::GtpLimits::default();
        let fp32 = hane_mcts::Precision::Fp32;
        Ok((player("uniform", rules, 4, 1, &gtp, fp32)?, player("rollout", rules, 4, 2, &gtp, fp32)?))
    }

    #[test]
    fn a_parallel_match_saves_every_game_in_order_and_resumes_after_them() {
        let rules: Rules = "ttakji,size=3".parse().unwrap();
        let dir = std::env::temp_dir().join(format!("hane-matches-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("m.json");
        let settings = MatchSettings { games: 5, opening_turns: 1, seed: 3 };
        let mut seen = Vec::new();
        let stop = Stop::default();
        let m = MatchFile { rules: &rules, settings: &settings, file: &file, stop: &stop };
        let w = play_parallel(&m, &|| pair(&rules), 3, &mut |n, _| seen.push(n)).unwrap();
        assert_eq!(seen, vec![1, 2, 3, 4, 5], "progress in game order");
        assert_eq!(w.games(), 5);
        let (games, again) = load(&file).unwrap();
        assert_eq!((games.len(), again), (5, w));
        // Each game's colours follow its number, whichever thread played it.
        for (i, g) in games.iter().enumerate() {
            let first_black = g.black.starts_with("uniform");
            assert_eq!(first_black, i % 2 == 0, "game {i}: {}", g.black);
        }
        let mut more = 0;
        let w2 = play_parallel(&m, &|| pair(&rules), 3, &mut |_, _| more += 1).unwrap();
        assert_eq!((w2, more), (w, 0), "a finished match plays nothing more");
        let six = MatchSettings { games: 6, ..settings };
        let e = play_parallel(
            &MatchFile { settings: &six, ..m },
            &|| Err(Error::Input("no players".into())),
            2,
            &mut |_, _| (),
        )
        .unwrap_err();
        assert!(e.to_string().contains("no players"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
