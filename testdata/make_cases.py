#!/usr/bin/env python3
"""Writes the golden inputs of testdata/<format>/. Expected events
(<case>.jsonl) are written by `TOOLSIEVE_BLESS=1 cargo test --test golden`
and reviewed by hand. Run from the repository root."""
import json, os

def w(fmt, name, text, tools=None):
    d = f"testdata/{fmt}"
    os.makedirs(d, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    open(f"{d}/{name}.txt", "wb").write(data)
    if tools is not None:
        open(f"{d}/{name}.tools.json", "w").write(json.dumps(tools, indent=2) + "\n")

WEATHER_TOOLS = [
    {"name": "get_weather", "description": "Current weather for a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}},
    {"name": "get_time", "description": "Current time", "parameters": {"type": "object", "properties": {}}},
]

def hermes(args_json, name="get_weather", nl=True):
    body = '{"name": "%s", "arguments": %s}' % (name, args_json)
    return "<tool_call>\n%s\n</tool_call>" % body if nl else "<tool_call>%s</tool_call>" % body

H = "hermes"
w(H, "prose_call_prose", "Let me check the weather.\n" + hermes('{"city": "Paris"}') + "\nI'll report back.")
w(H, "only_call", hermes('{"city": "Seoul", "days": 3}'))
w(H, "parallel_adjacent", hermes('{"city": "Paris"}', nl=False) + hermes('{}', "get_time", nl=False))
w(H, "parallel_newline_between", hermes('{"city": "Paris"}') + "\n" + hermes('{"city": "Tokyo"}'))
w(H, "prose_between_calls", "First:\n" + hermes('{"city": "Paris"}') + "\nand then:\n" + hermes('{"city": "Rome"}') + "\nDone.")
w(H, "end_marker_in_string", hermes('{"city": "Paris", "note": "write </tool_call> literally"}'))
w(H, "braces_in_string", hermes('{"code": "fn main() { let x = {}; }", "pat": "}}]]{{"}', "run"))
w(H, "escaped_quotes", hermes(r'{"quote": "she said \"hi\" and \\\"bye\\\"", "path": "C:\\temp\\"}', "echo"))
w(H, "unicode_escapes", hermes(r'{"city": "Z\u00fcrich", "emoji": "\ud83d\ude00", "ctl": "a\tb\nc\u0000"}'))
w(H, "cjk_emoji_combining", "天気を調べます 👋🏽 e\u0301\n" + hermes('{"city": "東京", "mood": "😀🇫🇷", "accent": "e\u0301"}') + "\n完了 ✅")
w(H, "crlf", "Checking.\r\n<tool_call>\r\n{\"name\": \"get_weather\",\r\n \"arguments\": {\"city\": \"Oslo\"}}\r\n</tool_call>\r\nOk.\r\n")
w(H, "tag_like_prose", "Use <b>bold</b>, a < b, <tool_callback> and <tool_call_x> or </tool_call> stray. <tool_\n" + hermes('{"city": "Lima"}'))
w(H, "name_after_arguments", '<tool_call>\n{"arguments": {"city": "Berlin", "days": 2}, "name": "get_weather"}\n</tool_call>')
w(H, "parameters_key", '<tool_call>{"name": "get_weather", "parameters": {"city": "Madrid"}}</tool_call>')
w(H, "arguments_as_string", '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Kyiv\\", \\"days\\": 1}"}</tool_call>')
w(H, "empty_arguments", hermes('{}', "get_time"))
w(H, "missing_arguments", '<tool_call>{"name": "get_time"}</tool_call>')
w(H, "null_arguments", '<tool_call>{"name": "get_time", "arguments": null}</tool_call>')
w(H, "large_argument_64k", "Writing the file.\n" + hermes(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum dolor sit amet, \"quoted\" {braces} </tool_call> é 世界\n" * 1000)[:65536]}), "write_file") + "\nWritten.")
w(H, "malformed_missing_brace", "Try:\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}\n</tool_call>\nafter")
w(H, "malformed_then_valid", '<tool_call>{"name": get_weather}</tool_call> retry: ' + hermes('{"city": "Paris"}', nl=False))
w(H, "unknown_tool", "Calling.\n" + hermes('{"q": 1}', "launch_rockets") + "\n" + hermes('{"city": "Nice"}'), WEATHER_TOOLS)
w(H, "known_tools", hermes('{"city": "Nice"}') + hermes('{}', "get_time"), WEATHER_TOOLS)
w(H, "eof_complete_json_no_end", 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Bern"}}\n')
w(H, "eof_inside_arguments", 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Be')
w(H, "partial_marker_at_eof", "The answer is 42 <tool_ca")
w(H, "missing_end_then_prose", '<tool_call>{"name": "get_time", "arguments": {}}\nThe time is coming.')
w(H, "missing_end_then_next_call", '<tool_call>{"name": "get_time", "arguments": {}}<tool_call>{"name": "get_time", "arguments": {}}</tool_call>')
w(H, "extra_keys", '<tool_call>{"id": "abc", "type": "function", "name": "get_weather", "arguments": {"city": "Quito"}, "extra": [1, {"a": null}]}</tool_call>')
w(H, "nested_arguments", hermes('{"filter": {"and": [{"field": "age", "gt": 18}, {"or": [{"x": [1, 2.5e3, -0.5, true, false, null]}]}]}, "limit": 10}', "query"))
w(H, "whitespace_inside_json", '<tool_call>  \n\t{ "name" :\n "get_weather" ,\n\t"arguments" : {\n  "city" : "Cairo"\n }\n}\n\n</tool_call>')
w(H, "not_json_after_marker", "<tool_call>get_weather(city='Paris')</tool_call> then text")
w(H, "duplicate_name", '<tool_call>{"name": "a", "name": "b", "arguments": {}}</tool_call>')
w(H, "think_then_call", "<think>\nThe user wants weather; call the tool. A <tool_call> would go here.\n</think>\n\n" + hermes('{"city": "Hanoi"}'))
w(H, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + hermes('{"city": "Paris"}').encode())
w(H, "name_not_string", '<tool_call>{"name": 42, "arguments": {}}</tool_call>')
w(H, "arguments_array", '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>')
w(H, "many_calls", "".join(hermes('{"i": %d}' % i, "step") for i in range(12)))
w(H, "escaped_name", '<tool_call>{"name": "get\\u005fweather", "arguments": {"city": "Paris"}}</tool_call>')
w(H, "raw_newline_in_string", '<tool_call>{"name": "write", "arguments": {"text": "line1\nline2"}}</tool_call>')

G = "gemma"
def fence(args_json, name="get_weather", tag="tool_call", nl="\n"):
    return "```%s%s{\"name\": \"%s\", \"arguments\": %s}%s```" % (tag, nl, name, args_json, nl)
w(G, "prose_call_prose", "Let me look that up.\n\n" + fence('{"city": "Paris"}') + "\n\nOne moment.")
w(G, "only_call", fence('{"city": "Seoul", "days": 3}'))
w(G, "parallel_fences", fence('{"city": "Paris"}') + "\n" + fence('{}', "get_time"))
w(G, "prose_between", "A:\n" + fence('{"city": "Paris"}') + "\nB:\n" + fence('{"city": "Rome"}') + "\nC.")
w(G, "python_fence_is_prose", "Example:\n```python\nprint('hi')\n```\nNow the call:\n" + fence('{"city": "Lima"}'))
w(G, "json_fence_is_prose", "Here is JSON:\n```json\n{\"name\": \"get_weather\", \"arguments\": {}}\n```\n")
w(G, "tool_calls_tag_is_prose", "```tool_calls\n{\"name\": \"x\"}\n```\nand ```tool_callback\n")
w(G, "backticks_in_string", fence('{"md": "use ```code``` blocks and ` ticks"}', "render"))
w(G, "crlf", "Hi.\r\n```tool_call\r\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\r\n```\r\nBye.\r\n")
w(G, "space_after_tag", "```tool_call  \n{\"name\": \"get_time\", \"arguments\": {}}\n```")
w(G, "same_line_json", "```tool_call {\"name\": \"get_time\", \"arguments\": {}} ```")
w(G, "braces_in_string", fence('{"code": "if (a) { b(); } else {}"}', "run"))
w(G, "escaped_quotes", fence(r'{"quote": "\"quoted\" \\ back"}', "echo"))
w(G, "unicode_escapes", fence(r'{"city": "Z\u00fcrich", "e": "\ud83d\ude00"}'))
w(G, "cjk_emoji_combining", "東京の天気 👩‍💻 a\u0308\n" + fence('{"city": "東京", "x": "👩‍💻"}') + "\n✅")
w(G, "empty_arguments", fence('{}', "get_time"))
w(G, "missing_arguments", "```tool_call\n{\"name\": \"get_time\"}\n```")
w(G, "arguments_as_string", "```tool_call\n{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Kyiv\\\"}\"}\n```")
w(G, "name_after_arguments", "```tool_call\n{\"arguments\": {\"city\": \"Bonn\"}, \"name\": \"get_weather\"}\n```")
w(G, "large_argument_64k", "Saving.\n" + fence(json.dumps(ensure_ascii=False, obj={"content": ("fenced ``` text {x} 世界 é\n" * 3000)[:65536]}), "save") + "\nSaved.")
w(G, "malformed_json", "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"city\": }}\n```\nafter")
w(G, "unknown_tool", fence('{"q": 1}', "launch") + "\n" + fence('{"city": "Nice"}'), WEATHER_TOOLS)
w(G, "eof_complete_json_no_close", "```tool_call\n{\"name\": \"get_time\", \"arguments\": {}}\n")
w(G, "eof_inside_arguments", "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"ci")
w(G, "partial_fence_at_eof", "Look: ```tool_ca")
w(G, "fence_at_eof_no_newline", "Look: ```tool_call")
w(G, "tag_like_prose", "a ``` b `` c ` d ```tool e <tool_call> f\n" + fence('{"city": "Pisa"}'))
w(G, "not_json_in_fence", "```tool_call\nget_weather(city=\"Paris\")\n```\nthen")
w(G, "custom_tag_untouched", "```tool_code\nprint(get_weather(city='Paris'))\n```\n")
w(G, "invalid_utf8_prose", b"bad \xe2\x82 bytes \xc0\xaf\n" + fence('{"city": "Paris"}').encode())
w(G, "nested_arguments", fence('{"a": {"b": [1, {"c": [true, null, -1.5e-3]}]}}', "deep"))
print("ok")
