//! A game between a person and hane over a text stream: what `hane play` runs in the
//! terminal.
//!
//! Before each of the human's turns the board is drawn (Black `X`, White `O`) with whose turn
//! it is and the score if the game ended now. A turn is typed in hane's notation (`D4`,
//! `pass`, Sligo `E5>F6+D4`: slide E5 to F6, then place D4); `undo` takes back the human's
//! last turn and hane's reply, `help` lists the commands and `quit` stops. Bad input gets an
//! error line and the prompt again; the end of input stops the game like `quit`. At the end
//! the final score and the winner are printed. hane's turns come from a [`Brain`], the search
//! `hane gtp` plays with.

use crate::brain::Brain;
use hane_engine::rules::Variant;
use hane_engine::{Color, Game, GameState, Outcome, Rules, Score, Turn};
use std::io::{self, BufRead, Write};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn session(rules: &str, human: Color, input: &str) -> String {
        let rules: Rules = rules.parse().unwrap();
        let mut brain = Brain::with_rollouts(8, 1).unwrap();
        let mut out = Vec::new();
        play(GameState::new(rules), human, &mut brain, input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_scripted_game_plays_undoes_refuses_and_scores() {
        let out = session("ttakji,size=5", Color::Black, "C3\nundo\nundo\nZ9\nC3\nquit\n");
        assert!(out.contains("you are Black"), "{out}");
        assert_eq!(out.matches("hane (White) plays").count(), 2, "{out}");
        assert!(out.contains("Took back your last turn."), "{out}");
        assert!(out.contains("error: nothing to undo"), "{out}");
        assert!(out.contains("error: ") && out.contains("(type help for the commands)"), "{out}");
        assert!(out.contains("Game stopped at turn 2.") && out.contains("Final score: Black"), "{out}");
        // hane moves first when the human is White; the end of input stops the game.
        let out = session("sligo,size=4", Color::White, "help\n");
        assert!(out.starts_with("hane play, rules sligo"), "{out}");
        assert!(out.contains("hane (Black) plays") && out.contains("slide your stone"), "{out}");
        assert!(out.contains("Game stopped at turn 1."), "{out}");
    }
}
