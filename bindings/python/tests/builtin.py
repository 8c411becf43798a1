"""The servers' own parsers for the formats toolsieve shares with them, and
a check of what each gives: the same answer however the output is cut, the
calls of the goldens, their text."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Callable, List

from conftest import Case, chunked, token_pieces
from servers import (
    Received,
    expected,
    sglang_stream,
    sglang_tools,
    vllm_parser_class,
    vllm_request,
    vllm_stream,
    vllm_tools,
)

from toolsieve_parser import plugin_name

# toolsieve format -> the server's own parser for it.
VLLM_BUILTIN = {
    "hermes": "hermes", "qwen3-coder": "qwen3_coder", "minimax-m2": "minimax_m2", "glm": "glm45",
    "deepseek-v3": "deepseek_v3", "deepseek-v3.1": "deepseek_v31", "deepseek-v3.2": "deepseek_v32",
    "kimi-k2": "kimi_k2", "mistral": "mistral", "llama3-json": "llama3_json", "pythonic": "pythonic",
    "phi4-mini": "phi4_mini_json", "granite": "granite", "xlam": "xlam", "gemma4": "gemma4",
    "cohere": "cohere_command4", "seed-oss": "seed_oss", "kimi-k3": "kimi_k3",
    "function-gemma": "functiongemma", "lfm2": "lfm2",
}
SGLANG_BUILTIN = {
    "hermes": "hermes", "qwen3-coder": "qwen3_coder", "minimax-m2": "minimax-m2", "glm": "glm45",
    "deepseek-v3": "deepseekv3", "deepseek-v3.1": "deepseekv31", "deepseek-v3.2": "deepseekv32",
    "kimi-k2": "kimi_k2", "mistral": "mistral", "llama3-json": "llama3", "pythonic": "pythonic",
    "gemma4": "gemma4", "cohere": "cohere_command4", "harmony": "gpt-oss", "kimi-k3": "kimi_k3",
    "lfm2": "lfm2",
}


def with_called_tools(case: Case) -> Case:
    """The case with a tool list: its own, or one naming every tool its
    golden calls (the servers' own parsers read calls only when the request
    has tools)."""
    if case.tools is not None:
        return case
    names = dict.fromkeys(call[0] for call in case.expected().calls)
    tools = [{"name": n, "parameters": {"type": "object"}} for n in names] or [{"name": "toolsieve_placeholder"}]
    return replace(case, tools=tools)


def vllm_runner(tool_parser: type, case: Case, tokenizer: Any, builtin: bool) -> Callable[[list], Received]:
    parser_class = vllm_parser_class(tool_parser, None)
    request = vllm_request(with_called_tools(case))
    tools = vllm_tools(with_called_tools(case) if builtin else case)
    return lambda pieces: vllm_stream(parser_class(tokenizer, tools), request, pieces)


def sglang_runner(name: str, case: Case, builtin: bool) -> Callable[[list], Received]:
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    tools = sglang_tools(with_called_tools(case) if builtin else case)
    return lambda pieces: sglang_stream(FunctionCallParser(tools, name), [p for p, _ in pieces])


def cuts(case: Case, tokenizer: Any) -> List[list]:
    """The cuttings every parser gets: one delta, one token a delta, 1-, 7-
    and 64-character deltas, and 16 two-piece splits."""
    text = case.text
    step = max(1, len(text) // 16)
    out = [[(text, [])], token_pieces(tokenizer, text)]
    out += [[(p, []) for p in chunked(text, n)] for n in (1, 7, 64)]
    out += [[(text[:c], []), (text[c:], [])] for c in range(1, len(text), step)]
    return out


@dataclass
class Score:
    cases: int = 0
    stable: int = 0
    calls_expected: int = 0
    calls_found: int = 0
    text_kept: int = 0
    errors: int = 0

    def row(self, format: str, parser: str) -> List[str]:
        return [
            format,
            parser,
            f"{self.stable}/{self.cases}",
            f"{self.calls_found}/{self.calls_expected}",
            f"{self.text_kept}/{self.cases}",
            str(self.errors),
        ]


def _same_call(got: list, want: tuple) -> bool:
    try:
        return got[0] == want[0] and json.loads(got[1] or "{}") == json.loads(want[1])
    except ValueError:
        return False


def score(run: Callable[[list], Received], case: Case, tokenizer: Any, into: Score) -> None:
    """Adds one case to `into`: stable if every cutting gives the same
    answer; calls found and text kept as the token-by-token stream gives
    them."""
    into.cases += 1
    want_content, _, want_calls = expected(case, with_ids=False)
    into.calls_expected += len(want_calls)
    results = []
    for pieces in cuts(case, tokenizer):
        try:
            results.append(run(pieces).comparable(with_ids=False))
        except Exception:  # a server parser that raises: counted, not fatal
            into.errors += 1
            return
    into.stable += all(r == results[0] for r in results)
    content, _, calls = results[1]
    into.calls_found += sum(1 for got, want in zip(calls, want_calls) if _same_call(list(got), want))
    into.text_kept += content.strip() == want_content.strip()


def toolsieve_vllm(format: str) -> type:
    from toolsieve_parser.vllm import tool_parser_class

    return tool_parser_class(format)


def toolsieve_sglang_name(format: str) -> str:
    return plugin_name(format)
