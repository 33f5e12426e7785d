//! What a `hane loop` run has finished, kept in `RUN/state.json` (rewritten atomically after
//! every phase) so that a rerun continues where the run stopped.

use super::timing::Timing;
use crate::komi::KomiReport;
use crate::{read_report, write_json, Error};
use hane_eval::elo::{self, Pairing, Rating, Wdl};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The player that generation 0 plays and gates against: hane's search without a net.
pub const BASELINE: &str = "uniform";

/// The name of the anchor `Anchor::FirstNet`: generation 0's net.
pub const FIRST_NET: &str = "gen-000";

/// The name of the anchor `Anchor::Ladder`: the net of the anchored generation before.
pub const LADDER: &str = "ladder";

/// One finished anchor match of a generation's best net.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AnchorMatch {
    /// The anchor's `Anchor::name`.
    pub anchor: String,
    /// The net that played it (relative to the run folder).
    pub net: String,
    /// The komi played.
    pub komi: f64,
    /// The net's results.
    pub results: Wdl,
    /// The net's Elo over the anchor with its 95% interval, fitted with one virtual draw
    /// added (a weak prior towards equality that keeps a 100% score finite).
    pub elo: Option<Rating>,
}

/// The whole run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunState {
    /// The rules of the run.
    pub rules: String,
    /// Generations begun, in order.
    pub generations: Vec<Generation>,
    /// What each phase has cost, over every part of the run.
    #[serde(default, skip_serializing_if = "Timing::is_empty")]
    pub time: Timing,
}

/// One generation: self-play by the best player, training a candidate, gating, komi.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Generation {
    /// Its number, from 0.
    pub index: u32,
    /// The player of its self-play and the candidate's gate opponent: [`BASELINE`] or a model
    /// file relative to the run folder.
    pub player: String,
    /// Self-play, once finished.
    pub selfplay: Option<SelfplayDone>,
    /// Training, once finished.
    pub train: Option<TrainDone>,
    /// The gating match, once decided.
    pub gate: Option<GateDone>,
    /// The komi estimate with the best net after the gate, once made.
    pub komi: Option<KomiReport>,
    /// Why the komi estimate failed (for example, a weak net's win rate never crossed 50%).
    #[serde(default)]
    pub komi_error: Option<String>,
    /// The best net's matches against the fixed anchors, in the order played.
    #[serde(default)]
    pub anchors: Vec<AnchorMatch>,
    /// The other board sizes of a run on several (`[train] sizes`), largest first: their
    /// self-play and komi estimates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<OtherSize>,
}

/// Self-play and the komi estimate of a generation on a board size other than the rules'.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OtherSize {
    /// The board's side.
    pub size: u8,
    /// Self-play, once finished.
    pub selfplay: Option<SelfplayDone>,
    /// The komi estimate on this size with the best net after the gate, once made.
    pub komi: Option<KomiReport>,
    /// Why the komi estimate failed.
    pub komi_error: Option<String>,
}

impl OtherSize {
    /// Nothing done yet on a board of side `size`.
    pub fn new(size: u8) -> OtherSize {
        OtherSize { size, selfplay: None, komi: None, komi_error: None }
    }
}

impl Generation {
    /// A generation begun by `player`, nothing finished yet, that plays also on the boards
    /// of side `others`.
    pub fn new(index: u32, player: String, others: &[u8]) -> Generation {
        Generation {
            index,
            player,
            selfplay: None,
            train: None,
            gate: None,
            komi: None,
            komi_error: None,
            anchors: Vec::new(),
            others: others.iter().map(|&s| OtherSize::new(s)).collect(),
        }
    }

    /// Whether every phase is finished (the komi estimates made or failed, or not wanted; a
    /// match played against each anchor named in `anchors`).
    pub fn finished(&self, komi_wanted: bool, anchors: &[String]) -> bool {
        let komi_done =
            |k: &Option<KomiReport>, e: &Option<String>| !komi_wanted || k.is_some() || e.is_some();
        self.gate.is_some()
            && komi_done(&self.komi, &self.komi_error)
            && self.others.iter().all(|o| komi_done(&o.komi, &o.komi_error))
            && anchors.iter().all(|a| self.played(a))
    }

    /// Whether the best net of the generation has played the anchor named `anchor`.
    pub fn played(&self, anchor: &str) -> bool {
        self.anchors.iter().any(|m| m.anchor == anchor)
    }

    /// The model file of the candidate it trained, once trained.
    pub fn candidate(&self) -> Option<&str> {
        self.train.as_ref().map(|t| t.candidate.as_str())
    }
}

/// Finished self-play.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SelfplayDone {
    /// Games of the generation.
    pub games: u64,
    /// Black wins, White wins, draws among the games played by the last run of the phase.
    pub results: [u64; 3],
    /// Seconds of the last run of the phase.
    pub seconds: f64,
    /// The komi the games were centred on (the latest estimate; `None`: the config's).
    #[serde(default)]
    pub komi: Option<f64>,
    /// Training rows the generation's games wrote (0 in runs of older versions).
    #[serde(default)]
    pub rows: u64,
}

/// Finished training.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TrainDone {
    /// The step reached.
    pub step: u64,
    /// The model file of the candidate, relative to the run folder.
    pub candidate: String,
    /// The last logged means (losses and metrics).
    pub metrics: BTreeMap<String, f64>,
    /// Seconds of the last run of the phase.
    pub seconds: f64,
}

/// A decided gating match.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateDone {
    /// The candidate's results against the generation's player (none when ungated).
    pub results: Wdl,
    /// Whether the candidate became the best player.
    pub accepted: bool,
    /// The komi the gate was played at.
    #[serde(default)]
    pub komi: Option<f64>,
}

impl RunState {
    /// Reads `state.json` from a run folder, or starts a new state.
    pub fn load(dir: &Path, rules: &str) -> Result<RunState, Error> {
        let path = dir.join("state.json");
        let Some(text) = read_report(&path)? else {
            return Ok(RunState { rules: rules.into(), ..RunState::default() });
        };
        let s: RunState = serde_json::from_str(&text)
            .map_err(|e| Error::Input(format!("{} is damaged: {e}", path.display())))?;
        if s.rules != rules {
            return Err(Error::Input(format!(
                "{} holds a run of {}, but the config plays {rules}: give the run another folder",
                dir.display(),
                s.rules
            )));
        }
        Ok(s)
    }

    /// Writes `state.json` atomically.
    pub fn save(&self, dir: &Path) -> Result<(), Error> {
        write_json(&dir.join("state.json"), self)
    }

    /// The best player after the first `n` generations: the last accepted candidate.
    pub fn best_after(&self, n: usize) -> String {
        self.accepted_nets(n, 1).pop().unwrap_or_else(|| BASELINE.into())
    }

    /// The last `k` nets accepted in the first `n` generations, oldest first: the best net
    /// after them and the ones accepted before it.
    pub fn accepted_nets(&self, n: usize, k: usize) -> Vec<String> {
        let mut nets: Vec<String> = self.generations[..n.min(self.generations.len())]
            .iter()
            .rev()
            .filter_map(|g| match (&g.gate, &g.train) {
                (Some(gate), Some(t)) if gate.accepted => Some(t.candidate.clone()),
                _ => None,
            })
            .take(k)
            .collect();
        nets.reverse();
        nets
    }

    /// The net whose komi estimate generation `i` reports: the best net after it, or while
    /// none has passed a gate its own candidate, so that the estimate reads what the trained
    /// nets learned whoever plays self-play (a run whose candidates all fail would otherwise
    /// never estimate, and never move its self-play komi). `None` before any training.
    pub fn komi_net(&self, i: usize) -> Option<String> {
        let best = self.best_after(i + 1);
        if best != BASELINE {
            return Some(best);
        }
        self.generations.get(i)?.candidate().map(str::to_string)
    }

    /// The Elo of the best player after each decided generation, relative to the baseline:
    /// accepted candidates form a chain, each gated against the one before, and the chain is
    /// fitted by maximum likelihood with one virtual draw added to every match (a weak prior
    /// towards equality that keeps the estimate finite when a match was won 100%).
    pub fn elo_chain(&self) -> Vec<(u32, Rating)> {
        let mut chain = Chain::default();
        for g in &self.generations {
            let Some(gate) = &g.gate else { break };
            if gate.accepted && gate.results.games() > 0 {
                chain.step(gate.results);
            }
            chain.mark(g.index);
        }
        chain.fit()
    }

    /// The Elo over generation 0's net of each anchored generation's best net, along the
    /// ladder: the first rung is rated by its match against generation 0's net, each later
    /// one by its match against the rung below ([`LADDER`]), and the chain is
    /// fitted like [`RunState::elo_chain`] (one virtual draw in every match), so the interval
    /// widens with each rung. A generation whose best net is the rung below keeps its rating.
    pub fn ladder(&self) -> Vec<(u32, Rating)> {
        let mut chain = Chain::default();
        for g in self.generations.iter().filter(|g| !g.anchors.is_empty()) {
            let below = if chain.is_empty() { FIRST_NET } else { LADDER };
            if let Some(m) = g.anchors.iter().find(|m| m.anchor == below) {
                chain.step(m.results);
            } else if chain.is_empty() {
                // Generation 0's net itself, or a run without it as an anchor: no rung yet.
                continue;
            }
            chain.mark(g.index);
        }
        chain.fit()
    }
}

/// A chain of players, each after the first rated by one match against the one before, and
/// the generations that each player stands for.
#[derive(Default)]
struct Chain {
    pairings: Vec<Pairing>,
    /// (generation, its player's place in the chain).
    marks: Vec<(u32, usize)>,
}

impl Chain {
    fn is_empty(&self) -> bool {
        self.pairings.is_empty()
    }

    /// A new player at the end of the chain, with its results against the one before.
    fn step(&mut self, results: Wdl) {
        let n = self.pairings.len();
        let result = Wdl { draws: results.draws + 1, ..results };
        self.pairings.push(Pairing { a: n + 1, b: n, result });
    }

    /// Generation `g` stands for the last player of the chain so far.
    fn mark(&mut self, g: u32) {
        self.marks.push((g, self.pairings.len()));
    }

    /// Each marked generation's rating, fitted by maximum likelihood with one virtual draw
    /// in every match (none when the fit fails).
    fn fit(self) -> Vec<(u32, Rating)> {
        let Ok(ratings) = elo::fit(self.pairings.len() + 1, &self.pairings) else { return Vec::new() };
        self.marks.into_iter().map(|(g, p)| (g, ratings[p])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generation(index: u32, accepted: bool, wins: u32, losses: u32) -> Generation {
        Generation {
            train: Some(TrainDone {
                step: 0,
                candidate: format!("models/gen-{index:03}.safetensors"),
                metrics: BTreeMap::new(),
                seconds: 0.0,
            }),
            gate: Some(GateDone { results: Wdl { wins, draws: 0, losses }, accepted, komi: None }),
            ..Generation::new(index, String::new(), &[])
        }
    }

    #[test]
    fn the_chain_adds_accepted_gains_and_skips_rejections() {
        let s = RunState {
            rules: "r".into(),
            generations: vec![
                generation(0, true, 9, 1),
                generation(1, false, 2, 8),
                generation(2, true, 6, 4),
            ],
            ..RunState::default()
        };
        assert_eq!(s.best_after(0), BASELINE);
        assert_eq!(s.best_after(2), "models/gen-000.safetensors");
        assert_eq!(s.best_after(3), "models/gen-002.safetensors");
        assert_eq!(s.accepted_nets(3, 5), ["models/gen-000.safetensors", "models/gen-002.safetensors"]);
        assert_eq!(s.accepted_nets(3, 1), ["models/gen-002.safetensors"]);
        assert!(s.accepted_nets(0, 5).is_empty());
        let chain = s.elo_chain();
        assert_eq!(chain.len(), 3);
        // Match 1: 9.5 of 11 with the virtual draw; match 2: 6.5 of 11. In a chain the
        // maximum-likelihood ratings are the sums of the per-match Elo differences.
        let d = |p: f64| -400.0 * (1.0 / p - 1.0).log10();
        let e0 = d(9.5 / 11.0);
        assert!((chain[0].1.elo - e0).abs() < 1e-6, "{chain:?}");
        assert_eq!(chain[1].1, chain[0].1, "a rejection keeps the best");
        assert!((chain[2].1.elo - e0 - d(6.5 / 11.0)).abs() < 1e-6, "{chain:?}");
        assert!(chain[2].1.low < chain[2].1.elo && chain[2].1.stderr > chain[0].1.stderr);
    }

    fn anchored(mut g: Generation, matches: &[(&str, u32, u32)]) -> Generation {
        let net = format!("models/gen-{:03}.safetensors", g.index);
        g.anchors = matches
            .iter()
            .map(|&(anchor, wins, losses)| AnchorMatch {
                anchor: anchor.into(),
                net: net.clone(),
                komi: 0.0,
                results: Wdl { wins, draws: 0, losses },
                elo: None,
            })
            .collect();
        g
    }

    #[test]
    fn the_ladder_keeps_rising_after_the_fixed_anchors_saturate() {
        // Every net sweeps generation 0's net; each also beats the rung below 7-3.
        let s = RunState {
            rules: "r".into(),
            generations: vec![
                anchored(generation(0, true, 0, 0), &[(BASELINE, 10, 0)]),
                generation(1, true, 0, 0),
                anchored(generation(2, true, 0, 0), &[(BASELINE, 10, 0), (FIRST_NET, 10, 0)]),
                anchored(generation(3, true, 0, 0), &[(BASELINE, 10, 0), (FIRST_NET, 10, 0), (LADDER, 7, 3)]),
                anchored(generation(4, true, 0, 0), &[(BASELINE, 10, 0), (FIRST_NET, 10, 0), (LADDER, 7, 3)]),
            ],
            ..RunState::default()
        };
        let ladder = s.ladder();
        assert_eq!(
            ladder.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![2, 3, 4],
            "generation 0's net is no rung"
        );
        let d = |p: f64| -400.0 * (1.0 / p - 1.0).log10();
        assert!((ladder[0].1.elo - d(10.5 / 11.0)).abs() < 1e-6, "{ladder:?}");
        assert!((ladder[2].1.elo - d(10.5 / 11.0) - 2.0 * d(7.5 / 11.0)).abs() < 1e-6, "{ladder:?}");
        assert!(ladder[1].1.elo > ladder[0].1.elo && ladder[2].1.elo > ladder[1].1.elo);
        assert!(ladder[2].1.stderr > ladder[1].1.stderr);
        // A generation whose net is the rung below plays no ladder match and keeps its rating.
        let mut same = s.clone();
        same.generations[4].anchors.pop();
        assert_eq!(same.ladder()[2].1, same.ladder()[1].1);
    }

    #[test]
    fn the_komi_is_estimated_even_when_every_candidate_fails() {
        let rejected = RunState {
            rules: "r".into(),
            generations: vec![generation(0, false, 1, 9), generation(1, false, 2, 8)],
            ..RunState::default()
        };
        assert_eq!(rejected.best_after(2), BASELINE);
        assert_eq!(rejected.komi_net(0).as_deref(), Some("models/gen-000.safetensors"));
        assert_eq!(rejected.komi_net(1).as_deref(), Some("models/gen-001.safetensors"));
        let mut untrained = rejected.clone();
        untrained.generations[1].train = None;
        assert_eq!(untrained.komi_net(1), None);
        let accepted = RunState {
            rules: "r".into(),
            generations: vec![generation(0, true, 9, 1), generation(1, false, 2, 8)],
            ..RunState::default()
        };
        assert_eq!(accepted.komi_net(1).as_deref(), Some("models/gen-000.safetensors"));
    }
}
