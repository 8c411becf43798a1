#!/usr/bin/env python3
"""Prints the throughput table of the last `cargo bench --bench throughput`
run, from criterion's estimates (median), with each engine row's ratio to
the memchr yardstick of its corpus."""
import json, os, glob

root = os.path.join(os.path.dirname(__file__), "..", "target", "criterion")
rows = {}
for path in glob.glob(f"{root}/*/*/*/new/estimates.json"):
    parts = path.split(os.sep)
    group, fn, param = parts[-5], parts[-4], parts[-3]
    bench = json.load(open(os.path.join(os.path.dirname(path), "benchmark.json")))
    est = json.load(open(path))
    tp = bench.get("throughput") or {}
    nbytes = tp.get("Bytes") or tp.get("BytesDecimal")
    if not nbytes:
        continue
    ns = est["median"]["point_estimate"]
    rows[(group, fn, param)] = nbytes / ns * 1e9 / 1e6  # MB/s
for group in sorted({g for g, _, _ in rows}):
    base = rows.get((group, "memchr", "whole"))
    print(f"\n{group}")
    for (g, fn, param), mbs in sorted(rows.items(), key=lambda kv: (kv[0][1], len(kv[0][2]), kv[0][2])):
        if g != group:
            continue
        ratio = f"  {mbs / base * 100:5.1f}% of memchr" if base and fn != "memchr" else ""
        print(f"  {fn:<20} {param:<22} {mbs:10.1f} MB/s{ratio}")
