#!/usr/bin/env bash
# Unit, integration and doc tests on the host.
#
# 1. --workspace: every package with default features: unit tests (in-module), tests/*.rs of
#    each package, and doc-tests. Loom test files are `#![cfg(spanring_loom)]` and compile to
#    empty binaries here; ci/loom.sh runs them.
# 2. The facade with --no-default-features: what a no_std user of `spanring` gets.
# 3. The examples (listed in README.md), each run to its end: each checks its own results. The
#    Cortex-M example (embedded/src/bin/irq_static.rs) runs in ci/embedded.sh.
#
# SPANRING_SOAK is not set here; see DEVELOPMENT.md (Testing) for the long soak run.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Every test binary runs through ci/timed-run.sh (a hang names its binary); the whole command,
# doc-tests included, is limited too.
runner="$(runner_env "$HOST_TRIPLE")"
run limited 1800 "unit tests" env "$runner" cargo test --workspace
run limited 900 "no-default-features tests" env "$runner" cargo test -p spanring --no-default-features
for example in sdr_pipeline dispatcher from_rtrb async_static_irq async_tokio_pipeline shared_ring; do
    run limited 300 "example $example" cargo run -q --example "$example"
done
