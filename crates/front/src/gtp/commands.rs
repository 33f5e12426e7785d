//! The table of GTP commands: each command's name, arguments, one line of help and handler.
//! It is the one source of what the engine answers: [`super::Engine::execute`] looks commands
//! up here, and `list_commands`, `known_command` and `hane-help` read it.
//!
//! A handler gets the engine, the command's name as sent (one handler serves `play` and
//! `hane-play`) and its arguments; it returns the response text, `None` to quit, or an error
//! text for a `?` response, and leaves the engine as it was when it fails.

use super::{
    color, exactly, fixed_handicap, free_handicap, seconds, stone_count, turn_to, Engine, GOGUI_ANALYZE,
};
use hane_engine::rules::{Komi, Variant};
use hane_engine::sgf::SgfGame;
use hane_engine::{Color, Game, Rules, Turn};
use hane_host::read;
use std::path::Path;

/// What a command's response is.
pub type Response = Result<Option<String>, String>;

/// How the engine answers a command.
#[derive(Clone, Copy, Debug)]
pub enum Run {
    /// One response from a handler.
    Plain(fn(&mut Engine, &str, &[&str]) -> Response),
    /// A live analysis ([`super::analyze`]): its response stays open until the next command.
    Analysis,
}

/// One GTP command.
#[derive(Clone, Copy, Debug)]
pub struct Command {
    /// The name a controller sends.
    pub name: &'static str,
    /// Its arguments, as `hane-help` shows them.
    pub args: &'static str,
    /// What it does, in one line.
    pub help: &'static str,
    /// How it is answered.
    pub run: Run,
}

const fn plain(
    name: &'static str,
    args: &'static str,
    help: &'static str,
    f: fn(&mut Engine, &str, &[&str]) -> Response,
) -> Command {
    Command { name, args, help, run: Run::Plain(f) }
}

const fn analysis(name: &'static str, help: &'static str) -> Command {
    Command { name, args: "[COLOR] [INTERVAL] [KEY VALUE]...", help, run: Run::Analysis }
}

/// Every command the engine answers, in the order `list_commands` prints them.
pub const TABLE: &[Command] = &[
    plain("protocol_version", "", "the GTP version spoken: 2", |_, _, a| {
        let [] = exactly(a)?;
        Ok(Some("2".into()))
    }),
    plain("name", "", "the engine's name", |_, _, a| {
        let [] = exactly(a)?;
        Ok(Some("hane".into()))
    }),
    plain("version", "", "the engine's version", |_, _, a| {
        let [] = exactly(a)?;
        Ok(Some(env!("CARGO_PKG_VERSION").into()))
    }),
    plain("known_command", "NAME", "whether the engine answers NAME: true or false", |_, _, a| {
        let [name] = exactly(a)?;
        Ok(Some(find(name).is_some().to_string()))
    }),
    plain("list_commands", "", "every command, one a line", |_, _, a| {
        let [] = exactly(a)?;
        Ok(Some(TABLE.iter().map(|c| c.name).collect::<Vec<_>>().join("\n")))
    }),
    plain("hane-help", "[NAME]", "each command (or NAME) with its arguments and what it does", help),
    plain("quit", "", "ends the session", |_, _, a| {
        let [] = exactly(a)?;
        Ok(None)
    }),
    plain("boardsize", "SIZE", "a new game on a SIZE x SIZE board", boardsize),
    plain("clear_board", "", "a new game on the same board", |e, _, a| {
        let [] = exactly(a)?;
        e.reset();
        Ok(Some(String::new()))
    }),
    plain("komi", "KOMI", "White's komi, for the game in progress too (its moves stay)", komi),
    plain("play", "COLOR VERTEX", "plays a move (a Sligo slide needs hane-play)", play),
    plain("genmove", "COLOR", "searches, plays and prints the engine's move", genmove),
    plain("undo", "", "takes back the last move", |e, _, a| {
        let [] = exactly(a)?;
        e.game = e.history.pop().ok_or("cannot undo")?;
        Ok(Some(String::new()))
    }),
    // The board ends with a newline: trimmed, as a response holds no empty line.
    plain("showboard", "", "the board as text", |e, _, a| {
        let [] = exactly(a)?;
        Ok(Some(format!("\n{}", e.game.to_string().trim_end())))
    }),
    plain("final_score", "", "the score with dead stones judged as a player would", |e, _, a| {
        let [] = exactly(a)?;
        Ok(Some(e.final_score()))
    }),
    plain("final_status_list", "dead|alive|seki", "the stones of that status", final_status_list),
    plain("fixed_handicap", "N", "places GTP's fixed handicap of N stones", handicap),
    plain("place_free_handicap", "N", "places N handicap stones where the engine chooses", handicap),
    plain("set_free_handicap", "VERTEX...", "places handicap stones on these vertices", set_free_handicap),
    plain(
        "time_settings",
        "MAIN BYO_YOMI STONES",
        "accepted and checked; the search ignores time",
        |_, _, a| {
            let [main, byo_yomi, stones] = exactly(a)?;
            seconds(main)?;
            seconds(byo_yomi)?;
            stone_count(stones)?;
            Ok(Some(String::new()))
        },
    ),
    plain("time_left", "COLOR TIME STONES", "accepted and checked; the search ignores time", |_, _, a| {
        let [c, time, stones] = exactly(a)?;
        color(c)?;
        seconds(time)?;
        stone_count(stones)?;
        Ok(Some(String::new()))
    }),
    plain("loadsgf", "FILE [MOVE]", "the game of an SGF file, up to before move MOVE", loadsgf),
    plain("kgs-genmove_cleanup", "COLOR", "genmove that captures every dead stone first", genmove),
    plain(
        "hane-rules",
        "RULES",
        "a new game under a hane rule set (ttakji, loose,size=5, ...)",
        |e, _, a| {
            let [spec] = exactly(a)?;
            e.set_rules(spec.parse::<Rules>().map_err(|err| err.to_string())?)?;
            Ok(Some(String::new()))
        },
    ),
    plain("hane-play", "COLOR TURN", "plays a turn in hane's notation (a Sligo E5>F6+D4)", play),
    plain("hane-genmove", "COLOR", "genmove answering in hane's notation", genmove),
    plain("hane-score", "", "the rules' own count of the board as it stands", |e, _, a| {
        let [] = exactly(a)?;
        let s = e.game.score();
        Ok(Some(format!("black {} white {} winner {}", s.black, s.white, s.winner.letter())))
    }),
    plain("hane-ownership", "", "each point's expected owner, +1 Black to -1 White", ownership),
    plain("kata-get-rules", "", "the rules as KataGo's JSON object", |e, _, a| {
        let [] = exactly(a)?;
        Ok(Some(crate::katago_rules::to_json(&e.rules).map_err(|err| err.0)?))
    }),
    plain("kata-set-rules", "NAME|JSON", "rules by KataGo's name or rules object", kata_set_rules),
    plain("gogui-analyze_commands", "", "GoGui's analyze menu", |_, _, a| {
        let [] = exactly(a)?;
        Ok(Some(GOGUI_ANALYZE.join("\n")))
    }),
    plain("cputime", "", "CPU seconds the engine has used", |_, _, a| {
        let [] = exactly(a)?;
        let t = hane_host::cpu::cpu_seconds("/proc/self/stat");
        Ok(Some(format!("{:.2}", t.ok_or("cputime: /proc/self/stat cannot be read")?)))
    }),
    analysis("analyze", "live analysis in Leela Zero's format until the next command"),
    analysis("lz-analyze", "live analysis in Leela Zero's format until the next command"),
    analysis("kata-analyze", "live analysis in KataGo's format until the next command"),
    analysis("genmove_analyze", "genmove printing Leela Zero's analysis lines"),
    analysis("lz-genmove_analyze", "genmove printing Leela Zero's analysis lines"),
    analysis("kata-genmove_analyze", "genmove printing KataGo's analysis lines"),
];

/// The command called `name`.
pub fn find(name: &str) -> Option<&'static Command> {
    TABLE.iter().find(|c| c.name == name)
}

fn help(_: &mut Engine, _: &str, args: &[&str]) -> Response {
    let line = |c: &Command| {
        let sep = if c.args.is_empty() { "" } else { " " };
        format!("{}{sep}{}: {}", c.name, c.args, c.help)
    };
    match args {
        [] => Ok(Some(TABLE.iter().map(line).collect::<Vec<_>>().join("\n"))),
        [name] => find(name)
            .map(|c| Some(line(c)))
            .ok_or_else(|| format!("unknown command \"{}\"", name.escape_debug())),
        _ => Err(format!("syntax error: expected 0 or 1 argument(s), got {}", args.len())),
    }
}

fn boardsize(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    let [n] = exactly(args)?;
    let n: u32 = n.parse().map_err(|_| "syntax error: boardsize needs an integer")?;
    let mut r = e.rules;
    r.size = u8::try_from(n).map_err(|_| "unacceptable size")?;
    if let Variant::Go = r.variant {
        r.validate().map_err(|_| "unacceptable size".to_string())?;
    } else {
        r.validate().map_err(|err| format!("unacceptable size: {err}"))?;
    }
    e.set_rules(r)?;
    Ok(Some(String::new()))
}

fn komi(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    // The komi changes for the game in progress and for the positions `undo` returns to; the
    // moves stay.
    let [k] = exactly(args)?;
    let k = k.parse::<f64>().map_err(|_| "syntax error: komi needs a number")?;
    let komi = Komi::from_f64(k).ok_or("komi must be a multiple of 0.5 within ±1000")?;
    let game = e.game.with_komi(komi).map_err(|err| err.to_string())?;
    let history = e.history.iter().map(|g| g.with_komi(komi)).collect::<Result<_, _>>();
    e.history = history.map_err(|err| err.to_string())?;
    e.rules.komi = komi;
    e.game = game;
    Ok(Some(String::new()))
}

fn play(e: &mut Engine, cmd: &str, args: &[&str]) -> Response {
    let [c, mv] = exactly(args)?;
    let c = color(c)?;
    if cmd == "play" && e.rules.variant == Variant::Sligo && mv.contains('>') {
        return Err("use hane-play for a Sligo slide".into());
    }
    let mut next = e.game.clone();
    turn_to(&mut next, c)
        .and_then(|()| Turn::play_named(&mut next, mv).map_err(|err| err.to_string()))
        .map_err(|err| format!("illegal move: {err}"))?;
    e.commit_move(next);
    Ok(Some(String::new()))
}

fn genmove(e: &mut Engine, cmd: &str, args: &[&str]) -> Response {
    let [c] = exactly(args)?;
    e.genmove(color(c)?, cmd == "kgs-genmove_cleanup").map(Some)
}

fn final_status_list(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    let [want] = exactly(args)?;
    if !matches!(want, "dead" | "alive" | "seki") {
        return Err("syntax error: status is alive, dead or seki".into());
    }
    let dead = e.judged_dead();
    let (b, geo) = (e.game.board(), e.game.geo());
    let pts: Vec<String> = geo
        .points()
        .filter(|&p| b.color(p).is_some())
        .filter(|&p| match want {
            "dead" => dead.contains(p),
            "alive" => !dead.contains(p),
            _ => false,
        })
        .map(|p| geo.name(p))
        .collect();
    Ok(Some(pts.join(" ")))
}

fn handicap(e: &mut Engine, cmd: &str, args: &[&str]) -> Response {
    let [n] = exactly(args)?;
    let n: usize = n.parse().map_err(|_| "syntax error: the number of stones is an integer")?;
    let geo = e.game.geo();
    let pts = if cmd == "fixed_handicap" { fixed_handicap(geo, n) } else { free_handicap(geo, n) };
    let pts = pts.ok_or("invalid number of stones")?;
    e.set_handicap(&pts)?;
    Ok(Some(pts.iter().map(|&p| geo.name(p)).collect::<Vec<_>>().join(" ")))
}

fn set_free_handicap(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    let geo = e.game.geo();
    let mut pts = Vec::with_capacity(args.len());
    for a in args {
        let p = geo.parse(a).map_err(|err| format!("syntax error: {err}"))?;
        if pts.contains(&p) {
            return Err(format!("syntax error: vertex {a} repeated"));
        }
        pts.push(p);
    }
    if !(2..geo.area()).contains(&pts.len()) {
        return Err(format!("bad vertex list: a handicap has 2 to {} stones", geo.area() - 1));
    }
    e.set_handicap(&pts)?;
    Ok(Some(String::new()))
}

fn loadsgf(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    let (path, upto) = match args {
        [path] => (path, None),
        [path, m] => (path, Some(m.parse::<usize>().map_err(|_| "syntax error: bad move number")?)),
        _ => return Err(format!("syntax error: expected 1 or 2 arguments, got {}", args.len())),
    };
    // The engine answers one command at a time: a FIFO nobody writes to would hold it for
    // ever, so loadsgf reads regular files only.
    let kind = read::Kind { streams: false, ..read::SGF };
    let text = read::read_text(Path::new(path), kind).map_err(|err| format!("cannot load file: {err}"))?;
    let sgf = SgfGame::parse(&text).map_err(|err| err.to_string())?;
    e.note_rules(&sgf.rules)?;
    let mut game = sgf.start().map_err(|err| err.to_string())?;
    let mut history = Vec::new();
    for (i, t) in sgf.turns.iter().enumerate() {
        if upto.is_some_and(|m| i + 1 >= m) {
            break;
        }
        history.push(game.clone());
        t.play(&mut game).map_err(|err| err.to_string())?;
    }
    e.rules = sgf.rules;
    e.game = game;
    e.history = history;
    Ok(Some(if e.game.to_move() == Color::Black { "black" } else { "white" }.into()))
}

fn ownership(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    let [] = exactly(args)?;
    let seed = e.brain.seed() ^ e.game.state_hash();
    let own = crate::candidates::ownership(e.brain.evaluator(), &e.game, seed);
    let n = e.game.geo().size();
    let rows: Vec<String> = own
        .mean
        .chunks(n)
        .map(|row| row.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" "))
        .collect();
    Ok(Some(format!("\n{}", rows.join("\n"))))
}

fn kata_set_rules(e: &mut Engine, _: &str, args: &[&str]) -> Response {
    // KataGo's names or rules objects where a hane rule set matches, else hane's rules
    // strings; the board size and komi stay.
    let name = args.join(" ");
    let text = if name.starts_with('{') {
        match serde_json::from_str(&name) {
            Ok(serde_json::Value::Object(o)) => crate::katago_rules::from_object(&o).map_err(|err| err.0)?,
            _ => return Err(format!("syntax error: \"{}\" is not a JSON object", name.escape_debug())),
        }
    } else {
        let [one] = exactly(args)?;
        if let Some(how) = crate::katago_rules::nearest(one) {
            super::note(&format!("rules \"{}\": {how}", one.escape_debug()));
        }
        crate::katago_rules::from_name(one)
    };
    let mut rules: Rules =
        text.parse().map_err(|err| format!("unknown rules \"{}\": {err}", name.escape_debug()))?;
    (rules.size, rules.komi) = (e.rules.size, e.rules.komi);
    rules.validate().map_err(|err| err.to_string())?;
    e.set_rules(rules)?;
    Ok(Some(String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::brain::Brain;
    use crate::gtp::Reply;

    fn ok(e: &mut Engine, line: &str) -> String {
        let words: Vec<&str> = line.split(' ').collect();
        match e.execute(words[0], &words[1..]) {
            Reply::Ok(s) => s,
            _ => panic!("{line}: not answered"),
        }
    }

    #[test]
    fn the_table_is_what_the_engine_lists_knows_and_explains() {
        let mut e = Engine::new("ttakji,size=5".parse().unwrap(), Brain::with_rollouts(4, 1).unwrap());
        let listed = ok(&mut e, "list_commands");
        assert_eq!(listed.lines().collect::<Vec<_>>(), TABLE.iter().map(|c| c.name).collect::<Vec<_>>());
        let help = ok(&mut e, "hane-help");
        assert_eq!(help.lines().count(), TABLE.len());
        for (i, c) in TABLE.iter().enumerate() {
            assert!(!c.help.is_empty() && !c.name.contains(' '), "{}", c.name);
            assert!(TABLE[..i].iter().all(|d| d.name != c.name), "{} twice", c.name);
            assert_eq!(ok(&mut e, &format!("known_command {}", c.name)), "true");
            let line = ok(&mut e, &format!("hane-help {}", c.name));
            assert!(line.starts_with(c.name) && line.ends_with(c.help), "{line}");
        }
        assert_eq!(ok(&mut e, "known_command bogus"), "false");
        assert!(matches!(e.execute("bogus", &[]), Reply::Err(s) if s == "unknown command"));
        assert!(matches!(e.execute("hane-help", &["bogus"]), Reply::Err(_)));
    }
}
