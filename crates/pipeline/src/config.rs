//! Config files: TOML with the run's `rules` and `seed` at the top and one table per job
//! (`[selfplay]`, `[train]`, `[loop]`). Every key is optional and has a default; the keys that
//! depend on the board take theirs from its size ([`crate::recipe`]). The run's rules and seed
//! have one place, the top of the file, and self-play and training both take them; a file
//! written before that names them in `[selfplay]` or `[train]` still loads (one table's
//! `rules` serves both), but tables that disagree (self-play and training of different games),
//! or a value given both at the top and in a table, are refused naming both. An unknown key or
//! a bad value is an error that names the file, the key and what is allowed.
//!
//! Every number's allowed values are declared once, as a constant its doc comment links to,
//! and checked at load, so no typo reaches an allocation, a thread count or a loop bound:
//! ranges stop far beyond what a big machine would use, and NaN or infinity is never allowed.
//! A file is read with a size cap ([`read::CONFIG`]), so a wrong path such as `/dev/zero`
//! fails at once.

use crate::Error;
use hane_engine::range::{Allowed, Invalid, FRACTION, TURNS};
use hane_engine::Rules;
use hane_eval::arena::MATCH_GAMES;
use hane_eval::gtp::GNUGO_LEVELS;
use hane_host::read;
use hane_host::show::list;
use hane_mcts::{MAX_VISITS, VISITS};
use hane_selfplay::SelfplayConfig;
use serde::Deserialize;
use std::path::Path;

/// What `generations` and `anchor_every` allow.
pub const GENERATIONS: Allowed<u32> = Allowed::closed(1, 100_000);
/// What `games` allows: 1 up to [`hane_selfplay::MAX_GAMES`].
pub const GAMES: Allowed<u64> = Allowed::closed(1, hane_selfplay::MAX_GAMES);
/// What `gate_games` and `anchor_games` allow: none (no match) or a match's games
/// ([`MATCH_GAMES`]).
pub const LOOP_MATCH_GAMES: Allowed<u32> = Allowed::closed(0, MATCH_GAMES.hi());
/// What `komi_visits` allows (0: no estimate), and `anchor_visits` without anchor matches:
/// none up to [`MAX_VISITS`].
pub const VISITS_OR_NONE: Allowed<u32> = Allowed::closed(0, MAX_VISITS);
/// What `judge_positions` allows (0: no judge).
pub const JUDGE_POSITIONS: Allowed<u32> = Allowed::closed(0, 100_000);
/// What `book_expansions` allows (0: no book).
pub const BOOK_EXPANSIONS: Allowed<u32> = Allowed::closed(0, 10_000_000);
/// What `samples_per_row` and each of `size_weights` allow.
pub const WEIGHT: Allowed<f64> = Allowed::closed(0.0, 1000.0);

/// The whole file.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ConfigFile {
    /// The run's rule set, written as its text (`ttakji,size=7`): self-play plays it (its komi
    /// is the self-play komi's centre) and the net is trained for it (`[selfplay] rules` and
    /// `[train] rules` are set to it).
    pub rules: Rules,
    /// The run's seed, of everything random in it: self-play, training, gates and anchors
    /// (`[selfplay] seed` is set to it; `hane loop` seeds its trainer from it).
    pub seed: u64,
    /// Self-play settings.
    pub selfplay: SelfplayConfig,
    /// Trainer settings.
    pub train: hane_train::TrainConfig,
    /// `hane loop` settings.
    #[serde(rename = "loop")]
    pub pipeline: LoopConfig,
}

impl Default for ConfigFile {
    fn default() -> Self {
        let selfplay = SelfplayConfig::default();
        ConfigFile {
            rules: selfplay.rules,
            seed: selfplay.seed,
            selfplay,
            train: hane_train::TrainConfig::default(),
            pipeline: LoopConfig::default(),
        }
    }
}

/// How `hane loop` runs its generations. `[train] steps` is the number of training steps per
/// generation; self-play and training keep their own tables.
#[derive(Clone, Debug, Deserialize, serde::Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// Generations to run (a rerun with a larger number continues the run; [`GENERATIONS`]).
    pub generations: u32,
    /// Self-play games per generation ([`GAMES`]).
    pub games: u64,
    /// Games of each gating match (candidate against the current best); 0: ungated, every
    /// candidate becomes the best (KataGo's later runs; [`LOOP_MATCH_GAMES`]).
    pub gate_games: u32,
    /// The candidate is accepted with a score of at least this fraction of the gate games
    /// ([`FRACTION`]).
    pub gate_threshold: f64,
    /// Search visits per move in gating matches ([`VISITS`]).
    pub gate_visits: u32,
    /// Random opening turns of each pair of gating games ([`TURNS`]).
    pub gate_opening_turns: u32,
    /// Visits of each search from the empty board in the komi estimate (0: no estimate;
    /// [`VISITS_OR_NONE`]).
    pub komi_visits: u32,
    /// Training steps per generation from the data: each new row drawn this many times on
    /// average (steps = samples_per_row × new rows / batch size). 0: `[train] steps` per
    /// generation ([`WEIGHT`]).
    pub samples_per_row: f64,
    /// Games of each generation's anchor matches: the best net against generation 0's
    /// player, generation 0's net and, for the Go rule sets, GNU Go at `anchor_gnugo_level`
    /// (0: no matches; [`LOOP_MATCH_GAMES`]).
    pub anchor_games: u32,
    /// Anchor matches after every this many generations, and always after the last one
    /// ([`GENERATIONS`]; 1: every generation).
    pub anchor_every: u32,
    /// Visits per move of hane's players in anchor matches ([`VISITS`]; [`VISITS_OR_NONE`]
    /// without anchor matches).
    pub anchor_visits: u32,
    /// GNU Go's level ([`GNUGO_LEVELS`]) as an anchor for the Go rule sets; unset: no GNU Go.
    pub anchor_gnugo_level: Option<u8>,
    /// Random opening turns of each pair of anchor games (colours swap within a pair;
    /// [`TURNS`]).
    pub anchor_opening_turns: u32,
    /// Komi of the anchor matches, a multiple of 0.5 within [`hane_engine::rules::KOMI`]; unset:
    /// the rule set's.
    pub anchor_komi: Option<f64>,
    /// With `[train] sizes`, the weight of each of those sizes, in that list's order, in a
    /// generation's self-play (each [`WEIGHT`], not all 0; empty: equal weights). A size's
    /// share of the weights is its share of the generation's board points (games × area), so
    /// a size of side s plays `games` × its share × (the rules' area / s²) games.
    pub size_weights: Vec<f64>,
    /// Positions of the exact judge ([`crate::judge`]) run once the generations are done:
    /// every generation's net scored against the solver on positions from the run's
    /// self-play, into `judge/` and `judge.png` ([`JUDGE_POSITIONS`]; 0: no judge). Like
    /// `generations`, it may change when a run is continued.
    pub judge_positions: u32,
    /// Expansions of the minimax opening book ([`crate::book`]) built once the generations
    /// are done with the best net, into `book/` ([`BOOK_EXPANSIONS`]; 0: no book). Like
    /// `generations`, it may change when a run is continued: a larger number grows the book.
    pub book_expansions: u32,
    /// Visits of each book search ([`VISITS`]); the search that refreshes a node after a
    /// move is added gets half.
    pub book_visits: u32,
    /// At every twentieth of the book's expansions in its last quarter and at the end,
    /// re-search the estimates that set its margin and its bracket's ends with this many
    /// visits until all come from estimates that deep (0: no refinement; [`VISITS`]
    /// otherwise).
    pub book_refine_visits: u32,
    /// The komi the book is built at, a multiple of 0.5 within [`hane_engine::rules::KOMI`];
    /// unset: the last generation's fair komi estimate (the rule set's komi before any), then
    /// the book's own margin rounded, in a second book, where that is another komi.
    pub book_komi: Option<f64>,
    /// The book's net: the element-wise mean of the last this-many accepted nets, the best
    /// one among them (1: the best net alone; [`GENERATIONS`]). KataGo's candidates are such
    /// averages of snapshots; one generation's net carries the noise of its own training
    /// cycle into every value the book backs up (docs/lab-notes.md).
    pub book_average_nets: u32,
    /// Cross-check the reported book with one at the neighbouring komi its margin leans to
    /// (reused where that was the first book): the fair komi is an answer only where that
    /// book's margin rounds back ([`crate::book::verdict`]).
    pub book_cross_check: bool,
    /// A book during the run too: after every this many generations (0: only at the end), a
    /// book of `book_expansions` with the best net, whose positions become self-play start
    /// positions of the generations after it ([`GENERATIONS`] or 0).
    pub book_every: u32,
    /// The share of self-play games that begin at the latest book's positions, with its move
    /// as a hint ([`FRACTION`]; only with `book_every`).
    pub book_start_prob: f64,
    /// The first generation whose self-play uses `[selfplay] exploration_cut` (the ones
    /// before play with 0; [`GENERATIONS`] or 0). The cut takes targets from the searches,
    /// so it only helps once the net's values are shaped by games: from generation 1 on, the
    /// search of a net trained on uniform self-play taught the next net its own komi-blind
    /// values (docs/lab-notes.md).
    pub exploration_cut_from: u32,
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
            judge_positions: 0,
            book_expansions: 0,
            book_visits: 800,
            book_refine_visits: 0,
            book_komi: None,
            book_average_nets: 1,
            book_cross_check: false,
            book_every: 0,
            book_start_prob: 0.25,
            exploration_cut_from: 0,
        }
    }
}

impl LoopConfig {
    /// Checks every value against what its doc comment allows; the message names the key,
    /// the value and what is allowed.
    fn validate(&self) -> Result<(), Invalid> {
        GENERATIONS.check("generations", self.generations)?;
        GAMES.check("games", self.games)?;
        LOOP_MATCH_GAMES.check("gate_games", self.gate_games)?;
        LOOP_MATCH_GAMES.check("anchor_games", self.anchor_games)?;
        GENERATIONS.check("anchor_every", self.anchor_every)?;
        VISITS.check("gate_visits", self.gate_visits)?;
        VISITS_OR_NONE.check("komi_visits", self.komi_visits)?;
        JUDGE_POSITIONS.check("judge_positions", self.judge_positions)?;
        BOOK_EXPANSIONS.check("book_expansions", self.book_expansions)?;
        GENERATIONS.check("book_average_nets", self.book_average_nets)?;
        if self.book_every > 0 {
            GENERATIONS.check("book_every", self.book_every)?;
            if self.book_expansions == 0 {
                return Err(Invalid("book_every needs book_expansions above 0".into()));
            }
        }
        FRACTION.check("book_start_prob", self.book_start_prob)?;
        if self.exploration_cut_from > 0 {
            GENERATIONS.check("exploration_cut_from", self.exploration_cut_from)?;
        }
        VISITS.check("book_visits", self.book_visits)?;
        VISITS_OR_NONE.check("book_refine_visits", self.book_refine_visits)?;
        let anchor_visits = if self.anchor_games > 0 { VISITS } else { VISITS_OR_NONE };
        anchor_visits.check("anchor_visits", self.anchor_visits)?;
        TURNS.check("gate_opening_turns", self.gate_opening_turns)?;
        TURNS.check("anchor_opening_turns", self.anchor_opening_turns)?;
        if let Some(level) = self.anchor_gnugo_level {
            GNUGO_LEVELS.check("anchor_gnugo_level", level)?;
        }
        for (key, komi) in [("anchor_komi", self.anchor_komi), ("book_komi", self.book_komi)] {
            if let Some(k) = komi {
                if hane_engine::Komi::from_f64(k).is_none() {
                    return Err(Invalid(format!(
                        "{key} = {k}: allowed a multiple of 0.5 within {}",
                        hane_engine::rules::KOMI
                    )));
                }
            }
        }
        WEIGHT.check("samples_per_row", self.samples_per_row)?;
        for &w in &self.size_weights {
            WEIGHT.check("size_weights", w)?;
        }
        FRACTION.check("gate_threshold", self.gate_threshold)
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

    /// Checks what no single table can, once each has been checked: that the sizes of
    /// `[train] sizes` fit the run's rules and `[loop] size_weights`.
    fn validate_across(&self) -> Result<(), Invalid> {
        let train = self.rules;
        for &s in &self.train.sizes {
            Rules { size: s, ..train }
                .validate()
                .map_err(|e| Invalid(format!("[train] sizes: {s}x{s} does not fit the rules: {e}")))?;
        }
        let weights = &self.pipeline.size_weights;
        if !weights.is_empty() {
            if weights.len() != self.train.sizes.len() {
                return Err(Invalid(format!(
                    "[loop] size_weights = [{}]: one weight for each of [train] sizes = [{}]",
                    list(weights),
                    list(&self.train.sizes)
                )));
            }
            let main = self.train.sizes.iter().position(|&s| s == train.size);
            if main.is_some_and(|i| weights[i] == 0.0) {
                return Err(Invalid(format!(
                    "[loop] size_weights = [{}]: the rules' own size, {}, needs a weight above 0 \
                     (its komi estimates and anchors lead the run)",
                    list(weights),
                    train.size
                )));
            }
        }
        Ok(())
    }
}

/// The text of a config file a user names, refused ([`Error::Input`]) when it cannot be read,
/// is not UTF-8 or is larger than [`read::CONFIG`] allows; no more than that is ever read. It
/// may be a pipe (`--config <(...)`): the commands read their config before they install their
/// signal handler, so Ctrl-C during a wait for a FIFO's writer ends the process at once.
pub fn read_text(path: &Path) -> Result<String, Error> {
    read_kind(path, read::CONFIG)
}

/// The text of the config copy a run keeps in its folder: like [`read_text`], but only a
/// regular file is read.
pub fn read_copy(path: &Path) -> Result<String, Error> {
    read_kind(path, read::Kind { streams: false, ..read::CONFIG })
}

fn read_kind(path: &Path, kind: read::Kind) -> Result<String, Error> {
    read::read_text(path, kind).map_err(|e| Error::Input(format!("cannot read config: {e}")))
}

/// Reads and validates a config file.
pub fn load(path: &Path) -> Result<ConfigFile, Error> {
    let text = read_text(path)?;
    parse(&text).map_err(|e| Error::Input(format!("config {}: {e}", path.display())))
}

/// Parses and validates config text; the [`Error::Input`] names the table, the key and what
/// is allowed.
pub fn parse(text: &str) -> Result<ConfigFile, Error> {
    // Read as written first, so a mistake is reported with its line; then with the run's keys
    // at the top and the keys the file leaves out that the board decides filled in by the
    // recipe.
    let _: ConfigFile = toml::from_str(text).map_err(|e| Error::Input(e.to_string()))?;
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| Error::Input(e.to_string()))?;
    lift_run_keys(&mut doc).map_err(|e| Error::Input(e.to_string()))?;
    crate::recipe::Recipe::fill(&mut doc);
    let mut cfg: ConfigFile =
        toml::Value::Table(doc).try_into().map_err(|e: toml::de::Error| Error::Input(e.to_string()))?;
    cfg.selfplay.rules = cfg.rules;
    cfg.selfplay.seed = cfg.seed;
    cfg.train.rules = cfg.rules;
    let table = |t: &'static str| move |e: Invalid| Error::Input(format!("[{t}] {e}"));
    cfg.selfplay.validate().map_err(table("selfplay"))?;
    cfg.train.validate().map_err(table("train"))?;
    cfg.pipeline.validate().map_err(table("loop"))?;
    cfg.validate_across().map_err(|e| Error::Input(e.to_string()))?;
    Ok(cfg)
}

/// One place for the run's rules and seed, the top of the file: a file that names them in a
/// table instead, as configs written before did (`[selfplay]` or `[train] rules`, `[selfplay]
/// seed`), has them moved there. Refused: a value at the top and in a table, and `[selfplay]`
/// and `[train]` rules of different games (komi and turn cap aside; the self-play's are the
/// run's).
fn lift_run_keys(doc: &mut toml::Table) -> Result<(), Invalid> {
    let mut take = |table: &str, key: &str| {
        doc.get_mut(table).and_then(toml::Value::as_table_mut).and_then(|t| t.remove(key))
    };
    let (play, train) = (take("selfplay", "rules"), take("train", "rules"));
    let seed = take("selfplay", "seed");
    let twice = |key: &str, table: &str, top: &toml::Value, there: &toml::Value| {
        Invalid(format!(
            "{key} = {top} at the top and {key} = {there} in [{table}]: the run's {key} is named once, \
             at the top of the file"
        ))
    };
    if let Some(top) = doc.get("rules") {
        for (table, there) in [("selfplay", &play), ("train", &train)] {
            if let Some(there) = there {
                return Err(twice("rules", table, top, there));
            }
        }
    } else if let Some(rules) = match (play, train) {
        (Some(play), Some(train)) => {
            let parse = |table: &str, v: &toml::Value| {
                let text =
                    v.as_str().ok_or_else(|| Invalid(format!("[{table}] rules = {v}: allowed a string")))?;
                text.parse::<Rules>().map_err(|e| Invalid(format!("[{table}] rules = {v}: {e}")))
            };
            if !parse("selfplay", &play)?.same_game(&parse("train", &train)?) {
                return Err(Invalid(format!(
                    "[selfplay] rules = {play} and [train] rules = {train} are not the same game: the \
                     net would be trained on the data of another"
                )));
            }
            Some(play)
        }
        (play, train) => play.or(train),
    } {
        doc.insert("rules".into(), rules);
    }
    if let Some(there) = seed {
        if let Some(top) = doc.get("seed") {
            return Err(twice("seed", "selfplay", top, &there));
        }
        doc.insert("seed".into(), there);
    }
    Ok(())
}

/// What the run's seed allows: a config file's integers stop at `i64::MAX`.
pub const SEEDS: Allowed<u64> = Allowed::closed(0, i64::MAX as u64);

/// `text` with the run's seed set to `seed` at the top of the file (a `[selfplay] seed` of an
/// older file removed); comments and every other key kept as they are. Text that is not TOML is
/// returned unchanged, for [`parse`] to report with its line.
pub fn with_seed(text: &str, seed: u64) -> Result<String, Invalid> {
    SEEDS.check("--seed", seed)?;
    let Ok(mut doc) = text.parse::<toml_edit::DocumentMut>() else { return Ok(text.to_string()) };
    if let Some(t) = doc.get_mut("selfplay").and_then(toml_edit::Item::as_table_like_mut) {
        t.remove("seed");
    }
    doc["seed"] = toml_edit::value(seed as i64);
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_replaces_the_configs_own_or_is_added() {
        let shipped = include_str!("../../../configs/ttakji-5x5.toml");
        let base = parse(shipped).unwrap();
        let seeded = with_seed(shipped, 7).unwrap();
        let mut cfg = parse(&seeded).unwrap();
        assert_eq!((cfg.seed, cfg.selfplay.seed), (7, 7));
        assert!(seeded.contains("# Seed of everything random in the run"), "comments kept");
        (cfg.seed, cfg.selfplay.seed) = (base.seed, base.selfplay.seed);
        assert_eq!(cfg, base, "nothing else changed");
        assert_eq!(with_seed(&seeded, 7).unwrap(), seeded, "setting it again changes nothing");
        let older = "[selfplay]\nthreads = 2\nseed = 4\n[train]\nsteps = 5\n";
        let cfg = parse(&with_seed(older, 3).unwrap()).unwrap();
        assert_eq!(
            (cfg.seed, cfg.selfplay.threads, cfg.train.steps),
            (3, 2, 5),
            "an older file's seed replaced"
        );
        assert_eq!(parse(older).unwrap().seed, 4, "an older file's [selfplay] seed is the run's");
        assert_eq!(parse(&with_seed("[loop]\ngames = 4\n", 9).unwrap()).unwrap().selfplay.seed, 9);
        assert_eq!(parse(&with_seed("", 9).unwrap()).unwrap().seed, 9);
        let e = with_seed("", u64::MAX).unwrap_err().0;
        assert!(
            e.starts_with("--seed 18446744073709551615") || e.starts_with("--seed = 18446744073709551615"),
            "{e}"
        );
        assert!(err("seed = 2\n[selfplay]\nseed = 3\n").contains("named once"));
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
            let rules = cfg.selfplay.played_rules();
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
        assert_eq!(one.train.rules.to_string(), "loose,size=5", "named once, the rules serve both tables");
        let other = parse("[train]\nrules = \"sligo,size=4\"\n").unwrap();
        assert_eq!(other.selfplay.rules.to_string(), "sligo,size=4");
        let top = parse("rules = \"brainking,size=7\"\n[train]\nsteps = 5\n").unwrap();
        assert_eq!((top.rules, top.selfplay.rules, top.train.rules), (top.rules, top.rules, top.rules));
        assert_eq!(top.rules.to_string(), "brainking,size=7");
        let e = err("rules = \"ttakji,size=5\"\n[train]\nrules = \"ttakji,size=5\"\n");
        assert!(e.contains("at the top") && e.contains("[train]") && e.contains("named once"), "{e}");
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
