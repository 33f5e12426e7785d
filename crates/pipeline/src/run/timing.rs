//! What each phase of a run has cost, over every part of it: a run stopped and continued adds
//! each part's time, an interrupted phase's included, so that the run's own record answers
//! "how long did the self-play, the training, the book take" without a stopwatch.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// A phase of a run, as [`Timing`] keys it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// The generations' self-play, on every board size.
    SelfPlay,
    /// Training the candidates.
    Training,
    /// Gating matches.
    Gate,
    /// The generations' komi estimates.
    Komi,
    /// Anchor matches.
    Anchors,
    /// Opening books (`book_every` and the run's last).
    Book,
    /// The exact judge.
    Judge,
}

impl Phase {
    /// The phase's name in a line for the user.
    fn name(self) -> &'static str {
        match self {
            Phase::SelfPlay => "self-play",
            Phase::Training => "training",
            Phase::Gate => "gates",
            Phase::Komi => "komi estimates",
            Phase::Anchors => "anchors",
            Phase::Book => "books",
            Phase::Judge => "judge",
        }
    }
}

/// The time of one phase, summed over its runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    /// How many times the phase ran (each generation's, and each part of an interrupted one).
    pub runs: u64,
    /// Wall-clock seconds.
    pub wall: f64,
    /// CPU seconds, user and system, of hane's process and of the children it waited for
    /// (GNU Go in an anchor match); `None` once any run could not read them (not Linux).
    pub cpu: Option<f64>,
}

/// The time of every phase a run has run, in `state.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timing(BTreeMap<Phase, Spent>);

impl Timing {
    /// Adds one run of `phase` to its sum.
    pub fn add(&mut self, phase: Phase, spent: Spent) {
        let sum = self.0.entry(phase).or_insert(Spent { cpu: Some(0.0), ..Spent::default() });
        sum.runs += spent.runs;
        sum.wall += spent.wall;
        sum.cpu = sum.cpu.zip(spent.cpu).map(|(a, b)| a + b);
    }

    /// The sum of `phase`, if it ran.
    pub fn get(&self, phase: Phase) -> Option<Spent> {
        self.0.get(&phase).copied()
    }

    /// Whether no phase has run.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// One line: each phase's wall and CPU seconds, and their totals.
    pub fn line(&self) -> String {
        let cpu = |c: Option<f64>| c.map_or("CPU not known".to_string(), |c| format!("{c:.0} s CPU"));
        let mut total = Spent { cpu: Some(0.0), ..Spent::default() };
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(phase, s)| {
                total.wall += s.wall;
                total.cpu = total.cpu.zip(s.cpu).map(|(a, b)| a + b);
                format!("{} {:.0} s wall, {}", phase.name(), s.wall, cpu(s.cpu))
            })
            .collect();
        format!(
            "time by phase, every part of the run: {}; in all {:.0} s wall, {}",
            parts.join("; "),
            total.wall,
            cpu(total.cpu)
        )
    }
}

/// A phase's stopwatch: wall-clock and CPU time from its start.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    wall: Instant,
    cpu: Option<f64>,
}

impl Clock {
    /// Starts now.
    pub fn start() -> Clock {
        Clock { wall: Instant::now(), cpu: hane_host::cpu::process_and_children_seconds() }
    }

    /// One run's time from the start to now.
    pub fn spent(&self) -> Spent {
        let now = hane_host::cpu::process_and_children_seconds();
        let cpu = self.cpu.zip(now).map(|(a, b)| (b - a).max(0.0));
        Spent { runs: 1, wall: self.wall.elapsed().as_secs_f64(), cpu }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_add_up_by_phase_and_an_unknown_cpu_time_stays_unknown() {
        let mut t = Timing::default();
        assert!(t.is_empty());
        t.add(Phase::Training, Spent { runs: 1, wall: 10.0, cpu: Some(19.0) });
        t.add(Phase::SelfPlay, Spent { runs: 1, wall: 100.0, cpu: Some(190.0) });
        t.add(Phase::Training, Spent { runs: 1, wall: 5.5, cpu: Some(10.0) });
        assert_eq!(t.get(Phase::Training), Some(Spent { runs: 2, wall: 15.5, cpu: Some(29.0) }));
        assert_eq!(t.get(Phase::Book), None);
        assert_eq!(
            t.line(),
            "time by phase, every part of the run: self-play 100 s wall, 190 s CPU; \
             training 16 s wall, 29 s CPU; in all 116 s wall, 219 s CPU"
        );
        t.add(Phase::Book, Spent { runs: 1, wall: 3.0, cpu: None });
        t.add(Phase::Book, Spent { runs: 1, wall: 3.0, cpu: Some(1.0) });
        assert_eq!(t.get(Phase::Book).unwrap().cpu, None);
        assert!(t.line().ends_with("books 6 s wall, CPU not known; in all 122 s wall, CPU not known"));
    }

    #[test]
    fn the_record_reads_back_and_a_clock_counts_this_process() {
        let mut t = Timing::default();
        t.add(Phase::Anchors, Spent { runs: 3, wall: 1.25, cpu: Some(2.5) });
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"anchors":{"runs":3,"wall":1.25,"cpu":2.5}}"#);
        assert_eq!(serde_json::from_str::<Timing>(&json).unwrap(), t);
        assert!(serde_json::from_str::<Timing>(r#"{"lunch":{"runs":1,"wall":1,"cpu":1}}"#).is_err());

        let clock = Clock::start();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
        }
        std::hint::black_box(x);
        let s = clock.spent();
        assert_eq!(s.runs, 1);
        assert!(s.wall > 0.0 && s.cpu.is_some_and(|c| c >= 0.0), "{s:?}");
    }
}
