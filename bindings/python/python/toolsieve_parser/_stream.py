"""What the server plugins share: plugin names, the request's tools as
dicts, and the parser a plugin reads one response with."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional

from ._native import Parser, ToolsieveError, format_reasoning


def plugin_name(format: str) -> str:
    """The name a server knows a format's parser by: `toolsieve_hermes`,
    `toolsieve_qwen3_coder`, `toolsieve_deepseek_v3_1`, …"""
    return "toolsieve_" + format.replace("-", "_").replace(".", "_")


def tool_list(tools: Optional[Iterable[Any]]) -> Optional[list]:
    """A server's tools (dicts or pydantic models, which `Parser` reads
    alike), or None for no tool list (none given, or empty: every name is
    then a call)."""
    return list(tools) if tools else None


def plugin_parser(format: str, tools: Optional[Iterable[Any]]) -> Parser:
    """The parser of a server plugin: the request's tools, no reasoning (the
    servers read it apart). A format whose calls are named by the tool list
    (morph-xml) reads no calls without one: all of its output is text.

    The plugins read it with `feed_piece` / `finish_piece`, and hand each
    call on whole once it parsed (name, arguments and the model's id
    together), as `toolsieve serve`'s validated policy sends it: what a
    client receives streamed is then what it receives at once, and a call
    that turns out malformed was never half sent (its text comes back as
    text instead). Text goes on as it arrives.
    """
    tools = tool_list(tools)
    try:
        return Parser(format, tools, reasoning=False)
    except ToolsieveError:
        if tools is not None:
            raise
        return Parser(format, reasoning=False, read_calls=False)


# Formats whose models may go from thinking straight to their calls, without
# the end tag (Kimi-K2's `…<|tool_calls_section_begin|>`): a call's marker
# ends the reasoning, as vLLM's own Kimi-K2 reasoning parser reads it.
CALLS_END_REASONING = frozenset({"kimi-k2"})


def reasoning_tags(format: str, reasoning: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The reasoning a plugin's reasoning parser reads: `reasoning` if given
    (`{"start", "end", "starts_open", "ends_at_calls"}`), else the format's
    own tags, else `<think>` / `</think>`."""
    if reasoning is not None:
        return dict(reasoning)
    tags = format_reasoning(format) or ("<think>", "</think>")
    return {
        "start": tags[0],
        "end": tags[1],
        "starts_open": False,
        "calls_inside": False,
        "ends_at_calls": format in CALLS_END_REASONING,
    }
