//! Rule sets as data: every rule is a field, and a preset is a named set of fields.
//!
//! `Rules` parses from and prints to a string. A string is a preset name optionally followed
//! by `,key=value` overrides, e.g. `ttakji`, `brainking,size=13`, `tromp-taylor,komi=7.5`;
//! each key at most once.
//! Printing gives the preset name when the fields equal a preset at that size, else the
//! nearest preset (same variant) plus the differing fields.

use crate::range::Allowed;
use std::fmt;
use std::str::FromStr;

/// The board sides a rule set may have (Loose: the odd ones from 3).
pub const SIZES: Allowed<u8> = Allowed::closed(2, 19);

/// The komi a rule set may have, in points (a multiple of one half within this).
pub const KOMI: Allowed<f64> = Allowed::closed(-1000.0, 1000.0);

/// Which game family a rule set belongs to; decides how a turn is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Go: captures remove stones.
    Go,
    /// Loose: groups without a true liberty are flipped.
    Loose,
    /// Sligo: optional slide, then a placement; no weak pairs.
    Sligo,
}

/// How a finished position is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// Stones plus empty points reaching only one colour.
    Area,
    /// Territory minus own stones captured minus own dead stones (BrainKing / Japanese).
    Territory,
    /// Stones on the board only (Loose).
    Stones,
}

/// Which repetitions are forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// Nothing is forbidden (Loose and Sligo cannot repeat; Sligo still counts repeats).
    None,
    /// A move may not recreate the position after the same player's previous move.
    Simple,
    /// A move may not recreate any earlier whole-board colouring.
    Positional,
}

/// How dead stones are found before counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeadStones {
    /// Everything on the board is alive (Tromp-Taylor, Loose, Sligo).
    None,
    /// Stones inside the opponent's pass-alive territory (Benson) are dead; doubtful = alive.
    PassAlive,
    /// Pass-alive analysis, then seeded playout ownership for the remaining groups
    /// (documented in `score::dead_by_playouts`); for territory scoring in machine play.
    Playouts,
}

/// A game-length cap: after this many turns (passes count) the game is scored as if both
/// players had passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveCap {
    /// No cap beyond the engine's safety limit of `16 * N * N` turns.
    None,
    /// A fixed number of turns.
    Fixed(u32),
    /// A multiple of the number of board points.
    PerPoint(u32),
}

/// Komi stored exactly in half-points, added to White's total.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Komi(pub i32);

impl Komi {
    /// Komi from a float that must be a multiple of one half within [`KOMI`].
    pub fn from_f64(k: f64) -> Option<Komi> {
        let h = k * 2.0;
        (h == h.round() && KOMI.contains(k)).then_some(Komi(h as i32))
    }

    /// Komi as a float.
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl fmt::Display for Komi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_f64())
    }
}

/// A complete rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Game family.
    pub variant: Variant,
    /// Board side, within [`SIZES`] (Loose: odd, at least 3).
    pub size: u8,
    /// Counting method.
    pub scoring: Scoring,
    /// Repetition rule.
    pub ko: KoRule,
    /// Whether a move may leave its own (multi-stone) chain without liberties, which then is removed.
    pub suicide: bool,
    /// Komi for White.
    pub komi: Komi,
    /// Dead-stone determination before counting.
    pub dead: DeadStones,
    /// Game-length cap.
    pub cap: MoveCap,
}

/// Names of the presets, in the order they are listed to users.
pub const PRESETS: [&str; 7] =
    ["ttakji", "brainking", "loose", "sligo", "chinese", "japanese", "tromp-taylor"];

crate::message_error!(
    /// A rule string or field value that does not parse or is inconsistent.
    RulesError
);

fn err<T>(msg: impl Into<String>) -> Result<T, RulesError> {
    Err(RulesError(msg.into()))
}

impl Rules {
    /// The preset `name` at its home size (9x9 for all of them).
    pub fn preset(name: &str) -> Result<Rules, RulesError> {
        Rules::preset_sized(name, 9)
    }

    /// The preset `name` at board size `size`, with the size-dependent default komi.
    pub fn preset_sized(name: &str, size: u8) -> Result<Rules, RulesError> {
        let go = |scoring, ko, suicide, komi: f64, dead, cap| Rules {
            variant: Variant::Go,
            size,
            scoring,
            ko,
            suicide,
            komi: Komi::from_f64(komi).expect("preset komi"),
            dead,
            cap,
        };
        use DeadStones as D;
        use KoRule as K;
        use Scoring as S;
        let brainking_komi = match size {
            0..=11 => 3.5,
            12..=16 => 4.5,
            _ => 5.5,
        };
        let r = match name {
            "ttakji" => go(S::Area, K::Positional, false, 7.0, D::PassAlive, MoveCap::Fixed(300)),
            "brainking" => go(S::Territory, K::Simple, false, brainking_komi, D::Playouts, MoveCap::None),
            "chinese" => go(S::Area, K::Simple, false, 7.5, D::PassAlive, MoveCap::None),
            "japanese" => go(S::Territory, K::Simple, false, 6.5, D::Playouts, MoveCap::None),
            "tromp-taylor" => go(S::Area, K::Positional, true, 7.5, D::None, MoveCap::None),
            "loose" => Rules {
                variant: Variant::Loose,
                size,
                scoring: S::Stones,
                ko: K::None,
                suicide: false,
                komi: Komi(0),
                dead: D::None,
                cap: MoveCap::None,
            },
            "sligo" => Rules {
                variant: Variant::Sligo,
                size,
                scoring: S::Area,
                ko: K::None,
                suicide: false,
                komi: Komi(7),
                dead: D::None,
                cap: MoveCap::PerPoint(4),
            },
            _ => {
                return err(format!(
                    "unknown rule set \"{}\"; known: {}",
                    name.escape_debug(),
                    PRESETS.join(", ")
                ))
            }
        };
        r.validate()?;
        Ok(r)
    }

    /// Checks that the fields are consistent (sizes, komi domain, per-variant constraints).
    pub fn validate(&self) -> Result<(), RulesError> {
        if !SIZES.contains(self.size) {
            return err(format!("board size {} out of range {SIZES}", self.size));
        }
        match self.variant {
            Variant::Loose => {
                if self.size % 2 == 0 || self.size < 3 {
                    return err(format!("Loose needs an odd board size of at least 3, got {}", self.size));
                }
                if self.komi.0 % 4 != 0 {
                    return err(format!("Loose komi must be an even integer, got {}", self.komi));
                }
                if self.scoring != Scoring::Stones
                    || self.ko != KoRule::None
                    || self.dead != DeadStones::None
                    || self.suicide
                {
                    return err("Loose has stone scoring, no ko rule, no dead stones and no suicide");
                }
            }
            Variant::Sligo => {
                if self.scoring != Scoring::Area
                    || self.ko != KoRule::None
                    || self.dead != DeadStones::None
                    || self.suicide
                {
                    return err("Sligo has area scoring, no ko rule, no dead stones and no suicide");
                }
            }
            Variant::Go => {
                if self.scoring == Scoring::Stones {
                    return err("stone scoring is only for Loose");
                }
                if self.scoring == Scoring::Territory && self.dead == DeadStones::None {
                    return err("territory scoring needs a dead-stone method (pass-alive or playouts)");
                }
            }
        }
        Ok(())
    }

    /// The turn limit for this board size, after which the game is scored as it stands.
    pub fn max_turns(&self) -> u32 {
        let area = u32::from(self.size) * u32::from(self.size);
        let safety = 16 * area;
        match self.cap {
            MoveCap::None => safety,
            MoveCap::Fixed(n) => n.min(safety),
            MoveCap::PerPoint(k) => k.saturating_mul(area).min(safety),
        }
    }

    /// Whether `other` is the same game: equal in everything but komi and the turn cap, the
    /// two things a net takes as inputs (komi, and the turn fraction) rather than learning
    /// them as a game of their own.
    pub fn same_game(&self, other: &Rules) -> bool {
        (self.variant, self.size, self.scoring, self.ko, self.suicide, self.dead)
            == (other.variant, other.size, other.scoring, other.ko, other.suicide, other.dead)
    }

    /// The preset these fields equal, if any.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS.into_iter().find(|n| Rules::preset_sized(n, self.size).is_ok_and(|p| p == *self))
    }

    fn base_name(&self) -> &'static str {
        match (self.variant, self.scoring) {
            (Variant::Loose, _) => "loose",
            (Variant::Sligo, _) => "sligo",
            (Variant::Go, Scoring::Territory) => "brainking",
            _ => "ttakji",
        }
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let bad = |allowed: &str| {
            err(format!("bad value \"{}\" for rule \"{key}\"; allowed: {allowed}", value.escape_debug()))
        };
        match key {
            "size" => match value.parse::<u8>() {
                Ok(n) => self.size = n,
                Err(_) => return bad(&format!("an integer {SIZES}")),
            },
            "komi" => match value.parse::<f64>().ok().and_then(Komi::from_f64) {
                Some(k) => self.komi = k,
                None => return bad("a multiple of 0.5"),
            },
            "scoring" => {
                self.scoring = match value {
                    "area" => Scoring::Area,
                    "territory" => Scoring::Territory,
                    "stones" => Scoring::Stones,
                    _ => return bad("area, territory, stones"),
                }
            }
            "ko" => {
                self.ko = match value {
                    "none" => KoRule::None,
                    "simple" => KoRule::Simple,
                    "positional" => KoRule::Positional,
                    _ => return bad("none, simple, positional"),
                }
            }
            "suicide" => {
                self.suicide = match value {
                    "allow" => true,
                    "forbid" => false,
                    _ => return bad("allow, forbid"),
                }
            }
            "dead" => {
                self.dead = match value {
                    "none" => DeadStones::None,
                    "pass-alive" => DeadStones::PassAlive,
                    "playouts" => DeadStones::Playouts,
                    _ => return bad("none, pass-alive, playouts"),
                }
            }
            "cap" => {
                self.cap = if value == "none" {
                    MoveCap::None
                } else if let Some(k) = value.strip_suffix("n2") {
                    match k.parse() {
                        Ok(k) => MoveCap::PerPoint(k),
                        Err(_) => return bad("none, an integer, or K followed by n2 (K per board point)"),
                    }
                } else {
                    match value.parse() {
                        Ok(n) => MoveCap::Fixed(n),
                        Err(_) => return bad("none, an integer, or K followed by n2 (K per board point)"),
                    }
                }
            }
            _ => {
                return err(format!(
                    "unknown rule field \"{}\"; fields: size, komi, scoring, ko, suicide, dead, cap",
                    key.escape_debug()
                ))
            }
        }
        Ok(())
    }

    fn fields(&self) -> Vec<(&'static str, String)> {
        let cap = match self.cap {
            MoveCap::None => "none".to_string(),
            MoveCap::Fixed(n) => n.to_string(),
            MoveCap::PerPoint(k) => format!("{k}n2"),
        };
        vec![
            ("size", self.size.to_string()),
            ("komi", self.komi.to_string()),
            (
                "scoring",
                match self.scoring {
                    Scoring::Area => "area",
                    Scoring::Territory => "territory",
                    Scoring::Stones => "stones",
                }
                .into(),
            ),
            (
                "ko",
                match self.ko {
                    KoRule::None => "none",
                    KoRule::Simple => "simple",
                    KoRule::Positional => "positional",
                }
                .into(),
            ),
            ("suicide", if self.suicide { "allow" } else { "forbid" }.into()),
            (
                "dead",
                match self.dead {
                    DeadStones::None => "none",
                    DeadStones::PassAlive => "pass-alive",
                    DeadStones::Playouts => "playouts",
                }
                .into(),
            ),
            ("cap", cap),
        ]
    }
}

impl fmt::Display for Rules {
    /// The preset name, followed by the fields that differ from that preset at this size
    /// (the size itself when it is not 9); the preset with the fewest differences is used.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mine = self.fields();
        let (name, diffs) = PRESETS
            .into_iter()
            .filter_map(|n| {
                let p = Rules::preset_sized(n, self.size).ok()?;
                (p.variant == self.variant).then_some(())?;
                let d: Vec<(&str, String)> =
                    mine.iter().zip(p.fields()).filter(|(a, b)| a.1 != b.1).map(|(a, _)| a.clone()).collect();
                Some((n, d))
            })
            .min_by_key(|(_, d)| d.len())
            .unwrap_or((self.base_name(), Vec::new()));
        f.write_str(name)?;
        if self.size != 9 {
            write!(f, ",size={}", self.size)?;
        }
        for (k, v) in diffs {
            write!(f, ",{k}={v}")?;
        }
        Ok(())
    }
}

/// A rule set in a config file is its text, as [`FromStr`] reads it and [`fmt::Display`]
/// prints it.
#[cfg(feature = "serde")]
impl serde::Serialize for Rules {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Rules {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rules, D::Error> {
        let text = String::deserialize(d)?;
        text.parse()
            .map_err(|e| serde::de::Error::custom(format!("rules = \"{}\": {e}", text.escape_debug())))
    }
}

impl FromStr for Rules {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Rules, RulesError> {
        let mut parts = s.trim().split(',');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let overrides: Vec<(String, String)> = parts
            .map(|kv| match kv.split_once('=') {
                Some((k, v)) => Ok((k.trim().to_string(), v.trim().to_string())),
                None => {
                    err(format!("expected key=value after the preset name, got \"{}\"", kv.escape_debug()))
                }
            })
            .collect::<Result<_, _>>()?;
        // A key given twice is refused rather than letting one silently win.
        for (i, (k, _)) in overrides.iter().enumerate() {
            if overrides[..i].iter().any(|(j, _)| j == k) {
                return err(format!("rule \"{}\" given twice in \"{}\"", k.escape_debug(), s.escape_debug()));
            }
        }
        // The size decides size-dependent defaults (BrainKing komi), so it is applied first.
        let mut size = 9u8;
        if let Some((_, v)) = overrides.iter().find(|(k, _)| k == "size") {
            size = v.parse().ok().filter(|&n| SIZES.contains(n)).ok_or_else(|| {
                RulesError(format!(
                    "bad value \"{}\" for rule \"size\"; allowed: an integer {SIZES}",
                    v.escape_debug()
                ))
            })?;
        }
        let mut r = Rules::preset(&name)?;
        r.size = size;
        if let Ok(sized) = Rules::preset_sized(&name, size) {
            r = sized;
        }
        for (k, v) in &overrides {
            r.set(k, v)?;
        }
        r.validate()?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip_through_strings() {
        for name in PRESETS {
            for size in [3u8, 5, 9, 13, 19] {
                let Ok(r) = Rules::preset_sized(name, size) else {
                    continue;
                };
                let s = r.to_string();
                assert_eq!(s.parse::<Rules>().unwrap(), r, "{s}");
            }
        }
        assert_eq!(Rules::preset("ttakji").unwrap().to_string(), "ttakji");
        let r: Rules = "tromp-taylor,komi=6,size=5".parse().unwrap();
        assert_eq!(r.komi, Komi(12));
        assert_eq!(r.to_string(), "tromp-taylor,size=5,komi=6");
        assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
    }

    #[test]
    fn brainking_komi_depends_on_size() {
        let k = |n| Rules::preset_sized("brainking", n).unwrap().komi.as_f64();
        assert_eq!((k(9), k(13), k(19)), (3.5, 4.5, 5.5));
        assert_eq!("brainking,size=13".parse::<Rules>().unwrap().komi, Komi(9));
    }

    #[test]
    fn bad_rules_are_clear_errors() {
        assert!("loose,size=8".parse::<Rules>().unwrap_err().0.contains("odd"));
        assert!("loose,komi=3".parse::<Rules>().unwrap_err().0.contains("even"));
        assert!("loose,komi=2.5".parse::<Rules>().is_err());
        assert!("go".parse::<Rules>().unwrap_err().0.contains("known"));
        assert!("ttakji,ko=maybe".parse::<Rules>().unwrap_err().0.contains("allowed"));
        assert!("ttakji,size=25".parse::<Rules>().is_err());
        assert!("ttakji,komi=0.3".parse::<Rules>().is_err());
        assert!("ttakji,bogus=1".parse::<Rules>().is_err());
        assert!("ttakji,size".parse::<Rules>().is_err());
        assert!("ttakji,size=5,size=6".parse::<Rules>().unwrap_err().0.contains("\"size\" given twice"));
        assert!("ttakji,komi=1,size=5,komi=1".parse::<Rules>().unwrap_err().0.contains("twice"));
        assert!("loose,komi=-4".parse::<Rules>().is_ok());
    }
}
