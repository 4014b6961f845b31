#!/usr/bin/python3
"""GNU Radio's side of ci/zmq-interop.sh and of the bridge benchmark (bridge/zmq/benches).

Run with the system interpreter (/usr/bin/python3), where Debian's GNU Radio 3.10 modules are.

  sub  ADDR tags|notags N MODULO      sub_source(int) -> head(N) -> vector_sink; checks a counter
  pub  ADDR tags|notags MODULO RATE   counter 0..MODULO-1 repeated -> throttle(RATE) -> pub_sink,
                                      until killed
  push ADDR tags|notags N             counter 0..N-1 (with tags: a stream tag every 997 items,
                                      PMTs of 8 kinds) -> push_sink (GNU Radio binds ADDR)
  bench ADDR N                        gr_complex: null_source -> pub_sink => sub_source -> head(N)
                                      -> null_sink, one flowgraph; prints samples/s
"""
import sys
import time

import numpy as np
import pmt
from gnuradio import blocks, gr, zeromq

INT = gr.sizeof_int


def check_counter(data, modulo):
    d = np.asarray(data, dtype=np.int64)
    steps = np.mod(np.diff(d) - 1, modulo)
    return int(np.count_nonzero(steps))


def sub(addr, tags, n, modulo):
    tb = gr.top_block()
    src = zeromq.sub_source(INT, 1, addr, 100, tags)
    head = blocks.head(INT, n)
    sink = blocks.vector_sink_i()
    tb.connect(src, head, sink)
    tb.start()
    # sub_source does not end the flowgraph when head is done: watch the sink, then stop.
    deadline = time.monotonic() + 120
    while len(sink.data()) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    tb.stop()
    tb.wait()
    data = sink.data()[:n]
    jumps = check_counter(data, modulo) if len(data) > 1 else -1
    print(f"gnuradio sub_source(pass_tags={tags}): {len(data)} items, first {data[0] if data else None}, "
          f"last {data[-1] if data else None}, jumps {jumps}")
    return 0 if len(data) == n and jumps == 0 else 1


def pub(addr, tags, modulo, rate):
    tb = gr.top_block()
    src = blocks.vector_source_i(list(range(modulo)), True)
    thr = blocks.throttle(INT, rate)
    snk = zeromq.pub_sink(INT, 1, addr, 100, tags)
    tb.connect(src, thr, snk)
    tb.start()
    print("started", flush=True)
    tb.wait()  # until the script ends this process
    return 0


def stream_tags(n):
    """Tags of several PMT kinds every 997 items, for pass_tags to serialise into headers."""
    values = [pmt.from_long(5), pmt.from_double(1.5), pmt.from_complex(1 + 2j),
              pmt.init_f32vector(3, [1, 2, 3]), pmt.cons(pmt.intern("a"), pmt.PMT_T),
              pmt.dict_add(pmt.make_dict(), pmt.intern("k"), pmt.from_uint64(7)),
              pmt.make_tuple(pmt.PMT_NIL, pmt.PMT_F), pmt.init_c64vector(1, [1j])]
    return [gr.tag_utils.python_to_tag((o, pmt.intern("key%d" % (i % 3)), values[i % len(values)], pmt.intern("src")))
            for i, o in enumerate(range(0, n, 997))]


def push(addr, tags, n):
    tb = gr.top_block()
    src = blocks.vector_source_i(list(range(n)), False, 1, stream_tags(n) if tags else [])
    snk = zeromq.push_sink(INT, 1, addr, 100, tags)
    tb.connect(src, snk)
    tb.run()
    print(f"gnuradio push_sink(pass_tags={tags}): sent {n} items" + (f" with {len(stream_tags(n))} stream tags" if tags else ""))
    return 0


def bench(addr, n):
    tb = gr.top_block()
    src = blocks.null_source(gr.sizeof_gr_complex)
    pub = zeromq.pub_sink(gr.sizeof_gr_complex, 1, addr, 100, False, -1, "", False)
    sub = zeromq.sub_source(gr.sizeof_gr_complex, 1, addr, 100, False)
    head = blocks.head(gr.sizeof_gr_complex, n)
    snk = blocks.null_sink(gr.sizeof_gr_complex)
    tb.connect(src, pub)
    tb.connect(sub, head, snk)
    tb.start()
    deadline = time.monotonic() + 120
    t0, c0 = None, 0
    while time.monotonic() < deadline:
        c = head.nitems_written(0) if hasattr(head, "nitems_written") else 0
        if t0 is None and c > 0:
            t0, c0 = time.monotonic(), c
        if c >= n:
            break
        time.sleep(0.01)
    t1 = time.monotonic()
    c1 = head.nitems_written(0)
    tb.stop()
    tb.wait()
    rate = (c1 - c0) / (t1 - t0) if t0 and t1 > t0 else 0.0
    print(f"gnuradio pub_sink->sub_source gr_complex: {c1 - c0} samples in {t1 - t0:.3f} s = {rate / 1e6:.1f} M samples/s")
    return 0


def main(argv):
    mode = argv[1]
    if mode == "sub":
        return sub(argv[2], argv[3] == "tags", int(argv[4]), int(argv[5]))
    if mode == "pub":
        return pub(argv[2], argv[3] == "tags", int(argv[4]), float(argv[5]))
    if mode == "push":
        return push(argv[2], argv[3] == "tags", int(argv[4]))
    if mode == "bench":
        return bench(argv[2], int(argv[3]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
