# Sourced (not run) by ci/install.sh and ci/embedded.sh: `ensure_emulators` puts
# qemu-system-arm and qemu-system-riscv32 (QEMU system emulators, for the firmware in embedded/)
# on PATH, installing them if missing.
#
# Debian packages: qemu-system-arm, qemu-system-misc (riscv32 is in "misc"). PITFALL: they
# depend on qemu-system-common of the same version, and a newer qemu-utils (e.g. 10.x from
# backports, which provides qemu-img) declares `Breaks: qemu-system-common (<< 8.0)`, so
# `apt-get install qemu-system-arm` from bookworm (7.2) would REMOVE that qemu-utils. So we first
# ask apt what it would do (`apt-get install -s`):
# - nothing removed: a normal apt-get install;
# - something removed: the two packages are unpacked (dpkg-deb -x, no dpkg database change) into
#   $QEMU_SYSTEM_DIR, their library dependencies are installed through apt (only if that removes
#   nothing either), and that directory's usr/bin is put on PATH. The installed qemu-utils stays.
# Idempotent: present emulators (on PATH or unpacked) are used as they are.

QEMU_SYSTEM_PKGS=(qemu-system-arm qemu-system-misc)
QEMU_SYSTEM_DIR="${SPANRING_QEMU_SYSTEM_DIR:-/opt/spanring-qemu-system}"
QEMU_SYSTEM_CMDS=(qemu-system-arm qemu-system-riscv32)

_emu_have() {
    local c
    for c in "${QEMU_SYSTEM_CMDS[@]}"; do command -v "$c" >/dev/null 2>&1 || return 1; done
}

# Runs a command quietly; on failure shows its output and stops.
_emu_quiet() {
    local log
    log="$(mktemp)"
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        die "failed: $*"
    fi
    rm -f "$log"
}

ensure_emulators() {
    if [[ -x $QEMU_SYSTEM_DIR/usr/bin/qemu-system-arm ]]; then
        export PATH="$QEMU_SYSTEM_DIR/usr/bin:$PATH"
    fi
    if _emu_have; then
        note "emulators: $(command -v qemu-system-arm) ($(qemu-system-arm --version | head -1))"
        return 0
    fi
    local SUDO=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "need root (or sudo) to install ${QEMU_SYSTEM_PKGS[*]}"
        SUDO=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    _emu_quiet "${SUDO[@]}" apt-get update -qq
    local sim
    sim="$(apt-get install -s --no-install-recommends "${QEMU_SYSTEM_PKGS[@]}" 2>&1)" ||
        { printf '%s\n' "$sim" >&2; die "apt cannot install ${QEMU_SYSTEM_PKGS[*]}"; }
    if ! grep -q '^Remv ' <<<"$sim"; then
        note "apt: installing ${QEMU_SYSTEM_PKGS[*]}"
        _emu_quiet "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${QEMU_SYSTEM_PKGS[@]}"
    else
        note "apt would remove $(grep '^Remv ' <<<"$sim" | cut -d' ' -f2 | tr '\n' ' ')to install" \
            "${QEMU_SYSTEM_PKGS[*]}; unpacking them into $QEMU_SYSTEM_DIR instead"
        # Their direct dependencies, except the qemu-system-* packages that cause the conflict
        # (common: helpers and display/audio modules; data: firmware images; neither is used
        # by -kernel on these boards).
        local libs
        mapfile -t libs < <(apt-cache depends "${QEMU_SYSTEM_PKGS[@]}" |
            awk '$1 ~ /^\|?Depends:$/ && $2 !~ /^</ && $2 !~ /^qemu-system-/ {print $2}' | sort -u)
        sim="$(apt-get install -s --no-install-recommends "${libs[@]}" 2>&1)"
        ! grep -q '^Remv ' <<<"$sim" || die "apt would remove packages to install the emulators' libraries"
        _emu_quiet "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${libs[@]}"
        local dl
        dl="$(mktemp -d)"
        chmod 755 "$dl" # apt's download sandbox user must be able to write there
        (cd "$dl" && _emu_quiet apt-get download "${QEMU_SYSTEM_PKGS[@]}")
        "${SUDO[@]}" mkdir -p "$QEMU_SYSTEM_DIR"
        local deb
        for deb in "$dl"/*.deb; do "${SUDO[@]}" dpkg-deb -x "$deb" "$QEMU_SYSTEM_DIR"; done
        rm -rf "$dl"
        export PATH="$QEMU_SYSTEM_DIR/usr/bin:$PATH"
    fi
    _emu_have || die "${QEMU_SYSTEM_CMDS[*]} still not found after installing"
    local c missing
    for c in "${QEMU_SYSTEM_CMDS[@]}"; do
        missing="$(ldd "$(command -v "$c")" | grep 'not found' || true)"
        [[ -z $missing ]] || die "$c: missing libraries: $missing"
    done
    note "emulators: $(command -v qemu-system-arm) ($(qemu-system-arm --version | head -1))"
}
