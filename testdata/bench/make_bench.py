#!/usr/bin/env python3
"""Writes the benchmark corpora of testdata/bench/ (run from the repo root)."""
import json, random

random.seed(7)
WORDS = ("the a model tool call weather city returns value when and if stream parser "
         "token chunk text result user assistant answer check Paris Tokyo 42 rain sunny "
         "because which then, it. is are was will: (see below) - é 世界").split()

def prose(n):
    out = []
    size = 0
    while size < n:
        w = random.choice(WORDS)
        out.append(w)
        size += len(w.encode()) + 1
        if random.random() < 0.08:
            out.append(random.choice([".\n", ", a < b, ", " <b>x</b> ", "\n\n"]))
    return " ".join(out).encode()[:n].decode("utf-8", "ignore")

def call(fmt, name, args):
    body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    if fmt == "gemma":
        return f"```tool_call\n{body}\n```"
    return f"<tool_call>\n{body}\n</tool_call>"

for fmt in ["hermes", "gemma"]:
    random.seed(11)
    parts = []
    while sum(len(p.encode()) for p in parts) < 4096:
        parts.append(prose(random.randint(150, 500)))
        parts.append(call(fmt, "get_weather", {"city": random.choice(["Paris", "東京", "Lima"]), "days": random.randint(1, 9), "units": "metric", "note": "include \"feels like\" {temp}"}))
    open(f"testdata/bench/mixed_{fmt}.txt", "w").write("\n".join(parts) + "\n")
    content = ("fn main() { println!(\"hello {}\", \"world\"); } // é 世界 </tool_call> ```\n" * 2000)[:65536]
    open(f"testdata/bench/big_arg_{fmt}.txt", "w").write("Writing it.\n" + call(fmt, "write_file", {"path": "src/main.rs", "content": content}) + "\n")
    small = content[:1024]
    open(f"testdata/bench/small_arg_{fmt}.txt", "w").write("Writing it.\n" + call(fmt, "write_file", {"path": "src/main.rs", "content": small}) + "\n")
random.seed(3)
open("testdata/bench/prose.txt", "w").write(prose(65536))
print("ok")
