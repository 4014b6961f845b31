#!/usr/bin/env bash
# Lints, warnings denied.
#
# 1. --workspace --all-targets: every package, with lib, tests, benches and examples, default
#    features (so the std layer is linted). `-- -D warnings` turns every warning (rustc's and
#    clippy's, including the [workspace.lints] table and clippy.toml's disallowed atomics, and
#    clippy::incompatible_msrv, which reads rust-version) into an error.
# 2. The facade with --no-default-features: the no_std build a microcontroller user gets
#    (spanring-core only). --lib --tests: the same targets ci/unit.sh compiles in that
#    configuration (tests that need std carry `#![cfg(feature = "std")]`).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run cargo clippy --workspace --all-targets -- -D warnings
run cargo clippy -p spanring --no-default-features --lib --tests -- -D warnings
