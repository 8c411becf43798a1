"""Per-delta cost of the toolsieve plugins against vLLM's and SGLang's own
parsers, on the same streams, one token a delta.

    python benches/python/plugins.py [--quick] [--goldens | --large] [FORMAT ...]

Needs the test environment of `.ci/python`: the package, vLLM and SGLang.
Two workloads per format the servers share with toolsieve: its golden
outputs without reasoning (prose, calls, both; up to 8 KB each), and the
format's `large_argument_64k` golden where it has one (a call with a 64 KB
argument). `--goldens` runs the first alone, `--large` the second;
FORMATs limit the formats. Prints microseconds per delta
and the total per workload: the best of three runs (`--quick`: one); the
servers' parsers get one run of the 64 KB argument, and are stopped after
180 s.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2] / "bindings" / "python" / "tests"
sys.path.insert(0, str(TESTS))

from builtin import (  # noqa: E402
    SGLANG_BUILTIN,
    VLLM_BUILTIN,
    sglang_runner,
    toolsieve_sglang_name,
    toolsieve_vllm,
    vllm_runner,
)
from conftest import CASES, byte_tokenizer, token_pieces  # noqa: E402
from servers import holds_reasoning  # noqa: E402

TOKENIZER = byte_tokenizer()


def workloads(format: str) -> dict:
    cases = [c for c in CASES if c.format == format and c.servable and not holds_reasoning(c)]
    small = [c for c in cases if len(c.raw) <= 8192]
    large = [c for c in cases if c.name == "large_argument_64k"]
    return {"goldens": small, "64 KB argument": large}


def timed(make_run, cases, runs: int = 3) -> "tuple[float, int]":
    """Best total seconds over `runs`, and the number of deltas."""
    pieces = [token_pieces(TOKENIZER, c.text) for c in cases]
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for case, p in zip(cases, pieces):
            make_run(case)(p)
        best = min(best, time.perf_counter() - start)
    return best, sum(len(p) for p in pieces)


def bounded(make_run, cases, runs: int, limit: float = 180.0) -> "tuple[float, int] | str":
    """`timed` in a child process: what it measured, or why it has no
    figure (stopped after `limit` seconds: some built-in parsers re-read
    the whole text per delta; or the exception the parser raised)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def measure() -> None:
        try:
            send.send(timed(make_run, cases, runs))
        except Exception as e:  # a server parser that raises on a golden
            send.send(f"raised {type(e).__name__}")

    child = context.Process(target=measure)
    child.start()
    child.join(limit)
    if child.is_alive():
        child.terminate()
        child.join()
        return f"stopped after {limit:.0f} s"
    return receive.recv() if receive.poll() else "died"


def row(server: str, format: str, workload: str, parser: str, result: "tuple[float, int] | str") -> str:
    if isinstance(result, str):
        return f"| {server} | {format} | {workload} | {parser} | {result} | |"
    seconds, deltas = result
    return f"| {server} | {format} | {workload} | {parser} | {seconds * 1e6 / deltas:.1f} | {seconds * 1e3:.1f} |"


def main(quick: bool, workload_only: "str | None", only: "list[str]") -> None:
    import importlib

    import toolsieve_parser.sglang
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    toolsieve_parser.sglang.register()
    importlib.import_module("sglang.srt.function_call.function_call_parser")
    print(f"toolsieve plugins vs built-in parsers, {time.strftime('%Y-%m-%d')}, one token a delta")
    print("| server | format | workload | parser | µs / delta | total ms |")
    print("|---|---|---|---|---|---|")
    runs = 1 if quick else 3
    for format in sorted(set(VLLM_BUILTIN) | set(SGLANG_BUILTIN)):
        if only and format not in only:
            continue
        for workload, cases in workloads(format).items():
            if not cases or (workload_only is not None and workload != workload_only):
                continue
            # The built-in parsers that re-read the text per delta take
            # minutes on the 64 KB argument: one run of those.
            slow_runs = 1 if workload == "64 KB argument" else runs
            if format in VLLM_BUILTIN:
                ours = timed(lambda c: vllm_runner(toolsieve_vllm(format), c, TOKENIZER, False), cases, runs)
                builtin = ToolParserManager.get_tool_parser(VLLM_BUILTIN[format])
                theirs = bounded(lambda c: vllm_runner(builtin, c, TOKENIZER, True), cases, slow_runs)
                print(row("vLLM", format, workload, "toolsieve", ours))
                print(row("vLLM", format, workload, VLLM_BUILTIN[format], theirs))
            if format in SGLANG_BUILTIN:
                name = toolsieve_sglang_name(format)
                ours = timed(lambda c: sglang_runner(name, c, False), cases, runs)
                theirs = bounded(lambda c: sglang_runner(SGLANG_BUILTIN[format], c, True), cases, slow_runs)
                print(row("SGLang", format, workload, "toolsieve", ours))
                print(row("SGLang", format, workload, SGLANG_BUILTIN[format], theirs))
        sys.stdout.flush()


if __name__ == "__main__":
    args = sys.argv[1:]
    workload_only = "goldens" if "--goldens" in args else "64 KB argument" if "--large" in args else None
    main("--quick" in args, workload_only, [a for a in args if not a.startswith("--")])
