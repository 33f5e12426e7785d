//! `hane match`: a match between two players (nets, search stand-ins, GNU Go or any GTP
//! engine), refereed and scored by hane's rules. Colours alternate and each pair of games
//! shares a random opening with the colours swapped. Prints a line per game, then a table with
//! the second player's Elo relative to the first (95% interval); `--json` also writes the
//! report. Ctrl-C or SIGTERM abandons the game in flight before its next move and exits with
//! code 130, writing no report.

use crate::output::{errln, outln};
use crate::rules_args::RulesArgs;
use crate::stop::{self, Second};
use crate::Failure;
use hane_engine::range::in_range;
use hane_eval::arena::{run_match, tally, MatchSettings};
use hane_eval::elo::Wdl;
use hane_mcts::MAX_VISITS;
use hane_pipeline::players::player;
use hane_pipeline::Stoppable;
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
    /// Games to play (the first player has Black in the odd-numbered ones; 1..=100000).
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// Search visits per decision for hane's players (1..=1000000).
    #[arg(long, default_value_t = 64)]
    visits: u32,
    /// Random opening turns before the players take over (0..=1000).
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
    in_range("--games", a.games, 1..=100_000).map_err(Failure::input)?;
    in_range("--visits", a.visits, 1..=MAX_VISITS).map_err(Failure::input)?;
    in_range("--opening-turns", a.opening_turns, 0..=1000).map_err(Failure::input)?;
    // Without a net nothing runs libtorch, and a second Ctrl-C may quit at once.
    let nets = [&a.a, &a.b].iter().any(|p| p.starts_with("model:"));
    stop::install("before the next move", if nets { Second::Wait } else { Second::Exit })?;
    let mut pa = player(&a.a, &rules, a.visits, a.seed)?;
    let mut pb = player(&a.b, &rules, a.visits, a.seed.wrapping_add(1 << 32))?;
    let settings = MatchSettings { games: a.games, opening_turns: a.opening_turns, seed: a.seed };
    let mut w = Wdl::default();
    let stop = stop::stop();
    let pa = &mut Stoppable { player: pa.as_mut(), stop: &stop };
    let pb = &mut Stoppable { player: pb.as_mut(), stop: &stop };
    let report = run_match(&rules, pa, pb, &settings, &mut |i, g| {
        tally(&mut w, i, g);
        errln!(
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
    .map_err(|e| match stop.game_error(e) {
        hane_pipeline::Error::Interrupted => {
            stop::interrupted("the match was not finished, and no report was written")
        }
        e => Failure::from(e),
    })?;
    outln!("{}", report.table().trim_end());
    crate::write_json(a.json.as_deref(), &report)
}
