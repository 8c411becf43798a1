"""Driving vLLM's and SGLang's own parser machinery over an output cut into
pieces, and reading back what a client would receive."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple

from conftest import Case

from toolsieve_parser import format_reasoning


@dataclass
class Received:
    """A chat response as a client puts it together."""

    content: str = ""
    reasoning: str = ""
    calls: List[list] = field(default_factory=list)  # [name, arguments, id]

    def comparable(self, with_ids: bool = True) -> Tuple[str, str, list]:
        # Servers drop whitespace-only content next to calls when whole.
        content = "" if self.calls and not self.content.strip() else self.content
        calls = [tuple(c) if with_ids else tuple(c[:2]) for c in self.calls]
        return content, self.reasoning, calls


def expected(case: Case, with_ids: bool = True) -> Tuple[str, str, list]:
    e = case.expected()
    calls = [c if with_ids else c[:2] for c in e.calls]
    received = Received(e.content, e.reasoning, [list(c) for c in calls])
    return received.comparable(with_ids)


def reads_reasoning(case: Case) -> bool:
    """Whether the Rust parser of the case reads reasoning."""
    return case.reasoning is not None or format_reasoning(case.format) is not None


def holds_reasoning(case: Case) -> bool:
    """Whether the case's text is read as reasoning in part: it has a
    reasoning setting of its own, or its format reads its own tags by
    default (gpt-oss's analysis channel, Seed-OSS's `<seed:think>`) and
    the text holds the start tag. The servers read reasoning apart, so
    the side-by-side comparisons leave such cases out."""
    tags = format_reasoning(case.format)
    return case.reasoning is not None or (tags is not None and tags[0] in case.text)


def reasoning_ends_at_tool_names(case: Case) -> bool:
    """Whether the case's reasoning ends at a call whose marker is a tool's
    name (morph-xml's `<get_weather>`): a server's reasoning parser, which
    gets no tool list, cannot see such a marker."""
    return case.format == "morph-xml" and bool((case.reasoning or {}).get("endsAtCalls"))


# ---------------------------------------------------------------- vLLM


def vllm_tools(case: Case) -> Optional[list]:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionToolsParam

    if case.tools is None:
        return None
    return [ChatCompletionToolsParam(type="function", function=_function(t)) for t in case.tools]


def _function(tool: dict) -> dict:
    tool = tool.get("function", tool)
    return {k: v for k, v in tool.items() if k in ("name", "description", "parameters")}


def vllm_request(case: Case) -> Any:
    """A request with the case's tools (or one placeholder tool, so that
    tool_choice is "auto"; the parser itself is built without a list)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    tools = case.tools or [{"name": "toolsieve_placeholder", "parameters": {"type": "object"}}]
    return ChatCompletionRequest(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=[{"type": "function", "function": _function(t)} for t in tools],
        tool_choice="auto",
    )


def vllm_parser_class(tool_cls: Optional[type], reasoning_cls: Optional[type]) -> type:
    from vllm.parser.abstract_parser import DelegatingParser

    class Composed(DelegatingParser):
        reasoning_parser_cls = reasoning_cls
        tool_parser_cls = tool_cls

    return Composed


def vllm_stream(parser: Any, request: Any, pieces: Sequence[Tuple[str, list]]) -> Received:
    """`parse_delta` per piece, as vLLM's chat server calls it."""
    received = Received()
    by_index: dict = {}
    content, thoughts = [], []  # joined at the end: += on an attribute copies
    for i, (text, ids) in enumerate(pieces):
        delta = parser.parse_delta(
            text, list(ids), request, prompt_token_ids=[] if i == 0 else None, finished=i == len(pieces) - 1
        )
        if delta is None:
            continue
        content.append(delta.content or "")
        thoughts.append(delta.reasoning or "")
        for call in delta.tool_calls or []:
            entry = by_index.get(call.index)
            if entry is None:
                entry = by_index[call.index] = ["", "", call.id]
                received.calls.append(entry)
            if call.function is not None:
                entry[0] += call.function.name or ""
                entry[1] += call.function.arguments or ""
    received.content, received.reasoning = "".join(content), "".join(thoughts)
    return received


def vllm_whole(parser: Any, request: Any, text: str) -> Received:
    reasoning, content, calls = parser.parse(text, request, enable_auto_tools=True)
    return Received(content or "", reasoning or "", [[c.name, c.arguments, c.id] for c in calls or []])


# -------------------------------------------------------------- SGLang


def sglang_tools(case: Case) -> list:
    from sglang.srt.entrypoints.openai.protocol import Tool

    return [Tool(type="function", function=_function(t)) for t in case.tools or []]


def sglang_reasoning(case: Case) -> Any:
    """SGLang's own `ReasoningParser` with the toolsieve reasoning detector
    of the case (its reasoning tags, or the format's), or None for a case
    that reads no reasoning."""
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    from toolsieve_parser.sglang import reasoning_detector_class

    if not reads_reasoning(case):
        return None
    name = "toolsieve_test_case"
    ReasoningParser.DetectorMap[name] = reasoning_detector_class(case.format, case.reasoning)
    return ReasoningParser(model_type=name)


def sglang_stream(parser: Any, pieces: Sequence[str], reasoning: Any = None) -> Received:
    """Per piece, the reasoning parser's `parse_stream_chunk` and the tool
    parser's on its normal text, then both ends: as SGLang's chat server
    calls them."""
    received = Received()
    by_index: dict = {}
    content, thoughts = [], []  # joined at the end: += on an attribute copies

    def take(result: tuple) -> None:
        text, calls = result
        content.append(text or "")
        for call in calls:
            entry = by_index.get(call.tool_index)
            if entry is None:
                entry = by_index[call.tool_index] = ["", "", None]
                received.calls.append(entry)
            entry[0] += call.name or ""
            entry[1] += call.parameters or ""

    for piece in pieces:
        if reasoning is not None:
            thought, piece = reasoning.parse_stream_chunk(piece)
            thoughts.append(thought or "")
        take(parser.parse_stream_chunk(piece or ""))
    if reasoning is not None:
        thought, rest = reasoning.parse_stream_end()
        thoughts.append(thought or "")
        take(parser.parse_stream_chunk(rest or ""))
    take(parser.parse_stream_end())
    received.content, received.reasoning = "".join(content), "".join(thoughts)
    return received


def sglang_whole(parser: Any, text: str, reasoning: Any = None) -> Received:
    thought = ""
    if reasoning is not None:
        thought, text = reasoning.parse_non_stream(text)
    content, calls = parser.parse_non_stream(text or "")
    return Received(content or "", thought or "", [[c.name, c.parameters, None] for c in calls])
