//! A seeded loader draws the same batches whatever order its shards were written in: games
//! played in parallel finish, and so stamp their shards, in any order, and a seeded run must
//! still repeat exactly.

mod common;

use common::{tiny, Temp};
use hane_engine::Rules;
use hane_nn::NetConfig;
use hane_train::loader::{Loader, Message};
use hane_train::synthetic::write_shards;
use hane_train::TrainConfig;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The planes of the first `n` batches a loader seeded with 9 draws from `dir`.
fn first_batches(cfg: &TrainConfig, rules: Rules, dir: &Path, n: usize) -> Vec<Vec<u8>> {
    let net = NetConfig::new(&rules, cfg.net);
    let mut loader = Loader::start(cfg, rules, net, dir, 9);
    let mut out = Vec::new();
    while out.len() < n {
        match loader.recv() {
            Message::Batch(b) => out.push(b.planes),
            Message::Failed(e) => panic!("{e}"),
            _ => {}
        }
    }
    out
}

/// Gives the shards modification times in the order `order` (oldest first).
fn stamp(paths: &[PathBuf], order: &[usize]) {
    for (k, &i) in order.iter().enumerate() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + k as u64);
        File::options().write(true).open(&paths[i]).unwrap().set_modified(t).unwrap();
    }
}

#[test]
fn batches_do_not_depend_on_the_order_shards_were_written_in() {
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let tmp = Temp::new("loader-order");
    let paths = write_shards(&tmp.0, &rules, 6, 4, 3).unwrap();
    // The window holds all 24 rows; the buffer a part of them, so which shards fill it matters.
    let cfg = TrainConfig { batch_size: 4, shuffle_rows: 8, augment: false, ..tiny("ttakji,size=5") };
    stamp(&paths, &[0, 1, 2, 3, 4, 5]);
    let a = first_batches(&cfg, rules, &tmp.0, 6);
    stamp(&paths, &[5, 3, 1, 0, 2, 4]);
    let b = first_batches(&cfg, rules, &tmp.0, 6);
    assert_eq!(a, b);
    // A different seed does draw differently, so the comparison above can fail.
    let net = NetConfig::new(&rules, cfg.net);
    let mut other = Loader::start(&cfg, rules, net, &tmp.0, 10);
    let first = loop {
        match other.recv() {
            Message::Batch(b) => break b.planes,
            Message::Failed(e) => panic!("{e}"),
            _ => {}
        }
    };
    assert_ne!(first, a[0]);
}

#[test]
fn a_sliding_window_takes_the_newest_folder_then_the_highest_names_whatever_the_shard_times() {
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let tmp = Temp::new("loader-window-order");
    // Two generations of three 4-row shards; the window holds 13 of the 24 rows, so it takes
    // the newer generation and one shard of the older.
    let older = write_shards(&tmp.0.join("gen-000"), &rules, 3, 4, 3).unwrap();
    let newer = write_shards(&tmp.0.join("gen-001"), &rules, 3, 4, 4).unwrap();
    let paths: Vec<PathBuf> = older.iter().chain(&newer).cloned().collect();
    let cfg = TrainConfig {
        batch_size: 4,
        shuffle_rows: 8,
        augment: false,
        window_min_rows: 8,
        ..tiny("ttakji,size=5")
    };
    let net = NetConfig::new(&rules, cfg.net);
    let window = |order: &[usize]| {
        stamp(&paths, order);
        let mut loader = Loader::start(&cfg, rules, net, &tmp.0, 9);
        loop {
            match loader.recv() {
                Message::Window(w) => break w,
                Message::Failed(e) => panic!("{e}"),
                _ => {}
            }
        }
    };
    let w = window(&[0, 1, 2, 3, 4, 5]);
    assert_eq!((w.total_rows, w.window_shards, w.window_rows), (24, 4, 16), "{w:?}");
    // Within each generation the games finished in another order: the same window.
    assert_eq!(window(&[2, 0, 1, 5, 3, 4]), w);
    let a = first_batches(&cfg, rules, &tmp.0, 6);
    stamp(&paths, &[1, 2, 0, 4, 5, 3]);
    assert!(first_batches(&cfg, rules, &tmp.0, 6) == a, "the same batches whatever the shard times");
    // Only the older generation's highest-numbered shard is in it: without it the batches differ.
    std::fs::remove_file(&older[2]).unwrap();
    assert!(first_batches(&cfg, rules, &tmp.0, 6) != a, "the window's shards decide the batches");
}

/// The first window message of a loader over `dir`.
fn first_window(cfg: &TrainConfig, rules: Rules, dir: &Path) -> hane_train::loader::WindowInfo {
    let mut loader = Loader::start(cfg, rules, NetConfig::new(&rules, cfg.net), dir, 9);
    loop {
        match loader.recv() {
            Message::Window(w) => break w,
            Message::Failed(e) => panic!("{e}"),
            _ => {}
        }
    }
}

#[test]
fn packed_shards_train_like_their_games_and_a_game_in_a_pack_counts_once() {
    use hane_data::shard;
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let tmp = Temp::new("loader-packs");
    let singles = write_shards(&tmp.0.join("singles"), &rules, 6, 4, 3).unwrap();
    let parts: Vec<(String, shard::Shard)> = singles
        .iter()
        .map(|p| (p.file_stem().unwrap().to_str().unwrap().to_string(), shard::read(p).unwrap()))
        .collect();
    // Games 0-3 packed, 4 and 5 alone, and game 3's own shard still there (a pack caught
    // before self-play removed its games' files).
    let packed = tmp.0.join("packed");
    std::fs::create_dir_all(&packed).unwrap();
    shard::write_atomic(&packed.join("p00000000.npz"), &shard::pack(&parts[..4], "random").unwrap()).unwrap();
    for i in [3, 4, 5] {
        std::fs::copy(&singles[i], packed.join(singles[i].file_name().unwrap())).unwrap();
    }
    let cfg = TrainConfig { batch_size: 4, shuffle_rows: 64, augment: false, ..tiny("ttakji,size=5") };
    let w = first_window(&cfg, rules, &packed);
    assert_eq!((w.shards, w.total_rows, w.window_shards, w.window_rows), (3, 24, 3, 24), "{w:?}");
    // The rows drawn are the games' rows: 400 draws of 24 rows (seeded) meet every one.
    let rows_of = |dir: &Path| -> std::collections::BTreeSet<Vec<u8>> {
        let batches = first_batches(&cfg, rules, dir, 100);
        batches.iter().flat_map(|b| b.chunks(b.len() / 4).map(<[u8]>::to_vec).collect::<Vec<_>>()).collect()
    };
    let all = rows_of(&tmp.0.join("singles"));
    assert!(all.len() > 12, "{} distinct rows", all.len());
    assert_eq!(rows_of(&packed), all);
    // Without the duplicate the window is the same.
    std::fs::remove_file(packed.join(singles[3].file_name().unwrap())).unwrap();
    assert_eq!(first_window(&cfg, rules, &packed), w);
}
