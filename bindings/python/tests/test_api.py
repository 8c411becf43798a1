"""The Python API: events equal to the Rust goldens, whatever the split."""

from __future__ import annotations

import json

import pytest
from conftest import CASES, merged

import toolsieve_parser as ts


def parser_for(case):
    return ts.Parser(case.format, case.tools, reasoning=case.reasoning)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_golden_case_whole_bytes_and_text(case):
    parser = parser_for(case)
    assert merged(parser.parse(case.raw)) == case.events
    if b"\xef\xbf\xbd" not in case.raw and case.text.encode() == case.raw:
        assert merged(parser.parse(case.text)) == case.events


@pytest.mark.parametrize("case", [c for c in CASES if len(c.raw) <= 2048], ids=repr)
def test_golden_case_at_every_byte_split_and_small_chunks(case):
    parser = parser_for(case)
    for cut in range(1, len(case.raw)):
        parser.reset()
        events = parser.feed(case.raw[:cut]) + parser.feed(case.raw[cut:]) + parser.finish()
        assert merged(events) == case.events, f"split at byte {cut}"
    for size in (1, 2, 3, 7, 64):
        parser.reset()
        events = []
        for i in range(0, len(case.raw), size):
            events += parser.feed(case.raw[i : i + size])
        events += parser.finish()
        assert merged(events) == case.events, f"{size}-byte pieces"


def test_events_are_objects_with_the_rust_fields():
    parser = ts.Parser("hermes", [{"type": "function", "function": {"name": "get_time"}}])
    events = parser.parse('Now.<tool_call>{"name": "get_time", "arguments": {}}</tool_call>')
    call = next(e for e in events if isinstance(e, ts.ToolCall))
    assert (call.type, call.tool_name, call.input, call.id) == ("tool-call", "get_time", "{}", "call_0")
    assert call.raw_span == (4, 64) and call.model_call_id is None
    assert call.to_dict()["rawSpan"] == {"start": 4, "end": 64}
    assert isinstance(events[1], ts.TextDelta) and events[1].delta == "Now."
    assert events[1] == ts.TextDelta("text_0", "Now.")
    assert repr(events[1]) == "TextDelta(id='text_0', delta='Now.')"
    assert repr(call).endswith("raw_span=(4, 64), model_call_id=None)")


def test_a_call_to_an_unknown_tool_is_text_with_a_diagnostic():
    parser = ts.Parser("hermes", [{"name": "get_time"}])
    events = parser.parse('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>')
    assert not any(isinstance(e, ts.ToolCall) for e in events)
    assert any(isinstance(e, ts.Diagnostic) and e.kind == "unknown-tool" for e in events)
    assert "".join(e.delta for e in events if isinstance(e, ts.TextDelta)).startswith("<tool_call>")


def test_invalid_utf8_is_replaced_and_diagnosed_not_raised():
    events = ts.Parser("hermes").parse(b"caf\xc3 \xff ok")
    text = "".join(e.delta for e in events if isinstance(e, ts.TextDelta))
    assert text == "caf\ufffd \ufffd ok"
    assert any(isinstance(e, ts.Diagnostic) for e in events)


def test_reasoning_settings():
    output = "<think>hm</think>Hi"
    default = ts.Parser("hermes", reasoning=True).parse(output)
    assert [e.delta for e in default if isinstance(e, ts.ReasoningDelta)] == ["hm"]
    off = ts.Parser("hermes", reasoning=False).parse(output)
    assert not any(isinstance(e, ts.ReasoningDelta) for e in off)
    open_ = ts.Parser("hermes", reasoning={"start": "<think>", "end": "</think>", "starts_open": True})
    assert [e.delta for e in open_.parse("hm</think>Hi") if isinstance(e, ts.ReasoningDelta)] == ["hm"]
    with pytest.raises(TypeError):
        ts.Parser("hermes", reasoning=3)
    with pytest.raises(ts.ToolsieveError, match="needs \"end\""):
        ts.Parser("hermes", reasoning={"start": "<think>"})


def test_errors_carry_the_rust_message():
    with pytest.raises(ts.ToolsieveError, match="unknown format `nope`"):
        ts.Parser("nope")
    with pytest.raises(ts.ToolsieveError, match="two tools are named `a`"):
        ts.Parser("hermes", [{"name": "a"}, {"name": "a"}])
    with pytest.raises(ts.ToolsieveError, match="no-such-model"):
        ts.Parser.for_model("no-such-model-7b")
    assert issubclass(ts.ToolsieveError, ValueError)


def test_for_model_and_formats():
    assert "hermes" in ts.formats() and "qwen3-coder" in ts.formats()
    assert ts.format_for_model("Qwen/Qwen3-Coder-30B-A3B-Instruct") == "qwen3-coder"
    parser = ts.Parser.for_model("Qwen/Qwen3-8B", thinking=True)
    assert parser.format == "hermes"
    events = parser.parse("<think>x</think>done")
    assert any(isinstance(e, ts.ReasoningDelta) for e in events)
    assert ts.plugin_name("deepseek-v3.1") == "toolsieve_deepseek_v3_1"


def test_feed_holds_back_only_a_possible_marker():
    parser = ts.Parser("hermes")
    assert [e.delta for e in parser.feed("Hello <tool") if isinstance(e, ts.TextDelta)] == ["Hello "]
    assert parser.held_back == len("<tool")
    assert "".join(e.delta for e in parser.feed("box>") if isinstance(e, ts.TextDelta)) == "<toolbox>"


def test_middleware_tool_prompt_and_chat_rewrite():
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    prompt = ts.tool_prompt("hermes", tools)
    assert "get_weather" in prompt and "<tool_call>" in prompt
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "18C"},
        ],
        "tools": tools,
        "tool_choice": "auto",
    }
    rewritten = ts.rewrite_chat_request("hermes", request)
    assert "tools" not in rewritten and "tool_choice" not in rewritten
    assert rewritten["messages"][0]["role"] == "system" and "get_weather" in rewritten["messages"][0]["content"]
    assistant = next(m for m in rewritten["messages"] if m["role"] == "assistant")
    assert '<tool_call>' in assistant["content"] and "Paris" in assistant["content"]
    assert any("18C" in m["content"] for m in rewritten["messages"] if m["role"] == "user")
    with pytest.raises(ts.ToolsieveError):
        ts.rewrite_chat_request("hermes", dict(request, tool_choice={"type": "function", "function": {"name": "nope"}}))
    json.dumps(rewritten)
