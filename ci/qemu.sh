#!/usr/bin/env bash
# The whole workspace test suite (unit + integration tests; not doc-tests or benches) on
# aarch64 and i686 Linux, cross-compiled on the host; aarch64 runs under qemu-user, i686 natively
# through its dynamic loader when the host can (see start_prefix below), else under qemu-user.
#
# Why these two: aarch64 is the main weakly-ordered 64-bit target; i686 is 32-bit, so usize
# cursors wrap at 2^32 and there is no native 64-bit CAS in the usual sense (tokio#5042,
# concurrent-queue#12). Caveat: qemu-user runs guest threads on the host's CPU, so aarch64's
# weak memory ordering is NOT reproduced on an x86_64 host; loom (ci/loom.sh) covers ordering.
#
# Flags (set per target through cargo's environment config, no .cargo/config.toml needed):
# - CARGO_TARGET_<TRIPLE>_LINKER: the Debian cross gcc, which knows the target's libc.
# - CARGO_TARGET_<TRIPLE>_RUNNER: cargo prefixes each test binary with it; `-L` is the
#   target's sysroot (from libc6-dev-*-cross) where qemu finds the dynamic loader and libc.
# - --lib --tests: unit and integration tests; doc-tests would need rustdoc's own runner
#   setup, and benches are timing, not tests.
# Uses the main target dir: cross artifacts go to target/<triple>/ and do not disturb it.
# Not the ZeroMQ bridge (bridge/zmq, spanring-zmq): it builds libzmq from C++ source, which
# needs a C++ cross compiler per target, and it holds no ring code of its own (it uses the
# public API, tested here through the other packages); ci/unit.sh tests it on the host.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# triple | linker | qemu binary | sysroot
TARGETS=(
    "aarch64-unknown-linux-gnu|aarch64-linux-gnu-gcc|qemu-aarch64|/usr/aarch64-linux-gnu"
    "i686-unknown-linux-gnu|i686-linux-gnu-gcc|qemu-i386|/usr/i686-linux-gnu"
)

note "qemu: targets.md 'test under qemu' rows are all run here"
mapfile -t md_rows < <(awk -F'|' '/^\| *`[a-z0-9_]+-[a-z0-9_-]+` *\|/ && tolower($3) ~ /qemu/ {
    gsub(/[ `]/, "", $2); print $2 }' targets.md)
((${#md_rows[@]})) || die "no 'test under qemu' rows found in targets.md (table format changed?)"
for t in "${md_rows[@]}"; do
    [[ $'\n'"$(printf '%s\n' "${TARGETS[@]}" | cut -d'|' -f1)"$'\n' == *$'\n'"$t"$'\n'* ]] ||
        die "targets.md lists $t as 'test under qemu' but ci/qemu.sh does not run it"
done

# How a target's test binaries start. i686 binaries run NATIVELY where the host kernel executes
# 32-bit x86 code (an x86_64 Linux kernel with IA32 emulation: most do), through the cross
# sysroot's dynamic loader; qemu-i386 only as a fallback. Reason: on an AMD EPYC host the
# tokio-based tests/async_cancel.rs hung for >20 min under qemu-i386 (its timers never fired),
# while the same binary passed in 0.13 s natively. The point of the i686 run is 32-bit usize
# cursors, which native execution tests just as well. aarch64 needs qemu on an x86_64 host.
start_prefix() { # start_prefix TRIPLE QEMU SYSROOT
    local loader="$3/lib/ld-linux.so.2"
    if [[ $1 == i686-* && $HOST_TRIPLE == x86_64-* && -x $loader ]] &&
        "$loader" --version >/dev/null 2>&1; then
        printf '%s --library-path %s' "$loader" "$3/lib"
    else
        printf '%s -L %s' "$2" "$3"
    fi
}

for entry in "${TARGETS[@]}"; do
    IFS='|' read -r triple linker qemu sysroot <<<"$entry"
    need_target "$triple"
    need_cmd "$linker"
    need_cmd "$qemu"
    [[ -d $sysroot ]] || die "$sysroot missing; run: bash ci/install.sh"
    up="$(tr 'a-z-' 'A-Z_' <<<"$triple")"
    prefix="$(start_prefix "$triple" "$qemu" "$sysroot")"
    note "qemu: $triple (binaries start as: $prefix <test binary>)"
    # SPANRING_STRESS_SCALE=10: a tenth of the stress items (emulation is ~10x slower; the
    # point here is 32-bit cursors and another ISA, and every stress row still wraps usize).
    # Each test binary runs under ci/timed-run.sh (a hang fails and names the binary).
    # shellcheck disable=SC2086 # the prefix is a command line, split on purpose
    run limited 2400 "$triple tests" env "CARGO_TARGET_${up}_LINKER=$linker" SPANRING_STRESS_SCALE=10 \
        SPANRING_TEST_TIMEOUT="${SPANRING_TEST_TIMEOUT:-900}" \
        "$(runner_env "$triple" $prefix)" \
        cargo test --workspace --exclude spanring-zmq --target "$triple" --lib --tests
done
