"""toolsieve inside SGLang: one function-call detector per format,
registered in `FunctionCallParser`'s table as `toolsieve_<format>`.

`pip install toolsieve-parser` registers them through SGLang's
`sglang.srt.plugins` entry point, loaded before the server reads its
arguments, so `--tool-call-parser toolsieve_hermes` is accepted. A call's
`tool_index` is its position in the response; each call is handed on whole
once it parsed (name and arguments in one item), so streamed and whole
responses agree. SGLang is imported only when these are used.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Dict, List, Optional

from ._native import Parser, ToolsieveError, formats
from ._stream import plugin_name, plugin_parser, reasoning_tags


def register() -> None:
    """Adds `toolsieve_<format>` for every format to SGLang's tool-call and
    reasoning detector tables (the `sglang.srt.plugins` entry point)."""
    from sglang.srt.function_call.function_call_parser import FunctionCallParser
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    for format in formats():
        FunctionCallParser.ToolCallParserEnum[plugin_name(format)] = detector_class(format)
        ReasoningParser.DetectorMap[plugin_name(format)] = reasoning_detector_class(format)


@lru_cache(maxsize=None)
def _base() -> type:
    from sglang.srt.function_call.base_format_detector import BaseFormatDetector
    from sglang.srt.function_call.core_types import StreamingParseResult, ToolCallItem

    empty = StreamingParseResult()

    class ToolsieveDetector(BaseFormatDetector):
        """A toolsieve parser as an SGLang detector (see the module docs)."""

        toolsieve_format = "hermes"

        def __init__(self) -> None:
            super().__init__()
            self._parser: Optional[Parser] = None
            self._calls = 0

        @classmethod
        def parses_without_tools(cls) -> bool:
            # Without a tool list every name is a call, as toolsieve reads
            # one: a call is never left in the content.
            return True

        def supports_structural_tag(self) -> bool:
            return False

        def structure_info(self) -> Any:
            raise NotImplementedError(
                "toolsieve detectors do not constrain generation; a forced "
                "tool_choice uses SGLang's JSON-schema path"
            )

        def has_tool_call(self, text: str) -> bool:
            # Without the request's tools (SGLang does not pass them here):
            # whether reading the text changes it. If so, SGLang parses it
            # with the tools, and the answer is the same as streamed.
            try:
                piece = Parser(self.toolsieve_format, reasoning=False).parse_piece(text)
            except ToolsieveError:
                return True  # a format whose calls need the tool list
            return bool(piece.calls) or piece.text != text

        def detect_and_parse(self, text: str, tools: List[Any]) -> Any:
            piece = plugin_parser(self.toolsieve_format, tools).parse_piece(text)
            return self._result(piece, first=0, record=False)

        def parse_streaming_increment(self, new_text: str, tools: List[Any]) -> Any:
            parser = self._parser
            if parser is None:
                parser = self._parser = plugin_parser(self.toolsieve_format, tools)
                self._calls = 0
            piece = parser.feed_piece(new_text)
            if piece.calls:  # rare: a list is built only when asked for
                return self._result(piece, first=self._calls, record=True)
            if not piece.text:
                # Most deltas inside a call: nothing to send yet. SGLang
                # only reads a result, so one empty result serves them all.
                return empty
            return StreamingParseResult(normal_text=piece.text)

        def finish(self, tools: List[Any]) -> Any:
            if self._parser is None:
                return StreamingParseResult()
            parser, self._parser = self._parser, None
            return self._result(parser.finish_piece(), first=self._calls, record=True)

        def _result(self, piece: Any, first: int, record: bool) -> Any:
            parsed = piece.calls
            if not parsed:
                return StreamingParseResult(normal_text=piece.text)
            calls = []
            for index, call in enumerate(parsed, first):
                calls.append(ToolCallItem(tool_index=index, name=call.tool_name, parameters=call.input))
                if record:
                    self._calls = index + 1
                    # What SGLang checks at the end for arguments not yet
                    # sent: all of them were.
                    self.prev_tool_call_arr.append({"name": call.tool_name, "arguments": call.input})
                    self.streamed_args_for_tool.append(call.input)
                    self.current_tool_id = index
            return StreamingParseResult(normal_text=piece.text, calls=calls)

    return ToolsieveDetector


def detector_class(format: str) -> type:
    """SGLang's detector class for a toolsieve format."""
    return type(
        "Toolsieve" + plugin_name(format).title().replace("_", "") + "Detector",
        (_base(),),
        {"toolsieve_format": format, "__module__": __name__},
    )


@lru_cache(maxsize=None)
def _reasoning_base() -> type:
    from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, StreamingParseResult

    class ToolsieveReasoningDetector(BaseReasoningFormatDetector):
        """A toolsieve parser reading only reasoning, as an SGLang reasoning
        detector: every reasoning block is reasoning, wherever it stands;
        `force_reasoning` (a prompt that opened it) starts it open.
        Reasoning streams as it arrives (`stream_reasoning=False` is not
        honoured)."""

        toolsieve_format = "hermes"
        toolsieve_reasoning: Optional[Dict[str, Any]] = None

        def __init__(self, stream_reasoning: bool = True, force_reasoning: Optional[bool] = None, **kwargs: Any):
            self._tags = reasoning_tags(self.toolsieve_format, self.toolsieve_reasoning)
            if force_reasoning:
                self._tags["starts_open"] = True
            super().__init__(
                self._tags["start"],
                self._tags["end"],
                force_reasoning=bool(self._tags.get("starts_open") or self._tags.get("startsOpen")),
                stream_reasoning=stream_reasoning,
            )
            self._parser: Optional[Parser] = None

        def _new_parser(self) -> Parser:
            return Parser(self.toolsieve_format, reasoning=self._tags, read_calls=False)

        def detect_and_parse(self, text: str) -> Any:
            piece = self._new_parser().parse_piece(text)
            return StreamingParseResult(normal_text=piece.text, reasoning_text=piece.reasoning)

        def parse_streaming_increment(self, new_text: str) -> Any:
            if self._parser is None:
                self._parser = self._new_parser()
            piece = self._parser.feed_piece(new_text)
            return StreamingParseResult(normal_text=piece.text, reasoning_text=piece.reasoning)

        def finish(self) -> Any:
            if self._parser is None:
                return StreamingParseResult()
            parser, self._parser = self._parser, None
            piece = parser.finish_piece()
            return StreamingParseResult(normal_text=piece.text, reasoning_text=piece.reasoning)

    return ToolsieveReasoningDetector


def reasoning_detector_class(format: str, reasoning: Optional[Dict[str, Any]] = None) -> type:
    """SGLang's reasoning detector class for a toolsieve format, reading the
    format's reasoning tags or `reasoning` (`{"start", "end",
    "starts_open"}`)."""
    return type(
        "Toolsieve" + plugin_name(format).title().replace("_", "") + "ReasoningDetector",
        (_reasoning_base(),),
        {"toolsieve_format": format, "toolsieve_reasoning": reasoning, "__module__": __name__},
    )
