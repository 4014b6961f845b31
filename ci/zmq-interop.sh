#!/usr/bin/env bash
# Interoperability of the ZeroMQ bridge (bridge/zmq, package spanring-zmq) with real GNU Radio
# 3.10 (Debian's `gnuradio` and its gr-zeromq blocks), in both directions. Not a step of
# ci/test.sh: it installs 167 Debian packages, so it runs only when asked:
#
#   SPANRING_ZMQ_INTEROP=1 bash ci/zmq-interop.sh
#
# Cases (i32 counter streams, GNU Radio's gr.sizeof_int with vlen 1, 1,000,000 items each):
#   1-2. our PUB bridge (bound) -> GNU Radio sub_source -> head -> vector_sink, pass_tags off/on:
#        GNU Radio checks the counter has no jump (our sender paced at 10 M items/s with a PUB
#        high-water mark of 100,000 messages, so that nothing is dropped while GNU Radio starts).
#   3-4. GNU Radio vector_source (repeating counter) -> throttle(10 M/s) -> pub_sink, pass_tags
#        off/on -> our SUB bridge (connected): no jump without tags; with tags every jump must be
#        a reported gap of the same size.
#   5-6. GNU Radio vector_source -> push_sink, pass_tags off/on -> our PULL bridge: exactly
#        0..N-1 in order. With pass_tags the stream carries a tag every 997 items (PMTs of eight
#        kinds), so the headers hold serialised tags that the bridge must skip.
# GNU Radio's modules import under the system interpreter, /usr/bin/python3 (a pyenv python3
# earlier on PATH would not find them).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [[ ${SPANRING_ZMQ_INTEROP:-} != 1 ]]; then
    note "zmq-interop: skipped (set SPANRING_ZMQ_INTEROP=1 to run it)"
    exit 0
fi

PY=/usr/bin/python3
if ! "$PY" -c 'from gnuradio import zeromq; import zmq' >/dev/null 2>&1; then
    note "zmq-interop: installing gnuradio and python3-zmq (Debian)"
    export DEBIAN_FRONTEND=noninteractive
    SUDO=()
    [[ $(id -u) -eq 0 ]] || SUDO=(sudo)
    run "${SUDO[@]}" apt-get update -qq
    run "${SUDO[@]}" apt-get install -y -qq --no-install-recommends gnuradio python3-zmq >/dev/null
fi
note "zmq-interop: GNU Radio $("$PY" -c 'from gnuradio import gr; print(gr.version())'), libzmq $("$PY" -c 'import zmq; print(zmq.zmq_version())') (pyzmq)"

run cargo build -q --release -p spanring-zmq --example interop_counter
BIN="$TARGET_BASE/release/examples/interop_counter"
GR="$ROOT/ci/zmq_interop_gr.py"
N=1000000
MOD=2147483647
passed=0
failed=0
result() { # result NAME STATUS
    if (($2 == 0)); then passed=$((passed + 1)); note "PASS: $1"; else failed=$((failed + 1)); note "FAIL: $1 (exit $2)"; fi
}
port() { printf '%d' $((20000 + RANDOM % 20000)); }

# Waits (at most 60 s) until FILE has a line starting with WORD; prints that line's second field.
wait_line() { # wait_line FILE WORD
    local i line
    for ((i = 0; i < 600; i++)); do
        line="$(grep -m1 "^$2" "$1" 2>/dev/null || true)"
        if [[ -n $line ]]; then
            printf '%s\n' "$(awk '{print $2}' <<<"$line")"
            return 0
        fi
        sleep 0.1
    done
    return 1
}
OUT="$(mktemp -d)"

# 1-2: our PUB -> GNU Radio sub_source.
for tags in notags tags; do
    "$BIN" send pub tcp://127.0.0.1:0 "$tags" 10000000 "$MOD" </dev/null >"$OUT/send.$tags" 2>&1 &
    send_pid=$!
    addr="$(wait_line "$OUT/send.$tags" listening)" || die "our sender did not start"
    note "our PUB at $addr ($tags, 10 M items/s) -> GNU Radio sub_source"
    rc=0
    limited 300 "GNU Radio sub_source" "$PY" "$GR" sub "$addr" "$tags" "$N" "$MOD" || rc=$?
    kill "$send_pid" 2>/dev/null || true
    wait "$send_pid" 2>/dev/null || true
    result "bridge PUB -> gnuradio sub_source ($tags)" "$rc"
done

# 3-4: GNU Radio pub_sink -> our SUB.
for tags in notags tags; do
    addr="tcp://127.0.0.1:$(port)"
    "$PY" "$GR" pub "$addr" "$tags" 1048576 10e6 >"$OUT/gr.$tags" 2>&1 &
    gr_pid=$!
    wait_line "$OUT/gr.$tags" started >/dev/null || die "GNU Radio pub_sink did not start"
    note "GNU Radio pub_sink at $addr ($tags, throttle 10 M items/s) -> our SUB"
    rc=0
    limited 300 "bridge SUB" "$BIN" recv sub "$addr" "$tags" "$N" 1048576 || rc=$?
    kill "$gr_pid" 2>/dev/null || true
    wait "$gr_pid" 2>/dev/null || true
    result "gnuradio pub_sink -> bridge SUB ($tags)" "$rc"
done

# 5-6: GNU Radio push_sink -> our PULL.
for tags in notags tags; do
    addr="tcp://127.0.0.1:$(port)"
    note "GNU Radio push_sink at $addr ($tags) -> our PULL"
    limited 300 "GNU Radio push_sink" "$PY" "$GR" push "$addr" "$tags" "$N" &
    gr_pid=$!
    rc=0
    limited 300 "bridge PULL" "$BIN" recv pull "$addr" "$tags" "$N" "$MOD" || rc=$?
    wait "$gr_pid" || rc=$((rc ? rc : 1))
    result "gnuradio push_sink -> bridge PULL ($tags)" "$rc"
done

rm -rf "$OUT"
printf 'zmq-interop: %d passed, %d failed\n' "$passed" "$failed"
((failed == 0))
