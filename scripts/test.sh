#!/usr/bin/env bash
# The README's test command: set-up (the main job's and the tests'), formatting, lints, then
# every test in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tests.sh
source scripts/env.sh
export PATH="$PATH:/usr/games"
cargo fmt --all -- --check
# Every repository path the documentation names exists.
python3 scripts/check_paths.py
# No line a user sees is written with Debug formatting.
python3 scripts/check_debug_format.py
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release
cargo bench --workspace --no-run
# Independent check of self-play output: numpy loads the shards, sgfmill parses the SGFs.
check_dir=$(mktemp -d)
trap 'rm -rf "$check_dir"' EXIT
for cfg in ttakji-5x5 loose-5x5 sligo-5x5; do
    target/release/hane selfplay --config "configs/$cfg.toml" --games 4 --out "$check_dir/$cfg"
done
# The same games packed (deflated shards of many games, SGF collections).
sed 's/^\[selfplay\]$/[selfplay]\npack_rows = 50/' configs/ttakji-5x5.toml > "$check_dir/packed.toml"
target/release/hane selfplay --config "$check_dir/packed.toml" --games 12 --out "$check_dir/ttakji-5x5-packed"
python scripts/check_shards.py "$check_dir"/*/
