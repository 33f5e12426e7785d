//! Komi randomisation, as KataGo does it, plus a share of wide draws: each game draws its komi
//! so that the net sees how the result depends on komi. Draws respect each rule set's komi
//! domain.
//!
//! KataGo (`docs/references.md`) centres self-play komi on the net's fair komi with a small
//! spread (`komiStdev = 1.0` scaled by √area/19) and takes 6% of its games from a wider
//! normal. A small board shows why the wide share matters more there: a net that only ever
//! saw komi near one value learns nothing about the rest of the win-rate curve and places its
//! crossing wherever self-play was centred. Here a fraction `wide` of the games take a komi
//! uniformly from every member of the domain within the board's largest possible score
//! difference (one step beyond it on each side, where the result is already decided), so the
//! whole curve is trained whatever the centre.

use hane_engine::rng::Rng;
use hane_engine::rules::Komi;
use hane_engine::{KomiDomain, Rules};

/// How each game's komi is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KomiDraw {
    /// Standard deviation of the normal draw around the rules' komi, in points (0: exactly it).
    pub stdev: f32,
    /// Probability of a wide draw instead (uniform over the domain within the board's range).
    pub wide: f32,
}

/// The domain members a wide draw takes: every member within the board's area of 0, and one
/// more step on each side (a player cannot win by more than the area).
pub fn wide_range(r: &Rules) -> Vec<Komi> {
    let domain = KomiDomain::of(r);
    let area = 2 * i32::from(r.size) * i32::from(r.size);
    // The largest member within the area, and the smallest one within minus the area.
    let highest = domain.index_floor(Komi(area));
    let below = domain.index_floor(Komi(-area));
    let lowest = if domain.contains(Komi(-area)) { below } else { below + 1 };
    (lowest - 1..=highest + 1).map(|n| domain.nth(n)).collect()
}

/// A komi for one game: with probability `d.wide` uniform over [`wide_range`], else a normal
/// draw around the rules' komi with `d.stdev` points, rounded to the nearest member of the
/// domain ([`KomiDomain::nearest`]) and kept where both sides can still win or draw: the
/// interior of [`wide_range`], within the board's area of 0. A draw outside it is drawn
/// again (a normal truncated to that range), so a centre near the edge of the board's range
/// does not spend games on a komi whose result the board already decides.
pub fn randomise(r: &Rules, d: KomiDraw, rng: &mut Rng) -> Komi {
    let range = wide_range(r);
    if d.wide > 0.0 && rng.unit() < f64::from(d.wide) {
        return range[rng.below(range.len())];
    }
    if d.stdev <= 0.0 {
        return r.komi;
    }
    let (lo, hi) = (range[1], range[range.len() - 2]);
    let domain = KomiDomain::of(r);
    // Past a few hundred tries the centre itself lies far outside; the nearest end then.
    for _ in 0..256 {
        let k = domain.nearest(r.komi.as_f64() + f64::from(d.stdev) * rng.normal());
        if (lo..=hi).contains(&k) {
            return k;
        }
    }
    r.komi.clamp(lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_each_domain() {
        let mut rng = Rng::new(7);
        for (spec, check) in [
            ("loose", (|k: i32| k % 4 == 0) as fn(i32) -> bool),
            ("ttakji", |k| k % 2 == 0),
            ("brainking", |k| k.rem_euclid(2) == 1),
            ("sligo", |k| k % 2 == 0),
        ] {
            let r: Rules = spec.parse().unwrap();
            let mut distinct = std::collections::BTreeSet::new();
            for wide in [0.0, 0.5] {
                for _ in 0..200 {
                    let k = randomise(&r, KomiDraw { stdev: 2.0, wide }, &mut rng);
                    assert!(check(k.0), "{spec}: {k}");
                    let mut r2 = r;
                    r2.komi = k;
                    assert!(r2.validate().is_ok(), "{spec}: {k}");
                    distinct.insert(k.0);
                }
            }
            assert!(distinct.len() > 2, "{spec}: komi should vary");
        }
        let r: Rules = "ttakji".parse().unwrap();
        assert_eq!(randomise(&r, KomiDraw { stdev: 0.0, wide: 0.0 }, &mut rng), r.komi);
    }

    #[test]
    fn normal_draws_stay_where_both_sides_can_win() {
        // 5x5 area Go centred on the fair komi 25 (the whole board): nothing above 25,
        // however wide the spread, and still some draws at 25 and below.
        let r: Rules = "ttakji,size=5,komi=25".parse().unwrap();
        let mut rng = Rng::new(11);
        let draws: Vec<i32> =
            (0..4000).map(|_| randomise(&r, KomiDraw { stdev: 4.0, wide: 0.0 }, &mut rng).0).collect();
        assert!(draws.iter().all(|&k| (-50..=50).contains(&k)), "{:?}", draws.iter().max());
        assert!(draws.iter().filter(|&&k| k == 50).count() > 500);
        assert!(draws.iter().filter(|&&k| k < 44).count() > 500);
        // Territory Go on 7x7 (halves) and Loose (even integers) likewise keep to their range.
        for spec in ["brainking,size=7,komi=48.5", "loose,size=5,komi=-30", "sligo,size=4,komi=16"] {
            let r: Rules = spec.parse().unwrap();
            let range = wide_range(&r);
            let (lo, hi) = (range[1], range[range.len() - 2]);
            for _ in 0..2000 {
                let k = randomise(&r, KomiDraw { stdev: 6.0, wide: 0.0 }, &mut rng);
                assert!(lo <= k && k <= hi, "{spec}: {k}");
            }
        }
        // A centre far outside the range gives the nearest end.
        let far: Rules = "ttakji,size=3,komi=300".parse().unwrap();
        assert_eq!(randomise(&far, KomiDraw { stdev: 1.0, wide: 0.0 }, &mut rng), Komi(18));
    }

    #[test]
    fn wide_draws_cover_the_whole_board_range_evenly() {
        // 5x5 area Go: every integer from -26 to 26, whatever the centre.
        let r: Rules = "ttakji,size=5,komi=7".parse().unwrap();
        let range = wide_range(&r);
        assert_eq!((range[0].as_f64(), range[range.len() - 1].as_f64(), range.len()), (-26.0, 26.0, 53));
        let mut rng = Rng::new(3);
        let mut counts = std::collections::BTreeMap::new();
        for _ in 0..53_000 {
            *counts.entry(randomise(&r, KomiDraw { stdev: 1.0, wide: 1.0 }, &mut rng).0).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 53);
        assert!(counts.values().all(|&n| (800..1200).contains(&n)), "{counts:?}");
        // Loose: even integers only.
        let loose: Rules = "loose,size=3".parse().unwrap();
        let range: Vec<f64> = wide_range(&loose).iter().map(|k| k.as_f64()).collect();
        assert_eq!(range, (-5..=5).map(|i| f64::from(2 * i)).collect::<Vec<_>>());
    }
}
