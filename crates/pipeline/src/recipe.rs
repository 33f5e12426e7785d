//! The recipe: the settings that depend on the board, derived from its size by stated rules,
//! so a config that names only its rule set and size gets a run fitted to that board. A key
//! the config sets is kept as written; every key below that it leaves out takes the recipe's
//! value instead of the fixed default of its table.
//!
//! With N the board's side and A = N² its area, in points:
//!
//! | key | rule | 5x5 | 7x7 | 9x9 |
//! |---|---|---|---|---|
//! | `[selfplay] komi_stdev` | 0.8 N (two decimals) | 4.0 | 5.6 | 7.2 |
//! | `[selfplay] komi_wide` | 1.5 / N (two decimals) | 0.3 | 0.21 | 0.17 |
//! | `[selfplay] opening_moves` | 2 | 2 | 2 | 2 |
//! | `[selfplay] temperature_halflife` | (N + 1) / 2 turns | 3 | 4 | 5 |
//! | `[train] window_min_rows` | 800 A | 20,000 | 39,200 | 64,800 |
//! | `[train.net] blocks` | (N + 1) / 2 | 3 | 4 | 5 |
//! | `[train.net] channels` | 8 (N − 1) | 32 | 48 | 64 |
//! | `[loop] games` | 10,000 / A, rounded | 400 | 204 | 123 |
//!
//! Why these: scores on a bigger board spread further, so the komi draws around the estimate
//! widen with the side; the uniform wide draws shrink with it, since most of a bigger board's
//! range is already decided. Two opening moves from the raw policy on every size, because only
//! the games that open with none record the empty board the komi estimate searches from. The
//! temperature falls over the first half of a side's length of turns. The window, the net and
//! a generation's games grow with the area, a generation holding about the same number of
//! board points (games × A) on every size. The 5x5 column is the shipped 5x5 recipe, whose
//! answer is known; the others follow from the rules, not from tuning on their own answer.

use hane_engine::Rules;

/// The recipe's values for one board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recipe {
    /// `[selfplay] komi_stdev`.
    pub komi_stdev: f64,
    /// `[selfplay] komi_wide`.
    pub komi_wide: f64,
    /// `[selfplay] opening_moves`.
    pub opening_moves: f64,
    /// `[selfplay] temperature_halflife`.
    pub temperature_halflife: f64,
    /// `[train] window_min_rows`.
    pub window_min_rows: u64,
    /// `[train.net] blocks`.
    pub blocks: u64,
    /// `[train.net] channels`.
    pub channels: u64,
    /// `[loop] games`.
    pub games: u64,
}

impl Recipe {
    /// The recipe for a board of `size` points a side.
    pub fn for_size(size: u8) -> Recipe {
        let n = u64::from(size);
        let area = n * n;
        // Two decimals, so the TOML a user reads back matches the table above.
        let round2 = |x: f64| (x * 100.0).round() / 100.0;
        Recipe {
            komi_stdev: round2(0.8 * n as f64),
            komi_wide: round2(1.5 / n as f64),
            opening_moves: 2.0,
            temperature_halflife: n.div_ceil(2) as f64,
            window_min_rows: 800 * area,
            blocks: n.div_ceil(2),
            channels: 8 * n.saturating_sub(1).max(1),
            games: ((10_000.0 / area as f64).round() as u64).max(1),
        }
    }

    /// Fills every key of the recipe that `doc` leaves out, for the board of its `rules` (the
    /// default rule set when it names none). A rule string that does not parse is left for the
    /// config's own check to report.
    pub fn fill(doc: &mut toml::Table) {
        let rules = match doc.get("rules") {
            Some(toml::Value::String(s)) => s.parse::<Rules>().ok(),
            Some(_) => None,
            None => Some(hane_selfplay::SelfplayConfig::default().rules),
        };
        let Some(rules) = rules else { return };
        let r = Recipe::for_size(rules.size);
        let float = toml::Value::Float;
        let int = |x: u64| toml::Value::Integer(x as i64);
        set_absent(doc, &["selfplay"], "komi_stdev", float(r.komi_stdev));
        set_absent(doc, &["selfplay"], "komi_wide", float(r.komi_wide));
        set_absent(doc, &["selfplay"], "opening_moves", float(r.opening_moves));
        set_absent(doc, &["selfplay"], "temperature_halflife", float(r.temperature_halflife));
        set_absent(doc, &["train"], "window_min_rows", int(r.window_min_rows));
        set_absent(doc, &["train", "net"], "blocks", int(r.blocks));
        set_absent(doc, &["train", "net"], "channels", int(r.channels));
        set_absent(doc, &["loop"], "games", int(r.games));
    }
}

/// Sets `key` in the table at `path` when it is absent, making the tables on the way; a
/// path through something other than a table is left alone (the config's check reports it).
fn set_absent(doc: &mut toml::Table, path: &[&str], key: &str, value: toml::Value) {
    let mut t = doc;
    for name in path {
        let entry = t.entry(name.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let toml::Value::Table(inner) = entry else { return };
        t = inner;
    }
    t.entry(key.to_string()).or_insert(value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_in_the_docs_is_what_the_rules_give() {
        let r = |n| Recipe::for_size(n);
        assert_eq!(
            r(5),
            Recipe {
                komi_stdev: 4.0,
                komi_wide: 0.3,
                opening_moves: 2.0,
                temperature_halflife: 3.0,
                window_min_rows: 20_000,
                blocks: 3,
                channels: 32,
                games: 400
            }
        );
        assert_eq!(
            (r(7).komi_stdev, r(7).komi_wide, r(7).games, r(7).blocks, r(7).channels),
            (5.6, 0.21, 204, 4, 48)
        );
        assert_eq!(
            (r(9).komi_stdev, r(9).window_min_rows, r(9).games, r(9).channels),
            (7.2, 64_800, 123, 64)
        );
        assert_eq!((r(19).games, r(19).blocks, r(19).channels), (28, 10, 144));
        assert_eq!((r(2).games, r(2).channels), (2500, 8));
    }

    #[test]
    fn absent_keys_are_filled_for_the_configs_board_and_set_ones_kept() {
        let mut doc: toml::Table = toml::from_str(
            "rules = \"loose,size=7\"\n[selfplay]\nkomi_stdev = 1.5\n[train.net]\nblocks = 2\n",
        )
        .unwrap();
        Recipe::fill(&mut doc);
        assert_eq!(doc["selfplay"]["komi_stdev"].as_float(), Some(1.5));
        assert_eq!(doc["selfplay"]["komi_wide"].as_float(), Some(0.21));
        assert_eq!(doc["train"]["net"]["blocks"].as_integer(), Some(2));
        assert_eq!(doc["train"]["net"]["channels"].as_integer(), Some(48));
        assert_eq!(doc["loop"]["games"].as_integer(), Some(204));
        // No rules: the default rule set's board (9x9).
        let mut doc = toml::Table::new();
        Recipe::fill(&mut doc);
        assert_eq!(doc["loop"]["games"].as_integer(), Some(123));
        // Rules that do not parse, or a table that is not one: left for the config's check.
        let mut doc: toml::Table = toml::from_str("rules = \"go,size=99\"\n").unwrap();
        Recipe::fill(&mut doc);
        assert!(doc.get("loop").is_none());
        let mut doc: toml::Table = toml::from_str("train = 3\n").unwrap();
        Recipe::fill(&mut doc);
        assert_eq!(doc["train"].as_integer(), Some(3));
    }
}
