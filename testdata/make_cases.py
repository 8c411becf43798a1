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
w(H, "malformed_missing_comma", "Try:\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\" \"days\": 2}}\n</tool_call>\nafter")
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
# Invalid bytes inside the arguments, after a long valid stretch (token-sized
# chunks take the engine's steady path there) and after a split code point.
w(H, "invalid_utf8_in_arguments", b'<tool_call>\n{"name": "get_weather", "arguments": {"note": "' + "東京 and 大阪 are both fine, then ".encode() + b'\xe6\x9d \xff bad"}}\n</tool_call> after')
w(H, "cjk_arguments_token_sized", hermes('{"city": "東京都千代田区", "note": "café 👋🏽 naïve e\u0301", "list": ["北京", "서울"]}'))
w(H, "name_not_string", '<tool_call>{"name": 42, "arguments": {}}</tool_call>')
w(H, "arguments_array", '<tool_call>{"name": "f", "arguments": [1, 2]}</tool_call>')
w(H, "many_calls", "".join(hermes('{"i": %d}' % i, "step") for i in range(12)))
w(H, "escaped_name", '<tool_call>{"name": "get\\u005fweather", "arguments": {"city": "Paris"}}</tool_call>')
def call_obj(name, args_json):
    return '{"name": "%s", "arguments": %s}' % (name, args_json)
# Several calls in one block, as some models write them.
w(H, "two_objects_in_one_block", "Both:\n<tool_call>\n" + call_obj("get_weather", '{"city": "Paris"}') + "\n" + call_obj("get_time", "{}") + "\n</tool_call>\nDone.")
w(H, "objects_with_commas", "<tool_call>\n" + call_obj("get_weather", '{"city": "Paris"}') + ",\n" + call_obj("get_time", "{}") + ",\n</tool_call>")
w(H, "objects_with_semicolons", "<tool_call>\n" + call_obj("get_weather", '{"city": "Paris"}') + "; " + call_obj("get_time", "{}") + "\n</tool_call>")
w(H, "comma_then_junk", '<tool_call>{"name": "get_time", "arguments": {}}, x</tool_call>')
w(H, "array_mixed_shapes", 'a <tool_call>\n[{"arguments": {"x": "\\u00e9 </tool_call>"}, "name": "a"},\n {"name": "b", "arguments": "{\\"y\\": 2}"}, {"name": "c"}]\n</tool_call> z')
w(H, "array_of_calls", "<tool_call>\n[" + call_obj("get_weather", '{"city": "Paris"}') + ", " + call_obj("get_time", "{}") + "]\n</tool_call>")
w(H, "array_unclosed_at_eof", "<tool_call>[" + call_obj("get_weather", '{"city": "Paris"}') + ",\n " + call_obj("get_time", "{}"))
w(H, "array_ends_early", "<tool_call>[" + call_obj("get_time", "{}") + " oops]</tool_call> after")
w(H, "array_empty", "<tool_call>[]</tool_call> after")
w(H, "array_not_objects", "<tool_call>[" + call_obj("get_time", "{}") + ", 42]</tool_call>")
w(H, "second_object_unknown_tool", "<tool_call>\n" + call_obj("get_time", "{}") + "\n" + call_obj("launch_rockets", '{"n": 3}') + "\n</tool_call>\nafter", WEATHER_TOOLS)
w(H, "first_object_unknown_tool", "<tool_call>\n" + call_obj("launch_rockets", '{"n": 3}') + "\n" + call_obj("get_time", "{}") + "\n</tool_call>\nafter", WEATHER_TOOLS)
w(H, "raw_newline_in_string", '<tool_call>{"name": "write", "arguments": {"text": "line1\nline2"}}</tool_call>')
# Single backslashes before characters JSON does not escape (regular
# expressions, Windows paths): kept as backslashes, the call delivered.
w(H, "invalid_escapes_kept", 'Searching.\n<tool_call>\n{"name": "grep", "arguments": {"pattern": "\\d+\\.log$", "path": "C:\\Users\\me", "note": "tab\\tok \\u00e9 \\"q\\""}}\n</tool_call>\nDone.')
# `\'` (Python's and JavaScript's escape, not JSON's) is an apostrophe.
w(H, "escaped_apostrophe", 'Saying it.\n<tool_call>\n{"name": "say", "arguments": {"text": "It\\\'s fine, isn\\\'t it? \\\\\' stays \\\\ then \'"}}\n</tool_call>\nDone.')
# Each kind of string repair in a call is reported once.
w(H, "string_repairs_each_reported", '<tool_call>\n{"name": "grep", "arguments": {"pattern": "\\d+\\s", "note": "it\\\'s", "text": "line\nbreak\ttab", "more": "\\w isn\\\'t"}}\n</tool_call>')

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
w(G, "array_of_calls", "```tool_call\n[" + call_obj("get_weather", '{"city": "Lima"}') + ",\n " + call_obj("get_time", "{}") + "]\n```\nok")
w(G, "two_objects_in_fence", "```tool_call\n" + call_obj("get_weather", '{"city": "Lima"}') + "\n" + call_obj("get_time", "{}") + "\n```")
# A closing fence that begins the next call's opening one: the first call's
# own closing fence never came (strict and relaxed JSON); a fence followed by
# other words still closes.
w(G, "missing_fence_then_next_call", "```tool_call\n" + call_obj("get_time", "{}") + "\n```tool_call\n" + call_obj("get_weather", '{"city": "Rome"}') + "\n```\nok")
w(G, "relaxed_missing_fence_then_next_call", "```tool_call\n{'name': 'get_time', 'arguments': {}}\n```tool_call\n{'name': 'get_weather', 'arguments': {'city': 'Rome'}}\n```\nok")
w(G, "closing_fence_then_words", fence('{"city": "Pisa"}') + "tool_calls are done\n" + fence('{"city": "Rome"}') + "tool")
w(G, "nested_arguments", fence('{"a": {"b": [1, {"c": [true, null, -1.5e-3]}]}}', "deep"))
# Fences run together: ```` ``````tool_call ```` closes one call and opens
# the next; ```` ```tool_call ```` right after a call's JSON opens the next
# (the first is recovered without its close, as the roundtrip fuzz target
# once rendered it).
w(G, "fences_run_together", fence('{"city": "Oslo"}') + fence('{"city": "Rome"}') + " done")
w(G, "closing_fence_read_as_next_opening", fence('{"city": "Oslo"}') + fence('{"city": "Rome"}')[3:] + " done")
print("ok")

# ---------------------------------------------------------------- XML formats
TYPED_TOOLS = [
    {"name": "get_weather", "description": "Weather forecast",
     "parameters": {"type": "object", "properties": {
         "city": {"type": "string"}, "days": {"type": "integer"},
         "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}},
    {"name": "write_file", "description": "Write a file",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}},
    {"name": "configure", "description": "Typed settings",
     "parameters": {"type": "object", "properties": {
         "count": {"type": "integer"}, "ratio": {"type": "number"}, "enabled": {"type": "boolean"},
         "note": {"type": ["string", "null"]}, "tags": {"type": "array", "items": {"type": "string"}},
         "options": {"type": "object"}, "zip": {"type": "string"}, "big": {"type": "integer"},
         "mode": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
         "label": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}},
    {"name": "get_time", "description": "Current time", "parameters": {"type": "object", "properties": {}}},
]

PYDANTIC_TOOLS = [
    {"name": "book", "description": "Book a room",
     "parameters": {"type": "object", "title": "Booking",
        "properties": {
            "unit": {"$ref": "#/$defs/Unit"},
            "nights": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "price": {"type": "float"}, "breakfast": {"type": "bool"},
            "guest": {"$ref": "#/$defs/Guest"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "$defs": {"Unit": {"enum": ["c", "f"], "title": "Unit", "type": "string"},
                  "Guest": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}}}},
]

def dsml_string(v):
    """DSML's `string` attribute as the model sets it: "false" for JSON."""
    try:
        parsed = json.loads(v)
    except ValueError:
        return "true"
    return "true" if isinstance(parsed, str) else "false"

def xtml_type(v):
    """Kimi-K3's `type` attribute as the model sets it, by the value."""
    try:
        parsed = json.loads(v)
    except ValueError:
        return "string"
    if isinstance(parsed, bool):
        return "boolean"
    return {str: "string", int: "number", float: "number", dict: "object",
            list: "array", type(None): "null"}[type(parsed)]

BLOCK_TAGS = {
    "kimi-k3": ("<|open|>tools<|sep|>", "<|close|>tools<|sep|>"),
    "minimax-m2": ("<minimax:tool_call>", "</minimax:tool_call>"),
    "deepseek-v3.2": ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
    "seed-oss": ("<seed:tool_call>", "</seed:tool_call>"),
}

def xml_call(fmt, name, params, nl=True):
    """Renders a call the way each model family writes it."""
    if fmt == "qwen3-coder":
        ps = "".join("<parameter=%s>\n%s\n</parameter>\n" % (k, v) for k, v in params)
        return "<tool_call>\n<function=%s>\n%s</function>\n</tool_call>" % (name, ps)
    if fmt == "seed-oss":
        # The template writes values inline, without the newlines.
        ps = "".join("<parameter=%s>%s</parameter>\n" % (k, v) for k, v in params)
        return "<seed:tool_call>\n<function=%s>\n%s</function>\n</seed:tool_call>" % (name, ps)
    if fmt == "minimax-m2":
        ps = "".join('<parameter name="%s">%s</parameter>\n' % (k, v) for k, v in params)
        return '<minimax:tool_call>\n<invoke name="%s">\n%s</invoke>\n</minimax:tool_call>' % (name, ps)
    if fmt == "deepseek-v3.2":
        ps = "".join('<｜DSML｜parameter name="%s" string="%s">%s</｜DSML｜parameter>\n' % (k, dsml_string(v), v) for k, v in params)
        return '<｜DSML｜function_calls>\n<｜DSML｜invoke name="%s">\n%s</｜DSML｜invoke>\n</｜DSML｜function_calls>' % (name, ps)
    if fmt == "kimi-k3":
        ps = "".join('<|open|>argument key="%s" type="%s"<|sep|>%s<|close|>argument<|sep|>' % (k, xtml_type(v), v) for k, v in params)
        return '<|open|>tools<|sep|><|open|>call tool="%s" index="1"<|sep|>%s<|close|>call<|sep|><|close|>tools<|sep|>' % (name, ps)
    if fmt == "glm":
        sep = "\n" if nl else ""
        ps = "".join("<arg_key>%s</arg_key>%s<arg_value>%s</arg_value>%s" % (k, sep, v, sep) for k, v in params)
        return "<tool_call>%s%s%s</tool_call>" % (name, sep, ps)

for fmt in ["qwen3-coder", "minimax-m2", "glm", "deepseek-v3.2", "seed-oss", "kimi-k3"]:
    c = lambda name, params, **kw: xml_call(fmt, name, params, **kw)
    T = TYPED_TOOLS
    w(fmt, "prose_call_prose", "Let me check.\n" + c("get_weather", [("city", "Seoul"), ("days", "3")]) + "\nDone.", T)
    w(fmt, "only_call", c("get_weather", [("city", "Paris")]), T)
    w(fmt, "parallel_blocks", c("get_weather", [("city", "Paris")]) + "\n" + c("get_time", []), T)
    w(fmt, "value_with_code", c("write_file", [("path", "a.rs"), ("content", 'if a < b && c > d { s = "</parameter> x"; }\nlet t = "<tag>";')]), T)
    w(fmt, "multiline_value", c("write_file", [("path", "n.txt"), ("content", "\nfirst line\n\n  indented\n")]), T)
    w(fmt, "typed_coercion", c("configure", [("count", "42"), ("ratio", "0.25"), ("enabled", "True"), ("note", "None"),
                                              ("tags", '["a", "b"]'), ("options", "{'deep': {'x': [1, 2,]}, 'ok': False}"),
                                              ("zip", "00123"), ("big", "9007199254740993"), ("mode", "fast")]), T)
    # Structures escaped once more (a JSON string, or its inside), and
    # `null` for a nullable union whose first alternative is a string.
    w(fmt, "escaped_json_and_nullable", c("configure", [("tags", '[\\"a\\", \\"C:\\\\\\\\x\\"]'), ("options", '"{\\"deep\\": true}"'),
                                                         ("label", "null"), ("mode", "null")]), T)
    # Schemas as Pydantic writes them (`$ref` into `$defs`, `anyOf` with
    # null) and as hand-written tool lists do (`float`, `int`, `bool`).
    w(fmt, "pydantic_refs_and_type_aliases", c("book", [("unit", "f"), ("nights", "3"), ("price", "99.5"), ("breakfast", "True"),
                                                        ("guest", '{"name": "Ana", "age": 31}'), ("note", "None")]), PYDANTIC_TOOLS)
    w(fmt, "coercion_failure", c("configure", [("count", "three"), ("ratio", "inf"), ("enabled", "maybe")]), T)
    if fmt == "glm":
        # GLM's template writes every value that is not a string as JSON:
        # without a type from the schema, a value that is JSON (or a Python
        # literal) is read as it, anything else stays a string.
        w(fmt, "untyped_values_json", c("anything", [("n", "42"), ("flag", "true"), ("text", "hi"), ("py", "True"),
                                                    ("obj", '{"a": [1, 2.5, null]}'), ("quoted", '"7"'), ("open", "[1, 2"),
                                                    ("pylist", "['x', None]"), ("zip", "00123")]))
        w(fmt, "untyped_param_in_schema", c("configure", [("mode", "fast"), ("extra", '{"k": 1}'), ("count", "42")]),
          [{"name": "configure", "parameters": {"type": "object", "properties": {
              "mode": {"type": "string"}, "extra": {"description": "anything"}, "count": {"type": "string"}}}}])
    else:
        w(fmt, "no_schema_strings", c("anything", [("n", "42"), ("flag", "true"), ("text", "hi")]))
    w(fmt, "enum_mismatch", c("get_weather", [("city", "Oslo"), ("unit", "kelvin")]), T)
    # `null` for a parameter whose schema has no null: no value, as meant.
    w(fmt, "null_for_typed_param", c("get_weather", [("city", "null"), ("days", "null")]), T)
    w(fmt, "unknown_tool", "Try:\n" + c("launch_rockets", [("count", "3")]) + "\n" + c("get_time", []), T)
    w(fmt, "cjk_emoji_values", "天気 👋🏽\n" + c("get_weather", [("city", "東京 🇯🇵 e\u0301")]) + "\n完了", T)
    w(fmt, "empty_params", c("get_time", []), T)
    w(fmt, "duplicate_param", c("get_weather", [("city", "Rome"), ("city", "Milan")]), T)
    w(fmt, "think_then_call", "<think>\nI should call <tool_call> soon; a < b.\n</think>\n" + c("get_weather", [("city", "Lima")]), T)
    w(fmt, "tag_like_prose", "Use <b>bold</b>, <tool_callback>, a<b, <minimax:tool> and <function=x> in prose.\n" + c("get_time", []), T)
    w(fmt, "crlf", ("Hi.\n" + c("get_weather", [("city", "Oslo"), ("days", "2")]) + "\nBye.\n").replace("\n", "\r\n"), T)
    w(fmt, "large_value_64k", "Saving.\n" + c("write_file", [("path", "big.txt"), ("content", ("line with <angle> & \"quotes\" é 世界\n" * 2000)[:65536].rstrip("\n"))]) + "\nSaved.", T)
    start_tag, end_tag = BLOCK_TAGS.get(fmt, ("<tool_call>", "</tool_call>"))
    w(fmt, "hermes_json_inside", start_tag + '\n{"name": "get_time", "arguments": {}}\n' + end_tag, T)
    # The block holds hermes-style JSON instead of elements.
    w(fmt, "json_block_parallel_then_xml", "Both:\n" + start_tag + '\n[{"name": "get_weather", "arguments": {"city": "Lima", "days": 2}}, {"name": "get_time", "arguments": {}}]\n' + end_tag + "\n" + c("get_time", []) + "\nDone.", T)
    w(fmt, "json_block_unknown_and_malformed", start_tag + '\n{"name": "launch_rockets", "arguments": {}}\n' + end_tag + "\n" + start_tag + '\n{"name": "get_time", "arguments": {oops}}\n' + end_tag, T)
    w(fmt, "json_block_python_dict", start_tag + "\n{'name': 'get_weather', 'arguments': {'city': 'Rome', 'days': 3}}\n" + end_tag, T)
    w(fmt, "partial_marker_at_eof", "The answer is " + start_tag[:-4 if fmt == "minimax-m2" else -3])
    full = c("get_weather", [("city", "Bern"), ("days", "2")])
    w(fmt, "eof_missing_end_marker", "Sure.\n" + full[: -len(end_tag)], T)
    cut = full.index("Bern") + 2
    w(fmt, "eof_inside_value", "Sure.\n" + full[:cut], T)
    w(fmt, "many_calls", "".join(c("get_weather", [("city", "C%d" % i), ("days", str(i))]) for i in range(8)), T)

Q = "qwen3-coder"
w(Q, "two_functions_one_block", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n<function=get_time>\n</function>\n</tool_call>", TYPED_TOOLS)
w(Q, "missing_close_parameter", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>", TYPED_TOOLS)
w(Q, "missing_close_function", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</tool_call>", TYPED_TOOLS)
w(Q, "malformed_no_function", "<tool_call>\nget_weather Paris\n</tool_call> after", TYPED_TOOLS)
w(Q, "close_tag_lookalike_then_text", "<tool_call>\n<function=write_file>\n<parameter=content>\nuse </parameter> then more\n</parameter>\n</function>\n</tool_call>", TYPED_TOOLS)
# Backslashes that begin no JSON escape in a JSON-typed value (a regular
# expression, a Windows path) stay backslashes.
w(Q, "backslashes_in_json_value", "<tool_call>\n<function=configure>\n<parameter=tags>\n[\"\\d+\\.py\", \"C:\\Users\", 'a\\tb']\n</parameter>\n</function>\n</tool_call>", TYPED_TOOLS)
# An enum value on its own, indented line names its member.
w(Q, "enum_value_indented", "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=unit>\n  celsius \n</parameter>\n</function>\n</tool_call>", TYPED_TOOLS)
M = "minimax-m2"
w(M, "several_invokes_one_block", '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n<invoke name="get_weather">\n<parameter name="city">Rome</parameter>\n<parameter name="days">2</parameter>\n</invoke>\n</minimax:tool_call>', TYPED_TOOLS)
w(M, "single_quoted_names", "<minimax:tool_call>\n<invoke name='get_weather'>\n<parameter name='city'>Kyiv</parameter>\n</invoke>\n</minimax:tool_call>", TYPED_TOOLS)
w(M, "unknown_then_known_in_block", '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n<invoke name="nope">\n<parameter name="x">1</parameter>\n</invoke>\n</minimax:tool_call>', TYPED_TOOLS)
# Attributes after the name (models echo them from tool descriptions) are
# not part of it.
w(M, "extra_attributes", '<minimax:tool_call>\n<invoke name="get_weather" description="Get the weather (e.g. for a city)">\n<parameter name="city" type="string">Paris</parameter>\n<parameter name=\'days\' type=\'integer\'>2</parameter>\n</invoke>\n</minimax:tool_call>', TYPED_TOOLS)
w(M, "missing_close_invoke", '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</minimax:tool_call>', TYPED_TOOLS)
# Closing tags once too often between elements: skipped.
w(Q, "stray_close_tags", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n</function>\n</tool_call> after", TYPED_TOOLS)
w(M, "stray_close_tags", '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</parameter>\n</invoke>\n</invoke>\n</minimax:tool_call> after', TYPED_TOOLS)
L = "glm"
w(L, "stray_close_tags", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call> after", TYPED_TOOLS)
w(L, "glm47_no_newlines", "Checking.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value><arg_key>days</arg_key><arg_value>2</arg_value></tool_call>", TYPED_TOOLS)
w(L, "glm47_parallel", "".join(xml_call(L, "get_weather", [("city", x)], nl=False) for x in ["Beijing", "Shanghai"]), TYPED_TOOLS)
w(L, "json_array_value", "<tool_call>configure\n<arg_key>tags</arg_key>\n<arg_value>[\"x\", \"y\"]</arg_value>\n<arg_key>options</arg_key>\n<arg_value>{\"a\": 1}</arg_value>\n</tool_call>", TYPED_TOOLS)
# Line breaks delivered escaped (a backslash and an `n`), as some servers
# pass GLM's output on; the value holds escaped JSON too.
w(L, "escaped_line_breaks", "Checking.<tool_call>configure\\n<arg_key>tags</arg_key>\\n<arg_value>[\\\"x\\\", \\\"y\\\"]</arg_value>\\n<arg_key>count</arg_key>\\n<arg_value>3</arg_value>\\n</tool_call>\\nDone.", TYPED_TOOLS)
# A backslash right after the name, then the end: as a stream cut inside
# the name.
w(L, "eof_after_name_backslash", "Look: <tool_call>get_weather\\", TYPED_TOOLS)
w(L, "name_only_no_args", "<tool_call>get_time</tool_call>", TYPED_TOOLS)
# The stream ends inside the name (a cut-off call, or prose that mentions
# the tag): text; after the name's line break, the call is recovered.
w(L, "eof_inside_name", "GLM opens its calls with <tool_call> get_wea")
w(L, "eof_after_name", "<tool_call>get_time\n")
w(L, "missing_arg_value_close", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>", TYPED_TOOLS)
print("ok xml")

X = "morph-xml"
MT = TYPED_TOOLS + [
    {"name": "search", "description": "Search",
     "parameters": {"type": "object", "properties": {
         "tags": {"type": "array", "items": {"type": "string"}},
         "ids": {"type": "array", "items": {"type": "integer"}},
         "filter": {"type": "object", "properties": {"age": {"type": "integer"}, "name": {"type": "string"}}},
         "limit": {"type": "integer"}}}},
]
# Real outputs for a Codex-style shell tool: a stray closing tag, and an
# array parameter whose elements come apart (with a string given twice).
SHELL = MT + [{"name": "shell", "description": "Runs a shell command",
    "parameters": {"type": "object", "required": ["command"], "additionalProperties": False, "properties": {
        "command": {"type": "array", "items": {"type": "string"}}, "justification": {"type": "string"},
        "timeout_ms": {"type": "number"}, "with_escalated_permissions": {"type": "boolean"}, "workdir": {"type": "string"}}}}]
PLAN = SHELL + [{"name": "update_plan", "description": "Update the plan",
    "parameters": {"type": "object", "required": ["explanation", "plan"], "properties": {
        "explanation": {"type": "string"},
        "plan": {"type": "object", "required": ["step"], "properties": {
            "step": {"type": "array", "items": {"type": "object", "required": ["step", "status"],
                "properties": {"step": {"type": "string"}, "status": {"type": "string"}}}}}}}}}]
# An array of objects inside an object, its items one element each (the
# item's name may be a property of the item too).
w(X, "nested_array_of_objects", "<update_plan><explanation>Two steps</explanation><plan><step><step>Read the code</step><status>completed</status></step><step><step>Write AGENTS.md</step><status>in_progress</status></step></plan></update_plan>", PLAN)
w(X, "nested_array_single_object", "<update_plan><explanation>One step</explanation><plan><step><step>Read the code</step><status>completed</status></step></plan></update_plan>", PLAN)
# A `>` inside an attribute's quotes does not end the tag; one element
# around a number is that number.
w(X, "attribute_with_gt_and_wrapped_number", "<get_weather note=\"a > b\"><city lang='en > fr'>Paris</city><days><item>3</item></days></get_weather>", MT)
# Closing tags wrapped by the model (`</\n  step>`) or with spaces still
# close their element.
PLAN = [{"name": "update_plan", "description": "Update the plan", "parameters": {"type": "object", "properties": {
    "explanation": {"type": "string"},
    "plan": {"type": "object", "properties": {"step": {"type": "array", "items": {"type": "object", "properties": {
        "step": {"type": "string"}, "status": {"type": "string"}}}}}}}}}]
w(X, "wrapped_close_tags", "<update_plan><explanation>Plan</ explanation><plan><step><step>Analyze</step><status>completed</status></step><step><step>Create AGENTS.md</\n  step><status>in_progress</status ></step></\nplan></ update_plan >", PLAN)
w(X, "stray_close_tag", "<shell><command>ls</command><command>app</command><command>shared</command></command><justification>List key\n  directories</justification><timeout_ms>5000</timeout_ms><with_escalated_permissions>false</with_escalated_permissions><workdir>/Users/me/\n  v2</workdir></shell>", SHELL)
w(X, "array_elements_apart", "<shell><command>git</command><command>log</command><justification>oneline</justification><command>-10</command><justification>Examine recent commits</justification><timeout_ms>5000</timeout_ms><workdir>.</workdir></shell>", SHELL)
w(X, "prose_call_prose", "Checking.\n<get_weather>\n  <city>Seoul</city>\n  <days>3</days>\n</get_weather>\nDone.", MT)
w(X, "only_call", "<get_weather><city>Paris</city></get_weather>", MT)
w(X, "self_closing", "Time: <get_time/> and <get_time />", MT)
w(X, "parallel", "<get_weather><city>Paris</city></get_weather>\n<get_weather><city>Rome</city><days>2</days></get_weather>", MT)
w(X, "entities", "<get_weather><city>Saint &amp; Marie &lt;3 &#x263A; &#65;</city></get_weather>", MT)
w(X, "html_string_verbatim", "<write_file>\n<path>index.html</path>\n<content><div class=\"a\"><p>Hi &amp; bye</p><br/></div></content>\n</write_file>", MT)
w(X, "repeated_elements_array", "<search><tags>red</tags><tags>blue</tags><tags>green</tags><limit>5</limit></search>", MT)
w(X, "single_element_array", "<search><tags>only</tags><ids>[1, 2, 3]</ids></search>", MT)
w(X, "nested_object", "<search><filter><age>18</age><name>Bo &amp; Co</name></filter></search>", MT)
w(X, "item_children_array", "<search><ids><item>1</item><item>2</item></ids></search>", MT)
w(X, "typed_coercion", "<configure><count>42</count><ratio>1.5</ratio><enabled>False</enabled><note>None</note><tags>['x', 'y',]</tags><zip>00123</zip><big>9007199254740993</big></configure>", MT)
w(X, "coercion_failure", "<configure><count>many</count></configure>", MT)
w(X, "prose_tags_stay_prose", "Use <b>bold</b> and <get_weathers> or <get_weather_now> or <get> here.", MT)
w(X, "unknown_tool_is_prose", "<launch_rockets><count>3</count></launch_rockets>", MT)
w(X, "missing_root_close", "<get_weather>\n<city>Oslo</city>\n", MT)
w(X, "missing_param_close", "<get_weather><city>Oslo</get_weather>", MT)
w(X, "eof_inside_param", "<get_weather><city>Os", MT)
w(X, "cjk_emoji", "天気 <get_weather><city>東京 👋🏽 e\u0301</city></get_weather> ✅", MT)
w(X, "crlf", "Hi\r\n<get_weather>\r\n<city>Oslo</city>\r\n<days>2</days>\r\n</get_weather>\r\n", MT)
w(X, "empty_param", "<write_file><path>a.txt</path><content></content></write_file>", MT)
w(X, "empty_self_closing_param", "<write_file><path>a.txt</path><content/></write_file>", MT)
w(X, "attributes_ignored", "<get_weather id=\"1\"><city lang=\"en\">Paris</city></get_weather>", MT)
w(X, "partial_tag_at_eof", "The answer: <get_wea", MT)
w(X, "large_value_64k", "<write_file><path>big.txt</path><content>" + ("text with <b>markup</b> é 世界\n" * 3000)[:65536] + "</content></write_file>", MT)
w(X, "duplicate_scalar_param_becomes_array", "<get_weather><city>A</city><city>B</city></get_weather>", MT)
w(X, "pydantic_refs_and_type_aliases", "<book><unit>f</unit><nights>3</nights><price>99.5</price><breakfast>True</breakfast><guest><name>Ana</name><age>31</age></guest><note>None</note></book>", PYDANTIC_TOOLS)
print("ok morph")
w(Q, "new_call_inside_unclosed_call", "<tool_call>\n<function=get_time>\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>", TYPED_TOOLS)
w(X, "unclosed_root_tag_then_call", "<get_time " + "x" * 600 + "\n<get_weather><city>Oslo</city></get_weather>", MT)
w(L, "new_call_inside_unclosed_call", "<tool_call>get_time\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>", TYPED_TOOLS)

# Qwen3-Coder calls without the <tool_call> wrapper.
# Relaxed JSON bodies: Python dicts (as Hermes 2 Pro's function-calling examples write
# them), Python literals, trailing commas, unquoted keys.
w(H, "relaxed_python_dict_regex", "<tool_call>\n{'name': 'grep', 'arguments': {'pattern': '\\d+\\.py$', 'hex': '\\x41', 'quote': 'it\\'s'}}\n</tool_call>")
# A backslash repaired in JSON that streamed, then the body turns out
# relaxed: the rewrite agrees with what streamed.
w(H, "invalid_escape_then_relaxed", '<tool_call>{"name": "grep", "arguments": {"pattern": "\\d+", "exact": True}}</tool_call>')
w(H, "relaxed_python_dict", "Let me look that up.\n<tool_call>\n{'arguments': {'symbol': 'TSLA', 'exact': True, 'limit': None}, 'name': 'get_stock_fundamentals'}\n</tool_call>\nDone.")
w(H, "relaxed_single_quoted_arguments", "<tool_call>{\"name\": \"get_weather\", \"arguments\": {'city': 'Paris', \"note\": 'it\\'s \"sunny\"'}}</tool_call> ok")
w(H, "relaxed_python_literals", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "metric": True, "alerts": None}}</tool_call> ok')
w(H, "relaxed_trailing_comma_after_arguments", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"},}</tool_call> ok')
w(H, "relaxed_unquoted_keys", "<tool_call>{name: 'get_weather', arguments: {city: 'Oslo', days: 2,},}</tool_call>")
w(H, "relaxed_arguments_string", "<tool_call>{'name': 'get_weather', 'arguments': '{\"city\": \"Lima\"}'}</tool_call>")
w(H, "relaxed_at_eof_without_end", "Sure.\n<tool_call>\n{'name': 'get_time', 'arguments': {}}\n")
w(H, "relaxed_unknown_tool", "<tool_call>{'name': 'launch_rockets', 'arguments': {'n': 3}}</tool_call>\n" + hermes('{"city": "Nice"}'), WEATHER_TOOLS)
w(H, "relaxed_trailing_comma_in_streamed_arguments", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris",}}</tool_call> ok')
w(H, "relaxed_not_even_relaxed_then_call", '<tool_call>{bad stuff here</tool_call> then ' + hermes('{"city": "Rome"}', nl=False))
w(H, "relaxed_end_marker_in_single_quotes", "<tool_call>{'name': 'echo', 'arguments': {'text': 'a </tool_call> b'}}</tool_call> after")
w(H, "relaxed_text_after_object", "<tool_call>{'name': 'get_time', 'arguments': {}} oops</tool_call> after")
w(H, "relaxed_missing_end_then_prose", "<tool_call>{'name': 'get_time', 'arguments': {}}\nThe time is coming.")
w(H, "relaxed_missing_end_then_next_call", "<tool_call>{'name': 'get_time', 'arguments': {}}\n<tool_call>{'name': 'get_time', 'arguments': {}}</tool_call>")
w(H, "relaxed_two_missing_ends_then_call", "Checking.\n<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Oslo'}}\n<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Bergen', 'days': None}}\n<tool_call>\n{'name': 'get_time', 'arguments': {}}\n</tool_call>\nDone.")
w(G, "relaxed_python_dict", "Calling.\n```tool_call\n{'name': 'get_weather', 'arguments': {'city': 'Paris', 'metric': False}}\n```\nDone.")

Q = "qwen3-coder"
def bare_fn(name, params):
    ps = "".join("<parameter=%s>\n%s\n</parameter>\n" % (k, v) for k, v in params)
    return "<function=%s>\n%s</function>" % (name, ps)
w(Q, "bare_function_call", "Checking.\n" + bare_fn("get_weather", [("city", "Paris"), ("days", "2")]) + "\nDone.", TYPED_TOOLS)
w(Q, "bare_function_parallel", bare_fn("get_weather", [("city", "Paris")]) + "\n" + bare_fn("get_time", []), TYPED_TOOLS)
w(Q, "bare_function_unknown_is_prose", "Write <function=helper> like this:\n" + bare_fn("get_time", []), TYPED_TOOLS)
w(Q, "bare_function_eof_unclosed", bare_fn("get_weather", [("city", "Oslo")])[: -len("</function>")], TYPED_TOOLS)
# Models that leave out the opening `<tool_call>` often still close it.
w(Q, "bare_function_stray_close", "Checking.\n" + bare_fn("get_weather", [("city", "Paris")]) + "\n</tool_call>\nDone.", TYPED_TOOLS)
w(Q, "bare_function_then_other_close", bare_fn("get_time", []) + "\n</tool_ca> and </tool_call>", TYPED_TOOLS)
w(Q, "bare_function_no_tools", "a <function=f> b\n" + bare_fn("get_weather", [("city", "Rome")]))

# Qwen3-Coder served with a hermes parser: its XML calls in the same
# <tool_call> blocks.
w(H, "qwen3_coder_xml_inside", "Checking.\n" + xml_call(Q, "get_weather", [("city", "Paris"), ("days", "2")]) + "\n" + hermes('{"city": "Rome"}') + "\nDone.", TYPED_TOOLS)
w(H, "qwen3_coder_xml_two_functions", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n<function=get_time>\n</function>\n</tool_call>", TYPED_TOOLS)
w(H, "qwen3_coder_xml_unknown_function", xml_call(Q, "launch_rockets", [("n", "3")]) + "\n" + xml_call(Q, "get_time", []), TYPED_TOOLS)
qwen_full = xml_call(Q, "get_weather", [("city", "Bern")])
w(H, "qwen3_coder_xml_eof_inside_value", "Sure.\n" + qwen_full[: qwen_full.index("Bern") + 2], TYPED_TOOLS)
w(H, "qwen3_coder_xml_multiline_code", xml_call(Q, "write_file", [("path", "a.py"), ("content", "def f(x):\n    return x < 3 and {'a': 1}\n")]), TYPED_TOOLS)
w(H, "doubled_start_marker", "<tool_call><tool_call>\n" + '{"name": "get_time", "arguments": {}}' + "\n</tool_call>")
w(H, "tag_after_start_marker", "<tool_call> <b>not a call</b> </tool_call> then " + hermes('{"city": "Oslo"}', nl=False))

# The call object closed once too often, as models now and then write it.
w(H, "extra_closing_brace", "Sure.\n<tool_call>\n" + '{"name": "get_weather", "arguments": {"city": "Paris"}}}' + "\n</tool_call>\nDone.")
w(H, "extra_closing_brace_relaxed", "<tool_call>\n{'name': 'get_weather', 'arguments': {'city': 'Paris'}}}}\n</tool_call> ok")
w(H, "extra_closing_brace_then_text", '<tool_call>{"name": "get_time", "arguments": {}}} and more</tool_call> after')
w(H, "extra_closing_brace_at_eof", '<tool_call>{"name": "get_time", "arguments": {}}}')
w(G, "extra_closing_brace", "Calling.\n```tool_call\n" + '{"name": "get_weather", "arguments": {"city": "Paris"}}}' + "\n```\nDone.")

# The JSON wrapped in a markdown fence inside the tags.
w(H, "fenced_json_inside", "Let me check.\n<tool_call>\n```json\n" + '{"name": "get_weather", "arguments": {"city": "Paris"}}' + "\n```\n</tool_call>\nDone.")
w(H, "fenced_json_array", "<tool_call>\n```\n" + '[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}]' + "\n```\n</tool_call>")
w(H, "fenced_not_json_is_text", "<tool_call>\n```python\nprint(get_time())\n```\n</tool_call> then " + hermes('{"city": "Oslo"}', nl=False))
w(H, "fenced_json_fence_not_closed", "<tool_call>\n```json\n" + '{"name": "get_time", "arguments": {}}' + "\n</tool_call> ok")
w(H, "fenced_python_dict", "<tool_call>\n```json\n{'name': 'get_weather', 'arguments': {'city': 'Paris', 'metric': True}}\n```\n</tool_call> ok")
w(H, "fenced_json_then_not_a_fence", "<tool_call>\n```json\n" + '{"name": "get_time", "arguments": {}}' + "\n``x</tool_call> ok")
for fmt in ["qwen3-coder", "minimax-m2", "glm", "deepseek-v3.2", "seed-oss", "kimi-k3"]:
    start_tag, end_tag = BLOCK_TAGS.get(fmt, ("<tool_call>", "</tool_call>"))
    w(fmt, "json_block_fenced", start_tag + '\n```json\n{"name": "get_weather", "arguments": {"city": "Lima"}}\n```\n' + end_tag + " ok", TYPED_TOOLS)

# The model stopped before the call object's last closing brackets.
w(H, "missing_closing_brace", "Running it.\n<tool_call>\n" + '{"name": "terminal", "arguments": {"command": "ls -la"}' + "\n</tool_call>\nDone.")
w(H, "missing_closing_brackets_in_arguments", '<tool_call>{"name": "plot", "arguments": {"xs": [1, 2, 3], "style": {"color": "red"</tool_call> ok')
w(H, "missing_closing_brace_at_eof", '<tool_call>{"name": "terminal", "arguments": {"command": "ls -la"}')
w(H, "missing_closing_brace_python_dict", "<tool_call>{'name': 'terminal', 'arguments': {'command': 'ls', 'all': True}</tool_call>")

# Trailing commas inside arguments that already streamed.
w(H, "trailing_commas_nested", '<tool_call>{"name": "plot", "arguments": {"xs": [1, 2, 3, ], "style": {"color": "red",\n},\n}}</tool_call> ok')
w(H, "trailing_comma_then_relaxed", "<tool_call>{\"name\": \"plot\", \"arguments\": {\"xs\": [1, 2,], 'title': 'Sales', 'grid': True,}}</tool_call>")
w(H, "trailing_comma_with_space_then_relaxed", "<tool_call>{\"name\": \"plot\", \"arguments\": {\"xs\": [1, 2, ], 'title': 'Sales' , }}</tool_call>")
w(H, "comma_before_next_member_is_kept", '<tool_call>{"name": "plot", "arguments": {"xs": [1,\n 2],\n "ys": [3]}}</tool_call>')

# Regression: a fence, then a tag (not Qwen3-Coder XML after a fence).
w(H, "fence_then_tag", "<tool_call>```tool_call\n<tool_call>\n" + '{"name": "get_weather", "arguments": {"city": "", "days": 0}}' + "\n</tool_call>")

# The tool named by "function": a string (as some fine-tunes write it), or
# the nested object of the OpenAI API.
w(H, "function_key_names_the_tool", "Sure.\n<tool_call>\n" + '{"function": "get_weather", "arguments": {"city": "Paris"}}' + "\n</tool_call>\n<tool_call>\n" + '{"arguments": {}, "function": "get_time"}' + "\n</tool_call>")
w(H, "openai_nested_function", "<tool_call>\n" + '{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}' + "\n</tool_call>\n<tool_call>\n" + '{"type": "function", "function": {"name": "get_time", "arguments": "{}"}}' + "\n</tool_call> done", WEATHER_TOOLS)
w(H, "openai_nested_function_unknown_tool", "<tool_call>" + '{"type": "function", "function": {"name": "launch", "arguments": {"n": 1}}}' + "</tool_call> then " + hermes('{"city": "Oslo"}', nl=False), WEATHER_TOOLS)
w(H, "function_key_not_a_name", "<tool_call>" + '{"function": 3, "arguments": {}}' + "</tool_call> then " + hermes('{"city": "Oslo"}', nl=False))
w(H, "relaxed_openai_nested_function", "<tool_call>\n{'type': 'function', 'function': {'name': 'get_weather', 'arguments': {'city': 'Paris', 'metric': True}}}\n</tool_call> ok")
w("gemma", "openai_nested_function", "Checking.\n```tool_call\n" + '{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lima"}}}' + "\n```\nDone.")

# Special-token formats: the name before the JSON arguments.
TOKENS = {
    "deepseek-v3.1": ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"),
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    "cohere": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>',
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
    "pythonic": '<|python_start|>[get_weather(city="Paris")]<|python_end|>',
    "harmony": '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
    "kimi-k2": ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"),
}

def tok_one(fmt, name, args_json, index=0):
    _, _, cb, sep, ce = TOKENS[fmt]
    head = name if fmt == "deepseek-v3.1" else "functions.%s:%d" % (name, index)
    return cb + head + sep + args_json + ce

def tok_section(fmt, calls, between=""):
    sb, se = TOKENS[fmt][:2]
    return sb + between.join(tok_one(fmt, n, a, i) for i, (n, a) in enumerate(calls)) + se

for fmt in ["deepseek-v3.1", "kimi-k2"]:
    sb, se, cb, sep, ce = TOKENS[fmt]
    one = lambda args='{"city": "Paris"}', name="get_weather": tok_section(fmt, [(name, args)])
    w(fmt, "prose_call_prose", "Let me check the weather.\n" + one() + "\nI'll report back.")
    w(fmt, "only_call", one('{"city": "Seoul", "days": 3}'))
    w(fmt, "two_calls_one_section", tok_section(fmt, [("get_weather", '{"city": "Paris"}'), ("get_time", "{}")]))
    w(fmt, "calls_on_lines", "Both:\n" + tok_section(fmt, [("get_weather", '{"city": "Paris"}'), ("get_weather", '{"city": "Rome"}'), ("get_time", "{}")], "\n").replace(sb, sb + "\n").replace(se, "\n" + se) + "\nDone.")
    w(fmt, "prose_between_sections", "First:\n" + one() + "\nand then:\n" + one('{"city": "Rome"}') + "\nDone.")
    w(fmt, "end_token_in_string", one('{"city": "Paris", "note": "write %s and %s literally"}' % (ce, se)))
    w(fmt, "braces_in_string", one('{"code": "fn main() { let x = {}; }", "pat": "}}]]{{"}', "run"))
    w(fmt, "escaped_quotes_and_unicode", one(r'{"quote": "she said \"hi\"", "path": "C:\\temp\\", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo"))
    w(fmt, "cjk_emoji_combining", "天気を調べます 👋🏽 e\u0301\n" + one('{"city": "東京", "mood": "😀🇫🇷", "accent": "e\u0301"}') + "\n完了 ✅")
    w(fmt, "crlf", ("Checking.\n" + tok_section(fmt, [("get_weather", '{"city": "Oslo",\n "days": 2}'), ("get_time", "{}")], "\n") + "\nOk.\n").replace("\n", "\r\n"))
    w(fmt, "tag_like_prose", "Use <b>bold</b>, a < b, %s stray, %s alone and %s. " % (ce, se, sb[:9]) + one('{"city": "Lima"}'))
    w(fmt, "empty_arguments", one("{}", "get_time"))
    w(fmt, "nested_arguments", one('{"filter": {"and": [{"field": "age", "gt": 18}, {"or": [{"x": [1, 2.5e3, -0.5, true, false, null]}]}]}, "limit": 10}', "query"))
    w(fmt, "whitespace_around_tokens", sb + "\n  " + cb + " " + ("get_weather" if fmt == "deepseek-v3.1" else "functions.get_weather:0") + " " + sep + '\n {"city": "Cairo"} \n' + ce + "\n" + se)
    w(fmt, "large_argument_64k", "Writing the file.\n" + one(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum \"quoted\" {braces} %s é 世界\n" % ce * 1000)[:65536]}), "write_file") + "\nWritten.")
    w(fmt, "malformed_then_valid", tok_section(fmt, [("search", "{invalid json}"), ("get_time", "{}")]) + " after")
    w(fmt, "arguments_not_an_object", one('["Paris"]') + " then " + one('{"city": "Oslo"}'))
    w(fmt, "raw_newline_in_string", one('{"text": "line one\nline two"}', "echo"))
    w(fmt, "invalid_escapes_kept", one('{"pattern": "\\d+\\s\\w", "path": "C:\\Users\\me"}', "grep"))
    w(fmt, "escaped_apostrophe", one('{"text": "It\\\'s fine"}', "say"))
    w(fmt, "unknown_tool", "Calling.\n" + tok_section(fmt, [("launch_rockets", '{"q": 1}'), ("get_weather", '{"city": "Nice"}')]), WEATHER_TOOLS)
    w(fmt, "known_tools", tok_section(fmt, [("get_weather", '{"city": "Nice"}'), ("get_time", "{}")]), WEATHER_TOOLS)
    w(fmt, "eof_after_call_end", "Sure.\n" + sb + tok_one(fmt, "get_weather", '{"city": "Bern"}'))
    w(fmt, "eof_before_call_end", "Sure.\n" + sb + tok_one(fmt, "get_weather", '{"city": "Bern"}')[: -len(ce)])
    head = lambda name: cb + (name if fmt == "deepseek-v3.1" else "functions.%s:0" % name) + sep
    w(fmt, "eof_inside_arguments", "Sure.\n" + sb + head("get_weather") + '{"city": "Be')
    w(fmt, "eof_inside_name", "Sure.\n" + sb + cb + "get_wea")
    w(fmt, "partial_marker_at_eof", "The answer is 42 " + sb[:12])
    w(fmt, "missing_call_end_before_next_call", sb + tok_one(fmt, "get_time", "{}")[: -len(ce)] + tok_one(fmt, "get_weather", '{"city": "Bern"}', 1) + se)
    w(fmt, "missing_section_end_then_prose", sb + tok_one(fmt, "get_time", "{}") + "\nThe time is coming.")
    w(fmt, "call_without_section", "Here: " + tok_one(fmt, "get_weather", '{"city": "Rome"}') + " and " + tok_one(fmt, "get_time", "{}", 1) + se + " done")
    w(fmt, "section_without_call", "The section opens with %s but no call follows." % sb)
    w(fmt, "think_then_call", "<think>\nThe user wants weather; a %s block would go here.\n</think>\n\n" % sb + one('{"city": "Hanoi"}'))
    w(fmt, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + one().encode())
    w(fmt, "invalid_utf8_in_arguments", (sb + head("echo") + '{"text": "caf').encode() + b"\xc3(\"}" + (ce + se + " after ").encode() + one().encode())
    # After a call, the start of a token that turns out to be prose.
    w(fmt, "token_lookalike_after_call", sb + tok_one(fmt, "get_time", "{}") + "\n" + cb[:-3] + "x is not a token")
    w(fmt, "name_too_long", sb + head("x" * 300) + "{}" + ce + se + " after")
    w(fmt, "many_calls", tok_section(fmt, [("get_weather", '{"city": "C%d", "days": %d}' % (i, i)) for i in range(8)], "\n"))

DS = "deepseek-v3"
# DeepSeek-V3 and R1: `function<sep>NAME`, the arguments in a ```json fence.
def v3(name, args):
    return "<｜tool▁call▁begin｜>function<｜tool▁sep｜>%s\n```json\n%s\n```<｜tool▁call▁end｜>" % (name, args)
w(DS, "v3_fenced_call", "Let me look.<｜tool▁calls▁begin｜>" + v3("get_weather", '{"city": "Beijing"}') + "<｜tool▁calls▁end｜>")
w(DS, "v3_two_calls", "<｜tool▁calls▁begin｜>" + v3("get_weather", '{"city": "Beijing"}') + "\n" + v3("get_time", "{}") + "<｜tool▁calls▁end｜>")
V3B, V3E = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
w(DS, "prose_call_prose", "Let me check the weather.\n" + V3B + v3("get_weather", '{"city": "Paris"}') + V3E + "\nI'll report back.")
w(DS, "r1_think_then_call", "<think>\nThe user wants the weather in Paris.\n</think>\n\n" + V3B + v3("get_weather", '{"city": "Paris", "days": 2}') + V3E)
w(DS, "unknown_tool", V3B + v3("launch_rockets", '{"q": 1}') + v3("get_weather", '{"city": "Nice"}') + V3E, WEATHER_TOOLS)
w(DS, "eof_inside_fence", "Sure." + V3B + v3("get_weather", '{"city": "Be'))
w(DS, "v3_1_layout_read_too", V3B + "<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜>" + V3E)
w(DS, "v3_fence_not_closed", "<｜tool▁calls▁begin｜>" + v3("get_weather", '{"city": "Beijing"}').replace("\n```<", "<") + "<｜tool▁calls▁end｜>")
D = "deepseek-v3.2"
def dsml(invokes, block="function_calls"):
    return "<｜DSML｜%s>\n%s</｜DSML｜%s>" % (block, "".join(invokes), block)
def invoke(name, params):
    ps = "".join('<｜DSML｜parameter name="%s" string="%s">%s</｜DSML｜parameter>\n' % (k, s, v) for k, s, v in params)
    return '<｜DSML｜invoke name="%s">\n%s</｜DSML｜invoke>\n' % (name, ps)
w(D, "two_invokes_one_block", "Checking both.\n\n" + dsml([invoke("get_weather", [("city", "true", "Paris")]), invoke("get_weather", [("city", "true", "Rome"), ("days", "false", "2")])]), TYPED_TOOLS)
# Without a schema, `string="false"` values are JSON and the others strings.
w(D, "string_attribute_without_schema", dsml([invoke("anything", [("n", "false", "42"), ("flag", "false", "true"), ("list", "false", '[1, "a", {"b": null}]'),
                                                                   ("obj", "false", '{"k": [1.5e3]}'), ("quoted", "false", '"text"'), ("zip", "true", "00123"), ("word", "true", "true")])]))
w(D, "string_false_not_json", dsml([invoke("anything", [("n", "false", "forty-two")])]))
# DeepSeek-V4 writes the same invokes in a `tool_calls` block.
w(D, "v4_tool_calls_block", "Sure.\n\n" + dsml([invoke("get_weather", [("city", "true", "Lima"), ("days", "false", "3")])], "tool_calls") + "\nDone.", TYPED_TOOLS)
# DeepSeek-V4.1 writes a space after the DSML token in every tag.
w(D, "v4_1_spaced_tags", "Sure.\n\n" + dsml([invoke("get_weather", [("city", "true", "Lima"), ("days", "false", "3")])], " calls").replace("｜DSML｜invoke", "｜DSML｜ invoke").replace("｜DSML｜parameter", "｜DSML｜ parameter") + "\nDone.", TYPED_TOOLS)
# An invoke without its block (V4.1's reference parser accepts it): a call
# up to `</｜DSML｜invoke>`; one naming no known tool is prose.
w(D, "invoke_without_block", "Sure.\n" + invoke("get_weather", [("city", "true", "Rome")]) + invoke("launch_rockets", []) + "Done.", TYPED_TOOLS)
w(D, "spaced_invoke_without_block_then_block_end", "Sure.\n" + invoke("get_weather", [("city", "true", "Rome")]).replace("｜DSML｜invoke", "｜DSML｜ invoke").replace("｜DSML｜parameter", "｜DSML｜ parameter") + "</｜DSML｜ calls>\nDone.", TYPED_TOOLS)
w(D, "v4_block_holding_json", "<｜DSML｜tool_calls>\n{\"name\": \"get_time\", \"arguments\": {}}\n</｜DSML｜tool_calls> ok", TYPED_TOOLS)
# A server that drops special tokens passes DSML on without its tokens.
w(D, "tokens_stripped", "Checking.\n" + dsml([invoke("get_weather", [("city", "true", "Hangzhou, China"), ("days", "false", "2")])]).replace("｜DSML｜", "") + "\nDone.", TYPED_TOOLS)
w(D, "self_closing_invoke", dsml(['<｜DSML｜invoke name="get_time"/>\n', invoke("get_weather", [("city", "true", "Oslo")])]), TYPED_TOOLS)
# The arguments as one JSON object instead of parameter elements.
w(D, "json_object_arguments", dsml(['<｜DSML｜invoke name="get_weather">\n{"city": "Kyiv", "days": 2, "note": "</｜DSML｜invoke> is data"}\n</｜DSML｜invoke>\n']), TYPED_TOOLS)
w(D, "json_object_arguments_malformed", dsml(['<｜DSML｜invoke name="get_weather">\n{"city": "Kyiv",\n</｜DSML｜invoke>\n']) + " after", TYPED_TOOLS)
w(D, "parameter_after_json_object", dsml(['<｜DSML｜invoke name="get_weather">\n{"city": "Kyiv"}\n<｜DSML｜parameter name="days" string="false">2</｜DSML｜parameter>\n</｜DSML｜invoke>\n']), TYPED_TOOLS)
w(D, "missing_close_invoke", '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n</｜DSML｜function_calls>', TYPED_TOOLS)
w(D, "other_deepseek_markers_are_prose", "The V3.1 layout <｜tool▁calls▁begin｜> and <｜DSML｜invoke> are prose here.\n" + dsml([invoke("get_time", [])]), TYPED_TOOLS)
K = "kimi-k2"
w(K, "namespaced_and_bare_names", tok_section(K, [("x", "{}")]).replace("functions.x:0", "api.tools.search:0") + "\n" + tok_section(K, [("x", "{}")]).replace("functions.x:0", "get_time"))
w(K, "name_with_colon", tok_section(K, [("ns:tool", '{"a": 1}')]))

# A call-begin token written in prose before the real section.
for fmt in ["deepseek-v3.1", "kimi-k2"]:
    sb, se, cb, sep, ce = TOKENS[fmt]
    w(fmt, "call_begin_in_prose_before_section", "Use %s to start a call.\n" % cb + tok_section(fmt, [("get_weather", '{"city": "Paris"}')]) + " done")
    w(fmt, "separator_in_prose_before_section", "The %s token and %s split a call.\n" % (cb, sep) + tok_section(fmt, [("get_weather", '{"city": "Paris"}')]))

# Several calls in one block: each stands or falls alone.
w(D, "broken_invoke_then_valid", "Sure.\n" + dsml([invoke("", [("city", "true", "Rome")]), invoke("get_weather", [("city", "true", "Paris")])]) + "\nDone.", TYPED_TOOLS)
w(D, "valid_then_invoke_without_name", dsml([invoke("get_weather", [("city", "true", "Paris")]), '<｜DSML｜invoke>\n<｜DSML｜parameter name="city" string="true">Rome</｜DSML｜parameter>\n</｜DSML｜invoke>\n', invoke("get_time", [])]), TYPED_TOOLS)
w(D, "every_invoke_broken", dsml([invoke("", []), invoke("launch_rockets", [("n", "false", "3")])]) + " after", TYPED_TOOLS)
w("minimax-m2", "unknown_first_then_known_in_block", '<minimax:tool_call>\n<invoke name="nope">\n<parameter name="x">1</parameter>\n</invoke>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>', WEATHER_TOOLS)
w(Q, "unknown_first_then_known_in_block", "<tool_call>\n<function=nope>\n<parameter=x>\n1\n</parameter>\n</function>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", WEATHER_TOOLS)

# morph-xml: a string value keeps its markup, and its entities are decoded.
MORPH_WRITE = [{"name": "write_file", "description": "Write a file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}]
w("morph-xml", "string_markup_with_entities", "<write_file>\n<path>a.py</path>\n<content>\nif a &lt; b &amp;&amp; c &gt; 0:\n    print(\"<b>&#x263A;</b>\")\n</content>\n</write_file>", MORPH_WRITE)
w("morph-xml", "string_escaped_only", "<write_file>\n<path>a.txt</path>\n<content>x &lt; y &amp; &quot;z&quot; &apos;w&apos;</content>\n</write_file>", MORPH_WRITE)

# Values that hold tag text (code and docs about tool calling): a tag only
# counts when what follows it is structural.
QTOOLS = [{"name": "write_file", "description": "Write a file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}},
          {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}]
def qwrite(content):
    return "<tool_call>\n<function=write_file>\n<parameter=path>\ndocs/tools.md\n</parameter>\n<parameter=content>\n%s\n</parameter>\n</function>\n</tool_call>" % content
w(Q, "value_holds_parameter_element", "Writing.\n" + qwrite("Pass a value as <parameter=city>Paris</parameter> inside the function."), QTOOLS)
w(Q, "value_holds_open_parameter_tag_then_close_text", qwrite("An open tag: <parameter=city>\nand later its close </parameter> in prose."), QTOOLS)
w(Q, "value_holds_function_close", qwrite("The tag </function> ends a call."), QTOOLS)
w(Q, "value_holds_end_marker", qwrite("Write </tool_call> to end the block, then <tool_call> again."), QTOOLS)
w(Q, "value_holds_whole_call", "Docs:\n" + qwrite("Example:\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\nThat is all.") + "\nDone.", QTOOLS)
w(Q, "bare_function_value_holds_function_close", "<function=write_file>\n<parameter=path>\na.md\n</parameter>\n<parameter=content>\nsee </function> here\n</parameter>\n</function>\nDone.", QTOOLS)
w(Q, "missing_close_then_function_close", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>\nDone.", QTOOLS)
w(Q, "missing_closes_then_end_marker_then_prose", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</tool_call>\nDone.", QTOOLS)
w(Q, "missing_close_before_next_parameter", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>", QTOOLS)
w(Q, "missing_closes_before_next_function", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n</function>\n</tool_call>", QTOOLS)
w("minimax-m2", "value_holds_parameter_element", '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">a.md</parameter>\n<parameter name="content">Use <parameter name="city">Paris</parameter> and </invoke> as text.</parameter>\n</invoke>\n</minimax:tool_call>', QTOOLS)
w("glm", "value_holds_arg_tags", "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>GLM writes <arg_key>k</arg_key><arg_value>v</arg_value> and </tool_call> inline.</arg_value>\n</tool_call>", QTOOLS)
w("deepseek-v3.2", "value_holds_dsml_tags", '<｜DSML｜function_calls>\n<｜DSML｜invoke name="write_file">\n<｜DSML｜parameter name="path" string="true">a.md</｜DSML｜parameter>\n<｜DSML｜parameter name="content" string="true">Tags: <｜DSML｜parameter name="x" string="true">v</｜DSML｜parameter> then </｜DSML｜invoke> text.</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>', QTOOLS)

# Reasoning interplay, for every format: the same scenarios around one call
# in the format's own layout (`<case>.reasoning.json` sets the parser's
# reasoning tags).

# Formats whose calls are a JSON list after a start token, ended by the
# list's `]` (phi4-mini, granite 3.x).
LIST_START = {"phi4-mini": "functools", "granite": "<|tool_call|>"}

def obj(args_json, name="get_weather"):
    return '{"name": "%s", "arguments": %s}' % (name, args_json)

for fmt, start in LIST_START.items():
    def calls(*objs, sep=", "):
        return start + "[" + sep.join(objs) + "]"
    w(fmt, "prose_call_prose", "Let me check the weather.\n" + calls(obj('{"city": "Paris"}')) + "\nI'll report back.")
    w(fmt, "only_call", calls(obj('{"city": "Seoul", "days": 3}')))
    w(fmt, "two_calls", calls(obj('{"city": "Paris"}'), obj('{}', "get_time")))
    w(fmt, "two_calls_on_lines", start + "[\n  " + obj('{"city": "Paris"}') + ",\n  " + obj('{"city": "Rome"}') + "\n]\nBoth asked.")
    w(fmt, "two_lists", calls(obj('{"city": "Paris"}')) + "\nand\n" + calls(obj('{"city": "Oslo"}')))
    w(fmt, "empty_list", "Nothing to call: " + start + "[] done")
    w(fmt, "marker_in_string", calls(obj('{"note": "write %s[{} and ] literally"}' % start.replace('"', '\\"'), "echo")))
    w(fmt, "brackets_in_string", calls(obj('{"code": "fn main() { let x = [1, {}]; }", "pat": "]]}}[["}', "run")))
    w(fmt, "escaped_quotes_and_unicode", calls(obj(r'{"quote": "she said \"hi\"", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo")))
    w(fmt, "cjk_emoji_combining", "天気を調べます 👋🏽 e\u0301\n" + calls(obj('{"city": "東京", "mood": "😀🇫🇷"}')) + "\n完了 ✅")
    w(fmt, "crlf", "Checking.\r\n" + start + "[\r\n" + obj('{"city": "Oslo"}') + "\r\n]\r\nOk.\r\n")
    w(fmt, "parameters_key", calls('{"name": "get_weather", "parameters": {"city": "Madrid"}}'))
    w(fmt, "name_after_arguments", calls('{"arguments": {"city": "Berlin", "days": 2}, "name": "get_weather"}'))
    w(fmt, "arguments_as_string", calls('{"name": "get_weather", "arguments": "{\\"city\\": \\"Kyiv\\"}"}'))
    w(fmt, "missing_arguments", calls('{"name": "get_time"}'))
    w(fmt, "nested_arguments", calls(obj('{"filter": {"and": [{"field": "age", "gt": 18}, {"x": [1, 2.5e3, -0.5, true, false, null]}]}, "limit": 10}', "query")))
    w(fmt, "whitespace_inside_json", start + "[ \n\t{ \"name\" :\n \"get_weather\" ,\n\t\"arguments\" : {\n  \"city\" : \"Cairo\"\n }\n}\n ]")
    w(fmt, "eof_inside_arguments", "Sure.\n" + start + '[{"name": "get_weather", "arguments": {"city": "Be')
    w(fmt, "eof_after_marker", "Sure.\n" + start)
    w(fmt, "eof_list_unclosed", start + "[" + obj('{"city": "Paris"}') + ", " + obj('{}', "get_time"))
    w(fmt, "partial_marker_at_eof", "The answer is 42 " + start[:-2])
    w(fmt, "malformed_missing_comma", "Try:\n" + start + '[{"name": "get_weather", "arguments": {"city": "Paris" "days": 2}}]\nafter')
    w(fmt, "malformed_then_valid", start + '[{"name": get_weather}] retry: ' + calls(obj('{"city": "Paris"}')))
    w(fmt, "not_a_list", start + " is what I would write, but not now.")
    w(fmt, "unknown_tool", "Calling.\n" + calls(obj('{"q": 1}', "launch_rockets")) + "\n" + calls(obj('{"city": "Nice"}')), WEATHER_TOOLS)
    w(fmt, "known_tools", calls(obj('{"city": "Nice"}'), obj('{}', "get_time")), WEATHER_TOOLS)
    w(fmt, "extra_keys", calls('{"id": "abc", "type": "function", "name": "get_weather", "arguments": {"city": "Quito"}, "extra": [1, {"a": null}]}'))
    w(fmt, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + calls(obj('{"city": "Paris"}')).encode())
    w(fmt, "large_argument_64k", "Writing the file.\n" + calls(obj(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum, \"quoted\" [brackets] {braces} é 世界\n" * 1500)[:65536]}), "write_file")) + "\nWritten.")
w("phi4-mini", "functools_in_prose", "Import functools and use functools.lru_cache; functools [is not] a call.")
w("granite", "granite4_block", "Granite 4 writes:\n<tool_call>\n" + obj('{"city": "Paris"}') + "\n</tool_call>\nDone.")
w("granite", "granite4_then_3x", "<tool_call>" + obj('{}', "get_time") + "</tool_call>\n<|tool_call|>[" + obj('{"city": "Rome"}') + "]")
w("granite", "granite4_missing_end", "<tool_call>" + obj('{"city": "Lima"}') + "\nThat is all.")
w("granite", "granite4_end_marker_in_string", "<tool_call>" + obj('{"note": "a </tool_call> inside"}', "echo") + "</tool_call>")


# xlam: a JSON list as the whole output, in a ```json fence, or after
# [TOOL_CALLS].
X = "xlam"
def xl(*objs, sep=", "):
    return "[" + sep.join(objs) + "]"
def fence(body):
    return "```json\n" + body + "\n```"
w(X, "whole_output_one_call", xl(obj('{"city": "Seoul", "days": 3}')))
w(X, "whole_output_two_calls", xl(obj('{"city": "Paris"}'), obj('{}', "get_time")))
w(X, "whole_output_after_whitespace", "\n  " + xl(obj('{"city": "Paris"}')) + "\n")
w(X, "whole_output_single_object", obj('{"city": "Lima"}'))
w(X, "whole_output_then_prose", xl(obj('{"city": "Paris"}')) + "\nI asked for the weather.")
w(X, "list_on_lines", "[\n  " + obj('{"city": "Paris"}') + ",\n  " + obj('{"city": "Rome"}') + "\n]")
w(X, "prose_then_list_is_prose", "The list " + xl(obj('{"city": "Paris"}')) + " is only shown.")
w(X, "numbered_prose_at_start", "[1] First point, [2] second point.")
w(X, "fenced_list", "Calling:\n" + fence(xl(obj('{"city": "Paris"}'))) + "\nDone.")
w(X, "fenced_two_blocks", fence(xl(obj('{"city": "Paris"}'))) + "\n" + fence(xl(obj('{}', "get_time"))))
w(X, "fence_other_language_is_prose", "```jsonc\n[1, 2]\n```\nand ```python\nprint(1)\n```")
w(X, "fence_not_closed", fence(xl(obj('{"city": "Oslo"}')))[:-4] + "\nthat was all")
w(X, "tool_calls_token", "Sure. [TOOL_CALLS]" + xl(obj('{"city": "Paris"}')) + " done")
w(X, "tool_calls_token_at_start", "[TOOL_CALLS]" + xl(obj('{"city": "Paris"}'), obj('{}', "get_time")))
w(X, "marker_in_string", xl(obj('{"note": "write ```json and [TOOL_CALLS] and ] literally"}', "echo")))
w(X, "brackets_in_string", xl(obj('{"code": "let x = [1, {}];", "pat": "]]}}[["}', "run")))
w(X, "escaped_quotes_and_unicode", xl(obj(r'{"quote": "she said \"hi\"", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo")))
w(X, "cjk_emoji_combining", fence(xl(obj('{"city": "東京", "mood": "😀🇫🇷"}'))) + "\n完了 ✅")
w(X, "crlf", "```json\r\n" + xl(obj('{"city": "Oslo"}')) + "\r\n```\r\nOk.\r\n")
w(X, "parameters_key", xl('{"name": "get_weather", "parameters": {"city": "Madrid"}}'))
w(X, "arguments_as_string", xl('{"name": "get_weather", "arguments": "{\\"city\\": \\"Kyiv\\"}"}'))
w(X, "object_without_arguments_is_prose", '[{"name": "Paris", "country": "France"}] is a city.')
w(X, "nested_arguments", xl(obj('{"filter": {"and": [{"field": "age", "gt": 18}, {"x": [1, 2.5e3, -0.5, true, false, null]}]}, "limit": 10}', "query")))
w(X, "eof_inside_arguments", '[{"name": "get_weather", "arguments": {"city": "Be')
w(X, "eof_list_unclosed", "[" + obj('{"city": "Paris"}') + ", " + obj('{}', "get_time"))
w(X, "partial_fence_at_eof", "The answer is 42 ```js")
w(X, "malformed_missing_comma", '[{"name": "get_weather", "arguments": {"city": "Paris" "days": 2}}]\nafter')
w(X, "malformed_then_fenced", '[{"name": get_weather}] retry: ' + fence(xl(obj('{"city": "Paris"}'))))
w(X, "unknown_tool", xl(obj('{"q": 1}', "launch_rockets")) + "\n" + fence(xl(obj('{"city": "Nice"}'))), WEATHER_TOOLS)
w(X, "known_tools", xl(obj('{"city": "Nice"}'), obj('{}', "get_time")), WEATHER_TOOLS)
w(X, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + fence(xl(obj('{"city": "Paris"}'))).encode())
w(X, "large_argument_64k", xl(obj(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum, \"quoted\" [brackets] {braces} ``` é 世界\n" * 1500)[:65536]}), "write_file")))


# llama3-json: Llama 3.1-3.3 custom tools.
L = "llama3-json"
def lc(args_json, name="get_weather"):
    return '{"name": "%s", "parameters": %s}' % (name, args_json)
PT = "<|python_tag|>"
w(L, "whole_output_call", lc('{"city": "Seoul", "days": 3}'))
w(L, "whole_output_eot", lc('{"city": "Paris"}') + "<|eot_id|>")
w(L, "whole_output_eom", lc('{"city": "Paris"}') + "<|eom_id|>")
w(L, "whole_output_semicolons", lc('{"city": "Paris"}') + "; " + lc('{}', "get_time"))
w(L, "whole_output_after_whitespace", "\n\n" + lc('{"city": "Paris"}'))
w(L, "whole_output_then_prose", lc('{"city": "Paris"}') + "\nI asked for the weather.")
w(L, "arguments_key", '{"name": "get_weather", "arguments": {"city": "Rome"}}')
w(L, "name_after_parameters", '{"parameters": {"city": "Berlin", "days": 2}, "name": "get_weather"}')
w(L, "no_parameters_is_prose", '{"name": "Paris", "country": "France"} is a city.')
w(L, "prose_then_json_is_prose", 'The call ' + lc('{"city": "Paris"}') + ' is only shown.')
w(L, "python_tag_call", "Sure. " + PT + lc('{"city": "Paris"}') + "<|eom_id|>")
w(L, "python_tag_two_calls", PT + lc('{"city": "Paris"}') + "; " + lc('{"city": "Rome"}'))
w(L, "python_tag_then_prose", PT + lc('{"city": "Paris"}') + " and more text")
w(L, "python_tag_builtin_code", PT + 'brave_search.call(query="weather in Paris")<|eom_id|>')
w(L, "python_tag_code_interpreter", PT + "import math\nprint(math.sqrt(2))<|eom_id|>")
w(L, "eot_after_text_is_text", "The weather is fine.<|eot_id|>")
w(L, "closer_cut_at_eof", PT + lc('{}', "get_time") + "<|eo")
w(L, "closer_lookalike", PT + lc('{}', "get_time") + "<|eox|> rest")
w(L, "marker_in_string", lc('{"note": "write <|python_tag|> and <|eom_id|> literally"}', "echo"))
w(L, "escaped_quotes_and_unicode", lc(r'{"quote": "she said \"hi\"", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo"))
w(L, "cjk_emoji_combining", "天気 👋🏽 " + PT + lc('{"city": "東京", "mood": "😀🇫🇷"}') + "\n完了 ✅")
w(L, "crlf", "\r\n" + lc('{"city": "Oslo"}') + "\r\n")
w(L, "parameters_as_string", '{"name": "get_weather", "parameters": "{\\"city\\": \\"Kyiv\\"}"}')
w(L, "nested_parameters", lc('{"filter": {"and": [{"field": "age", "gt": 18}, {"x": [1, 2.5e3, -0.5, true, false, null]}]}, "limit": 10}', "query"))
w(L, "eof_inside_parameters", '{"name": "get_weather", "parameters": {"city": "Be')
w(L, "eof_after_python_tag", "Sure " + PT)
w(L, "partial_python_tag_at_eof", "The answer is 42 <|python_t")
w(L, "malformed_missing_comma", PT + '{"name": "get_weather", "parameters": {"city": "Paris" "days": 2}}\nafter')
w(L, "unknown_tool", lc('{"q": 1}', "launch_rockets"), WEATHER_TOOLS)
w(L, "known_tools", lc('{"city": "Nice"}') + ";" + lc('{}', "get_time"), WEATHER_TOOLS)
w(L, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + (PT + lc('{"city": "Paris"}')).encode())
w(L, "large_argument_64k", PT + lc(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum, \"quoted\" {braces} <|eom_id|> é 世界\n" * 1500)[:65536]}), "write_file"))


# mistral: v11+ [TOOL_CALLS]NAME[ARGS]{...}, v13 [CALL_ID], pre-v11 arrays.
M = "mistral"
def mc(args_json, name="get_weather", call_id=None):
    cid = "[CALL_ID]%s" % call_id if call_id is not None else ""
    return "[TOOL_CALLS]%s%s[ARGS]%s" % (name, cid, args_json)
def mlist(*objs):
    return "[TOOL_CALLS][" + ", ".join(objs) + "]"
w(M, "v11_call", mc('{"city": "Paris"}'))
w(M, "v11_prose_call", "Let me check the weather.\n" + mc('{"city": "Paris", "days": 3}'))
w(M, "v11_parallel", mc('{"city": "Paris"}') + mc('{}', "get_time"))
w(M, "v11_then_eos", mc('{"city": "Paris"}') + "</s>")
w(M, "v11_then_prose", mc('{"city": "Paris"}') + " I asked for the weather.")
w(M, "v11_whitespace_around", "[TOOL_CALLS] get_weather [ARGS] {\"city\": \"Oslo\"}\n")
w(M, "v13_call_id", mc('{"city": "Paris"}', call_id="a1B2c3D4e"))
w(M, "v13_parallel_ids", mc('{"city": "Paris"}', call_id="abc123def") + mc('{}', "get_time", call_id="xyz987uvw"))
w(M, "v13_call_id_cut_at_eof", "[TOOL_CALLS]get_weather[CALL_")
w(M, "v13_bad_token_after_id", "[TOOL_CALLS]get_weather[CALL_ID]abc[ARXS]{} after")
w(M, "pre_v11_list", mlist('{"name": "get_weather", "arguments": {"city": "Paris"}}'))
w(M, "pre_v11_list_with_ids", "Sure. " + mlist('{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "ab12CD34e"}', '{"name": "get_time", "arguments": {}, "id": "zz99YY88x"}'))
w(M, "pre_v11_space_before_list", '[TOOL_CALLS] [{"name": "get_time", "arguments": {}}]')
w(M, "pre_v11_single_object", '[TOOL_CALLS]{"name": "get_weather", "arguments": {"city": "Rome"}}')
w(M, "marker_in_string", mc('{"note": "write [TOOL_CALLS]x[ARGS]{} literally"}', "echo"))
w(M, "args_token_in_prose", "Use [ARGS] and [CALL_ID] freely; [TOOL_CALL] is not a marker.")
w(M, "partial_marker_at_eof", "The answer is 42 [TOOL_CA")
w(M, "eof_after_marker", "Sure [TOOL_CALLS]")
w(M, "eof_inside_name", "[TOOL_CALLS]get_wea")
w(M, "eof_inside_arguments", mc('{"city": "Be'))
w(M, "missing_args_token", "[TOOL_CALLS]get_weather{\"city\": \"Paris\"} after")
w(M, "name_with_space", "[TOOL_CALLS]get weather[ARGS]{} after")
w(M, "args_not_object", "[TOOL_CALLS]get_weather[ARGS][1, 2] after")
w(M, "malformed_arguments", mc('{"city": "Paris" "days": 2}') + "\nafter")
w(M, "escaped_quotes_and_unicode", mc(r'{"quote": "she said \"hi\"", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo"))
w(M, "cjk_emoji_combining", "天気 👋🏽 " + mc('{"city": "東京", "mood": "😀🇫🇷", "accent": "e\u0301"}') + "\n完了 ✅")
w(M, "nested_arguments", mc('{"filter": {"and": [{"field": "age", "gt": 18}, {"x": [1, 2.5e3, -0.5, true, false, null]}]}, "limit": 10}', "query"))
w(M, "crlf", "Checking.\r\n" + mc('{\r\n "city": "Oslo"\r\n}') + "\r\n")
w(M, "unknown_tool", mc('{"q": 1}', "launch_rockets") + mc('{"city": "Nice"}'), WEATHER_TOOLS)
w(M, "known_tools", mc('{"city": "Nice"}', call_id="n1") + mc('{}', "get_time"), WEATHER_TOOLS)
w(M, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + mc('{"city": "Paris"}').encode())
w(M, "large_argument_64k", mc(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum, \"quoted\" {braces} [TOOL_CALLS] [ARGS] é 世界\n" * 1500)[:65536]}), "write_file"))
def w_tags(fmt, name, text, start, end, open_=False):
    w(fmt, name, text, WEATHER_TOOLS)
    cfg = {"start": start, "end": end, "startsOpen": open_, "callsInside": False}
    open(f"testdata/{fmt}/{name}.reasoning.json", "w").write(json.dumps(cfg) + "\n")
w_tags(M, "magistral_think_then_call", "[THINK]The user wants Paris weather; [TOOL_CALLS] comes next.[/THINK]" + mc('{"city": "Paris"}'), "[THINK]", "[/THINK]")


# cohere: Command R7B / A.
C = "cohere"
def cc(args_json, name="get_weather", cid="0"):
    return '{"tool_call_id": "%s", "tool_name": "%s", "parameters": %s}' % (cid, name, args_json)
def cact(*objs):
    return "<|START_ACTION|>[\n    " + ",\n    ".join(objs) + "\n]<|END_ACTION|>"
RS, RE = "<|START_RESPONSE|>", "<|END_RESPONSE|>"
w(C, "action_one_call", cact(cc('{"city": "Paris"}')))
w(C, "action_two_calls", cact(cc('{"city": "Paris"}'), cc('{}', "get_time", "1")))
w(C, "response_only", RS + "It is sunny in Paris." + RE)
w(C, "response_then_action", RS + "Let me check." + RE + cact(cc('{"city": "Paris"}')))
w(C, "action_then_response", cact(cc('{"city": "Paris"}')) + RS + "Checking now." + RE)
w(C, "thinking_then_action", "<|START_THINKING|>The user wants the weather.<|END_THINKING|>" + cact(cc('{"city": "Paris"}')))
w(C, "name_before_id", '<|START_ACTION|>[{"tool_name": "get_weather", "parameters": {"city": "Rome"}, "tool_call_id": "7"}]<|END_ACTION|>')
w(C, "without_ids", '<|START_ACTION|>[{"tool_name": "get_time", "parameters": {}}]<|END_ACTION|>')
w(C, "single_object_not_list", "<|START_ACTION|>" + cc('{"city": "Oslo"}') + "<|END_ACTION|>")
w(C, "numeric_id_ignored", '<|START_ACTION|>[{"tool_call_id": 3, "tool_name": "get_time", "parameters": {}}]<|END_ACTION|>')
w(C, "prose_without_markup", "Plain text with no markup at all.")
w(C, "markup_lookalikes", "<|START_RESPONSE> and <|END_ACTION|> stray, <|START_ACTIONS|> too.")
w(C, "partial_marker_at_eof", "Answer: 42 <|START_RESP")
w(C, "response_unclosed", RS + "The stream stops here")
w(C, "end_marker_in_string", cact(cc('{"note": "write <|END_ACTION|> and <|START_RESPONSE|> literally"}', "echo")))
w(C, "eof_inside_parameters", '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Be')
w(C, "eof_after_list_no_end", cact(cc('{}', "get_time"))[:-len("<|END_ACTION|>")])
w(C, "malformed_parameters", "<|START_ACTION|>[" + cc('{"city": "Paris" "days": 2}') + "]<|END_ACTION|>after")
w(C, "escaped_quotes_and_unicode", cact(cc(r'{"quote": "she said \"hi\"", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo")))
w(C, "cjk_emoji_combining", RS + "天気 👋🏽" + RE + cact(cc('{"city": "東京", "mood": "😀🇫🇷"}')))
w(C, "nested_parameters", cact(cc('{"filter": {"and": [{"field": "age", "gt": 18}, {"x": [1, 2.5e3, -0.5, true, false, null]}]}, "limit": 10}', "query")))
w(C, "crlf", "<|START_ACTION|>[\r\n    " + cc('{"city": "Oslo"}') + "\r\n]<|END_ACTION|>\r\n")
w(C, "unknown_tool", cact(cc('{"q": 1}', "launch_rockets"), cc('{"city": "Nice"}', cid="1")), WEATHER_TOOLS)
w(C, "known_tools", cact(cc('{"city": "Nice"}'), cc('{}', "get_time", "1")), WEATHER_TOOLS)
w(C, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + cact(cc('{"city": "Paris"}')).encode())
# Command A Plus and Command 4 write their answer between <|START_TEXT|> and <|END_TEXT|>.
TS, TE = "<|START_TEXT|>", "<|END_TEXT|>"
w(C, "text_then_action", TS + "Let me check." + TE + cact(cc('{"city": "Paris"}')))
w(C, "thinking_action_then_text", "<|START_THINKING|>Paris weather.<|END_THINKING|>" + cact(cc('{"city": "Paris"}')) + "\n" + TS + "It is sunny." + TE)
w(C, "response_action_text", RS + "I'll help with that." + RE + "\n" + cact(cc('{}', "get_time")) + "\n" + TS + "Here's some follow-up text." + TE)
w(C, "text_lookalikes", "<|START_TEXT> and <|END_TEXTS|> stray, <|START_TEX")
w(C, "large_argument_64k", cact(cc(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum, \"quoted\" {braces} <|END_ACTION|> é 世界\n" * 1500)[:65536]}), "write_file")))
w_tags(C, "command_a_reasoning", "<|START_THINKING|>Paris, surely. <|START_ACTION|> later.<|END_THINKING|>" + cact(cc('{"city": "Paris"}')) , "<|START_THINKING|>", "<|END_THINKING|>")
w_tags(C, "command_a_reasoning_then_response", "<|START_THINKING|>No tool needed.<|END_THINKING|>" + RS + "Hello!" + RE, "<|START_THINKING|>", "<|END_THINKING|>")


# harmony: gpt-oss.
G = "harmony"
AN = "<|channel|>analysis<|message|>"
def hc(args_json, name="get_weather", start=True, constrain=True):
    head = "<|start|>assistant" if start else ""
    c = " <|constrain|>json" if constrain else ""
    return "%s<|channel|>commentary to=functions.%s%s<|message|>%s<|call|>" % (head, name, c, args_json)
def final(text, end="<|return|>"):
    return "<|start|>assistant<|channel|>final<|message|>" + text + end
w(G, "analysis_then_call", AN + "The user wants the weather in Paris. Call get_weather.<|end|>" + hc('{"city":"Paris"}'))
w(G, "analysis_then_final", AN + "Simple greeting; no tool.<|end|>" + final("Hello! How can I help?"))
w(G, "call_without_start", hc('{"city":"Paris"}', start=False))
w(G, "call_without_constrain", hc('{"city":"Rome"}', constrain=False))
w(G, "recipient_in_start_header", '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Oslo"}<|call|>')
w(G, "two_calls", AN + "Both.<|end|>" + hc('{"city":"Paris"}') + hc('{}', "get_time"))
w(G, "commentary_preamble_then_call", "<|channel|>commentary<|message|>Let me check the weather.<|end|>" + hc('{"city":"Paris"}'))
w(G, "final_with_end_token", final("It is sunny.", "<|end|>"))
w(G, "final_unterminated", AN + "ok<|end|>" + final("The stream stops", ""))
w(G, "plain_text_only", "No harmony markup here at all.")
w(G, "call_end_by_end_token", hc('{"city":"Paris"}')[:-len("<|call|>")] + "<|end|>")
w(G, "call_missing_end_at_eof", hc('{"city":"Paris"}')[:-len("<|call|>")])
w(G, "call_then_next_message", hc('{"city":"Paris"}')[:-len("<|call|>")] + final("Done."))
w(G, "call_then_junk", hc('{}', "get_time")[:-len("<|call|>")] + " trailing words")
w(G, "eof_inside_header", "<|start|>assistant<|channel|>commentary to=functions.get_wea")
w(G, "eof_inside_arguments", '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Be')
w(G, "analysis_unclosed", AN + "Thinking without end, 天気")
w(G, "arguments_not_json", "<|channel|>commentary to=python<|message|>print(1+1)<|call|> after")
w(G, "builtin_browser_recipient", '<|channel|>commentary to=browser.search <|constrain|>json<|message|>{"query": "weather Paris"}<|call|>')
w(G, "marker_in_string", hc('{"note": "write <|call|> and <|end|> literally"}', "echo"))
w(G, "token_lookalikes", "Text with <|channel|> alone, <|channel|>finale, <|start|> and <|endx|>.")
w(G, "letter_then_message", "t<|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>")
w(G, "header_cut_by_next_message", "<|channel|>commentary to=functions.get_weather <|start|>assistant<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>")
w(G, "partial_token_at_eof", "Answer 42 <|chan")
w(G, "header_too_long", "<|channel|>commentary " + "x" * 300 + "<|message|>{}<|call|>")
w(G, "malformed_arguments", hc('{"city": "Paris" "days": 2}') + " after")
w(G, "escaped_quotes_and_unicode", hc(r'{"quote": "she said \"hi\"", "city": "Z\u00fcrich", "emoji": "\ud83d\ude00"}', "echo"))
w(G, "cjk_emoji_combining", AN + "天気 👋🏽<|end|>" + hc('{"city": "東京", "mood": "😀🇫🇷"}'))
w(G, "nested_arguments", hc('{"filter": {"and": [{"field": "age", "gt": 18}, {"x": [1, 2.5e3, -0.5, true, false, null]}]}, "limit": 10}', "query"))
w(G, "crlf_in_arguments", hc('{\r\n  "city": "Oslo"\r\n}'))
w(G, "unknown_tool", hc('{"q": 1}', "launch_rockets") + hc('{"city": "Nice"}'), WEATHER_TOOLS)
w(G, "known_tools", hc('{"city": "Nice"}') + hc('{}', "get_time"), WEATHER_TOOLS)
w(G, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + hc('{"city": "Paris"}').encode())
w(G, "large_argument_64k", hc(json.dumps(ensure_ascii=False, obj={"path": "big.txt", "content": ("lorem ipsum, \"quoted\" {braces} <|call|> é 世界\n" * 1500)[:65536]}), "write_file"))
w_tags(G, "think_tags_instead", "<think>Other tags</think>" + hc('{"city":"Paris"}'), "<think>", "</think>")


# pythonic: Llama 3.2 / 4, Olmo 3, ToolACE.
P = "pythonic"
PS, PE = "<|python_start|>", "<|python_end|>"
TQ = "'" * 3
w(P, "one_call", '[get_weather(city="Paris", days=3)]')
w(P, "two_calls", '[get_weather(city="Paris"), get_time()]')
w(P, "single_quotes_and_escapes", r"[echo(text='it\'s \"quoted\"\n\ttab', path='C:\\temp', u='\u00e9\x41')]")
w(P, "python_literals", "[configure(on=True, off=False, nothing=None, n=-42, big=123456789012345678901234567890, f=2.5e-3, half=.5)]")
w(P, "nested_values", "[query(filter={'and': [{'field': 'age', 'gt': 18}, {'x': (1, 2.5, None)}]}, limit=10)]")
w(P, "json_style_values", '[query(filter={"a": [true, false, null]})]')
w(P, "whitespace_and_newlines", "\n[\n  get_weather( city = 'Oslo' ,\n    days = 2 , ) ,\n  get_time( )\n]\n")
w(P, "trailing_comma_in_list", "[get_time(),]")
w(P, "then_prose", '[get_weather(city="Paris")] I asked for the weather.')
w(P, "prose_list_is_prose", "[see the docs] for details.")
w(P, "numbers_list_is_prose", "[1, 2, 3] are numbers.")
w(P, "prose_then_list_is_prose", 'Call [get_weather(city="Paris")] later.')
w(P, "markdown_link_is_prose", "[Paris](https://en.wikipedia.org/wiki/Paris) is a city.")
w(P, "llama4_python_start", "Let me check. " + PS + '[get_weather(city="Paris")]' + PE + " Done.")
w(P, "llama4_without_end", PS + "[get_time()] and then text")
w(P, "llama4_end_cut_at_eof", PS + "[get_time()]<|python_e")
w(P, "brackets_in_strings", "[run(code='f(x)[0], {a: b}', pat=\"])\")]")
w(P, "triple_quoted", "[write(text=" + TQ + "line one\nline 'two' " + TQ + ")]")
w(P, "positional_argument", '[get_weather("Paris")] after')
w(P, "not_a_literal", "[get_weather(city=paris_var)] after")
w(P, "eof_inside_value", '[get_weather(city="Pa')
w(P, "eof_after_call", '[get_weather(city="Paris")')
w(P, "eof_after_open", "[")
w(P, "unknown_tool", '[launch_rockets(q=1), get_weather(city="Nice")]', WEATHER_TOOLS)
w(P, "known_tools", '[get_weather(city="Nice"), get_time()]', WEATHER_TOOLS)
# Each call of a list stands or falls alone (as in the XML blocks): one
# that cannot be delivered comes back as text, up to its `)`, and the
# others are delivered.
w(P, "bad_call_then_good", PS + "[bad(x=b'z'), get_weather(city='LA')]" + PE)
w(P, "bad_call_between_good", PS + "[get_weather(city='LA'), bad(x=b'z', y=')', z=[1, (2)]), get_time()]" + PE + " after")
w(P, "bad_call_last", "[get_weather(city='LA'), bad(x=b'z')] after")
w(P, "bad_call_eof", PS + "[get_time(), bad(x=b'z', y='open")
w(P, "float_out_of_range", PS + "[calc(x=1e999), calc(x=1e308, n=100000000000000000000000000000)]" + PE)
w(P, "cjk_emoji_combining", "[get_weather(city='東京', mood='😀🇫🇷', accent='e\u0301')]")
w(P, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + (PS + "[get_time()]" + PE).encode())
w(P, "deep_nesting", "[f(x=" + "[" * 200 + "]" * 200 + ")]")
w(P, "large_argument_64k", "[write_file(path='big.txt', content=" + json.dumps(("lorem ipsum, 'quoted' [brackets] (parens) é 世界\n" * 1500)[:65536], ensure_ascii=False) + ")]")

def gemma_cases(fmt, call, Q):
    """The cases Gemma 4 and FunctionGemma share: `call` writes a call of
    the format, `Q` is its string quote."""
    w(fmt, "one_call", call("city:" + Q + "Paris" + Q + ",days:3"))
    w(fmt, "prose_call_prose", "Let me check.\n" + call("city:" + Q + "Paris" + Q) + "\nDone.")
    w(fmt, "empty_arguments", call("", "get_time"))
    w(fmt, "all_value_kinds", call("s:" + Q + "text" + Q + ",n:-3.5e2,b:true,f:false,z:null,xs:[1," + Q + "two" + Q + ",[3]],o:{k:" + Q + "v" + Q + "}", "configure"))
    w(fmt, "quotes_and_braces_in_string", call("code:" + Q + 'fn main() { let s = "x"; }, [a] : b' + Q, "run"))
    # Without its quotes, a value that spells no literal is read as a
    # string (as vLLM's and SGLang's parsers read it); a value that is no
    # Gemma value at all gives the call back.
    w(fmt, "bare_value_without_tools", call("city:Paris") + " after")
    w(fmt, "bad_value", call("o:{a b}") + " after")
    w(fmt, "unclosed_string_delimiter", call("city:" + Q + "Paris") + " after")
    w(fmt, "cjk_emoji_combining", "天気 👋🏽 " + call("city:" + Q + "東京" + Q + ",mood:" + Q + "😀🇫🇷" + Q))
    w(fmt, "nested_arguments", call("filter:{and:[{field:" + Q + "age" + Q + ",gt:18},{x:[1,2.5e3,-0.5,true,false,null]}]},limit:10", "query"))
    w(fmt, "crlf", "Checking.\r\n" + call("city:" + Q + "Oslo" + Q) + "\r\n")
    w(fmt, "unknown_tool", call("q:1", "launch_rockets") + call("city:" + Q + "Nice" + Q), WEATHER_TOOLS)
    w(fmt, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + call("city:" + Q + "Paris" + Q).encode())


def gemma_marker_cases(fmt, start, end, Q, cut_start, cut_end):
    """The cases about the markers, `start` and `end`, cut short as
    `cut_start` and `cut_end`."""
    w(fmt, "whitespace_around", start + "call:get_weather{ city : " + Q + "Oslo" + Q + " , days : 2 }\n" + end)
    w(fmt, "missing_end_then_prose", start + "call:get_time{} and more")
    w(fmt, "missing_end_at_eof", start + "call:get_time{}")
    w(fmt, "end_cut_at_eof", start + "call:get_time{}" + cut_end)
    w(fmt, "eof_inside_string", start + "call:get_weather{city:" + Q + "Par")
    w(fmt, "eof_after_marker", "Sure " + start)
    w(fmt, "partial_marker_at_eof", "The answer is 42 " + cut_start)

# gemma4: Gemma 4.
G4 = "gemma4"
Q = '<|"|>'
def g4(args, name="get_weather"):
    return "<|tool_call>call:%s{%s}<tool_call|>" % (name, args)
gemma_cases(G4, g4, Q)
gemma_marker_cases(G4, "<|tool_call>", "<tool_call|>", Q, "<|tool_ca", "<tool_ca")
w(G4, "two_calls", g4("city:" + Q + "Paris" + Q) + g4("", "get_time"))
w(G4, "end_token_in_string", g4("note:" + Q + "write <tool_call|> and <|tool_call> literally" + Q, "echo"))
# A string read whole in one chunk and byte by byte: every byte JSON
# escapes, and `<` that begins no closing quote (`<|`, `<|"`, `<<|"|>`).
w(G4, "string_escapes_and_lookalikes", "Run it.\n" + g4("code:" + Q + 'a\tb\x01c\\d"e\n<|f <|"g 世界 \x7f<' + Q + ",n:1", "run") + "\nDone.")
w(G4, "no_call_prefix", "<|tool_call>get_time{}<tool_call|> after")
w(G4, "marker_lookalikes", "<tool_call> and <|tool_calls> and <|tool|> are prose.")
w(G4, "known_tools", g4("city:" + Q + "Nice" + Q) + g4("", "get_time"), WEATHER_TOOLS)
w(G4, "large_argument_64k", g4("path:" + Q + "big.txt" + Q + ",content:" + Q + ("lorem ipsum, \"quoted\" {braces} [x] é 世界\n" * 1500)[:65536] + Q, "write_file"))

# function-gemma: FunctionGemma, Gemma 4's braces with `<escape>` quotes.
FG = "function-gemma"
E = "<escape>"
def fg(args, name="get_weather"):
    return "<start_function_call>call:%s{%s}<end_function_call>" % (name, args)
gemma_cases(FG, fg, E)
gemma_marker_cases(FG, "<start_function_call>", "<end_function_call>", E, "<start_function_ca", "<end_func")
w(FG, "parallel_calls", fg("city:" + E + "Paris" + E) + fg("tz:" + E + "CET" + E, "get_time"))
w(FG, "end_token_in_string", fg("note:" + E + "write <end_function_call> and <start_function_call> literally" + E, "echo"))
# `<` that begins no quote (`<esc`, `<escape`, `<<escape>`) is text.
w(FG, "string_escapes_and_lookalikes", "Run it.\n" + fg("code:" + E + 'a\tb\x01c\\d"e\n<esc <escape <e 世界 \x7f<' + E + ",n:1", "run") + "\nDone.")
w(FG, "turn_end_after_arguments", "Checking. <start_function_call>call:get_time{}<end_of_turn>")
w(FG, "marker_lookalikes", "<start_function_declaration> and <start_function> and <end_function_call> are prose.")
w(FG, "gemma4_tokens_are_prose", '<|tool_call>call:get_time{}<tool_call|> is Gemma 4, not this model.')
w(FG, "bare_string_by_schema", fg("city:Paris,days:3") + " after", WEATHER_TOOLS)
w(FG, "quoted_number_by_schema", fg("city:" + E + "Paris" + E + ",days:" + E + "3" + E), WEATHER_TOOLS)
# Quoted scalars are JSON where no schema says string (as vLLM reads
# them); a number no double holds, a zero-padded one and text stay strings.
w(FG, "quoted_scalars_without_tools", fg("query:" + E + "python" + E + ",limit:" + E + "10" + E + ",on:" + E + "true" + E + ",none:" + E + "null" + E + ",n:" + E + " -2.5e3 " + E + ",zip:" + E + "007" + E + ",big:" + E + "1e999" + E + ",t:" + E + "True" + E, "search"))
w(FG, "quoted_scalar_where_schema_says_string", fg("city:" + E + "75001" + E + ",days:" + E + "3" + E), WEATHER_TOOLS)
w(FG, "large_argument_64k", fg("path:" + E + "big.txt" + E + ",content:" + E + ("lorem ipsum, \"quoted\" {braces} [x] é 世界 <b>\n" * 1500)[:65536] + E, "write_file"))

# lfm2: LFM2 / LFM2.5, a Python list between its two tokens.
LF = "lfm2"
LS, LE = "<|tool_call_start|>", "<|tool_call_end|>"
def lf(body):
    return LS + body + LE
w(LF, "one_call", lf('[get_weather(city="Paris", days=3)]'))
w(LF, "prose_call_prose", "Let me check." + lf('[get_weather(city="Paris")]') + "It is sunny in Paris.")
w(LF, "two_calls", lf("[get_weather(city='Paris'), get_time(tz=\"CET\")]"))
w(LF, "two_blocks", lf('[get_weather(city="Paris")]') + "\n" + lf("[get_time()]"))
w(LF, "python_literals", lf("[configure(on=True, off=False, nothing=None, n=-42, big=123456789012345678901234567890, f=2.5e-3, xs=(1, 'two'), o={'k': [None]})]"))
w(LF, "escapes_and_end_token_in_string", lf(r"[echo(text='it\'s <|tool_call_end|> \"quoted\"\n\ttab', path='C:\\temp')]"))
w(LF, "whitespace_and_newlines", LS + "\n[\n  get_weather( city = 'Oslo' ,\n    days = 2 , ) ]\n" + LE)
w(LF, "missing_end_at_eof", LS + '[get_weather(city="Paris")]')
w(LF, "missing_end_then_prose", LS + '[get_weather(city="Paris")] and more')
w(LF, "end_cut_at_eof", LS + "[get_time()]<|tool_call_e")
w(LF, "eof_inside_string", LS + '[get_weather(city="Par')
w(LF, "eof_after_marker", "Sure " + LS)
w(LF, "partial_marker_at_eof", "The answer is 42 <|tool_call_st")
w(LF, "not_a_list", LS + "get_weather(city='Paris')" + LE + " after")
w(LF, "bare_list_is_prose", '[get_weather(city="Paris")] is how I would call it.')
w(LF, "unescaped_quotes_in_string", lf("[bash(command='sed -n '360,450p' /testbed/sympy/matrices/common.py')]"))
w(LF, "unescaped_quotes_then_strings", lf("[bash(command='sed -n '360,450p' f.py', n=1), echo(text=\"say \"hi\" now\", t='a' 'b')]"))
w(LF, "set_and_zero_padded_ints", lf("[label(tags={'urgent', 'bug'}), set_date(month=07, day=05)]"))
w(LF, "marker_lookalikes", "<|tool_call|> and <|tool_list_start|> and <tool_call> are prose.")
w(LF, "unknown_tool", lf("[launch_rockets(n=3), get_weather(city='Nice')]"), WEATHER_TOOLS)
w(LF, "cjk_emoji_combining", "天気 👋🏽 " + lf("[get_weather(city='東京', mood='😀🇫🇷', accent='e\u0301')]"))
w(LF, "invalid_utf8_prose", b"caf\xc3 ok \xff\xfe end " + lf("[get_time()]").encode())
w(LF, "large_argument_64k", lf("[write_file(path='big.txt', content=" + json.dumps(("lorem ipsum, 'quoted' [brackets] (parens) é 世界 <|x|>\n" * 1500)[:65536], ensure_ascii=False) + ")]"))

def wr(fmt, name, text, open_=False, calls_inside=False, ends_at_calls=False):
    w(fmt, name, text, WEATHER_TOOLS)
    cfg = {"start": "<think>", "end": "</think>", "startsOpen": open_, "callsInside": calls_inside}
    if ends_at_calls:
        cfg["endsAtCalls"] = True
    open(f"testdata/{fmt}/{name}.reasoning.json", "w").write(json.dumps(cfg) + "\n")

PARIS = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "gemma": '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
    "qwen3-coder": "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
    "minimax-m2": '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n</invoke>\n</minimax:tool_call>',
    "glm": "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
    "morph-xml": "<get_weather>\n<city>Paris</city>\n</get_weather>",
    "llama3-json": '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "xlam": '```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```',
    "phi4-mini": 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "granite": '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "deepseek-v3.1": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek-v3": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    "deepseek-v3.2": '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n<｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>',
    "mistral": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    "cohere": '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>',
    "gemma4": '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>',
    "pythonic": '<|python_start|>[get_weather(city="Paris")]<|python_end|>',
    "harmony": '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
    "kimi-k2": '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>',
    "seed-oss": "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
    "lfm2": '<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>',
    "function-gemma": "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
    "kimi-k3": '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
}
for fmt, call in PARIS.items():
    wr(fmt, "reasoning_think_then_call", "<think>\nThe user wants the weather in Paris; call the tool.\n</think>\n\n" + call)
    wr(fmt, "reasoning_call_then_think", call + "\n<think>It is sunny there; answer now.</think>\nIt is sunny in Paris.")
    wr(fmt, "reasoning_unclosed", "<think>\nThe user wants the weather. Maybe Paris, maybe 東京")
    wr(fmt, "reasoning_inside_prose", "Let me think. <think>Paris, surely.</think> Checking: " + call + " done")
    wr(fmt, "reasoning_open_then_call", "The template opened the reasoning; Paris it is.\n</think>\n\n" + call, open_=True)
    wr(fmt, "reasoning_open_unclosed", "Thinking without end, 天気", open_=True)
    wr(fmt, "reasoning_open_tag_written", "<think>\nThe template left the tag to the model.\n</think>\n\n" + call, open_=True)
    wr(fmt, "reasoning_open_tag_after_blank_line", "\n\n<think>\nThe model wrote the tag after a blank line.\n</think>\n\n" + call, open_=True)
    wr(fmt, "reasoning_ended_by_call", "Paris, so the tool." + call + " Asked.", open_=True, ends_at_calls=True)
    wr(fmt, "reasoning_ended_by_call_then_end_tag", "<think>Call first " + call + " then</think> text.", open_=True, ends_at_calls=True)
    wr(fmt, "reasoning_open_ends_at_once", "</think>" + call + " Done.", open_=True)
    wr(fmt, "reasoning_open_tag_lookalike", "<thinking> is reasoning here, as is <think> now.</think>" + call, open_=True)
    wr(fmt, "reasoning_call_inside_is_reasoning", "<think>I could write " + call + " but not yet.</think>\nNo call made.")
    wr(fmt, "reasoning_call_inside_delivered", "<think>Calling now: " + call + " then more thought.</think>Done.", calls_inside=True)
    wr(fmt, "reasoning_empty_then_call", "<think></think>" + call)
    wr(fmt, "reasoning_lookalike_tags", "<thinking> and <think_x> are prose; so is a stray </think>. <think>real</think>" + call)
    wr(fmt, "reasoning_two_parts", "<think>first</think>text<think>second, with a partial </thi tag</think>" + call)
    wr(fmt, "reasoning_open_call_inside_delivered", "Call first: " + call + " and keep thinking</think>Answer.", open_=True, calls_inside=True)

# A bare call may open the answer after the reasoning that opened the
# output, as it may open an output without reasoning; after text it is
# text, as anywhere else.
BARE = {
    "xlam": '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    "llama3-json": '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "pythonic": "[get_weather(city='Paris')]",
}
for fmt, call in BARE.items():
    wr(fmt, "reasoning_then_bare_call", "<think>Paris, so the tool.</think>" + call)
    wr(fmt, "reasoning_blank_then_bare_call", "\n<think>\nParis, so the tool.\n</think>\n\n" + call + " Asked.")
    wr(fmt, "reasoning_open_then_bare_call", "Paris, so the tool.\n</think>\n\n" + call, open_=True)
    wr(fmt, "reasoning_after_text_then_bare_call_is_text", "Sure. <think>Paris.</think>" + call)

# What real models write, beyond the peers' suites.
FC = '<function_call> {"name": "%s", "arguments": %s}'
w("granite", "fc20b_one_call", FC % ("get_weather", '{"city": "Tokyo"}'))
w("granite", "fc20b_calls_in_a_row", FC % ("get_weather", '{"city": "Tokyo"}') + "\n" + FC % ("get_time", "{}") + " " + FC % ("get_weather", '{"city": "Lima", "days": 2}'))
w("granite", "fc20b_prose_then_calls", "I will look both up.\n\n" + FC % ("get_weather", '{"city": "Tokyo"}') + "\n" + FC % ("get_time", "{}"))
w("granite", "fc20b_marker_in_prose", "Write <function_call> before a call, like <function_call>{\"name\": \"get_time\", \"arguments\": {}} and that is all.")
w("granite", "fc20b_eof_inside_arguments", FC % ("get_weather", '{"city": "To'))
w("gemma4", "thinking_then_call", "<|channel>thought\nThe user wants Paris; call get_weather.<channel|>" + g4("city:" + Q + "Paris" + Q))
w("gemma4", "thinking_unclosed", "<|channel>thought\nStill weighing Paris against 東京")
w("gemma4", "thinking_lookalikes", "<|channel> and <channel|> alone, or <channel>thought, are prose.")

L3 = '{"name": "%s", "parameters": %s}'
w("llama3-json", "lines_two_calls", L3 % ("get_weather", '{"city": "Paris"}') + "\n" + L3 % ("get_time", "{}"))
w("llama3-json", "lines_three_calls_crlf_blank", L3 % ("get_weather", '{"city": "Paris"}') + "\r\n\r\n" + L3 % ("get_time", "{}") + "\n" + L3 % ("get_weather", '{"city": "Rome"}') + "<|eot_id|>")
w("llama3-json", "lines_then_prose", L3 % ("get_weather", '{"city": "Paris"}') + "\n" + L3 % ("get_time", "{}") + "\nBoth asked.")
w("llama3-json", "semicolon_newline", L3 % ("get_weather", '{"city": "Paris"}') + ";\n" + L3 % ("get_time", "{}"))
w("llama3-json", "call_then_prose_same_line", L3 % ("get_time", '{"tz": "UTC"}') + " is the JSON I would send — shall I?")
w("llama3-json", "call_then_punctuation", L3 % ("get_time", '{"tz": "UTC"}') + ", for example.")
w("llama3-json", "call_then_braces_in_prose", L3 % ("get_time", '{"tz": "UTC"}') + " I used {get_time} for this.")
w("llama3-json", "call_then_json_in_prose", L3 % ("get_time", '{"tz": "UTC"}') + ' The arguments I passed were {"tz": "UTC"}')
w("llama3-json", "call_then_eom", L3 % ("get_time", '{"tz": "UTC"}') + "<|eom_id|>")
w("llama3-json", "second_line_not_a_call", L3 % ("get_time", "{}") + '\n{"note": "not a call"}')

# A number no double holds (`1e999`) is no JSON a reader takes: such a
# value stays the string the model wrote, as vLLM's and SGLang's
# coercions keep it.
NUM_TOOLS = [{"name": "calc", "parameters": {"type": "object", "properties": {
    "x": {"type": "number"}, "xs": {"type": "array"}, "o": {"type": "object"}, "n": {"type": "number"}}}}]
w("qwen3-coder", "numbers_past_a_double_stay_strings", "<tool_call>\n<function=calc>\n<parameter=x>\n1e999\n</parameter>\n<parameter=xs>\n[1, 2, 1e999]\n</parameter>\n<parameter=o>\n{'x': -1e999}\n</parameter>\n<parameter=n>\n1e308\n</parameter>\n</function>\n</tool_call>", NUM_TOOLS)
# Each call of a JSON block stands or falls alone (as in the XML blocks).
w("hermes", "list_bad_call_between_good", "<tool_call>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, {\"name\": 5}, {\"name\": \"get_time\", \"arguments\": {}}]</tool_call> after")
w("hermes", "list_bad_call_last", "<tool_call>[{\"name\": \"get_time\", \"arguments\": {}}, {\"arguments\": {}}]</tool_call> after")
w("mistral", "list_string_arguments_between_good", "[TOOL_CALLS][{\"name\": \"get_time\", \"arguments\": {}}, {\"name\": \"get_weather\", \"arguments\": \"hello\"}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}]")
w("llama3-json", "lines_unknown_tool_between_good", L3 % ("get_time", "{}") + "; " + L3 % ("launch_rockets", '{"n": 3}') + "; " + L3 % ("get_weather", '{"city": "Paris"}'), WEATHER_TOOLS)
w("gemma4", "bare_string_by_schema", g4("city:Paris,days:3") + " after", WEATHER_TOOLS)
w("gemma4", "bare_string_with_spaces_and_dashes", g4("city:New York-12 ,days:2"), WEATHER_TOOLS)
w("gemma4", "bare_number_where_string", g4("city:75001"), WEATHER_TOOLS)
w("gemma4", "bare_word_where_integer", g4("city:" + Q + "Paris" + Q + ",days:three"), WEATHER_TOOLS)
G4_LOOSE_TOOLS = [{"name": "get_weather", "parameters": {"type": "object", "properties": {
    "unit": {"enum": ["celsius", "fahrenheit"]},
    "note": {"type": ["string", "null"]},
    "mode": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "days": {"type": "integer"}}}}]
w("gemma4", "bare_values_by_enum_and_union", g4("unit:celsius,note:no rain,mode:fast,days:3"), G4_LOOSE_TOOLS)
w("gemma4", "bare_values_nested_and_empty", g4("date:2024-01-15,xs:[Paris, London ,3,true],o:{a:b c,n:1.5},e:,v:108."))
# Gemma 4's native parser also reads a bare `:` for `call:`, arguments in
# parentheses, and the end of the turn in place of `<tool_call|>`.
w("gemma4", "bare_colon_prefix", "<|tool_call>:get_weather{city:" + Q + "Paris" + Q + "}<tool_call|> after")
w("gemma4", "parentheses", "<|tool_call>call:get_weather(city:" + Q + "Paris (FR)" + Q + ",days:3,o:{k:[1]})<tool_call|>")
w("gemma4", "turn_end_after_arguments", "Checking. <|tool_call>call:get_time{}<turn|>")
w("gemma4", "second_call_bare_colon", g4("city:" + Q + "杭州" + Q) + "<|tool_call>:get_weather{city:" + Q + "Paris" + Q + "}<tool_call|>")
w("gemma4", "colon_then_no_name", "<|tool_call>:{city:" + Q + "Paris" + Q + "}<tool_call|> after")
w("gemma4", "mismatched_closer", "<|tool_call>call:get_time(}<tool_call|> after")

P = "pythonic"
w(P, "olmo3_calls_per_line", "<function_calls>get_weather(city='Paris')\nget_time(tz=\"UTC\")</function_calls>")
w(P, "olmo3_one_call_newlines", "I'll check.\n<function_calls>\nget_weather(city=\"東京\", days=2)\n</function_calls>\nDone.")
w(P, "olmo3_missing_end", "<function_calls>get_weather(city='Paris')\nget_time()")
w(P, "olmo3_comma_separated", "<function_calls>get_weather(city='Paris'), get_time()</function_calls>")
w(P, "olmo3_bad_call_line", "<function_calls>get_weather(city=paris)\nget_time()</function_calls>")
w(P, "olmo3_not_a_call", "<function_calls>is how the block starts</function_calls>")
w(P, "after_prose_known_tools", "Checking both for you. [get_weather(city=\"Paris\"), get_time(timezone='Europe/Paris')]", WEATHER_TOOLS)
w(P, "after_prose_bracketed_prose_stays", "See [see (1), (2)] and [note(s)] or [get_news(x=1)]; no calls here.", WEATHER_TOOLS)
w(P, "after_prose_known_tool_then_text", "Sure: [get_time()] — one moment.", WEATHER_TOOLS)
w(P, "after_prose_cut_off", "Checking. [get_weather(city=\"Par", WEATHER_TOOLS)
w(P, "after_prose_cut_at_marker", "Checking. [get_weather(", WEATHER_TOOLS)
w(P, "after_prose_without_tools_is_prose", "Checking both for you. [get_weather(city=\"Paris\")]")
w(P, "after_prose_not_python", "Call it as [get_weather(Paris)] yourself.", WEATHER_TOOLS)

# Long Markdown prose (links, tables, lists: many `[`, `|`, `_`, `<`)
# before the calls: the marker search's one pass over rare bytes gives
# way to the first bytes where they are dense.
MARKDOWN = ("## Notes\n\nSee [the docs](https://example.com/a_b) and [FAQ][1]. A table:\n\n"
            "| city | temp |\n|---|---|\n| Paris | 21 |\n\n"
            "- item *one* with `code_here` and a < b\n- item [two]\n\n[1]: https://example.com/faq\n\n") * 4
w(P, "after_markdown_prose_known_tools", MARKDOWN + "Checking: [get_weather(city=\"Paris\", days=2)]\nMore [links](x) after. "
  + PS + "[get_time()]" + PE + " Done.", WEATHER_TOOLS)
w("phi4-mini", "after_markdown_prose", MARKDOWN + 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}] and [more](links) after.')

# String values stream as they come: escapes decoded across any cut,
# Gemma 4 quote lookalikes inside, and strings that prove no literal.
w(P, "string_value_escapes_streamed", '[write(path=\'a.py\', code="print(\\"hi\\")\\n\\tx = \'\\x41\' \\u00e9 \\U0001F600 \\q \\\\ end\\\nmore 東京 \\/ \\b\\f", note=\'it\\\'s "so" \\"so\\"\')]')
w(P, "string_value_invalid_utf8", b"[write(code='ok \xe6\x9d\xb1 \xff bad', n=1)] after")
w(P, "string_value_cut_character_then_quote", b"[write(code='ok \xe6\x9d')] after")
w(P, "string_value_bad_hex_escape", "[write(code='a \\x4g b')] after")
w(P, "string_value_hex_escape_cut_by_quote", "[write(code='a \\x4')] after")
w(P, "string_value_then_more", "[write(code='abc' 'def')] after")
# vLLM's pythonic parser gives up a call whose quotes are unbalanced (its
# lfm2 parser repairs them; see testdata/lfm2).
w(P, "unescaped_quotes_in_string", "[get_weather(city='Paris'), f(a='x 'y', b='z')]")
w(P, "quote_then_whitespace_then_end", "[f(a='x' , b='y'\n)]")
w(P, "set_and_zero_padded_ints", "[label(tags={'urgent', 'bug'}), set_date(month=07, day=05, year=2024)]")
w(P, "string_value_empty_and_triple", "[write(a='', b=" + TQ + "it's, (x) '' ok" + TQ + ", c=\"x\", d=\"\"\"a\"b\"\"c\"\"\")]")
w(G4, "string_value_quote_lookalikes", g4("code:" + Q + "a <| b <|\" c <|\"| d \"q\" \\n <<|\"|>", "write"))
w(G4, "string_value_invalid_utf8", b"<|tool_call>call:write{code:<|\"|>ok \xe6\x9d\xb1 \xff bad<|\"|>}<tool_call|> after")

HA = "harmony"
w(HA, "opening_recipient_in_role", ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>')
w(HA, "opening_recipient_no_space", 'to=functions.get_time<|channel|>commentary <|constrain|>json<|message|>{}<|call|>')
w(HA, "opening_recipient_then_more", ' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|><|start|>assistant<|channel|>final<|message|>Done.')
w(HA, "opening_analysis_recipient", '<|channel|>analysis to=functions.get_weather<|message|>{"city": "Lima"}<|call|>')
w(HA, "analysis_recipient_after_reasoning", '<|channel|>analysis<|message|>Need Lima.<|end|><|channel|>analysis to=functions.get_weather <|constrain|>json<|message|>{"city": "Lima"}<|call|>')
w(HA, "opening_text_starting_with_t", 'to be precise: it is sunny.')
w(HA, "opening_text_starting_with_space", '  two spaces, then prose')
w(HA, "opening_to_without_header_end", ' to=functions.get_weather and nothing else')
w(HA, "opening_cut_in_to", ' to')

def write_index():
    """Rewrites the case tables of testdata/README.md from the files."""
    readme = open("testdata/README.md").read()
    head, _, rest = readme.partition("\n## ")
    bench = rest[rest.index("\n## bench"):]
    parts = [head.rstrip("\n") + "\n"]
    formats = sorted(d for d in os.listdir("testdata") if os.path.isdir(f"testdata/{d}") and d != "bench")
    for fmt in formats:
        cases = sorted(f[:-4] for f in os.listdir(f"testdata/{fmt}") if f.endswith(".txt"))
        rows = ["| case | what it covers | tools |", "|---|---|---|"]
        for c in cases:
            tools = "yes" if os.path.exists(f"testdata/{fmt}/{c}.tools.json") else ""
            rows.append(f"| `{c}` | {c.replace('_', ' ')} | {tools} |")
        parts.append(f"\n## {fmt} ({len(cases)} cases)\n\n" + "\n".join(rows) + "\n")
    open("testdata/README.md", "w").write("".join(parts) + bench)


# seed-oss: Seed-OSS, Qwen3-Coder's elements in `<seed:tool_call>` blocks,
# its own reasoning tags read by default.
S = "seed-oss"
seed = lambda name, params: xml_call(S, name, params)
w(S, "thinking_then_call", "<seed:think>The user wants Paris; a <seed:tool_call> comes next.</seed:think>\n" + seed("get_weather", [("city", "Paris"), ("days", "2")]), TYPED_TOOLS)
w(S, "thinking_budget_reflect", "<seed:think>Paris first.\n<seed:cot_budget_reflect>I have used 129 tokens, and there are 383 tokens remaining for use.</seed:cot_budget_reflect>\nNow the call.</seed:think>\n" + seed("get_time", []), TYPED_TOOLS)
w(S, "thinking_unclosed", "<seed:think>Still weighing Paris against 東京")
w(S, "thinking_lookalikes", "<seed:thinking> and <think> are prose, as is a stray </seed:think>.")
w(S, "newline_padded_values", "<seed:tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\n\nkeeps one blank line\n\n</parameter>\n</function>\n</seed:tool_call>", TYPED_TOOLS)
w(S, "bare_function_is_text", "Checking.\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\nDone.", TYPED_TOOLS)
w(S, "two_blocks_between_prose", "First " + seed("get_weather", [("city", "Oslo")]) + " then " + seed("get_weather", [("city", "Rome"), ("unit", "celsius")]) + " done.", TYPED_TOOLS)
w(S, "eos_token_after_call_is_text", seed("get_time", []) + "<seed:eos>", TYPED_TOOLS)
w(S, "two_functions_one_block", "<seed:think>\nTwo cities.\n</seed:think>\n<seed:tool_call>\n<function=get_weather>\n<parameter=city>Barcelona, Spain</parameter>\n</function>\n<function=get_weather>\n<parameter=city>Oslo</parameter>\n<parameter=days>2</parameter>\n</function>\n</seed:tool_call>", TYPED_TOOLS)
print("ok seed-oss")

# kimi-k3: Kimi-K3's XTML, tags that end at `<|sep|>`, its think channel
# read by default, the response channel's tags markup.
K3 = "kimi-k3"
O, C, SEP = "<|open|>", "<|close|>", "<|sep|>"
def k3_arg(key, kind, value):
    return f'{O}argument key="{key}" type="{kind}"{SEP}{value}{C}argument{SEP}'
def k3_call(name, args, index=1):
    return f'{O}call tool="{name}" index="{index}"{SEP}' + "".join(args) + f"{C}call{SEP}"
def k3_tools(*calls):
    return f"{O}tools{SEP}" + "".join(calls) + f"{C}tools{SEP}"
K3_WEATHER = k3_tools(k3_call("get_weather", [k3_arg("city", "string", "Paris"), k3_arg("days", "number", "2")]))
w(K3, "think_response_then_call", f"{O}think{SEP}The user wants Paris; the tools channel comes next.{C}think{SEP}{O}response{SEP}Checking the weather.{C}response{SEP}" + K3_WEATHER + f"{C}message{SEP}", TYPED_TOOLS)
w(K3, "think_opened_by_template", f"Paris, two days.{C}think{SEP}" + K3_WEATHER, TYPED_TOOLS)
open(f"testdata/{K3}/think_opened_by_template.reasoning.json", "w").write(json.dumps({"start": f"{O}think{SEP}", "end": f"{C}think{SEP}", "startsOpen": True, "callsInside": False}) + "\n")
w(K3, "response_opened_by_template", f"OK, it is sunny.{C}response{SEP}{C}message{SEP}")
w(K3, "typed_by_attribute", k3_tools(k3_call("calc", [k3_arg("x", "number", "1.5"), k3_arg("flag", "boolean", "true"), k3_arg("opts", "object", '{"deep": [1, {"a": null}]}'), k3_arg("xs", "array", "[1, 2]"), k3_arg("none", "null", "null"), k3_arg("text", "string", "42"), k3_arg("untyped", "", "raw")])))
w(K3, "typed_value_not_json_kept_as_string", k3_tools(k3_call("calc", [k3_arg("x", "number", "not-json")])))
w(K3, "schema_types_over_attribute", k3_tools(k3_call("get_weather", [k3_arg("city", "number", "7"), k3_arg("days", "string", "3")])), TYPED_TOOLS)
w(K3, "attributes_with_entities_and_brackets", k3_tools(k3_call("a&amp;b&quot;c", [k3_arg("k&amp;q", "string", "v")]), k3_call("calc<beta>", [k3_arg("foo<bar", "string", "raw")], 2)))
w(K3, "call_without_index", f'{O}tools{SEP}{O}call tool="get_time"{SEP}{C}call{SEP}{C}tools{SEP}', TYPED_TOOLS)
w(K3, "duplicate_indices", k3_tools(k3_call("get_weather", [k3_arg("city", "string", "Oslo")], 7), k3_call("get_weather", [k3_arg("city", "string", "Rome")], 7), k3_call("get_time", [], 3)), TYPED_TOOLS)
w(K3, "close_tag_inside_value", k3_tools(k3_call("write_file", [k3_arg("path", "string", "notes.md"), k3_arg("content", "string", f"Write {C}argument{SEP} to end an argument, and {O}call tool=\"x\"{SEP} to open a call.\n")])), TYPED_TOOLS)
w(K3, "lookalike_markers_are_text", f"A {O}tool{SEP} is not a {O}tools{SEP}-less channel, nor is {O} tools {SEP} or {C}responses{SEP}.")
w(K3, "stream_ends_inside_call", f"{O}response{SEP}One moment.{C}response{SEP}" + f'{O}tools{SEP}{O}call tool="get_weather" index="1"{SEP}' + k3_arg("city", "string", "Par"), TYPED_TOOLS)
w(K3, "cjk_values_and_text_after", "東京の天気を調べます。" + k3_tools(k3_call("get_weather", [k3_arg("city", "string", "東京"), k3_arg("days", "number", "3")])) + "\n以上です。", TYPED_TOOLS)
# A detokenizer that spaces special tokens apart (vLLM with
# spaces_between_special_tokens on) writes every tag so.
w(K3, "spaced_special_tokens", f"{O} response {SEP} Checking. {C} response {SEP} " + f'{O} tools {SEP} {O} call tool="get_weather" index="1" {SEP} {O} argument key="city" type="string" {SEP} Paris {C} argument {SEP} {O} argument key="days" type="number" {SEP} 2 {C} argument {SEP} {C} call {SEP} {C} tools {SEP} {C} message {SEP}', TYPED_TOOLS)
print("ok kimi-k3")

write_index()
