#!/usr/bin/env bash
# Debian packages of this machine (not of Kiln) that tests use, installed when missing:
#
#   tools/host_packages.sh install PACKAGE...   install what is missing (root and apt-get needed);
#                                               prints one sentence and exits 3 when it cannot
#
# Every apt-get of make test goes through here, under one lock: the runs that need packages start
# side by side (the window chroot's debootstrap, the shared-library tests' sshd and sshfs), and two
# apt-gets at once fail on dpkg's lock.
set -euo pipefail

LOCK_DIR=/run/lock
[ -d "$LOCK_DIR" ] || LOCK_DIR=/tmp
LOCK="$LOCK_DIR/kiln-host-packages.lock"

missing() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || echo "$package"
    done
}

install() {
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "Installing $* needs root and apt-get."
        exit 3
    fi
    exec 9>"$LOCK"
    flock 9
    local wanted
    wanted=$(missing "$@")
    [ -n "$wanted" ] || return 0
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine may have no package lists yet, or stale ones.
    # shellcheck disable=SC2086
    if ! apt-get install -y -qq --no-install-recommends $wanted >/dev/null 2>&1; then
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $wanted >/dev/null
    fi
}

case "${1:-}" in
    install)
        shift
        install "$@"
        ;;
    *)
        echo "usage: $0 install PACKAGE..." >&2
        exit 2
        ;;
esac
