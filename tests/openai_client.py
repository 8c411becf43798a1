#!/usr/bin/env python3
"""The official `openai` Python client against `toolsieve serve`.

A mock text-only backend (this script, on loopback) replays a recorded
model answer in 1-5 character pieces; `toolsieve serve` sits in front of
it; the client asks with tools, streamed and whole, and both must give
the same tool calls.

    python3 -m pip install openai
    cargo build && python3 tests/openai_client.py target/debug/toolsieve

Every request has a timeout and no retries; the servers stop at the end.
"""
import json
import os
import subprocess
import sys

import openai

import mock_backend

TWO_CALLS = (
    "Let me check both.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Asia/Tokyo"}}\n</tool_call>'
)
BARE = '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}'

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "get_time", "description": "Time in a zone",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}},
                       "required": ["tz"]}}},
]


def choose(body):
    forced = body.get("response_format", {}).get("type") == "json_schema"
    return BARE if forced else TWO_CALLS


def calls_streamed(client, **kwargs):
    stream = client.chat.completions.create(stream=True, **kwargs)
    calls, content, finish = {}, "", None
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        content += choice.delta.content or ""
        for call in choice.delta.tool_calls or []:
            slot = calls.setdefault(call.index, {"id": None, "name": "", "arguments": ""})
            if call.id:
                slot["id"] = call.id
            if call.function and call.function.name:
                slot["name"] += call.function.name
            if call.function and call.function.arguments:
                slot["arguments"] += call.function.arguments
        finish = choice.finish_reason or finish
    return [calls[i] for i in sorted(calls)], content, finish


def calls_whole(client, **kwargs):
    answer = client.chat.completions.create(stream=False, **kwargs)
    message = answer.choices[0].message
    calls = [{"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
             for c in message.tool_calls or []]
    return calls, message.content or "", answer.choices[0].finish_reason


def same_calls(a, b):
    strip = lambda calls: [(c["name"], json.loads(c["arguments"])) for c in calls]
    return strip(a) == strip(b)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/toolsieve"
    backend, backend_url = mock_backend.start(choose)
    passed, failed = 0, 0
    for policy in ["eager", "validated"]:
        proxy = subprocess.Popen(
            [binary, "serve", "--backend", backend_url, "--listen", "127.0.0.1:0",
             "--format", "hermes", "--stream-policy", policy,
             "--client-keys-env", "TOOLSIEVE_TEST_KEYS"],
            stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, TOOLSIEVE_TEST_KEYS="sk-test-1, sk-test-2"))
        try:
            line = proxy.stdout.readline()
            url = line.split("listening on ")[1].split(",")[0]
            client = openai.OpenAI(base_url=url, api_key="sk-test-2", timeout=10, max_retries=0)
            ask = dict(model="any", tools=TOOLS,
                       messages=[{"role": "user", "content": "Weather in Paris, time in Tokyo?"}])
            checks = []
            s_calls, s_text, s_finish = calls_streamed(client, **ask)
            w_calls, w_text, w_finish = calls_whole(client, **ask)
            checks.append(("auto: stream = whole", same_calls(s_calls, w_calls)))
            checks.append(("auto: two calls", [c["name"] for c in s_calls] == ["get_weather", "get_time"]))
            checks.append(("auto: text", s_text == w_text == "Let me check both.\n\n"))
            checks.append(("auto: finish", s_finish == w_finish == "tool_calls"))
            ids = [c["id"] for c in s_calls + w_calls]
            checks.append(("ids unique", len(set(ids)) == 4 and all(i.startswith("call_") for i in ids)))
            forced = dict(ask, tool_choice="required")
            s_calls, _, _ = calls_streamed(client, **forced)
            w_calls, _, _ = calls_whole(client, **forced)
            checks.append(("required: stream = whole", same_calls(s_calls, w_calls) and len(s_calls) == 1))
            try:
                client.chat.completions.create(
                    **dict(ask, tool_choice={"type": "function", "function": {"name": "nope"}}))
                checks.append(("unknown tool rejected", False))
            except openai.BadRequestError as e:
                checks.append(("unknown tool rejected", e.body["param"] == "tool_choice"))
            stranger = openai.OpenAI(base_url=url, api_key="sk-wrong", timeout=10, max_retries=0)
            try:
                stranger.chat.completions.create(**ask)
                checks.append(("wrong key refused", False))
            except openai.AuthenticationError as e:
                checks.append(("wrong key refused", e.body["code"] == "invalid_api_key"))
            many = [{"type": "function", "function": {"name": f"t{i}", "parameters": {"type": "object"}}}
                    for i in range(300)]
            try:
                client.chat.completions.create(**dict(ask, tools=many, tool_choice="required"))
                checks.append(("too many tools refused", False))
            except openai.BadRequestError as e:
                checks.append(("too many tools refused", e.body["param"] == "tools"))
            for name, ok in checks:
                print(f"{'ok' if ok else 'FAILED'}: {policy}: {name}")
                passed += ok
                failed += not ok
        finally:
            proxy.terminate()
            code = proxy.wait(timeout=10)
        ok = code == 0
        print(f"{'ok' if ok else 'FAILED'}: {policy}: SIGTERM stops the server cleanly (exit {code})")
        passed += ok
        failed += not ok
    backend.shutdown()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
