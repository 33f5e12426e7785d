# Sourced by the other scripts (and by hand: `source scripts/env.sh`): points cargo's build of
# torch-sys at the PyTorch environment that scripts/setup.sh installs. torch-sys then asks
# that Python for libtorch's headers and libraries, and the build scripts of hane-nn and
# hane-train bake the library directory into every binary (rpath), so nothing needs
# LD_LIBRARY_PATH at run time.
HANE_VENV="${HANE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hane/venv}"
export LIBTORCH_USE_PYTORCH=1
export VIRTUAL_ENV="$HANE_VENV"
case ":$PATH:" in
    *":$HANE_VENV/bin:"*) ;;
    *) export PATH="$HANE_VENV/bin:$PATH" ;;
esac
