#!/usr/bin/env python3
"""Writes the benchmark corpora of testdata/bench/ (run from the repo root):
for every format, ~4 KB of prose with calls (mixed_*), one call with a 64 KB
argument (big_arg_*) and the same with 1 KB (small_arg_*), one with 16 KB of
CJK text (cjk_arg_*); 64 KB of prose
(prose.txt) and 16 KB of CJK prose (cjk_prose.txt); and documents of dense calls with large nested arguments, as
agent workloads write them, for the JSON layouts the peers' own benchmarks
cover (dense_*: hermes blocks, Mistral's `[TOOL_CALLS]` array, Llama's
`<|python_tag|>` with arguments as a JSON-encoded string)."""
import json, random

WORDS = ("the a model tool call weather city returns value when and if stream parser "
         "token chunk text result user assistant answer check Paris Tokyo 42 rain sunny "
         "because which then, it. is are was will: (see below) - é 世界").split()

def prose(n):
    out, size = [], 0
    while size < n:
        w = random.choice(WORDS)
        out.append(w)
        size += len(w.encode()) + 1
        if random.random() < 0.08:
            out.append(random.choice([".\n", ", a < b, ", " <b>x</b> ", "\n\n"]))
    return " ".join(out).encode()[:n].decode("utf-8", "ignore")

def text(v):
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)

def call(fmt, name, args):
    """As `toolsieve::middleware::format_tool_call` renders it."""
    if fmt in ("hermes", "gemma"):
        body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        return f"```tool_call\n{body}\n```" if fmt == "gemma" else f"<tool_call>\n{body}\n</tool_call>"
    if fmt == "qwen3-coder":
        ps = "".join(f"<parameter={k}>\n{text(v)}\n</parameter>\n" for k, v in args.items())
        return f"<tool_call>\n<function={name}>\n{ps}</function>\n</tool_call>"
    if fmt == "seed-oss":
        ps = "".join(f"<parameter={k}>{text(v)}</parameter>\n" for k, v in args.items())
        return f"<seed:tool_call>\n<function={name}>\n{ps}</function>\n</seed:tool_call>"
    if fmt == "kimi-k3":
        kind = lambda v: {str: "string", int: "number", float: "number", bool: "boolean"}.get(type(v), "object")
        ps = "".join(f'<|open|>argument key="{k}" type="{kind(v)}"<|sep|>{text(v)}<|close|>argument<|sep|>' for k, v in args.items())
        return f'<|open|>tools<|sep|><|open|>call tool="{name}" index="1"<|sep|>{ps}<|close|>call<|sep|><|close|>tools<|sep|>'
    if fmt == "minimax-m2":
        ps = "".join(f'<parameter name="{k}">{text(v)}</parameter>\n' for k, v in args.items())
        return f'<minimax:tool_call>\n<invoke name="{name}">\n{ps}</invoke>\n</minimax:tool_call>'
    if fmt == "deepseek-v3.2":
        ps = "".join(f'<｜DSML｜parameter name="{k}" string="{str(isinstance(v, str)).lower()}">{text(v)}</｜DSML｜parameter>\n'
                     for k, v in args.items())
        return f'<｜DSML｜function_calls>\n<｜DSML｜invoke name="{name}">\n{ps}</｜DSML｜invoke>\n</｜DSML｜function_calls>'
    if fmt == "glm":
        ps = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{text(v)}</arg_value>\n" for k, v in args.items())
        return f"<tool_call>{name}\n{ps}</tool_call>"
    if fmt == "deepseek-v3.1":
        body = json.dumps(args, ensure_ascii=False)
        return f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{body}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    if fmt == "deepseek-v3":
        body = json.dumps(args, ensure_ascii=False)
        return (f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{body}\n```"
                f"<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
    if fmt == "kimi-k2":
        body = json.dumps(args, ensure_ascii=False)
        return (f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>"
                f"{body}<|tool_call_end|><|tool_calls_section_end|>")
    if fmt == "llama3-json":
        return "<|python_tag|>" + json.dumps({"name": name, "parameters": args}, ensure_ascii=False) + "<|eom_id|>"
    if fmt == "xlam":
        body = json.dumps([{"name": name, "arguments": args}], ensure_ascii=False)
        return f"```json\n{body}\n```"
    if fmt in ("phi4-mini", "granite"):
        body = json.dumps([{"name": name, "arguments": args}], ensure_ascii=False)
        return ("functools" if fmt == "phi4-mini" else "<|tool_call|>") + body
    if fmt == "mistral":
        return f"[TOOL_CALLS]{name}[ARGS]" + json.dumps(args, ensure_ascii=False)
    if fmt == "cohere":
        body = json.dumps([{"tool_call_id": "0", "tool_name": name, "parameters": args}], ensure_ascii=False)
        return f"<|START_ACTION|>{body}<|END_ACTION|>"
    if fmt == "harmony":
        body = json.dumps(args, ensure_ascii=False)
        return f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{body}<|call|>"
    if fmt in ("pythonic", "lfm2"):
        ps = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
        if fmt == "lfm2":
            return f"<|tool_call_start|>[{name}({ps})]<|tool_call_end|>"
        return f"<|python_start|>[{name}({ps})]<|python_end|>"
    if fmt in ("gemma4", "function-gemma"):
        quote = '<|"|>' if fmt == "gemma4" else "<escape>"
        val = lambda v: f"{quote}{v}{quote}" if isinstance(v, str) else json.dumps(v)
        ps = ",".join(f"{k}:{val(v)}" for k, v in args.items())
        if fmt == "function-gemma":
            return f"<start_function_call>call:{name}{{{ps}}}<end_function_call>"
        return f"<|tool_call>call:{name}{{{ps}}}<tool_call|>"
    if fmt == "morph-xml":
        esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        ps = "".join(f"<{k}>{esc(text(v))}</{k}>\n" for k, v in args.items())
        return f"<{name}>\n{ps}</{name}>"

XML = ("qwen3-coder", "minimax-m2", "glm", "morph-xml", "deepseek-v3.2", "seed-oss", "kimi-k3")
for fmt in ("hermes", "gemma") + XML + ("deepseek-v3.1", "kimi-k2", "deepseek-v3", "phi4-mini", "granite", "xlam", "llama3-json",
            "mistral", "cohere", "harmony", "pythonic", "gemma4", "function-gemma", "lfm2"):
    random.seed(11)
    parts = []
    while sum(len(p.encode()) for p in parts) < 4096:
        parts.append(prose(random.randint(150, 500)))
        args = {"city": random.choice(["Paris", "東京", "Lima"]), "days": random.randint(1, 9),
                "units": "metric", "note": "include \"feels like\" {temp}"}
        parts.append(call(fmt, "get_weather", args))
    open(f"testdata/bench/mixed_{fmt}.txt", "w").write("\n".join(parts) + "\n")
    line = "fn main() { println!(\"hello {}\", \"world\"); } // é 世界 </tool_call> ```\n"
    if fmt in XML:
        # Code without the format's own closing tags.
        line = "fn main() { if a < b { println!(\"hello {}\", \"world\"); } } // é 世界 ```\n"
    content = (line * 2000)[:65536].rstrip("\n")
    open(f"testdata/bench/big_arg_{fmt}.txt", "w").write(
        "Writing it.\n" + call(fmt, "write_file", {"path": "src/main.rs", "content": content}) + "\n")
    open(f"testdata/bench/small_arg_{fmt}.txt", "w").write(
        "Writing it.\n" + call(fmt, "write_file", {"path": "src/main.rs", "content": content[:1024]}) + "\n")
    # CJK text, which byte-level tokens and network chunks cut inside
    # characters: 16 KB of it in one argument.
    cjk = "東京の天気は晴れ、気温は二十度。明日は「雨」の予報です。北京今天多云，\"最高\"气温二十五度。서울은 맑음.\n"
    cjk = (cjk * 200).encode()[:16384].decode("utf-8", "ignore").rstrip("\n")
    open(f"testdata/bench/cjk_arg_{fmt}.txt", "w").write(
        "Writing it.\n" + call(fmt, "write_file", {"path": "notes.md", "content": cjk}) + "\n")
random.seed(3)
open("testdata/bench/prose.txt", "w").write(prose(65536))
# Prose in Chinese, Japanese and Korean, with some Latin, which byte-level
# tokens and network chunks cut inside characters: 16 KB.
cjk_prose = ("今天的天气很好，我们去公园散步吧。東京の天気は晴れです。明日は雨の予報なので、傘を持っていきましょう。"
             "서울은 오늘 맑고 따뜻합니다. The model answered in 中文 and 日本語 (see below). "
             "这是一个测试句子，包含“中文标点符号”！\n")
open("testdata/bench/cjk_prose.txt", "w").write((cjk_prose * 200).encode()[:16384].decode("utf-8", "ignore"))
tools = [
    {"name": "get_weather", "description": "Weather for a city", "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}, "units": {"type": "string"}, "note": {"type": "string"}}}},
    {"name": "write_file", "description": "Write a file", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}}},
]

# Dense calls: nested objects and arrays, numbers, nulls, long strings.
pipeline = {"name": "sync_orders", "source": {"kind": "postgres", "dsn": "postgresql://svc@db-1:5432/shop",
            "tables": ["orders", "order_items", "refunds"], "batch_rows": 5000},
            "steps": [{"op": "filter", "where": "status IN ('paid', 'shipped') AND total > 0"},
                      {"op": "join", "on": ["order_id"], "with": "order_items", "kind": "left"},
                      {"op": "aggregate", "by": ["customer_id", "month"], "metrics": ["count", "sum(total)", "avg(total)"]}],
            "sink": {"kind": "parquet", "path": "s3://lake/orders/", "partition": ["month"], "overwrite": False},
            "retries": {"max": 3, "backoff_s": [1, 5, 30]}, "owner": None}
schedule = {"job": "sync_orders", "cron": "15 */2 * * *", "timezone": "Europe/Paris",
            "alerts": {"on_failure": ["oncall@example.com"], "on_success": None, "slack": "#data-jobs"},
            "limits": {"cpu": 2.5, "memory_mb": 4096, "timeout_s": 1800}, "enabled": True}
query = {"sql": "SELECT customer_id, date_trunc('month', created_at) AS month, count(*) AS n, sum(total) AS revenue "
                "FROM orders WHERE created_at >= now() - interval '180 days' GROUP BY 1, 2 HAVING count(*) > 3 "
                "ORDER BY revenue DESC LIMIT 200", "params": [], "read_only": True, "timeout_ms": 15000,
         "explain": False, "labels": {"team": "growth", "purpose": "weekly report \"Q3\""}}
calls = [("create_pipeline", pipeline), ("schedule_job", schedule), ("run_query", query)]
open("testdata/bench/dense_hermes.txt", "w").write(
    "I'll set up the pipeline, schedule it, and check the numbers.\n\n"
    + "\n".join(call("hermes", n, a) for n, a in calls)
    + "\n\nThe pipeline is configured; the first run starts at the next quarter past.\n")
objects = ", ".join(json.dumps({"name": n, "arguments": a}, ensure_ascii=False) for n, a in calls)
open("testdata/bench/dense_mistral.txt", "w").write(
    "Let me do all three at once.\n\n[TOOL_CALLS] [" + objects + "]\n\nDone; here is what changed.\n")
code = "\n".join([
    "import csv, statistics",
    "from pathlib import Path",
    "",
    "rows = list(csv.DictReader(Path('/data/orders.csv').open()))",
    "by_month = {}",
    "for r in rows:",
    "    by_month.setdefault(r['created_at'][:7], []).append(float(r['total']))",
    "for month, totals in sorted(by_month.items()):",
    "    print(f\"{month}: n={len(totals)} mean={statistics.mean(totals):.2f} max={max(totals):.2f}\")",
    "print('months:', len(by_month), \"rows:\", len(rows))",
] * 4)
open("testdata/bench/dense_llama.txt", "w").write(
    "<|python_tag|>" + json.dumps({"name": "execute_code", "arguments": json.dumps({"language": "python", "code": code})}))
open("testdata/bench/tools.json", "w").write(json.dumps(tools, indent=2) + "\n")
print("ok")
