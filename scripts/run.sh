#!/usr/bin/env bash
# The README's main command. The self-play -> train -> eval loop is not built yet (issues
# #3-#6); until it is, this builds hane and runs the engine jobs that exist.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
cargo build --release -p hane-cli
HANE=target/release/hane
echo "== a replayed 9x9 ttakji game"
$HANE replay --rules ttakji --size 9 E5 C3 G3 C7 G7 E3 E7
echo "== perft, Tromp-Taylor 3x3 (published: 1 10 91 738 5281 33384 180768)"
$HANE perft --rules tromp-taylor --size 3 --depth 6
echo "== light playouts, 9x9"
$HANE bench playouts --size 9 --seconds 2
