#!/usr/bin/env bash
# The README's test command: set-up, formatting, lints, then every test in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PATH:/usr/games"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release
cargo bench --workspace --no-run
