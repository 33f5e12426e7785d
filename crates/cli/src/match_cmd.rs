//! `hane match`: a match between two players (nets, search stand-ins, GNU Go or any GTP
//! engine), refereed and scored by hane's rules. Colours alternate and each pair of games
//! shares a random opening with the colours swapped. Prints a line per game, then a table with
//! the second player's Elo relative to the first (95% interval); `--json` also writes the
//! report.

use crate::players::player;
use crate::rules_args::RulesArgs;
use crate::Failure;
use hane_data::shard::write_atomic;
use hane_eval::arena::{run_match, tally, MatchSettings};
use hane_eval::elo::Wdl;
use std::path::PathBuf;

/// Arguments of `hane match`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// First player: model:PATH, rollout, uniform, gnugo[:LEVEL] or gtp:COMMAND.
    #[arg(long)]
    a: String,
    /// Second player (same forms).
    #[arg(long)]
    b: String,
    /// Games to play (the first player has Black in the odd-numbered ones).
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// Search visits per decision for hane's players.
    #[arg(long, default_value_t = 64)]
    visits: u32,
    /// Random opening turns before the players take over.
    #[arg(long, default_value_t = 2)]
    opening_turns: u32,
    /// Seed of openings and searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the report (every game, the totals and the Elo) as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let rules = a.rules.rules()?;
    if a.games == 0 || a.visits == 0 {
        return Err(Failure::input("--games and --visits must be at least 1"));
    }
    let mut pa = player(&a.a, &rules, a.visits, a.seed)?;
    let mut pb = player(&a.b, &rules, a.visits, a.seed.wrapping_add(1 << 32))?;
    let settings = MatchSettings { games: a.games, opening_turns: a.opening_turns, seed: a.seed };
    let mut w = Wdl::default();
    let report = run_match(&rules, pa.as_mut(), pb.as_mut(), &settings, &mut |i, g| {
        tally(&mut w, i, g);
        eprintln!(
            "game {}/{}: {} (B) vs {} (W): {} by {:.1} in {} turns; first player {}-{}-{}",
            i + 1,
            a.games,
            g.black,
            g.white,
            g.winner,
            g.margin_black.abs(),
            g.turns,
            w.wins,
            w.draws,
            w.losses
        );
    })
    .map_err(|e| Failure { code: 1, message: e.to_string() })?;
    print!("{}", report.table());
    if let Some(path) = &a.json {
        let text = serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?;
        write_atomic(path, text.as_bytes()).map_err(|e| Failure { code: 1, message: e.to_string() })?;
    }
    Ok(())
}
