#!/usr/bin/env python3
"""The official `openai` Python client's Responses API
(`client.responses.create` / `client.responses.stream`) against
`toolsieve serve`'s `/v1/responses`.

A mock text-only backend (tests/mock_backend.py) replays a recorded model
answer in 1-5 character pieces; the SDK's streamed final response must
equal the non-streamed one.

    python3 -m pip install openai
    cargo build && python3 tests/responses_client.py target/debug/toolsieve

Every request has a timeout and no retries; the servers stop at the end.
"""
import sys

import openai

import mock_backend

from mock_backend import ANSWER, BARE, choose

TOOLS = [
    {"type": "function", "name": "get_weather", "description": "Weather for a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]}},
    {"type": "function", "name": "get_time", "description": "Time in a zone",
     "parameters": {"type": "object", "properties": {"tz": {"type": "string"}},
                    "required": ["tz"]}},
]

SEEN = []


def shape(response):
    """A response's output without ids (made fresh per answer)."""
    out = []
    for item in response.output:
        if item.type == "message":
            out.append(("message", "".join(c.text for c in item.content)))
        elif item.type == "reasoning":
            out.append(("reasoning", "".join(c.text for c in item.content or [])))
        elif item.type == "function_call":
            out.append(("function_call", item.name, item.arguments))
    return out, response.status


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/toolsieve"
    backend, backend_url = mock_backend.start(choose, SEEN)
    checks = []
    proxy, url = mock_backend.start_serve(binary, backend_url)
    try:
        client = openai.OpenAI(base_url=url, api_key="unused", timeout=10, max_retries=0)
        ask = dict(model="Qwen/Qwen3-8B", tools=TOOLS, input="Weather in Paris, time in Tokyo?")
        whole = client.responses.create(**ask)
        with client.responses.stream(**ask) as stream:
            streamed = stream.get_final_response()
        checks.append(("streamed = whole", shape(streamed) == shape(whole)))
        items, status = shape(whole)
        kinds = [i[0] for i in items if i[0] != "message" or i[1].strip()]
        checks.append(("reasoning, message, two calls", kinds == ["reasoning", "message", "function_call", "function_call"]))
        calls = [i[1:] for i in items if i[0] == "function_call"]
        checks.append(("call arguments", calls == [("get_weather", '{"city": "Paris"}'), ("get_time", '{"tz": "Asia/Tokyo"}')]))
        checks.append(("completed", status == "completed"))
        ids = [i.call_id for i in whole.output + streamed.output if i.type == "function_call"]
        checks.append(("call ids unique", len(set(ids)) == 4))
        checks.append(("usage", whole.usage.input_tokens == 11 and whole.usage.output_tokens == 7))

        # The outputs go back as items; the answer is text.
        fc = [i for i in whole.output if i.type == "function_call"]
        conversation = [
            {"role": "user", "content": "Weather in Paris, time in Tokyo?"},
            {"type": "function_call", "call_id": fc[0].call_id, "name": fc[0].name, "arguments": fc[0].arguments},
            {"type": "function_call", "call_id": fc[1].call_id, "name": fc[1].name, "arguments": fc[1].arguments},
            {"type": "function_call_output", "call_id": fc[0].call_id, "output": "18 degrees"},
            {"type": "function_call_output", "call_id": fc[1].call_id, "output": "09:00"},
        ]
        answer = client.responses.create(**dict(ask, input=conversation))
        checks.append(("outputs answered", shape(answer) == ([("message", ANSWER)], "completed")))
        sent = SEEN[-1]["messages"][-1]["content"]
        checks.append(("outputs rendered", "18 degrees" in sent and "09:00" in sent))

        for choice in ["required", {"type": "function", "name": "get_time"}]:
            forced = dict(ask, tool_choice=choice)
            whole = client.responses.create(**forced)
            with client.responses.stream(**forced) as stream:
                streamed = stream.get_final_response()
            one = ([("function_call", "get_time", '{"tz": "Europe/Paris"}')], "completed")
            checks.append((f"{choice}: one call, streamed = whole", shape(whole) == shape(streamed) == one))
        for bad, param in [(dict(previous_response_id="resp_x"), "previous_response_id"),
                           (dict(store=True), "store"),
                           (dict(tools=[{"type": "web_search"}]), "tools")]:
            try:
                client.responses.create(**dict(ask, **bad))
                checks.append((f"{param} refused", False))
            except openai.BadRequestError as e:
                checks.append((f"{param} refused", e.body["param"] == param))
    finally:
        mock_backend.stop(proxy, backend)
    mock_backend.report(checks)


if __name__ == "__main__":
    main()
