//! Does averaging the weights of a run's last nets (stochastic weight averaging, as KataGo's
//! released nets are) give a book whose values are steadier? Writes the element-wise mean of
//! several checkpoints of one net ([`hane_nn::checkpoint::write_mean`]; docs/lab-notes.md).
//!
//! `cargo run --release -p hane-pipeline --example average_nets -- OUT IN...`

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let Some((out, inputs)) = args.split_first().filter(|(_, i)| !i.is_empty()) else {
        return Err("usage: average_nets OUT IN...".into());
    };
    hane_nn::checkpoint::write_mean(out, inputs)?;
    println!("{}: the mean of {} nets", out.display(), inputs.len());
    Ok(())
}
