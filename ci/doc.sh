#!/usr/bin/env bash
# API docs build without warnings (broken intra-doc links, missing docs, bad code-block
# attributes...). RUSTDOCFLAGS="-D warnings" makes rustdoc's warnings errors; --no-deps documents
# only our packages. Doc-tests themselves run in ci/unit.sh.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

run env RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
