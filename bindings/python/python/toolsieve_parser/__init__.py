"""toolsieve's streaming tool-call parser, for Python.

`Parser` reads one model output in pieces of any size and returns events
(`TextDelta`, `ToolCall`, …) as soon as they are decided; the events of any
split of an output add up to those of the whole. The vLLM and SGLang
plugins (`toolsieve_parser.vllm`, `toolsieve_parser.sglang`) register one
tool parser per format, named `toolsieve_<format>`.
"""

from ._native import (
    Diagnostic,
    Markup,
    Parser,
    Piece,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputEnd,
    ToolInputStart,
    ToolsieveError,
    __version__,
    format_for_model,
    format_reasoning,
    formats,
    rewrite_chat_request,
    tool_prompt,
)
from ._stream import plugin_name

__all__ = [
    "Diagnostic",
    "Markup",
    "Parser",
    "Piece",
    "ReasoningDelta",
    "ReasoningEnd",
    "ReasoningStart",
    "TextDelta",
    "TextEnd",
    "TextStart",
    "ToolCall",
    "ToolInputDelta",
    "ToolInputEnd",
    "ToolInputStart",
    "ToolsieveError",
    "__version__",
    "format_for_model",
    "format_reasoning",
    "formats",
    "plugin_name",
    "rewrite_chat_request",
    "tool_prompt",
]
