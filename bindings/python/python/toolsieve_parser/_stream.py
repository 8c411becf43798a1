"""What the server plugins share: a parser's events per piece, folded into
the text, reasoning and complete calls that a chat delta carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, List, Optional, Union

from ._native import Parser, ReasoningDelta, TextDelta, ToolCall, ToolsieveError


def plugin_name(format: str) -> str:
    """The name a server knows a format's parser by: `toolsieve_hermes`,
    `toolsieve_qwen3_coder`, `toolsieve_deepseek_v3_1`, …"""
    return "toolsieve_" + format.replace("-", "_").replace(".", "_")


@dataclass
class Piece:
    """What one piece of output (or the end) gave: the text and reasoning
    to show, and the calls that completed, with their index in the
    response."""

    text: str = ""
    reasoning: str = ""
    calls: List["tuple[int, ToolCall]"] = field(default_factory=list)


class PieceReader:
    """One output through a toolsieve `Parser`, piece by piece.

    A call is handed on whole once it parsed (name, arguments and the
    model's id together), as `toolsieve serve`'s validated policy sends it:
    what a client receives streamed is then what it receives at once, and
    a call that turns out malformed was never half sent (its text comes back
    as text instead). Text and reasoning go on as they arrive.
    """

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        self.calls: List[ToolCall] = []

    def feed(self, data: Union[str, bytes]) -> Piece:
        return self._fold(self.parser.feed(data))

    def finish(self) -> Piece:
        return self._fold(self.parser.finish())

    def whole(self, data: Union[str, bytes]) -> Piece:
        """A whole output, from a fresh start."""
        self.calls = []
        return self._fold(self.parser.parse(data))

    def _fold(self, events: Iterable[Any]) -> Piece:
        piece = Piece()
        text: List[str] = []
        reasoning: List[str] = []
        for event in events:
            if isinstance(event, TextDelta):
                text.append(event.delta)
            elif isinstance(event, ReasoningDelta):
                reasoning.append(event.delta)
            elif isinstance(event, ToolCall):
                piece.calls.append((len(self.calls), event))
                self.calls.append(event)
        piece.text = "".join(text)
        piece.reasoning = "".join(reasoning)
        return piece


def tool_dicts(tools: Optional[Iterable[Any]]) -> Optional[list]:
    """A server's tool objects (pydantic models) as dicts, or None for no
    tool list (none given, or empty: every name is then a call)."""
    if not tools:
        return None
    out = []
    for tool in tools:
        out.append(tool.model_dump(exclude_none=True) if hasattr(tool, "model_dump") else tool)
    return out


def plugin_reader(format: str, tools: Optional[Iterable[Any]]) -> PieceReader:
    """A reader for a server plugin: the request's tools, no reasoning (the
    servers read it apart). A format whose calls are named by the tool list
    (morph-xml) reads no calls without one: all of its output is text."""
    tool_list = tool_dicts(tools)
    try:
        return PieceReader(Parser(format, tool_list, reasoning=False))
    except ToolsieveError:
        if tool_list is not None:
            raise
        return PieceReader(Parser(format, reasoning=False, read_calls=False))
