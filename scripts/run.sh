#!/usr/bin/env bash
# The README's main command. Until `hane loop` exists (issue #6), this runs the pipeline's
# pieces in sequence on the 5x5 ttakji config: self-play with a uniform evaluator, a short
# training run, and self-play with the trained net. Output goes to ${HANE_RUN:-runs/quick}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
cargo build --release -p hane-cli
HANE=target/release/hane
RUN="${HANE_RUN:-runs/quick}"
CFG=configs/ttakji-5x5.toml
echo "== generation 0: self-play with a uniform evaluator"
$HANE selfplay --config "$CFG" --games 100 --out "$RUN/gen0"
echo "== training"
$HANE train --config "$CFG" --data "$RUN" --out "$RUN/net"
echo "== generation 1: self-play with the trained net"
$HANE selfplay --config "$CFG" --games 20 --out "$RUN/gen1" --model "$(ls "$RUN"/net/checkpoints/*.safetensors | tail -1)"
