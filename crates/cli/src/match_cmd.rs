//! `hane match`: a match between two players (nets, search stand-ins, GNU Go or any GTP
//! engine), refereed and scored by hane's rules. Colours alternate and each pair of games
//! shares a random opening with the colours swapped. Prints a line per game, then a table with
//! the second player's Elo relative to the first (95% interval); `--json` also writes the
//! report. Ctrl-C or SIGTERM abandons the game in flight before its next move (or the wait
//! for a GTP engine's answer, killing it) and exits with code 130; with `--json` the games
//! finished are written, marked partial, and the same command resumes after them
//! ([`hane_pipeline::match_report`]). A GTP engine that does not answer within
//! `--gtp-timeout` is killed and loses the game by forfeit.

use crate::output::{errln, outln};
use crate::rules_args::RulesArgs;
use crate::stop::{self, Second};
use crate::Failure;
use hane_engine::range::TURNS;
use hane_eval::arena::MATCH_GAMES;
use hane_eval::arena::{play_on, tally, MatchReport, MatchSettings};
use hane_eval::elo::Wdl;
use hane_eval::gtp::{GtpLimits, DEFAULT_TIMEOUT, TIMEOUT_SECS};
use hane_eval::referee::{GameResult, Player};
use hane_mcts::{Precision, VISITS};
use hane_pipeline::match_report::{self, MatchArgs};
use hane_pipeline::players::{net_note, player};
use hane_pipeline::{Interrupt, Stoppable};
use std::path::PathBuf;
use std::time::Duration;

/// Arguments of `hane match`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// First player: model:PATH, rollout, uniform, gnugo[:LEVEL] or gtp:COMMAND.
    #[arg(long)]
    a: String,
    /// Second player (same forms).
    #[arg(long)]
    b: String,
    /// An opening book (`hane book`) the first player plays from wherever the game is in it.
    #[arg(long)]
    a_book: Option<std::path::PathBuf>,
    /// An opening book for the second player.
    #[arg(long)]
    b_book: Option<std::path::PathBuf>,
    #[arg(long, default_value_t = 10,
        help = format!("Games to play (the first player has Black in the odd-numbered ones; {MATCH_GAMES})"))]
    games: u32,
    #[arg(long, default_value_t = 64, help = format!("Search visits per decision for hane's players ({VISITS})"))]
    visits: u32,
    #[arg(long, default_value_t = 2, help = format!("Random opening turns before the players take over ({TURNS})"))]
    opening_turns: u32,
    /// Seed of openings and searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the report (every game, the totals and the Elo) as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    #[arg(long, default_value_t = DEFAULT_TIMEOUT.as_secs_f64(), help = format!(
        "Seconds a GTP engine has to answer one command (a move); one that does not answer in \
         time is killed and loses the game by forfeit ({TIMEOUT_SECS})"
    ))]
    gtp_timeout: f64,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
    /// The first player's precision, if not --precision's (a net against its bf16 copy).
    #[arg(long)]
    a_precision: Option<Precision>,
    /// The second player's precision, if not --precision's.
    #[arg(long)]
    b_precision: Option<Precision>,
}

/// Runs `hane match`.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules = a.rules.rules()?;
    MATCH_GAMES.check("--games", a.games).map_err(Failure::input)?;
    VISITS.check("--visits", a.visits).map_err(Failure::input)?;
    TURNS.check("--opening-turns", a.opening_turns).map_err(Failure::input)?;
    TIMEOUT_SECS.check("--gtp-timeout", a.gtp_timeout).map_err(Failure::input)?;
    let precision = a.precision.get();
    let (a_precision, b_precision) = (a.a_precision.unwrap_or(precision), a.b_precision.unwrap_or(precision));
    let args = MatchArgs {
        rules: rules.to_string(),
        a: a.a.clone(),
        b: a.b.clone(),
        games: a.games,
        visits: a.visits,
        opening_turns: a.opening_turns,
        seed: a.seed,
        a_precision,
        b_precision,
    };
    let mut games = match &a.json {
        Some(file) => match_report::resume(file, &args)?,
        None => Vec::new(),
    };
    if !games.is_empty() {
        errln!("resuming: {} of {} games already played", games.len(), a.games);
    }
    // Without a net nothing runs libtorch, and a second Ctrl-C may quit at once.
    let nets = [&a.a, &a.b].iter().any(|p| p.starts_with("model:"));
    stop::install("before the next move", if nets { Second::Wait } else { Second::Exit })?;
    let stop = stop::stop();
    let gtp = GtpLimits { timeout: Duration::from_secs_f64(a.gtp_timeout), stop: stop.clone() };
    for spec in [&a.a, &a.b] {
        if let Some(note) = spec.strip_prefix("model:").and_then(|p| net_note(p.as_ref(), &rules)) {
            errln!("hane: {spec}: {note}");
        }
    }
    let mut pa = player(&a.a, &rules, a.visits, a.seed, &gtp, a_precision)?;
    let mut pb = player(&a.b, &rules, a.visits, a.seed.wrapping_add(1 << 32), &gtp, b_precision)?;
    if let Some(path) = &a.a_book {
        pa = Box::new(hane_pipeline::book::BookPlayer::new(path, &rules, pa)?);
    }
    if let Some(path) = &a.b_book {
        pb = Box::new(hane_pipeline::book::BookPlayer::new(path, &rules, pb)?);
    }
    let settings = MatchSettings { games: a.games, opening_turns: a.opening_turns, seed: a.seed };
    let mut w = Wdl::default();
    for (i, g) in games.iter().enumerate() {
        tally(&mut w, i as u32, g);
    }
    let pa = &mut Stoppable { player: pa.as_mut(), stop: &stop };
    let pb = &mut Stoppable { player: pb.as_mut(), stop: &stop };
    let played = play_on(&rules, pa, pb, &settings, &mut games, &mut |i, g| {
        tally(&mut w, i, g);
        errln!("{}", game_line(i, a.games, g, &w));
    });
    let report = MatchReport::of(&rules, pa.name(), pb.name(), games);
    let partial = played.is_err();
    if let Some(file) = &a.json {
        match_report::save(file, &args, &report, partial)?;
    }
    played.map_err(|e| match stop.game_error(e) {
        hane_pipeline::Error::Interrupted => stop::interrupted(&match &a.json {
            Some(file) => format!(
                "{} finished games written to {}; {}",
                report.games.len(),
                file.display(),
                stop::RERUN
            ),
            None => "the match was not finished (--json keeps the finished games)".into(),
        }),
        e => Failure::from(e),
    })?;
    outln!("{}", report.table().trim_end());
    Ok(())
}

/// The line printed after game `i` of `games`, with the first player's results `w` so far.
fn game_line(i: u32, games: u32, g: &GameResult, w: &Wdl) -> String {
    let by = match &g.forfeit {
        Some(why) => format!("forfeit ({why})"),
        None => format!("{:.1}", g.margin_black.abs()),
    };
    format!(
        "game {}/{games}: {} (B) vs {} (W): {} by {by} in {} turns; first player {}-{}-{}",
        i + 1,
        g.black,
        g.white,
        g.winner,
        g.turns,
        w.wins,
        w.draws,
        w.losses
    )
}
