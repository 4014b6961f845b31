#!/usr/bin/env bash
# Cargo runner (CARGO_TARGET_<TRIPLE>_RUNNER) that runs ONE test binary under a time limit and
# says which binary it was when the limit fires, so a hang fails fast and names itself instead
# of stalling CI. Set by `runner_env` in ci/common.sh; not meant to be called by hand.
#
#   timed-run.sh [PREFIX...] -- BINARY [ARGS...]
#
# PREFIX: how to start the binary (empty natively; `qemu-aarch64 -L <sysroot>`, or the i686
# dynamic loader for 32-bit binaries). SPANRING_TEST_TIMEOUT: the limit in seconds (default 600).
# On expiry the binary gets SIGTERM, then SIGKILL 10 s later; the exit status is 124 (or 137).
set -u
prefix=()
while (($#)) && [[ $1 != -- ]]; do prefix+=("$1"); shift; done
[[ ${1:-} == -- ]] && shift
(($#)) || { echo "timed-run.sh: no test binary given" >&2; exit 2; }
limit="${SPANRING_TEST_TIMEOUT:-600}"
name="$(basename "$1")"
start=$SECONDS
timeout --kill-after=10 "$limit" "${prefix[@]}" "$@"
rc=$?
if ((rc == 124 || rc == 137)); then
    printf '\nTIMEOUT: test binary %s (%s) did not finish in %ss%s; killed.\n' \
        "${name%-*}" "$1" "$limit" "${prefix[*]:+ under ${prefix[*]}}" >&2
elif ((SECONDS - start >= 60)); then
    printf '>>> slow test binary: %s took %ds\n' "${name%-*}" $((SECONDS - start)) >&2
fi
exit "$rc"
