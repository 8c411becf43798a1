#!/usr/bin/env python3
"""Writes fuzz seeds from the golden cases of the formats named on the
command line: fuzz/seeds/nothing_lost/<format>-<case> is the case's input
behind the header [fuzz id, options], fuzz/seeds/split_invariance/ the
same with two cuts (options' low bits = 2, then the offsets 7 and 13).
The bits are those of `contract::Setup::of_header`. Run from the
repository root: python3 fuzz/make_seeds.py mistral cohere"""
import json, os, re, sys

OPT_THINK, OPT_THINK_OPEN, OPT_CALLS_IN_THINK = 0x40, 0x20, 0x10
FORMAT_ENDS_AT_CALLS = 0x80

def fuzz_id(fmt):
    """The format's fuzz id, read from its spec in src/formats/."""
    for name in os.listdir("src/formats"):
        text = open(f"src/formats/{name}").read()
        if re.search(r'name: "%s",' % re.escape(fmt), text):
            return int(re.search(r"fuzz_id: (\d+),", text).group(1))
    sys.exit(f"no format {fmt!r} in src/formats")

def reasoning(case):
    """The case's `<think>` reasoning (the only tags the fuzz header can
    ask for), or None."""
    try:
        cfg = json.load(open(case + ".reasoning.json"))
    except FileNotFoundError:
        return None
    return cfg if cfg["start"] == "<think>" else None

def options(case):
    """Reasoning option bits for a case with `<think>` tags; 0 otherwise."""
    cfg = reasoning(case)
    if cfg is None:
        return 0
    bits = OPT_THINK
    bits |= OPT_THINK_OPEN if cfg["startsOpen"] else 0
    bits |= OPT_CALLS_IN_THINK if cfg["callsInside"] else 0
    return bits

def format_byte(fid, case):
    """The fuzz id, with the bit for reasoning that calls end."""
    cfg = reasoning(case)
    return fid | (FORMAT_ENDS_AT_CALLS if cfg and cfg.get("endsAtCalls") else 0)

for fmt in sys.argv[1:]:
    fid = fuzz_id(fmt)
    for f in sorted(os.listdir(f"testdata/{fmt}")):
        if not f.endswith(".txt"):
            continue
        case = f"testdata/{fmt}/{f[:-4]}"
        data = open(case + ".txt", "rb").read()
        opts = options(case)
        head = format_byte(fid, case)
        name = f"{fmt}-{f[:-4]}"
        open(f"fuzz/seeds/nothing_lost/{name}", "wb").write(bytes([head, opts]) + data)
        open(f"fuzz/seeds/split_invariance/{name}", "wb").write(bytes([head, opts | 2, 7, 13]) + data)
