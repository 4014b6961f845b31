#!/usr/bin/env bash
# Builds the cross-process benchmark (nightly: shaq 5.x needs it; the peers come from the crates
# registry, or the local cache once fetched) and runs it once, writing the table to
# bench-xproc/RESULTS.md. Extra arguments go to the binary (--quick, --items N, --rounds N,
# --peers spanring,iceoryx2, --results FILE to write elsewhere).
#
#   bash bench-xproc/run.sh            # 10^7 items per case, 10^5 round trips (about a minute)
#   bash bench-xproc/run.sh --quick    # 10^6 items, 10^4 round trips
#
# Run it on a quiet machine: with 2 cores every case uses both, and 1 → 2 cases oversubscribe.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
TOOLCHAIN="${TOOLCHAIN:-+nightly}"
cargo "$TOOLCHAIN" build --release
results=RESULTS.md
for a in "$@"; do [[ $a == --results ]] && results=""; done
exec ./target/release/spanring-bench-xproc ${results:+--results "$results"} "$@"
