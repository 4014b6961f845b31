#!/usr/bin/env bash
# Miri (nightly): runs spanring-core's unit tests, integration tests and doc-tests in the Rust
# interpreter, which reports undefined behaviour (aliasing violations, data races, out-of-bounds
# or uninitialised reads, misaligned accesses). Tests scale themselves down under cfg!(miri).
#
# Run twice, because the two aliasing models reject different code (ringbuf#15-style split
# borrows in particular):
# 1. Stacked Borrows (Miri's default model).
# 2. Tree Borrows: MIRIFLAGS=-Zmiri-tree-borrows. MIRIFLAGS only changes the interpreter, not
#    the build, but the run builds into its own target dir (target/miri-tb) so that it can run
#    at the same time as the first.
#
# The two runs go in parallel: Miri interprets a program on one host thread, so one run keeps
# one core busy and the machine has two (this step took 600-790 s run one after the other).
# Each run's output goes to a log under the target dir, printed whole when both
# have finished, Stacked Borrows first; the step fails if either failed, naming it.
#
# Both runs also pass -Zmiri-isolation-error=warn-nobacktrace: Miri stays isolated from the host
# (no real files, clock or environment; runs are deterministic), but a host access returns an
# error to the program (with a one-line warning) instead of aborting the test. proptest needs
# this: it looks up the current directory for its failure-persistence file and carries on
# without it when that fails. Memory leaks stay errors (a test that leaks on purpose must give
# the memory back or not run under Miri).
# Extra flags from the environment's MIRIFLAGS are appended.
#
# spanring-core whole; of spanring-std only the shared-segment header fuzz
# (std-ext/tests/shared_header_fuzz.rs: `shared::validate` is pure, so the check that every
# attacher runs on untrusted bytes is interpreted too). The rest of spanring-std calls
# mmap/memfd, which Miri does not support.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_nightly_component miri
need_nightly_component rust-src

BASE="-Zmiri-isolation-error=warn-nobacktrace${MIRIFLAGS:+ $MIRIFLAGS}"
# Miri interprets the test binaries itself (cargo's runner is Miri), so each run is limited as a
# whole.
LOGS="$TARGET_BASE/miri-logs"
mkdir -p "$LOGS"
names=("Miri (Stacked Borrows)" "Miri (Tree Borrows)")
logs=("$LOGS/stacked-borrows.log" "$LOGS/tree-borrows.log")
note "miri: ${names[0]} and ${names[1]} in parallel (logs: ${logs[*]})"
(run limited 1500 "${names[0]}" env MIRIFLAGS="$BASE" \
    cargo +nightly miri test -p spanring-core &&
    run limited 900 "${names[0]}, shared header fuzz" env MIRIFLAGS="$BASE" \
        cargo +nightly miri test -p spanring-std --test shared_header_fuzz) >"${logs[0]}" 2>&1 &
pids=($!)
(run limited 1500 "${names[1]}" env MIRIFLAGS="$BASE -Zmiri-tree-borrows" \
    CARGO_TARGET_DIR="$TARGET_BASE/miri-tb" cargo +nightly miri test -p spanring-core &&
    run limited 900 "${names[1]}, shared header fuzz" env MIRIFLAGS="$BASE -Zmiri-tree-borrows" \
        CARGO_TARGET_DIR="$TARGET_BASE/miri-tb" \
        cargo +nightly miri test -p spanring-std --test shared_header_fuzz) >"${logs[1]}" 2>&1 &
pids+=($!)
failed=()
for i in 0 1; do
    rc=0
    wait "${pids[$i]}" || rc=$?
    note "miri: ${names[$i]}: exit $rc; its log follows"
    cat "${logs[$i]}"
    ((rc == 0)) || failed+=("${names[$i]} (exit $rc)")
done
((${#failed[@]} == 0)) || die "failed: ${failed[*]}"
