//! `hane solve`: the exact minimax result of a tiny board from the empty board (alpha-beta
//! with a transposition table, `hane_solver`), hence its exact fair komi. Progress is
//! printed as the proven bounds narrow. What is proved is saved to a file every few minutes
//! and when the run stops (by default under `~/.cache/hane/solve/`, named by the rules), and
//! the same command continues from it. Ctrl-C or SIGTERM gives up within a few thousand nodes
//! (milliseconds), saves, and exits with code 130 (a second one exits at once: nothing here
//! runs libtorch; the last save is then the one kept, as after a kill). A save of another
//! position, of another format or damaged is refused (exit code 2).

use crate::output::{errln, outln};
use crate::rules_args::RulesArgs;
use crate::stop::{self, Second};
use crate::Failure;
use hane_engine::sgf::SgfGame;
use hane_engine::{Geometry, Komi, Rules, Turn};
use hane_solver::{solve_guessing, test_at_least, SaveTo, SolveError, SolveOptions, TABLE_ENTRY_BYTES};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `hane solve`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// Memory the transposition table may grow to, in MiB [default: a quarter of the
    /// machine's memory].
    #[arg(long, conflicts_with = "table_bits")]
    table_mb: Option<u64>,
    #[arg(long, help = format!(
        "Instead of --table-mb: the table grows to at most 2^BITS entries (BITS {})",
        hane_solver::TABLE_BITS
    ))]
    table_bits: Option<u32>,
    /// Give up after this many nodes.
    #[arg(long)]
    node_limit: Option<u64>,
    /// Also write the solution as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// An expected value (4 * Black's margin + tie, as the progress lines print it), e.g.
    /// from a published result: tested first, so a right guess ends the search sooner. The
    /// result does not depend on it.
    #[arg(long, allow_hyphen_values = true)]
    guess: Option<i32>,
    /// Instead of solving, prove or refute one predicate: is the value (4 * Black's margin +
    /// tie) at least T? With --guess, only the proof search of the side the guess says wins
    /// runs (the answer does not depend on the guess, only the time).
    #[arg(long, allow_hyphen_values = true, value_name = "T", conflicts_with_all = ["values", "line", "sgf"])]
    at_least: Option<i32>,
    /// Save what is proved to this file and continue from it [default: under
    /// ~/.cache/hane/solve/, named by the rules].
    #[arg(long, conflicts_with = "no_save")]
    save: Option<PathBuf>,
    /// Neither save nor continue a saved solve.
    #[arg(long)]
    no_save: bool,
    /// Seconds between two saves.
    #[arg(long, default_value_t = 300)]
    save_every: u64,
    /// Once solved, also prove Black's margin after every first move (one per class of
    /// symmetric moves).
    #[arg(long)]
    values: bool,
    /// Once solved, also find and print a principal variation: moves that keep the value to
    /// the end of the game.
    #[arg(long)]
    line: bool,
    /// Write the principal variation to this SGF file (implies --line); its result is the
    /// engine's count of the final position.
    #[arg(long)]
    sgf: Option<PathBuf>,
}

/// The machine's memory in MiB, from `/proc/meminfo`.
fn memory_mb() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The default save file of a solve of `rules` from the empty board.
fn default_save(rules: &str) -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    let name: String = rules.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    cache.join("hane").join("solve").join(format!("{name}.table"))
}

/// Runs `hane solve`.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules = a.rules.rules()?;
    if rules.size > 6 {
        return Err(Failure::input(format!(
            "--size {}: the exact solver is for boards up to 6x6",
            rules.size
        )));
    }
    let memory = memory_mb();
    let table_entries = match (a.table_bits, a.table_mb) {
        (Some(bits), _) => {
            hane_solver::TABLE_BITS.check("--table-bits", bits).map_err(Failure::input)?;
            1usize << bits
        }
        (None, mb) => {
            let mb = mb.unwrap_or(memory.map_or(1024, |m| m / 4));
            if mb == 0 || memory.is_some_and(|m| mb > m) {
                return Err(Failure::input(format!(
                    "--table-mb {mb}: more than none and at most this machine's {} MiB",
                    memory.unwrap_or(0)
                )));
            }
            mb.checked_mul(1 << 20)
                .and_then(|bytes| usize::try_from(bytes / TABLE_ENTRY_BYTES as u64).ok())
                .ok_or_else(|| Failure::input(format!("--table-mb {mb}: too large")))?
        }
    };
    if a.save_every == 0 {
        return Err(Failure::input("--save-every 0: at least one second"));
    }
    let save = match (a.no_save, a.save) {
        (true, _) => None,
        (false, Some(path)) => Some(path),
        (false, None) => Some(default_save(&rules.to_string())),
    };
    if let Some(dir) = save.as_ref().and_then(|p| p.parent()).filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::input(format!("cannot create {} for the save: {e}", dir.display())))?;
    }
    let options = SolveOptions {
        table_bits: 0,
        table_entries: Some(table_entries),
        save: save.clone().map(|path| SaveTo { path, every: Duration::from_secs(a.save_every) }),
        progress_every: 1 << 22,
        node_limit: a.node_limit.unwrap_or(u64::MAX),
        stop: stop::stop(),
        values: a.values,
        line: a.line || a.sgf.is_some(),
    };
    stop::install("the search", Second::Exit)?;
    errln!(
        "solving {rules} from the empty board (value = 4 * margin + tie), table up to {} MiB",
        (table_entries * TABLE_ENTRY_BYTES) >> 20
    );
    match &save {
        Some(p) if p.exists() => errln!("continuing the saved solve in {}", p.display()),
        Some(p) => errln!("saving to {} every {} s and when stopped", p.display(), a.save_every),
        None => {}
    }
    let failure = |e| match e {
        SolveError::Unfinished(_) if stop::requested() => stop::interrupted(&match &save {
            Some(p) => format!("what was proved is saved in {}; {}", p.display(), stop::RERUN),
            None => "nothing was saved (--no-save)".into(),
        }),
        SolveError::Resume(_) | SolveError::Table(_) => Failure::input(e.to_string()),
        e => Failure::other(e),
    };
    if let Some(t) = a.at_least {
        let expect = a.guess.map(|v| v >= t);
        let v = test_at_least(&rules, &[], t, expect, &options, &mut |p| errln!("{p}")).map_err(failure)?;
        let answer = if v.holds { "proved" } else { "refuted" };
        outln!("{rules}: value >= {t} {answer} (value in [{}, {}], 4 * margin + tie)", v.lower, v.upper);
        outln!("{} nodes, {} table hits in {:.1}s", v.stats.nodes, v.stats.table_hits, v.stats.seconds);
        return crate::write_json(a.json.as_deref(), &v);
    }
    let s = solve_guessing(&rules, &[], a.guess, &options, &mut |p| errln!("{p}")).map_err(failure)?;
    outln!("{s}");
    if let Some(path) = &a.sgf {
        hane_pipeline::write_file(path, line_sgf(&rules, &s.line)?.as_bytes())?;
    }
    crate::write_json(a.json.as_deref(), &s)
}

/// The principal variation `line` from the empty board under `rules` (komi 0) as SGF.
fn line_sgf(rules: &Rules, line: &[String]) -> Result<String, Failure> {
    let mut game = SgfGame::new(Rules { komi: Komi(0), ..*rules });
    game.black = Some("perfect play".into());
    game.white = Some("perfect play".into());
    let geo = Geometry::new(rules.size);
    for name in line {
        game.turns.push(Turn::parse(name, geo).map_err(Failure::other)?);
    }
    game.to_sgf().map_err(Failure::other)
}
