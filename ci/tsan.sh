#!/usr/bin/env bash
# ThreadSanitizer (nightly) over the std layer and the facade: the tests that run real OS
# threads (stress tests, std wait strategies, owned buffers). Reports data races that the
# tests happen to execute.
#
# Flags:
# - RUSTFLAGS="-Zsanitizer=thread": instrument every memory access for TSan.
# - --cfg spanring_tsan: TSan does not model fences; where the code relies on a fence,
#   spanring uses an equivalent Acquire load under this cfg (one place, see core/src/sync.rs).
#   Tests may also scale down under it (TSan is 5-15x slower).
# - -Zbuild-std: rebuild std with the same instrumentation (otherwise races inside std's
#   synchronisation are invisible and rustc rejects the sanitizer ABI mismatch). Needs rust-src.
# - --target x86_64-unknown-linux-gnu: required with -Zbuild-std; it also keeps RUSTFLAGS away
#   from build scripts and proc-macros, which run uninstrumented on the host.
# - --lib --tests: unit and integration tests only (doc-tests and benches are not run
#   under the sanitizer).
# - CARGO_TARGET_DIR=<main>/tsan: the instrumented build must not evict the main cache.
# - SPANRING_STRESS_SCALE=10: the threaded stress tests run a tenth of their items (TSan makes
#   every access ~10x slower; the interleavings, not the item count, are what it checks).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_nightly_component rust-src

run limited 2400 "ThreadSanitizer tests" env RUSTFLAGS="-Zsanitizer=thread --cfg spanring_tsan" SPANRING_STRESS_SCALE=10 \
    "$(runner_env x86_64-unknown-linux-gnu)" \
    CARGO_TARGET_DIR="$TARGET_BASE/tsan" \
    cargo +nightly test -Zbuild-std --target x86_64-unknown-linux-gnu \
    -p spanring-std -p spanring --lib --tests
