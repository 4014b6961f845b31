#!/usr/bin/env bash
# Loom model checking: exhaustively explores the thread interleavings (and the weak-memory
# reorderings the C++11 model allows) of small concurrent scenarios.
#
# Discovery: every integration-test target named loom_* — tests/loom_*.rs or
# tests/loom_*/main.rs — in core/, std-ext/ and the root package is run; nothing to register.
# Those files start with `#![cfg(spanring_loom)]`, so they are empty in the normal test run.
# If there are none, the script says so and succeeds.
#
# Flags:
# - RUSTFLAGS="--cfg spanring_loom": switches crate::sync to loom's atomics (and pulls in loom
#   through core's [target.'cfg(spanring_loom)'.dependencies]). Crate-specific on purpose: a
#   bare `--cfg loom` would also flip every dependency that checks cfg(loom).
# - --release: loom runs the test body once per explored interleaving; optimised code makes
#   that many times faster. CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS / _OVERFLOW_CHECKS keep
#   debug_assert! and arithmetic-overflow panics on anyway (they catch cursor bugs).
# - CARGO_TARGET_DIR=<main>/loom: the cfg change would otherwise rebuild the main cache.
# - LOOM_MAX_PREEMPTIONS=2 (default here; override from the environment): bounds how many
#   times a thread may be preempted per execution. 2 finds nearly all bugs seen in practice
#   and keeps the run short; 3 is a good occasional deeper run.
#   Debugging a failure: LOOM_LOCATION=1 LOOM_CHECKPOINT_FILE=... (see loom's docs).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
shopt -s nullglob

export LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-2}"

declare -A PKG=([core]=spanring-core [std-ext]=spanring-std [.]=spanring)
# Loom is an optional dependency of core and std-ext (kept out of users' lockfiles); each
# package's `__loom` feature turns it on (std-ext's also core's). The facade has none: its loom
# tests, if any, would need `spanring-std/__loom`.
declare -A FEATURES=([core]=__loom [std-ext]=__loom [.]=spanring-std/__loom)
found=0
for dir in core std-ext .; do
    args=()
    for f in "$dir"/tests/loom_*.rs "$dir"/tests/loom_*/main.rs; do
        if [[ $f == */main.rs ]]; then
            name="$(basename "$(dirname "$f")")"
        else
            name="$(basename "$f" .rs)"
        fi
        args+=(--test "$name")
    done
    ((${#args[@]})) || continue
    found=$((found + ${#args[@]} / 2))
    note "loom: ${PKG[$dir]}: ${args[*]}"
    # One binary may take long: loom_close explores about 700 s on this machine class (its
    # close-vs-claims model covers the inlined claim and the slow path), so each binary gets
    # 1500 s (still killed and named if it hangs) and the package 2400 s.
    run limited 2400 "loom models of ${PKG[$dir]}" env RUSTFLAGS="--cfg spanring_loom" \
        "$(runner_env "$HOST_TRIPLE")" \
        SPANRING_TEST_TIMEOUT="${SPANRING_TEST_TIMEOUT:-1500}" \
        CARGO_TARGET_DIR="$TARGET_BASE/loom" \
        CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true \
        CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS=true \
        LOOM_MAX_PREEMPTIONS="$LOOM_MAX_PREEMPTIONS" \
        cargo test --release -p "${PKG[$dir]}" --features "${FEATURES[$dir]}" "${args[@]}"
done

if ((found == 0)); then
    note "loom: NOTE: no loom_* test files yet (looked in core/tests, std-ext/tests, tests); nothing to run"
else
    note "loom: ran $found loom test target(s) with LOOM_MAX_PREEMPTIONS=$LOOM_MAX_PREEMPTIONS"
fi
