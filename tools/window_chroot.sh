#!/usr/bin/env bash
# The Blender program for the window suite: Debian's `blender` package in a debootstrap chroot,
# cached outside the repository (KILN_WINDOW_ROOT, default /var/cache/kiln-window/<suite>).
#
#   tools/window_chroot.sh ensure    build or refresh the chroot, mount proc/sys/dev; prints its path
#   tools/window_chroot.sh why-not   prints one sentence when this machine cannot run the suite
#                                    (nothing when it can)
#
# Debian unstable carries Blender 5.2 LTS; Debian 13 (trixie, 4.3) is the fallback when unstable's
# cannot be installed. Exit status: 0 ready, 3 this machine cannot (the sentence is on stdout),
# anything else a real failure.
set -euo pipefail

SUITE=${KILN_WINDOW_SUITE:-sid}
ROOT=${KILN_WINDOW_ROOT:-/var/cache/kiln-window/$SUITE}
# The program and what the suite drives it with. Debian's blender lacks three Python modules its
# own parts import: python3-cattr (Blender's extension manager), python3-numpy (the glTF importer,
# and Kiln) and python3-requests (Kiln). The suite removes the last two for one test. nodejs and
# npm run the MCP conformance suite against Kiln's agent server (it needs Node 22 or newer).
PACKAGES="blender python3-cattr python3-numpy python3-requests xvfb xauth xdotool xclip imagemagick procps nodejs npm"
STAMP="$ROOT/.kiln-window-packages"

cannot_run() {
    if [ "$(id -u)" != 0 ]; then
        echo "The window suite needs root (debootstrap and chroot for Debian's Blender program); skipped as $(id -un)."
        return 0
    fi
    if [ ! -x "$ROOT/usr/bin/blender" ] && ! command -v debootstrap >/dev/null \
        && ! command -v apt-get >/dev/null; then
        echo "The window suite needs debootstrap (apt-get install debootstrap), which this machine cannot install; skipped."
        return 0
    fi
    return 1
}

mount_into() {
    for fs in proc sys dev; do
        mkdir -p "$ROOT/$fs"
        if ! mountpoint -q "$ROOT/$fs"; then
            mount --rbind "/$fs" "$ROOT/$fs"
            mount --make-rslave "$ROOT/$fs"
        fi
    done
}

install_into() {
    # The mirror may serve a dated snapshot whose Release file has expired.
    echo 'Acquire::Check-Valid-Until "false";' >"$ROOT/etc/apt/apt.conf.d/99kiln-window"
    # A cache rebuilt when damaged: dpkg's fsync after every file buys nothing here (the install
    # took 43 s instead of 56 s on a fresh machine).
    echo force-unsafe-io >"$ROOT/etc/dpkg/dpkg.cfg.d/99kiln-window"
    cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    chroot "$ROOT" apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive chroot "$ROOT" apt-get install -y -qq --no-install-recommends $PACKAGES >/dev/null
}

ensure() {
    if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$PACKAGES" ] && [ -x "$ROOT/usr/bin/blender" ]; then
        mount_into
        # A run cut off during the missing-modules test leaves numpy and requests removed.
        chroot "$ROOT" python3 -c "import numpy, requests, cattrs" 2>/dev/null || install_into >&2
        echo "$ROOT"
        return 0
    fi
    command -v debootstrap >/dev/null || "$(dirname "$0")/host_packages.sh" install debootstrap >&2
    mkdir -p "$(dirname "$ROOT")"
    if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
        rm -rf "$ROOT.partial"
        debootstrap --variant=minbase "$SUITE" "$ROOT.partial" >&2
        mv "$ROOT.partial" "$ROOT"
    fi
    mount_into
    if ! install_into >&2 && [ "$SUITE" = sid ]; then
        echo "Debian unstable's Blender could not be installed; trying Debian 13 (trixie)." >&2
        KILN_WINDOW_SUITE=trixie KILN_WINDOW_ROOT="$(dirname "$ROOT")/trixie" exec "$0" ensure
    fi
    echo "$PACKAGES" >"$STAMP"
    echo "$ROOT"
}

case "${1:-}" in
    ensure)
        if reason=$(cannot_run); then echo "$reason"; exit 3; fi
        ensure
        ;;
    why-not)
        cannot_run || true
        ;;
    *)
        echo "usage: $0 ensure|why-not" >&2
        exit 2
        ;;
esac
