//! Self-play end to end with evaluators that need no network: every rule set plays complete
//! games, shards validate and match the SGFs, and a rerun resumes where a run stopped.

use hane_data::shard;
use hane_engine::sgf::SgfGame;
use hane_engine::{Game, Rules};
use hane_host::Stop;
use hane_mcts::{RolloutEvaluator, UniformEvaluator};
use hane_selfplay::server::EvaluatorFactory;
use hane_selfplay::{run, Progress, RunSummary, SelfplayConfig, SelfplayError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hane-sp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn small(rules: &str) -> SelfplayConfig {
    SelfplayConfig {
        rules: rules.parse().unwrap(),
        threads: 2,
        games_in_flight: 3,
        batch_size: 16,
        leaves_per_game: 2,
        full_visits: 12,
        fast_visits: 4,
        p_full: 0.5,
        ..SelfplayConfig::default()
    }
}

fn uniform() -> EvaluatorFactory {
    Arc::new(|| Box::new(UniformEvaluator))
}

/// Plays `games` games with the uniform evaluator into `out`.
fn play_uniform(cfg: &SelfplayConfig, games: u64, out: &Path) -> Result<RunSummary, SelfplayError> {
    run(cfg, games, out, uniform(), "u", Arc::new(Progress::default()), Stop::default())
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn every_rule_set_plays_complete_games_into_valid_shards() {
    for rules in ["ttakji,size=5", "brainking,size=5", "loose,size=5", "sligo,size=4"] {
        let out = tmp(&rules.replace([',', '='], "_"));
        let cfg = small(rules);
        let s = run(&cfg, 4, &out, uniform(), "uniform", Arc::new(Progress::default()), Stop::default())
            .unwrap_or_else(|e| panic!("{rules}: {e}"));
        assert_eq!(s.games, 4, "{rules}");
        assert_eq!(s.results.iter().sum::<u64>(), 4);
        assert!(!s.interrupted);
        let sgfs = files(&out.join("sgf"), "sgf");
        assert_eq!(sgfs.len(), 4);
        let mut rows = 0;
        for path in files(&out.join("shards"), "npz") {
            let sh = shard::read(&path).unwrap();
            let m = &sh.meta;
            let size = if rules.starts_with("sligo") { 4 } else { 5 };
            assert_eq!(m.board_size, size);
            assert!(m.rules.starts_with(rules.split(',').next().unwrap()), "{}", m.rules);
            let first = sh.row(0);
            assert!((first.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert_eq!(first.value.iter().sum::<f32>(), 1.0);
            rows += m.rows;
            // The SGF of the same game replays to a finished (or resigned) game.
            let sgf = path.with_extension("sgf");
            let sgf = out.join("sgf").join(sgf.file_name().unwrap());
            let g = SgfGame::parse(&std::fs::read_to_string(&sgf).unwrap()).unwrap();
            let replayed = g.replay().unwrap();
            assert!(replayed.is_over() || g.result.as_deref().is_some_and(|r| r.ends_with("+R")), "{rules}");
        }
        assert_eq!(rows as u64, s.rows, "{rules}");
        assert!(s.rows > 0);
        std::fs::remove_dir_all(&out).ok();
    }
}

#[test]
fn a_rerun_plays_only_unfinished_games_and_reproduces_them() {
    let out = tmp("resume");
    let cfg = SelfplayConfig { resign_threshold: 0.0, ..small("ttakji,size=5") };
    let factory = || -> EvaluatorFactory { Arc::new(|| Box::new(RolloutEvaluator::new(3))) };
    let first =
        run(&cfg, 3, &out, factory(), "rollout", Arc::new(Progress::default()), Stop::default()).unwrap();
    assert_eq!((first.games, first.resumed), (3, 0));
    let victim = out.join("sgf").join("g00000001.sgf");
    std::fs::remove_file(&victim).unwrap();
    let again =
        run(&cfg, 3, &out, factory(), "rollout", Arc::new(Progress::default()), Stop::default()).unwrap();
    assert_eq!((again.games, again.resumed), (1, 2));
    assert_eq!(files(&out.join("sgf"), "sgf").len(), 3);
    // Game 1's randomness depends only on the seed and its number. The rollout evaluator is
    // shared by the worker, so its values depend on batching order; with the uniform one a
    // replayed game must be the same game.
    let cfg_u = small("ttakji,size=5");
    let out_u = tmp("resume-u");
    play_uniform(&cfg_u, 2, &out_u).unwrap();
    let g1 = out_u.join("sgf").join("g00000001.sgf");
    let text = std::fs::read_to_string(&g1).unwrap();
    std::fs::remove_file(&g1).unwrap();
    play_uniform(&cfg_u, 2, &out_u).unwrap();
    assert_eq!(std::fs::read_to_string(&g1).unwrap(), text, "a replayed game is the same game");
    std::fs::remove_dir_all(&out).ok();
    std::fs::remove_dir_all(&out_u).ok();
}

#[test]
fn each_inference_thread_builds_its_own_evaluator_and_the_games_stay_the_same() {
    let built = Arc::new(AtomicUsize::new(0));
    let counting = |built: &Arc<AtomicUsize>| -> EvaluatorFactory {
        let built = built.clone();
        Arc::new(move || {
            built.fetch_add(1, Ordering::Relaxed);
            Box::new(UniformEvaluator)
        })
    };
    let mut games = Vec::new();
    for inference_threads in [1, 2] {
        built.store(0, Ordering::Relaxed);
        let out = tmp(&format!("inference-{inference_threads}"));
        let cfg = SelfplayConfig { inference_threads, ..small("ttakji,size=5") };
        let s = run(&cfg, 4, &out, counting(&built), "u", Arc::new(Progress::default()), Stop::default())
            .unwrap();
        assert_eq!(s.games, 4);
        assert_eq!(built.load(Ordering::Relaxed), inference_threads, "one evaluator per inference thread");
        let texts: Vec<String> =
            files(&out.join("sgf"), "sgf").iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
        games.push(texts);
        std::fs::remove_dir_all(&out).ok();
    }
    assert_eq!(games[0], games[1], "the split of the evaluations does not change a game");
}

#[test]
fn opening_moves_are_played_but_not_recorded() {
    // With a mean of 1000 raw-policy moves nearly every game is over before its opening is:
    // every game completes and replays, and almost no position is searched for a row.
    let out = tmp("opening");
    let cfg = SelfplayConfig { opening_moves: 1000.0, resign_threshold: 0.0, ..small("ttakji,size=5") };
    let s = play_uniform(&cfg, 4, &out).unwrap();
    assert_eq!(s.games, 4);
    assert!(s.rows * 20 < s.moves, "{} rows of {} moves", s.rows, s.moves);
    for path in files(&out.join("sgf"), "sgf") {
        let g = SgfGame::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(g.replay().unwrap().is_over());
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn side_games_fork_from_positions_of_the_games_and_replay() {
    let out = tmp("forks");
    let cfg = SelfplayConfig { fork_prob: 0.2, resign_threshold: 0.0, ..small("ttakji,size=5") };
    let s = play_uniform(&cfg, 3, &out).unwrap();
    assert_eq!((s.games, s.results.iter().sum::<u64>()), (3, 3), "side games are not games");
    assert!(s.forks > 0);
    let sgfs = files(&out.join("sgf"), "sgf");
    assert_eq!(sgfs.len() as u64, 3 + s.forks);
    let replay = |p: &Path| SgfGame::parse(&std::fs::read_to_string(p).unwrap()).unwrap();
    for p in &sgfs {
        let name = p.file_stem().unwrap().to_str().unwrap();
        let Some((game, turn)) = name.split_once("-f") else { continue };
        // A side game shares its game's moves up to the turn it forked at, komi included.
        let side = replay(p);
        let main = replay(&out.join("sgf").join(format!("{game}.sgf")));
        let turn: usize = turn.parse().unwrap();
        assert_eq!(side.turns[..turn], main.turns[..turn], "{name}");
        assert_eq!(side.rules, main.rules, "{name}");
        assert!(side.replay().unwrap().is_over(), "{name}");
    }
    // A rerun after losing a game replays it and its side games, and nothing else.
    std::fs::remove_file(out.join("sgf").join("g00000001.sgf")).unwrap();
    let again = play_uniform(&cfg, 3, &out).unwrap();
    assert_eq!((again.games, again.resumed), (1, 2));
    assert_eq!(files(&out.join("sgf"), "sgf").len(), sgfs.len());
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn bad_configs_are_refused() {
    let out = tmp("bad");
    for (cfg, needle) in [
        (
            SelfplayConfig {
                rules: Rules { size: 4, ..Rules::preset("loose").unwrap() },
                ..SelfplayConfig::default()
            },
            "odd",
        ),
        (SelfplayConfig { threads: 0, ..SelfplayConfig::default() }, "threads"),
        (SelfplayConfig { inference_threads: 0, ..SelfplayConfig::default() }, "inference_threads"),
        (SelfplayConfig { p_full: 1.5, ..SelfplayConfig::default() }, "p_full"),
        (SelfplayConfig { opening_moves: -1.0, ..SelfplayConfig::default() }, "opening_moves"),
        (SelfplayConfig { fork_prob: 2.0, ..SelfplayConfig::default() }, "fork_prob"),
    ] {
        let e = play_uniform(&cfg, 1, &out).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
}

/// Every game name in `out`'s packs (from their SGF collections) and single SGFs, and the
/// rows of its shards.
fn games_and_rows(out: &Path) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    for p in files(&out.join("sgf"), "sgf") {
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        match stem.starts_with('p') {
            true => {
                names.extend(hane_selfplay::pack::collection_names(&std::fs::read_to_string(&p).unwrap()))
            }
            false => names.push(stem),
        }
    }
    names.sort();
    let rows = files(&out.join("shards"), "npz").iter().map(|p| shard::read(p).unwrap().meta.rows).sum();
    (names, rows)
}

#[test]
fn packed_games_are_each_in_one_pack_and_a_crash_at_any_step_is_repaired() {
    let cfg = SelfplayConfig { fork_prob: 0.1, resign_threshold: 0.0, ..small("ttakji,size=5") };
    let single = tmp("pack-single");
    let s = play_uniform(&cfg, 12, &single).unwrap();
    let (names, rows) = games_and_rows(&single);
    assert_eq!(rows as u64, s.rows);
    assert!(s.forks > 0, "side games make the packing order matter");
    // The same games, packed as they end.
    let packed = tmp("pack");
    let pcfg = SelfplayConfig { pack_rows: 60, ..cfg.clone() };
    play_uniform(&pcfg, 12, &packed).unwrap();
    assert_eq!(games_and_rows(&packed), (names.clone(), rows));
    let packs = files(&packed.join("shards"), "npz");
    assert!(
        packs.len() >= 2 && packs.iter().all(|p| p.file_name().unwrap().to_str().unwrap().starts_with('p'))
    );
    for (i, p) in packs.iter().enumerate() {
        let sh = shard::read(p).unwrap();
        assert!(sh.meta.rows >= 60 || i + 1 == packs.len(), "{p:?}: {} rows", sh.meta.rows);
        // A pack's rows are its games' rows, game after game.
        let mut at = 0;
        for name in &sh.meta.game_names {
            let one = shard::read(&single.join("shards").join(format!("{name}.npz"))).unwrap();
            for i in 0..one.meta.rows {
                assert_eq!(sh.row(at + i), one.row(i), "{name} row {i}");
            }
            at += one.meta.rows;
        }
        assert_eq!(at, sh.meta.rows);
    }
    // A rerun over unpacked games packs them.
    let later = tmp("pack-later");
    play_uniform(&cfg, 12, &later).unwrap();
    let again = play_uniform(&pcfg, 12, &later).unwrap();
    assert_eq!((again.games, again.resumed), (0, 12));
    assert_eq!(games_and_rows(&later), (names.clone(), rows));
    assert!(files(&later.join("sgf"), "sgf").iter().all(|p| p
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .starts_with('p')));
    // Crashes: between writing a pack's shard and its collection (a pack shard alone), and
    // between the collection and removing its games' single files.
    std::fs::copy(&packs[0], packed.join("shards/p00000099.npz")).unwrap();
    for ext in ["npz", "sgf"] {
        let dir = if ext == "npz" { "shards" } else { "sgf" };
        let name = format!("{dir}/{}.{ext}", names[0]);
        if single.join(&name).exists() {
            std::fs::copy(single.join(&name), packed.join(&name)).unwrap();
        }
    }
    let repaired = play_uniform(&pcfg, 12, &packed).unwrap();
    assert_eq!((repaired.games, repaired.resumed), (0, 12));
    assert_eq!(games_and_rows(&packed), (names, rows));
    assert!(!packed.join("shards/p00000099.npz").exists());
    for d in [single, packed, later] {
        std::fs::remove_dir_all(d).ok();
    }
}

#[test]
fn a_folder_in_place_of_a_games_file_is_an_error_naming_it() {
    for (folder, name) in [("sgf", "g00000000.sgf"), ("shards", "g00000000.npz")] {
        let out = tmp(&format!("not-a-file-{folder}"));
        let taken = out.join(folder).join(name);
        std::fs::create_dir_all(&taken).unwrap();
        let err = play_uniform(&small("ttakji,size=5"), 2, &out).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: not a regular file", taken.display())), "{err}");
        assert!(taken.is_dir(), "left as it was");
        std::fs::remove_dir_all(&out).ok();
    }
}

#[test]
fn games_begin_at_start_positions_and_search_the_hint() {
    use hane_selfplay::starts::{StartPosition, StartPositions};
    let out = tmp("starts");
    std::fs::create_dir_all(&out).unwrap();
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let geo = hane_engine::GameState::new(rules).geo();
    let idx = |name: &str| hane_engine::Action::Place(geo.parse(name).unwrap()).index(geo) as u16;
    let file = StartPositions {
        rules: "ttakji,size=5".into(),
        positions: vec![StartPosition {
            actions: vec![idx("C3"), idx("B2")],
            hint: Some(idx("D4")),
            weight: 1.0,
        }],
    };
    let path = out.join("starts.json");
    std::fs::write(&path, serde_json::to_string(&file).unwrap()).unwrap();
    let cfg = SelfplayConfig {
        start_positions: Some(path.clone()),
        start_prob: 1.0,
        p_full: 0.0,
        resign_threshold: 0.0,
        ..small("ttakji,size=5")
    };
    let s = play_uniform(&cfg, 4, &out.join("run")).unwrap();
    assert_eq!(s.games, 4);
    // p_full 0: the hinted first search is the only full one of each game.
    assert_eq!(s.rows, 4, "{} rows", s.rows);
    for p in files(&out.join("run/sgf"), "sgf") {
        let g = SgfGame::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let names: Vec<String> = g.turns[..2].iter().map(|t| t.name(geo)).collect();
        assert_eq!(names, ["C3", "B2"], "{}", p.display());
    }
    // Without the file, or with an illegal position, the run is refused before any game.
    let none = SelfplayConfig { start_positions: None, ..cfg.clone() };
    assert!(play_uniform(&none, 1, &out.join("none")).is_err());
    let mut bad = file.clone();
    bad.positions[0].actions.push(idx("C3"));
    std::fs::write(&path, serde_json::to_string(&bad).unwrap()).unwrap();
    let e = play_uniform(&cfg, 1, &out.join("bad")).unwrap_err().to_string();
    assert!(e.contains("position 0"), "{e}");
    std::fs::remove_dir_all(&out).ok();
}
