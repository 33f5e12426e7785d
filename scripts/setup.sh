#!/usr/bin/env bash
# Installs what hane's builds and tests need on a fresh Debian machine, idempotently:
#   - GNU Go (Debian package `gnugo`), the external oracle of the rules tests;
#   - a Rust toolchain check (cargo must be on PATH);
#   - a Python environment with PyTorch 2.13.0 (the libtorch that `tch =0.26.0` links), plus
#     `tensorboard`, `numpy` and `sgfmill` for the checks that read self-play and trainer output. It lives outside
#     the repository (default ~/.cache/hane/venv, override with HANE_VENV) so every clone
#     shares its 4.8 GB. `scripts/env.sh` points cargo at it;
#   - KaTrain 1.20.0 (PyPI `katrain`, with Kivy) in a venv of its own (default
#     ~/.cache/hane/katrain-venv, override with HANE_KATRAIN_VENV), whose engine class the
#     analysis tests drive headless;
#   - Node.js (Debian's `nodejs` and `npm` when `node` is missing) and Sabaki's GTP client
#     `@sabaki/gtp` 3.0.0 (default ~/.cache/hane/node, override with HANE_NODE), for the GTP
#     analysis tests.
# Safe to run repeatedly; does nothing that is already done.
set -euo pipefail

need_apt=()
command -v gnugo >/dev/null 2>&1 || [ -x /usr/games/gnugo ] || need_apt+=(gnugo)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need_apt+=(python3-venv)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust (https://rustup.rs) and rerun" >&2
    exit 1
fi

# PyTorch from PyPI: the CUDA build (CPU-only wheels are not on PyPI); it runs on machines
# without a GPU too. The version must be exactly the one torch-sys 0.26 checks for.
HANE_VENV="${HANE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/venv}"
venv_ok() {
    "$HANE_VENV/bin/python" - >/dev/null 2>&1 <<'EOF'
import numpy, sgfmill, tensorboard, torch
assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
EOF
}
if ! venv_ok; then
    echo "setup: installing torch==2.13.0, tensorboard, numpy, sgfmill into $HANE_VENV (about 4.8 GB)"
    mkdir -p "$(dirname "$HANE_VENV")"
    [ -x "$HANE_VENV/bin/python" ] || python3 -m venv "$HANE_VENV"
    "$HANE_VENV/bin/python" -m pip install -q torch==2.13.0 tensorboard numpy sgfmill
    venv_ok || { echo "setup: $HANE_VENV does not import torch 2.13.0" >&2; exit 1; }
fi

HANE_KATRAIN_VENV="${HANE_KATRAIN_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/katrain-venv}"
katrain_ok() {
    KIVY_NO_WINDOW=1 KIVY_NO_ARGS=1 KIVY_NO_CONSOLELOG=1 KIVY_NO_FILELOG=1 KIVY_HOME="$(mktemp -d)" \
        "$HANE_KATRAIN_VENV/bin/python" -c 'import katrain.core.engine' >/dev/null 2>&1
}
if ! katrain_ok; then
    echo "setup: installing katrain==1.20.0 into $HANE_KATRAIN_VENV"
    [ -x "$HANE_KATRAIN_VENV/bin/python" ] || python3 -m venv "$HANE_KATRAIN_VENV"
    "$HANE_KATRAIN_VENV/bin/python" -m pip install -q katrain==1.20.0
    katrain_ok || { echo "setup: $HANE_KATRAIN_VENV does not import katrain headless" >&2; exit 1; }
fi

HANE_NODE="${HANE_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/node}"
if [ ! -f "$HANE_NODE/node_modules/@sabaki/gtp/package.json" ]; then
    echo "setup: installing @sabaki/gtp@3.0.0 into $HANE_NODE"
    mkdir -p "$HANE_NODE"
    npm install --silent --no-audit --no-fund --prefix "$HANE_NODE" @sabaki/gtp@3.0.0
fi
echo "setup: ok (gnugo: $(command -v gnugo || echo /usr/games/gnugo); torch venv: $HANE_VENV;" \
    "katrain venv: $HANE_KATRAIN_VENV; node modules: $HANE_NODE)"
