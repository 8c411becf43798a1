#!/usr/bin/env python3
"""Writes fuzz seeds from the golden cases of the formats named on the
command line: fuzz/seeds/nothing_lost/<format>-<case> is the case's input
behind the header [fuzz id, options], fuzz/seeds/split_invariance/ the
same with two cuts (options' low bits = 2, then the offsets 7 and 13).
The option bits are those of `contract::Setup::of_header`. Run from the
repository root: python3 fuzz/make_seeds.py mistral cohere"""
import json, os, re, sys

OPT_THINK, OPT_THINK_OPEN, OPT_CALLS_IN_THINK = 0x40, 0x20, 0x10

def fuzz_id(fmt):
    """The format's fuzz id, read from its spec in src/formats/."""
    for name in os.listdir("src/formats"):
        text = open(f"src/formats/{name}").read()
        if re.search(r'name: "%s",' % re.escape(fmt), text):
            return int(re.search(r"fuzz_id: (\d+),", text).group(1))
    sys.exit(f"no format {fmt!r} in src/formats")

def options(case):
    """Reasoning option bits for a case with `<think>` tags (the only ones
    the fuzz header can ask for); 0 otherwise."""
    try:
        cfg = json.load(open(case + ".reasoning.json"))
    except FileNotFoundError:
        return 0
    if cfg["start"] != "<think>":
        return 0
    bits = OPT_THINK
    bits |= OPT_THINK_OPEN if cfg["startsOpen"] else 0
    bits |= OPT_CALLS_IN_THINK if cfg["callsInside"] else 0
    return bits

for fmt in sys.argv[1:]:
    fid = fuzz_id(fmt)
    for f in sorted(os.listdir(f"testdata/{fmt}")):
        if not f.endswith(".txt"):
            continue
        case = f"testdata/{fmt}/{f[:-4]}"
        data = open(case + ".txt", "rb").read()
        opts = options(case)
        name = f"{fmt}-{f[:-4]}"
        open(f"fuzz/seeds/nothing_lost/{name}", "wb").write(bytes([fid, opts]) + data)
        open(f"fuzz/seeds/split_invariance/{name}", "wb").write(bytes([fid, opts | 2, 7, 13]) + data)
