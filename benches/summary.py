#!/usr/bin/env python3
"""Prints, as Markdown, the medians of the last criterion runs:
`cargo bench --bench throughput` (MB/s by corpus, format and chunk size, and
each row's ratio to the memchr yardstick of its corpus; arguments against
serde_json) and `cargo bench -p toolsieve-bench-peers` (toolsieve against
tool-parser, same corpora and chunkings)."""
import glob
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "criterion")
SIZES = ["1", "4", "16", "64", "whole"]


def load():
    rows = {}
    for path in glob.glob(f"{ROOT}/**/new/estimates.json", recursive=True):
        d = os.path.dirname(os.path.dirname(path))
        bench = json.load(open(os.path.join(os.path.dirname(path), "benchmark.json")))
        nbytes = (bench.get("throughput") or {}).get("Bytes")
        if not nbytes:
            continue
        ns = json.load(open(path))["median"]["point_estimate"]
        rows[(bench["group_id"], bench["function_id"], bench.get("value_str") or "")] = nbytes / ns * 1e3
    return rows


def main():
    rows = load()
    groups = sorted({g for g, _, _ in rows})
    for group in [g for g in groups if g in ("mixed", "prose", "big_arg", "small_arg", "cjk_arg")]:
        memchr = rows.get((group, "memchr", "whole"))
        print(f"\n**{group}** (MB/s; memchr yardstick {memchr:.0f} MB/s)\n")
        sizes = SIZES + ["whole-str"]
        print("| format | " + " | ".join(sizes) + " | whole / memchr | whole-str / memchr |")
        print("|---|" + "---:|" * (len(sizes) + 2))
        formats = sorted({f for g, f, _ in rows if g == group and f != "memchr"})
        for f in formats:
            cells = [f"{rows[(group, f, s)]:.0f}" if (group, f, s) in rows else "" for s in sizes]
            ratios = [rows.get((group, f, s), 0) / memchr * 100 if memchr else 0 for s in ("whole", "whole-str")]
            print(f"| {f} | " + " | ".join(cells) + "".join(f" | {r:.0f}%" for r in ratios) + " |")
    if "arguments" in groups:
        print("\n**arguments** (MB/s of argument bytes: the whole call through toolsieve vs serde_json on the arguments alone)\n")
        print("| corpus | toolsieve (whole call) | serde_json → Value | serde_json → IgnoredAny |")
        print("|---|---:|---:|---:|")
        files = sorted({v for g, _, v in rows if g == "arguments"})
        for v in files:
            get = lambda f: rows.get(("arguments", f, v), 0)
            print(f"| {v} | {get('toolsieve-call'):.0f} | {get('serde_json-value'):.0f} | {get('serde_json-ignored'):.0f} |")
    peers = [g for g in groups if g.startswith("peers/")]
    if peers:
        print("\n**against tool-parser** (MB/s, toolsieve / tool-parser = ratio)\n")
        print("| corpus/format | " + " | ".join(SIZES) + " |")
        print("|---|" + "---:|" * len(SIZES))
        for g in peers:
            cells = []
            for s in SIZES:
                a, b = rows.get((g, "toolsieve", s)), rows.get((g, "tool-parser", s))
                cells.append(f"{a:.0f} / {b:.0f} = {a / b:.1f}×" if a and b else "")
            print(f"| {g[len('peers/'):]} | " + " | ".join(cells) + " |")


main()
