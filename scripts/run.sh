#!/usr/bin/env bash
# The README's main command: set-up (Debian packages, the Python environment with libtorch,
# the build), then `hane loop` on the embedded default config (5x5 ttakji, 20 generations of
# self-play -> training -> gating -> komi estimate). Output goes to ${HANE_RUN:-runs/quick};
# rerunning continues that run (delete the folder to start over).
# Extra arguments go to `hane loop`: `HANE_RUN=runs/seed2 bash scripts/run.sh --seed 2`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
cargo build --release -p hane-cli
target/release/hane loop --out "${HANE_RUN:-runs/quick}" "$@"
