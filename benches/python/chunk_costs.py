"""Instructions the parser spends on each chunk of a stream, counted by
callgrind: which chunks of a call are dear (a tag completed, a value
opened) and which are cheap (prose, a wait for the rest of a tag).

    cargo build --release --example chunk_costs
    python3 benches/python/chunk_costs.py target/release/examples/chunk_costs \\
        FILE CHUNK_SIZE FORMAT [--top K]

Prints a line per chunk (its instructions and its bytes) and the total;
with `--top K`, the functions that ran the most instructions in each of
the K dearest chunks. The counts include the example's own loop and
callback (about 30 instructions a chunk, as in `examples/chunked_feed.rs`)
and are the same on every run and machine. Needs valgrind.
"""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BOUNDARY = "chunk_costs::chunk_boundary"


def dumps(binary: str, file: str, size: int, format: str, out: Path) -> list[Path]:
    """Runs the example under callgrind, a dump before each chunk; the
    dump files in order."""
    if shutil.which("valgrind") is None:
        sys.exit("chunk_costs.py: needs valgrind")
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--dump-before={BOUNDARY}",
         f"--callgrind-out-file={out / 'cg'}", binary, file, str(size), format],
        capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"chunk_costs.py: the example failed:\n{run.stderr[-2000:]}")
    numbered = [p for p in out.iterdir() if re.fullmatch(r"cg\.\d+", p.name)]
    return sorted(numbered, key=lambda p: int(p.suffix[1:]))


def total(dump: Path) -> int:
    found = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(), re.M)
    return int(found.group(1)) if found else 0


def names(files: list[Path]) -> dict[str, str]:
    """Callgrind names a function once, in the first dump that has it,
    and by number after that: the numbers of all the dumps."""
    named = {}
    for f in files:
        for m in re.finditer(r"^c?fn=\((\d+)\) (.*)$", f.read_text(), re.M):
            named[m.group(1)] = m.group(2)
    return named


def self_costs(dump: Path, named: dict[str, str]) -> collections.Counter:
    costs: collections.Counter = collections.Counter()
    function, in_call = "?", False
    for line in dump.read_text().splitlines():
        if m := re.match(r"fn=\((\d+)\)", line):
            function = named.get(m.group(1), m.group(1))
        elif line.startswith("calls="):
            in_call = True
        elif line[:1].isdigit() or line[:1] in ("+", "-", "*"):
            parts = line.split()
            if in_call:
                in_call = False
            elif len(parts) > 1:
                costs[function] += int(parts[1])
    return costs


def main() -> None:
    args = sys.argv[1:]
    top = 0
    if "--top" in args:
        at = args.index("--top")
        top = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    binary, file, size, format = args[0], args[1], int(args[2]), args[3]
    data = Path(file).read_bytes()
    chunks = [data[i:i + size] for i in range(0, len(data), size)]
    with tempfile.TemporaryDirectory() as tmp:
        files = dumps(binary, file, size, format, Path(tmp))
        # The first dump is the warm-up; then one per chunk.
        per_chunk = files[1:1 + len(chunks)]
        if len(per_chunk) != len(chunks):
            sys.exit(f"chunk_costs.py: {len(per_chunk)} dumps for {len(chunks)} chunks")
        costs = [total(f) for f in per_chunk]
        for i, (cost, chunk) in enumerate(zip(costs, chunks)):
            print(f"{i:5} {cost:7} {chunk!r}")
        print(f"total {sum(costs)} instructions, {len(chunks)} chunks, "
              f"{sum(costs) / len(data):.1f} per byte")
        if top:
            named = names(files)
            dearest = sorted(range(len(chunks)), key=lambda i: -costs[i])[:top]
            for i in dearest:
                print(f"\nchunk {i} {chunks[i]!r}: {costs[i]}")
                for function, cost in self_costs(per_chunk[i], named).most_common(12):
                    print(f"  {cost:6} {function[:110]}")


if __name__ == "__main__":
    main()
