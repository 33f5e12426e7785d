#!/usr/bin/env bash
# Installs what hane's builds and tests need on a fresh Debian machine, idempotently:
#   - GNU Go (Debian package `gnugo`), the external oracle of the rules tests;
#   - a Rust toolchain check (cargo must be on PATH).
# Safe to run repeatedly; does nothing that is already done.
set -euo pipefail

need_apt=()
command -v gnugo >/dev/null 2>&1 || [ -x /usr/games/gnugo ] || need_apt+=(gnugo)

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
echo "setup: ok (gnugo: $(command -v gnugo || echo /usr/games/gnugo))"
