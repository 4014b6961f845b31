#!/usr/bin/env bash
# The whole test suite: runs the ci/<step>.sh scripts in order, each under a banner, stops at the
# first failure (set -euo pipefail), and prints the time of every step and the total number of
# test cases run.
#
#   bash ci/test.sh                 # every step
#   bash ci/test.sh fmt clippy unit # only these steps, in the order given
#   bash ci/test.sh --list          # the step names
#
# Prerequisites (targets, nightly components, qemu, cross gcc) come from `bash ci/install.sh`,
# which this script runs first.
# SPANRING_SOAK is never set here: the soak is run by hand (README.md, Testing).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ALL_STEPS=(fmt clippy unit doc miri loom tsan cross qemu embedded msrv)
declare -A WHAT=(
    [fmt]="rustfmt --check"
    [clippy]="clippy -D warnings (workspace, all targets; facade without default features)"
    [unit]="cargo test --workspace; facade without default features"
    [doc]="cargo doc, warnings denied"
    [miri]="Miri on spanring-core: Stacked Borrows and Tree Borrows, in parallel"
    [loom]="loom model checks (tests/loom_*)"
    [tsan]="ThreadSanitizer on spanring-std and the facade"
    [cross]="no_std / wasm cross builds (targets.md)"
    [qemu]="workspace tests on aarch64 and i686 under qemu-user"
    [embedded]="firmware on emulated Cortex-M0/M3/M4 and RISC-V boards, an interrupt as producer"
    [msrv]="libraries build with the rust-version toolchain"
)

if [[ ${1:-} == --list ]]; then
    for s in "${ALL_STEPS[@]}"; do printf '%-8s %s\n' "$s" "${WHAT[$s]}"; done
    exit 0
fi
steps=("$@")
((${#steps[@]})) || steps=("${ALL_STEPS[@]}")
for s in "${steps[@]}"; do
    [[ -n ${WHAT[$s]+x} ]] || die "unknown step '$s' (steps: ${ALL_STEPS[*]})"
done
[[ -z ${SPANRING_SOAK:-} ]] || note "SPANRING_SOAK=$SPANRING_SOAK is set in your environment (CI never sets it)"

# Prerequisites first, so that this command alone works on a fresh machine (the README's second
# command). Idempotent and under a second when everything is present; SPANRING_SKIP_INSTALL=1
# skips it.
if [[ -z ${SPANRING_SKIP_INSTALL:-} ]]; then
    printf '== install: ci/install.sh (rustup targets/components, apt packages)\n'
    bash "$ROOT/ci/install.sh"
fi

LOGDIR="$(mktemp -d "${TMPDIR:-/tmp}/spanring-ci.XXXXXX")"
declare -A SECS=()
total_start=$SECONDS
n=0
for s in "${steps[@]}"; do
    n=$((n + 1))
    printf '\n%s\n== [%d/%d] %s: %s\n%s\n' "$(printf '=%.0s' {1..78})" "$n" "${#steps[@]}" \
        "$s" "${WHAT[$s]}" "$(printf '=%.0s' {1..78})"
    start=$SECONDS
    # Output goes to the terminal and to a log (to count test results below); pipefail keeps
    # the step's exit status.
    if ! bash "$ROOT/ci/$s.sh" 2>&1 | tee "$LOGDIR/$s.log"; then
        printf '\n== FAILED: step %s after %ds (log: %s/%s.log)\n' "$s" $((SECONDS - start)) "$LOGDIR" "$s"
        exit 1
    fi
    SECS[$s]=$((SECONDS - start))
    printf '== %s: OK in %ds\n' "$s" "${SECS[$s]}"
done

printf '\n%s\n== step times\n' "$(printf '=%.0s' {1..78})"
for s in "${steps[@]}"; do printf '   %-8s %5ds\n' "$s" "${SECS[$s]}"; done
printf '   %-8s %5ds\n' total $((SECONDS - total_start))

# Sum of every libtest summary line ("test result: ok. P passed; F failed; I ignored; ...")
# across all steps: the same test counted once per configuration it ran in.
read -r passed failed ignored < <(cat "$LOGDIR"/*.log |
    sed -nE 's/^test result: [A-Za-z]+\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/p' |
    awk '{p += $1; f += $2; i += $3} END {print p + 0, f + 0, i + 0}')
rm -rf "$LOGDIR"
printf 'tests: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$ignored"
