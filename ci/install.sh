#!/usr/bin/env bash
# Installs everything the ci/ scripts need that a fresh machine (stable + nightly Rust through
# rustup, gcc, python3, root) does not have. Idempotent: anything already present is skipped,
# so a second run is a few rustup/dpkg queries. Output is quiet unless something fails; then the
# failing command's full output is printed and the script exits non-zero.
#
# Not installed here: the MSRV toolchain (ci/msrv.sh installs it itself, because it decides
# what to do if it cannot be fetched).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Run a command with its output captured; show the output only if it fails.
quiet() {
    local log
    log="$(mktemp)"
    if ! "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        die "failed: $*"
    fi
    rm -f "$log"
}

need_cmd rustup
need_cmd cargo

# --- Rust: components of the default (stable) toolchain ------------------------------------
# rustfmt: ci/fmt.sh; clippy: ci/clippy.sh and the msrv fallback.
installed_comps="$(rustup component list --installed)"
for comp in rustfmt clippy; do
    if grep -q "^$comp" <<<"$installed_comps"; then
        note "rustup: $comp present"
    else
        note "rustup: adding $comp"
        quiet rustup component add "$comp"
    fi
done

# --- Rust: cross targets of the default toolchain --------------------------------------------
# aarch64/i686 linux: ci/qemu.sh; the rest (no_std and wasm): ci/cross.sh; thumbv7m and the
# no_std ones again: the firmware in embedded/ (ci/embedded.sh). Keep in sync with targets.md
# (ci/cross.sh and ci/qemu.sh check that they cover its rows).
TARGETS=(
    aarch64-unknown-linux-gnu
    i686-unknown-linux-gnu
    thumbv6m-none-eabi
    thumbv7m-none-eabi
    thumbv7em-none-eabihf
    riscv32imac-unknown-none-elf
    riscv32i-unknown-none-elf
    wasm32-unknown-unknown
)
installed_targets="$(rustup target list --installed)"
missing=()
for t in "${TARGETS[@]}"; do
    grep -qx "$t" <<<"$installed_targets" || missing+=("$t")
done
if ((${#missing[@]})); then
    note "rustup: adding targets ${missing[*]}"
    quiet rustup target add "${missing[@]}"
else
    note "rustup: all ${#TARGETS[@]} cross targets present"
fi

# --- Rust: nightly with miri (ci/miri.sh) and rust-src (miri's sysroot, and -Zbuild-std in
# ci/tsan.sh) ---------------------------------------------------------------------------------
toolchains="$(rustup toolchain list)"
if ! grep -q '^nightly' <<<"$toolchains"; then
    # --allow-downgrade: take the newest nightly that still ships miri, if today's does not.
    note "rustup: installing nightly"
    quiet rustup toolchain install nightly --profile minimal --component miri,rust-src --allow-downgrade
fi
nightly_comps="$(rustup component list --toolchain nightly --installed)"
for comp in miri rust-src; do
    if grep -q "^$comp" <<<"$nightly_comps"; then
        note "rustup: nightly $comp present"
    else
        note "rustup: adding nightly $comp"
        quiet rustup component add --toolchain nightly "$comp"
    fi
done
# Build miri's sysroot now, so the miri step's timing measures the tests (and so a failure to
# build it shows up here, as an install problem).
note "miri: preparing sysroot"
quiet cargo +nightly miri setup

# --- Debian packages ---------------------------------------------------------------------------
# qemu-user: qemu-aarch64 / qemu-i386 run the cross-built test binaries (ci/qemu.sh).
# gcc-*-linux-gnu: linkers for those targets; libc6-dev-*-cross: their C runtime and libc
# (crt1.o, libc.so) under /usr/<triple>, which is also the -L sysroot qemu loads them from.
PKGS=(qemu-user gcc-aarch64-linux-gnu gcc-i686-linux-gnu libc6-dev-arm64-cross libc6-dev-i386-cross)
missing=()
for p in "${PKGS[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
    [[ $status == *"install ok installed"* ]] || missing+=("$p")
done
if ((${#missing[@]})); then
    SUDO=()
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null || die "need root (or sudo) to apt-get install ${missing[*]}"
        SUDO=(sudo)
    fi
    note "apt: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    quiet "${SUDO[@]}" apt-get update -qq
    quiet "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    note "apt: all ${#PKGS[@]} packages present"
fi

for cmd in qemu-aarch64 qemu-i386 aarch64-linux-gnu-gcc i686-linux-gnu-gcc; do
    need_cmd "$cmd"
done

# qemu-system-arm, qemu-system-misc: QEMU system emulators for the firmware (ci/embedded.sh).
# Not in PKGS above: on a machine with a newer qemu-utils (qemu-img), installing them through apt
# would remove it, so ensure_emulators asks apt first and unpacks them beside it if needed
# (ci/emulators.sh explains). Also idempotent.
source "$ROOT/ci/emulators.sh"
ensure_emulators
note "install: done"
