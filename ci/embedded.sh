#!/usr/bin/env bash
# The firmware harness in embedded/: spanring-core's protocol on emulated microcontrollers
# (QEMU system emulators), with a timer interrupt as a producer and the main loop reading.
# Every case on every board, at two `-icount` shifts (two different, reproducible
# interleavings of the interrupt with the main loop), each under `timeout`.
#
# Boards (the target triple picks the board, embedded/build.rs and embedded/.cargo/config.toml):
#   thumbv6m-none-eabi            QEMU microbit    (Cortex-M0, no CAS: both portable-atomic fallbacks)
#   thumbv7m-none-eabi            QEMU mps2-an385  (Cortex-M3)
#   thumbv7em-none-eabihf         QEMU mps2-an386  (Cortex-M4F)
#   riscv32imac-unknown-none-elf  QEMU virt        (A extension: native CAS)
#   riscv32i-unknown-none-elf     QEMU virt        (no atomics at all: single-core fallback)
# Cases: embedded/src/bin/*.rs (irq_static is also the Cortex-M example a user can copy). A case
# prints one line of counts per run and exits non-zero
# (through semihosting) if any requirement fails.
#
#   bash ci/embedded.sh                   # everything
#   bash ci/embedded.sh near_max mp       # only these cases, on every board
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$ROOT/ci/emulators.sh"

# triple | cargo features (the no-CAS fallback, chosen by the firmware) | label
BOARDS=(
    "thumbv6m-none-eabi|single-core|microbit M0, unsafe-assume-single-core"
    "thumbv6m-none-eabi|cs|microbit M0, critical-section (cortex-m single-core)"
    "thumbv7m-none-eabi||mps2-an385 M3"
    "thumbv7em-none-eabihf||mps2-an386 M4F"
    "riscv32imac-unknown-none-elf||virt rv32imac"
    "riscv32i-unknown-none-elf|single-core|virt rv32i, unsafe-assume-single-core"
)
ALL_CASES=(sp_irq spans mp attach near_max callback irq_static)
# Cortex-M only (a SysTick handler that owns its writer; built for every board, run on these).
ARM_ONLY_CASES=(irq_static)
# QEMU advances virtual time 2^shift ns per instruction: the timer lands at other instructions.
SHIFTS=(6 4)
# Seconds per emulated run (they take about one); a run that hangs is stopped and named.
RUN_TIMEOUT=60

cases=("$@")
((${#cases[@]})) || cases=("${ALL_CASES[@]}")
for c in "${cases[@]}"; do
    [[ -f embedded/src/bin/$c.rs ]] || die "unknown case '$c' (cases: ${ALL_CASES[*]})"
done

note "embedded: targets.md 'run on emulated MCU' rows are all run here"
mapfile -t md_rows < <(awk -F'|' '/^\| *`[a-z0-9_]+-[a-z0-9_-]+` *\|/ && tolower($3) ~ /emulated mcu/ {
    gsub(/[ `]/, "", $2); print $2 }' targets.md)
((${#md_rows[@]})) || die "no 'run on emulated MCU' rows found in targets.md (table format changed?)"
for t in "${md_rows[@]}"; do
    [[ $'\n'"$(printf '%s\n' "${BOARDS[@]}" | cut -d'|' -f1)"$'\n' == *$'\n'"$t"$'\n'* ]] ||
        die "targets.md lists $t as 'run on emulated MCU' but ci/embedded.sh does not run it"
done

ensure_emulators
for b in "${BOARDS[@]}"; do need_target "${b%%|*}"; done

cd "$ROOT/embedded"
# Its own target dir (also set in its .cargo/config.toml; an inherited CARGO_TARGET_DIR would
# win over that). The same RUSTFLAGS for build and run, so `cargo run` finds the build fresh.
export CARGO_TARGET_DIR="$ROOT/embedded/target"
export RUSTFLAGS="-D warnings"

note "embedded: rustfmt --check, clippy"
run cargo fmt -- --check
for t in thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
    run cargo clippy -q --release --target "$t" --bins -- -D warnings
done

rows=()
runs=0
for b in "${BOARDS[@]}"; do
    IFS='|' read -r triple features label <<<"$b"
    feat=()
    [[ -n $features ]] && feat=(--features "$features")
    note "embedded: build $label ($triple${features:+, --features $features})"
    run cargo build -q --release --target "$triple" "${feat[@]}" --bins
    for c in "${cases[@]}"; do
        if [[ $triple != thumb* && " ${ARM_ONLY_CASES[*]} " == *" $c "* ]]; then
            continue
        fi
        for s in "${SHIFTS[@]}"; do
            # The runner (qemu-system-*, from .cargo/config.toml) gets the ELF, then these
            # arguments: a second -icount, which overrides the runner's.
            t0=$(date +%s.%N)
            set +e
            out="$(timeout "$RUN_TIMEOUT" cargo run -q --release --target "$triple" "${feat[@]}" \
                --bin "$c" -- -icount "shift=$s" 2>&1)"
            rc=$?
            set -e
            secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            printf '%s\n' "$out" | sed "s/^/[$label | $c | shift=$s] /"
            if ((rc == 124)); then
                die "TIMEOUT after ${RUN_TIMEOUT}s: board '$label' ($triple), case '$c', -icount shift=$s"
            fi
            ((rc == 0)) || die "FAILED (exit $rc): board '$label' ($triple), case '$c', -icount shift=$s"
            grep -q '^RESULT ok$' <<<"$out" ||
                die "no 'RESULT ok' line: board '$label' ($triple), case '$c', -icount shift=$s"
            while IFS= read -r line; do
                rows+=("| $label | ${line%%:*} | $s | ${line#*: } | ${secs} s |")
            done < <(sed -n 's/^run //p' <<<"$out")
            runs=$((runs + 1))
        done
    done
done

printf '\n| board | run | shift | counts | wall |\n| --- | --- | --- | --- | --- |\n'
printf '%s\n' "${rows[@]}"
note "embedded: $runs emulated runs OK"
# In libtest's summary format, so that ci/test.sh counts the runs with the other tests.
printf 'test result: ok. %d passed; 0 failed; 0 ignored; 0 measured; 0 filtered out (emulated runs)\n' "$runs"
