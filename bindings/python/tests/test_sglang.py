"""Every golden case through SGLang's own `FunctionCallParser` with the
toolsieve detectors: whole, at every two-piece split, and in 1- to
64-character deltas; the client's view must equal the Rust goldens'."""

from __future__ import annotations

import pytest
from conftest import CASES, chunked, delta_sizes, require_server, split_points
from servers import (
    expected,
    reasoning_ends_at_tool_names,
    sglang_reasoning,
    sglang_stream,
    sglang_tools,
    sglang_whole,
)

require_server("sglang")

from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402

from toolsieve_parser import formats, plugin_name  # noqa: E402
from toolsieve_parser.sglang import register  # noqa: E402

register()  # as the entry point does (checked below)

# SGLang gives reasoning to its reasoning parser (here toolsieve's) before
# the tool detector sees the text: a call written inside reasoning stays
# reasoning.
SGLANG_CASES = [
    c
    for c in CASES
    if c.servable and not c.expected().call_in_reasoning and not reasoning_ends_at_tool_names(c)
]


def new_parser(case):
    return FunctionCallParser(sglang_tools(case), plugin_name(case.format))


@pytest.mark.parametrize("case", SGLANG_CASES, ids=repr)
def test_golden_case_through_sglang(case):
    want = expected(case, with_ids=False)
    whole = sglang_whole(new_parser(case), case.text, sglang_reasoning(case))
    assert whole.comparable(with_ids=False) == want, "whole"
    one = sglang_stream(new_parser(case), [case.text], sglang_reasoning(case))
    assert one.comparable(with_ids=False) == want, "one piece"
    for cut in split_points(case.text):
        got = sglang_stream(new_parser(case), [case.text[:cut], case.text[cut:]], sglang_reasoning(case))
        assert got.comparable(with_ids=False) == want, f"split at {cut}"
    for size in delta_sizes(case.text):
        got = sglang_stream(new_parser(case), chunked(case.text, size), sglang_reasoning(case))
        assert got.comparable(with_ids=False) == want, f"{size}-character deltas"


def test_tool_index_is_the_position_in_the_response():
    tools = sglang_tools(type("C", (), {"tools": [{"name": "a"}, {"name": "b"}]})())
    parser = FunctionCallParser(tools, "toolsieve_hermes")
    text = '<tool_call>{"name": "b", "arguments": {}}</tool_call><tool_call>{"name": "a", "arguments": {}}</tool_call>'
    _, calls = parser.parse_stream_chunk(text)
    assert [(c.tool_index, c.name) for c in calls] == [(0, "b"), (1, "a")]


def test_sglang_loads_the_plugin_from_the_installed_entry_point():
    import sglang.srt.plugins as plugins

    for name in [plugin_name(f) for f in formats()]:
        FunctionCallParser.ToolCallParserEnum.pop(name, None)
    plugins._plugins_loaded = False
    plugins.load_plugins()
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    for format in formats():
        assert FunctionCallParser.ToolCallParserEnum[plugin_name(format)].toolsieve_format == format
        assert ReasoningParser.DetectorMap[plugin_name(format)].toolsieve_format == format
