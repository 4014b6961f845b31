#!/usr/bin/env bash
# Miri (nightly): runs spanring-core's unit tests, integration tests and doc-tests in the Rust
# interpreter, which reports undefined behaviour (aliasing violations, data races, out-of-bounds
# or uninitialised reads, misaligned accesses). Tests scale themselves down under cfg!(miri).
#
# Run twice, because the two aliasing models reject different code (ringbuf#15-style split
# borrows in particular):
# 1. Stacked Borrows (Miri's default model).
# 2. Tree Borrows: MIRIFLAGS=-Zmiri-tree-borrows. MIRIFLAGS only changes the interpreter, not
#    the build, so the second run reuses the first run's artifacts (under target/miri).
#
# Both runs also pass -Zmiri-isolation-error=warn-nobacktrace: Miri stays isolated from the host
# (no real files, clock or environment; runs are deterministic), but a host access returns an
# error to the program (with a one-line warning) instead of aborting the test. proptest needs
# this: it looks up the current directory for its failure-persistence file and carries on
# without it when that fails. Memory leaks stay errors (a test that leaks on purpose must give
# the memory back or not run under Miri).
# Extra flags from the environment's MIRIFLAGS are appended.
#
# Only spanring-core: spanring-std calls mmap/memfd, which Miri does not support.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_nightly_component miri
need_nightly_component rust-src

BASE="-Zmiri-isolation-error=warn-nobacktrace${MIRIFLAGS:+ $MIRIFLAGS}"
# Miri interprets the test binaries itself (cargo's runner is Miri), so each run is limited as a
# whole.
run limited 1500 "Miri (Stacked Borrows)" env MIRIFLAGS="$BASE" cargo +nightly miri test -p spanring-core
run limited 1500 "Miri (Tree Borrows)" env MIRIFLAGS="$BASE -Zmiri-tree-borrows" cargo +nightly miri test -p spanring-core
