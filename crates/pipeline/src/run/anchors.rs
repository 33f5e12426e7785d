//! Elo against fixed anchors: after each generation (or every few and the last, the config's
//! `anchor_every`) the best net plays a match of a fixed number of games against each anchor
//! (generation 0's player, hane's search without a net; generation 0's net, which shows
//! improvement after the first net has left the search without a net far behind; GNU Go at a
//! stated level for the Go rule sets), with the same settings, komi and openings every time,
//! so the per-generation ratings are comparable and no match stops early on a lucky streak.
//! Each match is resumable game by game like the gate.
//!
//! A fixed anchor saturates: once the best net wins every game against it, later nets can
//! only tie that score. So each anchored generation's net also plays the net of the anchored
//! generation before it (the ladder, [`Anchor::Ladder`]); the chain of these matches, from
//! generation 0's net up, is fitted like the chain of gates ([`super::state::RunState::ladder`])
//! and keeps rising while each rung beats the one below it.

use super::matches::{play_parallel, MatchFile, PlayerPair};
use super::state::{AnchorMatch, BASELINE, FIRST_NET, LADDER};
use super::Ctx;
use crate::players::{net, player};
use crate::Error;
use hane_engine::rules::Variant;
use hane_engine::Rules;
use hane_eval::arena::{relative_elo, MatchSettings};
use hane_eval::elo::{Rating, Wdl};
use hane_eval::gtp::GtpLimits;
use hane_eval::referee::SearchPlayer;
use std::path::Path;

/// How plots and reports name an anchor.
pub fn label(name: &str) -> String {
    match name {
        BASELINE => "generation 0's player".into(),
        FIRST_NET => "generation 0's net".into(),
        LADDER => "the previous anchored net".into(),
        _ => name.into(),
    }
}

/// A fixed opponent of every generation's best net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// Generation 0's player: hane's search without a net.
    Baseline,
    /// Generation 0's net: its model file relative to the run folder.
    FirstNet(String),
    /// GNU Go at a level.
    GnuGo(u8),
    /// The best net of the generation that last played anchor matches (the rung below on the
    /// ladder): its model file relative to the run folder.
    Ladder(String),
}

impl Anchor {
    /// The anchor's name in the run's state, reports and file names: [`BASELINE`],
    /// [`FIRST_NET`] or `gnugo:LEVEL`.
    pub fn name(&self) -> String {
        match self {
            Anchor::Baseline => BASELINE.to_string(),
            Anchor::FirstNet(_) => FIRST_NET.to_string(),
            Anchor::GnuGo(level) => format!("gnugo:{level}"),
            Anchor::Ladder(_) => LADDER.to_string(),
        }
    }
}

/// How the anchor matches are played.
#[derive(Debug)]
pub struct AnchorSettings {
    /// Games per anchor match.
    pub games: u32,
    /// Anchor matches after every this many generations, and after the last.
    pub every: u32,
    /// Visits per move of hane's players (the net and the baseline).
    pub visits: u32,
    /// GNU Go's level as an anchor for the Go rule sets (`None`: no GNU Go).
    pub gnugo_level: Option<u8>,
    /// Random opening turns of each pair of games (colours swap within the pair).
    pub opening_turns: u32,
    /// The komi of every anchor match (`None`: the rule set's).
    pub komi: Option<f64>,
    /// Seed of the openings; the same in every generation.
    pub seed: u64,
    /// Games played at once, each by its own pair of players.
    pub threads: usize,
}

impl AnchorSettings {
    /// Whether generation `g` of a run of `generations` plays anchor matches: every
    /// [`AnchorSettings::every`]-th generation and the last.
    pub fn due(&self, g: u32, generations: u32) -> bool {
        (g + 1) % self.every == 0 || g + 1 >= generations
    }

    /// The anchors that `best` plays in a run of `rules` whose generation 0 trained
    /// `first_net` (`None` before it has) and whose last anchored generation had the best net
    /// `rung` (`None` before one has): none while the best player is the baseline itself,
    /// never the best net against itself, and the ladder only above generation 0's net (which
    /// is an anchor of its own).
    pub fn anchors(
        &self,
        rules: &Rules,
        first_net: Option<&str>,
        rung: Option<&str>,
        best: &str,
    ) -> Vec<Anchor> {
        if self.games == 0 || best == BASELINE {
            return Vec::new();
        }
        let mut v = vec![Anchor::Baseline];
        if let Some(first) = first_net.filter(|f| *f != best) {
            v.push(Anchor::FirstNet(first.to_string()));
        }
        if let Some(rung) = rung.filter(|r| *r != best && Some(*r) != first_net && *r != BASELINE) {
            v.push(Anchor::Ladder(rung.to_string()));
        }
        if let (Some(level), Variant::Go) = (self.gnugo_level, rules.variant) {
            v.push(Anchor::GnuGo(level));
        }
        v
    }

    fn rules(&self, rules: &Rules) -> Rules {
        let mut r = *rules;
        if let Some(k) = self.komi.and_then(hane_engine::Komi::from_f64) {
            r.komi = k;
        }
        r
    }
}

/// The Elo of a match's results with one virtual draw added.
pub fn elo_of(results: Wdl) -> Option<Rating> {
    // `relative_elo` rates the second player against the first: the anchor is the first.
    let anchor = Wdl { wins: results.losses, draws: results.draws + 1, losses: results.wins };
    relative_elo(anchor)
}

/// Plays (or resumes, from `games_file`) the match of the run's net `best` against `anchor`.
pub(super) fn play(
    cx: &Ctx,
    s: &AnchorSettings,
    (best, anchor): (&str, &Anchor),
    games_file: &Path,
    on_game: &mut dyn FnMut(u32, &Wdl),
) -> Result<AnchorMatch, Error> {
    let (run_dir, stop) = (cx.dir, cx.stop);
    let rules = s.rules(&cx.rules);
    let spec = match anchor {
        Anchor::Baseline => "uniform".to_string(),
        Anchor::FirstNet(file) | Anchor::Ladder(file) => format!("model:{}", run_dir.join(file).display()),
        Anchor::GnuGo(_) => anchor.name(),
    };
    // GNU Go has its default time per move; a stop request ends a wait for it at once.
    let gtp = GtpLimits { stop: stop.clone(), ..GtpLimits::default() };
    let players = || -> Result<PlayerPair, Error> {
        let me = SearchPlayer {
            evaluator: net(&run_dir.join(best), &rules, cx.cfg.selfplay.precision)?,
            visits: s.visits,
            seed: s.seed,
            label: best.to_string(),
        };
        Ok((Box::new(me), player(&spec, &rules, s.visits, s.seed ^ 1, &gtp, cx.cfg.selfplay.precision)?))
    };
    let settings = MatchSettings { games: s.games, opening_turns: s.opening_turns, seed: s.seed };
    let m = MatchFile { rules: &rules, settings: &settings, file: games_file, stop };
    let w = play_parallel(&m, &players, s.threads, on_game)?;
    Ok(AnchorMatch {
        anchor: anchor.name(),
        net: best.to_string(),
        komi: rules.komi.as_f64(),
        results: w,
        elo: elo_of(w),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_sweep_has_a_finite_positive_elo_and_an_even_match_none() {
        let sweep = elo_of(Wdl { wins: 10, draws: 0, losses: 0 }).unwrap();
        assert!(sweep.elo > 200.0 && sweep.low > 0.0 && sweep.high.is_finite(), "{sweep:?}");
        let even = elo_of(Wdl { wins: 5, draws: 0, losses: 5 }).unwrap();
        assert!(even.elo.abs() < 1e-6 && even.low < 0.0 && even.high > 0.0, "{even:?}");
        let lost = elo_of(Wdl { wins: 1, draws: 0, losses: 9 }).unwrap();
        assert!(lost.elo < -200.0 && lost.high < even.high, "{lost:?}");
    }

    /// Two-game anchor matches every `every` generations, with GNU Go at `gnugo_level`.
    fn settings(every: u32, gnugo_level: Option<u8>) -> AnchorSettings {
        AnchorSettings {
            games: 2,
            every,
            visits: 8,
            gnugo_level,
            opening_turns: 2,
            komi: None,
            seed: 1,
            threads: 1,
        }
    }

    fn names(anchors: Vec<Anchor>) -> Vec<String> {
        anchors.iter().map(Anchor::name).collect()
    }

    #[test]
    fn gnugo_anchors_only_the_go_rule_sets_and_no_net_plays_itself() {
        let s = settings(1, Some(10));
        let go = "ttakji,size=5".parse().unwrap();
        let gen0 = "models/gen-000.safetensors";
        let first = Some(gen0);
        let later = "models/gen-004.safetensors";
        assert_eq!(names(s.anchors(&go, first, None, later)), vec!["uniform", "gen-000", "gnugo:10"]);
        assert_eq!(names(s.anchors(&go, first, None, gen0)), vec!["uniform", "gnugo:10"]);
        assert_eq!(names(s.anchors(&go, None, None, BASELINE)), Vec::<String>::new());
        assert_eq!(
            names(s.anchors(&"sligo,size=5".parse().unwrap(), first, None, later)),
            vec!["uniform", "gen-000"]
        );
        let none = AnchorSettings { gnugo_level: None, ..s };
        assert_eq!(names(none.anchors(&go, first, None, later)), vec!["uniform", "gen-000"]);
        let off = AnchorSettings { games: 0, ..none };
        assert!(off.anchors(&go, first, None, later).is_empty());
    }

    #[test]
    fn the_ladder_plays_the_previous_anchored_net_above_generation_0() {
        let s = settings(1, None);
        let go = "ttakji,size=5".parse().unwrap();
        let (gen0, gen3, gen6) =
            ("models/gen-000.safetensors", "models/gen-003.safetensors", "models/gen-006.safetensors");
        let ladder = s.anchors(&go, Some(gen0), Some(gen3), gen6);
        assert_eq!(ladder.last(), Some(&Anchor::Ladder(gen3.into())));
        assert_eq!(names(ladder), vec!["uniform", "gen-000", "ladder"]);
        // Below it is generation 0's net, an anchor already; or the same net again.
        assert_eq!(names(s.anchors(&go, Some(gen0), Some(gen0), gen3)), vec!["uniform", "gen-000"]);
        assert_eq!(names(s.anchors(&go, Some(gen0), Some(gen3), gen3)), vec!["uniform", "gen-000"]);
    }

    #[test]
    fn anchors_every_few_generations_and_after_the_last() {
        let s = settings(3, None);
        let due: Vec<u32> = (0..10).filter(|&g| s.due(g, 10)).collect();
        assert_eq!(due, vec![2, 5, 8, 9]);
        let every = AnchorSettings { every: 1, ..s };
        assert!((0..10).all(|g| every.due(g, 10)));
    }
}
