"""Hostile outputs through the API and both plugins: a 1 MB argument,
100,000 deltas, bytes that are not UTF-8. They must complete, keep every
call and every character, and raise nothing. Linear by construction: the
plugins read each delta once and never look at the text so far, which the
vLLM test enforces by handing them texts that fail when read."""

from __future__ import annotations

import json

import pytest
from conftest import chunked

import toolsieve_parser as ts

BIG = "x" * (1 << 20)
BIG_CALL = '<tool_call>{"name": "write", "arguments": {"text": "' + BIG + '"}}</tool_call>'


def test_one_megabyte_argument_whole_and_in_100k_pieces():
    whole = ts.Parser("hermes").parse(BIG_CALL)
    call = next(e for e in whole if isinstance(e, ts.ToolCall))
    assert json.loads(call.input)["text"] == BIG
    parser = ts.Parser("hermes")
    events = []
    for piece in chunked(BIG_CALL, 11):
        events += parser.feed(piece)
    events += parser.finish()
    streamed = next(e for e in events if isinstance(e, ts.ToolCall))
    assert streamed.input == call.input


def test_invalid_utf8_bytes_in_prose_and_arguments():
    raw = b"ok \xff\xfe <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"\xc3\"}}</tool_call> \xe2\x82"
    for size in (1, 3, len(raw)):
        parser = ts.Parser("hermes")
        events = []
        for i in range(0, len(raw), size):
            events += parser.feed(raw[i : i + size])
        events += parser.finish()
        text = "".join(e.delta for e in events if isinstance(e, ts.TextDelta))
        assert text.startswith("ok \ufffd\ufffd ") and text.endswith("\ufffd")
        assert any(isinstance(e, ts.Diagnostic) for e in events)


class Unreadable(str):
    """A text that fails the test when read: engine-based parsers are
    given each delta, never the text so far."""

    def __getattribute__(self, name):
        raise AssertionError(f"the text so far was read ({name})")


def test_vllm_plugin_100k_deltas_and_a_megabyte_argument():
    from conftest import require_server

    require_server("vllm")
    from conftest import byte_tokenizer

    from toolsieve_parser.vllm import tool_parser_class

    parser = tool_parser_class("hermes")(byte_tokenizer(), None)
    deltas = chunked(BIG_CALL, 10)
    assert len(deltas) > 100_000
    sent = []
    for delta in deltas:
        message = parser.extract_tool_calls_streaming(Unreadable(), Unreadable(), delta, [], [], [], None)
        if message is not None:
            sent.extend(message.tool_calls)
    tail = parser.finish_streaming()
    assert tail is None or not tail.tool_calls
    assert len(sent) == 1 and json.loads(sent[0].function.arguments)["text"] == BIG


def test_sglang_plugin_100k_deltas_and_a_megabyte_argument():
    from conftest import require_server

    require_server("sglang")
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    import toolsieve_parser.sglang

    toolsieve_parser.sglang.register()
    parser = FunctionCallParser([], "toolsieve_hermes")
    calls, text = [], []
    for delta in chunked("Before. " + BIG_CALL + " After.", 10):
        normal, items = parser.parse_stream_chunk(delta)
        text.append(normal)
        calls.extend(items)
    normal, items = parser.parse_stream_end()
    text.append(normal)
    calls.extend(items)
    assert "".join(text) == "Before.  After."
    assert len(calls) == 1 and json.loads(calls[0].parameters)["text"] == BIG


@pytest.mark.parametrize("format", ts.formats())
def test_every_format_takes_random_bytes_without_raising(format):
    import random

    rng = random.Random(format)
    raw = bytes(rng.randrange(256) for _ in range(20_000)) + b"<tool_call>{\"name\"<|tool_call_begin|>[TOOL_CALLS]"
    tools = [{"name": "f", "parameters": {"type": "object"}}]
    parser = ts.Parser(format, tools)
    events = []
    for i in range(0, len(raw), 7):
        events += parser.feed(raw[i : i + 7])
    events += parser.finish()
    assert merged_text_len(events) > 0


def merged_text_len(events) -> int:
    return sum(len(e.delta) for e in events if isinstance(e, (ts.TextDelta, ts.ReasoningDelta)))
