//! The exact fair komi of a solved game, within the rule set's komi domain
//! ([`hane_engine::KomiDomain`]).
//!
//! Solved values use one encoding throughout the crate: `value = 4 * margin + tie`, where
//! `margin` is Black's count minus White's without komi and `tie` is +1 (-1) when an equal
//! count is won by Black (White), as in Loose, and 0 where an equal count is a draw. Black
//! wins at komi `k` exactly when `value > 4 * k`, and draws when `value == 4 * k`.

use hane_engine::KomiDomain;
use serde::{Deserialize, Serialize};

/// The exact fair komi of a solved game within a domain.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FairKomi {
    /// The domain searched (serialised by its name).
    #[serde(with = "domain_name")]
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

/// [`KomiDomain`] in JSON: its name, as in reports written before it moved to the engine. For
/// `#[serde(with = "hane_solver::domain::domain_name")]` (the komi search's settings in
/// `hane-eval` use it too).
pub mod domain_name {
    use hane_engine::KomiDomain;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the domain's name.
    pub fn serialize<S: Serializer>(d: &KomiDomain, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match d {
            KomiDomain::Integers => "Integers",
            KomiDomain::Halves => "Halves",
            KomiDomain::EvenIntegers => "EvenIntegers",
        })
    }

    /// Reads a domain from its name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<KomiDomain, D::Error> {
        match String::deserialize(d)?.as_str() {
            "Integers" => Ok(KomiDomain::Integers),
            "Halves" => Ok(KomiDomain::Halves),
            "EvenIntegers" => Ok(KomiDomain::EvenIntegers),
            other => Err(serde::de::Error::custom(format!(
                "komi domain \"{}\": allowed Integers, Halves, EvenIntegers",
                other.escape_debug()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
