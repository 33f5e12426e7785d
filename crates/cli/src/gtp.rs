//! `hane gtp`: a GTP version 2 engine for GUIs (Sabaki, GoGui) and match runners.
//!
//! Standard commands for the Go rule sets, plus private `hane-*` commands: `hane-rules RULES`
//! chooses any rule set (Loose and Sligo included), `hane-play COLOR TURN` plays a turn in
//! hane's notation (Sligo `E5>F6+D4`), `hane-genmove COLOR` answers in that notation, and
//! `hane-score` prints the "if the game ended now" score. A malformed or illegal command gets a
//! GTP error response; the engine never exits on input.
//!
//! The search evaluates positions with random rollouts, or with a net from `--model
//! CHECKPOINT` (a `.safetensors` file from `hane train`). A net plays one rule set and board
//! size, the one of `--rules` (checked when it is loaded: a bad or foreign checkpoint ends
//! the command with exit code 2 and a message naming the file); a `boardsize`,
//! `hane-rules` or `loadsgf` that would change the game gets an error response saying which
//! rules the net plays, and the engine keeps its state. Komi (an input of the net) and the
//! turn cap may change freely.

use crate::notation::{play_turn, turn_name};
use crate::Failure;
use hane_engine::rules::{Komi, Variant};
use hane_engine::score::dead_stones;
use hane_engine::sgf::SgfGame;
use hane_engine::{Action, Color, Game, GameState, Point, Rules};
use hane_mcts::{Evaluator, RolloutEvaluator, Search, SearchConfig};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Arguments of `hane gtp`.
#[derive(clap::Args)]
pub struct Args {
    /// Initial rule set (GTP `boardsize`/`komi` and `hane-rules` change it).
    #[arg(long, default_value = "ttakji")]
    rules: String,
    /// Search visits per move.
    #[arg(long)]
    visits: Option<u32>,
    /// Strength preset when --visits is not given: easy (16), normal (128), hard (800).
    #[arg(long, default_value = "normal")]
    level: String,
    /// Seed of the search.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A checkpoint (.safetensors from `hane train`) for the rules of --rules, to evaluate
    /// positions with instead of random rollouts.
    #[arg(long)]
    model: Option<PathBuf>,
}

const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "final_score",
    "final_status_list",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "time_settings",
    "time_left",
    "loadsgf",
    "kgs-genmove_cleanup",
    "hane-rules",
    "hane-play",
    "hane-genmove",
    "hane-score",
];

/// What chooses the engine's turns: a search of a fixed number of visits with an evaluator,
/// shared by `hane gtp` and `hane play`.
pub struct Brain {
    evaluator: Box<dyn Evaluator<GameState>>,
    /// The rule set of the loaded net, if any: the only game it can evaluate.
    net: Option<Rules>,
    visits: u32,
    seed: u64,
}

impl Brain {
    /// A search of `visits` visits per decision, evaluating with the checkpoint at `model`
    /// (which must play `rules`) or, without one, with random rollouts. A checkpoint that
    /// does not load or fit is an input error naming the file.
    pub fn new(model: Option<&Path>, rules: Rules, visits: u32, seed: u64) -> Result<Brain, Failure> {
        let (evaluator, net): (Box<dyn Evaluator<GameState>>, _) = match model {
            Some(path) => {
                let ev = hane_nn::NetEvaluator::load(path, &rules, "auto", 1)
                    .map_err(|e| Failure::input(format!("--model {}: {e}", path.display())))?
                    .with_random_symmetries();
                (Box::new(ev), Some(rules))
            }
            None => (Box::new(RolloutEvaluator::new(seed)), None),
        };
        Ok(Brain { evaluator, net, visits, seed })
    }

    /// An error message unless this brain can play games under `rules` (always, without a
    /// net; with a net, the same game as the net's, komi and turn cap aside).
    pub fn check_rules(&self, rules: &Rules) -> Result<(), String> {
        match self.net {
            Some(net) if !hane_nn::same_game(&net, rules) => Err(format!(
                "the loaded net plays only {net} (komi and the turn cap may change), not {rules}"
            )),
            _ => Ok(()),
        }
    }

    /// Searches and plays on `game` one whole turn of the side to move (two decisions for a
    /// Sligo turn), returning its actions; nothing when the game is over. With `cleanup`
    /// (Go), it does not pass while the opponent still has dead stones on the board.
    pub fn play_turn(&mut self, game: &mut GameState, cleanup: bool) -> Result<Vec<Action>, String> {
        let c = game.to_move();
        let mut next = game.clone();
        let cfg = SearchConfig::for_board(next.geo().size());
        let mut actions = Vec::new();
        while !next.is_over() && (actions.is_empty() || next.to_move() == c) {
            let mut search = Search::new(next.clone(), cfg, self.seed ^ u64::from(next.turns()));
            search.run(&mut self.evaluator, self.visits, 8);
            let mut a = search.select_action(0.0);
            // Cleanup phase: do not pass while the opponent still has stones that are dead.
            if cleanup && a == Action::Pass && next.rules().variant == Variant::Go {
                let b = next.board();
                let dead = dead_stones(&next, b);
                let opp_dead = next.geo().points().any(|p| dead.contains(p) && b.color(p) == Some(c.opp()));
                if opp_dead {
                    if let Some(best) = search
                        .root_children()
                        .into_iter()
                        .filter(|s| s.action != Action::Pass)
                        .max_by_key(|s| s.visits)
                    {
                        a = best.action;
                    }
                }
            }
            actions.push(a);
            next.play(a).map_err(|e| e.to_string())?;
        }
        *game = next;
        Ok(actions)
    }
}

/// The engine state between commands.
pub struct Engine {
    rules: Rules,
    game: GameState,
    history: Vec<GameState>,
    brain: Brain,
}

/// Outcome of one command: a response, or a request to quit after responding.
pub enum Reply {
    /// `= ...`
    Ok(String),
    /// `? ...`
    Err(String),
    /// `=` and exit.
    Quit,
}

impl Engine {
    /// A new engine playing `rules` with `brain`.
    pub fn new(rules: Rules, brain: Brain) -> Engine {
        Engine { rules, game: GameState::new(rules), history: Vec::new(), brain }
    }

    /// Switches to `rules` (a new game) unless the brain's net cannot play them.
    fn set_rules(&mut self, rules: Rules) -> Result<(), String> {
        self.brain.check_rules(&rules)?;
        self.rules = rules;
        self.reset();
        Ok(())
    }

    fn reset(&mut self) {
        self.game = GameState::new(self.rules);
        self.history.clear();
    }

    fn color(s: Option<&str>) -> Result<Color, String> {
        match s.map(str::to_ascii_lowercase).as_deref() {
            Some("b" | "black") => Ok(Color::Black),
            Some("w" | "white") => Ok(Color::White),
            _ => Err("syntax error: expected a color".into()),
        }
    }

    /// Makes `c` the side to move, passing for the other side if needed (GTP lets a
    /// controller play the same colour twice).
    fn ensure_to_move(&mut self, c: Color) -> Result<(), String> {
        if self.game.to_move() != c {
            if self.game.phase() != hane_engine::Phase::Start {
                return Err("a Sligo turn is half played".into());
            }
            self.game.play(Action::Pass).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn genmove(&mut self, c: Color, cleanup: bool) -> Result<String, String> {
        self.ensure_to_move(c)?;
        if self.game.is_over() {
            return Ok("pass".into());
        }
        let before = self.game.clone();
        let actions = self.brain.play_turn(&mut self.game, cleanup)?;
        self.history.push(before.clone());
        Ok(turn_name(&before, &actions))
    }

    fn final_score(&self) -> String {
        let s = self.game.score();
        let m = s.margin_black();
        if m > 0.0 {
            format!("B+{m}")
        } else if m < 0.0 {
            format!("W+{}", -m)
        } else {
            "0".into()
        }
    }

    fn handicap_points(&self, n: usize) -> Result<Vec<Point>, String> {
        let geo = self.game.geo();
        let size = geo.size();
        if size < 7 || !(2..=9).contains(&n) || (size % 2 == 0 && n > 4) {
            return Err("invalid number of stones".into());
        }
        let e = if size >= 13 { 3 } else { 2 };
        let (lo, mid, hi) = (e, size / 2, size - 1 - e);
        let at = |x: usize, y: usize| geo.point(x, y);
        let corners = [at(hi, lo), at(lo, hi), at(hi, hi), at(lo, lo)];
        let mut pts: Vec<Point> = corners[..n.min(4)].to_vec();
        let sides = [at(lo, mid), at(hi, mid), at(mid, lo), at(mid, hi)];
        match n {
            5 | 7 | 9 => {
                pts.extend(&sides[..n - 5]);
                pts.push(at(mid, mid));
            }
            6 | 8 => pts.extend(&sides[..n - 4]),
            _ => {}
        }
        Ok(pts)
    }

    fn set_handicap(&mut self, pts: &[Point]) -> Result<(), String> {
        if self.game.turns() != 0 || self.game.board().stone_count(Color::Black) != 0 {
            return Err("board not empty".into());
        }
        self.game.set_handicap(pts).map_err(|e| e.to_string())
    }

    /// Executes one command line (without id).
    pub fn execute(&mut self, cmd: &str, args: &[&str]) -> Reply {
        match self.dispatch(cmd, args) {
            Ok(Some(s)) => Reply::Ok(s),
            Ok(None) => Reply::Quit,
            Err(e) => Reply::Err(e),
        }
    }

    fn dispatch(&mut self, cmd: &str, args: &[&str]) -> Result<Option<String>, String> {
        let geo = self.game.geo();
        let out = match cmd {
            "protocol_version" => "2".into(),
            "name" => "hane".into(),
            "version" => env!("CARGO_PKG_VERSION").into(),
            "known_command" => COMMANDS.contains(&args.first().copied().unwrap_or("")).to_string(),
            "list_commands" => COMMANDS.join("\n"),
            "quit" => return Ok(None),
            "boardsize" => {
                let n: u8 = args
                    .first()
                    .and_then(|s| s.parse().ok())
                    .ok_or("syntax error: boardsize needs an integer")?;
                let mut r = self.rules;
                r.size = n;
                if let Variant::Go = r.variant {
                    r.validate().map_err(|_| "unacceptable size".to_string())?;
                } else {
                    r.validate().map_err(|e| format!("unacceptable size: {e}"))?;
                }
                self.set_rules(r)?;
                String::new()
            }
            "clear_board" => {
                self.reset();
                String::new()
            }
            "komi" => {
                let k = args
                    .first()
                    .and_then(|s| s.parse::<f64>().ok())
                    .ok_or("syntax error: komi needs a number")?;
                let mut r = self.rules;
                r.komi = Komi::from_f64(k).ok_or("komi must be a multiple of 0.5")?;
                r.validate().map_err(|e| e.to_string())?;
                let moves = self.history.len();
                self.set_rules(r)?;
                if moves > 0 {
                    return Err("komi changed: board cleared".into());
                }
                String::new()
            }
            "play" | "hane-play" => {
                let c = Self::color(args.first().copied())?;
                let mv = args.get(1).ok_or("syntax error: play needs a move")?;
                if cmd == "play" && self.rules.variant == Variant::Sligo && mv.contains('>') {
                    return Err("use hane-play for a Sligo slide".into());
                }
                let before = self.game.clone();
                let result = self.ensure_to_move(c).and_then(|()| play_turn(&mut self.game, mv));
                if let Err(e) = result {
                    self.game = before;
                    return Err(format!("illegal move: {e}"));
                }
                self.history.push(before);
                String::new()
            }
            "genmove" | "hane-genmove" | "kgs-genmove_cleanup" => {
                let c = Self::color(args.first().copied())?;
                self.genmove(c, cmd == "kgs-genmove_cleanup")?
            }
            "undo" => {
                self.game = self.history.pop().ok_or("cannot undo")?;
                String::new()
            }
            // The board ends with a newline: trimmed, as a response holds no empty line.
            "showboard" => format!("\n{}", self.game.to_string().trim_end()),
            "final_score" => self.final_score(),
            "hane-score" => {
                let s = self.game.score();
                format!("black {} white {} winner {}", s.black, s.white, s.winner.letter())
            }
            "final_status_list" => {
                let b = self.game.board();
                let dead = dead_stones(&self.game, b);
                let want = args.first().copied().ok_or("syntax error: final_status_list needs a status")?;
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
                if !matches!(want, "dead" | "alive" | "seki") {
                    return Err("syntax error: status is alive, dead or seki".into());
                }
                pts.join(" ")
            }
            "fixed_handicap" | "place_free_handicap" => {
                let n: usize =
                    args.first().and_then(|s| s.parse().ok()).ok_or("syntax error: needs a number")?;
                let pts = self.handicap_points(n)?;
                self.set_handicap(&pts)?;
                pts.iter().map(|&p| geo.name(p)).collect::<Vec<_>>().join(" ")
            }
            "set_free_handicap" => {
                let pts: Vec<Point> =
                    args.iter().map(|s| geo.parse(s)).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
                self.set_handicap(&pts)?;
                String::new()
            }
            "time_settings" | "time_left" => {
                if args.len() < 3
                    || args.iter().skip(usize::from(cmd == "time_left")).any(|a| a.parse::<f64>().is_err())
                {
                    return Err("syntax error".into());
                }
                String::new()
            }
            "loadsgf" => {
                let path = args.first().ok_or("syntax error: loadsgf needs a file")?;
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot load file: {e}"))?;
                let sgf = SgfGame::parse(&text).map_err(|e| e.to_string())?;
                let upto: Option<usize> = args.get(1).and_then(|s| s.parse().ok());
                let mut game = GameState::with_handicap(sgf.rules, &sgf.handicap)
                    .or_else(|_| Ok::<_, String>(GameState::new(sgf.rules)))?;
                let mut history = Vec::new();
                for (i, t) in sgf.turns.iter().enumerate() {
                    if upto.is_some_and(|m| i + 1 >= m) {
                        break;
                    }
                    history.push(game.clone());
                    t.play(&mut game).map_err(|e| e.to_string())?;
                }
                self.brain.check_rules(&sgf.rules)?;
                self.rules = sgf.rules;
                self.game = game;
                self.history = history;
                if self.game.to_move() == Color::Black { "black" } else { "white" }.into()
            }
            "hane-rules" => {
                let spec = args.first().ok_or("syntax error: hane-rules needs a rule set")?;
                self.set_rules(spec.parse::<Rules>().map_err(|e| e.to_string())?)?;
                String::new()
            }
            _ => return Err("unknown command".into()),
        };
        Ok(Some(out))
    }
}

/// Runs the GTP loop on stdin/stdout.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules: Rules = a.rules.parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
    let visits = match (a.visits, a.level.as_str()) {
        (Some(v), _) if v > 0 => v,
        (Some(_), _) => return Err(Failure::input("--visits must be at least 1")),
        (None, "easy") => 16,
        (None, "normal") => 128,
        (None, "hard") => 800,
        (None, other) => {
            return Err(Failure::input(format!("--level {other:?}: allowed: easy, normal, hard")))
        }
    };
    let mut engine = Engine::new(rules, Brain::new(a.model.as_deref(), rules, visits, a.seed)?);
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let line: String = line.chars().filter(|&c| c == '\t' || c == ' ' || !c.is_control()).collect();
        let line = line.split('#').next().unwrap_or("").trim().to_string();
        if line.is_empty() {
            continue;
        }
        let mut words: Vec<&str> = line.split_whitespace().collect();
        let id = words[0].parse::<u64>().ok().map(|n| {
            words.remove(0);
            n.to_string()
        });
        let id = id.unwrap_or_default();
        let Some(&cmd) = words.first() else {
            let _ = write!(stdout, "?{id} empty command\n\n");
            continue;
        };
        let reply = engine.execute(cmd, &words[1..]);
        let (ok, text, quit) = match reply {
            Reply::Ok(s) => (true, s, false),
            Reply::Err(s) => (false, s, false),
            Reply::Quit => (true, String::new(), true),
        };
        let sep = if text.is_empty() { "" } else { " " };
        let _ = write!(stdout, "{}{id}{sep}{text}\n\n", if ok { '=' } else { '?' });
        let _ = stdout.flush();
        if quit {
            break;
        }
    }
    Ok(())
}
