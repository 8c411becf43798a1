"""Instructions `toolsieve serve` spends on each streamed chunk, counted by
callgrind (they do not drift with the machine, as latencies do).

    cargo build --release -p toolsieve-cli
    python3 benches/python/proxy_instructions.py target/release/toolsieve

A mock backend (`tests/mock_backend.py`) streams 400 words in 1-5
character pieces, 668 chunks an answer; the proxy, under callgrind, is
asked for 10 and then 30 streamed answers, with a tool (parsed, re-encoded)
and without (relayed as the backend sent it). The difference between the
two counts, divided by the 20 answers' chunks, leaves out start-up and
connection set-up. Needs valgrind.
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
TOOLS = [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}]


def instructions(binary: str, answers: int, tools: bool) -> int:
    """Instructions the proxy ran for `answers` streamed answers."""
    backend, backend_url = mock_backend.start(lambda body: TEXT)
    log = f"/tmp/proxy_instructions.{os.getpid()}.log"
    proxy = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", f"--log-file={log}",
         binary, "serve", "--backend", backend_url, "--listen", "127.0.0.1:0",
         "--format", "hermes"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = proxy.stdout.readline().split("listening on ")[1].split(",")[0]
    try:
        for _ in range(answers):
            body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
            if tools:
                body["tools"] = TOOLS
            request = urllib.request.Request(
                url + "/chat/completions", data=json.dumps(body).encode(),
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
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    chunks = 20 * len(list(mock_backend.pieces(TEXT)))
    for tools, name in [(True, "parsed"), (False, "relayed")]:
        few = instructions(binary, 10, tools)
        many = instructions(binary, 30, tools)
        print(f"{name}: {(many - few) / chunks:.0f} instructions per chunk")


if __name__ == "__main__":
    main()
