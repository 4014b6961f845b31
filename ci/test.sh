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
# SPANRING_SOAK is never set here: the soak is run by hand (DEVELOPMENT.md, Testing).
#
# One overlap: when both run, the loom step starts in the background as the miri step starts
# (its output goes to a log, printed whole at the loom step's turn, which waits for it). Each
# keeps one core busy for most of its time (Miri interprets on one thread a run, and one loom
# model, loom_close's close-vs-claims model, takes about 670 s of one thread), so together they
# use the two cores this suite is sized for: about 700 s where one after the other took
# 1150-1550 s. Neither depends on speed (no timing in a Miri run or a loom
# model; their time limits are the hang guards, with room for the overlap). The miri step runs
# at nice 10 meanwhile: loom's long model is one thread and the critical path, Miri's two runs
# fill the other core. A failure still stops the suite at its step, and stopping kills the
# background step.
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
# The overlap (header): STARTS_WITH[b]=a starts step b in the background when step a starts,
# if both are to run and a comes first.
declare -A STARTS_WITH=([loom]=miri)
declare -A BG_PID=() BG_START=()
selected=" ${steps[*]} "
# Background steps run in their own session (setsid), so stopping can kill all of it: every
# process whose session is the step's (found in /proc, field 6 of stat; `timeout` puts its
# command in a process group of its own, so the step's group alone would miss it).
kill_session() { # kill_session SID
    local stat rest pid sid
    for stat in /proc/[0-9]*/stat; do
        { read -r pid rest <"$stat"; } 2>/dev/null || continue
        rest="${rest##*) }" # after the command name, which may hold spaces
        read -r _ _ _ sid _ <<<"$rest"
        [[ $sid == "$1" ]] && kill -TERM "$pid" 2>/dev/null
    done
    return 0
}
trap 'for p in "${BG_PID[@]}"; do kill_session "$p"; done' EXIT
start_in_background() { # start_in_background STEP
    setsid bash -c 'bash "$0" >"$1" 2>&1; echo $? >"$2"' \
        "$ROOT/ci/$1.sh" "$LOGDIR/$1.log" "$LOGDIR/$1.rc" &
    BG_PID[$1]=$!
    BG_START[$1]=$SECONDS
}
total_start=$SECONDS
n=0
for s in "${steps[@]}"; do
    n=$((n + 1))
    printf '\n%s\n== [%d/%d] %s: %s\n%s\n' "$(printf '=%.0s' {1..78})" "$n" "${#steps[@]}" \
        "$s" "${WHAT[$s]}" "$(printf '=%.0s' {1..78})"
    start=$SECONDS
    nice=()
    for b in "${!STARTS_WITH[@]}"; do
        a="${STARTS_WITH[$b]}"
        if [[ $a == "$s" && $selected == *" $b "* && $selected == *" $a "* ]] &&
            [[ ${selected%% $b *} == *" $a"* ]]; then
            printf '>>> step %s starts now in the background, alongside %s (log at its turn)\n' "$b" "$a"
            start_in_background "$b"
            # The background step's longest part is one thread (the critical path); this step's
            # work spreads over both cores, so it yields to that thread.
            nice=(nice -n 10)
        fi
    done
    if [[ -n ${BG_PID[$s]+x} ]]; then
        printf '>>> step %s started in the background %ds ago; waiting for it\n' "$s" \
            $((SECONDS - BG_START[$s]))
        wait "${BG_PID[$s]}" || true
        unset "BG_PID[$s]"
        cat "$LOGDIR/$s.log"
        rc="$(cat "$LOGDIR/$s.rc" 2>/dev/null || echo 1)"
        if ((rc != 0)); then
            printf '\n== FAILED: step %s (exit %s) after %ds, in the background (log: %s/%s.log)\n' \
                "$s" "$rc" $((SECONDS - BG_START[$s])) "$LOGDIR" "$s"
            exit 1
        fi
        SECS[$s]=$((SECONDS - BG_START[$s]))
        printf '== %s: OK in %ds (started alongside an earlier step; waited %ds here)\n' "$s" \
            "${SECS[$s]}" $((SECONDS - start))
        continue
    fi
    # Output goes to the terminal and to a log (to count test results below); pipefail keeps
    # the step's exit status.
    if ! "${nice[@]}" bash "$ROOT/ci/$s.sh" 2>&1 | tee "$LOGDIR/$s.log"; then
        printf '\n== FAILED: step %s after %ds (log: %s/%s.log)\n' "$s" $((SECONDS - start)) "$LOGDIR" "$s"
        exit 1
    fi
    SECS[$s]=$((SECONDS - start))
    printf '== %s: OK in %ds\n' "$s" "${SECS[$s]}"
done

printf '\n%s\n== step times (a step that ran in the background overlaps the one it started with)\n' \
    "$(printf '=%.0s' {1..78})"
for s in "${steps[@]}"; do printf '   %-8s %5ds\n' "$s" "${SECS[$s]}"; done
printf '   %-8s %5ds\n' total $((SECONDS - total_start))

# Sum of every libtest summary line ("test result: ok. P passed; F failed; I ignored; ...")
# across all steps: the same test counted once per configuration it ran in.
read -r passed failed ignored < <(cat "$LOGDIR"/*.log |
    sed -nE 's/^test result: [A-Za-z]+\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/p' |
    awk '{p += $1; f += $2; i += $3} END {print p + 0, f + 0, i + 0}')
rm -rf "$LOGDIR"
printf 'tests: %d passed, %d failed, %d skipped\n' "$passed" "$failed" "$ignored"
