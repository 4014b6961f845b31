#!/usr/bin/env bash
# Formatting: rustfmt over every package of the workspace (--all), in check mode (-- --check):
# prints the diff and fails instead of rewriting files. Fix locally with `cargo fmt --all`.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run cargo fmt --all -- --check
