#!/usr/bin/env bash
# Installs what the main job (`scripts/run.sh`) needs on a fresh Debian machine, idempotently:
#   - GNU Go (Debian package `gnugo`), the main job's anchor opponent and the rules tests'
#     oracle;
#   - a Rust toolchain check (cargo must be on PATH);
#   - a Python environment with PyTorch 2.13.0 (the libtorch that `tch =0.26.0` links). It lives
#     outside the repository (default ~/.cache/hane/venv, override with HANE_VENV) so every
#     clone shares its 4.8 GB. `scripts/env.sh` points cargo at it.
# What only the tests need (KaTrain, Sabaki's GTP client, the Python checkers) is
# `scripts/setup-tests.sh`'s. Safe to run repeatedly; does nothing that is already done.
set -euo pipefail
source "$(dirname "$0")/apt.sh"

need_apt=()
command -v gnugo >/dev/null 2>&1 || [ -x /usr/games/gnugo ] || need_apt+=(gnugo)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need_apt+=(python3-venv)

apt_install "${need_apt[@]}"

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo not found; install Rust (https://rustup.rs) and rerun" >&2
    exit 1
fi

# PyTorch from PyPI: the CUDA build (CPU-only wheels are not on PyPI); it runs on machines
# without a GPU too. The version must be exactly the one torch-sys 0.26 checks for.
HANE_VENV="${HANE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/venv}"
venv_ok() {
    "$HANE_VENV/bin/python" - >/dev/null 2>&1 <<'EOF'
import torch
assert torch.__version__.split("+")[0] == "2.13.0", torch.__version__
EOF
}
if ! venv_ok; then
    echo "setup: installing torch==2.13.0 into $HANE_VENV (about 4.8 GB)"
    mkdir -p "$(dirname "$HANE_VENV")"
    [ -x "$HANE_VENV/bin/python" ] || python3 -m venv "$HANE_VENV"
    "$HANE_VENV/bin/python" -m pip install -q torch==2.13.0
    venv_ok || { echo "setup: $HANE_VENV does not import torch 2.13.0" >&2; exit 1; }
fi

echo "setup: ok (gnugo: $(command -v gnugo || echo /usr/games/gnugo); torch venv: $HANE_VENV)"
