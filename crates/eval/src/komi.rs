//! Fair komi from an evaluator, KataGo's way (`docs/references.md`).
//!
//! A [`KomiProbe`] reports, for the empty board at a given komi, Black's expected score lead
//! (komi included) and Black's win probability (a draw counts half): a deep search with a
//! net, or the exact [`hane_solver::Solution`]. [`estimate`] then
//!
//! 1. starts at a komi of the domain and shifts it by the predicted lead, up to
//!    [`KomiSearch::max_shifts`] times, each shift no larger than the one before;
//! 2. grows a window of 1, 2, 4, ... domain steps in the direction of the side that is
//!    ahead until Black's win rate crosses 50%, never further than the first member past
//!    [`KomiSearch::bound`] (see [`KomiSearch::bracket_range`]);
//! 3. bisects over the domain's members for the crossing and interpolates linearly between
//!    the last two members;
//! 4. with [`KomiSearch::smooth`] (area scoring, where scores move in steps of 2), uses at
//!    each komi `k` the average of the win rate at `k - s`, `k`, `k`, `k + s` (`s` one domain
//!    step) instead of the raw one, as KataGo does to smooth over the parity of area counts.
//!
//! Evaluations are cached per komi, and all of them are returned with the estimate. Where
//! the bound is exact ([`KomiSearch::exact_bound`]), komi past it is not evaluated: the
//! rules decide the game there ([`KomiSearch::decided`]).
//! [`curve`] then reads the win rate at every member of a range around the crossing
//! (reusing those evaluations), for charts and for checking the estimate by eye: the
//! bisection alone leaves gaps exactly where a reader wants to see the curve fall.

use hane_engine::rules::{Scoring, Variant};
use hane_engine::KomiDomain;
use hane_engine::{Komi, Outcome, Rules};
use hane_solver::Solution;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// What an evaluator says about the empty board at one komi.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Eval {
    /// Black's expected final lead in points, komi included.
    pub lead: f64,
    /// Black's win probability, a draw counting half.
    pub win: f64,
}

/// Anything that evaluates the empty board at a komi.
pub trait KomiProbe {
    /// The evaluation at komi `k`.
    fn eval(&mut self, k: Komi) -> Eval;
}

impl<F: FnMut(Komi) -> Eval> KomiProbe for F {
    fn eval(&mut self, k: Komi) -> Eval {
        self(k)
    }
}

/// The exact solution as an evaluator: the lead is the margin minus komi, and Black's win
/// probability is 1, 0.5 or 0.
impl KomiProbe for Solution {
    fn eval(&mut self, k: Komi) -> Eval {
        let win = match self.outcome_at(k) {
            Outcome::Black => 1.0,
            Outcome::Draw => 0.5,
            Outcome::White => 0.0,
        };
        Eval { lead: f64::from(self.margin) - k.as_f64(), win }
    }
}

/// Settings of [`estimate`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KomiSearch {
    /// The komi values searched.
    #[serde(with = "hane_solver::domain::domain_name")]
    pub domain: KomiDomain,
    /// Komi in points to start from (rounded into the domain).
    pub start: f64,
    /// Average neighbouring komi values (see the module docs).
    pub smooth: bool,
    /// How often to shift by the predicted lead.
    pub max_shifts: u32,
    /// How many domain steps the bracket may grow to.
    pub max_window: i64,
    /// The largest possible score difference (points): no komi beyond it changes the
    /// result, so shifts stay within it and the bracket goes at most one member past it
    /// ([`KomiSearch::bracket_range`]).
    pub bound: f64,
    /// Whether no score difference can exceed [`KomiSearch::bound`] (area and stone
    /// scoring; territory's prisoners have no such cap): past it the rules decide every
    /// game, so the search takes the decided result there ([`KomiSearch::decided`])
    /// instead of asking the evaluator about a komi no game can be played at.
    #[serde(default)]
    pub exact_bound: bool,
}

impl KomiSearch {
    /// The search for a rule set: its domain, starting at its komi, smoothing under area
    /// scoring, 3 shifts and a window of up to 64 steps, bounded by the board's area (twice
    /// that under territory scoring, where prisoners count too).
    pub fn for_rules(rules: &Rules) -> KomiSearch {
        let area = f64::from(rules.size) * f64::from(rules.size);
        let territory = rules.scoring == Scoring::Territory && rules.variant == Variant::Go;
        KomiSearch {
            domain: KomiDomain::of(rules),
            start: rules.komi.as_f64(),
            smooth: rules.scoring == Scoring::Area,
            max_shifts: 3,
            max_window: 64,
            bound: if territory { 2.0 * area } else { area },
            exact_bound: rules.scoring != Scoring::Territory,
        }
    }

    /// The result the rules decide at komi `k` when the bound is exact and `k` lies past
    /// it: Black loses every game when `k` exceeds the largest margin and wins every game
    /// when `-k` does, the lead being that margin less the komi. A net, asked there, can
    /// only extrapolate from komi values it was trained at, and its reading past the bound
    /// would move the crossing of a board whose fair komi is the bound itself (5x5 area Go).
    pub fn decided(&self, k: Komi) -> Option<Eval> {
        let k = k.as_f64();
        if !self.exact_bound || k.abs() <= self.bound {
            return None;
        }
        Some(if k > 0.0 {
            Eval { lead: self.bound - k, win: 0.0 }
        } else {
            Eval { lead: -self.bound - k, win: 1.0 }
        })
    }

    /// The indices of the smallest and largest domain members within the bound: where the
    /// shifts by the lead may land.
    fn index_range(&self) -> (i64, i64) {
        let d = self.domain;
        let half_points = (2.0 * self.bound.abs()).floor() as i32;
        let top = d.index_floor(Komi(half_points));
        let bottom = d.index_floor(Komi(-half_points));
        let bottom = if d.nth(bottom).0 < -half_points { bottom + 1 } else { bottom };
        (bottom, top)
    }

    /// The indices of the smallest and largest members the bracket may reach: one member
    /// past the bound on each side.
    ///
    /// Why past it: the fair komi can *be* the bound. On 5x5 area Go perfect play gives
    /// Black the whole board, so Black wins at komi 24, draws at 25 and loses from 26 on;
    /// under 3x3 area Go the same happens at 9 (`tests/komi_at_the_area.rs`). A net that
    /// rates komi 25 a little better than even for Black then has its 50% crossing between
    /// 25 and 26, and only an evaluation at 26 (with smoothing, also at 27) can show it;
    /// Loose, whose domain steps by 2, needs the member past the area even for an exact
    /// evaluator whose Black wins at every komi below it. Past the bound the result is
    /// decided (no score difference exceeds it), so the extra member costs at most one
    /// evaluation (none where the bound is exact) and cannot move the crossing into komi
    /// the board cannot produce by more than one step.
    pub fn bracket_range(&self) -> (i64, i64) {
        let (bottom, top) = self.index_range();
        (bottom - 1, top + 1)
    }

    /// The indices of the smallest and largest members [`estimate`] may evaluate: the
    /// bracket's range, widened by the smoothing's neighbours.
    pub fn reach(&self) -> (i64, i64) {
        let (bottom, top) = self.bracket_range();
        let s = i64::from(self.smooth);
        (bottom - s, top + s)
    }
}

/// Half the width, in points, of the [`curve`] of a rule set: half the board's area, at
/// least 6 points (a few members even on tiny boards and in Loose's steps of 2) and at most
/// 20 (a 19x19 net's curve has long flattened out by then, and each member costs a deep
/// search).
pub fn curve_span(rules: &Rules) -> f64 {
    let area = f64::from(rules.size) * f64::from(rules.size);
    (area / 2.0).clamp(6.0, 20.0)
}

/// One evaluation made during the search.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KomiPoint {
    /// Komi in points.
    pub komi: f64,
    /// The evaluation there.
    pub eval: Eval,
}

/// The result of [`estimate`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KomiEstimate {
    /// The komi (points) where Black's (smoothed) win rate crosses 50%, interpolated.
    pub crossing: f64,
    /// The member of the domain nearest the crossing (the smaller one on a tie).
    pub fair: f64,
    /// The largest member evaluated with Black's win rate at least 50%.
    pub black_side: f64,
    /// The smallest member evaluated with Black's win rate at most 50%.
    pub white_side: f64,
    /// Every evaluation, in the order made (a decided result past an exact bound is none).
    pub evaluations: Vec<KomiPoint>,
}

/// Why no estimate came out.
#[derive(Clone, Debug, PartialEq)]
pub enum KomiError {
    /// The win rate did not cross 50% within the window.
    NoCrossing {
        /// The last komi (points) tried.
        komi: f64,
    },
}

impl fmt::Display for KomiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KomiError::NoCrossing { komi } => {
                write!(f, "Black's win rate does not cross 50% up to komi {komi}")
            }
        }
    }
}

impl std::error::Error for KomiError {}

/// Evaluations cached per komi (half-points), in the order made; past an exact bound the
/// decided result stands in for one (cached, but not an evaluation).
struct Cache<'a> {
    search: &'a KomiSearch,
    evaluator: &'a mut dyn KomiProbe,
    seen: BTreeMap<i32, Eval>,
    order: Vec<KomiPoint>,
}

impl<'a> Cache<'a> {
    fn new(search: &'a KomiSearch, evaluator: &'a mut dyn KomiProbe) -> Cache<'a> {
        Cache { search, evaluator, seen: BTreeMap::new(), order: Vec::new() }
    }

    fn get(&mut self, k: Komi) -> Eval {
        if let Some(e) = self.seen.get(&k.0) {
            return *e;
        }
        let e = match self.search.decided(k) {
            Some(e) => e,
            None => {
                let e = self.evaluator.eval(k);
                self.order.push(KomiPoint { komi: k.as_f64(), eval: e });
                e
            }
        };
        self.seen.insert(k.0, e);
        e
    }
}

/// Estimates the fair komi (see the module docs).
pub fn estimate(search: &KomiSearch, evaluator: &mut dyn KomiProbe) -> Result<KomiEstimate, KomiError> {
    let d = search.domain;
    let (bottom, top) = search.index_range();
    let within = |k: Komi| d.nth(d.index_floor(k).clamp(bottom, top));
    let (bottom, top) = search.bracket_range();
    let mut cache = Cache::new(search, evaluator);
    // 1. Shift by the lead.
    let mut k = within(d.nearest(search.start));
    let mut limit = f64::INFINITY;
    for _ in 0..search.max_shifts {
        let shift = cache.get(k).lead.clamp(-limit, limit);
        limit = shift.abs();
        let next = within(d.nearest(k.as_f64() + shift));
        if next == k {
            break;
        }
        k = next;
    }
    // Black's win rate minus one half, smoothed if asked, at the domain member of index i.
    let mut f = |i: i64| {
        let mut at = |j: i64| cache.get(d.nth(j)).win - 0.5;
        if search.smooth {
            (at(i - 1) + 2.0 * at(i) + at(i + 1)) / 4.0
        } else {
            at(i)
        }
    };
    // 2. Bracket the crossing: f(lo) >= 0 >= f(hi).
    let i0 = d.index_floor(k);
    let f0 = f(i0);
    let (mut lo, mut hi) = (i0, i0);
    let (mut f_lo, mut f_hi) = (f0, f0);
    let mut w = 1;
    while (f_lo < 0.0 || f_hi > 0.0) && w <= search.max_window {
        if f0 > 0.0 {
            let i = (i0 + w).min(top);
            if i <= hi {
                break;
            }
            let v = f(i);
            if v <= 0.0 {
                (hi, f_hi) = (i, v);
            } else {
                (lo, f_lo, hi, f_hi) = (i, v, i, v);
            }
        } else {
            let i = (i0 - w).max(bottom);
            if i >= lo {
                break;
            }
            let v = f(i);
            if v >= 0.0 {
                (lo, f_lo) = (i, v);
            } else {
                (lo, f_lo, hi, f_hi) = (i, v, i, v);
            }
        }
        w *= 2;
    }
    if f_lo < 0.0 || f_hi > 0.0 {
        return Err(KomiError::NoCrossing { komi: d.nth(if f0 > 0.0 { hi } else { lo }).as_f64() });
    }
    // 3. Bisect between members.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let v = f(mid);
        if v > 0.0 {
            (lo, f_lo) = (mid, v);
        } else if v < 0.0 {
            (hi, f_hi) = (mid, v);
        } else {
            (lo, f_lo, hi, f_hi) = (mid, v, mid, v);
        }
    }
    let (k_lo, k_hi) = (d.nth(lo).as_f64(), d.nth(hi).as_f64());
    let crossing =
        if f_lo == f_hi { (k_lo + k_hi) / 2.0 } else { k_lo + (k_hi - k_lo) * f_lo / (f_lo - f_hi) };
    Ok(KomiEstimate {
        crossing,
        fair: d.nearest(crossing).as_f64(),
        black_side: k_lo,
        white_side: k_hi,
        evaluations: cache.order,
    })
}

/// Black's raw win rate at every domain member within `span` points of the estimate's
/// crossing that [`estimate`] could have evaluated ([`KomiSearch::reach`]), in increasing
/// komi. Members the estimate evaluated are taken from it; the others are evaluated now,
/// in order of komi.
///
/// The estimate alone evaluates only the bracket and the bisection's points, which leave
/// gaps exactly where the win rate falls; a curve at every member shows how sharp the fall
/// is and whether it is monotone, which a single crossing cannot (KataGo's books likewise
/// report the win rate at the neighbouring integer komi, `docs/references.md`).
pub fn curve(
    search: &KomiSearch,
    estimate: &KomiEstimate,
    span: f64,
    evaluator: &mut dyn KomiProbe,
) -> Vec<KomiPoint> {
    let mut cache = Cache::new(search, evaluator);
    for p in &estimate.evaluations {
        cache.seen.insert((2.0 * p.komi).round() as i32, p.eval);
    }
    curve_members(search, estimate, span)
        .into_iter()
        .map(|k| KomiPoint { komi: k.as_f64(), eval: cache.get(k) })
        .collect()
}

/// The members of the domain [`curve`] covers, in increasing komi.
pub fn curve_members(search: &KomiSearch, estimate: &KomiEstimate, span: f64) -> Vec<Komi> {
    let d = search.domain;
    let (bottom, top) = search.reach();
    let lo = d.index_floor(Komi((2.0 * (estimate.crossing - span)).ceil() as i32));
    let lo = if d.nth(lo).as_f64() < estimate.crossing - span { lo + 1 } else { lo };
    let hi = d.index_floor(Komi((2.0 * (estimate.crossing + span)).floor() as i32));
    (lo.max(bottom)..=hi.min(top)).map(|i| d.nth(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A smooth evaluator: Black's lead is `fair - komi`, the win rate logistic in the lead.
    fn smooth(fair: f64) -> impl FnMut(Komi) -> Eval {
        move |k: Komi| {
            let lead = fair - k.as_f64();
            Eval { lead, win: 1.0 / (1.0 + (-lead / 2.0).exp()) }
        }
    }

    fn search(domain: KomiDomain, start: f64, smooth: bool) -> KomiSearch {
        KomiSearch { domain, start, smooth, max_shifts: 3, max_window: 64, bound: 100.0, exact_bound: false }
    }

    #[test]
    fn a_smooth_win_rate_crosses_where_the_lead_vanishes() {
        for fair in [6.3, -2.75, 24.6, 0.0] {
            for domain in [KomiDomain::Integers, KomiDomain::Halves, KomiDomain::EvenIntegers] {
                for smoothing in [false, true] {
                    let est = estimate(&search(domain, 7.0, smoothing), &mut smooth(fair)).unwrap();
                    // Linear interpolation of a logistic between neighbouring members.
                    assert!((est.crossing - fair).abs() < 0.2, "{fair} {domain:?}: {est:?}");
                    assert!(est.black_side <= fair && fair <= est.white_side, "{est:?}");
                }
            }
        }
    }

    #[test]
    fn a_lead_that_lies_is_corrected_by_the_bracket() {
        // The lead says 0 everywhere; only the win rate knows the crossing (at 20).
        let mut e = |k: Komi| Eval { lead: 0.0, win: if k.as_f64() < 20.0 { 1.0 } else { 0.0 } };
        let est = estimate(&search(KomiDomain::Integers, 0.0, false), &mut e).unwrap();
        assert_eq!((est.black_side, est.white_side, est.crossing), (19.0, 20.0, 19.5));
        let mut never = |_: Komi| Eval { lead: 0.0, win: 1.0 };
        assert!(estimate(&search(KomiDomain::Integers, 0.0, false), &mut never).is_err());
    }

    #[test]
    fn the_search_stays_within_the_bound() {
        // A lead far beyond the board and a Black win at every komi: the search gives up one
        // member past the bound (25, a 5x5 board's area), evaluating nothing further out
        // than the smoothing's neighbour of that member.
        for smoothing in [false, true] {
            let mut s = search(KomiDomain::Integers, 7.0, smoothing);
            s.bound = 25.0;
            let mut asked = Vec::new();
            let mut always_black = |k: Komi| {
                asked.push(k.as_f64());
                Eval { lead: 1000.0, win: 1.0 }
            };
            assert_eq!(estimate(&s, &mut always_black), Err(KomiError::NoCrossing { komi: 26.0 }));
            let reach = if smoothing { 27.0 } else { 26.0 };
            assert!(asked.iter().all(|k| k.abs() <= reach), "{asked:?}");
            assert!(asked.contains(&reach), "{asked:?}");
            // Within the bound the crossing is found as before.
            let est = estimate(&s, &mut smooth(-24.0)).unwrap();
            assert!((est.crossing + 24.0).abs() < 0.2, "{est:?}");
        }
    }

    /// Perfect play where Black takes the whole 5x5 board (area 25): Black wins below 25,
    /// draws at 25, loses above; `at_area` replaces the win rate at 25 (a net that does not
    /// see the draw exactly). The lead is Black's margin minus komi, or 0 (a lead that says
    /// nothing) when `lying`.
    fn whole_board(at_area: f64, lying: bool) -> impl FnMut(Komi) -> Eval {
        move |k: Komi| {
            let k = k.as_f64();
            let win = if k < 25.0 {
                1.0
            } else if k == 25.0 {
                at_area
            } else {
                0.0
            };
            Eval { lead: if lying { 0.0 } else { 25.0 - k }, win }
        }
    }

    #[test]
    fn a_crossing_at_the_bound_is_found() {
        for smoothing in [false, true] {
            for (start, lying) in [(7.0, false), (7.0, true), (-20.0, true), (40.0, true)] {
                let mut s = search(KomiDomain::Integers, start, smoothing);
                s.bound = 25.0;
                // The exact result: the crossing is the area.
                let est = estimate(&s, &mut whole_board(0.5, lying)).unwrap();
                assert_eq!((est.crossing, est.fair), (25.0, 25.0), "{smoothing} {start}: {est:?}");
                // A net that rates komi 25 as 0.8 for Black: the crossing lies between 25
                // and 26, and finding it needs the win rate at 26 (and 27 when smoothing).
                // Smoothed: f(25) = (1 + 1.6 + 0) / 4 - 0.5 = 0.15, f(26) = 0.8 / 4 - 0.5
                // = -0.3, so 25 + 0.15 / 0.45; raw: 0.3 / 0.8 past 25.
                let est = estimate(&s, &mut whole_board(0.8, lying)).unwrap();
                let want = if smoothing { 25.0 + 1.0 / 3.0 } else { 25.375 };
                assert!((est.crossing - want).abs() < 1e-12, "{smoothing} {start}: {est:?}");
                assert_eq!((est.black_side, est.white_side, est.fair), (25.0, 26.0, 25.0));
            }
        }
        // Loose: even komi only, and Black wins every even komi up to the area 25 (an equal
        // count cannot happen); the crossing lies between 24 and 26, past the bound.
        let mut s = search(KomiDomain::EvenIntegers, 0.0, false);
        s.bound = 25.0;
        let mut e = |k: Komi| Eval { lead: 0.0, win: if k.as_f64() < 25.0 { 1.0 } else { 0.0 } };
        let est = estimate(&s, &mut e).unwrap();
        assert_eq!((est.black_side, est.white_side, est.crossing, est.fair), (24.0, 26.0, 25.0, 24.0));
    }

    #[test]
    fn past_an_exact_bound_the_rules_decide_not_the_evaluator() {
        // A net that draws at the area but hallucinates Black wins past it, where no game
        // can be won: with the bound exact, only komi within the area is asked, and the
        // crossing is the area (5x5: 25) however the net extrapolates.
        for smoothing in [false, true] {
            for start in [7.0, 25.0, 40.0] {
                let mut s = search(KomiDomain::Integers, start, smoothing);
                (s.bound, s.exact_bound) = (25.0, true);
                let mut asked = Vec::new();
                let mut e = |k: Komi| {
                    let k = k.as_f64();
                    asked.push(k);
                    let win = if k < 25.0 {
                        1.0
                    } else if k == 25.0 {
                        0.5
                    } else {
                        0.9
                    };
                    Eval { lead: 25.0 - k, win }
                };
                let est = estimate(&s, &mut e).unwrap();
                assert_eq!((est.crossing, est.fair), (25.0, 25.0), "{smoothing} {start}: {est:?}");
                let c = curve(&s, &est, 12.5, &mut e);
                assert!(asked.iter().all(|k| k.abs() <= 25.0), "{asked:?}");
                assert!(c.iter().filter(|p| p.komi > 25.0).all(|p| p.eval.win == 0.0), "{c:?}");
                assert!(c.iter().any(|p| p.komi == 26.0), "{c:?}");
            }
        }
        // Below minus the bound Black wins everything; within it nothing is decided.
        let mut s = search(KomiDomain::Integers, 0.0, false);
        (s.bound, s.exact_bound) = (9.0, true);
        assert_eq!(s.decided(Komi::from_f64(-10.0).unwrap()), Some(Eval { lead: 1.0, win: 1.0 }));
        assert_eq!(s.decided(Komi::from_f64(9.0).unwrap()), None);
        s.exact_bound = false;
        assert_eq!(s.decided(Komi::from_f64(30.0).unwrap()), None);
    }

    #[test]
    fn the_curve_covers_the_span_within_reach() {
        let mut s = search(KomiDomain::Integers, 7.0, true);
        s.bound = 25.0;
        let calls = std::cell::RefCell::new(Vec::new());
        let mut e = |k: Komi| {
            calls.borrow_mut().push(k.as_f64());
            whole_board(0.5, false)(k)
        };
        let est = estimate(&s, &mut e).unwrap();
        let before = calls.borrow().len();
        let c = curve(&s, &est, 12.5, &mut e);
        let calls = calls.into_inner();
        // 12.5 to 37.5 around 25, clipped at 27 (the member past the bound and its
        // smoothing neighbour).
        let ks: Vec<f64> = c.iter().map(|p| p.komi).collect();
        assert_eq!(ks, (13..=27).map(f64::from).collect::<Vec<_>>());
        assert!(c.iter().all(|p| p.eval == whole_board(0.5, false)(Komi::from_f64(p.komi).unwrap())));
        // Only members the estimate did not evaluate are evaluated again, once each.
        let new: Vec<f64> = calls[before..].to_vec();
        assert!(new.iter().all(|k| !est.evaluations.iter().any(|p| p.komi == *k)), "{new:?}");
        assert_eq!(before + new.len(), calls.len());
        assert_eq!(
            new.len() + est.evaluations.iter().filter(|p| (13.0..=27.0).contains(&p.komi)).count(),
            15
        );
        // Loose's members step by 2; the bound clips below as well.
        let mut s = search(KomiDomain::EvenIntegers, 0.0, false);
        s.bound = 9.0;
        let mut e = |k: Komi| Eval { lead: 0.0, win: if k.as_f64() < 7.0 { 1.0 } else { 0.0 } };
        let est = estimate(&s, &mut e).unwrap();
        let ks: Vec<f64> = curve(&s, &est, 20.0, &mut e).iter().map(|p| p.komi).collect();
        assert_eq!(ks, vec![-10.0, -8.0, -6.0, -4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    }

    #[test]
    fn evaluations_are_cached() {
        let mut calls = 0;
        let mut e = |k: Komi| {
            calls += 1;
            smooth(5.0)(k)
        };
        let est = estimate(&search(KomiDomain::Integers, 7.0, true), &mut e).unwrap();
        assert_eq!(calls, est.evaluations.len());
        let mut ks: Vec<f64> = est.evaluations.iter().map(|p| p.komi).collect();
        ks.sort_by(f64::total_cmp);
        ks.dedup();
        assert_eq!(ks.len(), calls);
    }
}
