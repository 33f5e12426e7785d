//! Komi domains and exact fair komi.
//!
//! A rule set only allows some komi values (`RULES.md`): `ttakji` integers (a tie is a real
//! result), `brainking` halves (3.5, 4.5, ...: no ties), Loose even integers (ties are broken
//! against the last placer). A domain is an arithmetic progression in half-points, which lets
//! the estimators bisect over it by index.
//!
//! Solved values use one encoding throughout the crate: `value = 4 * margin + tie`, where
//! `margin` is Black's count minus White's without komi and `tie` is +1 (-1) when an equal
//! count is won by Black (White), as in Loose, and 0 where an equal count is a draw. Black
//! wins at komi `k` exactly when `value > 4 * k`, and draws when `value == 4 * k`.

use hane_engine::{Komi, Rules};
use serde::{Deserialize, Serialize};

/// The komi values a rule set allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KomiDomain {
    /// ..., -1, 0, 1, 2, ... (`ttakji`; area scoring in general, so that a draw is possible).
    Integers,
    /// ..., -0.5, 0.5, 1.5, ... (`brainking` and territory scoring: no draws).
    Halves,
    /// ..., -2, 0, 2, 4, ... (Loose).
    EvenIntegers,
}

impl KomiDomain {
    /// The domain of a rule set ([`Rules::komi_progression`]).
    pub fn of(rules: &Rules) -> KomiDomain {
        match rules.komi_progression() {
            (0, 4) => KomiDomain::EvenIntegers,
            (1, 2) => KomiDomain::Halves,
            _ => KomiDomain::Integers,
        }
    }

    /// (offset, step) in half-points: the members are `offset + step * i`.
    fn progression(self) -> (i64, i64) {
        match self {
            KomiDomain::Integers => (0, 2),
            KomiDomain::Halves => (1, 2),
            KomiDomain::EvenIntegers => (0, 4),
        }
    }

    /// The `i`-th member (member 0 is 0, or 0.5 for halves).
    pub fn nth(self, i: i64) -> Komi {
        let (offset, step) = self.progression();
        Komi((offset + step * i) as i32)
    }

    /// The index of a member, or of the largest member below a non-member.
    pub fn index_floor(self, k: Komi) -> i64 {
        let (offset, step) = self.progression();
        (i64::from(k.0) - offset).div_euclid(step)
    }

    /// Whether the domain holds `k`.
    pub fn contains(self, k: Komi) -> bool {
        self.nth(self.index_floor(k)) == k
    }

    /// The member nearest to `points`; halfway between two members, the smaller one.
    pub fn nearest(self, points: f64) -> Komi {
        let (offset, step) = self.progression();
        let y = (2.0 * points - offset as f64) / step as f64;
        self.nth((y - 0.5).ceil() as i64)
    }
}

/// The exact fair komi of a solved game within a domain.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FairKomi {
    /// The domain searched.
    pub domain: KomiDomain,
    /// The komi at which perfect play draws, when the domain holds it.
    pub draw: Option<f64>,
    /// The largest komi of the domain at which Black wins with perfect play.
    pub black_wins_up_to: f64,
    /// The smallest komi of the domain at which White wins with perfect play.
    pub white_wins_from: f64,
}

impl FairKomi {
    /// The fair komi for a solved value (see the module docs for the encoding).
    pub fn from_value(value: i32, domain: KomiDomain) -> FairKomi {
        // With komi index i (komi 2k = offset + step*i half-points): Black wins when
        // value > 2 * (offset + step*i), i.e. i < (value - 2*offset) / (2*step).
        let (offset, step) = domain.progression();
        let num = i64::from(value) - 2 * offset;
        let den = 2 * step;
        let floor = num.div_euclid(den);
        let exact = num.rem_euclid(den) == 0;
        let last_black = if exact { floor - 1 } else { floor };
        FairKomi {
            domain,
            draw: exact.then(|| domain.nth(floor).as_f64()),
            black_wins_up_to: domain.nth(last_black).as_f64(),
            white_wins_from: domain.nth(floor + 1).as_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_follow_the_rules() {
        let d = |s: &str| KomiDomain::of(&s.parse().unwrap());
        assert_eq!(d("ttakji"), KomiDomain::Integers);
        assert_eq!(d("brainking"), KomiDomain::Halves);
        assert_eq!(d("loose"), KomiDomain::EvenIntegers);
        assert_eq!(d("sligo"), KomiDomain::Integers);
    }

    #[test]
    fn members_and_rounding() {
        assert_eq!(KomiDomain::Halves.nth(3), Komi(7));
        assert_eq!(KomiDomain::EvenIntegers.nth(-1), Komi(-4));
        assert!(KomiDomain::Halves.contains(Komi(-1)));
        assert!(!KomiDomain::Halves.contains(Komi(2)));
        assert!(!KomiDomain::EvenIntegers.contains(Komi(2)));
        assert_eq!(KomiDomain::Integers.nearest(6.5), Komi(12));
        assert_eq!(KomiDomain::Integers.nearest(6.6), Komi(14));
        assert_eq!(KomiDomain::Halves.nearest(7.0), Komi(13));
        assert_eq!(KomiDomain::EvenIntegers.nearest(-3.0), Komi(-8));
        assert_eq!(KomiDomain::EvenIntegers.index_floor(Komi(-2)), -1);
    }

    #[test]
    fn fair_komi_per_domain() {
        // Black +9 with draws allowed.
        let f = FairKomi::from_value(36, KomiDomain::Integers);
        assert_eq!((f.draw, f.black_wins_up_to, f.white_wins_from), (Some(9.0), 8.0, 10.0));
        let f = FairKomi::from_value(36, KomiDomain::Halves);
        assert_eq!((f.draw, f.black_wins_up_to, f.white_wins_from), (None, 8.5, 9.5));
        // Loose: Black +3 where White wins an equal count: value 11; komi 2 Black, komi 4 White.
        let f = FairKomi::from_value(11, KomiDomain::EvenIntegers);
        assert_eq!((f.draw, f.black_wins_up_to, f.white_wins_from), (None, 2.0, 4.0));
        // Loose: Black +2 and Black wins equal counts: value 9 > 4*2, so komi 2 is still Black's.
        let f = FairKomi::from_value(9, KomiDomain::EvenIntegers);
        assert_eq!((f.black_wins_up_to, f.white_wins_from), (2.0, 4.0));
        let f = FairKomi::from_value(7, KomiDomain::EvenIntegers);
        assert_eq!((f.black_wins_up_to, f.white_wins_from), (0.0, 2.0));
        let f = FairKomi::from_value(-4, KomiDomain::Integers);
        assert_eq!((f.draw, f.black_wins_up_to, f.white_wins_from), (Some(-1.0), -2.0, 0.0));
    }
}
