#!/usr/bin/env bash
# Cross builds of the no_std core for every "build only" row of targets.md, with the settings a
# user of that target would choose. Nothing is run (there is no OS); ci/qemu.sh runs the tests on
# the Linux targets.
#
# What is built per target: spanring-core, and the facade `spanring` with --no-default-features
# (what a no_std user depends on). RUSTFLAGS always include -D warnings, so code that only
# compiles on one target class (cfg'd on pointer width or atomics) stays warning-free.
#
# Targets without native compare-and-swap (thumbv6m: load/store atomics only; riscv32i: no
# A extension at all) need portable-atomic's fallback, and the LIBRARY never picks it for its
# users — the application does, because only it knows whether the chip is single-core. CI
# builds what a user would select (both checked to work with portable-atomic 1.15):
# - RUSTFLAGS="--cfg portable_atomic_unsafe_assume_single_core": atomics by disabling
#   interrupts (PRIMASK on Armv6-M; mstatus.MIE on RISC-V, machine mode). Sound only on a
#   single-core chip running privileged code.
# - riscv32i also with --cfg portable_atomic_s_mode: the same in supervisor mode (sstatus.SIE),
#   for code running under an SBI/hypervisor.
# - thumbv6m also with portable-atomic's `critical-section` feature
#   (--features portable-atomic/critical-section on spanring-core): atomics through the
#   critical-section crate; the final binary must link an implementation (e.g. cortex-m's
#   critical-section-single-core feature). Only the library is built here, so none is needed.
#
# Three consistency checks first, cheap:
# - no 64-bit atomics in core: on 32-bit targets portable-atomic implements them with a lock
#   (or by disabling interrupts), which can deadlock against an interrupt handler (rtic#1117).
# - the library's own dependency graph enables no portable-atomic fallback feature on a no-CAS
#   target (the user must make that choice, see above).
# - every "build only" row of targets.md is built here (the table and this script stay in sync).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SINGLE_CORE="--cfg portable_atomic_unsafe_assume_single_core"

# triple | extra RUSTFLAGS | extra cargo args | packages | what a user would set
BUILDS=(
    "thumbv7em-none-eabihf|||core+facade|nothing (native CAS)"
    "riscv32imac-unknown-none-elf|||core+facade|nothing (native CAS, A extension)"
    "wasm32-unknown-unknown|||core+facade|nothing (native atomics)"
    "thumbv6m-none-eabi|$SINGLE_CORE||core+facade|unsafe-assume-single-core cfg"
    "thumbv6m-none-eabi||--features portable-atomic/critical-section|core|portable-atomic critical-section feature"
    "riscv32i-unknown-none-elf|$SINGLE_CORE||core+facade|unsafe-assume-single-core cfg (M-mode)"
    "riscv32i-unknown-none-elf|$SINGLE_CORE --cfg portable_atomic_s_mode||core+facade|unsafe-assume-single-core cfg + s_mode (S-mode)"
)

# --- checks ------------------------------------------------------------------------------------
note "cross: no 64-bit atomics in core/src (rtic#1117)"
# (comment lines are ignored, so docs may still say why there is none)
hits="$(grep -rnE '\bAtomic[IU]64\b' core/src | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)"
if [[ -n $hits ]]; then
    printf '%s\n' "$hits"
    die "core uses a 64-bit atomic (above); 32-bit targets would fall back to a lock"
fi

note "cross: targets.md 'build only' rows are all built here"
mapfile -t md_rows < <(awk -F'|' '/^\| *`[a-z0-9_]+-[a-z0-9_-]+` *\|/ && tolower($3) ~ /build only/ {
    gsub(/[ `]/, "", $2); print $2 }' targets.md)
((${#md_rows[@]})) || die "no 'build only' rows found in targets.md (table format changed?)"
for t in "${md_rows[@]}"; do
    [[ $'\n'"$(printf '%s\n' "${BUILDS[@]}" | cut -d'|' -f1)"$'\n' == *$'\n'"$t"$'\n'* ]] ||
        die "targets.md lists $t as 'build only' but ci/cross.sh does not build it"
done

note "cross: the library enables no portable-atomic fallback for its users"
tree="$(cargo tree -q -p spanring --no-default-features --target thumbv6m-none-eabi \
    -e normal,build -f '{p} [{f}]' --prefix none)"
pa_line="$(grep -m1 '^portable-atomic ' <<<"$tree")" || die "portable-atomic not in the dependency tree?"
note "  $pa_line"
if grep -qE 'critical-section|unsafe-assume-single-core|unsafe-assume-privileged' <<<"$pa_line"; then
    die "a spanring manifest enables a portable-atomic fallback feature; that is the user's choice"
fi

# --- builds ------------------------------------------------------------------------------------
for b in "${BUILDS[@]}"; do
    IFS='|' read -r triple flags cargo_args pkgs why <<<"$b"
    need_target "$triple"
    note "cross: $triple — user sets: $why"
    pkg_args=(-p spanring-core)
    [[ $pkgs == core+facade ]] && pkg_args+=(-p spanring --no-default-features)
    # shellcheck disable=SC2086 # $cargo_args is a word list on purpose
    run env RUSTFLAGS="-D warnings${flags:+ $flags}" \
        cargo build --target "$triple" "${pkg_args[@]}" $cargo_args
done
note "cross: ${#BUILDS[@]} builds OK"
