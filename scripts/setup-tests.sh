#!/usr/bin/env bash
# Installs what the tests need beyond the main job's set-up (`scripts/setup.sh`, run first),
# idempotently:
#   - `tensorboard`, `numpy` and `sgfmill` in the main job's Python environment, for the
#     checks that read self-play and trainer output with independent readers;
#   - KaTrain 1.20.0 (PyPI `katrain`, with Kivy) in a venv of its own (default
#     ~/.cache/hane/katrain-venv, override with HANE_KATRAIN_VENV), whose engine class the
#     analysis tests drive headless;
#   - Node.js (Debian's `nodejs` and `npm` when `node` is missing) and Sabaki's GTP client
#     `@sabaki/gtp` 3.0.0 (default ~/.cache/hane/node, override with HANE_NODE), for the GTP
#     analysis tests.
set -euo pipefail
source "$(dirname "$0")/apt.sh"
cd "$(dirname "$0")/.."
bash scripts/setup.sh

need_apt=()
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
apt_install "${need_apt[@]}"

HANE_VENV="${HANE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/venv}"
if ! "$HANE_VENV/bin/python" -c 'import numpy, sgfmill, tensorboard' >/dev/null 2>&1; then
    echo "setup-tests: installing tensorboard, numpy, sgfmill into $HANE_VENV"
    "$HANE_VENV/bin/python" -m pip install -q tensorboard numpy sgfmill
fi

HANE_KATRAIN_VENV="${HANE_KATRAIN_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/katrain-venv}"
katrain_ok() {
    KIVY_NO_WINDOW=1 KIVY_NO_ARGS=1 KIVY_NO_CONSOLELOG=1 KIVY_NO_FILELOG=1 KIVY_HOME="$(mktemp -d)" \
        "$HANE_KATRAIN_VENV/bin/python" -c 'import katrain.core.engine' >/dev/null 2>&1
}
if ! katrain_ok; then
    echo "setup-tests: installing katrain==1.20.0 into $HANE_KATRAIN_VENV"
    [ -x "$HANE_KATRAIN_VENV/bin/python" ] || python3 -m venv "$HANE_KATRAIN_VENV"
    "$HANE_KATRAIN_VENV/bin/python" -m pip install -q katrain==1.20.0
    katrain_ok || { echo "setup-tests: $HANE_KATRAIN_VENV does not import katrain headless" >&2; exit 1; }
fi

HANE_NODE="${HANE_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/node}"
if [ ! -f "$HANE_NODE/node_modules/@sabaki/gtp/package.json" ]; then
    echo "setup-tests: installing @sabaki/gtp@3.0.0 into $HANE_NODE"
    mkdir -p "$HANE_NODE"
    npm install --silent --no-audit --no-fund --prefix "$HANE_NODE" @sabaki/gtp@3.0.0
fi
echo "setup-tests: ok (katrain venv: $HANE_KATRAIN_VENV; node modules: $HANE_NODE)"
