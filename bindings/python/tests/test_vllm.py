"""Every golden case through vLLM's own `DelegatingParser` with the
toolsieve plugins: whole, at every two-piece split, and in 1- to 64-character
deltas; the client's view must equal the Rust goldens'."""

from __future__ import annotations

import pytest
from conftest import CASES, byte_tokenizer, chunked, delta_sizes, require_server, split_points
from servers import (
    expected,
    reads_reasoning,
    reasoning_ends_at_tool_names,
    vllm_parser_class,
    vllm_request,
    vllm_stream,
    vllm_tools,
    vllm_whole,
)

require_server("vllm")

from toolsieve_parser import plugin_name  # noqa: E402
from toolsieve_parser.vllm import reasoning_parser_class, register, tool_parser_class  # noqa: E402

TOKENIZER = byte_tokenizer()
# vLLM gives reasoning and calls to two parsers: it cannot say reasoning
# that comes after text, nor a call written inside reasoning.
VLLM_CASES = [
    c
    for c in CASES
    if c.servable and not c.expected().reasoning_not_first and not reasoning_ends_at_tool_names(c)
]


def composed(case):
    reasoning = reasoning_parser_class(case.format, case.reasoning) if reads_reasoning(case) else None
    return vllm_parser_class(tool_parser_class(case.format), reasoning)


def check_ids(case, received):
    # The model's id, once an answer: a call that repeats one gets its own.
    given = set()
    for (name, _, model_id), (got_name, _, got_id) in zip(case.expected().calls, received.calls):
        if model_id and model_id not in given:
            given.add(model_id)
            assert got_id == model_id, (name, got_id)
        else:
            assert got_id.startswith("chatcmpl-tool-"), (name, got_id)


@pytest.mark.parametrize("case", VLLM_CASES, ids=repr)
def test_golden_case_through_vllm(case):
    parser_class = composed(case)
    request = vllm_request(case)
    tools = vllm_tools(case)
    want = expected(case, with_ids=False)
    whole = vllm_whole(parser_class(TOKENIZER, tools), request, case.text)
    assert whole.comparable(with_ids=False) == want, "whole"
    check_ids(case, whole)
    streamed = vllm_stream(parser_class(TOKENIZER, tools), request, [(case.text, [])])
    assert streamed.comparable(with_ids=False) == want, "one delta"
    check_ids(case, streamed)
    for cut in split_points(case.text):
        pieces = [(case.text[:cut], []), (case.text[cut:], [])]
        got = vllm_stream(parser_class(TOKENIZER, tools), request, pieces)
        assert got.comparable(with_ids=False) == want, f"split at {cut}"
    for size in delta_sizes(case.text):
        pieces = [(p, []) for p in chunked(case.text, size)]
        got = vllm_stream(parser_class(TOKENIZER, tools), request, pieces)
        assert got.comparable(with_ids=False) == want, f"{size}-character deltas"


def test_vllm_loads_the_plugin_from_the_installed_entry_point():
    import vllm.plugins
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    from toolsieve_parser import formats

    for format in formats():
        ToolParserManager.tool_parsers.pop(plugin_name(format), None)
        ReasoningParserManager.reasoning_parsers.pop(plugin_name(format), None)
    vllm.plugins.plugins_loaded = False
    vllm.plugins.load_general_plugins()
    for format in formats():
        name = plugin_name(format)
        assert ToolParserManager.get_tool_parser(name).toolsieve_format == format
        assert ReasoningParserManager.get_reasoning_parser(name).toolsieve_format == format


def test_the_tool_parser_plugin_file_registers_every_format():
    # `vllm serve --tool-parser-plugin <file>`: vLLM imports the file by path.
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    import toolsieve_parser.vllm_plugin
    from toolsieve_parser import formats

    for format in formats():
        ToolParserManager.tool_parsers.pop(plugin_name(format), None)
        ReasoningParserManager.reasoning_parsers.pop(plugin_name(format), None)
    ToolParserManager.import_tool_parser(toolsieve_parser.vllm_plugin.__file__)
    for format in formats():
        assert ToolParserManager.get_tool_parser(plugin_name(format)).toolsieve_format == format
        assert ReasoningParserManager.get_reasoning_parser(plugin_name(format)).toolsieve_format == format


def test_adjust_request_keeps_special_tokens():
    from vllm.parser.parser_manager import ParserManager

    register()
    parser_cls = ParserManager.get_parser(tool_parser_name="toolsieve_hermes", enable_auto_tools=True)
    request = vllm_request(CASES[0])
    adjusted = parser_cls(TOKENIZER).adjust_request(request)
    assert adjusted.skip_special_tokens is False
    # Kimi-K3's `<|open|>tools<|sep|>` is three special tokens: spaced
    # apart, it would be no marker.
    assert adjusted.spaces_between_special_tokens is False
