//! What a `hane loop` run shows: one line per generation, `summary.json`, and the plots
//! `elo.png` (Elo of the best net per generation, 95% intervals), `losses.png` (training
//! losses at the end of each generation) and `komi.png` (Black's win rate against komi in the
//! latest estimate).

use super::state::RunState;
use crate::{komi, write_file, write_json, Error};
use hane_eval::elo::Rating;
use hane_plot::{Chart, Series};
use serde::Serialize;
use std::path::Path;

/// One generation in `summary.json`.
#[derive(Serialize)]
struct Row<'a> {
    generation: u32,
    player: &'a str,
    games: Option<u64>,
    step: Option<u64>,
    losses: Option<&'a std::collections::BTreeMap<String, f64>>,
    gate: Option<&'a super::state::GateDone>,
    best: String,
    best_elo: Option<Rating>,
    komi_crossing: Option<f64>,
    komi_fair: Option<f64>,
    anchors: &'a [super::state::AnchorMatch],
    /// The komi crossing on each other board size ("5x5"), where estimated.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    other_komi: std::collections::BTreeMap<String, f64>,
}

/// The summary of the whole run.
#[derive(Serialize)]
struct Summary<'a> {
    rules: &'a str,
    best: String,
    generations: Vec<Row<'a>>,
    /// What each phase has cost so far.
    #[serde(skip_serializing_if = "super::Timing::is_empty")]
    time: &'a super::Timing,
}

fn rows(st: &RunState) -> Vec<Row<'_>> {
    let chain = st.elo_chain();
    st.generations
        .iter()
        .enumerate()
        .map(|(i, g)| Row {
            generation: g.index,
            player: &g.player,
            games: g.selfplay.as_ref().map(|s| s.games),
            step: g.train.as_ref().map(|t| t.step),
            losses: g.train.as_ref().map(|t| &t.metrics),
            gate: g.gate.as_ref(),
            best: st.best_after(i + 1),
            best_elo: chain.iter().find(|c| c.0 == g.index).map(|c| c.1),
            komi_crossing: g.komi.as_ref().map(|k| k.estimate.crossing),
            komi_fair: g.komi.as_ref().map(|k| k.estimate.fair),
            anchors: &g.anchors,
            other_komi: g
                .others
                .iter()
                .filter_map(|o| o.komi.as_ref().map(|k| (format!("{0}x{0}", o.size), k.estimate.crossing)))
                .collect(),
        })
        .collect()
}

/// Writes `chart` as the PNG file `name` in `dir`.
fn write_png(chart: &Chart, dir: &Path, name: &str) -> Result<(), Error> {
    write_file(&dir.join(name), &chart.png())
}

/// Writes `summary.json` and the plots.
pub fn write(st: &RunState, dir: &Path) -> Result<(), Error> {
    let summary = Summary {
        rules: &st.rules,
        best: st.best_after(st.generations.len()),
        generations: rows(st),
        time: &st.time,
    };
    write_json(&dir.join("summary.json"), &summary)?;
    write_png(&elo_chart(st), dir, "elo.png")?;
    let mut losses = Chart::new(
        format!("Training losses: {}", st.rules),
        "training step",
        "loss (mean of the last log interval)",
    );
    for name in ["loss/total", "loss/policy", "loss/value", "loss/score", "loss/ownership"] {
        let pts = st
            .generations
            .iter()
            .filter_map(|g| g.train.as_ref())
            .filter_map(|t| t.metrics.get(name).map(|v| (t.step as f64, *v)))
            .collect();
        losses = losses.with_series(Series::new(
            name.trim_start_matches("loss/"),
            pts,
            hane_plot::Style::LineAndMarkers,
        ));
    }
    write_png(&losses, dir, "losses.png")?;
    if let Some(k) = st.generations.iter().rev().find_map(|g| g.komi.as_ref()) {
        write_png(&komi::chart(k), dir, "komi.png")?;
    }
    let sizes: Vec<u8> =
        st.generations.last().map(|g| g.others.iter().map(|o| o.size).collect()).unwrap_or_default();
    for n in sizes {
        let newest = st.generations.iter().rev().flat_map(|g| &g.others).filter(|o| o.size == n);
        if let Some(k) = newest.filter_map(|o| o.komi.as_ref()).next() {
            write_png(&komi::chart(k), dir, &format!("komi-{n}x{n}.png"))?;
        }
    }
    Ok(())
}

/// The names of the anchors played in the run, in order of first appearance.
fn anchor_names(st: &RunState) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for m in st.generations.iter().flat_map(|g| &g.anchors) {
        if !names.contains(&m.anchor) {
            names.push(m.anchor.clone());
        }
    }
    names
}

/// `elo.png`: the best net's Elo over each fixed anchor per generation when the run plays
/// anchor matches, with the ladder's Elo over generation 0's net (which does not saturate),
/// else the chain of accepted gates.
fn elo_chart(st: &RunState) -> Chart {
    let names = anchor_names(st);
    if names.is_empty() {
        let chain = st.elo_chain();
        let elo = Series::new(
            "best net, 95% interval",
            chain.iter().map(|(g, r)| (f64::from(*g), r.elo)).collect(),
            hane_plot::Style::LineAndMarkers,
        )
        .with_errors(chain.iter().map(|(_, r)| (r.low, r.high)).collect());
        return Chart::new(
            format!("Elo of the best net: {}", st.rules),
            "generation",
            "Elo over generation 0's player (chain of gates)",
        )
        .with_series(elo)
        .with_hline(0.0);
    }
    let mut chart = Chart::new(
        format!("Elo of the best net over fixed anchors: {}", st.rules),
        "generation",
        "Elo over the anchor (95% interval)",
    )
    .with_hline(0.0);
    let ladder = st.ladder();
    if !ladder.is_empty() {
        chart = chart.with_series(
            Series::new(
                "ladder: over generation 0's net, rung by rung",
                ladder.iter().map(|(g, r)| (f64::from(*g), r.elo)).collect(),
                hane_plot::Style::LineAndMarkers,
            )
            .with_errors(ladder.iter().map(|(_, r)| (r.low, r.high)).collect()),
        );
    }
    for name in names.into_iter().filter(|n| n != super::state::LADDER) {
        let rated: Vec<(f64, Rating)> = st
            .generations
            .iter()
            .filter_map(|g| {
                g.anchors
                    .iter()
                    .find(|m| m.anchor == name)
                    .and_then(|m| m.elo.map(|r| (f64::from(g.index), r)))
            })
            .collect();
        let label = super::anchors::label(&name);
        chart = chart.with_series(
            Series::new(
                label,
                rated.iter().map(|(g, r)| (*g, r.elo)).collect(),
                hane_plot::Style::LineAndMarkers,
            )
            .with_errors(rated.iter().map(|(_, r)| (r.low, r.high)).collect()),
        );
    }
    chart
}

fn elo_text(r: &Rating) -> String {
    format!("{:+.0} [{:+.0}, {:+.0}]", r.elo, r.low, r.high)
}

/// The line printed after generation `i`.
pub fn generation_line(st: &RunState, i: usize) -> String {
    let g = &st.generations[i];
    let mut s = format!("generation {}:", g.index);
    if let Some(sp) = &g.selfplay {
        s.push_str(&format!(" {} games;", sp.games));
    }
    if let Some(t) = &g.train {
        let m = |k: &str| t.metrics.get(k).copied().unwrap_or(f64::NAN);
        s.push_str(&format!(
            " step {}, loss {:.3} (policy {:.3}, value {:.3});",
            t.step,
            m("loss/total"),
            m("loss/policy"),
            m("loss/value")
        ));
    }
    if let Some(gate) = &g.gate {
        let w = gate.results;
        s.push_str(&format!(
            " gate {}-{}-{} {};",
            w.wins,
            w.draws,
            w.losses,
            if gate.accepted { "accepted" } else { "rejected" }
        ));
    }
    if st.best_after(i + 1) == super::state::BASELINE {
        s.push_str(" no net accepted yet;");
    } else if !g.anchors.is_empty() {
        for m in &g.anchors {
            s.push_str(&format!(
                " vs {} {}-{}-{}",
                m.anchor, m.results.wins, m.results.draws, m.results.losses
            ));
            if let Some(r) = &m.elo {
                s.push_str(&format!(" Elo {}", elo_text(r)));
            }
            s.push(';');
        }
        if let Some((_, r)) = st.ladder().into_iter().find(|c| c.0 == g.index) {
            s.push_str(&format!(" ladder Elo {};", elo_text(&r)));
        }
    } else if let Some((_, r)) = st.elo_chain().into_iter().find(|c| c.0 == g.index) {
        // The chain of gates means something only where gates are played.
        if g.gate.as_ref().is_some_and(|gate| gate.results.games() > 0) {
            s.push_str(&format!(" best net Elo {} (95%);", elo_text(&r)));
        }
    }
    s.push_str(&komi_text("", &g.komi, &g.komi_error));
    for o in &g.others {
        s.push_str(&komi_text(&format!(" {0}x{0}", o.size), &o.komi, &o.komi_error));
    }
    s.trim_end_matches(';').to_string()
}

/// A generation line's part for one komi estimate (`board` names a board other than the
/// run's), or the reason there is none; nothing before the estimate is tried.
fn komi_text(board: &str, komi: &Option<komi::KomiReport>, error: &Option<String>) -> String {
    match (komi, error) {
        (Some(k), _) => format!("{board} komi {:.2} (fair {});", k.estimate.crossing, k.estimate.fair),
        (None, Some(e)) => format!("{board} komi: {e};"),
        _ => String::new(),
    }
}

/// The closing lines of a run.
pub fn final_lines(st: &RunState, dir: &Path) -> String {
    let mut s = format!("run finished: {} generations in {}\n", st.generations.len(), dir.display());
    let best = st.best_after(st.generations.len());
    s.push_str(&format!("best net: {best}\n"));
    let last_anchors = st.generations.iter().rev().map(|g| &g.anchors).find(|a| !a.is_empty());
    if best == super::state::BASELINE {
        s.push_str("no candidate beat generation 0's player (search without a net)\n");
    } else if let Some(matches) = last_anchors {
        for m in matches {
            s.push_str(&format!(
                "best net against {} at komi {}: {}-{}-{} (W-D-L), Elo {} (95% interval, one virtual draw)\n",
                super::anchors::label(&m.anchor),
                m.komi,
                m.results.wins,
                m.results.draws,
                m.results.losses,
                m.elo.as_ref().map_or("unbounded".to_string(), elo_text)
            ));
        }
        if let Some((_, r)) = st.ladder().last() {
            s.push_str(&format!(
                "best net over generation 0's net along the ladder of anchored nets: Elo {} (95% interval)\n",
                elo_text(r)
            ));
        }
    } else if let Some((_, r)) = st.elo_chain().last() {
        s.push_str(&format!(
            "Elo gain over generation 0's player (search without a net): {} (95% interval)\n",
            elo_text(r)
        ));
    }
    if let Some(k) = st.generations.iter().rev().find_map(|g| g.komi.as_ref()) {
        s.push_str(&format!("komi estimate: {}\n", komi::summary_line(k)));
    }
    s.push_str(&format!(
        "summary: {}; plots: elo.png, losses.png, komi.png",
        dir.join("summary.json").display()
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::super::state::{GateDone, Generation, TrainDone};
    use super::*;
    use hane_eval::elo::Wdl;

    /// A run of `n` generations, each training a candidate that its gate (of `gate` results)
    /// accepts.
    fn run(n: u32, gate: Wdl) -> RunState {
        let mut st = RunState { rules: "ttakji,size=5".into(), ..RunState::default() };
        for g in 0..n {
            let mut gen = Generation::new(g, st.best_after(g as usize), &[]);
            gen.train = Some(TrainDone {
                step: 10,
                candidate: format!("models/gen-{g:03}.safetensors"),
                metrics: Default::default(),
                seconds: 1.0,
            });
            gen.gate = Some(GateDone { results: gate, accepted: true, komi: None });
            st.generations.push(gen);
        }
        st
    }

    #[test]
    fn a_generation_line_rates_the_best_net_only_by_games_played() {
        let ungated = run(2, Wdl::default());
        let line = generation_line(&ungated, 1);
        assert!(line.contains("gate 0-0-0 accepted") && !line.contains("Elo"), "{line}");
        let gated = run(2, Wdl { wins: 7, draws: 0, losses: 3 });
        let line = generation_line(&gated, 1);
        assert!(line.contains("gate 7-0-3 accepted; best net Elo +"), "{line}");
    }
}
