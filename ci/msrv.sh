#!/usr/bin/env bash
# Minimum supported Rust version: the `rust-version` declared in every Cargo.toml (all must
# agree; currently 1.81).
#
# The check done: install that exact toolchain (`rustup toolchain install <msrv> --profile
# minimal`; it installs on this CI machine) and `cargo +<msrv> check` the libraries:
# - --workspace --lib: spanring-core, spanring-std and the facade with default features;
# - the facade with --no-default-features (the no_std build).
# Not the ZeroMQ bridge (bridge/zmq, spanring-zmq): it is an application-level package with its
# own, newer rust-version (its locked build dependencies use edition 2024), and the ring's
# packages do not depend on it. --exclude keeps cargo 1.81 from even parsing its dependencies.
# Libraries only: dev-dependencies (proptest, benchmark peers) may need a newer compiler, and
# users do not build them. Uses the committed Cargo.lock, so dependency versions that raise the
# MSRV are caught when the lock file changes. CARGO_TARGET_DIR=<main>/msrv keeps the old
# compiler's artifacts apart.
#
# Fallback, only if the toolchain cannot be fetched (no network to the Rust dist server): clippy
# on stable with clippy::incompatible_msrv denied. That lint reads rust-version and flags uses of
# std/core APIs stabilised after it, but NOT newer language features or dependency MSRVs — a
# weaker check, and the log says loudly that it was the one done.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

mapfile -t versions < <(grep -h '^rust-version' Cargo.toml core/Cargo.toml std-ext/Cargo.toml |
    sed -E 's/^rust-version *= *"([^"]+)".*/\1/' | sort -u)
((${#versions[@]} == 1)) || die "Cargo.toml files disagree on rust-version: ${versions[*]}"
MSRV="${versions[0]}"
note "msrv: rust-version = $MSRV"

if rustup run "$MSRV" rustc --version >/dev/null 2>&1 ||
    run rustup toolchain install "$MSRV" --profile minimal; then
    run env CARGO_TARGET_DIR="$TARGET_BASE/msrv" cargo "+$MSRV" check --workspace --exclude spanring-zmq --lib
    run env CARGO_TARGET_DIR="$TARGET_BASE/msrv" cargo "+$MSRV" check -p spanring --no-default-features --lib
    note "msrv: libraries build with Rust $MSRV"
else
    note "msrv: WARNING: could not install Rust $MSRV; FALLING BACK to clippy::incompatible_msrv"
    note "msrv: WARNING: this does not catch newer language features or dependency MSRVs"
    run cargo clippy --workspace --exclude spanring-zmq --lib -- -D clippy::incompatible_msrv
    run cargo clippy -p spanring --no-default-features --lib -- -D clippy::incompatible_msrv
fi
