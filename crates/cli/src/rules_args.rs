//! The `--rules`, `--size` and `--komi` arguments shared by the subcommands that take a rule
//! set on the command line.

use crate::Failure;
use hane_engine::{Komi, Rules};

/// A rule set from the command line.
#[derive(clap::Args, Clone, Debug)]
pub struct RulesArgs {
    /// Rule set: a preset name (ttakji, brainking, loose, sligo, chinese, japanese,
    /// tromp-taylor), optionally followed by ,key=value overrides.
    #[arg(long, default_value = "ttakji")]
    pub rules: String,
    /// Board size (default: the preset's, 9).
    #[arg(long)]
    pub size: Option<u8>,
    /// Komi for White (default: the rule set's).
    #[arg(long, allow_hyphen_values = true)]
    pub komi: Option<f64>,
}

impl RulesArgs {
    /// The rules named, checked.
    pub fn rules(&self) -> Result<Rules, Failure> {
        let mut spec = self.rules.clone();
        if let Some(n) = self.size {
            spec.push_str(&format!(",size={n}"));
        }
        let mut rules: Rules = spec.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
        if let Some(k) = self.komi {
            rules.komi = Komi::from_f64(k)
                .ok_or_else(|| Failure::input(format!("--komi {k}: not a multiple of 0.5")))?;
            rules.validate().map_err(|e| Failure::input(format!("--komi: {e}")))?;
        }
        Ok(rules)
    }
}
