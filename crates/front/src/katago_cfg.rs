//! KataGo's engine config files (`key = value` lines, `#` comments) and its
//! `-override-config key=value,...` argument, read for the settings hane's analysis engine
//! has, so that a GUI which starts KataGo with its own config (KaTrain) can start hane the
//! same way.

use crate::analysis::{Perspective, MAX_QUERY_VISITS};
use std::time::Duration;

/// The settings of a KataGo config that hane's analysis engine has.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// `maxVisits`: visits per analysed turn when a query gives none.
    pub visits: Option<u32>,
    /// `maxTime`: seconds a search may take when a query gives none.
    pub max_time: Option<Duration>,
    /// `reportAnalysisWinratesAs`: BLACK, WHITE or SIDETOMOVE.
    pub perspective: Option<Perspective>,
    /// `numSearchThreads`: hane searches on one thread, evaluating this many leaves per net
    /// call (KataGo's threads each descend to a leaf at a time, so as many are in flight).
    pub leaves_per_call: Option<usize>,
}

/// The `key = value` pairs of a config's text, in order: blank lines and `#` comments are
/// skipped, and so are lines without `=` (each named in the second list).
pub fn pairs(text: &str) -> (Vec<(String, String)>, Vec<String>) {
    let (mut pairs, mut bad) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once('=') {
            Some((k, v)) => pairs.push((k.trim().to_string(), v.trim().to_string())),
            None => bad.push(line.to_string()),
        }
    }
    (pairs, bad)
}

/// The pairs of `-override-config`: `key=value` separated by commas.
pub fn override_pairs(text: &str) -> Vec<(String, String)> {
    text.split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

hane_engine::message_error!(
    /// A value of a KataGo config key that hane reads but cannot use.
    KataConfigError
);

impl EngineConfig {
    /// Nothing set.
    pub fn new() -> EngineConfig {
        EngineConfig { visits: None, max_time: None, perspective: None, leaves_per_call: None }
    }

    /// Applies `key = value` (a later one wins): `Ok(true)` when hane has the key, `Ok(false)`
    /// when it ignores it, an error for a value it cannot use.
    pub fn apply(&mut self, key: &str, value: &str) -> Result<bool, KataConfigError> {
        let bad = |what: &str| KataConfigError(format!("{key} = {value}: {what}"));
        match key {
            "maxVisits" => {
                let n: u64 = value.parse().map_err(|_| bad("not a positive integer"))?;
                if n == 0 {
                    return Err(bad("not a positive integer"));
                }
                self.visits = Some(n.min(u64::from(MAX_QUERY_VISITS)) as u32);
            }
            "maxTime" => {
                let t: f64 = value.parse().map_err(|_| bad("not seconds"))?;
                self.max_time = (t.is_finite() && t > 0.0).then(|| Duration::from_secs_f64(t.min(1e9)));
            }
            "reportAnalysisWinratesAs" => {
                self.perspective = Some(value.parse().map_err(|e: String| bad(&e))?)
            }
            "numSearchThreads" => {
                let n: usize = value.parse().map_err(|_| bad("not a positive integer"))?;
                self.leaves_per_call = Some(n.clamp(1, 256));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn katago_configs_and_overrides_read_tolerantly() {
        let text = "# KaTrain's analysis config\nmaxVisits = 500 # visits\n\nnumSearchThreads=8\n\
                    reportAnalysisWinratesAs = SIDETOMOVE\nnnCacheSizePowerOfTwo = 20\njunk line\n";
        let (kv, bad) = pairs(text);
        assert_eq!(kv.len(), 4);
        assert_eq!(bad, ["junk line"]);
        let mut c = EngineConfig::new();
        let known: Vec<bool> = kv.iter().map(|(k, v)| c.apply(k, v).unwrap()).collect();
        assert_eq!(known, [true, true, true, false]);
        assert_eq!(
            (c.visits, c.leaves_per_call, c.perspective),
            (Some(500), Some(8), Some(Perspective::SideToMove))
        );
        for (k, v) in override_pairs("homeDataDir=/tmp/x, maxTime=2.5,maxVisits=10000000000") {
            c.apply(&k, &v).unwrap();
        }
        assert_eq!((c.visits, c.max_time), (Some(MAX_QUERY_VISITS), Some(Duration::from_millis(2500))));
        assert!(c.apply("maxVisits", "many").is_err());
        assert!(c.apply("reportAnalysisWinratesAs", "GREEN").is_err());
    }
}
