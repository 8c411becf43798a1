"""The servers' own parsers beside the toolsieve plugins on the same golden
outputs and cuttings: a table per server (format × parser: cases whose
answer does not depend on the cutting, golden calls found, cases whose text
is kept). Only toolsieve's rows are asserted."""

from __future__ import annotations

import pytest
from builtin import (
    SGLANG_BUILTIN,
    VLLM_BUILTIN,
    Score,
    score,
    sglang_runner,
    toolsieve_sglang_name,
    toolsieve_vllm,
    vllm_runner,
)
from conftest import CASES, byte_tokenizer, print_table
from servers import holds_reasoning

from toolsieve_parser import plugin_name

TOKENIZER = byte_tokenizer()
HEADER = ["format", "parser", "split-stable cases", "calls found", "text kept", "errors"]

# Outputs a server can send (UTF-8), without reasoning (the servers read it
# apart), under 8 KB (some built-in parsers re-read the whole text per
# delta: quadratic).
COMPARED = [c for c in CASES if c.servable and not holds_reasoning(c) and len(c.raw) <= 8192]


def by_format(formats):
    grouped = {f: [c for c in COMPARED if c.format == f] for f in formats}
    return {f: cases for f, cases in grouped.items() if cases}


def test_vllm_side_by_side():
    from conftest import require_server

    require_server("vllm")
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    rows = [HEADER]
    for format, cases in by_format(sorted(VLLM_BUILTIN)).items():
        ours = Score()
        for case in cases:
            score(vllm_runner(toolsieve_vllm(format), case, TOKENIZER, False), case, TOKENIZER, ours)
        rows.append(ours.row(format, plugin_name(format)))
        theirs = Score()
        try:
            builtin = ToolParserManager.get_tool_parser(VLLM_BUILTIN[format])
            for case in cases:
                score(vllm_runner(builtin, case, TOKENIZER, True), case, TOKENIZER, theirs)
            rows.append(theirs.row("", VLLM_BUILTIN[format]))
        except Exception as e:  # pragma: no cover - reported in the table
            rows.append(["", VLLM_BUILTIN[format], f"unavailable: {type(e).__name__}", "", "", ""])
        assert ours.stable == ours.cases and ours.errors == 0, format
        assert ours.calls_found == ours.calls_expected and ours.text_kept == ours.cases, format
    print_table("vLLM 0.33.0", rows)


def test_sglang_side_by_side():
    from conftest import require_server

    require_server("sglang")
    import toolsieve_parser.sglang

    toolsieve_parser.sglang.register()
    rows = [HEADER]
    for format, cases in by_format(sorted(SGLANG_BUILTIN)).items():
        ours = Score()
        for case in cases:
            score(sglang_runner(toolsieve_sglang_name(format), case, False), case, TOKENIZER, ours)
        rows.append(ours.row(format, toolsieve_sglang_name(format)))
        theirs = Score()
        for case in cases:
            score(sglang_runner(SGLANG_BUILTIN[format], case, True), case, TOKENIZER, theirs)
        rows.append(theirs.row("", SGLANG_BUILTIN[format]))
        assert ours.stable == ours.cases and ours.errors == 0, format
        assert ours.calls_found == ours.calls_expected and ours.text_kept == ours.cases, format
    print_table("SGLang 0.5.23", rows)


if __name__ == "__main__":
    pytest.main([__file__, "-s", "-q"])
