# Shared helpers, sourced (not run) by every ci/*.sh script.
#
# - Every script works from any directory: we cd to the repository root first.
# - `run` echoes each command (with its environment overrides, written as `env A=B cmd`) before
#   running it, so a CI log shows exactly what was executed.
# - TARGET_BASE is the main build cache (CARGO_TARGET_DIR if set, else ./target). Steps that
#   change RUSTFLAGS (loom, tsan, msrv) build into sub-directories of it, so the cfg change does
#   not invalidate the main cache on every run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_BASE="${CARGO_TARGET_DIR:-$ROOT/target}"

# Print a command, then run it.
run() {
    local a out="+"
    for a in "$@"; do
        # Quote arguments with spaces or shell characters so the line can be pasted back.
        if [[ $a =~ [^A-Za-z0-9_./=:,+@%-] ]]; then a="'${a//\'/\'\\\'\'}'"; fi
        out+=" $a"
    done
    printf '%s\n' "$out" >&2
    "$@"
}

# A visible note in the log.
note() {
    printf '>>> %s\n' "$*"
}

# Stop with a message on stderr.
die() {
    printf 'ERROR: %s\n' "$*" >&2
    exit 1
}

# Fail early, with the fix, when a prerequisite that ci/install.sh provides is missing.
need_cmd() {
    command -v "$1" >/dev/null 2>&1 || die "'$1' not found; run: bash ci/install.sh"
}
# (Command output is captured before grepping: `cmd | grep -q` under pipefail can fail when
# grep exits early and cmd dies of SIGPIPE.)
need_target() { # need_target TRIPLE  (for the default toolchain)
    local installed
    installed="$(rustup target list --installed)"
    grep -qx "$1" <<<"$installed" || die "rust target $1 not installed; run: bash ci/install.sh"
}
need_nightly_component() { # need_nightly_component NAME
    local installed
    installed="$(rustup component list --toolchain nightly --installed 2>/dev/null || true)"
    grep -q "^$1" <<<"$installed" || die "nightly component $1 not installed; run: bash ci/install.sh"
}

# `runner_env TRIPLE [PREFIX...]` prints `CARGO_TARGET_<TRIPLE>_RUNNER=...`: cargo then starts
# every test binary of that target through ci/timed-run.sh, which kills a binary that runs
# longer than SPANRING_TEST_TIMEOUT seconds (default 600) and names it. Use as
# `run env "$(runner_env x86_64-unknown-linux-gnu)" cargo test ...`.
runner_env() {
    local triple="$1" up
    shift
    up="$(tr 'a-z-' 'A-Z_' <<<"$triple")"
    printf 'CARGO_TARGET_%s_RUNNER=%s %s --' "$up" "$ROOT/ci/timed-run.sh" "$*"
}
HOST_TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"

# `limited SECONDS WHAT cmd...`: runs cmd under a time limit for commands that start test
# programs cargo's runner does not see (doc-tests, Miri); on expiry says WHAT hung.
limited() {
    local secs="$1" what="$2" rc=0
    shift 2
    timeout --kill-after=10 "$secs" "$@" || rc=$?
    if ((rc == 124 || rc == 137)); then
        die "TIMEOUT: $what did not finish in ${secs}s: $*"
    fi
    return "$rc"
}
