"""Instructions `toolsieve serve` spends on each streamed chunk, counted by
callgrind (they do not drift with the machine, as latencies do).

    cargo build --release -p toolsieve-cli
    python3 benches/python/proxy_instructions.py target/release/toolsieve

A mock backend (`tests/mock_backend.py`) streams 400 words in 1-5
character pieces, 668 chunks an answer; the proxy, under callgrind, is
asked for 10 and then 30 streamed answers on each wire with a tool
(parsed, re-encoded: chat completions, Anthropic messages, Responses),
and on chat completions without one (relayed as the backend sent it).
The difference between the two counts, divided by the 20 answers'
chunks, leaves out start-up and connection set-up. (Chat completions
merges the text of chunks that arrive together into one; the other two
wires send an event per chunk.) Needs valgrind.

With `--paced`, the backend sends a piece every 2 ms and the proxy is
asked for 2 and then 6 answers: each chunk then arrives alone and is
read, parsed, encoded and sent on its own, as a token stream's chunks
are (slower: about 15 s a wire).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

import mock_backend  # noqa: E402

TEXT = "word " * 400
OBJECT = {"type": "object"}
ASK = [{"role": "user", "content": "go"}]
# Each wire's path and streamed request; `relayed` has no tools.
WIRES = {
    "chat completions": ("/chat/completions", {
        "model": "m", "stream": True, "messages": ASK,
        "tools": [{"type": "function", "function": {"name": "lookup", "parameters": OBJECT}}]}),
    "messages": ("/messages", {
        "model": "m", "max_tokens": 100, "stream": True, "messages": ASK,
        "tools": [{"name": "lookup", "input_schema": OBJECT}]}),
    "responses": ("/responses", {
        "model": "m", "stream": True, "input": "go",
        "tools": [{"type": "function", "name": "lookup", "parameters": OBJECT}]}),
    "chat completions, relayed": ("/chat/completions", {
        "model": "m", "stream": True, "messages": ASK}),
}


def instructions(binary: str, answers: int, wire: str, pace: float = 0.0) -> int:
    """Instructions the proxy ran for `answers` streamed answers, their
    pieces `pace` seconds apart."""
    backend, backend_url = mock_backend.start(lambda body: TEXT, pace=pace)
    log = f"/tmp/proxy_instructions.{os.getpid()}.log"
    proxy = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}",
         binary, "serve", "--backend", backend_url, "--listen", "127.0.0.1:0",
         "--format", "hermes"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = proxy.stdout.readline().split("listening on ")[1].split(",")[0]
    try:
        path, body = WIRES[wire]
        for _ in range(answers):
            request = urllib.request.Request(
                url + path, data=json.dumps(body).encode(),
                headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=120) as answer:
                answer.read()
    finally:
        mock_backend.stop(proxy, backend)
    with open(log) as f:
        found = re.search(r"Collected : (\d+)", f.read())
    os.remove(log)
    if found is None:
        sys.exit("callgrind printed no count")
    return int(found.group(1))


def main() -> None:
    args = sys.argv[1:]
    paced = "--paced" in args
    args = [a for a in args if a != "--paced"]
    if len(args) != 1:
        sys.exit(__doc__)
    binary = args[0]
    few, many, pace = (2, 6, 0.002) if paced else (10, 30, 0.0)
    chunks = (many - few) * len(list(mock_backend.pieces(TEXT)))
    for wire in WIRES:
        counts = [instructions(binary, n, wire, pace) for n in (few, many)]
        print(f"{wire}: {(counts[1] - counts[0]) / chunks:.0f} instructions per chunk")


if __name__ == "__main__":
    main()
