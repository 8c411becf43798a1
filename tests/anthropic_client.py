#!/usr/bin/env python3
"""The official `anthropic` Python client against `toolsieve serve`'s
`/v1/messages`.

A mock text-only OpenAI backend (this script, on loopback) replays a
recorded model answer in 1-5 character pieces; `toolsieve serve` sits in
front of it; the client asks with tools, streamed and whole, and the SDK's
own stream accumulator must rebuild the message the whole answer gives.

    python3 -m pip install anthropic
    cargo build && python3 tests/anthropic_client.py target/debug/toolsieve

Every request has a timeout and no retries; the servers stop at the end.
"""
import os
import sys

import anthropic

import mock_backend

from mock_backend import ANSWER, BARE, choose

TOOLS = [
    {"name": "get_weather", "description": "Weather for a city",
     "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                      "required": ["city"]}},
    {"name": "get_time", "description": "Time in a zone",
     "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}},
                      "required": ["tz"]}},
]

SEEN = []


def shape(message):
    """A message's blocks without their ids (made fresh per answer)."""
    out = []
    for block in message.content:
        if block.type == "text":
            out.append(("text", block.text))
        elif block.type == "thinking":
            out.append(("thinking", block.thinking))
        elif block.type == "tool_use":
            out.append(("tool_use", block.name, block.input))
    return out, message.stop_reason


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/toolsieve"
    backend, backend_url = mock_backend.start(choose, SEEN)
    checks = []
    proxy, url = mock_backend.start_serve(
        binary, backend_url, "--client-keys-env", "TOOLSIEVE_TEST_KEYS",
        env=dict(os.environ, TOOLSIEVE_TEST_KEYS="sk-test-1"))
    url = url.removesuffix("/v1")
    try:
        client = anthropic.Anthropic(base_url=url, api_key="sk-test-1", timeout=10, max_retries=0)
        ask = dict(model="Qwen/Qwen3-8B", max_tokens=256, tools=TOOLS,
                   messages=[{"role": "user", "content": "Weather in Paris, time in Tokyo?"}])
        whole = client.messages.create(**ask)
        with client.messages.stream(**ask) as stream:
            streamed = stream.get_final_message()
        checks.append(("streamed = whole", shape(streamed) == shape(whole)))
        blocks, stop = shape(whole)
        # Blocks in the order the model wrote them (the line break between
        # the two calls is a text block of its own).
        kinds = [b[0] for b in blocks if b[0] != "text" or b[1].strip()]
        checks.append(("thinking, text, two tool_use", kinds == ["thinking", "text", "tool_use", "tool_use"]))
        checks.append(("reasoning and text", blocks[0] == ("thinking", "Two tools are needed.") and "Let me check both." in blocks[1][1]))
        uses = [b[1:] for b in blocks if b[0] == "tool_use"]
        checks.append(("tool inputs", uses == [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "Asia/Tokyo"})]))
        checks.append(("stop_reason tool_use", stop == "tool_use" and streamed.stop_reason == "tool_use"))
        ids = [b.id for b in whole.content + streamed.content if b.type == "tool_use"]
        checks.append(("toolu_ ids, unique", len(set(ids)) == 4 and all(i.startswith("toolu_") for i in ids)))
        checks.append(("usage", whole.usage.input_tokens == 11 and whole.usage.output_tokens == 7))

        # The results go back; the answer is text.
        calls = [b for b in whole.content if b.type == "tool_use"]
        history = ask["messages"] + [
            {"role": "assistant", "content": [b.model_dump() for b in whole.content]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": calls[0].id, "content": "18 degrees"},
                {"type": "tool_result", "tool_use_id": calls[1].id,
                 "content": [{"type": "text", "text": "no such zone"}], "is_error": True}]},
        ]
        answer = client.messages.create(**dict(ask, messages=history))
        checks.append(("tool_result answered", shape(answer) == ([("text", ANSWER)], "end_turn")))
        sent = SEEN[-1]["messages"][-1]["content"]
        checks.append(("results rendered, error marked", "18 degrees" in sent and "no such zone" in sent and "error" in sent))

        for choice in [{"type": "any"}, {"type": "tool", "name": "get_time"}]:
            forced = dict(ask, tool_choice=choice)
            whole = client.messages.create(**forced)
            with client.messages.stream(**forced) as stream:
                streamed = stream.get_final_message()
            checks.append((f"{choice['type']}: one call, streamed = whole",
                           shape(whole) == shape(streamed) == ([("tool_use", "get_time", {"tz": "Europe/Paris"})], "tool_use")))
        try:
            client.messages.create(**dict(ask, messages=[{"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_nope", "content": "x"}]}]))
            checks.append(("bad request refused", False))
        except anthropic.BadRequestError as e:
            checks.append(("bad request refused", e.body["type"] == "error" and e.body["error"]["type"] == "invalid_request_error"))
        stranger = anthropic.Anthropic(base_url=url, api_key="sk-wrong", timeout=10, max_retries=0)
        try:
            stranger.messages.create(**ask)
            checks.append(("wrong key refused", False))
        except anthropic.AuthenticationError as e:
            checks.append(("wrong key refused", e.body["error"]["type"] == "authentication_error"))
    finally:
        mock_backend.stop(proxy, backend)
    mock_backend.report(checks)


if __name__ == "__main__":
    main()
