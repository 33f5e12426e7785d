//! `hane play`: a game against hane in the terminal, under any rule set.
//!
//! Before each of the human's turns the board is drawn (Black `X`, White `O`) with whose turn
//! it is and the score if the game ended now. A turn is typed in hane's notation (`D4`,
//! `pass`, Sligo `E5>F6+D4`: slide E5 to F6, then place D4); `undo` takes back the human's
//! last turn and hane's reply, `help` lists the commands and `quit` stops. Bad input gets an
//! error line and the prompt again; the end of input stops the game like `quit`. At the end
//! the final score and the winner are printed.
//!
//! hane's turns come from the same search as `hane gtp` ([`Brain`]): `--visits` visits per
//! decision, evaluated by the net of `--model` (a checkpoint for these rules) or by random
//! rollouts.

use crate::Failure;
use hane_engine::rules::Variant;
use hane_engine::{Color, Game, GameState, Outcome, Rules, Score, Turn};
use hane_pipeline::gtp::Brain;
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// Arguments of `hane play`.
#[derive(clap::Args)]
pub struct Args {
    /// Rule set, e.g. `ttakji,size=9`, `loose,size=7` or `sligo,size=5`.
    #[arg(long)]
    rules: String,
    /// A checkpoint (.safetensors from `hane train`) for these rules; without one hane
    /// evaluates positions with random rollouts.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Search visits per decision of hane.
    #[arg(long, default_value_t = 128)]
    visits: u32,
    /// Your colour: b (you move first) or w.
    #[arg(long, default_value = "b")]
    color: String,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `hane play` on stdin/stdout.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules: Rules = a.rules.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
    let human = match a.color.to_ascii_lowercase().as_str() {
        "b" | "black" => Color::Black,
        "w" | "white" => Color::White,
        other => return Err(Failure::input(format!("--color {other:?}: allowed: b, w"))),
    };
    let mut brain = Brain::new(a.model.as_deref(), rules, a.visits, a.seed)?;
    let mut out = io::stdout().lock();
    play(GameState::new(rules), human, &mut brain, io::stdin().lock(), &mut out)
        .map_err(|e| anyhow::anyhow!("hane play: {e}"))?;
    Ok(())
}

/// `Black` or `White`.
fn name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The totals and who wins with them, e.g. `Black 12, White 6.5: Black wins by 5.5`.
fn describe(s: &Score) -> String {
    let margin = s.margin_black().abs();
    let result = match s.winner {
        Outcome::Draw => "a draw".to_string(),
        w => {
            let w = if w == Outcome::Black { "Black" } else { "White" };
            if margin > 0.0 {
                format!("{w} wins by {margin}")
            } else {
                format!("{w} wins on the tie-break")
            }
        }
    };
    format!("Black {}, White {}: {result}", s.black, s.white)
}

fn help(rules: &Rules) -> String {
    let slide = if rules.variant == Variant::Sligo {
        "  E5>F6+D4   slide your stone from E5 to F6, then place at D4 (D4 alone: no slide)\n"
    } else {
        ""
    };
    format!(
        "Commands:\n  D4         place a stone (column letter, row number)\n{slide}  \
         pass       pass (two passes in a row end the game)\n  \
         undo       take back your last turn and hane's reply\n  \
         help       show this text\n  \
         quit       stop the game and show the score\n"
    )
}

/// How the loop ended.
enum End {
    /// The game is over under the rules.
    Over,
    /// `quit`.
    Quit,
    /// End of input.
    Eof,
}

/// Plays a game from `game` between the human (colour `human`, turns read from `input`)
/// and `brain`, writing the board, hane's turns and the final score to `out`. Only a
/// failure to read `input` or to write `out` is an error.
pub fn play(
    mut game: GameState,
    human: Color,
    brain: &mut Brain,
    mut input: impl BufRead,
    out: &mut impl Write,
) -> io::Result<()> {
    let rules = *game.rules();
    writeln!(
        out,
        "hane play, rules {rules}: you are {} (X for Black, O for White), hane is {}. Type help for the commands.",
        name(human),
        name(human.opp())
    )?;
    // The positions before each of the human's turns, for undo.
    let mut history: Vec<GameState> = Vec::new();
    let mut show = true;
    let mut line = Vec::new();
    let end = loop {
        if game.is_over() {
            break End::Over;
        }
        if game.to_move() != human {
            let before = game.clone();
            let actions = brain.play_turn(&mut game, false).map_err(io::Error::other)?;
            writeln!(out, "hane ({}) plays {}", name(before.to_move()), Turn::name_of(&before, &actions))?;
            show = true;
            continue;
        }
        if show {
            write!(out, "\n{game}If the game ended now: {}\n", describe(&game.score()))?;
            show = false;
        }
        write!(out, "{}> ", name(human).to_ascii_lowercase())?;
        out.flush()?;
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            writeln!(out)?;
            break End::Eof;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        match text.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" => break End::Quit,
            "help" => write!(out, "{}", help(&rules))?,
            "undo" => match history.pop() {
                Some(g) => {
                    game = g;
                    writeln!(out, "Took back your last turn.")?;
                    show = true;
                }
                None => writeln!(out, "error: nothing to undo")?,
            },
            _ => {
                let before = game.clone();
                match Turn::play_named(&mut game, text) {
                    Ok(_) => {
                        history.push(before);
                        show = true;
                    }
                    Err(e) => writeln!(out, "error: {e} (type help for the commands)")?,
                }
            }
        }
    };
    let s = game.score();
    match end {
        End::Over => write!(out, "\n{game}Game over.")?,
        End::Quit | End::Eof => write!(out, "Game stopped at turn {}.", game.turns())?,
    }
    let verdict = match s.winner {
        Outcome::Draw => "",
        w if w.value_for(human) > 0.0 => " You win.",
        _ => " hane wins.",
    };
    writeln!(out, " Final score: {}.{verdict}", describe(&s))?;
    out.flush()
}
