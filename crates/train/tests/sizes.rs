//! One net for several board sizes: the loader lays a smaller board's rows into the corner of
//! the net's board, and the trainer fits data of two sizes at once.

mod common;

use common::{tiny, Temp};
use hane_data::features::{ON_BOARD_PLANE, PLANES};
use hane_data::shard;
use hane_engine::{Game, GameState, Rules};
use hane_host::Stop;
use hane_mcts::{EvalRequest, Evaluator};
use hane_nn::{NetConfig, NetEvaluator};
use hane_train::loader::{Loader, Message};
use hane_train::synthetic::write_shards;
use hane_train::{train, Progress, StepLog, TrainConfig};
use std::collections::HashSet;

#[test]
fn a_smaller_board_lies_in_the_corner_of_a_mixed_batch() {
    let tmp = Temp::new("sizes-batch");
    let (five, seven): (Rules, Rules) = ("ttakji,size=5".parse().unwrap(), "ttakji,size=7".parse().unwrap());
    let small = write_shards(&tmp.0.join("five"), &five, 3, 8, 1).unwrap();
    write_shards(&tmp.0.join("seven"), &seven, 3, 8, 2).unwrap();
    // The rows of the 5x5 shards, to find each corner among them.
    let mut rows5 = HashSet::new();
    for p in &small {
        let s = shard::read(p).unwrap();
        let n2 = PLANES * 25;
        for r in 0..s.meta.rows {
            rows5.insert(s.arrays[0].data[r * n2..(r + 1) * n2].to_vec());
        }
    }
    let cfg = TrainConfig { sizes: vec![5, 7], augment: false, batch_size: 32, ..tiny("ttakji,size=7") };
    let net = NetConfig::new(&seven, cfg.net);
    let mut loader = Loader::start(&cfg, seven, net, &tmp.0, 3);
    let b = loop {
        match loader.recv() {
            Message::Batch(b) => break b,
            Message::Failed(e) => panic!("{e}"),
            _ => {}
        }
    };
    assert!(b.padded, "48 rows of two sizes make padded batches");
    let (mut found5, mut found7) = (0, 0);
    for r in 0..b.rows {
        let planes = &b.planes[r * PLANES * 49..(r + 1) * PLANES * 49];
        let on: usize =
            planes[ON_BOARD_PLANE * 49..(ON_BOARD_PLANE + 1) * 49].iter().map(|&x| usize::from(x)).sum();
        let policy = &b.policy[r * 50..(r + 1) * 50];
        assert!((policy.iter().sum::<f32>() - 1.0).abs() < 1e-5, "row {r}: the policy still sums to 1");
        if on == 49 {
            found7 += 1;
            continue;
        }
        assert_eq!(on, 25, "row {r}: a 5x5 board or a 7x7 one");
        found5 += 1;
        let inside = |i: usize| i % 7 < 5 && i / 7 < 5;
        let mut corner = Vec::new();
        for c in 0..PLANES {
            for i in 0..49 {
                let v = planes[c * 49 + i];
                if inside(i) {
                    corner.push(v);
                } else {
                    assert_eq!(v, 0, "row {r} plane {c}: nothing off the board");
                }
            }
        }
        assert!(rows5.contains(&corner), "row {r}: its corner is a row of the 5x5 shards");
        for i in (0..49).filter(|&i| !inside(i)) {
            assert_eq!(policy[i], 0.0, "row {r}: no policy off the board");
            assert_eq!(b.ownership[r * 49 + i], 0.0, "row {r}: no owner off the board");
        }
    }
    assert!(found5 > 0 && found7 > 0, "both sizes drawn: {found5} and {found7}");
}

#[test]
fn one_net_fits_data_of_two_sizes_and_refuses_a_size_not_listed() {
    let tmp = Temp::new("sizes-train");
    let (five, seven): (Rules, Rules) = ("ttakji,size=5".parse().unwrap(), "ttakji,size=7".parse().unwrap());
    write_shards(&tmp.0.join("data/five"), &five, 2, 12, 5).unwrap();
    write_shards(&tmp.0.join("data/seven"), &seven, 2, 12, 6).unwrap();
    let cfg = TrainConfig {
        sizes: vec![5, 7],
        steps: 300,
        batch_size: 48,
        shuffle_rows: 48,
        augment: false,
        log_every: 1,
        histogram_every: 0,
        checkpoint_every: 1000,
        ..tiny("ttakji,size=7")
    };
    let mut logs: Vec<StepLog> = Vec::new();
    let summary = train(&cfg, &tmp.0.join("data"), &tmp.0.join("out"), Stop::default(), &mut |p| {
        if let Progress::Logged(l) = p {
            logs.push(l.clone())
        }
    })
    .unwrap();
    let total = |l: &StepLog| l.get("loss/total").unwrap();
    let first = total(&logs[0]);
    let last = logs[logs.len() - 10..].iter().map(total).sum::<f64>() / 10.0;
    assert!(last <= 0.15 * first, "loss fell from {first} to {last} only");
    // The checkpoint says which sizes the net plays, and it evaluates those.
    let ck = summary.checkpoint.expect("a checkpoint");
    assert_eq!(hane_nn::Checkpoint::read(&ck).unwrap().meta.sizes, [5, 7]);
    let mut ev = NetEvaluator::load(&ck, &five, "cpu", 1).unwrap();
    let g = GameState::new(five);
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    let e = ev.evaluate(&[EvalRequest { state: g, legal }]).remove(0);
    assert!((e.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4 && e.wdl.iter().all(|x| x.is_finite()));
    let six: Rules = "ttakji,size=6".parse().unwrap();
    let err = NetEvaluator::load(&ck, &six, "cpu", 1).unwrap_err().to_string();
    assert!(err.contains("on 5x5, 7x7"), "{err}");
    // Without 5 among the sizes the 5x5 shards are a wrong folder.
    let only7 = TrainConfig { sizes: vec![7], steps: 1, ..cfg.clone() };
    let err =
        train(&only7, &tmp.0.join("data"), &tmp.0.join("out7"), Stop::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("on board sizes 7"), "{err}");
    for sizes in [vec![9], vec![5]] {
        let bad = TrainConfig { sizes: sizes.clone(), ..cfg.clone() };
        assert!(bad.validate().is_err(), "{sizes:?}: a size above the rules', or none of them, is refused");
    }
}

#[test]
fn a_net_trained_on_a_smaller_board_continues_on_a_bigger_one() {
    let tmp = Temp::new("sizes-continue");
    let (five, seven): (Rules, Rules) = ("ttakji,size=5".parse().unwrap(), "ttakji,size=7".parse().unwrap());
    write_shards(&tmp.0.join("data/five"), &five, 2, 12, 7).unwrap();
    let small = TrainConfig { steps: 20, checkpoint_every: 10, ..tiny("ttakji,size=5") };
    let out = tmp.0.join("out");
    let first = train(&small, &tmp.0.join("data/five"), &out, Stop::default(), &mut |_| {}).unwrap();
    assert_eq!(first.step, 20);
    write_shards(&tmp.0.join("data/seven"), &seven, 2, 12, 8).unwrap();
    let big = TrainConfig {
        rules: "ttakji,size=7".parse().unwrap(),
        sizes: vec![5, 7],
        steps: 30,
        ..small.clone()
    };
    let second = train(&big, &tmp.0.join("data"), &out, Stop::default(), &mut |_| {}).unwrap();
    assert_eq!((second.start_step, second.step), (20, 30), "it resumed at the 5x5 net's step");
    let meta = hane_nn::Checkpoint::read(&second.checkpoint.unwrap()).unwrap().meta;
    assert_eq!((meta.net.board_size, meta.sizes), (7, vec![5, 7]));
    // Another game does not continue.
    let loose = TrainConfig { rules: "loose,size=7".parse().unwrap(), sizes: vec![7], steps: 40, ..small };
    let err = train(&loose, &tmp.0.join("data/seven"), &out, Stop::default(), &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("plays ttakji"), "{err}");
}
