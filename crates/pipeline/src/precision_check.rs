//! What bf16 inference changes in a net's answers, measured on positions from real self-play
//! shards (`hane bench accuracy`): the net of a checkpoint in FP32 and its bf16 inference copy
//! ([`hane_nn::Network::for_inference`]) read the same stored inputs in the same batches, and
//! [`Agreement`] counts how often their top moves agree and how far their values and scores
//! lie apart. A user can rerun it on any run's `selfplay/gen-NNN/shards` before switching a
//! run to bf16.
//!
//! The top move is the policy's largest logit over the whole action space: the stored inputs
//! carry no list of legal moves, and a trained net puts its largest logit on a legal one.

use crate::Error;
use hane_data::shard;
use hane_nn::model::input_tensors;
use hane_nn::tch::{self, Device, Kind, Tensor};
use hane_nn::{Boards, NetConfig, Network};
use std::path::{Path, PathBuf};

/// bf16 against FP32 on the same positions.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    /// Positions compared.
    pub positions: usize,
    /// Fraction of them on which both put their largest policy logit on the same action.
    pub top_move: f64,
    /// Mean absolute difference of the value, win minus loss probability (side to move).
    pub value_mean: f64,
    /// Largest absolute difference of the value.
    pub value_max: f64,
    /// Mean absolute difference of the expected score, in points.
    pub score_mean: f64,
    /// Largest absolute difference of the score, in points.
    pub score_max: f64,
}

/// The shard files (`.npz`) in `dir`, by name.
fn shard_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "npz"))
        .collect();
    files.sort();
    Ok(files)
}

/// The net's answers to `n` stored rows: top action, value (W − L) and score in points.
fn answers(net: &Network, planes: &[u8], globals: &[f32], n: usize) -> (Vec<i64>, Vec<f32>, Vec<f32>) {
    let cfg = net.config();
    tch::no_grad(|| {
        let (p, g) = input_tensors(cfg, planes, globals, n, Device::Cpu);
        let out = net.forward_t(&p, &g, Boards::Full, false);
        let wdl = out.wdl.softmax(1, Kind::Float);
        let value = wdl.select(1, 0) - wdl.select(1, 2);
        let score = out.score_mean.to_kind(Kind::Float) * cfg.score_scale();
        let top = Vec::<i64>::try_from(out.policy.argmax(1, false)).expect("indices convert");
        let vec = |t: Tensor| Vec::<f32>::try_from(t.to_kind(Kind::Float)).expect("floats convert");
        (top, vec(value), vec(score))
    })
}

/// The net of `model` in FP32 against its bf16 copy on up to `limit` positions from the
/// shards in the folders `dirs` (folder by folder, files by name, every row of a file),
/// `batch` rows per forward pass, on one CPU thread. The shards must hold positions of the
/// net's board and encoder.
pub fn compare(model: &Path, dirs: &[PathBuf], limit: usize, batch: usize) -> Result<Agreement, Error> {
    hane_nn::init_threads(1);
    let (rules, _) = crate::net_rules::trained_rules(model).map_err(|e| Error::net_load(model, e))?;
    let load = || {
        Network::load(model, &rules, Device::Cpu)
            .map_err(|e| Error::net_load(model, crate::net_rules::LoadError::Net(e)))
    };
    let fp32 = load()?;
    let bf16 = load()?.for_inference(Kind::BFloat16);
    let cfg: NetConfig = *fp32.config();
    let (mut planes, mut globals, mut rows, mut taken) = (Vec::new(), Vec::new(), 0usize, 0usize);
    let mut acc = Agreement {
        positions: 0,
        top_move: 0.0,
        value_mean: 0.0,
        value_max: 0.0,
        score_mean: 0.0,
        score_max: 0.0,
    };
    let mut flush = |planes: &mut Vec<u8>, globals: &mut Vec<f32>, rows: &mut usize| {
        let (a, b) = (answers(&fp32, planes, globals, *rows), answers(&bf16, planes, globals, *rows));
        for k in 0..*rows {
            let (dv, ds) = (f64::from((a.1[k] - b.1[k]).abs()), f64::from((a.2[k] - b.2[k]).abs()));
            acc.top_move += f64::from(u8::from(a.0[k] == b.0[k]));
            acc.value_mean += dv;
            acc.value_max = acc.value_max.max(dv);
            acc.score_mean += ds;
            acc.score_max = acc.score_max.max(ds);
        }
        acc.positions += *rows;
        planes.clear();
        globals.clear();
        *rows = 0;
    };
    let mut files = Vec::new();
    for dir in dirs {
        files.extend(shard_files(dir)?);
    }
    'files: for file in files {
        let s = shard::read(&file).map_err(|e| Error::Input(format!("{}: {e}", file.display())))?;
        let m = &s.meta;
        if (m.board_size, m.planes, m.globals) != (cfg.board_size, cfg.planes, cfg.globals) {
            return Err(Error::Input(format!(
                "{}: positions of a {}x{} board with {} planes and {} globals; the net reads {}x{} with {} and {}",
                file.display(),
                m.board_size,
                m.board_size,
                m.planes,
                m.globals,
                cfg.board_size,
                cfg.board_size,
                cfg.planes,
                cfg.globals
            )));
        }
        for i in 0..m.rows {
            if taken == limit {
                break 'files;
            }
            taken += 1;
            let row = s.row(i);
            planes.extend_from_slice(&row.planes);
            globals.extend_from_slice(&row.globals);
            rows += 1;
            if rows == batch {
                flush(&mut planes, &mut globals, &mut rows);
            }
        }
    }
    if rows > 0 {
        flush(&mut planes, &mut globals, &mut rows);
    }
    if acc.positions == 0 {
        let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        return Err(Error::Input(format!("no shard rows in {}", names.join(", "))));
    }
    let n = acc.positions as f64;
    Ok(Agreement {
        top_move: acc.top_move / n,
        value_mean: acc.value_mean / n,
        score_mean: acc.score_mean / n,
        ..acc
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_engine::{Game, GameState, Rules};
    use hane_nn::NetShape;

    #[test]
    fn bf16_is_compared_with_fp32_on_the_stored_positions() {
        let dir = std::env::temp_dir().join(format!("hane-precision-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("shards")).unwrap();
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let net = Network::new(NetConfig::new(&rules, NetShape::tiny()), Device::Cpu).unwrap();
        let model = dir.join("net.safetensors");
        net.save(&model, &rules).unwrap();
        let (mut g, mut rows, mut legal) = (GameState::new(rules), Vec::new(), Vec::new());
        for turn in 0..12 {
            let (planes, globals) = hane_data::features::encode(&g);
            let policy = vec![0.0; net.config().action_space];
            rows.push(shard::Row {
                planes,
                globals,
                policy,
                value: [1.0, 0.0, 0.0],
                score: 0.0,
                ownership: vec![0; 25],
            });
            legal.clear();
            g.legal_actions(&mut legal);
            g.play(legal[(turn * 7 + 3) % legal.len()]).unwrap();
        }
        let bytes = shard::encode(&rows, &rules.to_string(), 5, 1, "test");
        shard::write_atomic(&dir.join("shards").join("g0.npz"), &bytes).unwrap();
        let shards = [dir.join("shards")];
        let a = compare(&model, &shards, 10, 4).unwrap();
        assert_eq!(a.positions, 10, "the limit, in batches of 4, 4 and 2");
        assert!(a.top_move > 0.5 && a.top_move <= 1.0, "{a:?}");
        assert!(a.value_mean <= a.value_max && a.value_max < 0.05, "{a:?}");
        assert!(a.score_mean <= a.score_max && a.score_max < 0.5, "{a:?}");
        assert_eq!(compare(&model, &shards, 100, 5).unwrap().positions, 12);
        let other =
            Network::new(NetConfig::new(&"ttakji,size=4".parse().unwrap(), NetShape::tiny()), Device::Cpu);
        other.unwrap().save(&model, &"ttakji,size=4".parse().unwrap()).unwrap();
        let err = compare(&model, &shards, 10, 4).unwrap_err().to_string();
        assert!(err.contains("5x5 board"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
