//! Config files: TOML with one table per job (`[selfplay]`, `[train]`).
//! Every key is optional and has a default; an unknown key or a bad value is an error that
//! names the file, the key and what is allowed.

use crate::Failure;
use hane_selfplay::SelfplayConfig;
use serde::Deserialize;
use std::path::Path;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigFile {
    /// Self-play settings.
    pub selfplay: SelfplayConfig,
    /// Trainer settings.
    pub train: hane_train::TrainConfig,
}

/// Reads and validates a config file.
pub fn load(path: &Path) -> Result<ConfigFile, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::input(format!("cannot read config {}: {e}", path.display())))?;
    parse(&text).map_err(|e| Failure::input(format!("config {}: {e}", path.display())))
}

/// Parses and validates config text.
pub fn parse(text: &str) -> Result<ConfigFile, String> {
    let cfg: ConfigFile = toml::from_str(text).map_err(|e| e.to_string())?;
    cfg.selfplay.validate().map_err(|e| format!("[selfplay] {e}"))?;
    cfg.train.validate().map_err(|e| format!("[train] {e}"))?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_configs_parse() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                load(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e.message));
                n += 1;
            }
        }
        assert!(n >= 4);
    }

    #[test]
    fn bad_keys_and_values_are_named() {
        let e = parse("[selfplay]\nvisits = 3\n").unwrap_err();
        assert!(e.contains("visits") && e.contains("full_visits"), "{e}");
        let e = parse("[selfplay]\nrules = \"loose,size=8\"\n").unwrap_err();
        assert!(e.contains("rules") && e.contains("odd"), "{e}");
        let e = parse("[selfplay]\nthreads = -1\n").unwrap_err();
        assert!(e.contains("threads"), "{e}");
        let e = parse("[sefplay]\n").unwrap_err();
        assert!(e.contains("sefplay"), "{e}");
    }
}
