#!/usr/bin/env bash
# Unit, integration and doc tests on the host.
#
# 1. --workspace: every package with default features: unit tests (in-module), tests/*.rs of
#    each package, and doc-tests. Loom test files are `#![cfg(spanring_loom)]` and compile to
#    empty binaries here; ci/loom.sh runs them.
# 2. The facade with --no-default-features: what a no_std user of `spanring` gets.
#
# SPANRING_SOAK is not set here; see README.md (Testing) for the long soak run.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run cargo test --workspace
run cargo test -p spanring --no-default-features
