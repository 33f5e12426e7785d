//! Config files: TOML with one table per job (`[selfplay]`, `[train]`, `[loop]`).
//! Every key is optional and has a default; the keys that depend on the board take theirs
//! from its size ([`crate::recipe`]), and `rules` named in one of `[selfplay]` and `[train]`
//! serves both. An unknown key or a bad value is an error that names the file, the key and
//! what is allowed, and tables that disagree (self-play and training of different games) are
//! refused naming both.
//!
//! Every number has a range, in the doc comment of its key and checked at load, so no typo
//! reaches an allocation, a thread count or a loop bound: ranges stop far beyond what a big
//! machine would use, and NaN or infinity is never in range. A file is read with a size cap
//! ([`MAX_CONFIG_BYTES`]), so a wrong path such as `/dev/zero` fails at once.

use crate::Error;
use hane_engine::range::{in_range, Invalid};
use hane_engine::Rules;
use hane_mcts::MAX_VISITS;
use hane_selfplay::SelfplayConfig;
use serde::Deserialize;
use std::fmt::Display;
use std::io::Read;
use std::path::Path;

/// The largest config file read: the shipped ones are a few kilobytes.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The most games of a gating or anchor match.
const MAX_MATCH_GAMES: u32 = 100_000;

/// The whole file.
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigFile {
    /// Self-play settings.
    pub selfplay: SelfplayConfig,
    /// Trainer settings.
    pub train: hane_train::TrainConfig,
    /// `hane loop` settings.
    #[serde(rename = "loop")]
    pub pipeline: LoopConfig,
}

/// How `hane loop` runs its generations. `[train] steps` is the number of training steps per
/// generation; self-play and training keep their own tables.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// Generations to run (a rerun with a larger number continues the run; 1..=100000).
    pub generations: u32,
    /// Self-play games per generation (1..=10000000, [`hane_selfplay::MAX_GAMES`]).
    pub games: u64,
    /// Games of each gating match (candidate against the current best); 0: ungated, every
    /// candidate becomes the best (KataGo's later runs; 0..=100000).
    pub gate_games: u32,
    /// The candidate is accepted with a score of at least this fraction of the gate games
    /// (0..=1).
    pub gate_threshold: f64,
    /// Search visits per move in gating matches (1..=1000000).
    pub gate_visits: u32,
    /// Random opening turns of each pair of gating games (0..=1000).
    pub gate_opening_turns: u32,
    /// Visits of each search from the empty board in the komi estimate (0: no estimate;
    /// 0..=1000000).
    pub komi_visits: u32,
    /// Training steps per generation from the data: each new row drawn this many times on
    /// average (steps = samples_per_row × new rows / batch size). 0: `[train] steps` per
    /// generation (0..=1000).
    pub samples_per_row: f64,
    /// Games of each generation's anchor matches: the best net against generation 0's
    /// player, generation 0's net and, for the Go rule sets, GNU Go at `anchor_gnugo_level`
    /// (0: no matches; 0..=100000).
    pub anchor_games: u32,
    /// Anchor matches after every this many generations, and always after the last one
    /// (1..=100000; 1: every generation).
    pub anchor_every: u32,
    /// Visits per move of hane's players in anchor matches (1..=1000000; 0 only without
    /// anchor matches).
    pub anchor_visits: u32,
    /// GNU Go's level (0..=10) as an anchor for the Go rule sets; unset: no GNU Go.
    pub anchor_gnugo_level: Option<u8>,
    /// Random opening turns of each pair of anchor games (colours swap within a pair;
    /// 0..=1000).
    pub anchor_opening_turns: u32,
    /// Komi of the anchor matches, a multiple of 0.5 in -1000..=1000; unset: the rule set's.
    pub anchor_komi: Option<f64>,
    /// With `[train] sizes`, the weight of each of those sizes, in that list's order, in a
    /// generation's self-play (each in 0..=1000, not all 0; empty: equal weights). A size's
    /// share of the weights is its share of the generation's board points (games × area), so
    /// a size of side s plays `games` × its share × (the rules' area / s²) games.
    pub size_weights: Vec<f64>,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            generations: 4,
            games: 200,
            gate_games: 40,
            gate_threshold: 0.55,
            gate_visits: 32,
            gate_opening_turns: 2,
            komi_visits: 400,
            samples_per_row: 0.0,
            anchor_games: 0,
            anchor_every: 1,
            anchor_visits: 64,
            anchor_gnugo_level: None,
            anchor_opening_turns: 2,
            anchor_komi: None,
            size_weights: Vec::new(),
        }
    }
}

impl LoopConfig {
    /// Checks every value against the range in its doc comment; the message names the key,
    /// the value and the range.
    fn validate(&self) -> Result<(), Invalid> {
        in_range("generations", self.generations, 1..=100_000)?;
        in_range("games", self.games, 1..=hane_selfplay::MAX_GAMES)?;
        in_range("gate_games", self.gate_games, 0..=MAX_MATCH_GAMES)?;
        in_range("anchor_games", self.anchor_games, 0..=MAX_MATCH_GAMES)?;
        in_range("anchor_every", self.anchor_every, 1..=100_000)?;
        in_range("gate_visits", self.gate_visits, 1..=MAX_VISITS)?;
        in_range("komi_visits", self.komi_visits, 0..=MAX_VISITS)?;
        let least = u32::from(self.anchor_games > 0);
        in_range("anchor_visits", self.anchor_visits, least..=MAX_VISITS)?;
        in_range("gate_opening_turns", self.gate_opening_turns, 0..=1000)?;
        in_range("anchor_opening_turns", self.anchor_opening_turns, 0..=1000)?;
        if let Some(level) = self.anchor_gnugo_level {
            in_range("anchor_gnugo_level", level, 0..=10)?;
        }
        if let Some(k) = self.anchor_komi {
            if hane_engine::Komi::from_f64(k).is_none() {
                return Err(Invalid(format!("anchor_komi = {k}: allowed a multiple of 0.5 in -1000..=1000")));
            }
        }
        in_range("samples_per_row", self.samples_per_row, 0.0..=1000.0)?;
        for &w in &self.size_weights {
            in_range("size_weights", w, 0.0..=1000.0)?;
        }
        in_range("gate_threshold", self.gate_threshold, 0.0..=1.0)
    }
}

/// One board size of a generation's self-play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizePlan {
    /// The run's rules on this board.
    pub rules: Rules,
    /// Games of each generation on it.
    pub games: u64,
}

impl ConfigFile {
    /// The board sizes a `hane loop` generation plays, the rules' own first: with `[train]
    /// sizes`, each of them with its share of the generation's board points (see
    /// [`LoopConfig::size_weights`]), at least one game each; else the rules' size with `[loop]
    /// games`.
    pub fn size_plan(&self, rules: &Rules) -> Vec<SizePlan> {
        let sizes = &self.train.sizes;
        if sizes.is_empty() || sizes == &[rules.size] {
            return vec![SizePlan { rules: *rules, games: self.pipeline.games }];
        }
        let weights = &self.pipeline.size_weights;
        let weight = |i: usize| if weights.is_empty() { 1.0 } else { weights[i] };
        let total: f64 = (0..sizes.len()).map(weight).sum();
        let area = |s: u8| f64::from(s) * f64::from(s);
        let mut plan: Vec<SizePlan> = sizes
            .iter()
            .enumerate()
            .filter(|&(i, _)| weight(i) > 0.0)
            .map(|(i, &s)| {
                let share = weight(i) / total;
                let games = self.pipeline.games as f64 * share * area(rules.size) / area(s);
                SizePlan { rules: Rules { size: s, ..*rules }, games: (games.round() as u64).max(1) }
            })
            .collect();
        plan.sort_by_key(|p| (p.rules.size != rules.size, std::cmp::Reverse(p.rules.size)));
        plan
    }

    /// Checks what no single table can, once each has been checked (`train`: the parsed
    /// `[train] rules`): that `[selfplay]` and `[train]` play the same game (komi and turn cap
    /// aside), and that the sizes of `[train] sizes` fit the rule set and `[loop]
    /// size_weights`.
    fn validate_across(&self, train: &Rules) -> Result<(), Invalid> {
        let train = *train;
        let play = self.selfplay.parsed_rules()?;
        if !play.same_game(&train) {
            return Err(Invalid(format!(
                "[selfplay] rules = {:?} and [train] rules = {:?} are not the same game: the net \
                 would be trained on the data of another",
                self.selfplay.rules, self.train.rules
            )));
        }
        for &s in &self.train.sizes {
            Rules { size: s, ..train }
                .validate()
                .map_err(|e| Invalid(format!("[train] sizes: {s}x{s} does not fit the rules: {e}")))?;
        }
        let weights = &self.pipeline.size_weights;
        if !weights.is_empty() {
            if weights.len() != self.train.sizes.len() {
                return Err(Invalid(format!(
                    "[loop] size_weights = {weights:?}: one weight for each of [train] sizes = {:?}",
                    self.train.sizes
                )));
            }
            let main = self.train.sizes.iter().position(|&s| s == train.size);
            if main.is_some_and(|i| weights[i] == 0.0) {
                return Err(Invalid(format!(
                    "[loop] size_weights = {weights:?}: the rules' own size, {}, needs a weight above 0 \
                     (its komi estimates and anchors lead the run)",
                    train.size
                )));
            }
        }
        Ok(())
    }
}

/// The text of a config file, refused ([`Error::Input`]) when it cannot be read, is not UTF-8 or
/// is larger than [`MAX_CONFIG_BYTES`]; no more than that is ever read.
pub fn read_text(path: &Path) -> Result<String, Error> {
    let refuse = |e: &dyn Display| Error::Input(format!("cannot read config {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| refuse(&e))?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_string(&mut text).map_err(|e| refuse(&e))?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(refuse(&format!("larger than {MAX_CONFIG_BYTES} bytes")));
    }
    Ok(text)
}

/// Reads and validates a config file.
pub fn load(path: &Path) -> Result<ConfigFile, Error> {
    let text = read_text(path)?;
    parse(&text).map_err(|e| Error::Input(format!("config {}: {e}", path.display())))
}

/// Parses and validates config text; the [`Error::Input`] names the table, the key and what
/// is allowed.
pub fn parse(text: &str) -> Result<ConfigFile, Error> {
    // Read as written first, so a mistake is reported with its line; then with the keys the
    // file leaves out that the board decides filled in by the recipe.
    let _: ConfigFile = toml::from_str(text).map_err(|e| Error::Input(e.to_string()))?;
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| Error::Input(e.to_string()))?;
    share_rules(&mut doc);
    crate::recipe::Recipe::fill(&mut doc);
    let cfg: ConfigFile =
        toml::Value::Table(doc).try_into().map_err(|e: toml::de::Error| Error::Input(e.to_string()))?;
    let table = |t: &'static str| move |e: Invalid| Error::Input(format!("[{t}] {e}"));
    cfg.selfplay.validate().map_err(table("selfplay"))?;
    let train = cfg.train.validate().map_err(table("train"))?;
    cfg.pipeline.validate().map_err(table("loop"))?;
    cfg.validate_across(&train).map_err(|e| Error::Input(e.to_string()))?;
    Ok(cfg)
}

/// One place for the run's rules: when only one of `[selfplay]` and `[train]` names its
/// `rules`, the other table takes them too (self-play and training must play the same game).
fn share_rules(doc: &mut toml::Table) {
    let rules_of = |doc: &toml::Table, t: &str| doc.get(t).and_then(|t| t.get("rules")).cloned();
    let (play, train) = (rules_of(doc, "selfplay"), rules_of(doc, "train"));
    let (to, rules) = match (play, train) {
        (Some(r), None) => ("train", r),
        (None, Some(r)) => ("selfplay", r),
        _ => return,
    };
    let entry = doc.entry(to.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if let toml::Value::Table(t) = entry {
        t.insert("rules".into(), rules);
    }
}

/// `text` with `[selfplay] seed` set to `seed`: its line replaced, or added at the end of the
/// table (the table added when missing); comments and every other line kept as they are.
pub fn with_seed(text: &str, seed: u64) -> String {
    let line = format!("seed = {seed}");
    let mut out: Vec<String> = Vec::new();
    let (mut in_selfplay, mut done) = (false, false);
    for l in text.lines() {
        let t = l.trim_start();
        if t.starts_with('[') {
            if in_selfplay && !done {
                out.push(line.clone());
                done = true;
            }
            in_selfplay = t.starts_with("[selfplay]");
        } else if in_selfplay && !done && t.split_once('=').is_some_and(|(k, _)| k.trim() == "seed") {
            out.push(line.clone());
            done = true;
            continue;
        }
        out.push(l.to_string());
    }
    if !done {
        if !in_selfplay {
            out.push("[selfplay]".into());
        }
        out.push(line);
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_replaces_the_configs_own_or_is_added() {
        let shipped = include_str!("../../../configs/ttakji-5x5.toml");
        let base = parse(shipped).unwrap();
        let seeded = with_seed(shipped, 7);
        let mut cfg = parse(&seeded).unwrap();
        assert_eq!(cfg.selfplay.seed, 7);
        assert!(seeded.contains("# Seed of everything random in the run"), "comments kept");
        cfg.selfplay.seed = base.selfplay.seed;
        assert_eq!(cfg, base, "nothing else changed");
        assert_eq!(with_seed(&seeded, 7), seeded, "setting it again changes nothing");
        let no_key = "[selfplay]\nthreads = 2\n[train]\nsteps = 5\n";
        let cfg = parse(&with_seed(no_key, 3)).unwrap();
        assert_eq!((cfg.selfplay.seed, cfg.selfplay.threads, cfg.train.steps), (3, 2, 5));
        assert_eq!(parse(&with_seed("[loop]\ngames = 4\n", 9)).unwrap().selfplay.seed, 9);
        assert_eq!(parse(&with_seed("", 9)).unwrap().selfplay.seed, 9);
    }

    #[test]
    fn an_unknown_device_is_bad_input_naming_the_key_and_the_values() {
        match parse("[train]\ndevice = \"tpu\"\n") {
            Err(Error::Input(m)) => {
                assert_eq!(m, "[train] device = \"tpu\": allowed auto, cpu, cuda, cuda:N")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(parse("[train]\ndevice = \"cuda:1\"\n").unwrap().train.device, "cuda:1");
    }

    #[test]
    fn shipped_configs_parse() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                n += 1;
            }
        }
        assert!(n >= 4);
    }

    #[test]
    fn each_size_plays_its_share_of_the_board_points() {
        let plan = |text: &str| {
            let cfg = parse(text).unwrap();
            let rules = cfg.selfplay.parsed_rules().unwrap();
            cfg.size_plan(&rules).iter().map(|p| (p.rules.size, p.games)).collect::<Vec<_>>()
        };
        let seven = "[selfplay]\nrules = \"ttakji,size=7\"\n[loop]\ngames = 204\n";
        assert_eq!(plan(seven), [(7, 204)]);
        let both = format!("{seven}[train]\nsizes = [5, 7]\n");
        assert_eq!(plan(&both), [(7, 102), (5, 200)], "equal weights: half the points each");
        let weighted = format!("{seven}size_weights = [1.0, 3.0]\n[train]\nsizes = [5, 7]\n");
        assert_eq!(plan(&weighted), [(7, 153), (5, 100)]);
        let three = format!("{seven}size_weights = [1.0, 0.0, 1.0]\n[train]\nsizes = [3, 5, 7]\n");
        assert_eq!(plan(&three), [(7, 102), (3, 555)], "a size of weight 0 is not played");
    }

    #[test]
    fn the_tables_must_agree_on_the_game_and_the_sizes() {
        let e = err("[selfplay]\nrules = \"ttakji,size=5\"\n[train]\nrules = \"brainking,size=5\"\n");
        assert!(e.contains("\"ttakji,size=5\"") && e.contains("\"brainking,size=5\""), "{e}");
        let e = err("[selfplay]\nrules = \"ttakji,size=5\"\n[train]\nrules = \"ttakji,size=7\"\n");
        assert!(e.contains("not the same game"), "{e}");
        let komi =
            parse("[selfplay]\nrules = \"ttakji,size=5,komi=24\"\n[train]\nrules = \"ttakji,size=5\"\n");
        assert!(komi.is_ok(), "komi is the self-play's: {komi:?}");
        let one = parse("[selfplay]\nrules = \"loose,size=5\"\n").unwrap();
        assert_eq!(one.train.rules, "loose,size=5", "named once, the rules serve both tables");
        let other = parse("[train]\nrules = \"sligo,size=4\"\n").unwrap();
        assert_eq!(other.selfplay.rules, "sligo,size=4");
        let e = err("[selfplay]\nrules = \"loose,size=7\"\n[train]\nsizes = [4, 7]\n");
        assert!(e.contains("sizes") && e.contains("4x4") && e.contains("odd"), "{e}");
        let e = err(
            "[selfplay]\nrules = \"ttakji,size=7\"\n[train]\nsizes = [5, 7]\n[loop]\nsize_weights = [1.0]\n",
        );
        assert!(e.contains("size_weights") && e.contains("[5, 7]"), "{e}");
        let e = err("[selfplay]\nrules = \"ttakji,size=7\"\n[train]\nsizes = [5, 7]\n[loop]\nsize_weights = [1.0, 0.0]\n");
        assert!(e.contains("size_weights") && e.contains("own size"), "{e}");
        let e = err("[loop]\nsize_weights = [-1.0]\n");
        assert!(e.contains("[loop] size_weights"), "{e}");
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn bad_keys_and_values_are_named() {
        let e = err("[selfplay]\nvisits = 3\n");
        assert!(e.contains("visits") && e.contains("full_visits"), "{e}");
        let e = err("[selfplay]\nrules = \"loose,size=8\"\n");
        assert!(e.contains("rules") && e.contains("odd"), "{e}");
        let e = err("[selfplay]\nthreads = -1\n");
        assert!(e.contains("threads"), "{e}");
        let e = err("[sefplay]\n");
        assert!(e.contains("sefplay"), "{e}");
        let e = err("[loop]\ngate_threshold = 1.5\n");
        assert!(e.contains("[loop]") && e.contains("gate_threshold"), "{e}");
        let e = err("[loop]\ngenerashuns = 2\n");
        assert!(e.contains("generashuns") && e.contains("gate_games"), "{e}");
    }
}
