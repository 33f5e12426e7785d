//! The komi values a rule set allows, and the one rounding rule onto them. `ttakji` and every
//! other area-scored rule set play integers (a tie is a real result), territory scoring
//! halves (3.5, 4.5, ...: no ties, as on BrainKing), Loose even integers (`docs/rules.md` §3). A
//! domain is an arithmetic progression in half-points, which lets the komi estimators bisect
//! over it by index; self-play's komi draws, the estimates and the solver's fair komi all stay
//! on it.

use crate::rules::{Komi, Rules, Scoring, Variant};

/// The komi values a rule set allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KomiDomain {
    /// ..., -1, 0, 1, 2, ... (`ttakji`; area scoring in general, so that a draw is possible).
    Integers,
    /// ..., -0.5, 0.5, 1.5, ... (`brainking` and territory scoring: no draws).
    Halves,
    /// ..., -2, 0, 2, 4, ... (Loose).
    EvenIntegers,
}

impl KomiDomain {
    /// The domain of a rule set.
    pub fn of(rules: &Rules) -> KomiDomain {
        match (rules.variant, rules.scoring) {
            (Variant::Loose, _) => KomiDomain::EvenIntegers,
            (_, Scoring::Territory) => KomiDomain::Halves,
            _ => KomiDomain::Integers,
        }
    }

    /// (offset, step) in half-points: the members are `offset + step * i`.
    pub fn progression(self) -> (i64, i64) {
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
}
