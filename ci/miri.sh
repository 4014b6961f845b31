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
# Only spanring-core: spanring-std calls mmap/memfd, which Miri does not support.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_nightly_component miri
need_nightly_component rust-src

run cargo +nightly miri test -p spanring-core
run env MIRIFLAGS="${MIRIFLAGS:+$MIRIFLAGS }-Zmiri-tree-borrows" cargo +nightly miri test -p spanring-core
