//! Does averaging the weights of a run's last nets (stochastic weight averaging, as KataGo's
//! released nets are) give a book whose values are steadier? Writes the element-wise mean of
//! the network tensors of several checkpoints of one shape, batch-norm statistics included,
//! with the first one's metadata and without optimizer state (docs/lab-notes.md).
//!
//! `cargo run --release -p hane-pipeline --example average_nets -- OUT IN...`

use hane_nn::checkpoint::{self, Checkpoint, OPTIMIZER_PREFIX};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, inputs)) = args.split_first().filter(|(_, i)| !i.is_empty()) else {
        return Err("usage: average_nets OUT IN...".into());
    };
    let nets: Vec<Checkpoint> =
        inputs.iter().map(|p| Checkpoint::read(p.as_ref())).collect::<Result<_, _>>()?;
    let first = &nets[0];
    let mut tensors = Vec::new();
    for (name, t) in first.tensors.iter().filter(|(n, _)| !n.starts_with(OPTIMIZER_PREFIX)) {
        let mut sum = t.copy();
        for net in &nets[1..] {
            let other = net.tensors.get(name).ok_or_else(|| format!("{}: no {name}", net.path.display()))?;
            if other.size() != t.size() {
                return Err(format!("{}: {name} has another shape", net.path.display()).into());
            }
            sum += other;
        }
        tensors.push((name.clone(), sum / nets.len() as f64));
    }
    checkpoint::write(out.as_ref(), &first.meta, &tensors, &first.extra)?;
    println!("{out}: the mean of {} nets, {} tensors", nets.len(), tensors.len());
    Ok(())
}
