#!/usr/bin/env python3
"""Renders the README's performance tables from one run of the buffer bench.

    cargo bench --bench buffer | tee target/spanring-bench/buffer.txt
    python3 benches/support/readme_tables.py

Reads target/spanring-bench/buffer.json (the matrices) and buffer.txt (the peers and targets
tables, copied as printed, so every ratio is the bench's own from the same run) and prints
markdown for README.md's performance section. Nothing is typed in by hand.
"""
import json
import sys

BASE = "target/spanring-bench/"


def fmt(v):
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= div:
            x = v / div
            return f"{x:.3g}{unit}" if x < 100 else f"{x:.0f}{unit}"
    return f"{v:.0f}"


def shape(r):
    return f"{r['producers']}P→{r['consumers']}C"


def matrix(rows):
    """The bm_Buffer matrix (data untouched): P→C × claim by memory × chunk."""
    cells = {}
    for r in rows:
        if r["table"] == "buffer" and r["impl"] == "spanring":
            cells[(shape(r), r["claim"], r["memory"], r["chunk"])] = r["ops_per_s"]
    keys = sorted({(k[0], k[1]) for k in cells}, key=lambda k: (k[0][0], k[0][3], k[1] != "single"))
    out = ["| P→C | claim | double-mapped chunk 1 | double-mapped chunk 1024 | portable chunk 1 | portable chunk 1024 |",
           "| --- | --- | ---: | ---: | ---: | ---: |"]
    for s, c in keys:
        vals = [cells.get((s, c, m, ch)) for m in ("double-mapped", "portable") for ch in (1, 1024)]
        out.append(f"| {s} | {c} | " + " | ".join(fmt(v) if v else "—" for v in vals) + " |")
    return "\n".join(out)


def verify(rows):
    """Every item written and checked (double-mapped): item reads, batch reads, chunk 1024."""
    cells = {}
    for r in rows:
        if r["table"] == "verify" and r["memory"] == "double-mapped":
            kind = "batch" if "batch" in r["impl"] else "item"
            if r["impl"].startswith("spanring"):
                cells[(shape(r), r["claim"], kind, r["chunk"])] = r["ops_per_s"]
    keys = sorted({(k[0], k[1]) for k in cells}, key=lambda k: (k[0][0], k[0][3], k[1] != "single"))
    out = ["| P→C | claim | chunk 1, item reads | chunk 1, batch reads | chunk 1024 |",
           "| --- | --- | ---: | ---: | ---: |"]
    for s, c in keys:
        vals = [cells.get((s, c, "item", 1)), cells.get((s, c, "batch", 1)), cells.get((s, c, "item", 1024))]
        out.append(f"| {s} | {c} | " + " | ".join(fmt(v) if v else "—" for v in vals) + " |")
    return "\n".join(out)


def printed_table(text, heading):
    """The markdown table printed under the `## heading...` line of the bench's output."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("## " + heading):
            body = []
            for l in lines[i + 1:]:
                if l.startswith("|"):
                    body.append(l)
                elif body:
                    break
            return "\n".join(body)
    sys.exit(f"no table '{heading}' in the bench output")


def main():
    data = json.load(open(BASE + "buffer.json"))
    text = open(BASE + "buffer.txt").read()
    print(f"<!-- {data['benchmark']} bench, {data['mode']} mode, {data['cores']} cores -->\n")
    print("bm_Buffer matrix, data untouched (`buffer` table; YieldWait):\n")
    print(matrix(data["rows"]))
    print("\nEvery item written and checked by every reader (`verify` table, double-mapped):\n")
    print(verify(data["rows"]))
    print("\nPeers, same run, as the bench printed them:\n")
    print(printed_table(text, "peers"))
    print("\nTargets, measured by the bench in this run (each ratio the median of interleaved pairs; chunk-1024 and GR4 rows from the tables), under two thread placements, `[together]` = every thread pinned to one core (the instructions per item) and `[apart]` = one thread per core, round robin (the cross-core hand-off):\n")
    print(printed_table(text, "targets"))



if __name__ == "__main__":
    main()
