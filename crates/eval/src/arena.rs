//! Matches between two players: colours alternate, and each pair of games starts from the
//! same random opening with the colours swapped, so that games differ while neither side
//! gets the better openings. Results are counted from the first player's side, with the
//! second player's Elo relative to the first and its 95% interval.

use crate::elo::{self, Pairing, Rating, Wdl};
use crate::gtp::GtpError;
use crate::referee::{play_game, GameResult, Player};
use hane_engine::range::Allowed;
use hane_engine::rng::Rng;
use hane_engine::{Action, Game, GameState, Rules, Turn};
use serde::Serialize;
use std::fmt::Write;

/// The games a match may have.
pub const MATCH_GAMES: Allowed<u32> = Allowed::closed(1, 100_000);

/// How a match is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchSettings {
    /// Games in the match.
    pub games: u32,
    /// Turns of each opening chosen at random (uniformly among the legal non-pass actions).
    pub opening_turns: u32,
    /// Seed of the openings.
    pub seed: u64,
}

/// The random opening of the games `2i` and `2i + 1`: `turns` turns of uniformly random legal
/// non-pass actions (fewer if the game would end).
pub fn opening(rules: &Rules, turns: u32, seed: u64) -> Vec<Turn> {
    let mut rng = Rng::new(seed ^ 0x6f70_656e_696e_6773);
    let mut g = GameState::new(*rules);
    let mut out = Vec::new();
    let mut legal = Vec::new();
    for _ in 0..turns {
        let me = g.to_move();
        let before = g.clone();
        let mut turn = Vec::new();
        while !g.is_over() && g.to_move() == me {
            legal.clear();
            g.legal_actions(&mut legal);
            legal.retain(|&a| a != Action::Pass);
            if legal.is_empty() {
                return out;
            }
            let a = legal[rng.below(legal.len())];
            g.play(a).expect("a legal action");
            turn.push(a);
        }
        if g.is_over() {
            return out;
        }
        out.push(Turn::of_actions(&before, &turn).expect("a whole turn"));
    }
    out
}

/// Whether the first player has Black in game `i` (even games).
pub fn first_is_black(i: u32) -> bool {
    i % 2 == 0
}

/// Plays game `i` of a match between `a` and `b` (see [`first_is_black`] and [`opening`]).
pub fn play_match_game(
    rules: &Rules,
    a: &mut dyn Player,
    b: &mut dyn Player,
    settings: &MatchSettings,
    i: u32,
) -> Result<GameResult, GtpError> {
    let open = opening(rules, settings.opening_turns, settings.seed.wrapping_add(u64::from(i / 2)));
    if first_is_black(i) {
        play_game(*rules, a, b, &open)
    } else {
        play_game(*rules, b, a, &open)
    }
}

/// Adds game `i`'s result to the first player's tally.
pub fn tally(w: &mut Wdl, i: u32, r: &GameResult) {
    let mine = if first_is_black(i) { "b" } else { "w" };
    match r.winner.as_str() {
        "draw" => w.draws += 1,
        x if x == mine => w.wins += 1,
        _ => w.losses += 1,
    }
}

/// A finished match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchReport {
    /// The rules played.
    pub rules: String,
    /// The first player.
    pub a: String,
    /// The second player.
    pub b: String,
    /// The first player's results.
    pub a_results: Wdl,
    /// The second player's Elo relative to the first, with its 95% interval; `None` when a
    /// side won or lost every game (the maximum-likelihood Elo is then unbounded).
    pub b_elo: Option<Rating>,
    /// Every game, in order.
    pub games: Vec<GameResult>,
}

/// The second player's Elo relative to the first from the first player's results.
pub fn relative_elo(a_results: Wdl) -> Option<Rating> {
    let pairing = Pairing { a: 0, b: 1, result: a_results };
    elo::fit(2, &[pairing]).ok().map(|r| r[1])
}

/// Plays a whole match, calling `on_game` after each game.
pub fn run_match(
    rules: &Rules,
    a: &mut dyn Player,
    b: &mut dyn Player,
    settings: &MatchSettings,
    on_game: &mut dyn FnMut(u32, &GameResult),
) -> Result<MatchReport, GtpError> {
    let mut games = Vec::new();
    play_on(rules, a, b, settings, &mut games, on_game)?;
    Ok(MatchReport::of(rules, a.name(), b.name(), games))
}

/// Plays the games of a match that follow those in `games` (a match resumed), adding each to
/// `games` as it ends and calling `on_game`; on an error the games finished stay there.
pub fn play_on(
    rules: &Rules,
    a: &mut dyn Player,
    b: &mut dyn Player,
    settings: &MatchSettings,
    games: &mut Vec<GameResult>,
    on_game: &mut dyn FnMut(u32, &GameResult),
) -> Result<(), GtpError> {
    for i in games.len() as u32..settings.games {
        let r = play_match_game(rules, a, b, settings, i)?;
        on_game(i, &r);
        games.push(r);
    }
    Ok(())
}

impl MatchReport {
    /// The report of `games` (game `i` played as [`play_match_game`] plays it) between `a`
    /// and `b`.
    pub fn of(rules: &Rules, a: String, b: String, games: Vec<GameResult>) -> MatchReport {
        let mut w = Wdl::default();
        for (i, g) in games.iter().enumerate() {
            tally(&mut w, i as u32, g);
        }
        MatchReport { rules: rules.to_string(), a, b, a_results: w, b_elo: relative_elo(w), games }
    }

    /// A text table: one line per game and a total.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:>4}  {:<24} {:<24} {:>6} {:>8} {:>6}",
            "game", "black", "white", "winner", "B-W", "turns"
        );
        for (i, g) in self.games.iter().enumerate() {
            let _ = writeln!(
                t,
                "{:>4}  {:<24} {:<24} {:>6} {:>8.1} {:>6}{}",
                i + 1,
                short(&g.black),
                short(&g.white),
                g.winner,
                g.margin_black,
                g.turns,
                g.forfeit.as_ref().map_or(String::new(), |f| format!("  forfeit: {f}"))
            );
        }
        let w = self.a_results;
        let _ = writeln!(
            t,
            "{}: {} wins, {} draws, {} losses against {}",
            self.a, w.wins, w.draws, w.losses, self.b
        );
        let _ = match &self.b_elo {
            Some(r) => writeln!(
                t,
                "Elo of {} relative to {}: {:+.0} [{:+.0}, {:+.0}] (95%)",
                self.b, self.a, r.elo, r.low, r.high
            ),
            None => {
                writeln!(t, "Elo of {} relative to {}: unbounded (one side won every game)", self.b, self.a)
            }
        };
        t
    }
}

fn short(name: &str) -> String {
    if name.chars().count() <= 24 {
        name.to_string()
    } else {
        let tail: String = name.chars().rev().take(23).collect::<Vec<_>>().into_iter().rev().collect();
        format!("…{tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::SearchPlayer;
    use hane_mcts::{RolloutEvaluator, UniformEvaluator};

    fn rules(s: &str) -> Rules {
        s.parse().unwrap()
    }

    #[test]
    fn openings_are_legal_reproducible_and_varied() {
        for r in ["ttakji,size=5", "loose,size=5", "sligo,size=5", "brainking,size=5"] {
            let r = rules(r);
            let o = opening(&r, 3, 7);
            assert_eq!(o, opening(&r, 3, 7));
            assert_eq!(o.len(), 3);
            let mut g = GameState::new(r);
            for &turn in &o {
                let me = g.to_move();
                turn.play(&mut g).unwrap();
                assert_ne!(g.to_move(), me, "a whole turn");
            }
            let distinct: std::collections::HashSet<_> = (0..20).map(|s| opening(&r, 2, s)).collect();
            assert!(distinct.len() > 10, "{r}: {}", distinct.len());
        }
    }

    #[test]
    fn a_stronger_player_wins_and_gets_the_higher_elo() {
        // Rollouts with 64 visits against a uniform evaluator with 4 visits on 5x5.
        let r = rules("ttakji,size=5");
        let mut weak = SearchPlayer { evaluator: UniformEvaluator, visits: 4, seed: 1, label: "weak".into() };
        let mut strong =
            SearchPlayer { evaluator: RolloutEvaluator::new(3), visits: 64, seed: 2, label: "strong".into() };
        let settings = MatchSettings { games: 8, opening_turns: 2, seed: 5 };
        let mut seen = Vec::new();
        let rep =
            run_match(&r, &mut weak, &mut strong, &settings, &mut |i, g| seen.push((i, g.black.clone())))
                .unwrap();
        assert_eq!(seen.len(), 8);
        assert_eq!(seen[0].1, "weak");
        assert_eq!(seen[1].1, "strong");
        assert_eq!(rep.a_results.games(), 8);
        assert!(rep.a_results.losses >= 6, "{:?}", rep.a_results);
        // Each pair shares its opening, with colours swapped.
        assert_eq!(rep.games[0].moves[..2], rep.games[1].moves[..2]);
        assert!(rep.table().contains("strong"));
        if let Some(e) = rep.b_elo {
            assert!(e.elo > 100.0 && e.low < e.elo && e.elo < e.high, "{e:?}");
        }
    }

    #[test]
    fn tally_counts_from_the_first_player_side() {
        let g = |winner: &str| GameResult {
            black: "x".into(),
            white: "y".into(),
            winner: winner.into(),
            margin_black: 0.0,
            turns: 0,
            forfeit: None,
            moves: vec![],
        };
        let mut w = Wdl::default();
        tally(&mut w, 0, &g("b"));
        tally(&mut w, 1, &g("b"));
        tally(&mut w, 2, &g("draw"));
        tally(&mut w, 3, &g("w"));
        assert_eq!(w, Wdl { wins: 2, draws: 1, losses: 1 });
        let e = relative_elo(Wdl { wins: 3, draws: 0, losses: 1 }).unwrap();
        // Hand computation: score 3/4, Elo of b = -400 log10(3) = -190.8.
        assert!((e.elo + 190.85).abs() < 0.1, "{e:?}");
    }
}
