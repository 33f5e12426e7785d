# Sourced by the set-up scripts: `apt_install PACKAGE...` installs Debian packages (none when
# given none), with sudo unless running as root.
apt_install() {
    [ $# -gt 0 ] || return 0
    echo "setup: installing Debian packages: $*"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
